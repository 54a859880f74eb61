/*
 * echo_probe.c - the physical reference for `netproof-bench udp`: the same
 * workload (N client sockets, `window` datagrams outstanding each, echoed
 * by a server in the same process) written as plainly as it can be, with
 * no checks, histogram or record, so that the ceiling of this machine can
 * be measured beside netproof on any machine (bench/scripts/udp_perf.py).
 *
 * A family of designs, chosen by options:
 *   --mode epoll     level-triggered epoll; a socket holding one datagram
 *                    at a time uses recv/send, the unconnected server
 *                    recvmmsg and send/sendmmsg (netproof raw's pattern)
 *   --mode uring     io_uring (SINGLE_ISSUER | DEFER_TASKRUN where the
 *                    kernel has them): one receive queued per socket, and
 *                    per completion the reply or next request linked
 *                    before the receive is queued again; ONE io_uring_enter
 *                    per loop iteration submits every send and waits
 *   --threads 1|2    each thread has its own server port and its share of
 *                    the clients
 *   --connected      the server has one socket per client, connected to
 *                    it, on the thread's port (SO_REUSEPORT)
 *   --lockstep       (uring, window 1) each thread runs in rounds: ONE
 *                    io_uring_enter submits every client's request of the
 *                    round with the server's receives, the next one every
 *                    echo with the clients' receives, so a round of N
 *                    round trips costs about 2 enters; every reply is
 *                    verified (length, magic, client id, the one
 *                    outstanding sequence number, a 64-bit XOR fold of
 *                    the body), as netproof verifies its replies
 * Prints one line: "roundtrips_per_sec R syscalls_per_roundtrip S
 * context_switches_per_roundtrip C" (system calls counted at each call
 * site of the echo threads; context switches of those threads from
 * getrusage(RUSAGE_THREAD)).
 *
 * usage: echo_probe [--mode epoll|uring] [--threads 1|2] [--connected]
 *                   [--lockstep]
 *                   [--clients N] [--payload B] [--window W]
 *                   [--seconds S] [--address 127.0.0.1|::1]
 * Exit 0, 2 on a bad option, 3 when the environment refuses (no io_uring).
 * Not installed; built by CMake as a benchmark helper only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define MAX_SOCKS 2100

struct probe_opts {
  int uring, threads, connected, lockstep, clients, payload, window;
  double seconds;
  struct sockaddr_storage addr; /* the address, port 0 */
  socklen_t addrlen;
};

struct psock {
  int fd;
  int server;                  /* 1 = a server socket                  */
  int connected;               /* 1 = connect()ed (every client too)    */
  char *buf;                   /* BATCH x payload bytes                 */
};

/* uring: one queued receive; the unconnected server has one per client
 * of its thread (up to BATCH), every other socket one. */
struct precv {
  int sock;                    /* index in socks                       */
  char *buf;                   /* one datagram                         */
  struct sockaddr_storage from;
  struct msghdr mh;            /* receive, then the echo to `from`     */
  struct iovec iov;
};

struct pthr {
  const struct probe_opts *o;
  struct psock socks[MAX_SOCKS];
  int nsocks;
  struct precv recvs[MAX_SOCKS + BATCH];
  int nrecvs;
  unsigned long long roundtrips, syscalls, ctxsw;
  unsigned long long seq;      /* lock-step: the round's sequence number */
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, int err) {
  fprintf(stderr, "echo_probe: %s: %s\n", what, strerror(err));
  exit(3);
}

static int make_sock(const struct probe_opts *o, const struct sockaddr_storage *bind_to,
                     const struct sockaddr_storage *peer, int reuse) {
  int fd = socket(o->addr.ss_family, SOCK_DGRAM, 0), one = 1;
  int rcv = 4194304, snd = 65536;
  if (fd < 0)
    die("socket", errno);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
  if (reuse)
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (bind(fd, (const struct sockaddr *)bind_to, o->addrlen))
    die("bind", errno);
  if (peer && connect(fd, (const struct sockaddr *)peer, o->addrlen))
    die("connect", errno);
  return fd;
}

static struct psock *add(struct pthr *t, int fd, int server, int connected) {
  struct psock *s = &t->socks[t->nsocks++];
  s->fd = fd;
  s->server = server;
  s->connected = connected;
  s->buf = calloc(BATCH, (size_t)t->o->payload);
  if (!s->buf)
    die("calloc", ENOMEM);
  return s;
}

/* The thread's server socket(s) and clients: socks[0] is the server. */
static void setup(struct pthr *t, int nclients) {
  const struct probe_opts *o = t->o;
  struct sockaddr_storage srv;
  socklen_t len = sizeof srv;
  int lfd = make_sock(o, &o->addr, NULL, o->connected);
  getsockname(lfd, (struct sockaddr *)&srv, &len);
  add(t, lfd, 1, 0);
  for (int i = 0; i < nclients; i++) {
    int c = make_sock(o, &o->addr, &srv, 0);
    add(t, c, 0, 1);
    if (o->connected) {
      struct sockaddr_storage peer;
      len = sizeof peer;
      getsockname(c, (struct sockaddr *)&peer, &len);
      add(t, make_sock(o, &srv, &peer, 1), 1, 1);
    }
  }
}

/* Closes the thread's sockets and frees their buffers (the receive slots
 * point into them). */
static void teardown(struct pthr *t) {
  for (int i = 0; i < t->nsocks; i++) {
    close(t->socks[i].fd);
    free(t->socks[i].buf);
  }
  t->nsocks = 0;
}

/* ---- epoll ---- */

static void epoll_serve(struct pthr *t, struct psock *s) {
  size_t p = (size_t)t->o->payload;
  if (s->connected) { /* one datagram: recv, then echo or the next request */
    t->syscalls++;
    ssize_t r = recv(s->fd, s->buf, p, MSG_DONTWAIT);
    if (r < 0)
      return;
    if (!s->server)
      t->roundtrips++;
    t->syscalls++;
    if (send(s->fd, s->buf, (size_t)r, MSG_DONTWAIT) < 0 && errno != EAGAIN)
      die("send", errno);
    return;
  }
  struct mmsghdr m[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_storage from[BATCH];
  memset(m, 0, sizeof m);
  for (int i = 0; i < BATCH; i++) {
    iov[i] = (struct iovec){s->buf + (size_t)i * p, p};
    m[i].msg_hdr.msg_iov = &iov[i];
    m[i].msg_hdr.msg_iovlen = 1;
    m[i].msg_hdr.msg_name = &from[i];
    m[i].msg_hdr.msg_namelen = sizeof from[i];
  }
  t->syscalls++;
  int n = recvmmsg(s->fd, m, BATCH, MSG_DONTWAIT, NULL);
  if (n <= 0)
    return;
  for (int i = 0; i < n; i++)
    iov[i].iov_len = m[i].msg_len;
  t->syscalls++;
  int r = n == 1 ? (int)sendto(s->fd, s->buf, iov[0].iov_len, MSG_DONTWAIT,
                               (struct sockaddr *)&from[0],
                               m[0].msg_hdr.msg_namelen)
                 : sendmmsg(s->fd, m, (unsigned)n, MSG_DONTWAIT);
  if (r < 0 && errno != EAGAIN)
    die("sendmmsg", errno);
}

static void epoll_run(struct pthr *t) {
  int ep = epoll_create1(0);
  for (int i = 0; i < t->nsocks; i++) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    epoll_ctl(ep, EPOLL_CTL_ADD, t->socks[i].fd, &ev);
  }
  double end = now_s() + t->o->seconds;
  struct epoll_event evs[64];
  while (now_s() < end) {
    t->syscalls++;
    int n = epoll_wait(ep, evs, 64, 100);
    for (int e = 0; e < n; e++)
      epoll_serve(t, &t->socks[evs[e].data.u32]);
  }
  close(ep);
}

/* ---- io_uring ---- */

static struct io_uring_sqe *sqe_get(struct io_uring *r, struct pthr *t) {
  struct io_uring_sqe *q = io_uring_get_sqe(r);
  if (!q) {
    t->syscalls++;
    io_uring_submit(r);
    q = io_uring_get_sqe(r);
  }
  if (!q)
    die("io_uring_get_sqe", EBUSY);
  return q;
}

static void uring_arm(struct io_uring *r, struct pthr *t, int k) {
  struct precv *v = &t->recvs[k];
  struct psock *s = &t->socks[v->sock];
  struct io_uring_sqe *q = sqe_get(r, t);
  if (s->connected) {
    io_uring_prep_recv(q, s->fd, v->buf, (size_t)t->o->payload, 0);
  } else {
    v->iov = (struct iovec){v->buf, (size_t)t->o->payload};
    memset(&v->mh, 0, sizeof v->mh);
    v->mh.msg_iov = &v->iov;
    v->mh.msg_iovlen = 1;
    v->mh.msg_name = &v->from;
    v->mh.msg_namelen = sizeof v->from;
    io_uring_prep_recvmsg(q, s->fd, &v->mh, 0);
  }
  io_uring_sqe_set_data64(q, (uint64_t)k);
}

/* A datagram of len bytes arrived in receive k: the send (echo or next
 * request) from the same buffer, linked before the receive re-armed. */
static void uring_reply(struct io_uring *r, struct pthr *t, int k, int len) {
  struct precv *v = &t->recvs[k];
  struct psock *s = &t->socks[v->sock];
  struct io_uring_sqe *q = sqe_get(r, t);
  if (s->connected) {
    io_uring_prep_send(q, s->fd, v->buf, (size_t)len, 0);
  } else {
    v->iov.iov_len = (size_t)len;
    io_uring_prep_sendmsg(q, s->fd, &v->mh, 0);
  }
  io_uring_sqe_set_data64(q, UINT64_MAX);
  q->flags |= IOSQE_IO_LINK;
  uring_arm(r, t, k);
}

/* One ring per thread: SINGLE_ISSUER | DEFER_TASKRUN where the kernel
 * has them, else plain (both io_uring designs). */
static void ring_init(struct io_uring *r) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  int rc = io_uring_queue_init_params(4096, r, &p);
  if (rc == -EINVAL) {
    memset(&p, 0, sizeof p);
    rc = io_uring_queue_init_params(4096, r, &p);
  }
  if (rc)
    die("io_uring_queue_init", -rc);
}

static void uring_run(struct pthr *t) {
  struct io_uring r;
  int rc;
  ring_init(&r);
  for (int i = 0; i < t->nsocks; i++) {
    struct psock *s = &t->socks[i];
    int n = s->connected ? 1 : t->nsocks - 1 < BATCH ? t->nsocks - 1 : BATCH;
    for (int j = 0; j < n; j++) {
      struct precv *v = &t->recvs[t->nrecvs];
      v->sock = i;
      v->buf = s->buf + (size_t)j * (size_t)t->o->payload;
      uring_arm(&r, t, t->nrecvs++);
    }
  }
  double end = now_s() + t->o->seconds;
  struct __kernel_timespec ts = {0, 100000000};
  while (now_s() < end) {
    struct io_uring_cqe *cqe;
    t->syscalls++;
    rc = io_uring_submit_and_wait_timeout(&r, &cqe, 1, &ts, NULL);
    if (rc < 0 && rc != -ETIME && rc != -EINTR)
      die("io_uring_enter", -rc);
    unsigned head, n = 0;
    io_uring_for_each_cqe(&r, head, cqe) {
      n++;
      uint64_t i = io_uring_cqe_get_data64(cqe);
      if (i == UINT64_MAX)
        continue; /* a send */
      if (cqe->res < 0) {
        uring_arm(&r, t, (int)i);
        continue;
      }
      if (!t->socks[t->recvs[i].sock].server)
        t->roundtrips++;
      uring_reply(&r, t, (int)i, cqe->res);
    }
    io_uring_cq_advance(&r, n);
  }
  io_uring_queue_exit(&r);
}

/* ---- io_uring, lock-step rounds ---- */

#define LS_MAGIC 0x6e7030656368ULL /* "np0ech" */

/* 64-bit XOR fold of b[off..len) (the body after the header) */
static uint64_t fold(const char *b, int off, int len) {
  uint64_t x = 0, w;
  int i = off;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, b + i, 8);
    x ^= w;
  }
  for (; i < len; i++)
    x ^= (uint64_t)(unsigned char)b[i] << (8 * (i % 8));
  return x;
}

/* the request of client c (index in socks) for sequence seq: header
 * {magic, client, seq} then a body that changes with seq */
static void ls_fill(struct pthr *t, int c, unsigned long long seq) {
  char *b = t->socks[c].buf;
  int n = t->o->payload;
  uint64_t h[3] = {LS_MAGIC, (uint64_t)c, seq};
  memcpy(b, h, n < 24 ? (size_t)n : sizeof h);
  for (int i = 24; i < n; i += 8) {
    uint64_t w = seq * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
    memcpy(b + i, &w, n - i < 8 ? (size_t)(n - i) : 8);
  }
}

/* the reply in the client's receive buffer (after its send buffer) */
static void ls_verify(struct pthr *t, int c, int len, unsigned long long seq) {
  const char *want = t->socks[c].buf, *got = want + t->o->payload;
  int n = t->o->payload;
  uint64_t h[3] = {0, 0, 0};
  memcpy(h, got, n < 24 ? (size_t)n : sizeof h);
  if (len != n || (n >= 24 && (h[0] != LS_MAGIC || h[1] != (uint64_t)c ||
                               h[2] != seq)) ||
      fold(got, 0, n) != fold(want, 0, n))
    die("lock-step reply check", EBADMSG);
}

/* submit what is queued and reap exactly `want` completions, handing each
 * receive (user data < UINT64_MAX) to on_recv */
static void ls_reap(struct io_uring *r, struct pthr *t, int want,
                    void (*on_recv)(struct io_uring *, struct pthr *, int,
                                    int)) {
  struct __kernel_timespec ts = {1, 0};
  int got = 0;
  while (got < want) {
    struct io_uring_cqe *cqe;
    t->syscalls++;
    int rc = io_uring_submit_and_wait_timeout(r, &cqe, (unsigned)(want - got),
                                              &ts, NULL);
    if (rc == -ETIME)
      die("lock-step round: a datagram did not arrive within 1 s", ETIME);
    if (rc < 0 && rc != -EINTR)
      die("io_uring_enter", -rc);
    unsigned head, n = 0;
    io_uring_for_each_cqe(r, head, cqe) {
      n++;
      uint64_t i = io_uring_cqe_get_data64(cqe);
      if (cqe->res < 0)
        die("lock-step send or receive", -cqe->res);
      if (i != UINT64_MAX)
        on_recv(r, t, (int)i, cqe->res);
    }
    io_uring_cq_advance(r, n);
    got += (int)n;
  }
}

/* a server receive completed: queue its echo */
static void ls_echo(struct io_uring *r, struct pthr *t, int k, int len) {
  struct precv *v = &t->recvs[k];
  struct psock *s = &t->socks[v->sock];
  struct io_uring_sqe *q = sqe_get(r, t);
  if (s->connected) {
    io_uring_prep_send(q, s->fd, v->buf, (size_t)len, 0);
  } else {
    v->iov.iov_len = (size_t)len;
    io_uring_prep_sendmsg(q, s->fd, &v->mh, 0);
  }
  io_uring_sqe_set_data64(q, UINT64_MAX);
}

/* a client receive completed: check the reply of this round */
static void ls_check(struct io_uring *r, struct pthr *t, int k, int len) {
  (void)r;
  ls_verify(t, k, len, t->seq);
  t->roundtrips++;
}

static void lockstep_run(struct pthr *t) {
  struct io_uring r;
  ring_init(&r);
  /* the server's receive slots: one per connected server socket, else
   * one per client on the one server socket */
  int nclients = 0;
  for (int i = 0; i < t->nsocks; i++)
    nclients += !t->socks[i].server;
  for (int i = 0; i < t->nsocks; i++) {
    struct psock *s = &t->socks[i];
    int n = !s->server ? 0 : s->connected ? 1 : t->o->connected ? 0 : nclients;
    for (int j = 0; j < n; j++) {
      struct precv *v = &t->recvs[t->nrecvs++];
      v->sock = i;
      v->buf = s->buf + (size_t)j * (size_t)t->o->payload;
    }
  }
  double end = now_s() + t->o->seconds;
  while (now_s() < end) {
    t->seq++;
    /* enter 1: every request, every server receive */
    for (int c = 0; c < t->nsocks; c++) {
      if (t->socks[c].server)
        continue;
      ls_fill(t, c, t->seq);
      struct io_uring_sqe *q = sqe_get(&r, t);
      io_uring_prep_send(q, t->socks[c].fd, t->socks[c].buf,
                         (size_t)t->o->payload, 0);
      io_uring_sqe_set_data64(q, UINT64_MAX);
    }
    for (int k = 0; k < t->nrecvs; k++)
      uring_arm(&r, t, k);
    ls_reap(&r, t, nclients + t->nrecvs, ls_echo);
    /* enter 2: every echo (queued by ls_echo), every client receive */
    for (int c = 0; c < t->nsocks; c++) {
      if (t->socks[c].server)
        continue;
      struct io_uring_sqe *q = sqe_get(&r, t);
      io_uring_prep_recv(q, t->socks[c].fd,
                         t->socks[c].buf + t->o->payload,
                         (size_t)t->o->payload, 0);
      io_uring_sqe_set_data64(q, (uint64_t)c);
    }
    ls_reap(&r, t, nclients + t->nrecvs, ls_check);
  }
  io_uring_queue_exit(&r);
}

static void *thread_main(void *arg) {
  struct pthr *t = arg;
  /* every client fills its window (lock-step: the rounds send) */
  for (int i = 0; i < t->nsocks && !t->o->lockstep; i++)
    for (int w = 0; !t->socks[i].server && w < t->o->window; w++)
      if (send(t->socks[i].fd, t->socks[i].buf, (size_t)t->o->payload, 0) < 0)
        die("send", errno);
  struct rusage a, b;
  getrusage(RUSAGE_THREAD, &a);
  if (t->o->lockstep)
    lockstep_run(t);
  else if (t->o->uring)
    uring_run(t);
  else
    epoll_run(t);
  getrusage(RUSAGE_THREAD, &b);
  t->ctxsw = (unsigned long long)(b.ru_nvcsw - a.ru_nvcsw + b.ru_nivcsw -
                                  a.ru_nivcsw);
  return NULL;
}

static int usage(const char *why) {
  fprintf(stderr, "echo_probe: %s\nusage: echo_probe [--mode epoll|uring] "
          "[--threads 1|2] [--connected] [--lockstep] [--clients N] "
          "[--payload B] "
          "[--window W] [--seconds S] [--address A]\n", why);
  return 2;
}

int main(int argc, char **argv) {
  struct probe_opts o = {.threads = 1, .clients = 16, .payload = 1024,
                         .window = 1, .seconds = 1.0};
  const char *address = "127.0.0.1";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--connected")) {
      o.connected = 1;
      continue;
    }
    if (!strcmp(a, "--lockstep")) {
      o.lockstep = 1;
      continue;
    }
    if (!v)
      return usage("an option needs a value");
    i++;
    if (!strcmp(a, "--mode") && (!strcmp(v, "epoll") || !strcmp(v, "uring")))
      o.uring = !strcmp(v, "uring");
    else if (!strcmp(a, "--threads"))
      o.threads = atoi(v);
    else if (!strcmp(a, "--clients"))
      o.clients = atoi(v);
    else if (!strcmp(a, "--payload"))
      o.payload = atoi(v);
    else if (!strcmp(a, "--window"))
      o.window = atoi(v);
    else if (!strcmp(a, "--seconds"))
      o.seconds = atof(v);
    else if (!strcmp(a, "--address"))
      address = v;
    else
      return usage("unknown option or value");
  }
  if (o.threads < 1 || o.threads > 2 || o.clients < o.threads ||
      o.clients > 1024 || o.payload < 1 || o.payload > 65507 ||
      o.window < 1 || o.window > BATCH || o.seconds <= 0 || o.seconds > 600)
    return usage("option out of range (threads 1..2, clients threads..1024, "
                 "payload 1..65507, window 1..64, seconds (0, 600])");
  if (o.lockstep && (!o.uring || o.window != 1 ||
                     o.clients > BATCH * o.threads || o.payload < 24))
    return usage("--lockstep: with --mode uring, --window 1, at most 64 "
                 "clients per thread and a payload of at least 24 B (the "
                 "checked header)");
  memset(&o.addr, 0, sizeof o.addr);
  if (strchr(address, ':')) {
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&o.addr;
    a6->sin6_family = AF_INET6;
    o.addrlen = sizeof *a6;
    if (inet_pton(AF_INET6, address, &a6->sin6_addr) != 1)
      return usage("--address: not a literal address");
  } else {
    struct sockaddr_in *a4 = (struct sockaddr_in *)&o.addr;
    a4->sin_family = AF_INET;
    o.addrlen = sizeof *a4;
    if (inet_pton(AF_INET, address, &a4->sin_addr) != 1)
      return usage("--address: not a literal address");
  }
  struct pthr *t = calloc((size_t)o.threads, sizeof *t);
  pthread_t th[2];
  if (!t)
    die("calloc", ENOMEM);
  for (int k = 0; k < o.threads; k++) {
    t[k].o = &o;
    setup(&t[k], o.clients / o.threads + (k < o.clients % o.threads));
  }
  double t0 = now_s();
  for (int k = 0; k < o.threads; k++)
    if (pthread_create(&th[k], NULL, thread_main, &t[k]))
      die("pthread_create", EAGAIN);
  unsigned long long rt = 0, sys = 0, csw = 0;
  for (int k = 0; k < o.threads; k++) {
    pthread_join(th[k], NULL);
    rt += t[k].roundtrips;
    sys += t[k].syscalls;
    csw += t[k].ctxsw;
  }
  double el = now_s() - t0;
  printf("roundtrips_per_sec %.1f syscalls_per_roundtrip %.3f "
         "context_switches_per_roundtrip %.4f\n",
         (double)rt / el, rt ? (double)sys / (double)rt : 0.0,
         rt ? (double)csw / (double)rt : 0.0);
  for (int k = 0; k < o.threads; k++)
    teardown(&t[k]);
  free(t);
  return 0;
}
