/*
 * np_stats.h - statistics of benchmark repetitions: description, outliers,
 * bootstrap confidence intervals, the Mann-Whitney U test, Holm's
 * correction.  Everything here is a pure function of its inputs (and of a
 * seed where resampling is involved), so the self-check can recompute any
 * figure a summary or a comparison states, exactly.
 *
 * Methods (docs/statistics.md states their assumptions and calibration):
 *  - median: middle value, mean of the two middle values for even n;
 *    quantiles: linear interpolation between order statistics (Hyndman and
 *    Fan type 7, R's default);
 *  - sd: sample standard deviation (n - 1); cv = sd / |mean|;
 *  - outliers: modified z-score 0.6745 (x - median) / MAD (Iglewicz and
 *    Hoaglin 1993), |z| > 3.5 flagged; when MAD is 0 the mean absolute
 *    deviation scaled by 1.253314 replaces 0.6745 / MAD (IBM's rule), and
 *    when that is 0 too every value equals the median (z = 0);
 *  - intervals: percentile bootstrap (Efron), `resamples` resamples with
 *    replacement drawn from np_rng seeded with `seed`, or for the median
 *    the exact bootstrap distribution (np_stats_exact_median_ci); refused
 *    below NP_STATS_MIN_CI_N values (too few runs for an interval);
 *  - Mann-Whitney U: two-sided; exact null distribution (q-binomial
 *    coefficients, in doubles) when there are no ties and na + nb <= 100,
 *    otherwise the
 *    normal approximation with tie and continuity correction;
 *  - Holm (1979) step-down adjustment of a family of p-values.
 *
 * Errors: NP_EINVAL (n == 0 where values are needed), NP_ERANGE (too few
 * values for an interval), NP_ENOMEM.  Out-parameters are written only on
 * success.
 */
#ifndef NP_STATS_H
#define NP_STATS_H

#include <stddef.h>
#include <stdint.h>

#define NP_STATS_MIN_CI_N 5        /* fewer values: no interval        */
#define NP_STATS_RESAMPLES 10000u  /* default bootstrap resamples      */
#define NP_STATS_OUTLIER_Z 3.5     /* modified z-score threshold       */
#define NP_STATS_EXACT_MAX_N 100   /* na + nb for the exact U test     */

struct np_stats_desc {
  size_t n;
  double median, min, max;
  double mean;
  double sd;  /* sample standard deviation; NAN when n < 2            */
  double cv;  /* sd / |mean|; NAN when n < 2 or mean == 0            */
  double mad; /* median absolute deviation from the median (unscaled) */
};

/* Describe v[0..n). */
int np_stats_describe(const double *v, size_t n, struct np_stats_desc *out);

/* Median of v[0..n) into *out (a sorted copy is made). */
int np_stats_median(const double *v, size_t n, double *out);

/* Type-7 quantile q in [0, 1] of an ascending array (n > 0). */
double np_stats_quantile_sorted(const double *sorted, size_t n, double q);

/* Modified z-score of every value into z[0..n); |z[i]| >
 * NP_STATS_OUTLIER_Z marks an outlier. */
int np_stats_modz(const double *v, size_t n, double *z);

/* Percentile-bootstrap interval at level (0.95) for the median of
 * v[0..n).  NP_ERANGE when n < NP_STATS_MIN_CI_N. */
int np_stats_boot_median_ci(const double *v, size_t n, double level,
                            unsigned resamples, uint64_t seed, double *lo,
                            double *hi);

/* The same interval as np_stats_boot_median_ci with infinitely many
 * resamples: the bootstrap distribution of the median follows from
 * binomial probabilities over the order statistics (np_stats_exact.c), so
 * no seed is involved.  Its ends are the smallest values of that
 * distribution whose cumulative probability reaches (1 - level) / 2 and
 * (1 + level) / 2; O(n^2) time for odd n, O(n^2 log n) and O(n^2)
 * memory for even n.
 * NP_ERANGE when n < NP_STATS_MIN_CI_N or n > NP_STATS_EXACT_CI_MAX_N. */
#define NP_STATS_EXACT_CI_MAX_N 1000
int np_stats_exact_median_ci(const double *v, size_t n, double level,
                             double *lo, double *hi);

/* 1 when a caller that may choose should take the exact form for n
 * values: NP_STATS_MIN_CI_N <= n <= NP_STATS_EXACT_CI_MAX_N, and for even
 * n at most NP_STATS_EXACT_EVEN_MAX_N, where its n^2 / 2 pairs start to
 * cost more than 10,000 resamples (886 values: 0.24 s against 0.13 s). */
#define NP_STATS_EXACT_EVEN_MAX_N 400
int np_stats_exact_median_applies(size_t n);

/* Percentile-bootstrap interval for median(b) / median(a), resampling a
 * and b independently.  NP_ERANGE when either has fewer than
 * NP_STATS_MIN_CI_N values or a resampled median of a is 0. */
int np_stats_boot_ratio_ci(const double *a, size_t na, const double *b,
                           size_t nb, double level, unsigned resamples,
                           uint64_t seed, double *lo, double *hi);

/* Two-sided Mann-Whitney U test of a against b.  *u is U of a (the
 * number of pairs (x in a, y in b) with x > y, ties counting 1/2), *p the
 * p-value, *exact 1 when the exact distribution was used. */
int np_stats_mann_whitney(const double *a, size_t na, const double *b,
                          size_t nb, double *u, double *p, int *exact);

/* The smallest two-sided p-value the exact Mann-Whitney test can give
 * for na and nb values without ties: 2 / C(na + nb, na) (the two most
 * extreme orderings), at most 1; 1 when either side is empty.  Below
 * alpha it decides whether a comparison at these run counts can conclude
 * at all (3 + 3 values: 0.1, so never at 0.05). */
double np_stats_mw_min_p(size_t na, size_t nb);

/* The smallest n such that m comparisons of n values a side, Holm-
 * corrected as one family, can reach an adjusted p below alpha:
 * m * np_stats_mw_min_p(n, n) < alpha.  0 when m == 0 or no n up to
 * NP_STATS_MW_MAX_N does. */
#define NP_STATS_MW_MAX_N 1000
size_t np_stats_mw_min_n(size_t m, double alpha);

/* Holm-adjusted p-values adj[0..n) of p[0..n) (same order as p). */
int np_stats_holm(const double *p, size_t n, double *adj);

/* One metric of one configuration compared between two sets. */
enum np_stats_verdict {
  NP_STATS_NO_CHANGE, /* not significant, or within the noise threshold */
  NP_STATS_BETTER,    /* significant and beyond the threshold, better   */
  NP_STATS_WORSE      /* significant and beyond the threshold, worse    */
};

struct np_stats_cmp {
  double base_median, new_median;
  double ratio;          /* new_median / base_median (NAN if base is 0)  */
  int has_ci;            /* 1 when both sides have >= NP_STATS_MIN_CI_N  */
  double ci_lo, ci_hi;   /* bootstrap interval of the ratio (has_ci)     */
  double u, p;           /* Mann-Whitney U of new against base, p-value  */
  int exact;             /* exact U distribution used                    */
};

/* Compare new[0..nn) with base[0..nb): medians, their ratio with a
 * percentile-bootstrap interval at level (when both sides allow one) and
 * the two-sided Mann-Whitney p-value. */
int np_stats_compare(const double *base, size_t nb, const double *new_,
                     size_t nn, double level, unsigned resamples,
                     uint64_t seed, struct np_stats_cmp *out);

/* The verdict for a comparison whose p-value, after any correction for
 * the family it belongs to, is p_adj: a change counts only when p_adj <
 * alpha AND |ratio - 1| > threshold (a fraction: 0.02 = 2 %); which way
 * is better follows higher_is_better. */
enum np_stats_verdict np_stats_verdict_of(double ratio, double p_adj,
                                          double alpha, double threshold,
                                          int higher_is_better);

/* A per-item seed derived from a root seed and an item's id (FNV-1a of
 * the id, mixed with splitmix64), so an item's resamples do not depend on
 * which other items a set holds or their order. */
uint64_t np_stats_seed_for(uint64_t root, const char *id);

#endif /* NP_STATS_H */
