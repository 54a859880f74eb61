/*
 * np_matrix.h - run a whole suite plan: each repetition of each
 * configuration is its own netproof-bench process, and the raw evidence of
 * every repetition stays on disk (layout: docs/results-layout.md).  One
 * runner at a time owns an output folder (a lock file inside it); each
 * invocation is a session with a random id that every record it causes
 * carries (runner.session).
 */
#ifndef NP_MATRIX_H
#define NP_MATRIX_H

#include <stdio.h>

#include "np_err.h"

/* --until-stable's defaults (an interval needs 5 values). */
#define NP_MATRIX_MIN_REPS 5
#define NP_MATRIX_MAX_REPS 30

/* Filled by the CLI, handed down; strings are borrowed. */
struct np_matrix_opts {
  const char *plan_path;    /* PLAN.json                                   */
  const char *out_dir;      /* --output DIR (not needed for --dry-run)     */
  const char *only;         /* --only GLOB on config ids, or NULL          */
  const char *bench_binary; /* program to spawn; NULL = /proc/self/exe     */
  unsigned shard_count;     /* --shard K/N: N (0 = the whole plan)         */
  unsigned shard_index;     /* ... and K (np_matrix_shard.h)               */
  int resume;               /* --resume: keep complete repetitions         */
  int dry_run;              /* --dry-run: print, run nothing               */
  int quiet;                /* --quiet: no progress on stderr              */
  double until_stable;      /* --until-stable CI_PCT (0: the plan's rule)  */
  int min_reps, max_reps;   /* --min-reps / --max-reps with it             */
};

/* What a finished (or stopped) matrix amounts to. */
struct np_matrix_result {
  size_t configs;           /* configurations selected                     */
  size_t reps_run;          /* repetitions run by this invocation          */
  size_t reps_kept;         /* complete repetitions kept from before       */
  size_t reps_passed;       /* of reps_run, records with status passed     */
  size_t configs_bad;       /* failed or unexpectedly passing configs      */
  int interrupted;          /* SIGINT or SIGTERM that stopped it, else 0   */
  int started;              /* 1 once the runner began writing the folder:
                               any later error is a run-time error         */
  double wall;              /* seconds this invocation ran (monotonic)     */
  char session[33];         /* this invocation's session id (32 hex)       */
};

/* Run (or with dry_run, describe on out) the plan.  Bad input - a plan
 * failing its schema, an unknown option, an empty product, an output folder
 * holding another suite, --only matching nothing - returns NP_EUSAGE-class
 * codes (NP_ESCHEMA, NP_EPARSE, NP_ENOENT, NP_EEXIST, NP_EUSAGE,
 * NP_EUNSUPPORTED) with one line in eb before anything runs; an output
 * folder another runner holds returns NP_EAGAIN naming its pid.  Run-time
 * failures (cannot spawn, disk full) return other codes, always with
 * res->started set once the folder was written to.  res (may be NULL) is
 * zeroed first and filled as the matrix runs.  Progress and the end
 * summary go to stderr unless quiet. */
int np_matrix_run(const struct np_matrix_opts *o, FILE *out,
                  struct np_matrix_result *res, struct np_errbuf *eb);

#endif /* NP_MATRIX_H */
