/*
 * np_bench_ctl_main.h - the command-line flow every benchmark kind shares,
 * over a small per-kind table:
 *
 *   parse -> (--help) -> controller -> open output -> run -> record
 *   (envelope + the kind's sections; status and exit code from the checks
 *   and the signal) -> validate -> commit -> summary -> exit code
 *
 * The output is opened before anything is measured, so a bad --output is
 * a usage error (exit 2) at once; a run that fails leaves nothing on disk
 * and exits 3; an interrupted run still commits its record (status
 * "interrupted") and exits 128 + signal.  SIGINT/SIGTERM stay blocked from
 * before the output is opened until the record is committed; one that
 * comes after the run ended does not change the record.
 *
 * A new kind (exec, serve, relay, ...) adds a table, not a copy of this.
 */
#ifndef NP_BENCH_CTL_MAIN_H
#define NP_BENCH_CTL_MAIN_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_bench_ctl.h"
#include "np_bench_record.h"
#include "np_err.h"

/* What the flow needs from a kind's parsed options. */
struct np_bench_cli {
  const char *output; /* --output: record path, "-" = stdout (not owned);
                       * a terminal on stdout gets no record, only a
                       * line on stderr saying how to get it            */
  const char *output_opt; /* its option in messages; NULL = "--output"   */
  int summary_json;   /* --summary json: the one-object summary on stdout
                       * (np_bench_summary.h), in place of the record
                       * when output is "-"                              */
  int quiet;          /* --quiet: no summary on stderr                   */
  double planned_seconds; /* how long the run should take, for the live
                       * line on a terminal (np_bench_progress.h); 0 =
                       * no line (short runs, --interval's own lines)   */
  int planned_is_bound; /* planned_seconds is only an upper bound        */
  const char *live_unit; /* the live line's rate ("round trips/s"): the
                       * run's np_bench_interval_sleep samples its
                       * counters each second for it; NULL = no rate     */
  int help;           /* --help: print usage, exit 0                     */
};

/* One benchmark kind.  ctx is the kind's own state (options, result ...):
 * ctx_size bytes the flow allocates zeroed and frees. */
struct np_bench_kind {
  const char *prog; /* message prefix, "netproof-bench udp" */
  size_t ctx_size;  /* bytes of the kind's context           */
  /* argv[0] is the subcommand; fill ctx's options and *cli.  0, or
   * NP_EUSAGE with one line in eb. */
  int (*parse)(void *ctx, int argc, char **argv, struct np_bench_cli *cli,
               struct np_errbuf *eb);
  void (*usage)(FILE *fp); /* the --help text */
  /* Run the benchmark with the controller.  0 = ctx holds a result (free
   * it with free_result), also when checks will fail; NP_EUSAGE = an
   * input found unusable only now (a file to append to), exit 2; other
   * NP_E* = environment error, exit 3; detail in eb, nothing to free. */
  int (*run)(void *ctx, struct np_bench_ctl *ctl, struct np_errbuf *eb);
  /* The whole record (np_bench_record_new + the kind's sections). */
  int (*build)(void *ctx, int argc, char **argv, cJSON **doc,
               struct np_bench_verdict *v, struct np_errbuf *eb);
  /* The human summary on stderr. */
  void (*summary)(const void *ctx, enum np_bench_status status);
  void (*free_result)(void *ctx); /* after a successful run */
};

/* The flow; returns the process exit code.  hooks is the controller's
 * test seam (NULL in production). */
int np_bench_ctl_main(const struct np_bench_kind *kind, int argc, char **argv,
                      const struct np_bench_ctl_hooks *hooks);

#endif /* NP_BENCH_CTL_MAIN_H */
