/*
 * np_udp_run.c - set-up, threads and phases of one UDP echo run.
 *
 * The calling thread is the controller: it opens every socket, starts one
 * thread per lane, then walks the phases
 *     [warm-up -> warm-up drain ->] measurement -> drain -> stop
 * publishing each in eng->phase and waking every lane.  Between phases it
 * sleeps on the shared controller's signalfd (bench/core/np_bench_ctl.h),
 * so SIGINT/SIGTERM end the current phase without a signal handler or
 * global flag.  Drains end when every lane has
 * acknowledged the phase and every outstanding message is answered or was
 * dropped by the kernel, or when no reply came for 200 ms + 2 x the
 * largest RTT seen, capped at 1 s (100 ms when interrupted); what is still
 * outstanding then is lost (see ctl_drain).
 * Kernel snapshots (the controller's one policy: a failed snapshot fails
 * the run), per-socket drop counters and rusage are taken at the start of
 * measurement and at the end of its drain.
 * The same engine runs one end alone (cfg->mode): `--connect` opens only
 * the clients, connected to the target, and reads the target's sockets in
 * /proc at the two boundaries (np_udp_target.c); `serve` opens only the
 * server sockets on --listen's address and serves in one phase until a
 * signal or --max-seconds, then stops the lanes before the last readings.
 * The connected model opens, after each client, that client's own server
 * socket: bound to the shared port (SO_REUSEPORT) and connected to it, in
 * its lane; each lane also has one unconnected socket of the group.  With
 * --count-syscalls the lanes' system calls (the transports count them) and
 * context switches are read at the same two boundaries (np_udp_syscount.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_udp_engine.h"
#include "np_udp_lanecpu.h"
#include "np_udp_syscount.h"
#include "np_udp_target.h"

void np_udp_counters_note_errno(struct np_udp_counters *c, int errnum,
                                uint64_t n) {
  for (int i = 0; i < NP_UDP_MAX_ERRNOS; i++) {
    if (c->errno_counts[i] == 0 || c->errnos[i] == errnum ||
        i == NP_UDP_MAX_ERRNOS - 1) {
      c->errnos[i] = errnum;
      c->errno_counts[i] += n;
      return;
    }
  }
}

void np_udp_counters_add(struct np_udp_counters *d,
                         const struct np_udp_counters *s) {
  d->sent += s->sent;
  d->server_received += s->server_received;
  d->server_replied += s->server_replied;
  d->received += s->received;
  d->content_errors += s->content_errors;
  d->sequence_errors += s->sequence_errors;
  d->send_errors += s->send_errors;
  d->server_send_errors += s->server_send_errors;
  d->truncated += s->truncated;
  d->cross_thread += s->cross_thread;
  d->duplicates += s->duplicates;
  d->reordered += s->reordered;
  d->stale += s->stale;
  d->wrong_length += s->wrong_length;
  d->corrupted += s->corrupted;
  d->scheduled += s->scheduled;
  d->dropped_by_client += s->dropped_by_client;
  d->late_sends += s->late_sends;
  d->expired += s->expired;
  d->timed_out += s->timed_out;
  d->late += s->late;
  d->timeout_wait_ns += s->timeout_wait_ns;
  if (s->late_max_ns > d->late_max_ns)
    d->late_max_ns = s->late_max_ns;
  for (int i = 0; i < NP_UDP_MAX_ERRNOS; i++)
    if (s->errno_counts[i])
      np_udp_counters_note_errno(d, s->errnos[i], s->errno_counts[i]);
}

static double now_s(void) { return (double)np_udp_now_ns() / 1e9; }

/* ---- set-up ---- */

/* cfg's address (or, with any, the family's wildcard) and port. */
static int make_addr(const struct np_udp_config *cfg, int any, uint16_t port,
                     struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (cfg->family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    if (!any && inet_pton(AF_INET6, cfg->address, &a->sin6_addr) != 1)
      return NP_EINVAL;
    *len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    if (!any && inet_pton(AF_INET, cfg->address, &a->sin_addr) != 1)
      return NP_EINVAL;
    *len = sizeof *a;
  }
  return 0;
}

/* Entries of a --connect client's answered ring: a power of two >= 2 x
 * window, at least 64. */
static uint64_t answered_entries(uint32_t window) {
  uint64_t n = 64;
  while (n < 2 * (uint64_t)window)
    n *= 2;
  return n;
}

static int client_alloc(struct np_udp_engine *eng, struct np_udp_client *cl) {
  const struct np_udp_config *cfg = eng->cfg;
  unsigned bits = np_udp_msg_seq_bits(cfg->payload);
  uint32_t inflight = np_udp_config_inflight(cfg);
  cl->ring_len = inflight;
  /* --connect: room for replies a path holds back (reordering) before a
   * slot is needed again and its message given up (np_udp_timeout.c):
   * closed loop 4 x the window, at least 256; open loop 2 x
   * --max-outstanding; as far as the sequence bits tell them apart */
  if (cfg->mode == NP_UDP_MODE_CLIENT) {
    uint64_t want = (cfg->rate > 0 ? 2 : 4) * (uint64_t)inflight;
    if (cfg->rate <= 0 && want < 256)
      want = 256;
    while (want > inflight && bits < 64 && want > ((uint64_t)1 << bits))
      want /= 2;
    cl->ring_len = want > inflight ? (uint32_t)want : inflight;
  }
  cl->ring = calloc(cl->ring_len, sizeof *cl->ring);
  cl->txbufs = malloc((size_t)eng->tx_batch * cfg->payload);
  cl->tx = calloc(eng->tx_batch, sizeof *cl->tx);
  if (!cl->ring || !cl->txbufs || !cl->tx)
    return NP_ENOMEM;
  if (cfg->mode == NP_UDP_MODE_CLIENT) {
    uint64_t n = answered_entries(cl->ring_len);
    cl->answered_mask = n - 1;
    if ((cl->answered = calloc(n, sizeof *cl->answered)) == NULL)
      return NP_ENOMEM;
  }
  if (cfg->rate > 0 && np_udp_open_alloc(eng, cl) != 0)
    return NP_ENOMEM;
  if (np_udp_timeout_alloc(eng, cl) != 0)
    return NP_ENOMEM;
  return np_udp_msg_gen_init(&cl->gen, cfg->seed, cl->id, cfg->payload);
}

static void engine_free(struct np_udp_engine *eng) {
  for (uint32_t i = 0; i < eng->nservers && eng->servers; i++) {
    eng->tp->sock_close(eng->servers[i].sock);
    free(eng->servers[i].tx);
  }
  for (uint32_t i = 0; i < eng->nclients && eng->clients; i++) {
    struct np_udp_client *cl = &eng->clients[i];
    eng->tp->sock_close(cl->sock);
    free(cl->answered);
    free(cl->gone);
    free(cl->ring);
    free(cl->txbufs);
    free(cl->tx);
    free(cl->due);
    np_udp_msg_gen_free(&cl->gen);
  }
  for (uint32_t i = 0; i < eng->nlanes && eng->lanes; i++) {
    eng->tp->loop_free(eng->lanes[i].loop);
    np_hist_free(eng->lanes[i].hist);
    np_hist_free(eng->lanes[i].to_hist);
    np_hist_free(eng->lanes[i].service);
    np_hist_free(eng->lanes[i].send_lag);
    np_udp_interval_free(&eng->lanes[i]);
    free(eng->lanes[i].clients);
  }
  free(eng->servers);
  free(eng->clients);
  free(eng->lanes);
}

/* uring: a send the transport had accepted failed later.  Counted as
 * the other backends count a refused send: not sent (or not replied),
 * one send error under its errno.  A client's message stays in its window
 * slot (the client learnt too late), so the drain ends at its bound. */
static void server_send_failed(void *ctx, int errnum) {
  struct np_udp_server *sv = ctx;
  struct np_udp_lane *l = sv->lane;
  int ph = atomic_load_explicit(&l->eng->phase, memory_order_acquire);
  struct np_udp_counters *c = &l->ctr[NP_UDP_SET(ph)];
  if (c->server_replied > 0)
    c->server_replied--;
  c->server_send_errors++;
  np_udp_counters_note_errno(c, errnum, 1);
}

static void client_send_failed(void *ctx, int errnum) {
  struct np_udp_client *cl = ctx;
  struct np_udp_counters *c = &cl->lane->ctr[NP_UDP_SET(cl->lane->seen_phase)];
  if (c->sent > 0)
    c->sent--;
  c->send_errors++;
  np_udp_counters_note_errno(c, errnum, 1);
}

/* Server socket i on lane, bound to srv; connected to peer when given
 * (the connected model's per-client sockets). */
static int open_server(struct np_udp_engine *eng, uint32_t i,
                       struct np_udp_lane *lane,
                       const struct sockaddr_storage *srv, socklen_t srvlen,
                       const struct sockaddr_storage *peer, socklen_t peerlen,
                       struct np_errbuf *eb) {
  const struct np_udp_config *cfg = eng->cfg;
  struct np_udp_server *sv = &eng->servers[i];
  sv->index = i;
  sv->lane = lane;
  struct np_udp_sock_opts o = {0};
  o.bind_addr = *srv;
  o.bind_len = srvlen;
  if (peer) {
    o.peer = *peer;
    o.peer_len = peerlen;
  }
  o.reuseport = cfg->io_model == NP_UDP_IO_REUSEPORT ||
                cfg->io_model == NP_UDP_IO_CONNECTED;
  o.rcvbuf = cfg->server_receive_buffer;
  o.sndbuf = cfg->send_buffer;
  /* a connected socket holds one client's window at most */
  o.rx_batch = peer ? eng->rx_batch_client : eng->rx_batch_server;
  o.max_payload = cfg->payload; /* serve: the largest UDP payload */
  o.rxq_ovfl = peer == NULL; /* cross-check where a msghdr receive reads it */
  o.on_recv = np_udp_server_on_recv;
  o.on_send_fail = server_send_failed;
  o.ctx = sv;
  sv->tx = calloc(o.rx_batch, sizeof *sv->tx);
  if (!sv->tx)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  return eng->tp->sock_open(lane->loop, &o, &sv->sock, eb);
}

static int open_client(struct np_udp_engine *eng, struct np_udp_client *cl,
                       const struct sockaddr_storage *srv, socklen_t srvlen,
                       struct np_errbuf *eb) {
  const struct np_udp_config *cfg = eng->cfg;
  if (client_alloc(eng, cl))
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  struct np_udp_sock_opts o = {0};
  /* --connect: the wildcard, so the kernel picks the route's source */
  make_addr(cfg, cfg->mode == NP_UDP_MODE_CLIENT, 0, &o.bind_addr,
            &o.bind_len);
  o.peer = *srv;
  o.peer_len = srvlen;
  o.rcvbuf = cfg->receive_buffer;
  o.sndbuf = cfg->send_buffer;
  o.rx_batch = eng->rx_batch_client;
  o.max_payload = cfg->payload;
  o.on_recv = np_udp_client_on_recv;
  o.on_send_fail = client_send_failed;
  o.ctx = cl;
  return eng->tp->sock_open(cl->lane->loop, &o, &cl->sock, eb);
}

static int engine_setup(struct np_udp_engine *eng, struct np_errbuf *eb) {
  const struct np_udp_config *cfg = eng->cfg;
  int rc;
  struct np_udp_layout lay;
  np_udp_layout_of(cfg, &lay);
  eng->nlanes = lay.lanes;
  eng->nservers = lay.servers;
  eng->nclients = lay.clients;
  eng->rx_batch_server = lay.rx_batch_server;
  eng->tx_batch = lay.tx_batch;
  eng->rx_batch_client = lay.rx_batch_client;
  eng->steered = lay.steered;
  eng->lanes = calloc(eng->nlanes, sizeof *eng->lanes);
  eng->servers = calloc(eng->nservers + 1, sizeof *eng->servers);
  eng->clients = calloc(eng->nclients + 1, sizeof *eng->clients);
  if (!eng->lanes || !eng->servers || !eng->clients)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    struct np_udp_lane *l = &eng->lanes[i];
    l->index = i;
    l->eng = eng;
    l->clients = calloc(eng->nclients + 1, sizeof *l->clients);
    if (!l->clients)
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    rc = np_hist_new(1, 60000000000LL, 3, &l->hist);
    if (rc == 0 && cfg->rate > 0 &&
        (rc = np_hist_new(1, 60000000000LL, 3, &l->service)) == 0)
      rc = np_hist_new(1, 60000000000LL, 3, &l->send_lag);
    if (rc == 0)
      rc = np_udp_timeout_lane_init(l);
    if (rc)
      return np_errbuf_set(eb, rc, "histogram: %s", np_strerror(rc));
    atomic_init(&l->next_due_pub, INT64_MAX);
    if ((cfg->interval > 0 || eng->live) && np_udp_interval_alloc(l) != 0)
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    rc = eng->tp->loop_new(np_udp_lane_on_wake, l, &l->loop, eb);
    if (rc)
      return rc;
  }
  /* servers: the first binds port 0 (serve: --listen's port), the others
   * (reuseport, connected: one per lane) join its port; --connect's
   * clients talk to the target */
  struct sockaddr_storage srv;
  socklen_t srvlen;
  if (make_addr(cfg, 0, cfg->mode == NP_UDP_MODE_LOOPBACK ? 0 : cfg->port,
                &srv, &srvlen))
    return np_errbuf_set(eb, NP_EINVAL, "bad address %s", cfg->address);
  uint32_t nlistening = cfg->io_model == NP_UDP_IO_CONNECTED
                            ? eng->nlanes
                            : eng->nservers;
  for (uint32_t i = 0; i < nlistening; i++) {
    struct np_udp_lane *lane = &eng->lanes[nlistening > 1 ? i : 0];
    if ((rc = open_server(eng, i, lane, &srv, srvlen, NULL, 0, eb)) != 0)
      return rc;
    lane->server = &eng->servers[i];
    if (i == 0) {
      srvlen = sizeof srv;
      if (getsockname(eng->tp->sock_fd(eng->servers[0].sock),
                      (struct sockaddr *)&srv, &srvlen))
        return np_errbuf_set(eb, np_err_from_errno(errno), "getsockname: %s",
                             strerror(errno));
      eng->bound_port = ntohs(srv.ss_family == AF_INET6
                                  ? ((struct sockaddr_in6 *)&srv)->sin6_port
                                  : ((struct sockaddr_in *)&srv)->sin_port);
    }
  }
  /* reuseport: steer each client's requests to its own lane's server
   * socket (client id low byte mod lanes) instead of the kernel's flow
   * hash, which would send about half of them across threads
   * (np_udp_layout_of decided whether) */
  if (eng->steered) {
    rc = np_udp_sock_steer_reuseport(eng->tp->sock_fd(eng->servers[0].sock),
                                     eng->nlanes);
    if (rc)
      return np_errbuf_set(eb, rc, "SO_ATTACH_REUSEPORT_CBPF: %s",
                           np_strerror(rc));
  }
  for (uint32_t i = 0; i < eng->nclients; i++) {
    struct np_udp_client *cl = &eng->clients[i];
    uint32_t lane = 0;
    if (cfg->io_model == NP_UDP_IO_SPLIT)
      lane = 1;
    else if (eng->steered)
      lane = (i & 0xFF) % eng->nlanes;
    else if (cfg->io_model != NP_UDP_IO_SINGLE)
      lane = i % eng->nlanes;
    cl->id = i;
    cl->lane = &eng->lanes[lane];
    cl->lane->clients[cl->lane->nclients++] = cl;
    if ((rc = open_client(eng, cl, &srv, srvlen, eb)) != 0)
      return rc;
    if (cfg->io_model != NP_UDP_IO_CONNECTED)
      continue;
    /* the client's own server socket: the port's SO_REUSEPORT group,
     * connected to the client, so the kernel's lookup (an exact 4-tuple
     * scores above the group) hands it all of that client's requests */
    struct sockaddr_storage peer;
    socklen_t peerlen = sizeof peer;
    if (getsockname(eng->tp->sock_fd(cl->sock), (struct sockaddr *)&peer,
                    &peerlen))
      return np_errbuf_set(eb, np_err_from_errno(errno), "getsockname: %s",
                           strerror(errno));
    if ((rc = open_server(eng, nlistening + i, cl->lane, &srv, srvlen, &peer,
                          peerlen, eb)) != 0)
      return rc;
  }
  return 0;
}

/* ---- controller ---- */

struct ctl {
  struct np_udp_engine *eng; /* the engine the phases drive     */
  struct np_bench_ctl *bc;   /* signals, sleeps, snapshots      */
};

static void *lane_main(void *arg) {
  struct np_udp_lane *l = arg;
  l->run_rc = l->eng->tp->loop_run(l->loop);
  return NULL;
}

static void ctl_set_phase(struct ctl *c, int ph) {
  atomic_store_explicit(&c->eng->phase, ph, memory_order_release);
  for (uint32_t i = 0; i < c->eng->nlanes; i++)
    c->eng->tp->loop_wake(c->eng->lanes[i].loop);
}

/* Wait (at most 5 s, or until a signal) until every lane has taken up
 * phase ph, so a phase's clock starts when its lanes do: a thread that the
 * scheduler starts late would otherwise miss a short warm-up entirely and
 * shorten the measurement it is timed for. */
static void ctl_wait_ack(struct ctl *c, int ph) {
  double t0 = now_s();
  for (uint32_t i = 0; i < c->eng->nlanes; i++)
    while (atomic_load_explicit(&c->eng->lanes[i].ack_phase,
                                memory_order_acquire) < ph &&
           now_s() - t0 < 5.0 && !np_bench_ctl_signal(c->bc))
      np_bench_ctl_poll(c->bc, 1);
}

static double ctl_drain_bound(struct ctl *c) {
  int64_t maxrtt = 0;
  for (uint32_t i = 0; i < c->eng->nlanes; i++) {
    int64_t r = atomic_load_explicit(&c->eng->lanes[i].max_rtt_pub,
                                     memory_order_relaxed);
    if (r > maxrtt)
      maxrtt = r;
  }
  double b = 0.2 + 2.0 * (double)maxrtt / 1e9;
  return b > 1.0 ? 1.0 : b;
}

int64_t np_udp_drops_since(struct np_udp_engine *eng,
                           const struct np_udp_result *res) {
  uint64_t sum = 0;
  for (uint32_t k = 0; k < res->nsocks; k++) {
    const struct np_udp_sock *s = k < eng->nservers
                                      ? eng->servers[k].sock
                                      : eng->clients[k - eng->nservers].sock;
    uint64_t d = 0;
    if (np_udp_sock_drops(eng->tp->sock_fd(s), &d) == 0)
      sum += d - res->socks[k].drops_before;
  }
  return (int64_t)sum;
}

/* Wait for the replies still outstanding after phase ph began.
 * Done when every lane has acknowledged ph and each outstanding message is
 * either answered or was dropped by the kernel (when res is given, the
 * per-socket drops since the measurement started are compared with the
 * outstanding count: a dropped datagram never comes back).  Otherwise it
 * gives up when nothing came back for `bound` = 200 ms + 2 x the largest
 * RTT (cap 1 s; 100 ms once a signal came), counted from when every lane
 * acknowledged, and in any case 10 s after that (5 s if a lane never
 * acknowledges).  Returns 1 when done, 0 at a bound; *took is the wait. */
static int ctl_drain(struct ctl *c, int ph, const struct np_udp_result *res,
                     double *took, double *bound_out) {
  struct np_udp_engine *eng = c->eng;
  double t_set = now_s(), t0 = -1, t_progress = 0, bound = 0;
  int64_t last_total = -1;
  int done = 0;
  for (unsigned iter = 0;; iter++) {
    int acked = 1;
    int64_t total = 0;
    for (uint32_t i = 0; i < eng->nlanes; i++) {
      struct np_udp_lane *l = &eng->lanes[i];
      if (atomic_load_explicit(&l->ack_phase, memory_order_acquire) < ph)
        acked = 0;
      total += atomic_load_explicit(&l->outstanding_pub, memory_order_acquire);
    }
    double now = now_s();
    if (acked && t0 < 0)
      t0 = t_progress = now;
    if (total != last_total) {
      last_total = total;
      t_progress = now;
    }
    if (acked) {
      int64_t dropped = 0;
      if (total > 0 && res && (res->nsocks <= 64 || iter % 10 == 0))
        dropped = np_udp_drops_since(eng, res);
      if (total == 0 || (res && total <= dropped)) {
        done = 1;
        break;
      }
      bound = ctl_drain_bound(c);
      if (np_bench_ctl_signal(c->bc) && bound > 0.1)
        bound = 0.1;
      if (now - t_progress >= bound || now - t0 >= 10.0)
        break;
    } else if (now - t_set >= 5.0) {
      break; /* a lane never acknowledged */
    }
    np_bench_ctl_poll(c->bc, 1);
  }
  *took = now_s() - t_set;
  if (bound_out)
    *bound_out = bound;
  return done;
}

static int snap_socks(struct np_udp_engine *eng, struct np_udp_result *res,
                      int after) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < eng->nservers + eng->nclients; i++, k++) {
    struct np_udp_sock *s = i < eng->nservers
                                ? eng->servers[i].sock
                                : eng->clients[i - eng->nservers].sock;
    uint64_t d = 0;
    int rc = np_udp_sock_drops(eng->tp->sock_fd(s), &d);
    if (rc)
      return rc;
    if (after) {
      res->socks[k].drops_after = d;
      res->socks[k].rxq_ovfl_last = eng->tp->sock_rxq_ovfl(s);
    } else {
      res->socks[k].drops_before = d;
    }
  }
  return 0;
}

/* --count-syscalls: the lanes' system calls and context switches now (the
 * lanes wait between phases, so the reading is not part of either). */
static int snap_sys(struct np_udp_engine *eng, struct np_udp_syscount *sc) {
  if (!eng->cfg->count_syscalls)
    return 0;
  sc->syscalls = 0;
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    int64_t v = eng->tp->loop_syscalls(eng->lanes[i].loop);
    if (v < 0) {
      sc->syscalls = -1;
      break;
    }
    sc->syscalls += v;
  }
  return np_udp_syscount_ctxsw(&sc->voluntary, &sc->involuntary);
}

static int fill_sock_reports(struct np_udp_engine *eng,
                             struct np_udp_result *res) {
  const struct np_udp_config *cfg = eng->cfg;
  res->nsocks = eng->nservers + eng->nclients;
  res->socks = calloc(res->nsocks, sizeof *res->socks);
  if (!res->socks)
    return NP_ENOMEM;
  for (uint32_t i = 0; i < res->nsocks; i++) {
    struct np_udp_sock_report *r = &res->socks[i];
    const struct np_udp_sock *s;
    if (i < eng->nservers) {
      r->role = NP_UDP_ROLE_SERVER;
      r->index = i;
      r->lane = eng->servers[i].lane->index;
      r->rcvbuf_requested = cfg->server_receive_buffer;
      s = eng->servers[i].sock;
    } else {
      r->role = NP_UDP_ROLE_CLIENT;
      r->index = i - eng->nservers;
      r->lane = eng->clients[r->index].lane->index;
      r->rcvbuf_requested = cfg->receive_buffer;
      s = eng->clients[r->index].sock;
    }
    r->sndbuf_requested = cfg->send_buffer;
    int rc = np_udp_sock_buffers(eng->tp->sock_fd(s), &r->rcvbuf_effective,
                                 &r->sndbuf_effective);
    if (rc)
      return rc;
    r->rxq_ovfl_last = eng->tp->sock_rxq_ovfl(s); /* 0 or -1: read or not */
  }
  return 0;
}

/* The phases; the engine's threads are running. */
static int run_phases(struct ctl *c, struct np_udp_result *res,
                      struct np_errbuf *eb) {
  const struct np_udp_config *cfg = c->eng->cfg;
  struct np_bench_cpu cpu0;
  double took;
  int rc;
  if (cfg->warmup > 0) {
    ctl_set_phase(c, NP_UDP_PH_WARMUP);
    ctl_wait_ack(c, NP_UDP_PH_WARMUP);
    res->warmup_seconds = np_bench_ctl_sleep(c->bc, cfg->warmup);
    ctl_set_phase(c, NP_UDP_PH_WARMUP_DRAIN);
    ctl_drain(c, NP_UDP_PH_WARMUP_DRAIN, NULL, &took, NULL);
  }
  if ((rc = np_bench_ctl_snapshot(c->bc, &res->run, NP_BENCH_SNAP_BEFORE,
                                  eb)) != 0)
    return rc;
  if ((rc = snap_socks(c->eng, res, 0)) != 0)
    return np_errbuf_set(eb, rc, "socket drops: %s", np_strerror(rc));
  if ((rc = snap_sys(c->eng, 0 ? &res->sys_after : &res->sys_before)) != 0)
    return np_errbuf_set(eb, rc, "/proc/self/task/*/status: %s",
                         np_strerror(rc));
  if (res->target && (rc = np_udp_target_snap(res->target, 0, eb)) != 0)
    return rc;
  np_bench_cpu_now(&cpu0);
  if (cfg->mode == NP_UDP_MODE_CLIENT &&
      (rc = np_udp_lanecpu_snap(&res->lanecpu, c->eng, 0)) != 0)
    return np_errbuf_set(eb, rc, "lane CPU clocks: %s", np_strerror(rc));
  /* an interrupted warm-up skips the measurement (the sleep returns) */
  if (!np_bench_ctl_signal(c->bc)) {
    ctl_set_phase(c, NP_UDP_PH_MEASURE);
    ctl_wait_ack(c, NP_UDP_PH_MEASURE);
  }
  struct np_udp_iv_ctx iv = {.eng = c->eng, .res = res};
  if ((cfg->interval > 0 &&
       (rc = np_bench_interval_init(&res->intervals, cfg->interval,
                                    cfg->seconds, "netproof-bench udp",
                                    NP_UDP_IV_LOST_RULE, cfg->quiet)) != 0) ||
      ((cfg->interval > 0 || c->eng->live) &&
       (rc = np_hist_new(1, 60000000000LL, 3, &iv.merged)) != 0))
    return np_errbuf_set(eb, rc, "interval: %s", np_strerror(rc));
  res->measure_seconds = np_bench_interval_sleep(
      c->bc, cfg->seconds, &res->intervals, np_udp_interval_sample, &iv);
  np_hist_free(iv.merged);
  if (cfg->mode == NP_UDP_MODE_CLIENT)
    np_udp_lanecpu_snap(&res->lanecpu, c->eng, 1);
  ctl_set_phase(c, NP_UDP_PH_DRAIN);
  res->drain_complete =
      ctl_drain(c, NP_UDP_PH_DRAIN, res, &took, &res->drain_bound_seconds);
  res->drain_seconds = took;
  struct np_bench_cpu cpu;
  np_bench_cpu_since(&cpu0, &cpu);
  res->cpu_user_seconds = cpu.user_seconds;
  res->cpu_sys_seconds = cpu.sys_seconds;
  res->rss_max_bytes = np_bench_rss_max_bytes();
  if ((rc = snap_socks(c->eng, res, 1)) != 0)
    return np_errbuf_set(eb, rc, "socket drops: %s", np_strerror(rc));
  if ((rc = snap_sys(c->eng, 1 ? &res->sys_after : &res->sys_before)) != 0)
    return np_errbuf_set(eb, rc, "/proc/self/task/*/status: %s",
                         np_strerror(rc));
  if (res->target && (rc = np_udp_target_snap(res->target, 1, eb)) != 0)
    return rc;
  return np_bench_ctl_snapshot(c->bc, &res->run, NP_BENCH_SNAP_AFTER, eb);
}

/* serve: one phase from the first snapshot until a signal or the bound. */
static int serve_phases(struct ctl *c, struct np_udp_result *res,
                        struct np_errbuf *eb) {
  struct np_bench_cpu cpu0, cpu;
  int rc;
  if ((rc = np_bench_ctl_snapshot(c->bc, &res->run, NP_BENCH_SNAP_BEFORE,
                                  eb)) != 0)
    return rc;
  if ((rc = snap_socks(c->eng, res, 0)) != 0)
    return np_errbuf_set(eb, rc, "socket drops: %s", np_strerror(rc));
  if ((rc = snap_sys(c->eng, 0 ? &res->sys_after : &res->sys_before)) != 0)
    return np_errbuf_set(eb, rc, "/proc/self/task/*/status: %s",
                         np_strerror(rc));
  np_bench_cpu_now(&cpu0);
  ctl_set_phase(c, NP_UDP_PH_MEASURE);
  /* "listening" once every lane counts into the measured phase: a client
   * that starts at the line has every datagram in the record (udp --agent
   * compares the counts across hosts) */
  ctl_wait_ack(c, NP_UDP_PH_MEASURE);
  const struct np_udp_config *cfg = c->eng->cfg;
  if (!cfg->quiet) {
    fprintf(stderr, "netproof-bench serve: listening on %s%s%s:%u (pid %ld, "
            "at most %g s)\n", cfg->family == AF_INET6 ? "[" : "",
            cfg->address, cfg->family == AF_INET6 ? "]" : "",
            (unsigned)c->eng->bound_port, (long)getpid(), cfg->max_seconds);
    fflush(stderr);
  }
  res->measure_seconds = np_bench_ctl_sleep(c->bc, cfg->max_seconds);
  /* stop the lanes before reading the sockets, so the counters and the
   * drop counters describe the same datagrams (at most 1 s) */
  ctl_set_phase(c, NP_UDP_PH_STOP);
  double t0 = now_s();
  for (uint32_t i = 0; i < c->eng->nlanes; i++)
    while (atomic_load_explicit(&c->eng->lanes[i].ack_phase,
                                memory_order_acquire) < NP_UDP_PH_STOP &&
           now_s() - t0 < 1.0)
      np_bench_ctl_poll(c->bc, 1);
  np_bench_cpu_since(&cpu0, &cpu);
  res->cpu_user_seconds = cpu.user_seconds;
  res->cpu_sys_seconds = cpu.sys_seconds;
  res->rss_max_bytes = np_bench_rss_max_bytes();
  res->drain_complete = 1;
  if ((rc = snap_socks(c->eng, res, 1)) != 0)
    return np_errbuf_set(eb, rc, "socket drops: %s", np_strerror(rc));
  if ((rc = snap_sys(c->eng, 1 ? &res->sys_after : &res->sys_before)) != 0)
    return np_errbuf_set(eb, rc, "/proc/self/task/*/status: %s",
                         np_strerror(rc));
  return np_bench_ctl_snapshot(c->bc, &res->run, NP_BENCH_SNAP_AFTER, eb);
}

static int collect(struct np_udp_engine *eng, struct np_udp_result *res) {
  int rc = np_hist_new(1, 60000000000LL, 3, &res->rtt_ns);
  if (rc == 0 && eng->cfg->rate > 0 &&
      (rc = np_hist_new(1, 60000000000LL, 3, &res->service_ns)) == 0)
    rc = np_hist_new(1, 60000000000LL, 3, &res->send_lag_ns);
  if (rc)
    return rc;
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    struct np_udp_lane *l = &eng->lanes[i];
    np_udp_counters_add(&res->warmup, &l->ctr[0]);
    np_udp_counters_add(&res->measure, &l->ctr[1]);
    res->warmup_lost += l->warmup_lost;
    if (l->to_min_ns &&
        (res->timeout_min_ns == 0 || l->to_min_ns < res->timeout_min_ns))
      res->timeout_min_ns = l->to_min_ns;
    if (l->to_max_ns > res->timeout_max_ns)
      res->timeout_max_ns = l->to_max_ns;
    res->work_digest ^= l->work_digest;
    if ((rc = np_hist_merge(res->rtt_ns, l->hist)) != 0)
      return rc;
    if (res->service_ns &&
        ((rc = np_hist_merge(res->service_ns, l->service)) != 0 ||
         (rc = np_hist_merge(res->send_lag_ns, l->send_lag)) != 0))
      return rc;
    if (l->run_rc)
      return l->run_rc;
  }
  for (uint32_t k = 0; k < eng->nservers && k < res->nsocks; k++) {
    const struct np_udp_counters *c = &eng->servers[k].lane->ctr[1];
    res->socks[k].received = c->server_received;
    res->socks[k].replied = c->server_replied;
    res->socks[k].send_errors = c->server_send_errors;
    res->socks[k].truncated = c->truncated;
  }
  return 0;
}

int np_udp_run(const struct np_udp_config *cfg, struct np_bench_ctl *bc,
               struct np_udp_result *res, struct np_errbuf *eb) {
  struct np_udp_engine eng = {0};
  struct ctl c = {.eng = &eng, .bc = bc};
  int rc;
  memset(res, 0, sizeof *res);
  eng.cfg = cfg;
  eng.tp = cfg->backend == NP_UDP_BACKEND_RAW     ? &np_udp_transport_raw
           : cfg->backend == NP_UDP_BACKEND_URING ? &np_udp_transport_uring
                                                  : &np_udp_transport_uv;
  atomic_init(&eng.phase, NP_UDP_PH_IDLE);
  eng.live = bc->live && cfg->mode != NP_UDP_MODE_SERVER;
  np_bench_ctl_start(bc, &res->run);
  if (cfg->mode == NP_UDP_MODE_CLIENT &&
      (rc = np_udp_target_new(cfg, &res->target, eb)) != 0)
    goto out_engine;
  if ((rc = engine_setup(&eng, eb)) != 0)
    goto out_engine;
  if ((rc = fill_sock_reports(&eng, res)) != 0) {
    np_errbuf_set(eb, rc, "socket buffers: %s", np_strerror(rc));
    goto out_engine;
  }
  res->lanes = eng.nlanes;
  res->rx_batch_server = eng.rx_batch_server;
  res->rx_batch_client = eng.rx_batch_client;
  res->tx_batch = eng.tx_batch;
  res->reuseport_steered = eng.steered;
  res->bound_port = eng.bound_port;
  /* lanes inherit the controller's mask: signals reach only its fd */
  for (uint32_t i = 0; i < eng.nlanes; i++) {
    if (pthread_create(&eng.lanes[i].thread, NULL, lane_main, &eng.lanes[i])) {
      rc = np_errbuf_set(eb, NP_ESYS, "pthread_create failed");
      goto out_threads;
    }
    eng.lanes[i].thread_started = 1;
  }
  /* a pacer per lane with clients: open loop's sends, --connect's closed
   * loop's reply deadlines (np_udp_timeout.c) */
  for (uint32_t i = 0;
       (cfg->rate > 0 || cfg->mode == NP_UDP_MODE_CLIENT) && i < eng.nlanes;
       i++)
    if (eng.lanes[i].nclients && np_udp_pacer_start(&eng.lanes[i]) != 0) {
      rc = np_errbuf_set(eb, NP_ESYS, "pthread_create (pacer) failed");
      goto out_threads;
    }
  rc = cfg->mode == NP_UDP_MODE_SERVER ? serve_phases(&c, res, eb)
                                       : run_phases(&c, res, eb);
out_threads:
  for (uint32_t i = 0; i < eng.nlanes; i++)
    np_udp_pacer_stop(&eng.lanes[i]);
  ctl_set_phase(&c, NP_UDP_PH_STOP);
  for (uint32_t i = 0; i < eng.nlanes; i++)
    if (eng.lanes[i].thread_started)
      pthread_join(eng.lanes[i].thread, NULL);
  if (rc == 0 && (rc = collect(&eng, res)) != 0)
    np_errbuf_set(eb, rc, "collect: %s", np_strerror(rc));
  if (rc == 0) {
    eng.tp->loop_info(eng.lanes[0].loop, &res->transport);
    for (uint32_t i = 1; i < eng.nlanes; i++) {
      struct np_udp_loop_info li;
      eng.tp->loop_info(eng.lanes[i].loop, &li);
      res->transport.sync_sends += li.sync_sends;
      res->transport.paired_sockets += li.paired_sockets;
    }
  }
out_engine:
  engine_free(&eng);
  np_bench_ctl_finish(bc, &res->run);
  if (rc)
    np_udp_result_free(res);
  return rc;
}

void np_udp_result_free(struct np_udp_result *res) {
  if (!res)
    return;
  np_hist_free(res->rtt_ns);
  np_hist_free(res->service_ns);
  np_hist_free(res->send_lag_ns);
  np_bench_interval_free(&res->intervals);
  np_bench_run_free(&res->run);
  np_udp_target_free(res->target);
  free(res->socks);
  np_udp_lanecpu_free(&res->lanecpu);
  memset(res, 0, sizeof *res);
}
