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

static socklen_t loopback(int family, struct sockaddr_storage *ss) {
  memset(ss, 0, sizeof *ss);
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    return sizeof *a;
  }
  struct sockaddr_in *a = (struct sockaddr_in *)ss;
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return sizeof *a;
}

int relay_client_open(int timeout_ms) {
  return relay_client_open_family(timeout_ms, AF_INET);
}

int relay_client_open_family(int timeout_ms, int family) {
  int fd = socket(family, SOCK_DGRAM, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_storage a;
  socklen_t alen = loopback(family, &a);
  int sz = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
  if (bind(fd, (struct sockaddr *)&a, alen) != 0 ||
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
    unsigned k = 0;
    while (k < e->nsrc && !np_addr_sa_equal((struct sockaddr *)&e->src[k],
                                               (struct sockaddr *)&from))
      k++;
    if (k == e->nsrc && e->nsrc < 16)
      e->src[e->nsrc++] = from;
    if (e->echo)
      sendto(e->fd, buf, (size_t)n, 0, (struct sockaddr *)&from, flen);
  }
}

unsigned relay_echo_sources(const struct relay_echo *e) { return e->nsrc; }

int relay_echo_start(struct relay_echo *e, int echo) {
  return relay_echo_start_family(e, echo, AF_INET);
}

int relay_echo_start_family(struct relay_echo *e, int echo, int family) {
  memset(e, 0, sizeof(*e));
  atomic_init(&e->stop, 0);
  e->echo = echo;
  e->fd = relay_client_open_family(20, family);
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

static void tcp_serve(void *arg) {
  struct relay_tcp_echo *e = arg;
  unsigned char buf[16384];
  while (!atomic_load(&e->stop)) {
    int c = accept(e->fd, NULL, NULL);
    if (c < 0)
      continue; /* timeout: check the stop flag */
    e->connections++;
    set_timeout(c, 20);
    while (!atomic_load(&e->stop)) {
      ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n == 0)
        break;
      if (n < 0)
        continue;
      e->bytes += (uint64_t)n;
      for (ssize_t off = 0; off < n;) {
        ssize_t w = send(c, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
        if (w <= 0)
          break;
        off += w;
      }
    }
    close(c);
  }
}

int relay_tcp_echo_start(struct relay_tcp_echo *e) {
  memset(e, 0, sizeof(*e));
  atomic_init(&e->stop, 0);
  e->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_storage a;
  socklen_t alen = loopback(AF_INET, &a), len = sizeof e->addr;
  if (e->fd < 0 || bind(e->fd, (struct sockaddr *)&a, alen) != 0 ||
      listen(e->fd, 8) != 0 || set_timeout(e->fd, 20) != 0 ||
      getsockname(e->fd, (struct sockaddr *)&e->addr, &len) != 0 ||
      uv_thread_create(&e->thread, tcp_serve, e) != 0) {
    if (e->fd >= 0)
      close(e->fd);
    return NP_ESYS;
  }
  return 0;
}

void relay_tcp_echo_stop(struct relay_tcp_echo *e) {
  atomic_store(&e->stop, 1);
  uv_thread_join(&e->thread);
  close(e->fd);
}
