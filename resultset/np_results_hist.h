/*
 * np_results_hist.h - the self-check's histogram rule: every histogram a
 * record carries (an object whose "encoding" names HdrHistogram's V2
 * compressed form, common/np_hist_codec.h) must decode, agree with its
 * own exact statistics, and - where it names the member beside it that it
 * "summarizes" - reproduce every number of that summary (count, min,
 * p50, p90, p99, p99.9, max, mean; nulls where the count cannot support
 * a percentile) with the benchmarks' own summary code.
 *
 * Kept apart from the self-check engine so any engine calls it once per
 * record with its own problem callback.
 */
#ifndef NP_RESULTS_HIST_H
#define NP_RESULTS_HIST_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* One problem: ptr is a JSON pointer into the record, reason one line. */
typedef void (*np_results_hist_problem_fn)(void *ctx, const char *ptr,
                                           const char *reason);

/* Check every histogram in record; returns the number of problems
 * reported through fn (0 for records without histograms). */
size_t np_results_check_hist(const cJSON *record,
                             np_results_hist_problem_fn fn, void *ctx);

#endif /* NP_RESULTS_HIST_H */
