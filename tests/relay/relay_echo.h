/*
 * relay_echo.h - test helpers: a UDP echo server on its own thread and a
 * blocking client socket with receive timeouts, loopback only.
 */
#ifndef RELAY_ECHO_H
#define RELAY_ECHO_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include <uv.h>

struct relay_echo {
  int fd;
  struct sockaddr_storage addr;  /* where it listens */
  uv_thread_t thread;
  atomic_int stop;
  int echo;                      /* 0: only count (rate test) */
  /* Written by the server thread, read after relay_echo_stop: */
  uint64_t packets, bytes;
  uint64_t first_ns, last_ns;    /* arrival times of first/last datagram */
};

/* Bind 127.0.0.1:0 and start the thread.  0 or a negative NP_E*. */
int relay_echo_start(struct relay_echo *e, int echo);
void relay_echo_stop(struct relay_echo *e);

/* A client socket bound to 127.0.0.1:0 with an SO_RCVTIMEO of timeout_ms. */
int relay_client_open(int timeout_ms);

/* Monotonic ns (same clock as the relay). */
uint64_t relay_now_ns(void);

#endif
