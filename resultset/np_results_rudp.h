/*
 * np_results_rudp.h - the statistics of `netproof-bench rudp` result sets
 * (issue 8), shared by the self-check and the report.
 *
 * The rule is summary.json's (np_results_summary_rudp.h): a
 * configuration run as one process of several rounds uses its rounds -
 * the median is the record's median round (rudp.median_round, by round
 * trips/s), min / max span the rounds - and a configuration with several
 * repetitions uses each record's median round.  Every value goes in: no
 * fixed buffer caps the number of rounds or repetitions.
 */
#ifndef NP_RESULTS_RUDP_H
#define NP_RESULTS_RUDP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_results.h"

/* Round metrics (same names as summary.json's rudp stats). */
enum np_results_rudp_metric {
  NP_R_RPS,      /* measurement.roundtrips_per_sec                 */
  NP_R_P99,      /* measurement.rtt_us.p99                         */
  NP_R_P50,      /* measurement.rtt_us.p50                         */
  NP_R_CPU,      /* measurement.cpu_percent                        */
  NP_R_RSS,      /* measurement.rss_max_bytes                      */
  NP_R_OVERHEAD, /* arq.network_overhead_percent                   */
  NP_R_RETX,     /* arq.retransmits_per_1000_roundtrips            */
  NP_R_RECOV,    /* fec.recoveries_per_1000_roundtrips             */
  NP_R_UNREC,    /* fec.unrecoverable_groups                       */
  NP_R_RETAINED, /* fec.retained.peak_sum_bytes                    */
  NP_R_RELAY,    /* relay.route_peak_bytes_sum                     */
  NP_R_LOSS,     /* relay.window.applied_loss_percent              */
  NP_R_CPU_RT,   /* 1e6 x (cpu user + sys) / round trips (us)      */
  NP_R_COUNT_
};

/* Summary.json key of a metric. */
const char *np_results_rudp_metric_key(enum np_results_rudp_metric m);

/* Value of m in one element of a record's rudp.rounds[] (NAN if absent). */
double np_results_rudp_round_value(const cJSON *round,
                                   enum np_results_rudp_metric m);

/* Statistics of m over c's records by the rule above; NAN when there is no
 * value.  *n (may be NULL) receives the number of values.  Returns 0, or
 * NP_ENOMEM (then every output is NAN and *n is 0). */
int np_results_rudp_stat(const struct np_results_config *c,
                         enum np_results_rudp_metric m, double *med,
                         double *min, double *max, size_t *n);

/* The 95 % bootstrap interval of the median of the same values (the
 * configuration's seed, np_results_stats.h).  0, NP_ERANGE (fewer than 5
 * values), NP_ENOMEM. */
int np_results_rudp_ci(const struct np_results_config *c,
                       enum np_results_rudp_metric m, double *lo, double *hi);

/* 1 when the set's runs are `netproof-bench rudp` records. */
int np_results_is_rudp(const struct np_results_set *s);

#endif /* NP_RESULTS_RUDP_H */
