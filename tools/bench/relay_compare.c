/*
 * relay_compare.c - the standalone relay's own cost at zero impairment,
 * against the direct path, side by side and alternating so both see the
 * same machine load.  An echo server thread (epoll + recvmmsg/sendmmsg)
 * binds --echo-port; `netproof-bench relay` (started by
 * bench/scripts/relay_compare.sh) forwards --via to it.  Per block, in
 * turn direct then via the relay:
 *   latency  sequential ping-pongs (one datagram in flight): RTT samples;
 *   rate     --window datagrams in flight on one socket for --seconds:
 *            round trips per second.
 * Prints one line per path and one summary line: RTT p50/p99 of both, the
 * added latency per relay traversal ((via - direct) / 2), the median rate
 * of both over the blocks, and the relay's forwarding rate (2 datagrams
 * per round trip).
 *
 * usage: np_relay_compare --via ADDR:PORT --echo-port P [--samples N]
 *        [--payload B] [--window W] [--seconds S] [--blocks K]
 * Not installed; a benchmark helper only (IPv4 loopback).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "np_addr.h"

#define BATCH 64
#define MAXBLOCKS 64

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what) {
  fprintf(stderr, "np_relay_compare: %s: %s\n", what, strerror(errno));
  exit(3);
}

struct echo {
  int fd;                  /* bound to --echo-port           */
  atomic_int stop;         /* set by main when done          */
  char buf[BATCH][2048];   /* the echo thread's batch        */
};

static void *echo_main(void *arg) {
  struct echo *e = arg;
  char (*buf)[2048] = e->buf;
  struct mmsghdr m[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_storage from[BATCH];
  while (!atomic_load(&e->stop)) {
    for (int i = 0; i < BATCH; i++) {
      iov[i] = (struct iovec){buf[i], sizeof buf[i]};
      memset(&m[i], 0, sizeof m[i]);
      m[i].msg_hdr.msg_iov = &iov[i];
      m[i].msg_hdr.msg_iovlen = 1;
      m[i].msg_hdr.msg_name = &from[i];
      m[i].msg_hdr.msg_namelen = sizeof from[i];
    }
    int n = recvmmsg(e->fd, m, BATCH, MSG_WAITFORONE, NULL);
    if (n <= 0)
      continue; /* timeout: look at the stop flag */
    for (int i = 0; i < n; i++)
      iov[i].iov_len = m[i].msg_len;
    for (int off = 0; off < n;) {
      int k = sendmmsg(e->fd, m + off, (unsigned)(n - off), 0);
      if (k <= 0)
        break;
      off += k;
    }
  }
  return NULL;
}

static int udp_socket(int timeout_ms) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 4 << 20;
  struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (fd < 0)
    die("socket");
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
    die("bind");
  return fd;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p) {
  size_t i = (size_t)(p / 100.0 * (double)n);
  return v[i < n ? i : n - 1];
}

/* n sequential round trips on a connected socket, RTTs in us.  Each ping
 * carries its own tag, so a late echo of the rate phase is skipped. */
static void pings(int fd, size_t n, size_t len, uint64_t *tag, double *out) {
  char buf[2048], in[2048];
  memset(buf, 0x5A, len);
  for (size_t i = 0; i < n; i++) {
    uint64_t t = (*tag)++;
    memcpy(buf, &t, len < sizeof t ? len : sizeof t);
    double t0 = now_s();
    if (send(fd, buf, len, 0) != (ssize_t)len)
      die("send");
    for (;;) {
      ssize_t r = recv(fd, in, sizeof in, 0);
      if (r < 0)
        die("no echo within 1 s");
      if (r == (ssize_t)len && memcmp(in, buf, len) == 0)
        break;
    }
    out[i] = (now_s() - t0) * 1e6;
  }
}

/* window datagrams in flight for seconds: round trips per second. */
static double rate(int fd, size_t len, int window, double seconds) {
  char buf[2048];
  memset(buf, 0x33, len);
  for (int w = 0; w < window; w++)
    if (send(fd, buf, len, 0) != (ssize_t)len)
      die("send");
  unsigned long long rt = 0;
  double t0 = now_s(), end = t0 + seconds;
  while (now_s() < end) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) { /* a datagram was lost: refill the window */
      if (send(fd, buf, len, 0) != (ssize_t)len)
        die("send");
      continue;
    }
    rt++;
    if (send(fd, buf, len, 0) != (ssize_t)len)
      die("send");
  }
  double secs = now_s() - t0;
  while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
    ; /* what was still in flight */
  return (double)rt / secs;
}

int main(int argc, char **argv) {
  const char *via = NULL;
  int echo_port = 0, window = 16, blocks = 10;
  size_t samples = 20000, payload = 1024;
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--via"))
      via = argv[i + 1];
    else if (!strcmp(argv[i], "--echo-port"))
      echo_port = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--samples"))
      samples = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--payload"))
      payload = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--window"))
      window = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds"))
      seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--blocks"))
      blocks = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "np_relay_compare: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  struct np_addr via_addr;
  struct np_errbuf eb = {{0}};
  if (via == NULL || np_addr_parse("--via", via, 0, &via_addr, &eb) != 0 ||
      np_addr_family(&via_addr) != AF_INET) {
    fprintf(stderr, "np_relay_compare: %s\n",
            via == NULL ? "--via ADDR:PORT is required"
            : eb.msg[0] ? eb.msg
                        : "--via: an IPv4 ADDR:PORT (the direct path is "
                          "127.0.0.1)");
    return 2;
  }
  if (echo_port <= 0 || echo_port > 65535 || payload < 8 ||
      payload > 2048 || window < 1 || window > 1024 || seconds <= 0 ||
      blocks < 1 || blocks > MAXBLOCKS || samples < (size_t)blocks * 100) {
    fprintf(stderr, "np_relay_compare: bad options (see the file comment)\n");
    return 2;
  }
  struct sockaddr_in direct = {.sin_family = AF_INET,
                               .sin_port = htons((uint16_t)echo_port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct sockaddr_in relay;
  memcpy(&relay, &via_addr.ss, sizeof relay);
  struct echo *e = calloc(1, sizeof *e); /* 128 KiB of batch buffers */
  if (e == NULL)
    die("calloc");
  e->fd = socket(AF_INET, SOCK_DGRAM, 0);
  atomic_init(&e->stop, 0);
  int sz = 4 << 20;
  struct timeval tv = {0, 100000};
  setsockopt(e->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  setsockopt(e->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
  setsockopt(e->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (bind(e->fd, (struct sockaddr *)&direct, sizeof direct) != 0)
    die("bind --echo-port");
  pthread_t th;
  if (pthread_create(&th, NULL, echo_main, e) != 0)
    die("pthread_create");

  const struct sockaddr_in *to[2] = {&direct, &relay};
  int fd[2];
  for (int p = 0; p < 2; p++) {
    fd[p] = udp_socket(1000);
    if (connect(fd[p], (const struct sockaddr *)to[p], sizeof *to[p]) != 0)
      die("connect");
  }
  size_t per = samples / (size_t)blocks;
  double *rtt[2];
  double rates[2][MAXBLOCKS];
  for (int p = 0; p < 2; p++)
    if ((rtt[p] = calloc(per * (size_t)blocks, sizeof(double))) == NULL)
      die("calloc");
  uint64_t tag = 1;
  pings(fd[1], 200, payload, &tag, rtt[1]); /* warm-up: the route opens */
  for (int b = 0; b < blocks; b++)
    for (int p = 0; p < 2; p++) {
      pings(fd[p], per, payload, &tag, rtt[p] + (size_t)b * per);
      rates[p][b] = rate(fd[p], payload, window, seconds / blocks);
    }
  atomic_store(&e->stop, 1);
  pthread_join(th, NULL);
  static const char *const name[2] = {"direct", "relay"};
  double p50[2], p99[2], med[2];
  size_t n = per * (size_t)blocks;
  for (int p = 0; p < 2; p++) {
    qsort(rtt[p], n, sizeof(double), cmp_d);
    qsort(rates[p], (size_t)blocks, sizeof(double), cmp_d);
    p50[p] = pct(rtt[p], n, 50);
    p99[p] = pct(rtt[p], n, 99);
    med[p] = rates[p][blocks / 2];
    printf("%-6s: RTT p50 %.1f us, p99 %.1f us (%zu samples); %.0f round "
           "trips/s at window %d (median of %d blocks, min %.0f, max %.0f)\n",
           name[p], p50[p], p99[p], n, med[p], window, blocks, rates[p][0],
           rates[p][blocks - 1]);
  }
  printf("relay added per traversal: p50 %.1f us, p99 %.1f us; round trips "
         "%.0f/s via the relay vs %.0f/s direct (%.0f %%), the relay "
         "forwarding %.0f datagrams/s; %zu B, alternating blocks of %zu\n",
         (p50[1] - p50[0]) / 2, (p99[1] - p99[0]) / 2, med[1], med[0],
         100.0 * med[1] / med[0], 2 * med[1], payload, per);
  return 0;
}
