/*
 * np_results_merge.h - `netproof-report merge DIR... --output SET`: the N
 * folders of one plan's `matrix --shard K/N` runs joined into one result
 * set, which then self-checks like any other (docs/guides/fleets.md; the
 * merged suite.json is described in docs/formats.md).
 *
 * Refused before anything is written (NP_EUSAGE-class, one line naming
 * the folder and the reason): a folder that is not a finished shard (no
 * "shard" in its suite.json, a runner still holding it, a status other
 * than partial), shards of different plans (plan_sha256, recomputed from
 * each plan copy) or of different N, a slice whose configurations are not
 * the cut of the plan (np_matrix_shard.h), two folders of one slice, a
 * missing slice, a configuration short of repetitions, a run folder
 * outside its slice, an output folder that is not empty.
 *
 * The set: every shard's runs/ and kept/ verbatim (their paths cannot
 * collide: the slices are disjoint, kept records carry their session id),
 * services/ under services/shard-K-NAME/, a suite.json whose sessions are
 * every shard's (each marked with its shard, in start order), with
 * "merged" keeping each shard's folder, runner, binary, machine and
 * times, "spans_hosts" true when the shards' machines or builds differ,
 * status complete; summary.json computed from the set by the matrix's own
 * builder.
 */
#ifndef NP_RESULTS_MERGE_H
#define NP_RESULTS_MERGE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_bench_opt.h"
#include "np_err.h"
#include "np_ftree.h"

/* One shard folder, loaded. */
struct np_results_shard {
  const char *dir;       /* as given (borrowed)               */
  struct np_ftree *tree; /* its files (owned)                 */
  cJSON *suite;          /* its suite.json (owned)            */
  unsigned index, count; /* its slice K of N                  */
};

/* Load dir as a shard: its files and suite.json (validated), refusing a
 * folder that is not a finished shard.  On success *out is filled (free
 * with np_results_shard_free). */
int np_results_shard_load(const char *dir, struct np_results_shard *out,
                          struct np_errbuf *eb);
void np_results_shard_free(struct np_results_shard *s); /* accepts NULL */

/* Check that shards[0..n) are the complete, disjoint slices of one plan
 * and build the merged suite.json (*suite, new tree).  NP_EUSAGE with
 * one line in eb when they are not. */
int np_results_merge_suite(const struct np_results_shard *shards, size_t n,
                           cJSON **suite, struct np_errbuf *eb);

/* `netproof-report merge ...` (argv[0] = "merge"): load, check, write
 * SET, summary.json, then the set's self-check; the exit code (0 merged
 * and clean, 1 merged but the self-check found problems, 2 bad input,
 * nothing written, 3 run-time error). */
int np_results_merge_main(int argc, char **argv);

/* merge's option table (--output SET, --help), operands DIR DIR... */
extern const struct np_bench_optset np_results_merge_optset;

#endif /* NP_RESULTS_MERGE_H */
