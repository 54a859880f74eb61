/*
 * test_hist.c - np_hist against an exact, sort-based reference.
 *
 * Random data comes from a fixed-seed xorshift64* generator so every run
 * sees the same samples.  The reference percentile is the nearest-rank
 * definition: the value at index ceil(p/100 * n) - 1 of the sorted samples,
 * computed in integer arithmetic (p in hundredths of a percent).
 */
#include "np_hist.h"
#include "np_test.h"

#include <math.h>

#define SAMPLES 200000
#define NS_60S INT64_C(60000000000)

/* Percentiles checked, in hundredths of a percent (p50 ... p99.99). */
static const int64_t pct_centi[] = {5000, 9000, 9900, 9990, 9999};

static uint64_t xorshift64s(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * UINT64_C(2685821657736338717);
}

/* Uniform double in [0, 1). */
static double unit_rand(uint64_t *state) {
  return (double)(xorshift64s(state) >> 11) * 0x1.0p-53;
}

static int64_t uniform_between(uint64_t *state, int64_t lo, int64_t hi) {
  return lo + (int64_t)(xorshift64s(state) % (uint64_t)(hi - lo + 1));
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

enum dist { DIST_UNIFORM, DIST_LOG_UNIFORM, DIST_BIMODAL };

static void fill(int64_t *v, size_t n, enum dist d, uint64_t seed) {
  uint64_t s = seed;
  const double lo = log(1e3), hi = log(1e9);
  for (size_t i = 0; i < n; i++) {
    switch (d) {
    case DIST_UNIFORM:
      v[i] = uniform_between(&s, 1, INT64_C(1000000000));
      break;
    case DIST_LOG_UNIFORM:
      v[i] = (int64_t)llround(exp(lo + unit_rand(&s) * (hi - lo)));
      break;
    case DIST_BIMODAL: /* 90 % near 50 us, 10 % near 5 ms */
      if (xorshift64s(&s) % 10 != 0)
        v[i] = uniform_between(&s, 40000, 60000);
      else
        v[i] = uniform_between(&s, 4000000, 6000000);
      break;
    }
  }
}

/* Nearest-rank reference on sorted samples; p in hundredths of a percent. */
static int64_t ref_percentile(const int64_t *sorted, size_t n, int64_t centi) {
  uint64_t rank = ((uint64_t)centi * n + 9999) / 10000;
  return sorted[rank - 1];
}

static void check_against_reference(enum dist d, int sigfigs, double tol) {
  int64_t *v = malloc(SAMPLES * sizeof(*v));
  ASSERT_NOT_NULL(v);
  fill(v, SAMPLES, d, UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)d);

  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, sigfigs, &h));
  int64_t sum = 0;
  for (size_t i = 0; i < SAMPLES; i++) {
    ASSERT_OK(np_hist_record(h, v[i]));
    sum += v[i];
  }
  qsort(v, SAMPLES, sizeof(*v), cmp_i64);

  ASSERT_UINT_EQ(np_hist_count(h), SAMPLES);
  ASSERT_UINT_EQ(np_hist_overflows(h), 0);
  ASSERT_EQ(np_hist_min(h), v[0]);
  ASSERT_EQ(np_hist_max(h), v[SAMPLES - 1]);
  double mean = (double)sum / SAMPLES;
  ASSERT_DBL_NEAR(np_hist_mean(h), mean, mean * 1e-12);

  for (size_t k = 0; k < sizeof(pct_centi) / sizeof(pct_centi[0]); k++) {
    int64_t ref = ref_percentile(v, SAMPLES, pct_centi[k]);
    int64_t got = -1;
    ASSERT_OK(np_hist_percentile(h, (double)pct_centi[k] / 100.0, &got));
    /* highest-equivalent value: never below the exact one, within tol */
    ASSERT_GE(got, ref);
    ASSERT_DBL_NEAR((double)(got - ref) / (double)ref, 0.0, tol);
  }
  int64_t p100 = 0;
  ASSERT_OK(np_hist_percentile(h, 100.0, &p100));
  ASSERT_EQ(p100, v[SAMPLES - 1]);

  np_hist_free(h);
  free(v);
}

static void test_random_vs_reference(void) {
  check_against_reference(DIST_UNIFORM, 3, 0.001);
  check_against_reference(DIST_LOG_UNIFORM, 3, 0.001);
  check_against_reference(DIST_BIMODAL, 3, 0.001);
  check_against_reference(DIST_LOG_UNIFORM, 2, 0.01);
}

/* Values below 2 * 10^3 are tracked exactly at 3 significant digits. */
static void test_small_exact(void) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &h));
  for (int64_t i = 1; i <= 1000; i++)
    ASSERT_OK(np_hist_record(h, i));
  int64_t out = 0;
  ASSERT_OK(np_hist_percentile(h, 50.0, &out));
  ASSERT_EQ(out, 500);
  ASSERT_OK(np_hist_percentile(h, 99.0, &out));
  ASSERT_EQ(out, 990);
  ASSERT_OK(np_hist_percentile(h, 99.9, &out));
  ASSERT_EQ(out, 999);
  ASSERT_OK(np_hist_percentile(h, 100.0, &out));
  ASSERT_EQ(out, 1000);
  ASSERT_OK(np_hist_percentile(h, 0.001, &out));
  ASSERT_EQ(out, 1);
  ASSERT_DBL_NEAR(np_hist_mean(h), 500.5, 1e-9);
  np_hist_free(h);
}

/* n equal samples of 1000; returns np_hist_percentile's code for pct. */
static int percentile_code(uint64_t n, double pct, int64_t *out) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &h));
  if (n > 0)
    ASSERT_OK(np_hist_record_n(h, 1000, n));
  int rc = np_hist_percentile(h, pct, out);
  np_hist_free(h);
  return rc;
}

static void test_unsupported_ranks(void) {
  int64_t out = -42;
  ASSERT_EQ(percentile_code(999, 99.9, &out), NP_ERANGE);
  ASSERT_EQ(out, -42); /* untouched on error */
  ASSERT_OK(percentile_code(1000, 99.9, &out));
  ASSERT_EQ(out, 1000);

  out = -42;
  ASSERT_EQ(percentile_code(0, 50.0, &out), NP_ERANGE);
  ASSERT_EQ(percentile_code(0, 100.0, &out), NP_ERANGE);
  ASSERT_EQ(out, -42);

  ASSERT_OK(percentile_code(1, 100.0, &out));
  ASSERT_EQ(out, 1000);
  out = -42;
  ASSERT_EQ(percentile_code(1, 50.0, &out), NP_ERANGE);
  ASSERT_EQ(out, -42);
  ASSERT_OK(percentile_code(2, 50.0, &out));

  ASSERT_EQ(percentile_code(9, 90.0, &out), NP_ERANGE);
  ASSERT_OK(percentile_code(10, 90.0, &out));
  ASSERT_EQ(percentile_code(99, 99.0, &out), NP_ERANGE);
  ASSERT_OK(percentile_code(100, 99.0, &out));
  ASSERT_EQ(percentile_code(9999, 99.99, &out), NP_ERANGE);
  ASSERT_OK(percentile_code(10000, 99.99, &out));

  /* pct outside (0, 100] is an argument error, not a range error */
  ASSERT_EQ(percentile_code(1000, 0.0, &out), NP_EINVAL);
  ASSERT_EQ(percentile_code(1000, -1.0, &out), NP_EINVAL);
  ASSERT_EQ(percentile_code(1000, 100.5, &out), NP_EINVAL);
  ASSERT_EQ(percentile_code(1000, NAN, &out), NP_EINVAL);
  ASSERT_EQ(percentile_code(1000, 50.0, NULL), NP_EINVAL);
}

static void assert_same_hist(const struct np_hist *a, const struct np_hist *b) {
  ASSERT_UINT_EQ(np_hist_count(a), np_hist_count(b));
  ASSERT_UINT_EQ(np_hist_overflows(a), np_hist_overflows(b));
  ASSERT_EQ(np_hist_min(a), np_hist_min(b));
  ASSERT_EQ(np_hist_max(a), np_hist_max(b));
  ASSERT_DBL_NEAR(np_hist_mean(a), np_hist_mean(b), 0.0);
  /* a grid of percentiles, denser in the tail; 10000 (p100) included */
  for (int centi = 1; centi <= 10000;
       centi = centi < 9900 ? centi + 97 : centi + 3) {
    int64_t va = -1, vb = -2;
    int ra = np_hist_percentile(a, centi / 100.0, &va);
    int rb = np_hist_percentile(b, centi / 100.0, &vb);
    ASSERT_EQ(ra, rb);
    if (ra == 0)
      ASSERT_EQ(va, vb);
  }
}

static void test_merge(void) {
  enum { N = 50000 };
  int64_t *v = malloc(N * sizeof(*v));
  ASSERT_NOT_NULL(v);
  fill(v, N, DIST_LOG_UNIFORM, 7);

  struct np_hist *all = NULL, *a = NULL, *b = NULL, *empty = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &all));
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &a));
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &b));
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &empty));
  for (size_t i = 0; i < N; i++) {
    ASSERT_OK(np_hist_record(all, v[i]));
    ASSERT_OK(np_hist_record(i % 3 ? a : b, v[i]));
  }
  ASSERT_OK(np_hist_record(all, NS_60S * 2)); /* one overflow, in b */
  ASSERT_OK(np_hist_record(b, NS_60S * 2));

  ASSERT_OK(np_hist_merge(a, empty)); /* no-op */
  ASSERT_OK(np_hist_merge(empty, b)); /* into empty: copies min/max */
  assert_same_hist(empty, b);
  ASSERT_OK(np_hist_merge(a, b));
  assert_same_hist(a, all);

  struct np_hist *other = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 2, &other));
  ASSERT_EQ(np_hist_merge(a, other), NP_EINVAL);
  np_hist_free(other);
  ASSERT_OK(np_hist_new(1, NS_60S / 2, 3, &other));
  ASSERT_EQ(np_hist_merge(a, other), NP_EINVAL);
  np_hist_free(other);
  ASSERT_OK(np_hist_new(2, NS_60S, 3, &other));
  ASSERT_OK(np_hist_record(other, 5));
  ASSERT_EQ(np_hist_merge(a, other), NP_EINVAL);
  ASSERT_EQ(np_hist_merge(a, NULL), NP_EINVAL);
  ASSERT_EQ(np_hist_merge(NULL, a), NP_EINVAL);
  assert_same_hist(a, all); /* failed merges changed nothing */
  np_hist_free(other);

  np_hist_free(all);
  np_hist_free(a);
  np_hist_free(b);
  np_hist_free(empty);
  free(v);
}

static void test_record_n(void) {
  struct np_hist *a = NULL, *b = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &a));
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &b));
  for (int i = 0; i < 5; i++)
    ASSERT_OK(np_hist_record(a, 123456789));
  ASSERT_OK(np_hist_record(a, 77));
  ASSERT_OK(np_hist_record_n(b, 123456789, 5));
  ASSERT_OK(np_hist_record_n(b, 77, 1));
  ASSERT_OK(np_hist_record_n(b, 99, 0)); /* records nothing */
  assert_same_hist(a, b);
  ASSERT_EQ(np_hist_record(NULL, 1), NP_EINVAL);
  ASSERT_EQ(np_hist_record_n(NULL, 1, 1), NP_EINVAL);
  np_hist_free(a);
  np_hist_free(b);
}

static void test_clamping(void) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &h));
  ASSERT_OK(np_hist_record(h, 1000));
  ASSERT_OK(np_hist_record(h, NS_60S)); /* highest itself: not an overflow */
  ASSERT_UINT_EQ(np_hist_overflows(h), 0);
  ASSERT_OK(np_hist_record(h, NS_60S + 1));
  ASSERT_OK(np_hist_record_n(h, INT64_MAX, 3));
  ASSERT_UINT_EQ(np_hist_overflows(h), 4);
  ASSERT_UINT_EQ(np_hist_count(h), 6);
  ASSERT_EQ(np_hist_max(h), NS_60S);
  int64_t out = 0;
  ASSERT_OK(np_hist_percentile(h, 100.0, &out));
  ASSERT_EQ(out, NS_60S);

  /* below lowest: recorded as lowest, so min and every percentile >= 1 */
  ASSERT_OK(np_hist_record(h, 0));
  ASSERT_OK(np_hist_record(h, -5));
  ASSERT_EQ(np_hist_min(h), 1);
  ASSERT_UINT_EQ(np_hist_count(h), 8);
  ASSERT_OK(np_hist_percentile(h, 12.5, &out));
  ASSERT_EQ(out, 1);

  /* the percentile never reports above the true max: 1000003 sits in a
   * bucket (width 512) whose highest equivalent value is 1000447 */
  np_hist_reset(h);
  ASSERT_OK(np_hist_record_n(h, 1000003, 2));
  ASSERT_OK(np_hist_percentile(h, 50.0, &out));
  ASSERT_EQ(out, 1000003);
  ASSERT_OK(np_hist_percentile(h, 100.0, &out));
  ASSERT_EQ(out, 1000003);

  np_hist_reset(h);
  ASSERT_UINT_EQ(np_hist_count(h), 0);
  ASSERT_UINT_EQ(np_hist_overflows(h), 0);
  ASSERT_EQ(np_hist_min(h), 0);
  ASSERT_EQ(np_hist_max(h), 0);
  ASSERT_DBL_NEAR(np_hist_mean(h), 0.0, 0.0);
  ASSERT_EQ(np_hist_percentile(h, 100.0, &out), NP_ERANGE);
  np_hist_free(h);

  /* the whole int64 range is trackable */
  ASSERT_OK(np_hist_new(1, INT64_MAX, 3, &h));
  ASSERT_OK(np_hist_record(h, INT64_MAX));
  ASSERT_OK(np_hist_record(h, 1));
  ASSERT_OK(np_hist_percentile(h, 100.0, &out));
  ASSERT_EQ(out, INT64_MAX);
  ASSERT_UINT_EQ(np_hist_overflows(h), 0);
  np_hist_free(h);
}

static void test_memory(void) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &h));
  size_t bytes = np_hist_memory(h);
  printf("np_hist_memory(1 ns .. 60 s, 3 digits) = %zu bytes\n", bytes);
  ASSERT_GT(bytes, 0);
  ASSERT_LE(bytes, 256 * 1024);
  np_hist_free(h);
  ASSERT_UINT_EQ(np_hist_memory(NULL), 0);
}

static void test_bad_new(void) {
  struct np_hist *sentinel = (struct np_hist *)&sentinel;
  struct np_hist *h = sentinel;
  ASSERT_EQ(np_hist_new(0, NS_60S, 3, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(-1, NS_60S, 3, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(10, 19, 3, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(INT64_MAX, INT64_MAX, 3, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(1, NS_60S, 0, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(1, NS_60S, 6, &h), NP_EINVAL);
  ASSERT_EQ(np_hist_new(INT64_C(1) << 50, INT64_MAX, 5, &h), NP_EINVAL);
  ASSERT_TRUE(h == sentinel);
  ASSERT_EQ(np_hist_new(1, NS_60S, 3, NULL), NP_EINVAL);
  ASSERT_OK(np_hist_new(10, 20, 1, &h)); /* smallest valid range */
  ASSERT_TRUE(h != sentinel);
  np_hist_free(h);
  np_hist_free(NULL);
}

int main(void) {
  test_random_vs_reference();
  test_small_exact();
  test_unsupported_ranks();
  test_merge();
  test_record_n();
  test_clamping();
  test_memory();
  test_bad_new();
  printf("test_hist: all passed\n");
  return 0;
}
