/*
 * np_results_summary_rudp.h - the reliable-UDP part of summary.json, shared
 * by the matrix runner (which writes summary.json) and the self-check
 * (which rebuilds it from the records and compares).
 *
 * A `netproof-bench rudp` record measures several rounds in one process
 * (docs/rudp.md); its top-level measurement is the median round (by round
 * trips/s) and rudp.rounds[] keeps every round.  For a rudp configuration
 * the summary therefore states its basis ("stats_basis"):
 *
 *   - "rounds" when the plan runs one repetition: median / min / max over
 *     that process's rounds (the reference's rule: its 3 rounds are the
 *     repetitions);
 *   - "repetitions" otherwise: over the repetitions, each contributing its
 *     record's median round.
 *
 * Each metric is taken from the round record as written (per-round
 * "cpu_percent", "network_overhead_percent", ...), never re-derived.
 * np_results_summary_rudp_rep gives each repetition entry its "rudp":
 * {rounds: [{round, status, <metric>...}], median_round}; the accumulator
 * is created per configuration, fed those entries, then writes its stats.
 */
#ifndef NP_RESULTS_SUMMARY_RUDP_H
#define NP_RESULTS_SUMMARY_RUDP_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_results_stats.h"

/* Number of round metrics and the name of metric i (summary stats keys:
 * roundtrips_per_sec, rtt_p99_us, rtt_p50_us, cpu_percent, rss_max_bytes,
 * network_overhead_percent, retransmits_per_1000_roundtrips,
 * recoveries_per_1000_roundtrips, unrecoverable_groups,
 * fec_retained_peak_bytes, relay_route_peak_bytes_sum,
 * applied_loss_percent, cpu_us_per_roundtrip). */
size_t np_results_summary_rudp_nmetrics(void);
const char *np_results_summary_rudp_metric(size_t i);

/* Value of metric i in one element of a record's rudp.rounds[]; 0 when
 * absent or not a number (null p99 from too few samples). */
int np_results_summary_rudp_round_metric(const cJSON *round, size_t i,
                                         double *v);

/* Add "rudp" to the repetition entry rep from its record rec (nothing for
 * a record without a rudp part, e.g. one the runner wrote for a crashed
 * child). */
void np_results_summary_rudp_rep(const cJSON *rec, cJSON *rep);

struct np_results_rudp_acc;

/* by_rounds: 1 for the "rounds" basis.  NULL on allocation failure. */
struct np_results_rudp_acc *np_results_rudp_acc_new(int by_rounds);

/* Add one finished repetition's entry (with its "rudp", if any); n is its
 * repetition number (the tag of its values on the repetitions basis). */
void np_results_rudp_acc_add(struct np_results_rudp_acc *a, const cJSON *rep,
                             long n);

/* Write "stats_basis" and replace / add every round metric in the
 * configuration's "stats" (with np_results_stat_extend's members: the
 * interval with seed, outliers tagged by round index on the rounds basis
 * and by repetition number otherwise), and "spread" / "unstable" from
 * round trips/s on the chosen basis.  *median_rps receives the new median
 * or -1.  0 or NP_ENOMEM. */
int np_results_rudp_acc_finish(struct np_results_rudp_acc *a, cJSON *config,
                               double spread_limit, uint64_t seed,
                               enum np_results_ci_method m,
                               double *median_rps);

void np_results_rudp_acc_free(struct np_results_rudp_acc *a); /* NULL ok */

#endif /* NP_RESULTS_SUMMARY_RUDP_H */
