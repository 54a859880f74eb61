/*
 * np_results.h - a result set (one suite folder) loaded for checking and
 * reporting, and its summary statistics.
 *
 * np_results_load parses suite.json, summary.json (when present) and
 * every runs/<config-id>/rep-<n>.json of an np_ftree into runs grouped by
 * configuration, in sorted id order so every later step is deterministic.
 * The numbers a report shows are pulled out of each record once, here;
 * a field missing from a record becomes NAN (a report shows "-").  The
 * self-check (np_results_selfcheck.h) and the report (report/) build on
 * it; nothing here draws.
 *
 * Ownership: the set owns its cJSON documents, runs and configurations;
 * np_results_free releases all of it (accepts NULL).
 */
#ifndef NP_RESULTS_H
#define NP_RESULTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_ftree.h"

#define NP_RESULTS_ID_MAX 192

/* Metrics pulled from a run record (NAN when absent). */
enum np_results_metric {
  NP_M_RPS,    /* measurement.roundtrips_per_sec               */
  NP_M_P50,    /* measurement.rtt_us.p50                       */
  NP_M_P99,    /* measurement.rtt_us.p99                       */
  NP_M_CPU,    /* measurement.cpu_percent                      */
  NP_M_RSS,    /* measurement.rss_max_bytes                    */
  NP_M_LOST,   /* counters.lost                                */
  NP_M_KDROPS, /* sockets.kernel_drops                         */
  NP_M_RCVBUF, /* kernel.delta["Udp.RcvbufErrors"]            */
  NP_M_REASM,  /* kernel.delta["Ip.ReasmReqds"]               */
  NP_M_COUNT_
};

/* Configuration dimensions, in table column order. */
enum np_results_dim {
  NP_D_PAYLOAD, /* config.payload (B)                           */
  NP_D_CLIENTS, /* config.clients                               */
  NP_D_WINDOW,  /* config.window                                */
  NP_D_MODEL,   /* config.io_model + io_threads ("pool/2")      */
  NP_D_BACKEND, /* config.backend                               */
  NP_D_SRVBUF,  /* effective server receive buffer (B)          */
  NP_D_COUNT_
};

/* System-wide kernel counters read from the runner's own snapshots
 * (rep-<n>.kernel-before.txt / -after.txt), present for failed runs too. */
enum np_results_kcounter {
  NP_K_RCVBUF,       /* Udp.RcvbufErrors                               */
  NP_K_REASM_REQDS,  /* Ip.ReasmReqds                                  */
  NP_K_REASM_OKS,    /* Ip.ReasmOKs                                    */
  NP_K_FRAG_CREATES, /* Ip.FragCreates                                 */
  NP_K_COUNT_
};

struct np_results_run {
  char id[NP_RESULTS_ID_MAX + 32]; /* "<config-id>/rep-<n>"                */
  long rep;                        /* repetition number n                  */
  const char *file;                /* tree path of the record (tree's)     */
  cJSON *doc;                      /* parsed record (owned by the run)     */
  int passed;                      /* status == "passed"                   */
  const char *status;              /* status text (owned by doc)           */
  double m[NP_M_COUNT_];           /* metrics                              */
  double kbefore[NP_K_COUNT_];     /* kernel counters before the run (NAN) */
  double kafter[NP_K_COUNT_];      /* ... and after it (NAN when absent)   */
  char *cmd;                       /* "command:" line of rep-<n>.cmd.txt
                                    * with the per-run --output replaced by
                                    * run.json, or NULL (owned by the run) */
};

struct np_results_config {
  char id[NP_RESULTS_ID_MAX];  /* config id (runs/<id>/)                   */
  struct np_results_run *runs; /* nruns runs in rep order (into set)       */
  size_t nruns;                /* runs of this configuration               */
  size_t npassed;              /* of them passed                           */
  int expect_fail;             /* suite.json says the config should fail   */
  double dimv[NP_D_COUNT_];    /* numeric dimension values, sort keys      */
  char dim[NP_D_COUNT_][48];   /* dimension values as display text         */
  int ci_method;               /* the set's enum np_results_ci_method, from
                                  summary.json (0 resampled without one)   */
};

struct np_results_set {
  char label[256];                   /* results folder name, for messages */
  cJSON *suite;                      /* suite.json or NULL                */
  cJSON *summary;                    /* summary.json or NULL              */
  struct np_results_run *runs;       /* every run, sorted by id           */
  size_t nruns;                      /* runs in the set                   */
  struct np_results_config *configs; /* sorted by id; runs point into runs */
  size_t nconfigs;                   /* configurations in the set         */
};

/* Load the set held by t.  Unparseable records are an error here (the
 * self-check reports them in detail): NP_EPARSE / NP_ENONFINITE with
 * "label/file: reason" in eb; NP_ENOENT when there is no run at all. */
int np_results_load(const struct np_ftree *t, const char *label,
                    struct np_results_set **out, struct np_errbuf *eb);

void np_results_free(struct np_results_set *s);

/* median/min/max of the metric over a configuration's runs; only passed
 * runs when passed_only.  Returns how many values went in (0 = NANs). */
size_t np_results_stat(const struct np_results_config *c,
                       enum np_results_metric m, int passed_only, double *med,
                       double *min, double *max);

/* The 95 % bootstrap interval of the median of the same values
 * (np_results_stats.h: the configuration's seed, as summary.json states
 * it).  0, NP_ERANGE (fewer than 5 values), NP_ENOMEM. */
int np_results_stat_ci(const struct np_results_config *c,
                       enum np_results_metric m, int passed_only, double *lo,
                       double *hi);

/* Median of n values (sorted copy; n > 0). */
double np_results_median(const double *v, size_t n);

/* Number at a JSON pointer ("/measurement/rtt_us/p99", np_json_pointer)
 * or NAN. */
double np_results_num(const cJSON *doc, const char *pointer);

#endif /* NP_RESULTS_H */
