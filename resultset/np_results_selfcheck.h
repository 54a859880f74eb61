/*
 * np_results_selfcheck.h - prove a result set without running anything.
 *
 * The self-check reads a suite folder as an np_ftree (a folder on disk or
 * the payload of an archive being verified in memory) and reports every
 * problem it finds, one call per problem, never stopping at the first:
 *   - every JSON file parses (no NaN/Infinity) and validates against the
 *     schema named by its "schema" field (suite, run, summary);
 *   - suite.json, summary.json and runs/ agree: every planned repetition is
 *     present, summary values are recomputable from the runs;
 *   - all runs share tool.source_sha256 and tool.binary_sha256;
 *   - per-run invariants (counter legs, monotone percentiles, rates equal
 *     counts over durations within 0.5 %, no negative counts);
 *   - every run has its .stderr.txt, .cmd.txt and kernel before/after files;
 *   - no duplicated run ids.
 * Problems are reported as (file, pointer, reason): file is the path inside
 * the tree prefixed by label and '/' when label is non-empty, pointer a JSON
 * pointer ("" when the problem is about the whole file).
 */
#ifndef NP_RESULTS_SELFCHECK_H
#define NP_RESULTS_SELFCHECK_H

#include "np_ftree.h"

/* One problem; the strings are valid only during the call. */
typedef void (*np_results_problem_fn)(void *ctx, const char *file,
                                      const char *pointer, const char *reason);

/* Check the suite folder held by t (paths relative to the suite folder).
 * Returns 0 when clean, NP_ECHECK when at least one problem was reported,
 * or another NP_E* code (NP_ENOMEM) when the check itself could not run.
 * on_problem may be NULL (then only the return value tells). */
int np_results_self_check(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx);

#endif /* NP_RESULTS_SELFCHECK_H */
