/*
 * np_stats.c - descriptive statistics, outliers, bootstrap intervals, the
 * Mann-Whitney U test and Holm's correction (see np_stats.h for methods).
 */
#include "np_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_rng.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorted copy of v (caller frees). */
static double *sorted_copy(const double *v, size_t n) {
  double *s = malloc((n ? n : 1) * sizeof *s);
  if (s == NULL)
    return NULL;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  return s;
}

static double median_sorted(const double *s, size_t n) {
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double np_stats_quantile_sorted(const double *s, size_t n, double q) {
  if (n == 1 || q <= 0)
    return s[0];
  if (q >= 1)
    return s[n - 1];
  double h = (double)(n - 1) * q;
  size_t lo = (size_t)floor(h);
  double frac = h - (double)lo;
  return lo + 1 < n ? s[lo] + frac * (s[lo + 1] - s[lo]) : s[lo];
}

static double select_median(double *a, size_t n);

int np_stats_median(const double *v, size_t n, double *out) {
  if (n == 0)
    return NP_EINVAL;
  double *s = malloc(n * sizeof *s);
  if (s == NULL)
    return NP_ENOMEM;
  memcpy(s, v, n * sizeof *s);
  *out = select_median(s, n);
  free(s);
  return 0;
}

/* Median absolute deviation from med. */
static int mad_of(const double *v, size_t n, double med, double *out) {
  double *d = malloc(n * sizeof *d);
  if (d == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < n; i++)
    d[i] = fabs(v[i] - med);
  qsort(d, n, sizeof *d, cmp_double);
  *out = median_sorted(d, n);
  free(d);
  return 0;
}

int np_stats_describe(const double *v, size_t n, struct np_stats_desc *out) {
  if (n == 0)
    return NP_EINVAL;
  double *s = sorted_copy(v, n);
  if (s == NULL)
    return NP_ENOMEM;
  struct np_stats_desc d = {0};
  d.n = n;
  d.median = median_sorted(s, n);
  d.min = s[0];
  d.max = s[n - 1];
  free(s);
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += v[i];
  d.mean = sum / (double)n;
  d.sd = d.cv = NAN;
  if (n >= 2) {
    double ss = 0;
    for (size_t i = 0; i < n; i++)
      ss += (v[i] - d.mean) * (v[i] - d.mean);
    d.sd = sqrt(ss / (double)(n - 1));
    if (d.mean != 0)
      d.cv = d.sd / fabs(d.mean);
  }
  int rc = mad_of(v, n, d.median, &d.mad);
  if (rc)
    return rc;
  *out = d;
  return 0;
}

int np_stats_modz(const double *v, size_t n, double *z) {
  double med, mad;
  int rc;
  if ((rc = np_stats_median(v, n, &med)) != 0 ||
      (rc = mad_of(v, n, med, &mad)) != 0)
    return rc;
  double scale = 0; /* z = scale * (x - median) */
  if (mad > 0) {
    scale = 0.6745 / mad;
  } else {
    double meanad = 0;
    for (size_t i = 0; i < n; i++)
      meanad += fabs(v[i] - med);
    meanad /= (double)n;
    if (meanad > 0)
      scale = 1.0 / (1.253314 * meanad);
  }
  for (size_t i = 0; i < n; i++)
    z[i] = scale * (v[i] - med);
  return 0;
}

/* The k-th smallest of a[0..n) (Hoare's selection; reorders a). */
static double select_kth(double *a, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = a[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot)
        i++;
      while (a[j] > pivot)
        j--;
      if (i <= j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return a[k];
  }
  return a[k];
}

/* Median of a[0..n) by selection, O(n) (reorders a). */
static double select_median(double *a, size_t n) {
  double hi = select_kth(a, n, n / 2);
  if (n % 2)
    return hi;
  double lo = a[0]; /* the largest of the lower half */
  for (size_t i = 1; i < n / 2; i++)
    if (a[i] > lo)
      lo = a[i];
  return (lo + hi) / 2;
}

/* A resampler of v[0..n): the values in ascending order and, for every
 * position of v, the rank of its value there.  A resample draws n positions
 * of v (np_rng_below, in the same order as ever) and counts them per rank;
 * its median is read by walking the counts upwards - the same values, and
 * so the same median bit for bit, as selecting it from a copy of the drawn
 * values, in O(n) without moving any. */
struct resampler {
  size_t n;
  double *sorted;  /* v ascending                        */
  size_t *rank;    /* rank[i]: index of v[i] in sorted  */
  unsigned *count; /* draws per rank in one resample     */
};

struct ranked {
  double v;
  size_t at;
};

static int cmp_ranked(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if (x->v != y->v)
    return (x->v > y->v) - (x->v < y->v);
  return (x->at > y->at) - (x->at < y->at);
}

static void resampler_free(struct resampler *rs) {
  free(rs->sorted);
  free(rs->rank);
  free(rs->count);
  *rs = (struct resampler){0};
}

static int resampler_init(struct resampler *rs, const double *v, size_t n) {
  struct ranked *t = malloc(n * sizeof *t);
  rs->n = n;
  rs->sorted = malloc(n * sizeof *rs->sorted);
  rs->rank = malloc(n * sizeof *rs->rank);
  rs->count = malloc(n * sizeof *rs->count);
  if (t == NULL || rs->sorted == NULL || rs->rank == NULL ||
      rs->count == NULL) {
    free(t);
    resampler_free(rs);
    return NP_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    t[i] = (struct ranked){v[i], i};
  qsort(t, n, sizeof *t, cmp_ranked);
  for (size_t k = 0; k < n; k++) {
    rs->sorted[k] = t[k].v;
    rs->rank[t[k].at] = k;
  }
  free(t);
  return 0;
}

/* Median of one resample: the value of rank n / 2 of the drawn multiset,
 * averaged with the one of rank n / 2 - 1 for even n (select_median's
 * (lo + hi) / 2 on the same two values). */
static double resample_median(struct resampler *rs, struct np_rng *r) {
  size_t n = rs->n, seen = 0, k = 0;
  memset(rs->count, 0, n * sizeof *rs->count);
  for (size_t i = 0; i < n; i++)
    rs->count[rs->rank[np_rng_below(r, n)]]++;
  double lo = 0;
  int have_lo = n % 2 == 1; /* odd n: only rank n / 2 matters */
  for (;; k++) {
    seen += rs->count[k];
    if (!have_lo && seen >= n / 2) {
      lo = rs->sorted[k];
      have_lo = 1;
    }
    if (seen > n / 2)
      break;
  }
  return n % 2 ? rs->sorted[k] : (lo + rs->sorted[k]) / 2;
}

/* lo/hi of the percentile interval of stat[0..b). */
static void percentile_bounds(double *stat, size_t b, double level,
                              double *lo, double *hi) {
  qsort(stat, b, sizeof *stat, cmp_double);
  double a = (1.0 - level) / 2.0;
  *lo = np_stats_quantile_sorted(stat, b, a);
  *hi = np_stats_quantile_sorted(stat, b, 1.0 - a);
}

int np_stats_boot_median_ci(const double *v, size_t n, double level,
                            unsigned resamples, uint64_t seed, double *lo,
                            double *hi) {
  if (n < NP_STATS_MIN_CI_N)
    return NP_ERANGE;
  if (!(level > 0 && level < 1) || resamples == 0)
    return NP_EINVAL;
  struct resampler rs;
  double *stat = malloc(resamples * sizeof *stat);
  if (stat == NULL)
    return NP_ENOMEM;
  if (resampler_init(&rs, v, n) != 0) {
    free(stat);
    return NP_ENOMEM;
  }
  struct np_rng r;
  np_rng_seed(&r, seed);
  for (unsigned i = 0; i < resamples; i++)
    stat[i] = resample_median(&rs, &r);
  percentile_bounds(stat, resamples, level, lo, hi);
  resampler_free(&rs);
  free(stat);
  return 0;
}

int np_stats_boot_ratio_ci(const double *a, size_t na, const double *b,
                           size_t nb, double level, unsigned resamples,
                           uint64_t seed, double *lo, double *hi) {
  if (na < NP_STATS_MIN_CI_N || nb < NP_STATS_MIN_CI_N)
    return NP_ERANGE;
  if (!(level > 0 && level < 1) || resamples == 0)
    return NP_EINVAL;
  struct resampler ra = {0}, rb = {0};
  double *stat = malloc(resamples * sizeof *stat);
  int rc = NP_ENOMEM;
  if (stat == NULL || resampler_init(&ra, a, na) != 0 ||
      resampler_init(&rb, b, nb) != 0)
    goto out_free;
  struct np_rng r;
  np_rng_seed(&r, seed);
  rc = 0;
  for (unsigned i = 0; i < resamples && rc == 0; i++) {
    double ma = resample_median(&ra, &r);
    double mb = resample_median(&rb, &r);
    if (ma == 0)
      rc = NP_ERANGE;
    else
      stat[i] = mb / ma;
  }
  if (rc == 0)
    percentile_bounds(stat, resamples, level, lo, hi);
out_free:
  resampler_free(&ra);
  resampler_free(&rb);
  free(stat);
  return rc;
}

/* Counts of U = 0..na*nb under H0 without ties: the coefficients of the
 * Gaussian binomial [na+nb choose na]_q, built as prod_{i=1..na}
 * (1 - q^(nb+i)) / (1 - q^i); after step i the polynomial is
 * [nb+i choose i]_q, so every intermediate coefficient is a count. */
static double *u_counts(size_t na, size_t nb) {
  size_t deg = na * nb;
  double *c = calloc(deg + 1, sizeof *c);
  if (c == NULL)
    return NULL;
  c[0] = 1;
  size_t cur = 0; /* degree so far */
  for (size_t i = 1; i <= na; i++) {
    size_t k = nb + i;
    cur += nb;
    for (size_t u = cur; u >= k; u--) /* multiply by (1 - q^k) */
      c[u] -= c[u - k];
    for (size_t u = i; u <= cur; u++) /* divide by (1 - q^i) */
      c[u] += c[u - i];
  }
  return c;
}

int np_stats_mann_whitney(const double *a, size_t na, const double *b,
                          size_t nb, double *u_out, double *p_out,
                          int *exact_out) {
  if (na == 0 || nb == 0)
    return NP_EINVAL;
  size_t N = na + nb;
  struct item {
    double v;
    int from_a;
  } *it = malloc(N * sizeof *it);
  if (it == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < na; i++)
    it[i] = (struct item){a[i], 1};
  for (size_t i = 0; i < nb; i++)
    it[na + i] = (struct item){b[i], 0};
  /* by value (v is the first member, so cmp_double orders items) */
  qsort(it, N, sizeof *it, cmp_double); /* v is the first member */
  double ra = 0, tie_sum = 0;
  int ties = 0;
  for (size_t i = 0; i < N;) {
    size_t j = i;
    while (j + 1 < N && it[j + 1].v == it[i].v)
      j++;
    double rank = ((double)i + (double)j) / 2.0 + 1.0; /* midrank */
    double t = (double)(j - i + 1);
    if (t > 1) {
      ties = 1;
      tie_sum += t * t * t - t;
    }
    for (size_t k = i; k <= j; k++)
      if (it[k].from_a)
        ra += rank;
    i = j + 1;
  }
  free(it);
  double u = ra - (double)na * ((double)na + 1) / 2.0;
  double mn = (double)na * (double)nb, p;
  int exact = !ties && N <= NP_STATS_EXACT_MAX_N;
  if (exact) {
    double *c = u_counts(na, nb);
    if (c == NULL)
      return NP_ENOMEM;
    size_t ui = (size_t)llround(u), deg = na * nb;
    double total = 0, le = 0, ge = 0;
    for (size_t k = 0; k <= deg; k++) {
      total += c[k];
      if (k <= ui)
        le += c[k];
      if (k >= ui)
        ge += c[k];
    }
    free(c);
    p = 2.0 * fmin(le, ge) / total;
  } else {
    double mu = mn / 2.0;
    double var = mn / 12.0 *
                 (((double)N + 1) - tie_sum / ((double)N * ((double)N - 1)));
    double d = fabs(u - mu) - 0.5;
    p = var > 0 ? erfc((d > 0 ? d : 0) / sqrt(var) / sqrt(2.0)) : 1.0;
  }
  *u_out = u;
  *p_out = p > 1 ? 1 : p;
  *exact_out = exact;
  return 0;
}

double np_stats_mw_min_p(size_t na, size_t nb) {
  if (na == 0 || nb == 0)
    return 1.0;
  /* C(nb + i, i) for i = 1..na: every step an integer, exact in a double
   * up to 2^53 (so 2 / 20 is exactly the 0.1 of 3 + 3); inf beyond, p 0 */
  double c = 1;
  for (size_t i = 1; i <= na; i++)
    c = c * (double)(nb + i) / (double)i;
  double p = 2.0 / c;
  return p > 1 ? 1 : p;
}

size_t np_stats_mw_min_n(size_t m, double alpha) {
  for (size_t n = 1; m > 0 && n <= NP_STATS_MW_MAX_N; n++)
    if ((double)m * np_stats_mw_min_p(n, n) < alpha)
      return n;
  return 0;
}

int np_stats_holm(const double *p, size_t n, double *adj) {
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (idx == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < n; i++)
    idx[i] = i;
  for (size_t i = 1; i < n; i++) /* stable insertion sort by p */
    for (size_t j = i; j > 0 && p[idx[j - 1]] > p[idx[j]]; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  double run = 0;
  for (size_t k = 0; k < n; k++) {
    double v = (double)(n - k) * p[idx[k]];
    if (v > 1)
      v = 1;
    if (v < run)
      v = run; /* step-down: adjusted p-values never decrease */
    run = v;
    adj[idx[k]] = v;
  }
  free(idx);
  return 0;
}

int np_stats_compare(const double *base, size_t nb, const double *new_,
                     size_t nn, double level, unsigned resamples,
                     uint64_t seed, struct np_stats_cmp *out) {
  struct np_stats_cmp c = {0};
  int rc;
  if ((rc = np_stats_median(base, nb, &c.base_median)) != 0 ||
      (rc = np_stats_median(new_, nn, &c.new_median)) != 0 ||
      (rc = np_stats_mann_whitney(new_, nn, base, nb, &c.u, &c.p,
                                  &c.exact)) != 0)
    return rc;
  c.ratio = c.base_median != 0 ? c.new_median / c.base_median : NAN;
  c.ci_lo = c.ci_hi = NAN;
  rc = np_stats_boot_ratio_ci(base, nb, new_, nn, level, resamples, seed,
                              &c.ci_lo, &c.ci_hi);
  if (rc == 0)
    c.has_ci = 1;
  else if (rc != NP_ERANGE)
    return rc;
  *out = c;
  return 0;
}

enum np_stats_verdict np_stats_verdict_of(double ratio, double p_adj,
                                          double alpha, double threshold,
                                          int higher_is_better) {
  if (!isfinite(ratio) || !(p_adj < alpha) ||
      !(fabs(ratio - 1.0) > threshold))
    return NP_STATS_NO_CHANGE;
  int up = ratio > 1.0;
  return up == (higher_is_better != 0) ? NP_STATS_BETTER : NP_STATS_WORSE;
}

uint64_t np_stats_seed_for(uint64_t root, const char *id) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
  for (const unsigned char *s = (const unsigned char *)id; *s; s++) {
    h ^= *s;
    h *= 0x100000001b3ull;
  }
  uint64_t x = root ^ h;
  return np_rng_splitmix64(&x);
}
