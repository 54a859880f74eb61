/*
 * np_stats_exact.c - the percentile-bootstrap interval of the median from
 * the bootstrap distribution itself, without resampling (np_stats.h).
 *
 * A resample draws n positions of the sorted values s_1..s_n uniformly
 * with replacement; N_j, the number of draws at positions <= j, is
 * Binomial(n, j / n).  With h = n / 2:
 *  - odd n: the median is s_A, A the position of draw number h + 1 in
 *    order, and P(A <= j) = P(N_j >= h + 1);
 *  - even n: the median is (s_A + s_B) / 2, A and B the positions of draws
 *    h and h + 1 in order.  For i < k, exactly h draws lie at positions
 *    <= i with at least one at i, and the other h lie at positions >= k
 *    with at least one at k:
 *      P(A = i, B = k) = C(n, h) g(i) g(n - k + 1),
 *      g(m) = (m / n)^h - ((m - 1) / n)^h;
 *    and P(A = B = i) = P(A = i) - C(n, h) g(i) ((n - i) / n)^h, with
 *    P(A <= i) = P(N_i >= h).
 * Everything is taken in logarithms (C(1000, 500) alone is 1e299).  The
 * interval's ends are the smallest values t of the distribution with
 * P(median <= t) >= (1 - level) / 2 and >= (1 + level) / 2: the limit of
 * the resampler's type-7 percentiles as the resamples grow.
 */
#include "np_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* log C(n, c) */
static double lchoose(size_t n, size_t c) {
  return lgamma((double)n + 1) - lgamma((double)c + 1) -
         lgamma((double)(n - c) + 1);
}

/* P(Binomial(n, j / n) >= m), 0 <= j <= n, from lc[c] = log C(n, c). */
static double binom_tail(const double *lc, size_t n, size_t j, size_t m) {
  if (m == 0 || j == n)
    return 1.0;
  if (j == 0)
    return 0.0;
  double lp = log((double)j / (double)n), lq = log1p(-(double)j / (double)n);
  double t = 0;
  for (size_t c = m; c <= n; c++)
    t += exp(lc[c] + (double)c * lp + (double)(n - c) * lq);
  return t > 1 ? 1 : t;
}

/* log g(m) = log((m / n)^h - ((m - 1) / n)^h), m >= 1. */
static double log_g(size_t n, size_t h, size_t m) {
  double hd = (double)h;
  return hd * log((double)m / (double)n) +
         log(-expm1(hd * log1p(-1.0 / (double)m)));
}

struct mass {
  double v, p;
};

static int cmp_mass(const void *a, const void *b) {
  const struct mass *x = a, *y = b;
  if (x->v != y->v)
    return (x->v > y->v) - (x->v < y->v);
  return (x->p > y->p) - (x->p < y->p); /* a fixed order of the sum */
}

/* The smallest value whose cumulative probability reaches q (masses in
 * ascending order of value; the last value when rounding leaves the
 * total a hair under q). */
static double inverse_cdf(const struct mass *m, size_t k, double q) {
  double acc = 0;
  for (size_t i = 0; i < k; i++) {
    acc += m[i].p;
    if (acc >= q)
      return m[i].v;
  }
  return m[k - 1].v;
}

/* The distribution of the resample median of s[0..n) (ascending) as
 * masses (caller frees), *k of them. */
static struct mass *median_masses(const double *s, size_t n, size_t *k) {
  size_t h = n / 2;
  /* at[j] = P(A <= j), j = 0..n; lc[c] = log C(n, c); lg[m] = log g(m) */
  double *at = malloc((n + 1) * sizeof *at);
  double *lc = malloc((n + 1) * sizeof *lc);
  double *lg = malloc((n + 1) * sizeof *lg);
  struct mass *m = NULL;
  if (at == NULL || lc == NULL || lg == NULL)
    goto out;
  size_t need = n % 2 ? h + 1 : h;
  for (size_t c = 0; c <= n; c++)
    lc[c] = lchoose(n, c);
  for (size_t j = 0; j <= n; j++)
    at[j] = binom_tail(lc, n, j, need);
  if (n % 2) {
    if ((m = malloc(n * sizeof *m)) != NULL) {
      for (size_t j = 1; j <= n; j++)
        m[j - 1] = (struct mass){s[j - 1], at[j] - at[j - 1]};
      *k = n;
    }
    goto out;
  }
  size_t cnt = n * (n + 1) / 2, w = 0;
  if ((m = malloc(cnt * sizeof *m)) == NULL)
    goto out;
  for (size_t i = 1; i <= n; i++)
    lg[i] = log_g(n, h, i);
  double lch = lc[h];
  for (size_t i = 1; i <= n; i++) {
    double off = 0;
    for (size_t kk = i + 1; kk <= n; kk++) {
      double p = exp(lch + lg[i] + lg[n - kk + 1]);
      m[w++] = (struct mass){(s[i - 1] + s[kk - 1]) / 2, p};
    }
    if (i < n)
      off = exp(lch + lg[i] + (double)h * log((double)(n - i) / (double)n));
    double d = at[i] - at[i - 1] - off;
    m[w++] = (struct mass){s[i - 1], d > 0 ? d : 0};
  }
  *k = w;
out:
  free(at);
  free(lc);
  free(lg);
  return m;
}

int np_stats_exact_median_applies(size_t n) {
  return n >= NP_STATS_MIN_CI_N && n <= NP_STATS_EXACT_CI_MAX_N &&
         (n % 2 == 1 || n <= NP_STATS_EXACT_EVEN_MAX_N);
}

int np_stats_exact_median_ci(const double *v, size_t n, double level,
                             double *lo, double *hi) {
  if (n < NP_STATS_MIN_CI_N || n > NP_STATS_EXACT_CI_MAX_N)
    return NP_ERANGE;
  if (!(level > 0 && level < 1))
    return NP_EINVAL;
  double *s = malloc(n * sizeof *s);
  if (s == NULL)
    return NP_ENOMEM;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  size_t k = 0;
  struct mass *m = median_masses(s, n, &k);
  free(s);
  if (m == NULL)
    return NP_ENOMEM;
  qsort(m, k, sizeof *m, cmp_mass);
  double a = (1.0 - level) / 2.0;
  *lo = inverse_cdf(m, k, a);
  *hi = inverse_cdf(m, k, 1.0 - a);
  free(m);
  return 0;
}
