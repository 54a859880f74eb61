/*
 * np_relay.c - the live relay: libuv loop on its own thread, two UDP
 * sockets per route, a min-heap of queued copies and one timerfd.
 *
 * Timing: uv_timer has millisecond granularity, too coarse for the
 * <= 100 us target.  The heap's earliest release time is programmed into a
 * timerfd (CLOCK_MONOTONIC, absolute, nanosecond resolution, no timer
 * slack) watched by a uv_poll handle, set timer_spin_ns (default 200 us)
 * before the release; from there a uv_idle handle spins the loop (still
 * receiving) until the release is due.  Sleeping alone was measured at
 * ~200 us mean lateness on this VM (wake-up from idle); the short spin
 * bounds the CPU cost to at most timer_spin_ns per release gap.  Copies
 * whose release time has already passed when they are received (zero
 * delay) are sent from the receive callback directly.  Lateness of every
 * release is recorded (np_relay_timing).
 */
#include "np_relay_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define SOCKBUF_BYTES (4 << 20)

struct send_req {
  uv_udp_send_t req;
  struct np_relay_pkt *pkt;
};

uint64_t np_relay_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static socklen_t addr_len(const struct sockaddr *sa) {
  return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                   : sizeof(struct sockaddr_in);
}

static int addr_equal(const struct sockaddr *a, const struct sockaddr *b) {
  if (a->sa_family != b->sa_family)
    return 0;
  if (a->sa_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port &&
         memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
}

/* ---- releasing copies ---- */

/* Called with r->mu held: the copy leaves the queue. */
static void dequeue_locked(struct np_relay *r, const struct np_relay_pkt *p) {
  struct np_relay_route *rt = &r->routes[p->route];
  rt->occ.bytes -= p->len;
  rt->occ.packets -= 1;
  rt->dir_bytes[p->dir] -= p->len;
  rt->dir_packets[p->dir] -= 1;
}

static void on_send_done(uv_udp_send_t *req, int status) {
  struct send_req *sr = (struct send_req *)req;
  struct np_relay *r = req->handle->loop->data;
  struct np_relay_counts *c = &r->routes[sr->pkt->route].dir[sr->pkt->dir].counts;
  uv_mutex_lock(&r->mu);
  if (status == 0) {
    c->forwarded++;
    c->forwarded_bytes += sr->pkt->len;
  } else if (status == UV_ECANCELED) {
    c->dropped_at_stop++;
  } else {
    c->send_errors++;
  }
  uv_mutex_unlock(&r->mu);
  free(sr->pkt);
  free(sr);
}

/* Send p to its destination and free it (now or when the async send ends). */
static void send_pkt(struct np_relay *r, struct np_relay_pkt *p) {
  struct np_relay_route *rt = &r->routes[p->route];
  struct np_relay_counts *c = &rt->dir[p->dir].counts;
  uv_udp_t *h = p->dir == NP_RELAY_C2S ? &rt->back : &rt->front;
  const struct sockaddr *to = p->dir == NP_RELAY_C2S
                                  ? (const struct sockaddr *)&r->server
                                  : (const struct sockaddr *)&rt->client;
  uv_buf_t b = uv_buf_init((char *)p->data, p->len);
  int rc = uv_udp_try_send(h, &b, 1, to);
  if (rc == UV_EAGAIN) {
    struct send_req *sr = malloc(sizeof(*sr));
    if (sr != NULL) {
      sr->pkt = p;
      if (uv_udp_send(&sr->req, h, &b, 1, to, on_send_done) == 0) {
        uv_mutex_lock(&r->mu);
        c->send_deferred++;
        uv_mutex_unlock(&r->mu);
        return;
      }
      free(sr);
    }
  }
  uv_mutex_lock(&r->mu);
  if (rc >= 0) {
    c->forwarded++;
    c->forwarded_bytes += p->len;
  } else {
    c->send_errors++;
  }
  uv_mutex_unlock(&r->mu);
  free(p);
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

static void on_spin(uv_idle_t *h);

/* Wait for the next release at at_ns: sleep on the timerfd until
 * timer_spin_ns before it, then spin (uv_idle keeps the loop polling with
 * a zero timeout, so datagrams are still received) until it is due. */
static void wait_for(struct np_relay *r, uint64_t at_ns, uint64_t now) {
  uint64_t spin = r->cfg.timer_spin_ns;
  if (spin > 0 && at_ns - now <= spin) {
    if (!uv_is_active((uv_handle_t *)&r->spin))
      uv_idle_start(&r->spin, on_spin);
    return;
  }
  if (uv_is_active((uv_handle_t *)&r->spin))
    uv_idle_stop(&r->spin);
  timer_arm(r, at_ns - spin);
}

/* Send every copy whose release time has come, then wait for the next. */
static void drain(struct np_relay *r) {
  for (;;) {
    const struct np_relay_heap_entry *top = np_relay_heap_top(&r->heap);
    if (top == NULL) {
      if (uv_is_active((uv_handle_t *)&r->spin))
        uv_idle_stop(&r->spin);
      return;
    }
    uint64_t now = np_relay_now_ns();
    if (top->release_ns > now) {
      wait_for(r, top->release_ns, now);
      return;
    }
    struct np_relay_heap_entry e;
    np_relay_heap_pop(&r->heap, &e);
    struct np_relay_pkt *p = e.pkt;
    uv_mutex_lock(&r->mu);
    dequeue_locked(r, p);
    timing_record_locked(&r->timing, now - e.release_ns);
    uv_mutex_unlock(&r->mu);
    send_pkt(r, p);
  }
}

static void on_spin(uv_idle_t *h) { drain(h->data); }

static void on_timer(uv_poll_t *h, int status, int events) {
  struct np_relay *r = h->data;
  uint64_t expirations;
  (void)events;
  if (status == 0 && read(r->timer_fd, &expirations, sizeof(expirations)) > 0) {
    uv_mutex_lock(&r->mu);
    r->timing.timer_wakeups++;
    uv_mutex_unlock(&r->mu);
  }
  r->armed_ns = 0;
  drain(r);
}

/* ---- receiving ---- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  struct np_relay_route *rt = h->data;
  (void)suggested;
  *buf = uv_buf_init((char *)rt->relay->rbuf, sizeof(rt->relay->rbuf));
}

static void admit(struct np_relay_route *rt, unsigned dir, const void *data,
                  size_t len) {
  struct np_relay *r = rt->relay;
  struct np_relay_decision dec;
  struct np_relay_pkt *pk[2] = {NULL, NULL};
  uint64_t now = np_relay_now_ns();

  uv_mutex_lock(&r->mu);
  np_relay_decide(&rt->dir[dir], now, len, &rt->occ, &dec);
  for (unsigned i = 0; i < dec.ncopies; i++) {
    if (dec.copy[i].fate != NP_RELAY_FORWARD)
      continue;
    struct np_relay_counts *c = &rt->dir[dir].counts;
    pk[i] = malloc(sizeof(struct np_relay_pkt) + len);
    if (pk[i] == NULL ||
        np_relay_heap_push(&r->heap, dec.copy[i].release_ns, pk[i]) != 0) {
      free(pk[i]);
      pk[i] = NULL;
      rt->occ.bytes -= len;
      rt->occ.packets -= 1;
      c->send_errors++;
      continue;
    }
    pk[i]->route = rt->index;
    pk[i]->dir = dir;
    pk[i]->len = (uint32_t)len;
    memcpy(pk[i]->data, data, len);
    rt->dir_bytes[dir] += len;
    rt->dir_packets[dir] += 1;
    if (rt->dir_bytes[dir] > c->peak_queue_bytes)
      c->peak_queue_bytes = rt->dir_bytes[dir];
    if (rt->dir_packets[dir] > c->peak_queue_packets)
      c->peak_queue_packets = rt->dir_packets[dir];
    if (rt->occ.bytes > rt->peak_bytes)
      rt->peak_bytes = rt->occ.bytes;
    if (rt->occ.packets > rt->peak_packets)
      rt->peak_packets = rt->occ.packets;
  }
  uv_mutex_unlock(&r->mu);
  drain(r);
}

/* Common checks; returns 1 when the datagram should be processed. */
static int recv_ok(struct np_relay_route *rt, unsigned dir, ssize_t nread,
                   const struct sockaddr *addr, unsigned flags) {
  struct np_relay *r = rt->relay;
  struct np_relay_counts *c = &rt->dir[dir].counts;
  int ok = 0;
  uv_mutex_lock(&r->mu);
  if (nread < 0)
    c->recv_errors++;
  else if (addr == NULL)
    ; /* nothing more to read right now */
  else if (flags & UV_UDP_PARTIAL)
    c->truncated++;
  else
    ok = 1;
  uv_mutex_unlock(&r->mu);
  return ok;
}

static void count_foreign(struct np_relay_route *rt, unsigned dir) {
  uv_mutex_lock(&rt->relay->mu);
  rt->dir[dir].counts.foreign++;
  uv_mutex_unlock(&rt->relay->mu);
}

static void on_front_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
                          const struct sockaddr *addr, unsigned flags) {
  struct np_relay_route *rt = h->data;
  if (!recv_ok(rt, NP_RELAY_C2S, nread, addr, flags))
    return;
  if (!rt->client_known) {
    memcpy(&rt->client, addr, addr_len(addr));
    rt->client_known = 1;
  } else if (!addr_equal(addr, (const struct sockaddr *)&rt->client)) {
    count_foreign(rt, NP_RELAY_C2S);
    return;
  }
  admit(rt, NP_RELAY_C2S, buf->base, (size_t)nread);
}

static void on_back_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
                         const struct sockaddr *addr, unsigned flags) {
  struct np_relay_route *rt = h->data;
  if (!recv_ok(rt, NP_RELAY_S2C, nread, addr, flags))
    return;
  if (!rt->client_known ||
      !addr_equal(addr, (const struct sockaddr *)&rt->relay->server)) {
    count_foreign(rt, NP_RELAY_S2C);
    return;
  }
  admit(rt, NP_RELAY_S2C, buf->base, (size_t)nread);
}

/* ---- lifecycle ---- */

static void on_poll_closed(uv_handle_t *h) {
  struct np_relay *r = h->data;
  close(r->timer_fd);
  r->timer_fd = -1;
}

/* Close every handle and drop what is still queued (relay thread, or the
 * creating thread when the loop never ran). */
static void close_all(struct np_relay *r) {
  struct np_relay_heap_entry e;
  while (np_relay_heap_pop(&r->heap, &e) == 0) {
    struct np_relay_pkt *p = e.pkt;
    uv_mutex_lock(&r->mu);
    dequeue_locked(r, p);
    r->routes[p->route].dir[p->dir].counts.dropped_at_stop++;
    uv_mutex_unlock(&r->mu);
    free(p);
  }
  for (unsigned i = 0; i < r->nroutes; i++) {
    struct np_relay_route *rt = &r->routes[i];
    if (rt->front_init && !uv_is_closing((uv_handle_t *)&rt->front))
      uv_close((uv_handle_t *)&rt->front, NULL);
    if (rt->back_init && !uv_is_closing((uv_handle_t *)&rt->back))
      uv_close((uv_handle_t *)&rt->back, NULL);
  }
  if (r->poll_init && !uv_is_closing((uv_handle_t *)&r->timer_poll))
    uv_close((uv_handle_t *)&r->timer_poll, on_poll_closed);
  else if (!r->poll_init && r->timer_fd >= 0) {
    close(r->timer_fd);
    r->timer_fd = -1;
  }
  if (r->spin_init && !uv_is_closing((uv_handle_t *)&r->spin))
    uv_close((uv_handle_t *)&r->spin, NULL);
  if (r->async_init && !uv_is_closing((uv_handle_t *)&r->stop_async))
    uv_close((uv_handle_t *)&r->stop_async, NULL);
}

static void on_stop(uv_async_t *h) { close_all(h->data); }

static void thread_main(void *arg) {
  struct np_relay *r = arg;
  r->loop_rc = uv_run(&r->loop, UV_RUN_DEFAULT);
}

static int uv_to_np(int uverr) { return np_err_from_errno(-uverr); }

static int route_open(struct np_relay *r, struct np_relay_route *rt,
                      struct np_errbuf *eb) {
  struct sockaddr_storage lo;
  memset(&lo, 0, sizeof(lo));
  if (r->server.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&lo;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&lo;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  uv_udp_t *hs[2] = {&rt->front, &rt->back};
  int *inits[2] = {&rt->front_init, &rt->back_init};
  uv_udp_recv_cb cbs[2] = {on_front_recv, on_back_recv};
  for (int i = 0; i < 2; i++) {
    int rc = uv_udp_init(&r->loop, hs[i]);
    if (rc != 0)
      return np_errbuf_set(eb, uv_to_np(rc), "relay: udp init: %s",
                           uv_strerror(rc));
    *inits[i] = 1;
    hs[i]->data = rt;
    rc = uv_udp_bind(hs[i], (const struct sockaddr *)&lo, 0);
    if (rc != 0)
      return np_errbuf_set(eb, uv_to_np(rc), "relay: bind loopback: %s",
                           uv_strerror(rc));
    int sz = SOCKBUF_BYTES;
    uv_recv_buffer_size((uv_handle_t *)hs[i], &sz);
    sz = SOCKBUF_BYTES;
    uv_send_buffer_size((uv_handle_t *)hs[i], &sz);
    rc = uv_udp_recv_start(hs[i], on_alloc, cbs[i]);
    if (rc != 0)
      return np_errbuf_set(eb, uv_to_np(rc), "relay: recv start: %s",
                           uv_strerror(rc));
  }
  int len = sizeof(rt->front_addr);
  int rc = uv_udp_getsockname(&rt->front, (struct sockaddr *)&rt->front_addr,
                              &len);
  if (rc != 0)
    return np_errbuf_set(eb, uv_to_np(rc), "relay: getsockname: %s",
                         uv_strerror(rc));
  return 0;
}

static int relay_open(struct np_relay *r, struct np_errbuf *eb) {
  int rc = uv_loop_init(&r->loop);
  if (rc != 0)
    return np_errbuf_set(eb, NP_ELOOP, "relay: loop init: %s", uv_strerror(rc));
  r->loop_init = 1;
  r->loop.data = r;
  if ((rc = uv_async_init(&r->loop, &r->stop_async, on_stop)) != 0)
    return np_errbuf_set(eb, NP_ELOOP, "relay: async init: %s",
                         uv_strerror(rc));
  r->async_init = 1;
  r->stop_async.data = r;
  if ((rc = uv_idle_init(&r->loop, &r->spin)) != 0)
    return np_errbuf_set(eb, NP_ELOOP, "relay: idle init: %s", uv_strerror(rc));
  r->spin_init = 1;
  r->spin.data = r;
  r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (r->timer_fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "relay: timerfd: %s",
                         strerror(errno));
  if ((rc = uv_poll_init(&r->loop, &r->timer_poll, r->timer_fd)) != 0)
    return np_errbuf_set(eb, NP_ELOOP, "relay: poll init: %s", uv_strerror(rc));
  r->poll_init = 1;
  r->timer_poll.data = r;
  if ((rc = uv_poll_start(&r->timer_poll, UV_READABLE, on_timer)) != 0)
    return np_errbuf_set(eb, NP_ELOOP, "relay: poll start: %s",
                         uv_strerror(rc));
  for (unsigned i = 0; i < r->nroutes; i++)
    if ((rc = route_open(r, &r->routes[i], eb)) != 0)
      return rc;
  return 0;
}

/* Close handles, let the loop finish the closes, close the loop. */
static void relay_close(struct np_relay *r) {
  if (!r->loop_init)
    return;
  close_all(r);
  uv_run(&r->loop, UV_RUN_DEFAULT);
  uv_loop_close(&r->loop);
  r->loop_init = 0;
}

int np_relay_create(const struct np_relay_config *cfg,
                    const struct sockaddr *server, unsigned nroutes,
                    struct np_relay **out, struct np_errbuf *eb) {
  int rc = np_relay_config_validate(cfg, eb);
  if (rc != 0)
    return rc;
  if (server == NULL ||
      (server->sa_family != AF_INET && server->sa_family != AF_INET6))
    return np_errbuf_set(eb, NP_EINVAL, "relay: server address must be IPv4 or IPv6");
  if (nroutes == 0 || nroutes > NP_RELAY_MAX_ROUTES)
    return np_errbuf_set(eb, NP_ERANGE, "relay: routes must be 1..%u",
                         NP_RELAY_MAX_ROUTES);
  struct np_relay *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
  r->cfg = *cfg;
  r->timer_fd = -1;
  memcpy(&r->server, server, addr_len(server));
  np_relay_heap_init(&r->heap);
  if (uv_mutex_init(&r->mu) != 0) {
    free(r);
    return np_errbuf_set(eb, NP_ESYS, "relay: mutex init failed");
  }
  r->routes = calloc(nroutes, sizeof(*r->routes));
  if (r->routes == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
    goto free_relay;
  }
  r->nroutes = nroutes;
  for (unsigned i = 0; i < nroutes; i++) {
    struct np_relay_route *rt = &r->routes[i];
    rt->relay = r;
    rt->index = i;
    rt->occ.cap_bytes = cfg->capacity_bytes;
    rt->occ.cap_packets = cfg->capacity_packets;
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      np_relay_dir_init(&rt->dir[d], &cfg->dir[d], cfg->seed, i, d);
  }
  if ((rc = relay_open(r, eb)) != 0)
    goto close_loop;
  *out = r;
  return 0;

close_loop:
  relay_close(r);
free_relay:
  free(r->routes);
  np_relay_heap_free(&r->heap);
  uv_mutex_destroy(&r->mu);
  free(r);
  return rc;
}

int np_relay_route_addr(const struct np_relay *r, unsigned route,
                        struct sockaddr_storage *out) {
  if (r == NULL || route >= r->nroutes)
    return NP_EINVAL;
  *out = r->routes[route].front_addr;
  return 0;
}

unsigned np_relay_route_count(const struct np_relay *r) { return r->nroutes; }

int np_relay_start(struct np_relay *r, struct np_errbuf *eb) {
  if (r->started)
    return np_errbuf_set(eb, NP_EINVAL, "relay: already started");
  int rc = uv_thread_create(&r->thread, thread_main, r);
  if (rc != 0)
    return np_errbuf_set(eb, NP_ESYS, "relay: thread: %s", uv_strerror(rc));
  r->started = 1;
  return 0;
}

void np_relay_stop(struct np_relay *r) {
  if (r == NULL)
    return;
  uv_mutex_lock(&r->mu);
  if (r->started && !r->stop_sent) {
    r->stop_sent = 1;
    uv_async_send(&r->stop_async);
  }
  uv_mutex_unlock(&r->mu);
}

int np_relay_join(struct np_relay *r) {
  if (!r->started || r->joined)
    return 0;
  uv_thread_join(&r->thread);
  r->joined = 1;
  uv_loop_close(&r->loop);
  r->loop_init = 0;
  return r->loop_rc == 0 ? 0 : NP_ELOOP;
}

void np_relay_destroy(struct np_relay *r) {
  if (r == NULL)
    return;
  if (r->started) {
    np_relay_stop(r);
    np_relay_join(r);
  } else {
    relay_close(r);
  }
  free(r->routes);
  np_relay_heap_free(&r->heap);
  uv_mutex_destroy(&r->mu);
  free(r);
}
