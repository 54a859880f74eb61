/*
 * np_udp_uring.c - the io_uring transport (liburing): one ring per loop.
 *
 * Why: on loopback nearly all of a round trip is kernel time, so what the
 * benchmark can still save is system calls and wake-ups.  Here a loop
 * makes ONE io_uring_enter per iteration: it submits every send queued
 * since the last one (clients' requests, the server's echoes) and waits
 * for the next completions in the same call.  At 16 clients x window 1 on
 * one thread that is about two calls per 16 round trips.
 *
 * - Receives: one multishot IORING_OP_RECVMSG per socket for the whole run,
 *   into a provided-buffer ring registered with the kernel
 *   (IORING_REGISTER_PBUF_RING, one buffer group per loop).  The kernel
 *   queues datagrams on the socket as for any reader, so a full socket
 *   still drops and SO_MEMINFO still counts it; buffers go back to the
 *   ring after the echo logic has seen the batch.  A multishot receive
 *   that ends (no buffer free, an error) is re-armed after the iteration.
 * - Receives of an in-loop pair (lock-step): two connected sockets of the
 *   same loop connected to each other (the connected model's client and
 *   its own server socket) receive one-shot: each send of one queues, right
 *   after it in the same submission, one IORING_OP_RECV on the other.  On
 *   loopback the send has queued the datagram before the receive is
 *   issued, so the receive completes inline at submission - no poll
 *   wake-up, no task work, no empty retry of a multishot receive.  That is
 *   the lock-step probe's design (tools/bench/echo_probe.c --lockstep)
 *   without its rounds: a lane's replies of one submission are the next
 *   one's requests.  Each datagram a peer sent gets one receive
 *   (inflight/pending below); a receive that finds nothing waits (poll)
 *   as any other; an error ends the pair's lock-step (multishot from then
 *   on); every UR_PROBE_NS a wake-up queues one receive on each idle
 *   paired socket, so a datagram from anywhere else is still read.
 *   A paired socket's first waiting receive reads into the socket's own
 *   buffer (no provided-buffer selection: ~2 % of the CPU per round trip
 *   at window 1), further ones from the ring; own buffers are used while
 *   they fit in UR_OWN_BYTES.
 * - Sends: copied into a send slot (the caller's buffer may be reused at
 *   once), queued as IORING_OP_SEND on a connected socket (not
 *   IORING_OP_WRITE_FIXED from registered slot memory: the write path's
 *   kiocb set-up, buffer import and fsnotify cost more per datagram than
 *   the send path, measured 2026-12-02; this kernel's SEND takes no fixed
 *   buffer), IORING_OP_SENDMSG to the slot's copy of the address
 *   otherwise, and submitted with the next wait.  Sockets are blocking
 *   for the ring, so a full send buffer makes io_uring wait for room
 *   instead of failing.  A send the kernel refuses later is reported
 *   through on_send_fail.  With every slot in flight a send is made with a
 *   plain send/sendto (counted: sync_sends).
 * - Files: the eventfd and every socket are registered files.
 * - Set-up: IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN (completion work
 *   runs only inside our io_uring_enter, never as an interrupting task
 *   work) where the kernel has them, stepping down to COOP_TASKRUN and to
 *   none; the ring is created disabled (R_DISABLED) on the controller and
 *   enabled by the loop's thread, which becomes its single issuer.
 *   loop_info says which bits were accepted.
 * - Wake-ups: an IORING_OP_READ of the loop's eventfd stays queued; a
 *   write from another thread completes it.
 * Threading as in np_udp_transport.h; everything the kernel may touch
 * (buffers, slots, msghdr templates) is owned by the loop and freed only
 * after the ring is gone.
 */
#include "np_udp_transport.h"

#include "np_addr.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define UR_ENTRIES 1024u     /* submission queue entries                */
#define UR_CQ_ENTRIES 8192u  /* completion queue entries                */
#define UR_RX_BATCH 64u      /* datagrams handed to on_recv at once     */
#define UR_CQE_BATCH 256u    /* completions taken per peek              */
#define UR_BUF_BYTES (32u << 20) /* cap on receive buffer memory        */
#define UR_SLOT_BYTES (16u << 20) /* cap on send slot memory            */
#define UR_NAME_LEN ((unsigned)sizeof(struct sockaddr_storage))

#define UR_PROBE_NS 100000000 /* idle paired sockets re-read this often */
#define UR_OWN_BYTES (8u << 20) /* cap on paired sockets' own buffers    */
#define UR_OWN_BID 0xFFFFu   /* held[] mark: the socket's own buffer     */

enum ur_kind {
  UR_WAKE = 1,
  UR_RECV = 2,
  UR_SEND = 3,
  UR_RECV1 = 4,   /* a paired socket's one-shot receive, from the ring */
  UR_RECVOWN = 5  /* ... into the socket's own buffer                 */
};
#define UD(kind, idx) (((uint64_t)(kind) << 56) | (uint64_t)(idx))
#define UD_KIND(u) ((unsigned)((u) >> 56))
#define UD_IDX(u) ((unsigned)((u) & 0xFFFFFFFFu))

/* Set-up bits tried, best first (each needs the ones after it to exist). */
static const unsigned ur_setups[] = {
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
        IORING_SETUP_SUBMIT_ALL | IORING_SETUP_R_DISABLED,
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN |
        IORING_SETUP_SUBMIT_ALL | IORING_SETUP_R_DISABLED,
    IORING_SETUP_COOP_TASKRUN,
    0,
};

struct ur_slot {
  struct np_udp_sock *sock;   /* who sent it (for on_send_fail)         */
  struct msghdr mh;           /* SENDMSG: name and iov below            */
  struct iovec iov;
  struct sockaddr_storage to; /* copy of the destination                */
};

struct np_udp_loop {
  struct io_uring ring;
  unsigned setup_accepted;    /* IORING_SETUP_* bits of the ring        */
  int evfd;                   /* wake-ups (blocking, read by the ring)  */
  uint64_t evval;             /* the eventfd read's target              */
  int stop;
  np_udp_wake_fn on_wake;
  void *ctx;
  struct np_udp_sock **socks; /* nsocks entries, in open order          */
  unsigned nsocks, socks_cap;
  int files;                  /* 1 = registered: [0] evfd, [1 + i] socks */
  struct msghdr *rmsg;        /* nsocks receive templates (namelen)     */
  struct io_uring_buf_ring *br; /* provided buffers, group 0            */
  unsigned nbufs;
  size_t buflen;              /* recvmsg_out + name + largest payload   */
  uint8_t *bufmem;            /* nbufs * buflen                         */
  struct ur_slot *slots;
  unsigned nslots;
  unsigned *free_slots;       /* stack of free slot indices             */
  unsigned nfree;
  size_t slotlen;             /* largest payload                        */
  uint8_t *slotmem;           /* nslots * slotlen; fixed buffer 0       */
  struct np_udp_rx rx[UR_RX_BATCH]; /* the batch being collected        */
  uint16_t held[UR_RX_BATCH]; /* its buffer ids                         */
  unsigned nrx;
  struct np_udp_sock *rx_sock; /* whose batch it is                     */
  uint64_t nsys;              /* system calls of the loop's thread      */
  _Atomic int64_t nsys_pub;   /* nsys, published before each wait       */
  uint64_t sync_sends;
  unsigned paired;            /* sockets receiving in lock-step          */
  uint8_t *ownmem;            /* paired * buflen: their own buffers      */
  int64_t probed_ns;          /* last re-read of idle paired sockets     */
};

struct np_udp_sock {
  struct np_udp_loop *loop;
  unsigned index;             /* in loop->socks; registered file 1 + i  */
  int fd;
  int connected;
  unsigned rx_batch;          /* the caller's receive batch (sizing)    */
  size_t max_payload;
  int armed;                  /* a multishot receive is queued          */
  struct sockaddr_storage local, peer; /* connected sockets: both ends  */
  socklen_t local_len, peer_len;
  struct np_udp_sock *feeds;  /* in-loop pair: where our sends arrive   */
  int oneshot;                /* 1 = lock-step receives (see the top)   */
  unsigned pending;           /* one-shot receives queued or waiting    */
  unsigned inflight;          /* datagrams the peer sent, not yet read  */
  uint8_t *own;               /* own receive buffer (NULL: ring only)   */
  int own_busy;               /* a receive or on_recv holds it          */
  np_udp_recv_fn on_recv;
  np_udp_send_fail_fn on_send_fail;
  void *ctx;
};

static const char *ur_why(int err) {
  switch (err) {
  case EPERM:
  case EACCES:
    return " (io_uring is refused here: kernel.io_uring_disabled, a seccomp "
           "filter or the container's policy)";
  case ENOSYS:
    return " (the kernel has no io_uring, or a seccomp filter hides it)";
  case ENOMEM:
    return " (locked-memory limit, RLIMIT_MEMLOCK)";
  default:
    return "";
  }
}

/* Create a ring with the best set-up this kernel takes. */
static int ur_ring_init(struct io_uring *ring, unsigned *accepted,
                        struct np_errbuf *eb) {
  int r = -EINVAL;
  for (size_t i = 0; i < sizeof ur_setups / sizeof ur_setups[0]; i++) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = ur_setups[i] | IORING_SETUP_CQSIZE;
    p.cq_entries = UR_CQ_ENTRIES;
    r = io_uring_queue_init_params(UR_ENTRIES, ring, &p);
    if (r == 0) {
      *accepted = p.flags;
      return 0;
    }
    if (r != -EINVAL)
      break; /* not a flag this kernel lacks: io_uring itself is refused */
  }
  return np_errbuf_set(eb, np_err_from_errno(-r), "--backend uring: "
                       "io_uring_setup: %s%s", strerror(-r), ur_why(-r));
}

int np_udp_uring_available(struct np_errbuf *eb) {
  struct utsname u;
  unsigned maj = 0, min = 0;
  if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &maj, &min) == 2 &&
      maj < 6)
    return np_errbuf_set(eb, NP_ENOTSUP, "--backend uring: kernel %s is too "
                         "old (multishot IORING_OP_RECVMSG needs Linux 6.0)",
                         u.release);
  struct io_uring ring;
  unsigned acc;
  int rc = ur_ring_init(&ring, &acc, eb);
  if (rc)
    return rc;
  static const struct {
    int op;
    const char *name;
  } ops[] = {{IORING_OP_RECVMSG, "RECVMSG"},
             {IORING_OP_SENDMSG, "SENDMSG"},
             {IORING_OP_SEND, "SEND"},
             {IORING_OP_RECV, "RECV"},
             {IORING_OP_READ, "READ"}};
  struct io_uring_probe *pr = io_uring_get_probe_ring(&ring);
  for (size_t i = 0; rc == 0 && i < sizeof ops / sizeof ops[0]; i++)
    if (!pr || !io_uring_opcode_supported(pr, ops[i].op))
      rc = np_errbuf_set(eb, NP_ENOTSUP, "--backend uring: the kernel "
                         "lacks IORING_OP_%s", ops[i].name);
  if (pr)
    io_uring_free_probe(pr);
  io_uring_queue_exit(&ring);
  return rc;
}

/* ---- loop ---- */

static int ur_loop_new(np_udp_wake_fn on_wake, void *ctx,
                       struct np_udp_loop **out, struct np_errbuf *eb) {
  int rc = np_udp_uring_available(eb);
  if (rc)
    return rc;
  struct np_udp_loop *l = calloc(1, sizeof *l);
  if (!l)
    return np_errbuf_set(eb, NP_ENOMEM, "uring loop: out of memory");
  l->on_wake = on_wake;
  l->ctx = ctx;
  l->evfd = eventfd(0, EFD_CLOEXEC);
  if (l->evfd < 0) {
    int e = errno;
    free(l);
    return np_errbuf_set(eb, np_err_from_errno(e), "eventfd: %s", strerror(e));
  }
  if ((rc = ur_ring_init(&l->ring, &l->setup_accepted, eb)) != 0) {
    close(l->evfd);
    free(l);
    return rc;
  }
  *out = l;
  return 0;
}

static struct io_uring_sqe *ur_sqe(struct np_udp_loop *l) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);
  if (sqe == NULL) { /* queue full: hand it to the kernel now */
    l->nsys++;
    io_uring_submit(&l->ring);
    sqe = io_uring_get_sqe(&l->ring);
  }
  return sqe;
}

static void ur_file(struct np_udp_loop *l, struct io_uring_sqe *sqe,
                    unsigned file_index) {
  if (l->files) {
    sqe->fd = (int)file_index;
    sqe->flags |= IOSQE_FIXED_FILE;
  }
}

static int ur_arm_wake(struct np_udp_loop *l) {
  struct io_uring_sqe *sqe = ur_sqe(l);
  if (!sqe)
    return NP_EAGAIN;
  io_uring_prep_read(sqe, l->evfd, &l->evval, sizeof l->evval, 0);
  ur_file(l, sqe, 0);
  io_uring_sqe_set_data64(sqe, UD(UR_WAKE, 0));
  return 0;
}

static void ur_arm_recv(struct np_udp_sock *s) {
  struct np_udp_loop *l = s->loop;
  struct io_uring_sqe *sqe = ur_sqe(l);
  if (!sqe)
    return; /* tried again after the next iteration */
  io_uring_prep_recvmsg_multishot(sqe, s->fd, &l->rmsg[s->index], 0);
  ur_file(l, sqe, 1 + s->index);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = 0;
  io_uring_sqe_set_data64(sqe, UD(UR_RECV, s->index));
  s->armed = 1;
}

/* One one-shot receive on a paired socket, into a provided buffer of the
 * whole buffer length; MSG_TRUNC makes res the datagram's real length. */
static void ur_arm_recv1(struct np_udp_sock *s) {
  struct np_udp_loop *l = s->loop;
  struct io_uring_sqe *sqe = ur_sqe(l);
  if (!sqe)
    return; /* the wake-up's re-read or the next send tries again */
  int own = s->own && !s->own_busy;
  io_uring_prep_recv(sqe, s->fd, own ? s->own : NULL, (unsigned)l->buflen,
                     MSG_TRUNC);
  ur_file(l, sqe, 1 + s->index);
  if (own) {
    s->own_busy = 1;
  } else {
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = 0;
  }
  io_uring_sqe_set_data64(sqe, UD(own ? UR_RECVOWN : UR_RECV1, s->index));
  s->pending++;
}

/* s has just sent (queued or made) one datagram: its pair's receive for it
 * goes right after it, unless one is already waiting for it. */
static void ur_fed(struct np_udp_sock *s) {
  struct np_udp_sock *p = s->feeds;
  if (!p || !p->oneshot)
    return;
  p->inflight++;
  if (p->pending < p->inflight)
    ur_arm_recv1(p);
}

/* Pair the loop's connected sockets that are connected to each other
 * (a's peer is b's address and b's peer a's).  The connected model opens
 * a client's server socket right after the client: neighbours first. */
static struct np_udp_sock *ur_find_pair(struct np_udp_loop *l, unsigned i) {
  struct np_udp_sock *a = l->socks[i];
  for (unsigned d = 0; d < l->nsocks; d++) {
    unsigned j = (i + 1 + d) % l->nsocks; /* i + 1 first, i - 1 last */
    struct np_udp_sock *b = l->socks[j];
    if (j != i && b && b->peer_len && b->local_len &&
        np_addr_sa_equal((const struct sockaddr *)&a->peer,
                         (const struct sockaddr *)&b->local) &&
        np_addr_sa_equal((const struct sockaddr *)&b->peer,
                         (const struct sockaddr *)&a->local))
      return b;
  }
  return NULL;
}

static void ur_pair(struct np_udp_loop *l) {
  for (unsigned i = 0; i < l->nsocks; i++) {
    struct np_udp_sock *a = l->socks[i];
    if (!a || !a->peer_len || !a->local_len || a->feeds)
      continue;
    struct np_udp_sock *b = ur_find_pair(l, i);
    if (!b || b->feeds)
      continue;
    a->feeds = b;
    b->feeds = a;
    a->oneshot = b->oneshot = 1;
    l->paired += 2;
  }
  if (l->paired == 0 || (size_t)l->paired * l->buflen > UR_OWN_BYTES ||
      (l->ownmem = malloc((size_t)l->paired * l->buflen)) == NULL)
    return; /* every receive from the ring */
  size_t k = 0;
  for (unsigned i = 0; i < l->nsocks; i++)
    if (l->socks[i] && l->socks[i]->oneshot)
      l->socks[i]->own = l->ownmem + l->buflen * k++;
}

static unsigned pow2_at_least(unsigned v) {
  unsigned p = 1;
  while (p < v && p < (1u << 15))
    p <<= 1;
  return p;
}

/* Sizes from the sockets the loop has; everything registered here, by the
 * loop's own thread (the ring's single issuer). */
static int ur_loop_prepare(struct np_udp_loop *l) {
  unsigned want = 16;
  size_t maxp = 1;
  for (unsigned i = 0; i < l->nsocks; i++) {
    want += l->socks[i]->rx_batch;
    if (l->socks[i]->max_payload > maxp)
      maxp = l->socks[i]->max_payload;
  }
  l->buflen = sizeof(struct io_uring_recvmsg_out) + UR_NAME_LEN + maxp;
  l->buflen = (l->buflen + 63) & ~(size_t)63;
  l->nbufs = pow2_at_least(want > 4096 ? 4096 : want);
  while (l->nbufs > 8 && (size_t)l->nbufs * l->buflen > UR_BUF_BYTES)
    l->nbufs >>= 1;
  l->slotlen = maxp;
  l->nslots = 2 * want + 64;
  if (l->nslots > 8192)
    l->nslots = 8192;
  while (l->nslots > 16 && (size_t)l->nslots * l->slotlen > UR_SLOT_BYTES)
    l->nslots >>= 1;
  size_t brsize = (size_t)l->nbufs * sizeof(struct io_uring_buf);
  void *br = NULL;
  if (posix_memalign(&br, 4096, (brsize + 4095) & ~(size_t)4095))
    return NP_ENOMEM;
  l->br = br;
  l->bufmem = malloc((size_t)l->nbufs * l->buflen);
  l->slots = calloc(l->nslots, sizeof *l->slots);
  l->free_slots = calloc(l->nslots, sizeof *l->free_slots);
  l->slotmem = malloc((size_t)l->nslots * l->slotlen);
  l->rmsg = calloc(l->nsocks + 1, sizeof *l->rmsg);
  int *fds = calloc(l->nsocks + 1, sizeof *fds);
  if (!l->bufmem || !l->slots || !l->free_slots || !l->slotmem || !l->rmsg ||
      !fds) {
    free(fds);
    return NP_ENOMEM;
  }
  /* registered files; without them (a file-table limit) plain fds work */
  fds[0] = l->evfd;
  for (unsigned i = 0; i < l->nsocks; i++)
    fds[1 + i] = l->socks[i]->fd;
  l->nsys++;
  l->files = io_uring_register_files(&l->ring, fds, l->nsocks + 1) == 0;
  free(fds);
  for (unsigned i = 0; i < l->nslots; i++)
    l->free_slots[i] = l->nslots - 1 - i;
  l->nfree = l->nslots;
  /* the provided-buffer ring, all buffers in it */
  io_uring_buf_ring_init(l->br);
  struct io_uring_buf_reg reg = {.ring_addr = (uint64_t)(uintptr_t)l->br,
                                 .ring_entries = l->nbufs, .bgid = 0};
  l->nsys++;
  int r = io_uring_register_buf_ring(&l->ring, &reg, 0);
  if (r)
    return np_err_from_errno(-r);
  int mask = io_uring_buf_ring_mask(l->nbufs);
  for (unsigned b = 0; b < l->nbufs; b++)
    io_uring_buf_ring_add(l->br, l->bufmem + (size_t)b * l->buflen,
                          (unsigned)l->buflen, (unsigned short)b, mask, (int)b);
  io_uring_buf_ring_advance(l->br, (int)l->nbufs);
  for (unsigned i = 0; i < l->nsocks; i++)
    l->rmsg[i].msg_namelen = l->socks[i]->connected ? 0 : UR_NAME_LEN;
  return 0;
}

static void ur_flush_rx(struct np_udp_loop *l) {
  if (l->nrx == 0)
    return;
  struct np_udp_sock *s = l->rx_sock;
  s->on_recv(s->ctx, l->rx, l->nrx);
  int mask = io_uring_buf_ring_mask(l->nbufs), back = 0;
  for (unsigned i = 0; i < l->nrx; i++) {
    if (l->held[i] == UR_OWN_BID) {
      s->own_busy = 0;
      continue;
    }
    io_uring_buf_ring_add(l->br, l->bufmem + (size_t)l->held[i] * l->buflen,
                          (unsigned)l->buflen, l->held[i], mask, back++);
  }
  io_uring_buf_ring_advance(l->br, back);
  l->nrx = 0;
  l->rx_sock = NULL;
}

/* Hand one received datagram on (batched per socket); the buffer goes
 * back to the ring after on_recv has seen it. */
static struct np_udp_rx *ur_take(struct np_udp_loop *l, struct np_udp_sock *s,
                                 uint16_t bid) {
  if (l->rx_sock != s || l->nrx == UR_RX_BATCH)
    ur_flush_rx(l);
  l->rx_sock = s;
  l->held[l->nrx] = bid;
  return &l->rx[l->nrx++];
}

static void ur_on_recv(struct np_udp_loop *l, const struct io_uring_cqe *c) {
  unsigned idx = UD_IDX(c->user_data);
  struct np_udp_sock *s = idx < l->nsocks ? l->socks[idx] : NULL;
  if (s && !(c->flags & IORING_CQE_F_MORE))
    s->armed = 0; /* the multishot ended: ENOBUFS, an error, a cancel */
  if (!s || c->res < 0 || !(c->flags & IORING_CQE_F_BUFFER))
    return;
  uint16_t bid = (uint16_t)(c->flags >> IORING_CQE_BUFFER_SHIFT);
  uint8_t *buf = l->bufmem + (size_t)bid * l->buflen;
  struct msghdr *mh = &l->rmsg[idx];
  struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(buf, c->res, mh);
  struct np_udp_rx *rx = ur_take(l, s, bid);
  if (!o) { /* cannot happen with our buffer sizes; hand on an empty one */
    rx->data = buf;
    rx->len = 0;
    rx->from = NULL;
    rx->fromlen = 0;
    rx->truncated = 1;
    return;
  }
  rx->data = io_uring_recvmsg_payload(o, mh);
  rx->len = io_uring_recvmsg_payload_length(o, c->res, mh);
  rx->truncated = (o->flags & MSG_TRUNC) != 0;
  rx->from = s->connected ? NULL
                          : (const struct sockaddr *)io_uring_recvmsg_name(o);
  rx->fromlen = s->connected ? 0 : o->namelen;
}

/* A paired socket's one-shot receive: the datagram at the buffer's start. */
static void ur_on_recv1(struct np_udp_loop *l, const struct io_uring_cqe *c) {
  unsigned idx = UD_IDX(c->user_data);
  struct np_udp_sock *s = idx < l->nsocks ? l->socks[idx] : NULL;
  if (!s)
    return;
  if (s->pending)
    s->pending--;
  int own = UD_KIND(c->user_data) == UR_RECVOWN;
  if (c->res < 0) { /* ECONNREFUSED, ENOBUFS, a cancel: lock-step ends */
    s->oneshot = 0; /* multishot armed after the iteration */
    if (own)
      s->own_busy = 0;
    return;
  }
  if (s->inflight)
    s->inflight--;
  if (!own && !(c->flags & IORING_CQE_F_BUFFER))
    return;
  uint16_t bid = own ? UR_OWN_BID
                     : (uint16_t)(c->flags >> IORING_CQE_BUFFER_SHIFT);
  struct np_udp_rx *rx = ur_take(l, s, bid);
  rx->data = own ? s->own : l->bufmem + (size_t)bid * l->buflen;
  rx->truncated = (size_t)c->res > l->buflen;
  rx->len = rx->truncated ? l->buflen : (size_t)c->res;
  rx->from = NULL;
  rx->fromlen = 0;
}

static void ur_on_send(struct np_udp_loop *l, const struct io_uring_cqe *c) {
  unsigned i = UD_IDX(c->user_data);
  if (i >= l->nslots)
    return;
  struct np_udp_sock *s = l->slots[i].sock;
  l->slots[i].sock = NULL;
  l->free_slots[l->nfree++] = i;
  if (c->res < 0 && s && s->on_send_fail)
    s->on_send_fail(s->ctx, -c->res);
}

/* Take every completion there is; 1 when a wake-up came. */
static int ur_reap(struct np_udp_loop *l) {
  struct io_uring_cqe *cqes[UR_CQE_BATCH];
  int woke = 0;
  for (;;) {
    /* liburing enters the kernel itself to flush an overflowed CQ */
    if (io_uring_cq_ready(&l->ring) == 0 &&
        (IO_URING_READ_ONCE(*l->ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW))
      l->nsys++;
    unsigned n = io_uring_peek_batch_cqe(&l->ring, cqes, UR_CQE_BATCH);
    if (n == 0)
      break;
    for (unsigned i = 0; i < n; i++) {
      switch (UD_KIND(cqes[i]->user_data)) {
      case UR_RECV:
        ur_on_recv(l, cqes[i]);
        break;
      case UR_RECV1:
      case UR_RECVOWN:
        ur_on_recv1(l, cqes[i]);
        break;
      case UR_SEND:
        ur_on_send(l, cqes[i]);
        break;
      case UR_WAKE:
        woke = 1;
        break;
      default:
        break;
      }
    }
    ur_flush_rx(l);
    io_uring_cq_advance(&l->ring, n);
  }
  return woke;
}

/* At a wake-up, at most every UR_PROBE_NS: one receive on each paired
 * socket with none waiting, so that a datagram its peer did not send (or
 * one whose receive was lost to a full queue) is still read.  Until its
 * peer's next send takes it over, that receive waits as any other. */
static void ur_probe_idle(struct np_udp_loop *l) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no system call */
  int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  if (now - l->probed_ns < UR_PROBE_NS)
    return;
  l->probed_ns = now;
  for (unsigned i = 0; i < l->nsocks; i++) {
    struct np_udp_sock *s = l->socks[i];
    if (s && s->oneshot && s->pending == 0)
      ur_arm_recv1(s);
  }
}

static int ur_loop_run(struct np_udp_loop *l) {
  int rc, r;
  if (l->setup_accepted & IORING_SETUP_R_DISABLED) {
    l->nsys++;
    /* liburing 2.3 declares io_uring_enable_rings but does not export it */
    if (syscall(__NR_io_uring_register, l->ring.ring_fd,
                IORING_REGISTER_ENABLE_RINGS, NULL, 0) < 0)
      return np_err_from_errno(errno);
  }
  if ((rc = ur_loop_prepare(l)) != 0 || (rc = ur_arm_wake(l)) != 0)
    return rc;
  ur_pair(l);
  for (unsigned i = 0; i < l->nsocks; i++)
    if (!l->socks[i]->oneshot) /* a pair's receives follow its sends */
      ur_arm_recv(l->socks[i]);
  while (!l->stop) {
    l->nsys++;
    atomic_store_explicit(&l->nsys_pub, (int64_t)l->nsys, memory_order_relaxed);
    r = io_uring_submit_and_wait(&l->ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
      return np_err_from_errno(-r);
    if (ur_reap(l)) {
      if ((rc = ur_arm_wake(l)) != 0)
        return rc;
      l->on_wake(l->ctx); /* may stop the loop */
      if (l->paired)
        ur_probe_idle(l);
    }
    for (unsigned i = 0; i < l->nsocks; i++)
      if (!l->socks[i]->armed && !l->socks[i]->oneshot)
        ur_arm_recv(l->socks[i]);
  }
  if (io_uring_sq_ready(&l->ring)) { /* sends queued by the last callbacks */
    l->nsys++;
    io_uring_submit(&l->ring);
  }
  atomic_store_explicit(&l->nsys_pub, (int64_t)l->nsys, memory_order_relaxed);
  return 0;
}

static void ur_loop_stop(struct np_udp_loop *l) { l->stop = 1; }

static int ur_loop_wake(struct np_udp_loop *l) {
  uint64_t one = 1;
  if (write(l->evfd, &one, sizeof one) < 0 && errno != EAGAIN)
    return np_err_from_errno(errno);
  return 0;
}

static void ur_loop_free(struct np_udp_loop *l) {
  if (!l)
    return;
  io_uring_queue_exit(&l->ring); /* cancels what is queued, then the memory
                                    below is ours alone */
  close(l->evfd);
  free(l->socks);
  free(l->rmsg);
  free(l->br);
  free(l->bufmem);
  free(l->slots);
  free(l->free_slots);
  free(l->slotmem);
  free(l->ownmem);
  free(l);
}

static int64_t ur_loop_syscalls(const struct np_udp_loop *l) {
  return atomic_load_explicit(&((struct np_udp_loop *)l)->nsys_pub,
                              memory_order_relaxed);
}

static void ur_loop_info(const struct np_udp_loop *l,
                         struct np_udp_loop_info *out) {
  memset(out, 0, sizeof *out);
  out->setup_requested = ur_setups[0] | IORING_SETUP_CQSIZE;
  out->setup_accepted = l->setup_accepted;
  out->registered_files = l->files;
  out->registered_buffers = 0; /* sends are IORING_OP_SEND (see the top) */
  out->buffer_ring = l->br != NULL && l->nbufs > 0;
  out->ring_entries = l->ring.sq.ring_entries;
  out->buffers = l->nbufs;
  out->sync_sends = l->sync_sends;
  out->paired_sockets = l->paired;
}

/* ---- sockets ---- */

static int ur_sock_open(struct np_udp_loop *l, const struct np_udp_sock_opts *o,
                        struct np_udp_sock **out, struct np_errbuf *eb) {
  if (l->nsocks == l->socks_cap) {
    unsigned cap = l->socks_cap ? 2 * l->socks_cap : 16;
    struct np_udp_sock **n = realloc(l->socks, cap * sizeof *n);
    if (!n)
      return np_errbuf_set(eb, NP_ENOMEM, "uring socket: out of memory");
    l->socks = n;
    l->socks_cap = cap;
  }
  struct np_udp_sock *s = calloc(1, sizeof *s);
  if (!s)
    return np_errbuf_set(eb, NP_ENOMEM, "uring socket: out of memory");
  struct np_udp_sock_opts so = *o;
  so.rxq_ovfl = 0; /* SO_MEMINFO only: the ring's receives carry no cmsg */
  int rc = np_udp_sock_create(&so, &s->fd, eb);
  if (rc) {
    free(s);
    return rc;
  }
  /* blocking for the ring: a full send buffer waits instead of failing */
  int fl = fcntl(s->fd, F_GETFL);
  if (fl < 0 || fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
    int e = errno;
    close(s->fd);
    free(s);
    return np_errbuf_set(eb, np_err_from_errno(e), "fcntl: %s", strerror(e));
  }
  s->loop = l;
  s->index = l->nsocks;
  s->connected = o->peer_len > 0;
  if (s->connected) { /* both ends, for pairing in ur_pair */
    s->peer = o->peer;
    s->peer_len = o->peer_len;
    s->local_len = sizeof s->local;
    if (getsockname(s->fd, (struct sockaddr *)&s->local, &s->local_len))
      s->local_len = 0; /* not paired */
  }
  s->rx_batch = o->rx_batch ? o->rx_batch : 1;
  s->max_payload = o->max_payload;
  s->on_recv = o->on_recv;
  s->on_send_fail = o->on_send_fail;
  s->ctx = o->ctx;
  l->socks[l->nsocks++] = s;
  *out = s;
  return 0;
}

/* All slots in flight: the kernel gets what is queued, then this datagram
 * goes out with a plain call, in order. */
static int ur_send_sync(struct np_udp_sock *s, const struct np_udp_tx *t,
                        int *errnum) {
  struct np_udp_loop *l = s->loop;
  if (io_uring_sq_ready(&l->ring)) {
    l->nsys++;
    io_uring_submit(&l->ring);
  }
  ssize_t r;
  l->sync_sends++;
  l->nsys++;
  do
    r = s->connected || !t->to
            ? send(s->fd, t->data, t->len, MSG_DONTWAIT)
            : sendto(s->fd, t->data, t->len, MSG_DONTWAIT, t->to, t->tolen);
  while (r < 0 && errno == EINTR && ++l->nsys);
  if (r < 0) {
    *errnum = errno;
    return np_err_from_errno(errno);
  }
  return 0;
}

static int ur_send_batch(struct np_udp_sock *s, const struct np_udp_tx *tx,
                         unsigned n, unsigned *nsent, int *errnum) {
  struct np_udp_loop *l = s->loop;
  for (unsigned i = 0; i < n; i++) {
    const struct np_udp_tx *t = &tx[i];
    struct io_uring_sqe *sqe = NULL;
    if (l->nfree > 0 && t->len <= l->slotlen)
      sqe = ur_sqe(l);
    if (sqe == NULL) {
      int rc = ur_send_sync(s, t, errnum);
      if (rc) {
        *nsent = i;
        return rc;
      }
      ur_fed(s);
      continue;
    }
    unsigned k = l->free_slots[--l->nfree];
    struct ur_slot *sl = &l->slots[k];
    uint8_t *buf = l->slotmem + (size_t)k * l->slotlen;
    memcpy(buf, t->data, t->len);
    sl->sock = s;
    if (s->connected || !t->to) {
      io_uring_prep_send(sqe, s->fd, buf, t->len, 0);
    } else {
      memcpy(&sl->to, t->to, t->tolen);
      sl->iov.iov_base = buf;
      sl->iov.iov_len = t->len;
      memset(&sl->mh, 0, sizeof sl->mh);
      sl->mh.msg_name = &sl->to;
      sl->mh.msg_namelen = t->tolen;
      sl->mh.msg_iov = &sl->iov;
      sl->mh.msg_iovlen = 1;
      io_uring_prep_sendmsg(sqe, s->fd, &sl->mh, 0);
    }
    ur_file(l, sqe, 1 + s->index);
    io_uring_sqe_set_data64(sqe, UD(UR_SEND, k));
    ur_fed(s);
  }
  *nsent = n;
  return 0;
}

static int ur_sock_fd(const struct np_udp_sock *s) { return s->fd; }

static int64_t ur_sock_rxq_ovfl(const struct np_udp_sock *s) {
  (void)s;
  return -1;
}

static void ur_sock_close(struct np_udp_sock *s) {
  if (!s)
    return;
  s->loop->socks[s->index] = NULL; /* the ring keeps its own reference */
  close(s->fd);
  free(s);
}

const struct np_udp_transport np_udp_transport_uring = {
    .name = "uring",
    .loop_new = ur_loop_new,
    .loop_run = ur_loop_run,
    .loop_stop = ur_loop_stop,
    .loop_wake = ur_loop_wake,
    .loop_free = ur_loop_free,
    .sock_open = ur_sock_open,
    .send_batch = ur_send_batch,
    .sock_fd = ur_sock_fd,
    .sock_rxq_ovfl = ur_sock_rxq_ovfl,
    .sock_close = ur_sock_close,
    .loop_syscalls = ur_loop_syscalls,
    .loop_info = ur_loop_info,
};
