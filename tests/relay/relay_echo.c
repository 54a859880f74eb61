/*
 * relay_echo.c - echo server thread and client socket for the live relay
 * tests.  Every loop is bounded by a stop flag and a receive timeout.
 */
#include "relay_echo.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "np_err.h"
#include "np_relay.h"

uint64_t relay_now_ns(void) { return np_relay_now_ns(); }

static int set_timeout(int fd, int ms) {
  struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
  return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int relay_client_open(int timeout_ms) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int sz = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
  if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
      set_timeout(fd, timeout_ms) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void serve(void *arg) {
  struct relay_echo *e = arg;
  unsigned char buf[65536];
  while (!atomic_load(&e->stop)) {
    struct sockaddr_storage from;
    socklen_t flen = sizeof(from);
    ssize_t n = recvfrom(e->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
                         &flen);
    if (n < 0)
      continue; /* timeout: check the stop flag */
    uint64_t now = relay_now_ns();
    if (e->packets == 0)
      e->first_ns = now;
    e->last_ns = now;
    e->packets++;
    e->bytes += (uint64_t)n;
    if (e->echo)
      sendto(e->fd, buf, (size_t)n, 0, (struct sockaddr *)&from, flen);
  }
}

int relay_echo_start(struct relay_echo *e, int echo) {
  memset(e, 0, sizeof(*e));
  atomic_init(&e->stop, 0);
  e->echo = echo;
  e->fd = relay_client_open(20);
  if (e->fd < 0)
    return NP_ESYS;
  socklen_t len = sizeof(e->addr);
  if (getsockname(e->fd, (struct sockaddr *)&e->addr, &len) != 0 ||
      uv_thread_create(&e->thread, serve, e) != 0) {
    close(e->fd);
    return NP_ESYS;
  }
  return 0;
}

void relay_echo_stop(struct relay_echo *e) {
  atomic_store(&e->stop, 1);
  uv_thread_join(&e->thread);
  close(e->fd);
}
