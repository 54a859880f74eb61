/*
 * np_matrix_summary.h - the numbers of a suite, computed from its folder
 * alone (suite.json's plan copy + runs/<id>/rep-<n>.*), so the runner, the
 * report and anyone re-checking an archive get the same figures.
 *
 * Output (schema/summary.schema.json, "netproof/summary/1"): per
 * configuration the repetitions' statuses, median/min/max of round trips/s,
 * p99 RTT, CPU %, RSS and loss, the spread flag ((max-min)/median > 10 %),
 * the loss evidence (lost echoes, per-socket kernel drops, Udp RcvbufErrors
 * delta, IPv4 reassembly delta from the runner's own kernel snapshots), and
 * a ranking per comparable group that excludes every configuration with any
 * failed repetition, listing the excluded ones with reasons.
 * Configuration status: "passed" (all repetitions passed), "confirmed"
 * (expected to fail and all did), "failed", "unexpected-pass" (expected to
 * fail, some passed) or "incomplete" (repetitions missing).
 */
#ifndef NP_MATRIX_SUMMARY_H
#define NP_MATRIX_SUMMARY_H

#include <cjson/cJSON.h>

#include "np_err.h"

/* Spread above this fraction of the median marks a configuration unstable. */
#define NP_MATRIX_SPREAD_LIMIT 0.10

/* Summarize the suite in dir.  On success *out owns a new document (free
 * with cJSON_Delete).  Errors: NP_ENOENT / NP_EPARSE (suite.json missing or
 * broken), NP_ESCHEMA (its plan no longer expands), NP_ENOMEM. */
int np_matrix_summarize(const char *dir, cJSON **out, struct np_errbuf *eb);

#endif /* NP_MATRIX_SUMMARY_H */
