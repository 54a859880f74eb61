/*
 * np_rudp_run.c - rounds of `netproof-bench rudp`: build the endpoints and
 * the relay (in-process, or an external relay process with --relay:
 * np_rudp_extrelay.c), move the lanes through warm-up, measurement, drain
 * and close, collect counters, evaluate the checks.
 *
 * The controlling thread sleeps on the shared controller's signalfd
 * (bench/core/np_bench_ctl.h), so SIGINT and SIGTERM end the current phase
 * without a handler or a global flag; an interrupted round drains briefly,
 * closes, and no further round starts.  Kernel snapshots around all rounds
 * follow the controller's one policy: a failed snapshot fails the run.
 */
#include "np_rudp_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_interval.h"
#include "np_rudp_endpoint.h"
#include "np_rudp_extrelay.h"

#define DRAIN_BOUND_S 3.0  /* outstanding requests must finish by then */
#define CLOSE_BOUND_S 3.0  /* orderly close must finish by then        */
#define SIGNAL_BOUND_S 0.2 /* both, after SIGINT/SIGTERM                */
#define LINGER_S 1.0       /* --connect/--agent: acks after the close   */

struct counts_goal {
  _Atomic uint32_t *v;
  uint32_t goal;
};

static int goal_met(void *arg) {
  struct counts_goal *g = arg;
  return atomic_load(g->v) >= g->goal;
}

static void set_phase(struct np_rudp_ctl *ctl, struct np_rudp_net *net,
                      int phase) {
  atomic_store(&ctl->phase, phase);
  np_rudp_net_wake(net);
}

static void relay_collect(struct np_relay *relay, uint32_t routes,
                          struct np_rudp_round *r) {
  for (uint32_t i = 0; i < routes; i++) {
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      struct np_relay_counts c;
      if (np_relay_route_counts(relay, i, d, &c) == 0) {
        np_relay_counts_add(&r->relay_dir[d], &c);
        r->relay_errors += np_relay_counts_errors(&c);
        r->relay_overflow += c.overflow;
      }
    }
    uint64_t pb = 0, pp = 0;
    if (np_relay_route_peak(relay, i, &pb, &pp) == 0) {
      r->relay_peak_bytes_sum += pb;
      r->relay_peak_packets_sum += pp;
    }
  }
  r->relay_stats = np_relay_stats_json(relay);
}

/* Both directions of every route summed (a live snapshot). */
static void relay_sum(const struct np_relay *relay, uint32_t routes,
                      struct np_relay_counts *out) {
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < routes; i++)
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      struct np_relay_counts c;
      if (np_relay_route_counts(relay, i, d, &c) == 0)
        np_relay_counts_add(out, &c);
    }
}

static void counts_sub(struct np_relay_counts *a,
                       const struct np_relay_counts *b) {
  a->received -= b->received;
  a->loss_stage -= b->loss_stage;
  a->duplicated -= b->duplicated;
  a->lost_random -= b->lost_random;
  a->lost_burst -= b->lost_burst;
  a->lost_ge -= b->lost_ge;
  a->overflow -= b->overflow;
  a->reordered -= b->reordered;
  a->forwarded -= b->forwarded;
}

/* --interval: the relay's losses of every route so far (0 for an
 * external relay, whose counters the run reads only at its ends). */
#define NP_RUDP_IV_LOST_RULE                                                  \
  "copies the in-process relay dropped in the interval (random, burst, "     \
  "Gilbert-Elliott loss and capacity overflow, both directions); 0 with "    \
  "an external relay"

static uint64_t relay_lost(const struct np_relay *relay, uint32_t routes) {
  struct np_relay_counts c;
  if (relay == NULL)
    return 0;
  relay_sum(relay, routes, &c);
  return c.lost_random + c.lost_burst + c.lost_ge + c.overflow;
}

struct iv_ctx {
  struct np_rudp_net *net;     /* the lanes                 */
  const struct np_relay *relay; /* its losses, or NULL       */
  uint32_t routes;             /* relay routes              */
  uint64_t lost0;              /* losses when the phase began */
  uint32_t payload;            /* message bytes               */
  struct np_hist *slice;       /* the slice over every lane */
};

static int iv_sample(void *ctx, struct np_bench_iv_sample *out) {
  struct iv_ctx *iv = ctx;
  uint64_t rt = 0;
  int rc = np_rudp_net_interval(iv->net, iv->slice, &rt);
  if (rc)
    return rc;
  out->ops = rt;
  out->bytes = rt * iv->payload; /* the requests' payload, one way */
  out->lost = relay_lost(iv->relay, iv->routes) - iv->lost0;
  out->lat = iv->slice;
  return 0;
}

/* The orderly close, from t2: every connection CLOSED or FAILED within
 * the bound; the seconds it took. */
static double close_round(const struct np_rudp_config *cfg,
                          struct np_bench_ctl *w, struct np_rudp_ctl *ctl,
                          struct np_rudp_net *net, double t2) {
  set_phase(ctl, net, NP_RUDP_CLOSE);
  struct counts_goal done = {&ctl->done, np_rudp_net_conns(net)};
  np_bench_ctl_wait(
      w, t2 + (np_bench_ctl_signal(w) ? SIGNAL_BOUND_S : CLOSE_BOUND_S),
      goal_met, &done);
  /* the clients alone: the far endpoint closes after them and may need
   * an ack repeated (its FIN's was lost), so the lanes keep answering a
   * while before the sockets close (as TCP's TIME-WAIT does) */
  if (cfg->role == NP_RUDP_ROLE_CLIENT && !np_bench_ctl_signal(w))
    np_bench_ctl_sleep(w, LINGER_S);
  return np_time_mono_s() - t2;
}

static int run_round(const struct np_rudp_config *cfg,
                     struct np_bench_ctl *w, uint64_t seed,
                     struct np_rudp_round *r, struct np_errbuf *eb) {
  struct np_rudp_ctl ctl;
  struct np_rudp_net *net = NULL;
  struct np_relay *relay = NULL;
  struct np_relay_link_line base;
  struct sockaddr_storage server, fwd;
  int rc;
  memset(&ctl, 0, sizeof ctl);
  memset(&base, 0, sizeof base);
  r->seed = seed;
  np_time_utc_now(r->started_at, sizeof r->started_at);
  /* an external relay: its forward address and the round's baseline */
  if (cfg->relay_ext && (rc = np_rudp_ext_begin(cfg, w, &base, &fwd, eb)))
    return rc;
  if ((rc = np_rudp_net_bind(cfg, &ctl, seed,
                             cfg->relay_ext ? (struct sockaddr *)&fwd : NULL,
                             &net, &server, eb)) != 0)
    goto out_base;
  if (!cfg->relay_ext && cfg->role == NP_RUDP_ROLE_BOTH) {
    struct np_relay_config rcfg = cfg->relay;
    rcfg.seed = seed;
    if ((rc = np_relay_create(&rcfg, (const struct sockaddr *)&server,
                              cfg->clients, &relay, eb)) != 0 ||
        (rc = np_relay_start(relay, eb)) != 0)
      goto out_relay;
  }
  if ((rc = np_rudp_net_start(net, relay, eb)) != 0)
    goto out_relay;
  r->warmup_seconds = np_bench_ctl_sleep(w, cfg->warmup);
  struct np_bench_cpu cpu0, cpu;
  struct np_relay_counts rc0;
  relay_sum(relay, cfg->clients, &rc0);
  np_bench_cpu_now(&cpu0);
  set_phase(&ctl, net, NP_RUDP_MEASURE);
  struct iv_ctx iv = {.net = net, .relay = relay, .routes = cfg->clients,
                      .payload = cfg->payload,
                      .lost0 = relay_lost(relay, cfg->clients)};
  if ((cfg->interval > 0 &&
       (rc = np_bench_interval_init(&r->intervals, cfg->interval,
                                    cfg->seconds, "netproof-bench rudp",
                                    NP_RUDP_IV_LOST_RULE, cfg->quiet)) != 0) ||
      ((cfg->interval > 0 || cfg->live_rate) &&
       (rc = np_hist_new(1000, 60000000000ll, 3, &iv.slice)) != 0)) {
    np_errbuf_set(eb, rc, "interval: %s", np_strerror(rc));
    set_phase(&ctl, net, NP_RUDP_STOP);
    np_rudp_net_join(net, r);
    goto out_relay;
  }
  r->measure_seconds =
      np_bench_interval_sleep(w, cfg->seconds, &r->intervals, iv_sample, &iv);
  np_hist_free(iv.slice);
  double t1 = np_time_mono_s();
  set_phase(&ctl, net, NP_RUDP_DRAIN);
  struct counts_goal drained = {&ctl.drained, cfg->clients};
  np_bench_ctl_wait(
      w, t1 + (np_bench_ctl_signal(w) ? SIGNAL_BOUND_S : DRAIN_BOUND_S),
      goal_met, &drained);
  r->drain_complete = goal_met(&drained);
  double t2 = np_time_mono_s();
  np_bench_cpu_since(&cpu0, &cpu);
  relay_sum(relay, cfg->clients, &r->relay_window);
  counts_sub(&r->relay_window, &rc0);
  r->close_seconds = close_round(cfg, w, &ctl, net, t2);
  set_phase(&ctl, net, NP_RUDP_STOP);
  r->drain_seconds = t2 - t1;
  r->cpu_user_seconds = cpu.user_seconds;
  r->cpu_sys_seconds = cpu.sys_seconds;
  rc = np_rudp_net_join(net, r);
  if (rc)
    np_errbuf_set(eb, rc, "rudp: collecting results failed");
  else if (cfg->relay_ext)
    rc = np_rudp_ext_end(cfg, w, net, &base, np_time_mono_ns(), r, eb);
out_relay:
  if (relay) {
    np_relay_stop(relay);
    if (np_relay_join(relay) != 0 && rc == 0)
      r->relay_errors++; /* the relay loop failed: a relay error */
    relay_collect(relay, cfg->clients, r);
  }
  np_rudp_net_free(net);
  np_relay_destroy(relay);
  /* --connect alone: the far endpoint's counts are in its own record */
  r->server_remote = cfg->role == NP_RUDP_ROLE_CLIENT && cfg->agent == NULL;
  if (rc == 0)
    np_rudp_round_checks(r, cfg->arq.delivery == NP_ARQ_UNORDERED);
out_base:
  np_relay_link_line_free(&base);
  return rc;
}

void np_rudp_round_checks(struct np_rudp_round *r, int unordered) {
  const struct np_rudp_app *t = &r->total;
  struct np_rudp_check_input in = {.sent = t->sent,
                                   .server_received = t->server_received,
                                   .server_replied = t->server_replied,
                                   .received = t->received,
                                   .content_errors = t->content_errors,
                                   .sequence_errors = t->sequence_errors,
                                   .send_errors = t->send_errors,
                                   .drain_complete = r->drain_complete,
                                   .server_remote = r->server_remote,
                                   .conns = r->conns,
                                   .conns_closed = r->conns_closed,
                                   .conns_failed = r->conns_failed,
                                   .conns_unacked = r->conns_unacked,
                                   .relay_errors = r->relay_errors,
                                   .relay_overflow = r->relay_overflow,
                                   .unordered = unordered};
  r->failed = np_rudp_checks_eval(&in, r->checks);
}

static double round_rate(const struct np_rudp_round *r) {
  double wall = r->measure_seconds + r->drain_seconds;
  return wall > 0 ? (double)r->app.received / wall : 0.0;
}

_Static_assert(NP_RUDP_MEDIAN_MAX >= NP_RUDP_MAX_ROUNDS,
               "np_rudp_median_index sees every round");

/* The median round by round-trip rate (np_rudp_median_index). */
static uint32_t median_round(const struct np_rudp_result *res) {
  double rate[NP_RUDP_MAX_ROUNDS];
  for (uint32_t i = 0; i < res->nrounds && i < NP_RUDP_MAX_ROUNDS; i++)
    rate[i] = round_rate(&res->rounds[i]);
  return np_rudp_median_index(rate, res->nrounds);
}

int np_rudp_run(const struct np_rudp_config *cfg, struct np_bench_ctl *w,
                struct np_rudp_result *res, struct np_errbuf *eb) {
  int rc;
  memset(res, 0, sizeof *res);
  np_bench_ctl_start(w, &res->run);
  res->lanes = np_rudp_config_lanes(cfg);
  res->rounds = calloc(cfg->rounds, sizeof *res->rounds);
  if (res->rounds == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
    goto out_result;
  }
  if ((rc = np_bench_ctl_snapshot(w, &res->run, NP_BENCH_SNAP_BEFORE, eb)))
    goto out_result;
  /* the first round always runs, so even a run interrupted at once has a
   * round to report; a signal ends it quickly */
  for (uint32_t i = 0; i < cfg->rounds && (i == 0 || !np_bench_ctl_signal(w));
       i++) {
    rc = run_round(cfg, w, cfg->seed + i, &res->rounds[i], eb);
    res->nrounds = i + 1;
    if (rc)
      goto out_result;
  }
  if ((rc = np_bench_ctl_snapshot(w, &res->run, NP_BENCH_SNAP_AFTER, eb)))
    goto out_result;
  res->rss_max_bytes = (uint64_t)np_bench_rss_max_bytes();
  res->median = median_round(res);
out_result:
  np_bench_ctl_finish(w, &res->run);
  if (rc)
    np_rudp_result_free(res);
  return rc;
}

void np_rudp_result_free(struct np_rudp_result *res) {
  if (res == NULL)
    return;
  for (uint32_t i = 0; res->rounds && i < res->nrounds; i++) {
    np_hist_free(res->rounds[i].rtt_ns);
    np_bench_interval_free(&res->rounds[i].intervals);
    cJSON_Delete(res->rounds[i].relay_stats);
    free(res->rounds[i].socks);
    free(res->rounds[i].fec_retained);
  }
  free(res->rounds);
  np_bench_run_free(&res->run);
  memset(res, 0, sizeof *res);
}
