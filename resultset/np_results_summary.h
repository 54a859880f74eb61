/*
 * np_results_summary.h - summary.json ("netproof/summary/1",
 * schema/summary.schema.json) as a pure function of a suite's plan, its
 * records and the runner's kernel snapshots.
 *
 * One implementation for everyone: the matrix runner reads a folder and
 * writes summary.json with it (runner/np_matrix_summary.c), and the
 * self-check rebuilds summary.json with it from the records it streams
 * and compares every field - so a statistic, a status, a ranking or an
 * `expect` edited in summary.json is caught, and no second
 * implementation can drift.
 *
 * Contents: per configuration the repetitions' statuses, median/min/max of
 * round trips/s, p99 RTT, CPU %, RSS, loss, per-socket kernel drops and
 * the runner's kernel deltas, the spread flag ((max-min)/median > 10 %),
 * and a ranking per comparable group that excludes every configuration
 * with any failed repetition, listing the excluded ones with reasons.
 * Configuration status: "passed" (all repetitions passed), "confirmed"
 * (expected to fail and all did), "failed", "unexpected-pass" (expected to
 * fail, some passed) or "incomplete" (repetitions missing).
 */
#ifndef NP_RESULTS_SUMMARY_H
#define NP_RESULTS_SUMMARY_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_kernel.h"
#include "np_matrix_plan.h"

/* Spread above this fraction of the median marks a configuration unstable. */
#define NP_RESULTS_SPREAD_LIMIT 0.10

/* Repetition n's entry of summary.json of a protocol's plan ("udp",
 * "rudp": the plan's, which names the benchmark): from its record rec
 * (NULL when the repetition has no record that parses as an object:
 * "missing") and the runner's snapshots before / after it (NULL when
 * absent or unreadable: null kernel deltas).  NULL on no memory. */
cJSON *np_results_summary_rep(const char *protocol, int n,
                              const cJSON *rec, const struct np_kernel *before,
                              const struct np_kernel *after);

/* The whole document from the plan and reps[c * p->repetitions + (n - 1)],
 * the entry of configuration c's repetition n (np_results_summary_rep;
 * ownership passes to the function, which frees every entry whatever the
 * outcome).  On success *out owns the document.  NP_ENOMEM. */
int np_results_summary_build(const struct np_matrix_plan *p, cJSON **reps,
                             cJSON **out, struct np_errbuf *eb);

#endif /* NP_RESULTS_SUMMARY_H */
