/*
 * np_rudp_endpoint.c - lanes, sockets, timers and phases of one round
 * (see np_rudp_endpoint.h for the threading model; one connection's
 * application and datagram path live in np_rudp_conn.c, the batched
 * recvmmsg / sendmmsg calls in np_rudp_endpoint_io.c).
 *
 * IO: each socket is watched by a uv_poll handle; readable means one
 * recvmmsg of up to --batch datagrams (again while batches come back
 * full, at most RX_ROUNDS times per wake-up).  Sends queue per socket and
 * leave in sendmmsg batches at the end of every callback that may send
 * (check, timer, wake-up), so a loop iteration's acks and data share
 * system calls.
 *
 * Timers: one per lane on the earliest np_arq_deadline / np_fec_deadline
 * of its connections, plus a 100 ms sampler of the FEC retained bytes
 * during measurement and drain.  The server demultiplexes FEC datagrams
 * by the conv inside a data shard or, for parity and loss reports (which
 * carry no conv), by the client route's address pinned by its first
 * datagram.
 */
#include "np_fec.h"
#include "np_rudp_endpoint_int.h"

#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>

#define RX_ROUNDS 8 /* full batches taken per wake-up before yielding */

/* ---- loop callbacks ---------------------------------------------------- */

/* Everything the lane queued leaves now (sendmmsg per socket). */
static void lane_flush_tx(struct lane *l) {
  if (l->has_server)
    np_rudp_txq_flush(&l->server_txq, &l->io);
  for (unsigned i = 0; i < l->nconns; i++)
    if (!l->conns[i]->is_server)
      np_rudp_txq_flush(&l->conns[i]->txq, &l->io);
}

static void on_client_readable(uv_poll_t *p, int status, int events) {
  struct conn *c = p->data;
  struct lane *l = c->lane;
  if (status < 0 || !(events & UV_READABLE))
    return;
  uv_os_fd_t fd = c->txq.fd;
  for (int round = 0; round < RX_ROUNDS; round++) {
    unsigned n = np_rudp_rxb_recv(&l->rxb, fd, &l->io);
    for (unsigned i = 0; i < n; i++)
      if (np_rudp_rxb_len(&l->rxb, i) > 0)
        np_rudp__conn_input(c, np_rudp_rxb_data(&l->rxb, i),
                            np_rudp_rxb_len(&l->rxb, i));
    if (n < l->rxb.cap)
      break; /* drained; level-triggered poll wakes us for more */
  }
}

/* The server connection whose client route is addr (pinned), or NULL. */
static struct conn *server_by_addr(struct lane *l, const struct sockaddr *addr,
                                   socklen_t alen) {
  struct np_rudp_net *n = l->net;
  for (uint32_t i = 0; i < n->nsv; i++) {
    struct conn *c = &n->servers[i];
    if (c->peer_set && memcmp(&c->peer, addr, alen) == 0)
      return c;
  }
  return NULL;
}

static void server_input(struct lane *l, const uint8_t *p, ssize_t n,
                         const struct sockaddr *addr) {
  if (n <= 0 || addr == NULL)
    return;
  socklen_t alen = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                               : sizeof(struct sockaddr_in);
  uint32_t conv = 0;
  if (!(p[0] & NP_FEC_MARK))
    conv = n >= 4 ? (uint32_t)(p[2] << 8 | p[3]) : 0;
  else if (np_fec_is_data(p[0]) && n >= (ssize_t)NP_FEC_HDR_DATA + 4)
    conv = (uint32_t)(p[NP_FEC_HDR_DATA + 2] << 8 | p[NP_FEC_HDR_DATA + 3]);
  if (conv == 0 && (p[0] & NP_FEC_MARK)) { /* parity or report: by route */
    struct conn *c = server_by_addr(l, addr, alen);
    if (c == NULL)
      l->foreign++;
    else
      np_rudp__conn_input(c, p, (size_t)n);
    return;
  }
  if (conv == 0 || conv > l->net->nsv) {
    l->foreign++;
    return;
  }
  struct conn *c = &l->net->servers[conv - 1];
  if (!c->peer_set) {
    memcpy(&c->peer, addr, alen);
    c->peer_set = 1;
  } else if (memcmp(&c->peer, addr, alen) != 0) {
    l->foreign++;
    return;
  }
  np_rudp__conn_input(c, p, (size_t)n);
}

static void on_server_readable(uv_poll_t *p, int status, int events) {
  struct lane *l = p->data;
  if (status < 0 || !(events & UV_READABLE))
    return;
  for (int round = 0; round < RX_ROUNDS; round++) {
    unsigned n = np_rudp_rxb_recv(&l->rxb, l->server_txq.fd, &l->io);
    for (unsigned i = 0; i < n; i++) {
      socklen_t alen;
      const struct sockaddr *from = np_rudp_rxb_from(&l->rxb, i, &alen);
      server_input(l, np_rudp_rxb_data(&l->rxb, i),
                   (ssize_t)np_rudp_rxb_len(&l->rxb, i), from);
    }
    if (n < l->rxb.cap)
      break;
  }
}

static void arm_timer(struct lane *l);

static uint64_t conn_deadline(const struct conn *c) {
  uint64_t d = np_arq_deadline(c->arq);
  if (c->fec != NULL) {
    uint64_t f = np_fec_deadline(c->fec);
    if (f < d)
      d = f;
  }
  return d;
}

static void on_timer(uv_timer_t *t) {
  struct lane *l = t->data;
  uint64_t now = np_rudp__now_ns();
  for (unsigned i = 0; i < l->nconns; i++) {
    struct conn *c = l->conns[i];
    if (np_arq_deadline(c->arq) <= now)
      np_arq_on_timer(c->arq, now); /* may send through np_fec_send */
    if (c->fec != NULL && np_fec_deadline(c->fec) <= now)
      np_fec_on_timer(c->fec, now); /* partial-group parity, reports */
  }
  arm_timer(l);
  lane_flush_tx(l);
}

static void arm_timer(struct lane *l) {
  uint64_t d = UINT64_MAX;
  for (unsigned i = 0; i < l->nconns; i++) {
    uint64_t x = conn_deadline(l->conns[i]);
    if (x < d)
      d = x;
  }
  if (d == UINT64_MAX) {
    uv_timer_stop(&l->timer);
    return;
  }
  uint64_t now = np_rudp__now_ns();
  uint64_t ms = d > now ? (d - now + 999999) / 1000000 : 0;
  uv_timer_start(&l->timer, on_timer, ms, 0);
}

static void on_check(uv_check_t *h) {
  struct lane *l = h->data;
  uint64_t now = np_rudp__now_ns();
  for (unsigned i = 0; i < l->nconns; i++) {
    struct conn *c = l->conns[i];
    if (c->dirty) {
      c->dirty = 0;
      np_arq_flush(c->arq, now);
    }
  }
  arm_timer(l);
  lane_flush_tx(l);
}

/* Sum of the lane's FEC retained bytes, one sample per 100 ms. */
static void on_sample(uv_timer_t *t) {
  struct lane *l = t->data;
  uint64_t sum = 0;
  for (unsigned i = 0; i < l->nconns; i++) {
    struct np_fec_stats st = {0};
    np_fec_get_stats(l->conns[i]->fec, &st);
    sum += st.retained_bytes;
  }
  if (l->nretained < l->cap_retained)
    l->retained[l->nretained++] = sum;
}

static uint64_t sock_drops(uv_udp_t *u) {
  uv_os_fd_t fd;
  uint32_t mi[SK_MEMINFO_VARS];
  socklen_t len = sizeof mi;
  if (uv_fileno((uv_handle_t *)u, &fd) != 0 ||
      getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) != 0 ||
      len < sizeof(uint32_t) * (SK_MEMINFO_DROPS + 1))
    return 0;
  return mi[SK_MEMINFO_DROPS];
}

static void lane_phase(struct lane *l) {
  int ph = atomic_load(&l->net->ctl->phase);
  uint64_t now = np_rudp__now_ns();
  while (l->phase_seen < ph) {
    int next = ++l->phase_seen;
    for (unsigned i = 0; i < l->nconns; i++) {
      struct conn *c = l->conns[i];
      if (next == NP_RUDP_MEASURE) {
        if (i == 0)
          l->io_base = l->io;
        np_arq_get_stats(c->arq, &c->base);
        np_fec_reset_counters(c->fec);
        c->wire_base[0] = c->wire_bytes;
        c->wire_base[1] = c->wire_dgrams;
        c->app_base = c->app;
        c->measuring = 1;
      } else if (next == NP_RUDP_DRAIN && !c->is_server) {
        np_rudp__note_drained(c);
      } else if (next == NP_RUDP_CLOSE) {
        if (i == 0)
          l->io_end = l->io;
        np_arq_get_stats(c->arq, &c->end);
        np_fec_get_stats(c->fec, &c->fec_end);
        c->wire_end[0] = c->wire_bytes;
        c->wire_end[1] = c->wire_dgrams;
        c->app_end = c->app;
        c->measuring = 0;
        if (!c->is_server && !c->close_called) {
          c->close_called = 1;
          np_arq_close(c->arq, now);
        }
      } else if (next == NP_RUDP_STOP) {
        if (c->poll_open)
          uv_close((uv_handle_t *)&c->poll, NULL); /* before its socket */
        if (c->sock_open) {
          c->drops = sock_drops(&c->sock);
          uv_close((uv_handle_t *)&c->sock, NULL);
        }
      }
    }
    if (next == NP_RUDP_MEASURE && l->net->fec)
      uv_timer_start(&l->sampler, on_sample, 100, 100);
    if (next == NP_RUDP_CLOSE)
      uv_timer_stop(&l->sampler);
    if (next == NP_RUDP_STOP) {
      lane_flush_tx(l);
      uv_close((uv_handle_t *)&l->sampler, NULL);
      if (l->server_poll_open)
        uv_close((uv_handle_t *)&l->server_poll, NULL);
      if (l->has_server) {
        l->server_drops = sock_drops(&l->server);
        uv_close((uv_handle_t *)&l->server, NULL);
      }
      uv_close((uv_handle_t *)&l->timer, NULL);
      uv_close((uv_handle_t *)&l->check, NULL);
      uv_close((uv_handle_t *)&l->wake, NULL);
      return;
    }
  }
  arm_timer(l);
  lane_flush_tx(l);
}

static void on_wake(uv_async_t *a) {
  lane_phase(a->data);
  np_rudp__iv_handover(a->data); /* --interval: a boundary asked */
}

static void lane_main(void *arg) {
  struct lane *l = arg;
  uint64_t now = np_rudp__now_ns();
  atomic_fetch_add(&l->net->ctl->ready, 1);
  for (unsigned i = 0; i < l->nconns; i++) {
    struct conn *c = l->conns[i];
    if (c->is_server)
      continue;
    for (uint32_t w = 0; w < l->net->cfg->window; w++)
      np_rudp__client_send(c);
    np_arq_flush(c->arq, now);
    c->dirty = 0;
  }
  lane_flush_tx(l);
  lane_phase(l);
  uv_run(&l->loop, UV_RUN_DEFAULT);
}

/* ---- setup and teardown ----------------------------------------------- */

static int uv_fail(struct np_errbuf *eb, int r, const char *what) {
  return np_errbuf_set(eb, r == UV_EADDRINUSE ? NP_EADDRINUSE : NP_ESYS,
                       "%s: %s", what, uv_strerror(r));
}

static int set_buffers(uv_udp_t *u, int want, struct np_rudp_sockrep *rep) {
  int v = want, r;
  if ((r = uv_recv_buffer_size((uv_handle_t *)u, &v)) != 0)
    return r;
  v = want;
  if ((r = uv_send_buffer_size((uv_handle_t *)u, &v)) != 0)
    return r;
  rep->rcvbuf_requested = rep->sndbuf_requested = want;
  v = 0;
  (void)uv_recv_buffer_size((uv_handle_t *)u, &v);
  rep->rcvbuf_effective = v;
  v = 0;
  (void)uv_send_buffer_size((uv_handle_t *)u, &v);
  rep->sndbuf_effective = v;
  return 0;
}

/* Watch the socket of h for reading with p (h's own receive path stays
 * off, so the descriptor has one watcher); *fd is the socket. */
static int poll_socket(uv_loop_t *loop, uv_handle_t *h, uv_poll_t *p,
                       void *data, uv_poll_cb cb, uv_os_fd_t *fd) {
  int r = uv_fileno(h, fd);
  if (r == 0)
    r = uv_poll_init(loop, p, *fd);
  if (r != 0)
    return r;
  p->data = data;
  return uv_poll_start(p, UV_READABLE, cb);
}

static int conn_init(struct np_rudp_net *n, struct conn *c, struct lane *l,
                     uint32_t client, int is_server, struct np_errbuf *eb) {
  struct np_arq_config ac = n->cfg->arq;
  ac.conv = (uint16_t)(client + 1);
  struct np_arq_callbacks cb = {np_rudp__on_arq_output, np_rudp__on_deliver,
                                np_rudp__on_state, c};
  c->lane = l;
  c->client = client;
  c->is_server = is_server;
  if (np_rudp__conn_app_init(c, n->cfg) != 0)
    return np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
  int rc = np_arq_new(&ac, &cb, np_rudp__now_ns(), &c->arq, eb);
  if (rc)
    return rc;
  if (n->fec) {
    struct np_fec_callbacks fcb = {np_rudp__sock_send,
                                    np_rudp__on_fec_recovered, c,
                                    np_rudp__on_fec_parity};
    rc = np_fec_new(&n->cfg->fec_cfg, &fcb, np_rudp__now_ns(), &c->fec, eb);
    if (rc)
      return rc;
  }
  l->conns[l->nconns++] = c;
  return 0;
}

static int lane_init(struct np_rudp_net *n, struct lane *l, unsigned idx,
                     struct np_errbuf *eb) {
  l->net = n;
  l->idx = idx;
  int r = uv_loop_init(&l->loop);
  if (r)
    return uv_fail(eb, r, "uv_loop_init");
  l->loop_open = 1;
  l->loop.data = l;
  uv_async_init(&l->loop, &l->wake, on_wake);
  uv_timer_init(&l->loop, &l->timer);
  uv_check_init(&l->loop, &l->check);
  uv_check_start(&l->check, on_check);
  uv_timer_init(&l->loop, &l->sampler);
  l->wake.data = l->timer.data = l->check.data = l->sampler.data = l;
  /* measurement + drain bound (3 s) + slack, one sample per 100 ms */
  l->cap_retained = (uint32_t)(n->cfg->seconds * 10.0) + 40;
  l->retained = calloc(l->cap_retained, sizeof *l->retained);
  l->conns = calloc(2 * (size_t)n->cfg->clients, sizeof *l->conns);
  l->msgbuf = malloc(n->cfg->payload);
  l->scratch = malloc(n->cfg->payload);
  if (!l->conns || !l->msgbuf || !l->scratch || !l->retained ||
      np_rudp_rxb_init(&l->rxb, n->cfg->batch, n->cfg->arq.mtu) != 0)
    return np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
  if ((n->cfg->interval > 0 || n->cfg->live_rate) && np_rudp__iv_alloc(l) != 0)
    return np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
  return np_hist_new(1000, 60000000000ll, 3, &l->rtt);
}

/* The address family of the clients' peer (the relay, or --connect). */
static int client_family(const struct np_rudp_config *cfg) {
  if (cfg->role == NP_RUDP_ROLE_CLIENT)
    return cfg->connect_addr.ss_family;
  if (cfg->role == NP_RUDP_ROLE_SERVER)
    return cfg->listen_addr.ss_family;
  return cfg->relay_ext ? cfg->relay_addr.ss_family : AF_INET;
}

/* Lane 0's server socket at at: bound, buffered, polled, its queue. */
static int server_bind(struct np_rudp_net *n, const struct sockaddr_storage *at,
                       struct sockaddr_storage *server_addr,
                       struct np_errbuf *eb) {
  const struct np_rudp_config *cfg = n->cfg;
  struct lane *l0 = &n->lanes[0];
  uv_os_fd_t fd;
  int r, rc;
  uv_udp_init(&l0->loop, &l0->server);
  l0->has_server = 1;
  l0->server.data = l0;
  n->reps[0].server = 1;
  if ((r = uv_udp_bind(&l0->server, (const struct sockaddr *)at, 0)) != 0 ||
      (r = set_buffers(&l0->server, cfg->socket_buffer, &n->reps[0])) != 0 ||
      (r = poll_socket(&l0->loop, (uv_handle_t *)&l0->server, &l0->server_poll,
                       l0, on_server_readable, &fd)) != 0)
    return uv_fail(eb, r, "server socket");
  l0->server_poll_open = 1;
  if ((rc = np_rudp_txq_init(&l0->server_txq, fd, cfg->batch, cfg->arq.mtu,
                             1)) != 0)
    return np_errbuf_set(eb, rc, "rudp: out of memory");
  int alen = sizeof *server_addr;
  uv_udp_getsockname(&l0->server, (struct sockaddr *)server_addr, &alen);
  return 0;
}

int np_rudp_net_bind(const struct np_rudp_config *cfg, struct np_rudp_ctl *ctl,
                     uint64_t seed, const struct sockaddr *server_at,
                     struct np_rudp_net **out,
                     struct sockaddr_storage *server_addr,
                     struct np_errbuf *eb) {
  struct np_rudp_net *n = calloc(1, sizeof *n);
  int rc, r;
  if (n == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
  n->cfg = cfg;
  n->ctl = ctl;
  n->seed = seed;
  n->fec = cfg->fec != NP_RUDP_FEC_NONE;
  n->nlanes = np_rudp_config_lanes(cfg);
  n->clients = calloc(cfg->clients, sizeof *n->clients);
  n->servers = calloc(cfg->clients, sizeof *n->servers);
  n->reps = calloc(1 + (size_t)cfg->clients, sizeof *n->reps);
  if (!n->clients || !n->servers || !n->reps) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
    goto fail_net;
  }
  for (unsigned i = 0; i < n->nlanes; i++)
    if ((rc = lane_init(n, &n->lanes[i], i, eb)) != 0)
      goto fail_net;
  struct sockaddr_storage any, at;
  memset(&any, 0, sizeof any);
  if (client_family(cfg) == AF_INET6)
    uv_ip6_addr(cfg->role == NP_RUDP_ROLE_CLIENT ? "::" : "::1", 0,
                (struct sockaddr_in6 *)&any);
  else if (cfg->role == NP_RUDP_ROLE_CLIENT) /* the route to a far host */
    uv_ip4_addr("0.0.0.0", 0, (struct sockaddr_in *)&any);
  else
    uv_ip4_addr("127.0.0.1", 0, (struct sockaddr_in *)&any);
  at = any;
  if (server_at)
    memcpy(&at, server_at, np_addr_sa_len(server_at));
  if (cfg->role == NP_RUDP_ROLE_SERVER)
    memcpy(&at, &cfg->listen_addr, sizeof at);
  n->ncl = cfg->role == NP_RUDP_ROLE_SERVER ? 0 : cfg->clients;
  n->nsv = cfg->role == NP_RUDP_ROLE_CLIENT ? 0 : cfg->clients;
  if (n->nsv && (rc = server_bind(n, &at, server_addr, eb)) != 0)
    goto fail_net;
  for (uint32_t i = 0; i < cfg->clients; i++) {
    /* server i before client i: the lane's order of old */
    if (n->nsv &&
        (rc = conn_init(n, &n->servers[i], &n->lanes[0], i, 1, eb)) != 0)
      goto fail_net;
    if (n->ncl == 0)
      continue;
    struct lane *l = &n->lanes[i % n->nlanes];
    struct conn *c = &n->clients[i];
    if ((rc = conn_init(n, c, l, i, 0, eb)) != 0)
      goto fail_net;
    uv_udp_init(&l->loop, &c->sock);
    c->sock_open = 1;
    c->sock.data = c;
    n->reps[1 + i].index = i;
    n->reps[1 + i].lane = l->idx;
    if ((r = uv_udp_bind(&c->sock, (const struct sockaddr *)&any, 0)) != 0 ||
        (r = set_buffers(&c->sock, cfg->socket_buffer, &n->reps[1 + i])) != 0) {
      rc = uv_fail(eb, r, "client socket");
      goto fail_net;
    }
  }
  *out = n;
  return 0;
fail_net:
  np_rudp_net_free(n);
  return rc;
}

int np_rudp_net_start(struct np_rudp_net *n, const struct np_relay *relay,
                      struct np_errbuf *eb) {
  int r;
  for (uint32_t i = 0; i < n->ncl; i++) {
    struct conn *c = &n->clients[i];
    struct sockaddr_storage ra;
    int rc = relay ? np_relay_route_addr(relay, i, &ra) : 0;
    if (rc)
      return np_errbuf_set(eb, rc, "relay route %u: no address", i);
    if (relay == NULL)
      ra = n->cfg->role == NP_RUDP_ROLE_CLIENT ? n->cfg->connect_addr
                                                : n->cfg->relay_addr;
    uv_os_fd_t fd;
    int alen = sizeof c->self;
    if ((r = uv_udp_connect(&c->sock, (const struct sockaddr *)&ra)) != 0 ||
        (r = uv_udp_getsockname(&c->sock, (struct sockaddr *)&c->self,
                                &alen)) != 0 ||
        (r = poll_socket(&c->lane->loop, (uv_handle_t *)&c->sock, &c->poll, c,
                         on_client_readable, &fd)) != 0)
      return uv_fail(eb, r, "client socket");
    c->poll_open = 1;
    if ((rc = np_rudp_txq_init(&c->txq, fd, n->cfg->batch, n->cfg->arq.mtu,
                               0)) != 0)
      return np_errbuf_set(eb, rc, "rudp: out of memory");
  }
  for (unsigned i = 0; i < n->nlanes; i++) {
    struct lane *l = &n->lanes[i];
    if ((r = uv_thread_create(&l->th, lane_main, l)) != 0)
      return uv_fail(eb, r, "uv_thread_create");
    l->th_started = 1;
  }
  return 0;
}

int np_rudp_net_client_addr(const struct np_rudp_net *n, uint32_t i,
                            struct sockaddr_storage *out) {
  if (i >= n->ncl || n->clients[i].self.ss_family == 0)
    return NP_EINVAL;
  *out = n->clients[i].self;
  return 0;
}

void np_rudp_net_wake(struct np_rudp_net *n) {
  for (unsigned i = 0; i < n->nlanes; i++)
    uv_async_send(&n->lanes[i].wake);
}

uint32_t np_rudp_net_conns(const struct np_rudp_net *n) {
  return n->ncl + n->nsv;
}

static void sockrep_fill(struct np_rudp_net *n, struct np_rudp_round *r) {
  /* the server's row only when this process has the server socket */
  uint32_t first = n->nsv ? 0 : 1;
  r->nsocks = 0;
  r->socks = calloc(1 + (size_t)n->ncl, sizeof *r->socks);
  if (r->socks == NULL)
    return;
  memcpy(r->socks, n->reps + first,
         (1 - first + (size_t)n->ncl) * sizeof *r->socks);
  r->nsocks = 1 - first + n->ncl;
  if (n->nsv)
    r->socks[0].drops = n->lanes[0].server_drops;
  for (uint32_t i = 0; i < n->ncl; i++)
    r->socks[1 - first + i].drops = n->clients[i].drops;
}

/* Lane samples summed by index (lanes start sampling at the same phase
 * change, so index k is about k x 100 ms after measurement start). */
static void retained_merge(struct np_rudp_net *n, struct np_rudp_round *r) {
  uint32_t len = 0;
  for (unsigned i = 0; i < n->nlanes; i++)
    if (n->lanes[i].nretained > len)
      len = n->lanes[i].nretained;
  r->fec_nretained = 0;
  if (len == 0 || (r->fec_retained = calloc(len, sizeof(uint64_t))) == NULL)
    return;
  for (unsigned i = 0; i < n->nlanes; i++)
    for (uint32_t k = 0; k < n->lanes[i].nretained; k++)
      r->fec_retained[k] += n->lanes[i].retained[k];
  r->fec_nretained = len;
}

int np_rudp_net_join(struct np_rudp_net *n, struct np_rudp_round *r) {
  for (unsigned i = 0; i < n->nlanes; i++)
    if (n->lanes[i].th_started) {
      uv_thread_join(&n->lanes[i].th);
      n->lanes[i].th_started = 0;
    }
  int rc = np_hist_new(1000, 60000000000ll, 3, &r->rtt_ns);
  if (rc)
    return rc;
  for (unsigned i = 0; i < n->nlanes; i++) {
    (void)np_hist_merge(r->rtt_ns, n->lanes[i].rtt);
    r->socket_send_errors += n->lanes[i].send_errors + n->lanes[i].io.send_failed;
    r->foreign += n->lanes[i].foreign;
    np_rudp_io_add_delta(&r->io, &n->lanes[i].io_end, &n->lanes[i].io_base);
    np_rudp_io_add_delta(&r->io_total, &n->lanes[i].io,
                         &(struct np_rudp_io_stats){0});
  }
  retained_merge(n, r);
  unsigned nf[2] = {0, 0};
  r->conns = n->ncl + n->nsv;
  for (uint32_t i = 0; i < r->conns; i++) {
    struct conn *c = i < n->ncl ? &n->clients[i] : &n->servers[i - n->ncl];
    struct np_rudp_app w;
    struct np_arq_stats fin, zero;
    memset(&zero, 0, sizeof zero);
    np_rudp_app_sub(&w, &c->app_end, &c->app_base);
    np_rudp_app_add(&r->app, &w);
    np_rudp_app_add(&r->total, &c->app);
    np_rudp_arq_add_delta(c->is_server ? &r->arq_server : &r->arq_client,
                          &c->end, &c->base);
    np_arq_get_stats(c->arq, &fin);
    np_rudp_arq_add_delta(&r->arq_total, &fin, &zero);
    r->wire_bytes += c->wire_end[0] - c->wire_base[0];
    r->wire_datagrams += c->wire_end[1] - c->wire_base[1];
    if (c->fec != NULL)
      np_rudp_fec_add(c->is_server ? &r->fec_server : &r->fec_client,
                      &c->fec_end, &nf[c->is_server]);
    enum np_arq_state st = np_arq_get_state(c->arq);
    r->conns_closed += st == NP_ARQ_CLOSED;
    r->conns_failed += st == NP_ARQ_FAILED;
    r->conns_unacked += !np_arq_all_acked(c->arq);
  }
  sockrep_fill(n, r);
  return 0;
}

static void close_if_open(uv_handle_t *h) {
  if (!uv_is_closing(h))
    uv_close(h, NULL);
}

void np_rudp_net_free(struct np_rudp_net *n) {
  if (n == NULL)
    return;
  for (unsigned i = 0; i < n->nlanes; i++) {
    struct lane *l = &n->lanes[i];
    if (l->th_started) { /* never joined: stop it first */
      atomic_store(&n->ctl->phase, NP_RUDP_STOP);
      uv_async_send(&l->wake);
      uv_thread_join(&l->th);
      l->th_started = 0;
    }
  }
  for (uint32_t i = 0; n->clients && i < n->ncl; i++) {
    if (n->clients[i].poll_open && n->clients[i].lane)
      close_if_open((uv_handle_t *)&n->clients[i].poll);
    if (n->clients[i].sock_open && n->clients[i].lane)
      close_if_open((uv_handle_t *)&n->clients[i].sock);
  }
  for (unsigned i = 0; i < n->nlanes; i++) {
    struct lane *l = &n->lanes[i];
    if (!l->loop_open)
      continue;
    if (l->server_poll_open)
      close_if_open((uv_handle_t *)&l->server_poll);
    if (l->has_server)
      close_if_open((uv_handle_t *)&l->server);
    close_if_open((uv_handle_t *)&l->timer);
    close_if_open((uv_handle_t *)&l->check);
    close_if_open((uv_handle_t *)&l->sampler);
    close_if_open((uv_handle_t *)&l->wake);
    uv_run(&l->loop, UV_RUN_DEFAULT);
    uv_loop_close(&l->loop);
    np_hist_free(l->rtt);
    np_rudp__iv_free(l);
    free(l->conns);
    free(l->msgbuf);
    free(l->scratch);
    free(l->retained);
    np_rudp_rxb_free(&l->rxb);
    np_rudp_txq_free(&l->server_txq);
  }
  for (uint32_t i = 0; n->clients && i < n->ncl; i++) {
    np_arq_free(n->clients[i].arq);
    np_fec_free(n->clients[i].fec);
    np_rudp__conn_app_free(&n->clients[i]);
    np_rudp_txq_free(&n->clients[i].txq);
  }
  for (uint32_t i = 0; n->servers && i < n->nsv; i++) {
    np_arq_free(n->servers[i].arq);
    np_fec_free(n->servers[i].fec);
    np_rudp__conn_app_free(&n->servers[i]);
  }
  free(n->clients);
  free(n->servers);
  free(n->reps);
  free(n);
}
