/* test_stats_exact - the bootstrap intervals of the median:
 *  - the counting resampler gives, bit for bit, the intervals of drawing
 *    the values into a buffer and taking its median (the implementation
 *    it replaced), for the median and the ratio of medians;
 *  - np_stats_exact_median_ci equals the percentile interval of the full
 *    enumeration of the n^n resamples (n = 5, 6, 7, with ties);
 *  - on the calibration distributions (tools/bench/stats_calibration.c)
 *    every exact end lies between the resampler's 1.5 % and 3.5 %
 *    percentiles (lower end) or 96.5 % and 98.5 % (upper end) at 10,000
 *    resamples - the Monte-Carlo error of a 2.5 % percentile at 10,000
 *    resamples is 0.16 percentage points, so 1 point is over 6 of them -
 *    and the largest difference to the 10,000-resample interval is
 *    printed. */
#include "np_test.h"

#include <math.h>

#include "np_err.h"
#include "np_rng.h"
#include "np_stats.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of_sorted(const double *s, size_t n) {
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The resampler as it was: draw into buf, take the median of a sorted
 * copy (np_stats_median's value, test_stats pins the two equal). */
static double ref_resample(const double *v, size_t n, double *buf,
                           struct np_rng *r) {
  for (size_t i = 0; i < n; i++)
    buf[i] = v[np_rng_below(r, n)];
  qsort(buf, n, sizeof *buf, cmp_d);
  return median_of_sorted(buf, n);
}

static void ref_bounds(double *stat, size_t b, double level, double *lo,
                       double *hi) {
  qsort(stat, b, sizeof *stat, cmp_d);
  double a = (1.0 - level) / 2.0;
  *lo = np_stats_quantile_sorted(stat, b, a);
  *hi = np_stats_quantile_sorted(stat, b, 1.0 - a);
}

static void test_resampler_identical(void) {
  struct np_rng g;
  np_rng_seed(&g, 99);
  double v[40], w[40], buf[40], stat[300];
  for (int trial = 0; trial < 600; trial++) {
    size_t n = NP_STATS_MIN_CI_N + np_rng_below(&g, 36);
    size_t m = NP_STATS_MIN_CI_N + np_rng_below(&g, 36);
    for (size_t i = 0; i < n; i++) /* every third trial: many ties */
      v[i] = trial % 3 ? 100 + 10 * np_rng_unit(&g)
                       : (double)np_rng_below(&g, 4);
    for (size_t i = 0; i < m; i++)
      w[i] = 1 + (double)np_rng_below(&g, trial % 3 ? 1000 : 3);
    uint64_t seed = np_rng_next(&g);
    unsigned b = 50 + (unsigned)np_rng_below(&g, 250);
    struct np_rng r;
    np_rng_seed(&r, seed);
    for (unsigned i = 0; i < b; i++)
      stat[i] = ref_resample(v, n, buf, &r);
    double lo, hi, wlo, whi;
    ref_bounds(stat, b, 0.95, &wlo, &whi);
    ASSERT_OK(np_stats_boot_median_ci(v, n, 0.95, b, seed, &lo, &hi));
    ASSERT_DBL_NEAR(lo, wlo, 0);
    ASSERT_DBL_NEAR(hi, whi, 0);
    /* the ratio of medians: a's resample, then b's, from one stream */
    np_rng_seed(&r, seed);
    for (unsigned i = 0; i < b; i++) {
      double ma = ref_resample(w, m, buf, &r);
      double mb = ref_resample(v, n, buf, &r);
      stat[i] = mb / ma;
    }
    ref_bounds(stat, b, 0.95, &wlo, &whi);
    ASSERT_OK(np_stats_boot_ratio_ci(w, m, v, n, 0.95, b, seed, &lo, &hi));
    ASSERT_DBL_NEAR(lo, wlo, 0);
    ASSERT_DBL_NEAR(hi, whi, 0);
  }
}

/* The medians of all n^n resamples of v, ascending (caller frees), each
 * with weight n^-n; *total of them. */
static double *enumerate_medians(const double *v, size_t n, size_t *total) {
  size_t t = 1;
  for (size_t i = 0; i < n; i++)
    t *= n;
  double *med = malloc(t * sizeof *med), buf[8];
  size_t idx[8] = {0};
  ASSERT_TRUE(med != NULL);
  for (size_t k = 0; k < t; k++) {
    for (size_t i = 0; i < n; i++)
      buf[i] = v[idx[i]];
    qsort(buf, n, sizeof *buf, cmp_d);
    med[k] = median_of_sorted(buf, n);
    for (size_t i = 0; i < n && ++idx[i] == n; i++) /* odometer */
      idx[i] = 0;
  }
  qsort(med, t, sizeof *med, cmp_d);
  *total = t;
  return med;
}

/* The smallest median whose share of medians <= it reaches q: the first
 * index k with (k + 1) / total >= q. */
static double enumerated_quantile(const double *med, size_t total, double q) {
  return med[(size_t)ceil(q * (double)total) - 1];
}

static void test_exact_enumeration(void) {
  struct np_rng g;
  np_rng_seed(&g, 5);
  double v[8];
  for (size_t n = 5; n <= 7; n++)
    for (int trial = 0; trial < (n == 7 ? 2 : 12); trial++) {
      for (size_t i = 0; i < n; i++)
        v[i] = trial % 2 ? 50 + 10 * np_rng_unit(&g)
                         : (double)np_rng_below(&g, 3); /* ties */
      size_t total;
      double *med = enumerate_medians(v, n, &total);
      const double levels[] = {0.95, 0.9, 0.5};
      for (size_t l = 0; l < 3; l++) {
        double lo, hi, a = (1.0 - levels[l]) / 2.0;
        ASSERT_OK(np_stats_exact_median_ci(v, n, levels[l], &lo, &hi));
        ASSERT_DBL_NEAR(lo, enumerated_quantile(med, total, a), 0);
        ASSERT_DBL_NEAR(hi, enumerated_quantile(med, total, 1.0 - a), 0);
      }
      free(med);
    }
  double lo, hi;
  ASSERT_EQ(np_stats_exact_median_ci(v, 4, 0.95, &lo, &hi), NP_ERANGE);
  ASSERT_EQ(np_stats_exact_median_ci(v, 5, 1.0, &lo, &hi), NP_EINVAL);
  ASSERT_TRUE(!np_stats_exact_median_applies(4) &&
              np_stats_exact_median_applies(5) &&
              np_stats_exact_median_applies(NP_STATS_EXACT_EVEN_MAX_N) &&
              !np_stats_exact_median_applies(NP_STATS_EXACT_EVEN_MAX_N + 2) &&
              np_stats_exact_median_applies(NP_STATS_EXACT_EVEN_MAX_N + 1) &&
              !np_stats_exact_median_applies(NP_STATS_EXACT_CI_MAX_N + 1));
  const double same[] = {7, 7, 7, 7, 7, 7};
  ASSERT_OK(np_stats_exact_median_ci(same, 6, 0.95, &lo, &hi));
  ASSERT_DBL_NEAR(lo, 7, 0);
  ASSERT_DBL_NEAR(hi, 7, 0);
}

/* stats_calibration.c's distributions, all with a true median of 100 */
static double gauss(struct np_rng *r) {
  double u1 = np_rng_unit(r), u2 = np_rng_unit(r);
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double draw(int d, struct np_rng *r) {
  if (d == 0)
    return 100.0 + 5.0 * gauss(r);
  if (d == 1)
    return exp(log(100.0) + 0.05 * gauss(r));
  return (np_rng_unit(r) < 0.5 ? 95.0 : 105.0) + 2.0 * gauss(r);
}

static void test_exact_vs_resampler(void) {
  static const size_t ns[] = {5, 6, 10, 11, 30, 31, 100};
  static const int trials[] = {24, 24, 20, 20, 12, 12, 4};
  double v[100], worst = 0;
  size_t worst_n = 0;
  for (int d = 0; d < 3; d++)
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
      struct np_rng g;
      np_rng_seed(&g, 0x5eed0000u + (uint64_t)d * 1000u + ns[k]);
      size_t n = ns[k];
      for (int t = 0; t < trials[k]; t++) {
        for (size_t i = 0; i < n; i++)
          v[i] = draw(d, &g);
        uint64_t seed = np_rng_next(&g);
        double lo, hi, blo, bhi, lo_in, hi_in, lo_out, hi_out, med;
        ASSERT_OK(np_stats_exact_median_ci(v, n, 0.95, &lo, &hi));
        ASSERT_OK(np_stats_boot_median_ci(v, n, 0.95, NP_STATS_RESAMPLES,
                                          seed, &blo, &bhi));
        ASSERT_OK(np_stats_boot_median_ci(v, n, 0.93, NP_STATS_RESAMPLES,
                                          seed, &lo_in, &hi_in));
        ASSERT_OK(np_stats_boot_median_ci(v, n, 0.97, NP_STATS_RESAMPLES,
                                          seed, &lo_out, &hi_out));
        ASSERT_OK(np_stats_median(v, n, &med));
        if (!(lo >= lo_out && lo <= lo_in && hi <= hi_out && hi >= hi_in))
          NP_TEST_FAIL_("n %zu dist %d trial %d: exact [%.17g, %.17g] "
                        "outside the resampler's bands [%.17g, %.17g] / "
                        "[%.17g, %.17g]",
                        n, d, t, lo, hi, lo_out, lo_in, hi_in, hi_out);
        double diff = fmax(fabs(lo - blo), fabs(hi - bhi)) / med;
        if (diff > worst) {
          worst = diff;
          worst_n = n;
        }
      }
    }
  printf("test_stats_exact: largest difference exact vs 10,000 resamples: "
         "%.3f %% of the median (n = %zu)\n",
         100.0 * worst, worst_n);
}

int main(void) {
  test_resampler_identical();
  test_exact_enumeration();
  test_exact_vs_resampler();
  puts("test_stats_exact: ok");
  return 0;
}
