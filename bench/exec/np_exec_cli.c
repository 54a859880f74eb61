/*
 * np_exec_cli.c - the command: options before "--" through the exec
 * option table (np_exec_options.c, which also generates --help), the
 * program after it, the human summary on stderr, and the exec kind's
 * table for the shared command-line flow (bench/core/np_bench_ctl_main.h:
 * output opened first, run, record, exit code).  The run is in
 * np_exec_run.c, the record in np_exec_record.c.
 */
#include "np_exec_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_bench_summary.h"
#include "np_exec_options.h"
#include "np_exec_record.h"
#include "np_exec_run.h"

#define PROG "netproof-bench exec"

static void usage(FILE *fp) { np_bench_opt_help(&np_exec_optset, fp); }

int np_exec_cli_parse(int argc, char **argv, struct np_exec_config *cfg,
                      int *help, struct np_errbuf *eb) {
  int nopts = 0;
  *help = 0;
  int rc = np_exec_config_split(argc, argv, &nopts, eb);
  if (rc != 0)
    return rc;
  rc = np_bench_opt_parse(&np_exec_optset, nopts, argv, cfg, help, eb);
  if (rc != 0 || *help)
    return rc;
  return np_exec_config_program(cfg, argc - nopts - 1, argv + nopts + 1, eb);
}

/* What the shared flow (np_bench_ctl_main) holds for an exec run. */
struct exec_ctx {
  struct np_exec_config cfg;     /* parsed options and program      */
  struct np_exec_run_result res; /* the run, after a successful run */
  char temp_dir[PATH_MAX];       /* the folder made for the kept output
                                  * (no --keep, --output -), or ""   */
};

/* One line per interval of each --interval-metric series (after the run:
 * the samples are taken from the kept stdout). */
static void series_lines(const struct np_exec_config *cfg,
                         const struct np_exec_run_result *r) {
  size_t k = np_exec_series_nintervals(cfg->interval, r->res.wall_seconds);
  struct np_exec_interval *iv = calloc(k, sizeof *iv);
  if (iv == NULL)
    return;
  for (unsigned i = 0; i < cfg->nseries; i++) {
    const struct np_exec_metric_spec *m = &cfg->series[i];
    np_exec_series_intervals(&r->series[i], cfg->interval, r->res.wall_seconds,
                             iv);
    for (size_t j = 0; j < k; j++) {
      if (iv[j].count == 0)
        fprintf(stderr, PROG ": %s [%.2f, %.2f) s: no sample\n", m->name,
                iv[j].start, iv[j].end);
      else
        fprintf(stderr,
                PROG ": %s [%.2f, %.2f) s: %llu sample%s, mean %.6g%s%s "
                "(min %.6g, max %.6g)\n",
                m->name, iv[j].start, iv[j].end,
                (unsigned long long)iv[j].count, iv[j].count == 1 ? "" : "s",
                iv[j].mean, m->unit[0] ? " " : "", m->unit, iv[j].min,
                iv[j].max);
    }
  }
  free(iv);
}

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct exec_ctx *ctx = ctxp;
  const struct np_exec_config *cfg = &ctx->cfg;
  const struct np_exec_run_result *r = &ctx->res;
  const struct np_exec_result *x = &r->res;
  char how[64], sig[32], metrics[600] = "";
  if (x->end == NP_EXEC_EXITED)
    snprintf(how, sizeof how, "exited %d", x->exit_code);
  else if (x->end == NP_EXEC_SIGNALED)
    snprintf(how, sizeof how, "ended by %s",
             np_exec_signal_name(x->signo, sig, sizeof sig));
  else
    snprintf(how, sizeof how, "%s",
             x->end == NP_EXEC_TIMEOUT ? "killed at the time bound"
                                       : "killed on interruption");
  size_t k = 0;
  for (unsigned i = 0; i < cfg->nmetric && k < sizeof metrics; i++) {
    const struct np_exec_metric_val *v = &r->val[i];
    k += (size_t)snprintf(metrics + k, sizeof metrics - k, "%s %s %s%s%s",
                          i ? "," : "; metrics", cfg->metric[i].name,
                          v->fail == NP_EXEC_OK ? v->raw
                                                : np_exec_fail_name(v->fail),
                          v->fail == NP_EXEC_OK && cfg->metric[i].unit[0]
                              ? " " : "",
                          v->fail == NP_EXEC_OK ? cfg->metric[i].unit : "");
  }
  series_lines(cfg, r);
  fprintf(stderr,
          PROG ": %s %s after %.3f s (cpu %.3f s, max rss %.1f MiB)%s: %s\n",
          cfg->prog_argv[0], how, x->wall_seconds,
          x->user_seconds + x->sys_seconds,
          (double)x->max_rss_bytes / 1048576.0, metrics,
          np_bench_status_name(st));
  for (unsigned i = 0; i < r->nchecks; i++)
    if (!r->checks[i].passed)
      fprintf(stderr, PROG ": check %s failed: %s\n", r->checks[i].name,
              r->checks[i].detail);
  if (ctx->temp_dir[0] != '\0')
    fprintf(stderr, PROG ": %s's stdout and stderr kept in %s/ (run.stdout."
            "txt, run.stderr.txt; --keep PREFIX or --output FILE chooses "
            "where)\n", cfg->prog_argv[0], ctx->temp_dir);
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct exec_ctx *ctx = ctxp;
  int rc = np_exec_cli_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output != NULL ? ctx->cfg.output : "-";
  cli->quiet = ctx->cfg.quiet;
  cli->planned_seconds = ctx->cfg.timeout; /* the program may end sooner */
  cli->planned_is_bound = 1;
  cli->summary_json = ctx->cfg.summary == NP_BENCH_SUMMARY_JSON;
  return rc;
}

/* No --keep and the record on stdout: the kept files go to a new folder
 * $TMPDIR/netproof-exec-XXXXXX (as DIR/run.*), named in the summary. */
static int make_temp_keep(struct exec_ctx *ctx, struct np_errbuf *eb) {
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || tmp[0] != '/')
    tmp = "/tmp";
  int n = snprintf(ctx->temp_dir, sizeof ctx->temp_dir,
                   "%s/netproof-exec-XXXXXX", tmp);
  if (n < 0 || (size_t)n >= sizeof ctx->temp_dir - 8) {
    ctx->temp_dir[0] = '\0';
    return np_errbuf_set(eb, NP_EUSAGE, "TMPDIR %s: too long", tmp);
  }
  if (mkdtemp(ctx->temp_dir) == NULL) {
    int e = errno;
    np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", ctx->temp_dir,
                  strerror(e));
    ctx->temp_dir[0] = '\0';
    return np_err_from_errno(e);
  }
  size_t len = strlen(ctx->temp_dir); /* < PATH_MAX - 8, checked above */
  memcpy(ctx->cfg.keep_prefix, ctx->temp_dir, len);
  memcpy(ctx->cfg.keep_prefix + len, "/run", sizeof "/run");
  return 0;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct exec_ctx *ctx = ctxp;
  int rc;
  if (ctx->cfg.keep_prefix[0] == '\0' && (rc = make_temp_keep(ctx, eb)) != 0)
    return rc;
  rc = np_exec_run(&ctx->cfg, ctl, &ctx->res, eb);
  if (rc != 0 && ctx->temp_dir[0] != '\0')
    rmdir(ctx->temp_dir); /* a run that failed before keeping anything
                           * leaves no empty folder behind */
  return rc;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct exec_ctx *ctx = ctxp;
  return np_exec_record_build(&ctx->cfg, &ctx->res, argc, argv, doc, v, eb);
}

static void kind_free(void *ctxp) {
  struct exec_ctx *ctx = ctxp;
  np_exec_run_free(&ctx->res);
}

const struct np_bench_kind np_exec_bench_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct exec_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_exec_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_exec_bench_kind, argc, argv, NULL);
}
