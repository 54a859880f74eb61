/*
 * np_matrix_shard.h - `matrix --shard K/N`: a plan cut into N slices, one
 * per machine of a fleet (docs/guides/fleets.md), each run into its own
 * folder and joined again by `netproof-report merge`.
 *
 * The cut is a pure function of the plan and N, so every machine and the
 * merge compute the same slices without talking to each other: every
 * configuration goes to exactly one slice, longest first (estimated time
 * x repetitions, ties in plan order) to the slice with the least time so
 * far (ties: the lowest index) - the greedy longest-processing-time rule,
 * within 4/3 of the best possible makespan.  A slice holds whole
 * configurations: all repetitions of one configuration run on one
 * machine, so its spread is one machine's.
 */
#ifndef NP_MATRIX_SHARD_H
#define NP_MATRIX_SHARD_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

#define NP_MATRIX_SHARDS_MAX 1000

/* "K/N" (0 <= K < N <= NP_MATRIX_SHARDS_MAX) into *k, *n.  NP_EUSAGE
 * with "--shard 'text': reason" in eb. */
int np_matrix_shard_parse(const char *text, unsigned *k, unsigned *n,
                          struct np_errbuf *eb);

/* suite.json's "shard" object read back (a folder's file, so untrusted):
 * index and count integers, 1 <= count <= NP_MATRIX_SHARDS_MAX and
 * 0 <= index < count, into *k, *n.  NP_EUSAGE with "/shard/FIELD: reason"
 * in eb (the caller names the file). */
int np_matrix_shard_read(const cJSON *shard, unsigned *k, unsigned *n,
                         struct np_errbuf *eb);

/* The slice of every configuration: shard_of[i] for plan configuration
 * i (nconfigs entries), and each slice's estimated seconds in est[0..n)
 * (may be NULL).  NP_EUSAGE when n is 0 or exceeds the plan's
 * configurations (a slice would be empty). */
int np_matrix_shard_assign(const struct np_matrix_plan *p, unsigned n,
                           unsigned *shard_of, double *est,
                           struct np_errbuf *eb);

/* suite.json's "shard" object for slice k of n; NULL on no memory or
 * when the cut fails (eb). */
cJSON *np_matrix_shard_json(const struct np_matrix_plan *p, unsigned k,
                            unsigned n, struct np_errbuf *eb);

#endif /* NP_MATRIX_SHARD_H */
