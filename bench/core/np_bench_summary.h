/*
 * np_bench_summary.h - the one-object summary of a run record
 * (`--summary json`): what a script wants from a run - status, the
 * configuration's key options, rates, percentiles, CPU, memory, loss and
 * the failed checks - flat, in a few hundred bytes instead of the record's
 * tens of kilobytes (docs/formats.md, "Run summary").
 */
#ifndef NP_BENCH_SUMMARY_H
#define NP_BENCH_SUMMARY_H

#include <cjson/cJSON.h>

/* The --summary values are np_bench_summary_choices (common/np_bench_opt.h),
 * index = the stored value. */
enum np_bench_summary_kind { NP_BENCH_SUMMARY_TEXT, NP_BENCH_SUMMARY_JSON };

/* A new "netproof/run-summary/1" object from a run record (either kind);
 * fields the record lacks are left out.  NULL when memory ran out. */
cJSON *np_bench_summary_of(const cJSON *record);

#endif /* NP_BENCH_SUMMARY_H */
