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
  struct sockaddr_storage src[16]; /* distinct sources seen            */
  unsigned nsrc;
};

/* Bind 127.0.0.1:0 and start the thread.  0 or a negative NP_E*. */
int relay_echo_start(struct relay_echo *e, int echo);
/* The same on family's loopback (AF_INET or AF_INET6). */
int relay_echo_start_family(struct relay_echo *e, int echo, int family);
void relay_echo_stop(struct relay_echo *e);

/* The distinct source addresses the echo server saw (up to 16). */
unsigned relay_echo_sources(const struct relay_echo *e);

/* A TCP echo server on its own thread: one connection at a time, every
 * byte sent back; each accept and read bounded by a 20 ms timeout. */
struct relay_tcp_echo {
  int fd;
  struct sockaddr_storage addr;
  uv_thread_t thread;
  atomic_int stop;
  uint64_t connections, bytes; /* read after relay_tcp_echo_stop */
};
int relay_tcp_echo_start(struct relay_tcp_echo *e);
void relay_tcp_echo_stop(struct relay_tcp_echo *e);

/* A client socket bound to 127.0.0.1:0 with an SO_RCVTIMEO of timeout_ms. */
int relay_client_open(int timeout_ms);
/* The same on family's loopback. */
int relay_client_open_family(int timeout_ms, int family);

/* Monotonic ns (same clock as the relay). */
uint64_t relay_now_ns(void);

#endif
