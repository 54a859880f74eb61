/*
 * np_relay_cli.c - `netproof-bench relay`: the --help text (generated from
 * np_relay_cmd_optset), a one-line summary on stderr, and the relay kind's
 * table for the shared command-line flow (bench/core/np_bench_ctl_main.h:
 * record opened first, run, record, exit code).
 */
#include "np_relay_cmd.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>

#include "np_bench_ctl_main.h"
#include "np_bench_summary.h"

#define PROG "netproof-bench relay"

static void usage(FILE *fp) { np_bench_opt_help(&np_relay_cmd_optset, fp); }

struct relay_ctx {
  struct np_relay_cmd_config cfg;  /* parsed options            */
  struct np_relay_cmd_result res;  /* after a successful run    */
};

static double num(const cJSON *o, const char *k) {
  return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct relay_ctx *ctx = ctxp;
  const struct np_relay_cmd_result *res = &ctx->res;
  const cJSON *tot = cJSON_GetObjectItemCaseSensitive(res->stats, "totals");
  const cJSON *c2s = cJSON_GetObjectItemCaseSensitive(tot, "c2s");
  const cJSON *s2c = cJSON_GetObjectItemCaseSensitive(tot, "s2c");
  fprintf(stderr,
          PROG ": %.1f s, %" PRIu64 " route%s; c2s %.0f received, %.0f "
          "forwarded; s2c %.0f received, %.0f forwarded; tcp %" PRIu64
          " connection%s, %" PRIu64 " bytes; ended by %s: %s\n",
          res->seconds, res->routes, res->routes == 1 ? "" : "s",
          num(c2s, "received"),
          num(c2s, "forwarded"), num(s2c, "received"), num(s2c, "forwarded"),
          res->tcp.accepted, res->tcp.accepted == 1 ? "" : "s",
          res->tcp.bytes_c2s + res->tcp.bytes_s2c,
          res->signal == SIGINT    ? "SIGINT"
          : res->signal == SIGTERM ? "SIGTERM"
                                   : "--max-seconds",
          np_bench_status_name(st));
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct relay_ctx *ctx = ctxp;
  int rc = np_relay_cmd_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output ? ctx->cfg.output : "-";
  cli->output_opt = "--record";
  cli->summary_json = ctx->cfg.summary == NP_BENCH_SUMMARY_JSON;
  cli->quiet = ctx->cfg.quiet;
  return rc;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct relay_ctx *ctx = ctxp;
  return np_relay_cmd_run(&ctx->cfg, ctl, &ctx->res, eb);
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct relay_ctx *ctx = ctxp;
  return np_relay_cmd_record_build(&ctx->cfg, &ctx->res, argc, argv, doc, v,
                                   eb);
}

static void kind_free(void *ctxp) {
  np_relay_cmd_result_free(&((struct relay_ctx *)ctxp)->res);
}

static const struct np_bench_kind relay_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct relay_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_relay_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&relay_kind, argc, argv, NULL);
}
