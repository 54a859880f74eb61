/*
 * np_results_exec.h - result sets of `netproof-bench exec` (any benchmark
 * program; docs/guides/any-benchmark.md): which sets they are, the
 * metrics their records carry (exec.metrics[]), and those metrics'
 * statistics by the rule of summary.json's "exec.NAME" entries (median,
 * min and max over the repetitions that have the value; every value goes
 * in).  Shared by the self-check and the report.
 */
#ifndef NP_RESULTS_EXEC_H
#define NP_RESULTS_EXEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_results.h"

/* 1 when the set's suite (or, without suite.json, its first record) is
 * an exec suite. */
int np_results_is_exec(const struct np_results_set *s);

/* The value of metric name in a record's exec.metrics, or NAN (absent, or
 * the record says why it has none). */
double np_results_exec_value(const cJSON *rec, const char *name);

/* median/min/max of metric name over c's runs (passed runs only when
 * passed_only); returns how many values went in (0: all NAN). */
size_t np_results_exec_stat(const struct np_results_config *c,
                            const char *name, int passed_only, double *med,
                            double *min, double *max);

/* The 95 % bootstrap interval of the median of the same values (the
 * configuration's seed, np_results_stats.h).  0, NP_ERANGE (fewer than 5
 * values), NP_ENOMEM. */
int np_results_exec_ci(const struct np_results_config *c, const char *name,
                       int passed_only, double *lo, double *hi);

#endif /* NP_RESULTS_EXEC_H */
