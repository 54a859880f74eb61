/*
 * rudp_plain_bound.c - the none-profile bound of `netproof-bench rudp`
 * (issue 20): a plain UDP echo with the same clients, window and payload,
 * through the same in-process relay (np_relay, profile none, its own
 * thread), and no ARQ, no FEC, no checks beyond a count: one thread,
 * epoll + recvmmsg/sendmmsg, each client re-sends a message as soon as
 * its echo is back.  What rudp reaches divided by this is the share of the
 * path's capacity the reliable transport keeps.
 *
 * usage: np_rudp_plain_bound [--clients 4] [--window 16] [--payload 1024]
 *                            [--seconds 3] [--warmup 2] [--batch 32]
 * Prints one line: "roundtrips_per_sec R p50_us A p99_us B".  There is no
 * loss on the none profile; a datagram the kernel dropped would shrink the
 * window and show as a lower rate.
 * A helper only (not installed): bench/scripts/rudp_issue20.sh runs it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np_hist.h"
#include "np_relay.h"

#define MAXB 64

struct opts {
  int clients, window, payload, batch;
  double seconds, warmup;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int die(const char *what) {
  fprintf(stderr, "np_rudp_plain_bound: %s: %s\n", what, strerror(errno));
  exit(3);
}

static int sock_at(const struct sockaddr_in *bind_to,
                   const struct sockaddr_storage *peer) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int buf = 4 << 20;
  if (fd < 0)
    die("socket");
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  if (bind(fd, (const struct sockaddr *)bind_to, sizeof *bind_to))
    die("bind");
  if (peer && connect(fd, (const struct sockaddr *)peer, sizeof *bind_to))
    die("connect");
  return fd;
}

static int parse(int argc, char **argv, struct opts *o) {
  *o = (struct opts){4, 16, 1024, 32, 3.0, 2.0};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--clients"))
      o->clients = atoi(v);
    else if (!strcmp(k, "--window"))
      o->window = atoi(v);
    else if (!strcmp(k, "--payload"))
      o->payload = atoi(v);
    else if (!strcmp(k, "--batch"))
      o->batch = atoi(v);
    else if (!strcmp(k, "--seconds"))
      o->seconds = atof(v);
    else if (!strcmp(k, "--warmup"))
      o->warmup = atof(v);
    else
      return fprintf(stderr, "np_rudp_plain_bound: unknown option %s\n", k), 2;
  }
  if (argc % 2 == 0 || o->clients < 1 || o->clients > 256 || o->window < 1 ||
      o->window > 4096 || o->payload < 16 || o->payload > 1200 ||
      o->batch < 1 || o->batch > MAXB || o->seconds <= 0 || o->warmup < 0)
    return fprintf(stderr, "np_rudp_plain_bound: option out of range\n"), 2;
  return 0;
}

int main(int argc, char **argv) {
  struct opts o;
  struct np_errbuf eb;
  if (parse(argc, argv, &o))
    return 2;
  struct sockaddr_in lo = {.sin_family = AF_INET};
  lo.sin_addr.s_addr = htonl(0x7f000001);
  struct sockaddr_storage srv;
  socklen_t sl = sizeof srv;
  int server = sock_at(&lo, NULL);
  getsockname(server, (struct sockaddr *)&srv, &sl);
  struct np_relay_config rc;
  struct np_relay *relay = NULL;
  np_relay_config_init(&rc);
  if (np_relay_profile_apply(&rc, "none", &eb) ||
      np_relay_create(&rc, (const struct sockaddr *)&srv,
                      (unsigned)o.clients, &relay, &eb) ||
      np_relay_start(relay, &eb))
    return fprintf(stderr, "np_rudp_plain_bound: relay: %s\n", eb.msg), 3;
  int ep = epoll_create1(0), *cfd = calloc((size_t)o.clients, sizeof *cfd);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
  epoll_ctl(ep, EPOLL_CTL_ADD, server, &ev);
  for (int i = 0; i < o.clients; i++) {
    struct sockaddr_storage ra;
    np_relay_route_addr(relay, (unsigned)i, &ra);
    cfd[i] = sock_at(&lo, &ra);
    ev.data.u32 = (uint32_t)i + 1;
    epoll_ctl(ep, EPOLL_CTL_ADD, cfd[i], &ev);
  }
  char *bufs = calloc(MAXB, (size_t)o.payload), *msg = calloc(1, o.payload);
  struct mmsghdr mm[MAXB];
  struct iovec iov[MAXB];
  struct sockaddr_storage from[MAXB];
  /* a message carries its send time; every client fills its window */
  uint64_t t = now_ns(), rts = 0;
  for (int i = 0; i < o.clients; i++)
    for (int w = 0; w < o.window; w++) {
      memcpy(msg, &t, sizeof t);
      if (send(cfd[i], msg, (size_t)o.payload, 0) < 0)
        die("send");
    }
  struct np_hist *h = NULL;
  np_hist_new(1000, 60000000000ll, 3, &h);
  uint64_t t0 = now_ns() + (uint64_t)(o.warmup * 1e9);
  uint64_t t1 = t0 + (uint64_t)(o.seconds * 1e9);
  struct epoll_event evs[64];
  while ((t = now_ns()) < t1) {
    int n = epoll_wait(ep, evs, 64, 100);
    for (int e = 0; e < n; e++) {
      uint32_t who = evs[e].data.u32;
      int fd = who == 0 ? server : cfd[who - 1];
      for (int i = 0; i < o.batch; i++) {
        iov[i] = (struct iovec){bufs + (size_t)i * o.payload, (size_t)o.payload};
        memset(&mm[i].msg_hdr, 0, sizeof mm[i].msg_hdr);
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
        mm[i].msg_hdr.msg_name = who == 0 ? &from[i] : NULL;
        mm[i].msg_hdr.msg_namelen = who == 0 ? sizeof from[i] : 0;
      }
      int r = recvmmsg(fd, mm, (unsigned)o.batch, MSG_DONTWAIT, NULL);
      if (r <= 0)
        continue;
      uint64_t now = now_ns();
      for (int i = 0; i < r; i++) {
        iov[i].iov_len = mm[i].msg_len;
        if (who == 0)
          continue;
        uint64_t st;
        memcpy(&st, iov[i].iov_base, sizeof st);
        if (now >= t0) {
          rts++;
          (void)np_hist_record(h, (int64_t)(now - st));
        }
        memcpy(iov[i].iov_base, &now, sizeof now); /* the next message */
      }
      /* the server echoes to each sender, a client sends its next ones */
      int done = 0;
      while (done < r) {
        int s = sendmmsg(fd, mm + done, (unsigned)(r - done), MSG_DONTWAIT);
        if (s <= 0)
          break; /* refused: lost, the window shrinks */
        done += s;
      }
    }
  }
  int64_t p50 = 0, p99 = 0;
  (void)np_hist_percentile(h, 50, &p50);
  (void)np_hist_percentile(h, 99, &p99);
  printf("roundtrips_per_sec %.1f p50_us %.1f p99_us %.1f\n",
         (double)rts / o.seconds, p50 / 1000.0, p99 / 1000.0);
  np_relay_stop(relay);
  (void)np_relay_join(relay);
  np_relay_destroy(relay);
  np_hist_free(h);
  return 0;
}
