/*
 * np_rudp_cli.c - `netproof-bench rudp`: the --help text (generated from
 * the option table in np_rudp_options.c, which also drives the parser), a
 * one-line summary per round on stderr, and the rudp kind's table for the
 * shared command-line flow (bench/core/np_bench_ctl_main.h: output opened
 * first, run, record, exit code).
 */
#include "np_rudp_cli.h"

#include <stdio.h>

#include "np_agent_rudp.h"
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
  struct np_agent_rudp *far; /* --agent: the far server endpoint  */
  int argc;                  /* the command line (--agent passes its */
  char **argv;               /* transport options to the far end)    */
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
  ctx->argc = argc;
  ctx->argv = argv;
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
  if (ctx->cfg.agent == NULL)
    return np_rudp_run(&ctx->cfg, ctl, &ctx->res, eb);
  int rc = np_agent_rudp_begin(&ctx->cfg, ctx->argc, ctx->argv, &ctx->far,
                               eb);
  if (rc)
    return rc;
  if ((rc = np_rudp_run(&ctx->cfg, ctl, &ctx->res, eb)) != 0)
    goto fail;
  if ((rc = np_agent_rudp_end(ctx->far, eb)) != 0 ||
      (rc = np_agent_rudp_fold(ctx->far, &ctx->res.rounds[0],
                               ctx->cfg.arq.delivery == NP_ARQ_UNORDERED,
                               eb)) != 0) {
    np_rudp_result_free(&ctx->res);
    goto fail;
  }
  return 0;
fail:
  np_agent_rudp_free(ctx->far);
  ctx->far = NULL;
  return rc;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  int rc = np_rudp_record_build(&ctx->cfg, &ctx->res, argc, argv, doc, v, eb);
  if (rc == 0 && ctx->far && (rc = np_agent_rudp_record(ctx->far, *doc, eb))) {
    cJSON_Delete(*doc);
    *doc = NULL;
  }
  return rc;
}

static void kind_free(void *ctxp) {
  struct rudp_ctx *ctx = ctxp;
  np_rudp_result_free(&ctx->res);
  np_agent_rudp_free(ctx->far);
  ctx->far = NULL;
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
