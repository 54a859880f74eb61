/*
 * np_exec_run.h - one `netproof-bench exec` run on the shared controller:
 * identity of the executable (SHA-256), the environment, a kernel
 * snapshot, the program (np_exec_spawn.h), a kernel snapshot, its output
 * kept beside the record, the files its metrics read copied there too,
 * every metric evaluated from those kept bytes, and the checks.
 *
 * The kept files are written before the record, so a record never names
 * a file that is not there; their names are relative to the record's
 * folder (basename of the prefix + suffix), so a result set can move.
 *
 * Ownership: np_exec_run fills a struct the caller owns and frees with
 * np_exec_run_free (accepts NULL and a zeroed struct).
 */
#ifndef NP_EXEC_RUN_H
#define NP_EXEC_RUN_H

#include <limits.h>
#include <stdint.h>

#include "np_bench_ctl.h"
#include "np_bench_record.h"
#include "np_exec_config.h"
#include "np_exec_env.h"
#include "np_exec_spawn.h"
#include "np_sha256.h"

/* One kept file beside the record. */
struct np_exec_kept {
  char path[PATH_MAX];          /* where it was written                   */
  const char *name;             /* its name relative to the record folder */
  uint64_t bytes;               /* bytes kept                             */
  uint64_t total;               /* bytes the source had                   */
  int truncated;                /* total > bytes                          */
  char sha256[NP_SHA256_HEX_SIZE]; /* of the kept bytes                   */
};

/* A file a metric reads (one entry per distinct path). */
struct np_exec_source_file {
  const char *given;            /* the path as the metric gave it         */
  int ok;                       /* 1: read and kept (kept is valid)       */
  char error[160];              /* why not, when !ok                      */
  struct np_exec_kept kept;     /* the copy                               */
  char *data;                   /* its kept bytes while metrics run       */
};

#define NP_EXEC_MAX_CHECKS \
  (4 + NP_EXEC_MAX_METRICS + NP_EXEC_MAX_BOUNDS + NP_EXEC_MAX_SERIES)

struct np_exec_run_result {
  struct np_bench_run run;      /* times, signal, kernel snapshots        */
  struct np_exec_env env;       /* what the program ran with (owned)      */
  struct np_exec_result res;    /* how it ended, rusage, output (owned)   */
  char exe_sha256[NP_SHA256_HEX_SIZE]; /* of the executable at start      */
  uint64_t exe_bytes;           /* its size                               */
  char cwd[PATH_MAX];           /* the program's working directory        */
  struct np_exec_kept out;      /* kept stdout                            */
  struct np_exec_kept err;      /* kept stderr                            */
  struct np_exec_source_file files[NP_EXEC_MAX_METRICS]; /* file sources  */
  unsigned nfiles;              /* entries in files                       */
  int metric_file[NP_EXEC_MAX_METRICS]; /* index into files, or -1       */
  struct np_exec_metric_val val[NP_EXEC_MAX_METRICS]; /* per --metric     */
  double bound_rhs[NP_EXEC_MAX_BOUNDS];   /* right side used (NAN: none)   */
  struct np_exec_series series[NP_EXEC_MAX_SERIES]; /* per --interval-metric */
  struct np_bench_check checks[NP_EXEC_MAX_CHECKS]; /* points at below    */
  unsigned nchecks;             /* entries in checks                      */
  char check_name[NP_EXEC_MAX_CHECKS][64];    /* storage of names        */
  char check_detail[NP_EXEC_MAX_CHECKS][320]; /* storage of details      */
};

/* Run cfg's program under ctl into *r (zeroed first).  0 = r holds a run
 * (also when checks fail, it timed out or a signal ended it); NP_E* = an
 * environment error (snapshot, fork, exec, writing a kept file), one line
 * in eb, r freed. */
int np_exec_run(const struct np_exec_config *cfg, struct np_bench_ctl *ctl,
                struct np_exec_run_result *r, struct np_errbuf *eb);

void np_exec_run_free(struct np_exec_run_result *r);

/* "SIGKILL" for 9, or "SIG?" (static or into buf). */
const char *np_exec_signal_name(int signo, char *buf, size_t len);

#endif /* NP_EXEC_RUN_H */
