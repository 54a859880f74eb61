/*
 * stats_calibration.c - measures how the statistics of `netproof-report
 * compare` and of summary.json behave on samples whose truth is known.
 *
 *   A/A:      both samples from one distribution; the share of "significant
 *             change" verdicts is the false-positive rate (must be <= alpha).
 *   power:    the new sample's values are the base's distribution scaled by
 *             1.05 or 1.10; the share of "better" verdicts is the power.
 *   coverage: the share of 95 % bootstrap intervals of the median that hold
 *             the distribution's true median.
 * Distributions (all with a true median of 100): normal (sd 5), log-normal
 * (sigma 0.05), bimodal (N(95, 2) or N(105, 2) with equal weight).  The
 * verdict cells take 10 x `trials` comparisons (no bootstrap is needed for
 * a verdict), the coverage cells `trials` intervals; every draw comes from
 * np_rng with a fixed seed, so the table is the same on every machine.
 * Each rate is printed with +- 1.96 binomial standard errors.  Prints
 * Markdown on stdout.
 *
 * usage: np_stats_calibration [--trials N] [--resamples B]
 * A benchmark helper, not a test: docs/statistics.md quotes its output.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_rng.h"
#include "np_stats.h"

enum dist { NORMAL, LOGNORMAL, BIMODAL, NDIST };
static const char *const dist_name[] = {"normal (cv 5 %)",
                                        "log-normal (sigma 0.05)",
                                        "bimodal (95 / 105, sd 2)"};
static const size_t ns[] = {3, 5, 10, 30};
#define NN (sizeof ns / sizeof ns[0])
#define ALPHA 0.05
#define THRESHOLD 0.02

static double gauss(struct np_rng *r) {
  double u1 = np_rng_unit(r), u2 = np_rng_unit(r);
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double draw(enum dist d, struct np_rng *r) {
  switch (d) {
  case NORMAL:
    return 100.0 + 5.0 * gauss(r);
  case LOGNORMAL:
    return exp(log(100.0) + 0.05 * gauss(r));
  default:
    return (np_rng_unit(r) < 0.5 ? 95.0 : 105.0) + 2.0 * gauss(r);
  }
}

static void fill(double *v, size_t n, enum dist d, double scale,
                 struct np_rng *r) {
  for (size_t i = 0; i < n; i++)
    v[i] = scale * draw(d, r);
}

/* Share of trials whose verdict is `want` (any change when want < 0). */
static double verdict_rate(enum dist d, size_t n, double shift, int want,
                           unsigned trials, double threshold) {
  struct np_rng r;
  np_rng_seed(&r, 0x5eed0000u + (uint64_t)d * 1000u + n);
  double a[64], b[64];
  unsigned hits = 0;
  for (unsigned t = 0; t < trials; t++) {
    double ma, mb, u, p;
    int exact;
    fill(a, n, d, 1.0, &r);
    fill(b, n, d, shift, &r);
    /* what np_stats_compare feeds the verdict: the ratio of medians and
     * the U test's p-value (its bootstrap interval does not enter it) */
    if (np_stats_median(a, n, &ma) != 0 || np_stats_median(b, n, &mb) != 0 ||
        np_stats_mann_whitney(b, n, a, n, &u, &p, &exact) != 0)
      return NAN;
    enum np_stats_verdict v =
        np_stats_verdict_of(mb / ma, p, ALPHA, threshold, 1);
    hits += want < 0 ? v != NP_STATS_NO_CHANGE : (int)v == want;
  }
  return (double)hits / trials;
}

static double coverage(enum dist d, size_t n, unsigned trials,
                       unsigned resamples) {
  struct np_rng r;
  np_rng_seed(&r, 0xc0de0000u + (uint64_t)d * 1000u + n);
  double a[64];
  unsigned hits = 0;
  for (unsigned t = 0; t < trials; t++) {
    double lo, hi;
    fill(a, n, d, 1.0, &r);
    if (np_stats_boot_median_ci(a, n, 0.95, resamples, t, &lo, &hi) != 0)
      return NAN;
    hits += lo <= 100.0 && 100.0 <= hi;
  }
  return (double)hits / trials;
}

/* A rate measured over n trials, with +- 1.96 standard errors. */
static void pct(double v, unsigned n) {
  if (isnan(v))
    printf(" refused |");
  else
    printf(" %.1f +- %.1f %% |", 100.0 * v,
           196.0 * sqrt(v * (1 - v) / (double)n));
}

int main(int argc, char **argv) {
  unsigned trials = 1000, resamples = NP_STATS_RESAMPLES;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--trials"))
      trials = (unsigned)strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--resamples"))
      resamples = (unsigned)strtoul(argv[i + 1], NULL, 10);
  }
  if (trials == 0 || resamples == 0) {
    fprintf(stderr, "usage: np_stats_calibration [--trials N] [--resamples B]\n");
    return 2;
  }
  printf("Calibration: %u comparisons per verdict cell, %u intervals of %u "
         "bootstrap resamples per coverage cell, alpha %.2f, noise "
         "threshold %.0f %%.\n\n", 10 * trials, trials, resamples, ALPHA,
         100 * THRESHOLD);
  printf("| distribution | n | A/A false changes | A/A, no threshold | "
         "power +5 %% | power +10 %% | 95 %% CI coverage |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (int d = 0; d < NDIST; d++) {
    for (size_t k = 0; k < NN; k++) {
      size_t n = ns[k];
      printf("| %s | %zu |", dist_name[d], n);
      unsigned vt = 10 * trials;
      pct(verdict_rate(d, n, 1.0, -1, vt, THRESHOLD), vt);
      pct(verdict_rate(d, n, 1.0, -1, vt, 0.0), vt);
      pct(verdict_rate(d, n, 1.05, NP_STATS_BETTER, vt, THRESHOLD), vt);
      pct(verdict_rate(d, n, 1.10, NP_STATS_BETTER, vt, THRESHOLD), vt);
      pct(n >= NP_STATS_MIN_CI_N ? coverage(d, n, trials, resamples) : NAN,
          trials);
      printf("\n");
    }
  }
  return 0;
}
