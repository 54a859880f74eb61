/* test_stats - np_stats against values worked out by hand (and np_rng's
 * reference stream), so every method the summaries use is pinned. */
#include "np_test.h"

#include <math.h>

#include "np_err.h"
#include "np_rng.h"
#include "np_stats.h"

static void test_rng(void) {
  /* splitmix64 from 0: first output of the reference implementation */
  uint64_t x = 0;
  ASSERT_UINT_EQ(np_rng_splitmix64(&x), 0xe220a8397b1dcdafull);
  struct np_rng a, b;
  np_rng_seed(&a, 42);
  np_rng_seed(&b, 42);
  for (int i = 0; i < 100; i++)
    ASSERT_UINT_EQ(np_rng_next(&a), np_rng_next(&b));
  unsigned hits[7] = {0};
  for (int i = 0; i < 70000; i++) {
    uint64_t v = np_rng_below(&a, 7);
    ASSERT_LT(v, 7);
    hits[v]++;
  }
  for (int i = 0; i < 7; i++) /* 10,000 expected, sd ~93: 6 sd */
    ASSERT_LT(fabs((double)hits[i] - 10000.0), 600.0);
  double u = np_rng_unit(&a);
  ASSERT_TRUE(u >= 0 && u < 1);
}

static void test_describe(void) {
  const double v[] = {4, 1, 100, 3, 2};
  struct np_stats_desc d;
  ASSERT_OK(np_stats_describe(v, 5, &d));
  ASSERT_EQ(d.n, 5);
  ASSERT_DBL_NEAR(d.median, 3, 0);
  ASSERT_DBL_NEAR(d.min, 1, 0);
  ASSERT_DBL_NEAR(d.max, 100, 0);
  ASSERT_DBL_NEAR(d.mean, 22, 1e-12);
  ASSERT_DBL_NEAR(d.sd, sqrt(7610.0 / 4.0), 1e-9);
  ASSERT_DBL_NEAR(d.cv, sqrt(7610.0 / 4.0) / 22.0, 1e-12);
  ASSERT_DBL_NEAR(d.mad, 1, 0);
  const double one[] = {7};
  ASSERT_OK(np_stats_describe(one, 1, &d));
  ASSERT_TRUE(isnan(d.sd) && isnan(d.cv));
  ASSERT_EQ(np_stats_describe(v, 0, &d), NP_EINVAL);
  const double even[] = {4, 1, 3, 2};
  double m;
  ASSERT_OK(np_stats_median(even, 4, &m));
  ASSERT_DBL_NEAR(m, 2.5, 0);
  const double s[] = {1, 2, 3, 4};
  ASSERT_DBL_NEAR(np_stats_quantile_sorted(s, 4, 0.25), 1.75, 1e-12);
  ASSERT_DBL_NEAR(np_stats_quantile_sorted(s, 4, 1), 4, 0);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The selection-based median against a sort, on random arrays with many
 * ties and of every small length. */
static void test_median_select(void) {
  struct np_rng r;
  np_rng_seed(&r, 11);
  double v[41], s[41];
  for (int trial = 0; trial < 4000; trial++) {
    size_t n = 1 + np_rng_below(&r, 41);
    for (size_t i = 0; i < n; i++)
      v[i] = (double)np_rng_below(&r, trial % 2 ? 5 : 1000);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_d);
    double want = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, got;
    ASSERT_OK(np_stats_median(v, n, &got));
    ASSERT_DBL_NEAR(got, want, 0);
  }
}

static void test_modz(void) {
  const double v[] = {4, 1, 100, 3, 2};
  double z[5];
  ASSERT_OK(np_stats_modz(v, 5, z));
  ASSERT_DBL_NEAR(z[2], 0.6745 * 97, 1e-9);
  ASSERT_TRUE(fabs(z[2]) > NP_STATS_OUTLIER_Z);
  ASSERT_DBL_NEAR(z[1], -0.6745 * 2, 1e-9);
  /* MAD 0: mean absolute deviation takes over */
  const double w[] = {5, 5, 5, 5, 9};
  ASSERT_OK(np_stats_modz(w, 5, z));
  ASSERT_DBL_NEAR(z[0], 0, 0);
  ASSERT_DBL_NEAR(z[4], 4.0 / (1.253314 * 0.8), 1e-9);
  const double same[] = {3, 3, 3};
  ASSERT_OK(np_stats_modz(same, 3, z));
  ASSERT_DBL_NEAR(z[2], 0, 0);
}

static void test_bootstrap(void) {
  const double v[] = {100, 102, 98, 101, 99, 103, 97};
  double lo, hi, lo2, hi2;
  ASSERT_OK(np_stats_boot_median_ci(v, 7, 0.95, 2000, 7, &lo, &hi));
  ASSERT_OK(np_stats_boot_median_ci(v, 7, 0.95, 2000, 7, &lo2, &hi2));
  ASSERT_DBL_NEAR(lo, lo2, 0); /* same seed, same interval */
  ASSERT_DBL_NEAR(hi, hi2, 0);
  ASSERT_TRUE(lo <= 100 && hi >= 100 && lo >= 97 && hi <= 103);
  ASSERT_EQ(np_stats_boot_median_ci(v, 4, 0.95, 2000, 7, &lo, &hi),
            NP_ERANGE);
  const double c[] = {5, 5, 5, 5, 5};
  ASSERT_OK(np_stats_boot_median_ci(c, 5, 0.95, 100, 1, &lo, &hi));
  ASSERT_DBL_NEAR(lo, 5, 0);
  ASSERT_DBL_NEAR(hi, 5, 0);
  const double b[] = {110, 112, 108, 111, 109};
  ASSERT_OK(np_stats_boot_ratio_ci(v, 7, b, 5, 0.95, 2000, 3, &lo, &hi));
  ASSERT_TRUE(lo > 1.0 && hi < 1.2 && lo < 1.1 && hi > 1.1);
}

static void test_mann_whitney(void) {
  double u, p;
  int exact;
  const double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
  ASSERT_OK(np_stats_mann_whitney(a3, 3, b3, 3, &u, &p, &exact));
  ASSERT_EQ(exact, 1);
  ASSERT_DBL_NEAR(u, 0, 0);
  ASSERT_DBL_NEAR(p, 2.0 / 20.0, 1e-12); /* 3 vs 3 can never reach 0.05 */
  const double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
  ASSERT_OK(np_stats_mann_whitney(a5, 5, b5, 5, &u, &p, &exact));
  ASSERT_DBL_NEAR(p, 2.0 / 252.0, 1e-12);
  ASSERT_OK(np_stats_mann_whitney(b5, 5, a5, 5, &u, &p, &exact));
  ASSERT_DBL_NEAR(u, 25, 0);
  ASSERT_DBL_NEAR(p, 2.0 / 252.0, 1e-12);
  /* 7 and 8 each beat 4, 5, 6: U = 6.  Under H0 the counts of U =
   * 0..6 are the partitions of u in a 5 x 5 box: 1 1 2 3 5 7 9, so
   * P(U <= 6) = 28 / 252 */
  const double c5[] = {1, 2, 3, 7, 8}, d5[] = {4, 5, 6, 9, 10};
  ASSERT_OK(np_stats_mann_whitney(c5, 5, d5, 5, &u, &p, &exact));
  ASSERT_DBL_NEAR(u, 6, 0);
  ASSERT_DBL_NEAR(p, 2.0 * 28.0 / 252.0, 1e-12);
  /* identical samples: no evidence */
  ASSERT_OK(np_stats_mann_whitney(a5, 5, a5, 5, &u, &p, &exact));
  ASSERT_EQ(exact, 0); /* every value tied */
  ASSERT_DBL_NEAR(p, 1, 1e-12);
  /* ties: normal approximation, symmetric in its arguments */
  const double t1[] = {1, 1, 2, 3, 3, 4}, t2[] = {2, 4, 5, 5, 6, 6};
  double u2, p2;
  ASSERT_OK(np_stats_mann_whitney(t1, 6, t2, 6, &u, &p, &exact));
  ASSERT_OK(np_stats_mann_whitney(t2, 6, t1, 6, &u2, &p2, &exact));
  ASSERT_EQ(exact, 0);
  ASSERT_DBL_NEAR(u + u2, 36, 1e-12);
  ASSERT_DBL_NEAR(p, p2, 1e-12);
  ASSERT_TRUE(p > 0.01 && p < 0.2);
}

static void test_holm(void) {
  const double p[] = {0.01, 0.04, 0.03, 0.005};
  double adj[4];
  ASSERT_OK(np_stats_holm(p, 4, adj));
  ASSERT_DBL_NEAR(adj[3], 0.02, 1e-12);
  ASSERT_DBL_NEAR(adj[0], 0.03, 1e-12);
  ASSERT_DBL_NEAR(adj[2], 0.06, 1e-12);
  ASSERT_DBL_NEAR(adj[1], 0.06, 1e-12); /* raised to keep the order */
  const double big[] = {0.6, 0.7};
  ASSERT_OK(np_stats_holm(big, 2, adj));
  ASSERT_DBL_NEAR(adj[0], 1, 0);
  ASSERT_DBL_NEAR(adj[1], 1, 0);
}

static void test_compare(void) {
  const double base[] = {100, 101, 99, 100.5, 99.5};
  const double fast[] = {110, 111, 109, 110.5, 109.5};
  struct np_stats_cmp c;
  ASSERT_OK(np_stats_compare(base, 5, fast, 5, 0.95, 2000, 9, &c));
  ASSERT_DBL_NEAR(c.ratio, 1.1, 1e-12);
  ASSERT_EQ(c.has_ci, 1);
  ASSERT_TRUE(c.ci_lo > 1.08 && c.ci_hi < 1.12);
  ASSERT_DBL_NEAR(c.p, 2.0 / 252.0, 1e-12);
  ASSERT_EQ(np_stats_verdict_of(c.ratio, c.p, 0.05, 0.02, 1), NP_STATS_BETTER);
  ASSERT_EQ(np_stats_verdict_of(c.ratio, c.p, 0.05, 0.02, 0), NP_STATS_WORSE);
  /* significant but inside the noise threshold: no change */
  ASSERT_EQ(np_stats_verdict_of(1.01, 0.001, 0.05, 0.02, 1),
            NP_STATS_NO_CHANGE);
  /* large but not significant: no change */
  ASSERT_EQ(np_stats_verdict_of(1.5, 0.1, 0.05, 0.02, 1), NP_STATS_NO_CHANGE);
  /* three runs: no interval, and U can never reach 0.05 */
  ASSERT_OK(np_stats_compare(base, 3, fast, 3, 0.95, 2000, 9, &c));
  ASSERT_EQ(c.has_ci, 0);
  ASSERT_TRUE(isnan(c.ci_lo));
  ASSERT_DBL_NEAR(c.p, 0.1, 1e-12);
}

/* The floor of the exact U test is the p of the most extreme ordering,
 * computed by the test itself; and the minimum n per side per alpha and
 * family size of docs/statistics.md. */
static void test_mw_floor(void) {
  double a[12], b[12], u, p;
  int exact;
  for (size_t na = 1; na <= 7; na++)
    for (size_t nb = 1; nb <= 7; nb++) {
      for (size_t i = 0; i < na; i++)
        a[i] = 100 + (double)i;
      for (size_t i = 0; i < nb; i++)
        b[i] = (double)i;
      ASSERT_OK(np_stats_mann_whitney(a, na, b, nb, &u, &p, &exact));
      ASSERT_EQ(exact, 1);
      ASSERT_DBL_NEAR(np_stats_mw_min_p(na, nb), p, 1e-12);
    }
  ASSERT_DBL_NEAR(np_stats_mw_min_p(3, 3), 0.1, 0);
  ASSERT_DBL_NEAR(np_stats_mw_min_p(0, 3), 1, 0);
  ASSERT_DBL_NEAR(np_stats_mw_min_p(1, 1), 1, 0);
  ASSERT_UINT_EQ(np_stats_mw_min_n(1, 0.05), 4);  /* 2/70 = 0.029      */
  ASSERT_UINT_EQ(np_stats_mw_min_n(1, 0.1), 4);   /* 0.1 is not < 0.1  */
  ASSERT_UINT_EQ(np_stats_mw_min_n(1, 0.01), 5);  /* 2/252 = 0.0079    */
  ASSERT_UINT_EQ(np_stats_mw_min_n(1, 0.001), 7); /* 2/3432 = 0.00058  */
  ASSERT_UINT_EQ(np_stats_mw_min_n(3, 0.05), 5);  /* 3 x 2/70 = 0.086  */
  ASSERT_UINT_EQ(np_stats_mw_min_n(48, 0.05), 7); /* 48 x 2/924 = 0.10 */
  ASSERT_UINT_EQ(np_stats_mw_min_n(0, 0.05), 0);
}

static void test_seed_for(void) {
  ASSERT_UINT_EQ(np_stats_seed_for(1, "udp-p64"), np_stats_seed_for(1, "udp-p64"));
  ASSERT_TRUE(np_stats_seed_for(1, "udp-p64") != np_stats_seed_for(2, "udp-p64"));
  ASSERT_TRUE(np_stats_seed_for(1, "udp-p64") != np_stats_seed_for(1, "udp-p65"));
}

int main(void) {
  test_rng();
  test_describe();
  test_median_select();
  test_modz();
  test_bootstrap();
  test_mann_whitney();
  test_holm();
  test_compare();
  test_mw_floor();
  test_seed_for();
  puts("test_stats: ok");
  return 0;
}
