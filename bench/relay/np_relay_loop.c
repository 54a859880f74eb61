/*
 * np_relay_loop.c - the relay thread: one epoll set for every socket, the
 * timerfd and the stop eventfd; datagrams in batches, decisions, the
 * release heap, copies out in batches.
 *
 * Batching keeps timing honest: recvmmsg takes what is already queued on
 * a socket (MSG_DONTWAIT, never waiting to fill a batch) and the arrival
 * time is read once, right after it returns - every datagram of the batch
 * had arrived by then, so none is stamped early; sendmmsg sends copies
 * that are already due, grouped while they leave through the same socket,
 * and never holds one back to fill a batch.  Copies due on arrival (no
 * delay) go out after the batch that brought them, before the next read.
 *
 * Timing: the heap's earliest release time is programmed into a timerfd
 * (CLOCK_MONOTONIC, absolute, nanosecond resolution, no timer slack) set
 * timer_spin_ns (default 200 us) before the release; from there the loop
 * polls with a zero timeout (still receiving) until the release is due.
 * Sleeping alone was measured at ~200 us mean lateness on this VM (wake-up
 * from idle); the short spin bounds the CPU cost to at most timer_spin_ns
 * per release gap.  Lateness of every release is recorded.
 *
 * A send that finds the socket buffer full (EAGAIN) leaves the copy, and
 * every later copy for that socket, on the socket's FIFO until EPOLLOUT;
 * a copy counts against its route's capacity until it has left, so the
 * pool bound (np_relay_pool.h) holds and nothing is allocated.
 */
#include "np_relay_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define READS_PER_EVENT 4 /* recvmmsg batches per socket per wake-up */
/* Bytes of one UDP_SEGMENT group: well inside one IPv4 or IPv6 datagram
 * (65,507 / 65,527 bytes of payload). */
#define GSO_MAX_BYTES 60000u
#define CPU_REFRESH_TURNS 256u /* loop turns between CPU time readings */

/* ---- releasing copies ---- */

/* The pool memory one queued copy of len bytes takes (its chunks), what
 * the bound over all routes (max_memory) counts. */
static uint64_t copy_cost(size_t len) {
  return (uint64_t)((len + NP_RELAY_CHUNK - 1) / NP_RELAY_CHUNK) *
         NP_RELAY_CHUNK;
}

/* Under mu: the copy leaves its route (sent, failed or dropped). */
static void leave_locked(struct np_relay *r, struct np_relay_pkt *p) {
  struct np_relay_route *rt = &r->routes[p->route];
  rt->occ.bytes -= p->len;
  rt->occ.packets -= 1;
  rt->dir_bytes[p->dir] -= p->len;
  rt->dir_packets[p->dir] -= 1;
  r->io.queued_bytes -= p->len;
  r->io.queued_memory -= copy_cost(p->len);
  np_relay_pool_release(&rt->pool, p);
}

static void timing_record_locked(struct np_relay_timing *t, uint64_t late) {
  static const uint64_t edges_us[7] = {10, 20, 50, 100, 200, 500, 1000};
  unsigned b = 0;
  while (b < 7 && late >= edges_us[b] * 1000u)
    b++;
  t->late_hist[b]++;
  t->releases++;
  t->late_sum_ns += late;
  if (late > t->late_max_ns)
    t->late_max_ns = late;
  if (late > 100000u)
    t->late_over_100us++;
}

/* The socket a copy leaves through and its destination. */
static struct np_relay_sock *out_sock(struct np_relay *r,
                                      const struct np_relay_pkt *p,
                                      const struct sockaddr **to) {
  struct np_relay_route *rt = &r->routes[p->route];
  if (p->dir == NP_RELAY_C2S) {
    *to = (const struct sockaddr *)&r->server;
    return &rt->back;
  }
  *to = (const struct sockaddr *)&rt->client;
  return r->standalone ? &r->listen : &rt->front;
}

static void want_out(struct np_relay *r, struct np_relay_sock *s, int on) {
  if (s->out_armed == on)
    return;
  struct epoll_event e = {.events = EPOLLIN | (on ? EPOLLOUT : 0u),
                          .data.ptr = &s->ev};
  if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, s->fd, &e) == 0)
    s->out_armed = on;
}

static void pend(struct np_relay_sock *s, struct np_relay_pkt *p) {
  p->qnext = NULL;
  if (s->pend_tail)
    s->pend_tail->qnext = p;
  else
    s->pend_head = p;
  s->pend_tail = p;
}

/* Group txpkt[from..n) into the messages txmsg[0..) of one sendmmsg and
 * return their number.  With gso, a run of copies of one route and
 * direction (so one destination) whose sizes are equal but for a shorter
 * last one, within GSO_MAX_BYTES, is one message with a UDP_SEGMENT
 * control message: the kernel walks the path below the socket once for
 * the run and cuts it into the same datagrams (on loopback at the
 * receiving socket).  Otherwise one message per copy. */
static unsigned build_msgs(struct np_relay *r, unsigned from, unsigned n,
                           int gso) {
  unsigned m = 0, iov = 0;
  for (unsigned i = from; i < n; m++) {
    const struct np_relay_pkt *p = r->txpkt[i];
    unsigned j = i + 1;
    size_t total = p->len;
    while (gso && p->len > 0 && j < n && r->txpkt[j]->route == p->route &&
           r->txpkt[j]->dir == p->dir && r->txpkt[j]->len > 0 &&
           r->txpkt[j]->len <= p->len &&
           total + r->txpkt[j]->len <= GSO_MAX_BYTES) {
      total += r->txpkt[j]->len;
      if (r->txpkt[j++]->len < p->len)
        break; /* a shorter copy ends its group */
    }
    const struct sockaddr *to;
    out_sock(r, p, &to);
    struct msghdr *h = &r->txmsg[m].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = (void *)to;
    h->msg_namelen = np_addr_sa_len(to);
    h->msg_iov = &r->txiov[iov];
    for (unsigned k = i; k < j; k++)
      iov += np_relay_pool_iov(&r->routes[r->txpkt[k]->route].pool,
                               r->txpkt[k], &r->txiov[iov]);
    h->msg_iovlen = (size_t)(&r->txiov[iov] - h->msg_iov);
    if (j - i > 1) {
      h->msg_control = r->txctl[m].buf;
      h->msg_controllen = sizeof r->txctl[m].buf;
      struct cmsghdr *cm = CMSG_FIRSTHDR(h);
      cm->cmsg_level = SOL_UDP;
      cm->cmsg_type = UDP_SEGMENT;
      cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t seg = (uint16_t)p->len;
      memcpy(CMSG_DATA(cm), &seg, sizeof seg);
    }
    r->txfirst[m] = i;
    i = j;
  }
  r->txfirst[m] = n;
  return m;
}

/* Did the kernel refuse UDP_SEGMENT itself (no checksum offload on the
 * way out, a segment over the path MTU, an old kernel)? */
static int gso_refusal(int e) {
  return e == EIO || e == EINVAL || e == EOPNOTSUPP || e == ENOPROTOOPT ||
         e == EMSGSIZE;
}

/* The send counts of one send_batch, added to io under mu. */
struct send_tally {
  unsigned calls, gso_sends, gso_datagrams, gso_refused;
};

/* sendmmsg txpkt[0..n) through s until all left or EAGAIN; err[i] marks
 * a copy whose send failed.  Returns the first copy not sent (n: all). */
static unsigned send_msgs(struct np_relay *r, struct np_relay_sock *s,
                          unsigned n, int *err, struct send_tally *t) {
  unsigned nm = build_msgs(r, 0, n, s->gso), off = 0;
  while (off < nm) {
    int k = sendmmsg(s->fd, &r->txmsg[off], nm - off, MSG_DONTWAIT);
    t->calls++;
    if (k > 0) {
      for (unsigned m = off; m < off + (unsigned)k; m++)
        if (r->txfirst[m + 1] - r->txfirst[m] > 1) {
          t->gso_sends++;
          t->gso_datagrams += r->txfirst[m + 1] - r->txfirst[m];
        }
      off += (unsigned)k;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return r->txfirst[off];
    } else if (s->gso && r->txfirst[off + 1] - r->txfirst[off] > 1 &&
               gso_refusal(errno)) {
      s->gso = 0; /* this socket sends one datagram per message from now */
      t->gso_refused++;
      nm = build_msgs(r, r->txfirst[off], n, 0);
      off = 0;
    } else { /* this message failed; the rest are retried */
      for (unsigned i = r->txfirst[off]; i < r->txfirst[off + 1]; i++)
        err[i] = 1;
      off++;
    }
  }
  return n;
}

/* Send txpkt[0..n) (all through s) with sendmmsg; what EAGAIN refuses
 * goes to the front of s's queue when from_queue, else its back.  Returns
 * how many were deferred. */
static unsigned send_batch(struct np_relay *r, struct np_relay_sock *s,
                           unsigned n, int from_queue) {
  int err[NP_RELAY_BATCH] = {0};
  struct send_tally t = {0};
  unsigned deferred_from = send_msgs(r, s, n, err, &t);
  pthread_mutex_lock(&r->mu);
  r->io.send_calls += t.calls;
  r->io.gso_sends += t.gso_sends;
  r->io.gso_datagrams += t.gso_datagrams;
  r->io.gso_refused += t.gso_refused;
  for (unsigned i = 0; i < deferred_from; i++) {
    struct np_relay_pkt *p = r->txpkt[i];
    struct np_relay_counts *c = &r->routes[p->route].dir[p->dir].counts;
    if (err[i]) {
      c->send_errors++;
    } else {
      c->forwarded++;
      c->forwarded_bytes += p->len;
      r->io.send_datagrams++;
    }
    leave_locked(r, p);
  }
  if (!from_queue)
    for (unsigned i = deferred_from; i < n; i++)
      r->routes[r->txpkt[i]->route].dir[r->txpkt[i]->dir].counts
          .send_deferred++;
  pthread_mutex_unlock(&r->mu);
  if (deferred_from < n) {
    if (from_queue) { /* back to the front, in order */
      for (unsigned i = n; i-- > deferred_from;) {
        r->txpkt[i]->qnext = s->pend_head;
        s->pend_head = r->txpkt[i];
        if (s->pend_tail == NULL)
          s->pend_tail = r->txpkt[i];
      }
    } else {
      for (unsigned i = deferred_from; i < n; i++)
        pend(s, r->txpkt[i]);
    }
    want_out(r, s, 1);
  }
  return n - deferred_from;
}

/* EPOLLOUT: send what waits on s, in order. */
static void flush_pending(struct np_relay *r, struct np_relay_sock *s) {
  while (s->pend_head) {
    unsigned n = 0;
    while (s->pend_head && n < NP_RELAY_BATCH) {
      r->txpkt[n++] = s->pend_head;
      s->pend_head = s->pend_head->qnext;
    }
    if (s->pend_head == NULL)
      s->pend_tail = NULL;
    if (send_batch(r, s, n, 1) > 0)
      return; /* still full: wait for the next EPOLLOUT */
  }
  want_out(r, s, 0);
}

static void timer_arm(struct np_relay *r, uint64_t at_ns) {
  if (r->armed_ns == at_ns)
    return;
  struct itimerspec its;
  memset(&its, 0, sizeof(its));
  its.it_value.tv_sec = (time_t)(at_ns / 1000000000ull);
  its.it_value.tv_nsec = (long)(at_ns % 1000000000ull);
  if (timerfd_settime(r->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
    r->armed_ns = at_ns;
}

/* Send every copy whose release time has come, then wait for the next. */
static void release_due(struct np_relay *r) {
  r->spinning = 0;
  for (;;) {
    const struct np_relay_heap_entry *top = np_relay_heap_top(&r->heap);
    if (top == NULL)
      return;
    uint64_t now = np_relay_now_ns();
    if (top->release_ns > now) {
      uint64_t spin = r->cfg.timer_spin_ns;
      if (spin > 0 && top->release_ns - now <= spin)
        r->spinning = 1;
      else
        timer_arm(r, top->release_ns - spin);
      return;
    }
    /* a run of due copies leaving through one socket */
    struct np_relay_sock *s = NULL;
    unsigned n = 0;
    pthread_mutex_lock(&r->mu);
    while ((top = np_relay_heap_top(&r->heap)) != NULL &&
           top->release_ns <= now && n < NP_RELAY_BATCH) {
      const struct sockaddr *to;
      struct np_relay_pkt *p = top->pkt;
      struct np_relay_sock *ps = out_sock(r, p, &to);
      if (s != NULL && ps != s)
        break;
      struct np_relay_heap_entry e;
      np_relay_heap_pop(&r->heap, &e);
      timing_record_locked(&r->timing, now - e.release_ns);
      if (ps->pend_head != NULL) { /* keep the socket's order */
        r->routes[p->route].dir[p->dir].counts.send_deferred++;
        pend(ps, p);
        continue;
      }
      s = ps;
      r->txpkt[n++] = p;
    }
    pthread_mutex_unlock(&r->mu);
    if (n > 0)
      send_batch(r, s, n, 0);
  }
}

/* ---- receiving ---- */

/* Under mu: decide one datagram's copies and queue them. */
static void admit_locked(struct np_relay *r, struct np_relay_route *rt,
                         unsigned dir, const void *data, size_t len,
                         uint64_t now) {
  struct np_relay_decision dec;
  struct np_relay_counts *c = &rt->dir[dir].counts;
  /* The bound over all routes, in the pool memory a copy takes (its
   * chunks): a copy that finds no room is its route's overflow. */
  uint64_t occ_bytes = rt->occ.bytes, occ_packets = rt->occ.packets;
  uint64_t cost = copy_cost(len);
  rt->occ.mem_bounded = r->max_memory != 0;
  rt->occ.mem_cost = cost;
  rt->occ.mem_room = r->io.queued_memory < r->max_memory
                         ? r->max_memory - r->io.queued_memory : 0;
  np_relay_decide(&rt->dir[dir], now, len, &rt->occ, &dec);
  for (unsigned i = 0; i < dec.ncopies; i++) {
    int route_room = occ_packets + 1 <= r->route_packets &&
                     occ_bytes + len <= r->route_bytes;
    if (dec.copy[i].fate == NP_RELAY_OVERFLOW && route_room)
      r->io.memory_overflow++; /* only the total bound refused it */
    if (dec.copy[i].fate != NP_RELAY_FORWARD)
      continue;
    occ_bytes += len;
    occ_packets += 1;
    struct np_relay_pkt *p =
        np_relay_pool_put(&rt->pool, data, len, rt->index, dir);
    if (p == NULL ||
        np_relay_heap_push(&r->heap, dec.copy[i].release_ns, p) != 0) {
      if (p != NULL)
        np_relay_pool_release(&rt->pool, p);
      rt->occ.bytes -= len;
      rt->occ.packets -= 1;
      c->send_errors++;
      r->io.pool_full++;
      continue;
    }
    rt->dir_bytes[dir] += len;
    rt->dir_packets[dir] += 1;
    r->io.queued_bytes += len;
    r->io.queued_memory += cost;
    if (r->io.queued_memory > r->io.queued_memory_peak)
      r->io.queued_memory_peak = r->io.queued_memory;
    if (rt->dir_bytes[dir] > c->peak_queue_bytes)
      c->peak_queue_bytes = rt->dir_bytes[dir];
    if (rt->dir_packets[dir] > c->peak_queue_packets)
      c->peak_queue_packets = rt->dir_packets[dir];
    if (rt->occ.bytes > rt->peak_bytes)
      rt->peak_bytes = rt->occ.bytes;
    if (rt->occ.packets > rt->peak_packets)
      rt->peak_packets = rt->occ.packets;
  }
}

enum verdict { V_ADMIT, V_FOREIGN, V_TRUNCATED, V_REFUSED, V_LOOP };

/* The route and direction of datagram i read on s (no lock held: a new
 * standalone route may open here). */
static enum verdict classify(struct np_relay *r, struct np_relay_sock *s,
                             unsigned i, struct np_relay_route **rt,
                             unsigned *dir) {
  const struct sockaddr *src = (const struct sockaddr *)&r->rxaddr[i];
  int trunc = (r->rxmsg[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
  switch (s->role) {
  case NP_RELAY_SOCK_LISTEN:
    *dir = NP_RELAY_C2S;
    *rt = NULL;
    if (np_relay__is_own(r, src))
      return V_LOOP; /* the relay's own output: forwarding it loops */
    *rt = np_relay__route_of(r, src);
    if (*rt == NULL)
      return V_REFUSED;
    break;
  case NP_RELAY_SOCK_FRONT:
    *dir = NP_RELAY_C2S;
    *rt = &r->routes[s->route];
    if (!(*rt)->client_known) {
      pthread_mutex_lock(&r->mu);
      memcpy(&(*rt)->client, src, np_addr_sa_len(src));
      (*rt)->client_known = 1;
      pthread_mutex_unlock(&r->mu);
    } else if (!np_addr_sa_equal(src,
                                    (const struct sockaddr *)&(*rt)->client)) {
      return V_FOREIGN;
    }
    break;
  default:
    *dir = NP_RELAY_S2C;
    *rt = &r->routes[s->route];
    if (!(*rt)->client_known ||
        !np_addr_sa_equal(src, (const struct sockaddr *)&r->server))
      return V_FOREIGN;
  }
  return trunc ? V_TRUNCATED : V_ADMIT;
}

static void read_batch(struct np_relay *r, struct np_relay_sock *s,
                       int *more) {
  for (unsigned i = 0; i < NP_RELAY_BATCH; i++) {
    struct msghdr *h = &r->rxmsg[i].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = &r->rxaddr[i];
    h->msg_namelen = sizeof r->rxaddr[i];
    h->msg_iov = &r->rxiov[i];
    h->msg_iovlen = 1;
  }
  int n = recvmmsg(s->fd, r->rxmsg, NP_RELAY_BATCH, MSG_DONTWAIT, NULL);
  *more = n == (int)NP_RELAY_BATCH;
  if (n <= 0) {
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      pthread_mutex_lock(&r->mu);
      if (s->role == NP_RELAY_SOCK_LISTEN)
        r->io.recv_errors++;
      else
        r->routes[s->route]
            .dir[s->role == NP_RELAY_SOCK_BACK ? NP_RELAY_S2C : NP_RELAY_C2S]
            .counts.recv_errors++;
      pthread_mutex_unlock(&r->mu);
    }
    return;
  }
  uint64_t now = np_relay_now_ns();
  struct np_relay_route *rts[NP_RELAY_BATCH];
  unsigned dirs[NP_RELAY_BATCH];
  enum verdict v[NP_RELAY_BATCH];
  for (int i = 0; i < n; i++)
    v[i] = classify(r, s, (unsigned)i, &rts[i], &dirs[i]);
  pthread_mutex_lock(&r->mu);
  r->io.recv_calls++;
  r->io.recv_datagrams += (uint64_t)n;
  for (int i = 0; i < n; i++) {
    if (v[i] == V_REFUSED)
      continue; /* counted by np_relay__route_of */
    if (v[i] == V_LOOP) {
      r->io.refused_loop++;
      continue;
    }
    struct np_relay_counts *c = &rts[i]->dir[dirs[i]].counts;
    if (v[i] != V_FOREIGN)
      rts[i]->last_ns = now;
    if (v[i] == V_FOREIGN)
      c->foreign++;
    else if (v[i] == V_TRUNCATED)
      c->truncated++;
    else
      admit_locked(r, rts[i], dirs[i], r->rxiov[i].iov_base,
                   r->rxmsg[i].msg_len, now);
  }
  pthread_mutex_unlock(&r->mu);
}

static void on_udp(struct np_relay *r, struct np_relay_sock *s,
                   uint32_t events) {
  if (events & EPOLLOUT)
    flush_pending(r, s);
  if (events & (EPOLLIN | EPOLLERR)) {
    int more = 1;
    for (int k = 0; k < READS_PER_EVENT && more; k++) {
      read_batch(r, s, &more);
      release_due(r);
    }
  }
}

void np_relay__drop_queued(struct np_relay *r) {
  struct np_relay_heap_entry e;
  pthread_mutex_lock(&r->mu);
  while (np_relay_heap_pop(&r->heap, &e) == 0) {
    struct np_relay_pkt *p = e.pkt;
    r->routes[p->route].dir[p->dir].counts.dropped_at_stop++;
    leave_locked(r, p);
  }
  struct np_relay_sock *socks[2];
  for (unsigned i = 0; i <= r->nslots; i++) {
    socks[0] = i < r->nslots ? &r->routes[i].front : &r->listen;
    socks[1] = i < r->nslots ? &r->routes[i].back : NULL;
    for (unsigned k = 0; k < 2 && socks[k]; k++)
      while (socks[k]->pend_head) {
        struct np_relay_pkt *p = socks[k]->pend_head;
        socks[k]->pend_head = p->qnext;
        r->routes[p->route].dir[p->dir].counts.dropped_at_stop++;
        leave_locked(r, p);
      }
  }
  pthread_mutex_unlock(&r->mu);
}

/* io.thread_cpu_ns: this thread's CPU time, stored by the thread itself
 * (every CPU_REFRESH_TURNS loop turns and when the loop ends), so any
 * thread reads it under mu without touching this one's clock. */
static void cpu_refresh(struct np_relay *r) {
  struct timespec cpu;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) != 0)
    return;
  pthread_mutex_lock(&r->mu);
  r->io.thread_cpu_ns =
      (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
  pthread_mutex_unlock(&r->mu);
}

void *np_relay__thread_main(void *arg) {
  struct np_relay *r = arg;
  struct epoll_event evs[64];
  int stop = 0;
  pthread_setname_np(pthread_self(), "np-relay"); /* for top -H, perf */
  r->next_sweep_ns = np_relay_now_ns() + r->sweep_ns;
  for (unsigned turn = 1; !stop; turn++) {
    if (turn % CPU_REFRESH_TURNS == 0)
      cpu_refresh(r);
    int ms = -1;
    if (r->spinning) {
      ms = 0;
    } else if (r->sweep_ns) { /* wake for the next sweep */
      uint64_t now = np_relay_now_ns();
      ms = r->next_sweep_ns > now
               ? (int)((r->next_sweep_ns - now + 999999u) / 1000000u) : 0;
    }
    int n = epoll_wait(r->epfd, evs, 64, ms);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      r->loop_rc = NP_ELOOP;
      break;
    }
    for (int i = 0; i < n; i++) {
      struct np_relay_ev *ev = evs[i].data.ptr;
      switch (ev->kind) {
      case NP_RELAY_EV_UDP:
        on_udp(r, (struct np_relay_sock *)ev, evs[i].events);
        break;
      case NP_RELAY_EV_TIMER: {
        uint64_t x;
        if (read(r->timer_fd, &x, sizeof x) > 0) {
          pthread_mutex_lock(&r->mu);
          r->timing.timer_wakeups++;
          pthread_mutex_unlock(&r->mu);
        }
        r->armed_ns = 0;
        break;
      }
      case NP_RELAY_EV_STOP:
        stop = 1;
        break;
      case NP_RELAY_EV_TCP_LISTEN:
        np_relay__tcp_accept(r);
        break;
      case NP_RELAY_EV_TCP_SIDE:
        np_relay__tcp_event(r, (struct np_relay_tcp_side *)ev, evs[i].events);
        break;
      }
    }
    release_due(r);
    if (r->sweep_ns)
      np_relay__sweep(r, np_relay_now_ns());
  }
  np_relay__drop_queued(r);
  cpu_refresh(r);
  return NULL;
}
