/*
 * np_rudp_cli.c - `netproof-bench rudp`: the --help text (generated from
 * the option table in np_rudp_options.c, which also drives the parser), a
 * one-line summary per round on stderr, and the rudp kind's table for the
 * shared command-line flow (bench/core/np_bench_ctl_main.h: output opened
 * first, run, record, exit code).
 */
#include "np_rudp_cli.h"

#include <stdio.h>

#include "np_bench_summary.h"
#include "np_rudp_config.h"
#include "np_rudp_options.h"
#include "np_rudp_record.h"
#include "np_rudp_record_fec.h"
#include "np_rudp_run.h"

#define PROG "netproof-bench rudp"

/* --help, generated from the option table. */
static void usage(FILE *fp) { np_bench_opt_help(&np_rudp_optset, fp); }

/* What the shared flow (np_bench_ctl_main) holds for a rudp run. */
struct rudp_ctx {
  struct np_rudp_config cfg; /* parsed options                  */
  struct np_rudp_result res; /* the run, after a successful run */
};

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct np_rudp_result *res = &((const struct rudp_ctx *)ctxp)->res;
  (void)st; /* one line per round says each round's own status */
  char line[600];
  for (uint32_t i = 0; i < res->nrounds; i++) {
    const struct np_rudp_round *r = &res->rounds[i];
    struct np_rudp_summary_input in;
    np_rudp_round_summary_input(r, i, &in);
    np_rudp_summary_line(&in, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
      if (!r->checks[k].passed) {
        np_rudp_check_line(i, &r->checks[k], line, sizeof line);
        fprintf(stderr, "%s\n", line);
      }
  }
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  int rc = np_rudp_config_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output;
  cli->quiet = ctx->cfg.quiet;
  cli->planned_seconds = ctx->cfg.interval > 0
                             ? 0
                             : ctx->cfg.rounds *
                                   (ctx->cfg.warmup + ctx->cfg.seconds);
  cli->summary_json = ctx->cfg.summary == NP_BENCH_SUMMARY_JSON;
  cli->live_unit = "round trips/s"; /* sampled through the interval seam */
  return rc;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  ctx->cfg.live_rate = ctl->live;
  return np_rudp_run(&ctx->cfg, ctl, &ctx->res, eb);
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  return np_rudp_record_build(&ctx->cfg, &ctx->res, argc, argv, doc, v, eb);
}

static void kind_free(void *ctxp) {
  np_rudp_result_free(&((struct rudp_ctx *)ctxp)->res);
}

const struct np_bench_kind np_rudp_bench_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct rudp_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_rudp_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_rudp_bench_kind, argc, argv, NULL);
}
