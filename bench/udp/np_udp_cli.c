/*
 * np_udp_cli.c - the command: options through the udp option table
 * (np_udp_options.c, which also generates --help), the human summary on
 * stderr, and the udp kind's table for the shared command-line flow
 * (bench/core/np_bench_ctl_main.h: output opened first, run, record, exit
 * code).  The work itself is in np_udp_run.c; the record in
 * np_udp_record.c.
 */
#include "np_udp_cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "np_agent_udp.h"
#include "np_bench_summary.h"
#include "np_udp_checks.h"
#include "np_udp_external.h"
#include "np_udp_lanecpu.h"
#include "np_udp_late.h"
#include "np_udp_open.h"
#include "np_udp_stream.h"
#include "np_udp_target.h"
#include "np_udp_options.h"
#include "np_udp_record.h"
#include "np_udp_run.h"

#define PROG "netproof-bench udp"

/* --help, generated from the option table. */
static void usage(FILE *fp) { np_bench_opt_help(&np_udp_optset, fp); }

int np_udp_cli_parse(int argc, char **argv, struct np_udp_config *cfg,
                     int *help, struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_udp_optset, argc, argv, cfg, help, eb);
}

/* What the shared flow (np_bench_ctl_main) holds for a udp run. */
struct udp_ctx {
  struct np_udp_config cfg;    /* parsed options                  */
  struct np_udp_result res;    /* the run, after a successful run */
  struct np_udp_loss loss;     /* losses of the measured phase    */
  struct np_udp_checks checks; /* the invariants                  */
  struct np_udp_attrib attrib; /* --connect: where losses went      */
  char open_text[200];         /* open loop's part of the summary    */
  char late_text[100];         /* --connect: late replies' part       */
  struct np_udp_stream_result stream; /* --mode stream's run          */
  struct np_agent_udp *far;    /* --agent: the far host's side, owned */
};

/* --connect's line: the target, who answered, what was attributed. */
static void summary_external(const struct udp_ctx *ctx, double rate,
                             const char *p50, const char *p99,
                             enum np_bench_status st) {
  const struct np_udp_attrib *a = &ctx->attrib;
  char who[200], server[48];
  np_udp_external_server_text(&ctx->res, who, sizeof who);
  if (a->server_known)
    snprintf(server, sizeof server, "server socket %" PRIu64 ", in between %"
             PRId64, a->server_socket, a->in_between);
  else
    snprintf(server, sizeof server, "not attributed %" PRId64,
             a->not_attributed);
  if (ctx->far)
    np_agent_udp_text(ctx->far, who, sizeof who);
  uint64_t sent = ctx->res.measure.sent;
  fprintf(stderr,
          PROG ": %s answered by %s: %.0f round trips/s, p50 %s μs, p99 %s μs,"
          " lost %" PRId64 " of %" PRIu64 " (%.2f %%; client sockets %" PRIu64
          ", %s)%s%s: %s\n",
          ctx->cfg.connect, who, rate, p50, p99, a->lost, sent,
          sent ? 100.0 * (double)a->lost / (double)sent : 0.0,
          a->client_socket, server, ctx->late_text, ctx->open_text,
          np_bench_status_name(st));
}

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct udp_ctx *ctx = ctxp;
  if (ctx->cfg.traffic == NP_UDP_TRAFFIC_STREAM) {
    np_udp_stream_summary(&ctx->cfg, &ctx->stream, np_bench_status_name(st));
    for (unsigned i = 0; i < ctx->checks.n; i++)
      if (!ctx->checks.item[i].passed)
        fprintf(stderr, PROG ": check %s failed: %s\n",
                ctx->checks.item[i].name, ctx->checks.item[i].detail);
    return;
  }
  const struct np_udp_config *cfg = &ctx->cfg;
  const struct np_udp_result *res = &ctx->res;
  double wall = res->measure_seconds + res->drain_seconds;
  int64_t p50 = 0, p99 = 0;
  int h50 = np_hist_percentile(res->rtt_ns, 50, &p50) == 0;
  int h99 = np_hist_percentile(res->rtt_ns, 99, &p99) == 0;
  char line[600];
  if (cfg->mode == NP_UDP_MODE_CLIENT) {
    char t50[32] = "n/a", t99[32] = "n/a";
    if (h50)
      snprintf(t50, sizeof t50, "%.2f", (double)p50 / 1e3);
    if (h99)
      snprintf(t99, sizeof t99, "%.2f", (double)p99 / 1e3);
    summary_external(ctx, wall > 0 ? (double)res->measure.received / wall : 0,
                     t50, t99, st);
  } else {
    struct np_udp_summary_input in = {
        .backend = np_udp_backend_name(cfg->backend),
        .io_model = np_udp_io_model_name(cfg->io_model),
        .payload = cfg->payload,
        .clients = cfg->clients,
        .window = cfg->window,
        .roundtrips_per_sec =
            wall > 0 ? (double)res->measure.received / wall : 0.0,
        .p50_us = h50 ? (double)p50 / 1e3 : NAN,
        .p99_us = h99 ? (double)p99 / 1e3 : NAN,
        .lost = ctx->loss.lost,
        .sent = res->measure.sent,
        .kernel_drops = ctx->loss.kernel_drops,
        .cpu_percent =
            wall > 0
                ? 100.0 * (res->cpu_user_seconds + res->cpu_sys_seconds) / wall
                : 0.0,
        .status = np_bench_status_name(st),
        .extra = ctx->open_text};
    np_udp_summary_line(&in, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    double busiest;
    if (cfg->mode == NP_UDP_MODE_CLIENT && res->lanecpu.n > 0 &&
        np_udp_lanecpu_saturated(&res->lanecpu, res->measure_seconds,
                                 &busiest))
      fprintf(stderr,
              "netproof-bench udp: the client was CPU-bound (busiest of %u "
              "lanes on a CPU %.0f %% of the measured time): the rate may "
              "measure this client, not only the server "
              "(external.client_cpu.client_saturated)\n",
              (unsigned)res->lanecpu.n, 100 * busiest);
  }
  for (unsigned i = 0; i < ctx->checks.n; i++)
    if (!ctx->checks.item[i].passed) {
      np_udp_check_line(&ctx->checks.item[i], line, sizeof line);
      fprintf(stderr, "%s\n", line);
    }
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  int rc = np_udp_cli_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output;
  cli->quiet = ctx->cfg.quiet;
  cli->planned_seconds =
      ctx->cfg.interval > 0 ? 0 : ctx->cfg.warmup + ctx->cfg.seconds;
  cli->summary_json = ctx->cfg.summary == NP_BENCH_SUMMARY_JSON;
  /* echo clients sample their round trips for the live line's rate */
  cli->live_unit = ctx->cfg.traffic == NP_UDP_TRAFFIC_ECHO &&
                           ctx->cfg.mode != NP_UDP_MODE_SERVER
                       ? "round trips/s"
                       : NULL;
  return rc;
}

/* udp --agent: the far server started by the agent, the run with the far
 * host's snapshots taken at the controller's snapshot seam, then the far
 * server's end (bench/agent/np_agent_udp.h). */
static int run_agent(struct udp_ctx *ctx, struct np_bench_ctl *ctl,
                     struct np_errbuf *eb) {
  int rc = np_agent_udp_begin(&ctx->cfg, &ctx->far, eb);
  if (rc)
    return rc;
  np_agent_udp_attach(ctx->far, &ctx->res);
  struct np_bench_ctl_hooks saved = ctl->hooks;
  ctl->hooks.kernel_take = np_agent_udp_kernel_take;
  ctl->hooks.arg = ctx->far;
  rc = np_udp_run(&ctx->cfg, ctl, &ctx->res, eb);
  ctl->hooks = saved;
  if (rc && np_agent_udp_error(ctx->far)[0])
    np_errbuf_set(eb, rc, "%s", np_agent_udp_error(ctx->far));
  if (rc == 0 && (rc = np_agent_udp_end(ctx->far, eb)) != 0)
    np_udp_result_free(&ctx->res);
  return rc;
}

/* --connect / --agent: a target from which not one datagram came back
 * is not a server that lost everything but no server: a run-time error
 * (exit 3, no record) in one line, "nothing listening" when the target is
 * local, no socket is bound there and a probe is refused (ECONNREFUSED),
 * else "no reply" in the run's time. */
static int nothing_answered(const struct np_udp_result *res,
                            struct np_errbuf *eb) {
  const struct np_udp_counters *w = &res->warmup, *m = &res->measure;
  if (w->received + m->received + w->late + m->late + w->duplicates +
          m->duplicates + w->stale + m->stale != 0 ||
      w->sent + m->sent + w->send_errors + m->send_errors == 0 ||
      res->target == NULL)
    return 0;
  const struct np_udp_target *t = res->target;
  if (t->local && t->nsocks == 0 && !t->remote_observed) {
    int refused = np_udp_target_refused(t);
    return np_errbuf_set(eb, NP_ECONNREFUSED, "nothing listening on %s (%s)",
                         t->text,
                         refused ? "ECONNREFUSED"
                                 : "no UDP socket bound there in "
                                   "/proc/net/udp");
  }
  return np_errbuf_set(eb, NP_ETIMEDOUT, "no reply from %s in %.1f s",
                       t->text,
                       res->warmup_seconds + res->measure_seconds +
                           res->drain_seconds);
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  if (ctx->cfg.traffic == NP_UDP_TRAFFIC_STREAM) {
    int rc = np_udp_stream_run(&ctx->cfg, ctl, &ctx->stream, eb);
    if (rc == 0) {
      struct np_udp_stream_check_input in;
      np_udp_stream_check_input_of(&ctx->stream, &in);
      np_udp_stream_checks(&in, &ctx->checks);
    }
    return rc;
  }
  int rc = ctx->cfg.agent ? run_agent(ctx, ctl, eb)
                          : np_udp_run(&ctx->cfg, ctl, &ctx->res, eb);
  if (rc) {
    np_agent_udp_free(ctx->far);
    ctx->far = NULL;
    return rc;
  }
  if (ctx->cfg.mode == NP_UDP_MODE_CLIENT &&
      (rc = nothing_answered(&ctx->res, eb)) != 0) {
    /* no record: the run's result is freed here, as on any run error */
    np_udp_result_free(&ctx->res);
    np_agent_udp_free(ctx->far);
    ctx->far = NULL;
    return rc;
  }
  if (ctx->cfg.mode == NP_UDP_MODE_CLIENT) {
    np_udp_external_attrib(&ctx->res, &ctx->attrib);
    np_udp_external_checks(&ctx->res, &ctx->attrib, &ctx->checks);
    if (ctx->far)
      np_agent_udp_checks(ctx->far, &ctx->res, &ctx->checks);
  } else {
    struct np_udp_check_input in;
    np_udp_check_input_of(&ctx->res.measure, &ctx->res, &in);
    np_udp_loss_compute(&in, &ctx->loss);
    np_udp_checks_eval(&in, &ctx->loss, &ctx->checks);
  }
  struct np_udp_late_input li; /* what the self-check reads back */
  np_udp_late_input_of(&ctx->cfg, &ctx->res, &li);
  np_udp_late_checks(&li, &ctx->checks);
  np_udp_late_summary(&li, ctx->late_text, sizeof ctx->late_text);
  if (ctx->cfg.rate > 0) { /* the same inputs the self-check reads back */
    struct np_udp_open_input oi;
    np_udp_open_input_of(&ctx->cfg, &ctx->res, &oi);
    np_udp_open_checks(&oi, &ctx->checks);
    np_udp_open_summary(&oi, ctx->open_text, sizeof ctx->open_text);
  }
  return 0;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  if (ctx->cfg.traffic == NP_UDP_TRAFFIC_STREAM)
    return np_udp_stream_record_build(&ctx->cfg, &ctx->stream, &ctx->checks,
                                      argc, argv, doc, v, eb);
  if (ctx->cfg.mode == NP_UDP_MODE_CLIENT) {
    int rc = np_udp_external_record_build(&ctx->cfg, &ctx->res, &ctx->attrib,
                                          &ctx->checks, argc, argv, doc, v,
                                          eb);
    if (rc == 0 && ctx->far &&
        (rc = np_agent_udp_record(ctx->far, &ctx->res, *doc, eb)) != 0) {
      cJSON_Delete(*doc);
      *doc = NULL;
    }
    return rc;
  }
  return np_udp_record_build(&ctx->cfg, &ctx->res, &ctx->loss, &ctx->checks,
                             argc, argv, doc, v, eb);
}

static void kind_free(void *ctxp) {
  struct udp_ctx *ctx = ctxp;
  np_udp_result_free(&ctx->res);
  np_udp_stream_result_free(&ctx->stream);
  np_agent_udp_free(ctx->far);
  ctx->far = NULL;
}

const struct np_bench_kind np_udp_bench_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct udp_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_udp_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_udp_bench_kind, argc, argv, NULL);
}
