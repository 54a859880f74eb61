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
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define READS_PER_EVENT 4 /* recvmmsg batches per socket per wake-up */

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

/* Send txpkt[0..n) (all through s) with sendmmsg; what EAGAIN refuses
 * goes to the front of s's queue when from_queue, else its back.  Returns
 * how many were deferred. */
static unsigned send_batch(struct np_relay *r, struct np_relay_sock *s, unsigned n,
                       int from_queue) {
  unsigned off = 0, deferred_from = n;
  unsigned calls = 0;
  int err[NP_RELAY_BATCH] = {0};
  for (unsigned i = 0; i < n; i++) {
    const struct sockaddr *to;
    out_sock(r, r->txpkt[i], &to);
    struct msghdr *h = &r->txmsg[i].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = (void *)to;
    h->msg_namelen = np_addr_sa_len(to);
    h->msg_iov = r->txiov[i];
    h->msg_iovlen = np_relay_pool_iov(&r->routes[r->txpkt[i]->route].pool,
                                      r->txpkt[i], r->txiov[i]);
  }
  while (off < n) {
    int k = sendmmsg(s->fd, &r->txmsg[off], n - off, MSG_DONTWAIT);
    calls++;
    if (k > 0) {
      off += (unsigned)k;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      deferred_from = off;
      break;
    } else {
      err[off++] = 1; /* this one failed; the rest are retried */
    }
  }
  pthread_mutex_lock(&r->mu);
  r->io.send_calls += calls;
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

void *np_relay__thread_main(void *arg) {
  struct np_relay *r = arg;
  struct epoll_event evs[64];
  int stop = 0;
  r->next_sweep_ns = np_relay_now_ns() + r->sweep_ns;
  while (!stop) {
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
  return NULL;
}
