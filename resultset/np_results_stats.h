/*
 * np_results_stats.h - the statistics a result set states about its
 * repetitions, in one place: summary.json's per-metric entries, the
 * report's confidence-interval error bars and `netproof-report compare`
 * all take their intervals, seeds and outlier flags from here, so the
 * self-check can recompute every figure with the code that wrote it.
 *
 * Methods (common/np_stats.h; docs/statistics.md states assumptions and
 * the measured calibration):
 *   - the 95 % percentile-bootstrap interval of the median, 10,000
 *     resamples, none below NP_STATS_MIN_CI_N (5) values ("too few runs
 *     for an interval");
 *   - the values are sorted before resampling, so an interval depends on
 *     the values alone, never on the order a caller holds them in;
 *   - the seed of a configuration is np_stats_seed_for(NP_RESULTS_ROOT_SEED,
 *     its id), written as 16 lowercase hex digits (a JSON number could not
 *     hold 64 bits);
 *   - outliers: modified z-score |0.6745 (x - median) / MAD| > 3.5.
 */
#ifndef NP_RESULTS_STATS_H
#define NP_RESULTS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The root of every configuration's bootstrap seed ("netproof" in ASCII). */
#define NP_RESULTS_ROOT_SEED 0x6e657470726f6f66ull
#define NP_RESULTS_CI_LEVEL 0.95
/* The reason a statistic of 1..4 values carries instead of an interval. */
#define NP_RESULTS_TOO_FEW "too few runs for an interval"

/* The bootstrap seed of configuration id, and its text ("%016x"). */
uint64_t np_results_seed_of(const char *id);
void np_results_seed_hex(uint64_t seed, char buf[17]);

/* How a set's intervals of the median are computed, as summary.json's
 * "intervals" states it in "ci_method": "resampled" (NP_STATS_RESAMPLES
 * resamples from the configuration's seed; every set written before
 * ci_method existed, which has none) or "exact" (the bootstrap
 * distribution itself, np_stats_exact_median_ci: no resampling, the same
 * figures without the Monte-Carlo error; new sets).  Where the exact form
 * does not apply or costs more (np_stats_exact_median_applies: above 1000
 * values, or an even count above 400) the resampler gives the interval
 * under either method. */
enum np_results_ci_method {
  NP_RESULTS_CI_RESAMPLED = 0,
  NP_RESULTS_CI_EXACT = 1
};
/* The method a set written now states. */
#define NP_RESULTS_CI_NEW NP_RESULTS_CI_EXACT

/* The method summary (summary.json, may be NULL) states: EXACT when its
 * "intervals" has "ci_method": "exact", else RESAMPLED. */
enum np_results_ci_method np_results_ci_method_of(const cJSON *summary);

/* The 95 % interval of the median of v[0..n) by method m (seed for the
 * resampler; a sorted copy is resampled).  0, NP_ERANGE (n < 5),
 * NP_EINVAL, NP_ENOMEM. */
int np_results_median_ci_by(const double *v, size_t n, uint64_t seed,
                            enum np_results_ci_method m, double *lo,
                            double *hi);

/* np_results_median_ci_by with the resampler. */
int np_results_median_ci(const double *v, size_t n, uint64_t seed,
                         double *lo, double *hi);

/* (hi - lo) / 2 as a percentage of |median| (NAN when median is 0). */
double np_results_half_width_pct(double lo, double hi, double median);

/* The top-level "intervals" object of summary.json: method, ci_method
 * (for EXACT only: a resampled set's summary is as it always was),
 * level, resamples, the fewest values, root seed, outlier rule. */
cJSON *np_results_intervals_json(enum np_results_ci_method m);

/* Add the statistics of v[0..n) to the stat object o, after its median /
 * min / max / n: "mean", "sd", "cv" (null when undefined), "ci95"
 * {"lo", "hi"} or null with "ci95_note" (NP_RESULTS_TOO_FEW, or "no
 * values"), and "outliers": tags[i] of every value whose modified z-score
 * is beyond 3.5 (repetition numbers, or round indices), ascending as
 * given.  The interval is the median's (np_results_median_ci_by with m).
 * Returns 0 or NP_ENOMEM. */
int np_results_stat_extend(cJSON *o, const double *v, const long *tags,
                           size_t n, uint64_t seed,
                           enum np_results_ci_method m);

/* The extended members np_results_stat_extend adds, NULL-terminated (the
 * self-check leaves them out of a summary written before they existed). */
extern const char *const np_results_stat_members[];

#endif /* NP_RESULTS_STATS_H */
