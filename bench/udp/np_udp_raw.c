/*
 * np_udp_raw.c - the raw transport: epoll + plain socket calls, no libuv.
 *
 * One epoll instance per loop with an eventfd for cross-thread wake-ups.
 * Sockets are level-triggered; each readiness event reads once into
 * buffers preallocated at open time (nothing is allocated per datagram):
 * recv(MSG_TRUNC) on a socket that takes one datagram at a time (a client
 * at window 1, a connected server socket), recvmmsg for batches.  Sends
 * are send/sendto for one datagram and sendmmsg for more: the mmsg calls
 * cost more than the plain ones for a single datagram (about 10 % of a
 * round trip on one thread, measured with tools/bench/echo_probe.c).
 * SO_RXQ_OVFL is enabled only where asked (o->rxq_ovfl: the unconnected
 * server sockets, whose msghdr receive reads its cmsg); elsewhere the
 * drop counter is SO_MEMINFO's alone.  On a connected socket the
 * destination of a send is ignored (send, not sendto).  Every system call
 * the loop makes is counted (loop_syscalls).
 */
#include "np_udp_transport.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RAW_MAX_EVENTS 64

struct np_udp_loop {
  int epfd;
  int evfd;
  int stop;
  np_udp_wake_fn on_wake;
  void *ctx;
  uint64_t nsys;           /* system calls made by the loop's thread     */
  _Atomic int64_t nsys_pub; /* nsys, published before each epoll_wait    */
};

struct np_udp_sock {
  struct np_udp_loop *loop;
  int fd;
  unsigned batch;
  size_t bufsize;
  uint8_t *bufs;                 /* batch * bufsize                         */
  struct mmsghdr *msgs;          /* batch entries                           */
  struct iovec *iov;             /* batch entries                           */
  struct sockaddr_storage *from; /* batch entries                           */
  uint8_t *ctl;                  /* batch * CTL_SIZE                        */
  struct np_udp_rx *rx;          /* batch entries                           */
  struct mmsghdr *txmsgs;        /* batch entries, for send_batch           */
  struct iovec *txiov;           /* batch entries                           */
  int64_t ovfl;                  /* latest SO_RXQ_OVFL value, 0 until seen;
                                    -1 when not enabled                     */
  int connected;                 /* connect()ed: no addresses on the wire   */
  int use_msg;                   /* receive through recvmmsg (batch > 1 or
                                    SO_RXQ_OVFL), else recv/recvfrom        */
  np_udp_recv_fn on_recv;
  void *ctx;
};

#define CTL_SIZE CMSG_SPACE(sizeof(uint32_t))

static int raw_loop_new(np_udp_wake_fn on_wake, void *ctx,
                        struct np_udp_loop **out, struct np_errbuf *eb) {
  struct np_udp_loop *l = calloc(1, sizeof *l);
  if (!l)
    return np_errbuf_set(eb, NP_ENOMEM, "raw loop: out of memory");
  l->on_wake = on_wake;
  l->ctx = ctx;
  l->epfd = epoll_create1(EPOLL_CLOEXEC);
  l->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (l->epfd < 0 || l->evfd < 0)
    goto fail_fds;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->evfd, &ev))
    goto fail_fds;
  *out = l;
  return 0;
fail_fds: {
  int e = errno;
  if (l->epfd >= 0)
    close(l->epfd);
  if (l->evfd >= 0)
    close(l->evfd);
  free(l);
  return np_errbuf_set(eb, np_err_from_errno(e), "raw loop: %s", strerror(e));
}
}

/* One datagram without a msghdr: recv(MSG_TRUNC) returns its full
 * length, so a cut datagram is still seen as cut. */
static void raw_recv_one(struct np_udp_sock *s) {
  socklen_t fl = sizeof s->from[0];
  ssize_t r;
  s->loop->nsys++;
  do
    r = s->connected ? recv(s->fd, s->bufs, s->bufsize, MSG_DONTWAIT | MSG_TRUNC)
                     : recvfrom(s->fd, s->bufs, s->bufsize,
                                MSG_DONTWAIT | MSG_TRUNC,
                                (struct sockaddr *)&s->from[0], &fl);
  while (r < 0 && errno == EINTR && ++s->loop->nsys);
  if (r < 0)
    return; /* EAGAIN: spurious wake-up; other errors surface on send */
  s->rx[0].data = s->bufs;
  s->rx[0].truncated = (size_t)r > s->bufsize;
  s->rx[0].len = s->rx[0].truncated ? s->bufsize : (size_t)r;
  s->rx[0].from = s->connected ? NULL : (const struct sockaddr *)&s->from[0];
  s->rx[0].fromlen = s->connected ? 0 : fl;
  s->on_recv(s->ctx, s->rx, 1);
}

static void raw_recv(struct np_udp_sock *s) {
  if (!s->use_msg) {
    raw_recv_one(s);
    return;
  }
  for (unsigned i = 0; i < s->batch; i++) {
    s->msgs[i].msg_hdr.msg_namelen = s->connected ? 0 : sizeof s->from[i];
    s->msgs[i].msg_hdr.msg_controllen = s->ovfl >= 0 ? CTL_SIZE : 0;
    s->msgs[i].msg_hdr.msg_flags = 0;
  }
  int n;
  s->loop->nsys++;
  do
    n = recvmmsg(s->fd, s->msgs, s->batch, MSG_DONTWAIT, NULL);
  while (n < 0 && errno == EINTR && ++s->loop->nsys);
  if (n <= 0)
    return; /* EAGAIN: spurious wake-up; other errors surface on send */
  for (int i = 0; i < n; i++) {
    struct msghdr *h = &s->msgs[i].msg_hdr;
    if (s->ovfl >= 0) {
      for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          uint32_t v;
          memcpy(&v, CMSG_DATA(c), sizeof v);
          s->ovfl = v;
        }
      }
    }
    s->rx[i].data = s->bufs + (size_t)i * s->bufsize;
    s->rx[i].len = s->msgs[i].msg_len;
    s->rx[i].from = s->connected ? NULL : (const struct sockaddr *)&s->from[i];
    s->rx[i].fromlen = s->connected ? 0 : h->msg_namelen;
    s->rx[i].truncated = (h->msg_flags & MSG_TRUNC) != 0;
  }
  s->on_recv(s->ctx, s->rx, (unsigned)n);
}

static int raw_loop_run(struct np_udp_loop *l) {
  struct epoll_event evs[RAW_MAX_EVENTS];
  while (!l->stop) {
    l->nsys++;
    atomic_store_explicit(&l->nsys_pub, (int64_t)l->nsys, memory_order_relaxed);
    int n = epoll_wait(l->epfd, evs, RAW_MAX_EVENTS, -1);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return np_err_from_errno(errno);
    }
    for (int i = 0; i < n; i++) {
      if (evs[i].data.ptr == NULL) {
        uint64_t v;
        l->nsys++;
        if (read(l->evfd, &v, sizeof v) < 0 && errno != EAGAIN)
          return np_err_from_errno(errno);
        l->on_wake(l->ctx);
      } else {
        raw_recv(evs[i].data.ptr);
      }
    }
  }
  atomic_store_explicit(&l->nsys_pub, (int64_t)l->nsys, memory_order_relaxed);
  return 0;
}

static void raw_loop_stop(struct np_udp_loop *l) { l->stop = 1; }

static int raw_loop_wake(struct np_udp_loop *l) {
  uint64_t one = 1;
  if (write(l->evfd, &one, sizeof one) < 0 && errno != EAGAIN)
    return np_err_from_errno(errno);
  return 0;
}

static void raw_loop_free(struct np_udp_loop *l) {
  if (!l)
    return;
  close(l->epfd);
  close(l->evfd);
  free(l);
}

static void raw_sock_free(struct np_udp_sock *s) {
  if (!s)
    return;
  if (s->fd >= 0)
    close(s->fd);
  free(s->bufs);
  free(s->msgs);
  free(s->iov);
  free(s->from);
  free(s->ctl);
  free(s->rx);
  free(s->txmsgs);
  free(s->txiov);
  free(s);
}

static int raw_sock_open(struct np_udp_loop *l, const struct np_udp_sock_opts *o,
                         struct np_udp_sock **out, struct np_errbuf *eb) {
  struct np_udp_sock *s = calloc(1, sizeof *s);
  if (!s)
    return np_errbuf_set(eb, NP_ENOMEM, "raw socket: out of memory");
  s->fd = -1;
  s->loop = l;
  s->batch = o->rx_batch ? o->rx_batch : 1;
  s->bufsize = o->max_payload;
  s->on_recv = o->on_recv;
  s->ctx = o->ctx;
  s->connected = o->peer_len > 0;
  s->ovfl = o->rxq_ovfl ? 0 : -1;
  s->use_msg = s->batch > 1 || o->rxq_ovfl;
  s->bufs = malloc(s->batch * s->bufsize);
  s->msgs = calloc(s->batch, sizeof *s->msgs);
  s->iov = calloc(s->batch, sizeof *s->iov);
  s->from = calloc(s->batch, sizeof *s->from);
  s->ctl = calloc(s->batch, CTL_SIZE);
  s->rx = calloc(s->batch, sizeof *s->rx);
  s->txmsgs = calloc(s->batch, sizeof *s->txmsgs);
  s->txiov = calloc(s->batch, sizeof *s->txiov);
  if (!s->bufs || !s->msgs || !s->iov || !s->from || !s->ctl || !s->rx ||
      !s->txmsgs || !s->txiov) {
    raw_sock_free(s);
    return np_errbuf_set(eb, NP_ENOMEM, "raw socket: out of memory");
  }
  for (unsigned i = 0; i < s->batch; i++) {
    s->iov[i].iov_base = s->bufs + (size_t)i * s->bufsize;
    s->iov[i].iov_len = s->bufsize;
    s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
    s->msgs[i].msg_hdr.msg_iovlen = 1;
    s->msgs[i].msg_hdr.msg_name = s->connected ? NULL : &s->from[i];
    s->msgs[i].msg_hdr.msg_control =
        o->rxq_ovfl ? s->ctl + (size_t)i * CTL_SIZE : NULL;
  }
  int rc = np_udp_sock_create(o, &s->fd, eb);
  if (rc) {
    raw_sock_free(s);
    return rc;
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
  if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, s->fd, &ev)) {
    int e = errno;
    raw_sock_free(s);
    return np_errbuf_set(eb, np_err_from_errno(e), "epoll_ctl: %s",
                         strerror(e));
  }
  *out = s;
  return 0;
}

/* One datagram: send on a connected socket, sendto otherwise. */
static int raw_send_one(struct np_udp_sock *s, const struct np_udp_tx *t,
                        unsigned *nsent, int *errnum) {
  ssize_t r;
  s->loop->nsys++;
  do
    r = s->connected || !t->to
            ? send(s->fd, t->data, t->len, MSG_DONTWAIT)
            : sendto(s->fd, t->data, t->len, MSG_DONTWAIT, t->to, t->tolen);
  while (r < 0 && errno == EINTR && ++s->loop->nsys);
  if (r < 0) {
    *nsent = 0;
    *errnum = errno;
    return np_err_from_errno(errno);
  }
  *nsent = 1;
  return 0;
}

static int raw_send_batch(struct np_udp_sock *s, const struct np_udp_tx *tx,
                          unsigned n, unsigned *nsent, int *errnum) {
  if (n == 1)
    return raw_send_one(s, tx, nsent, errnum);
  unsigned done = 0;
  while (done < n) {
    unsigned k = n - done < s->batch ? n - done : s->batch;
    for (unsigned i = 0; i < k; i++) {
      const struct np_udp_tx *t = &tx[done + i];
      s->txiov[i].iov_base = (void *)t->data;
      s->txiov[i].iov_len = t->len;
      struct msghdr *h = &s->txmsgs[i].msg_hdr;
      h->msg_name = s->connected ? NULL : (void *)t->to;
      h->msg_namelen = s->connected || !t->to ? 0 : t->tolen;
      h->msg_iov = &s->txiov[i];
      h->msg_iovlen = 1;
      h->msg_control = NULL;
      h->msg_controllen = 0;
      h->msg_flags = 0;
    }
    int r;
    s->loop->nsys++;
    do
      r = sendmmsg(s->fd, s->txmsgs, k, MSG_DONTWAIT);
    while (r < 0 && errno == EINTR && ++s->loop->nsys);
    if (r < 0) {
      *nsent = done;
      *errnum = errno;
      return np_err_from_errno(errno);
    }
    /* sendmmsg stops before a failing datagram; the next call says why */
    done += (unsigned)r;
  }
  *nsent = done;
  return 0;
}

static int raw_sock_fd(const struct np_udp_sock *s) { return s->fd; }

static int64_t raw_sock_rxq_ovfl(const struct np_udp_sock *s) {
  return s->ovfl;
}

static void raw_sock_close(struct np_udp_sock *s) {
  if (s && s->fd >= 0)
    epoll_ctl(s->loop->epfd, EPOLL_CTL_DEL, s->fd, NULL);
  raw_sock_free(s);
}

static int64_t raw_loop_syscalls(const struct np_udp_loop *l) {
  return atomic_load_explicit(&((struct np_udp_loop *)l)->nsys_pub,
                              memory_order_relaxed);
}

static void raw_loop_info(const struct np_udp_loop *l,
                          struct np_udp_loop_info *out) {
  (void)l;
  memset(out, 0, sizeof *out);
}

const struct np_udp_transport np_udp_transport_raw = {
    .name = "raw",
    .loop_new = raw_loop_new,
    .loop_run = raw_loop_run,
    .loop_stop = raw_loop_stop,
    .loop_wake = raw_loop_wake,
    .loop_free = raw_loop_free,
    .sock_open = raw_sock_open,
    .send_batch = raw_send_batch,
    .sock_fd = raw_sock_fd,
    .sock_rxq_ovfl = raw_sock_rxq_ovfl,
    .sock_close = raw_sock_close,
    .loop_syscalls = raw_loop_syscalls,
    .loop_info = raw_loop_info,
};
