/*
 * np_results_stats.c - intervals, seeds and outlier flags of a result set's
 * statistics (see np_results_stats.h).  A thin layer over common/np_stats:
 * it fixes the level, the resamples, the seed rule and the value order, so
 * every writer and the self-check state the same figures.
 */
#include "np_results_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_json.h"
#include "np_stats.h"

const char *const np_results_stat_members[] = {
    "mean", "sd", "cv", "ci95", "ci95_note", "outliers", NULL};

uint64_t np_results_seed_of(const char *id) {
  return np_stats_seed_for(NP_RESULTS_ROOT_SEED, id);
}

void np_results_seed_hex(uint64_t seed, char buf[17]) {
  snprintf(buf, 17, "%016llx", (unsigned long long)seed);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum np_results_ci_method np_results_ci_method_of(const cJSON *summary) {
  const cJSON *iv = cJSON_GetObjectItemCaseSensitive(summary, "intervals");
  return strcmp(np_json_get_string(iv, "ci_method", ""), "exact") == 0
             ? NP_RESULTS_CI_EXACT
             : NP_RESULTS_CI_RESAMPLED;
}

int np_results_median_ci(const double *v, size_t n, uint64_t seed,
                         double *lo, double *hi) {
  return np_results_median_ci_by(v, n, seed, NP_RESULTS_CI_RESAMPLED, lo,
                                 hi);
}

int np_results_median_ci_by(const double *v, size_t n, uint64_t seed,
                            enum np_results_ci_method m, double *lo,
                            double *hi) {
  if (n < NP_STATS_MIN_CI_N)
    return NP_ERANGE;
  if (m == NP_RESULTS_CI_EXACT && np_stats_exact_median_applies(n))
    return np_stats_exact_median_ci(v, n, NP_RESULTS_CI_LEVEL, lo, hi);
  double *s = malloc(n * sizeof *s);
  if (s == NULL)
    return NP_ENOMEM;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  int rc = np_stats_boot_median_ci(s, n, NP_RESULTS_CI_LEVEL,
                                   NP_STATS_RESAMPLES, seed, lo, hi);
  free(s);
  return rc;
}

double np_results_half_width_pct(double lo, double hi, double median) {
  if (!isfinite(lo) || !isfinite(hi) || !(fabs(median) > 0))
    return NAN;
  return 100.0 * (hi - lo) / 2.0 / fabs(median);
}

cJSON *np_results_intervals_json(enum np_results_ci_method m) {
  cJSON *o = cJSON_CreateObject();
  char seed[17];
  if (o == NULL)
    return NULL;
  np_results_seed_hex(NP_RESULTS_ROOT_SEED, seed);
  cJSON_AddStringToObject(o, "method", "percentile bootstrap of the median");
  if (m == NP_RESULTS_CI_EXACT)
    cJSON_AddStringToObject(o, "ci_method", "exact");
  cJSON_AddNumberToObject(o, "level", NP_RESULTS_CI_LEVEL);
  cJSON_AddNumberToObject(o, "resamples", NP_STATS_RESAMPLES);
  cJSON_AddNumberToObject(o, "min_values", NP_STATS_MIN_CI_N);
  cJSON_AddStringToObject(o, "root_seed", seed);
  cJSON_AddStringToObject(o, "seed_rule",
                          "per configuration: splitmix64(root_seed xor "
                          "FNV-1a-64(id)); values sorted before resampling");
  cJSON_AddStringToObject(o, "outlier_rule",
                          "modified z-score |0.6745 (x - median) / MAD| > "
                          "3.5 (MAD 0: mean absolute deviation x 1.253314)");
  return o;
}

int np_results_stat_extend(cJSON *o, const double *v, const long *tags,
                           size_t n, uint64_t seed,
                           enum np_results_ci_method m) {
  struct np_stats_desc d;
  double lo = NAN, hi = NAN, *z = NULL;
  int rc = 0, ci = NP_ERANGE;
  if (n > 0 && (rc = np_stats_describe(v, n, &d)) != 0)
    return rc;
  if (n == 0)
    d.mean = d.sd = d.cv = NAN;
  np_json_add_number(o, "mean", d.mean);
  np_json_add_number(o, "sd", d.sd);
  np_json_add_number(o, "cv", d.cv);
  if (n >= NP_STATS_MIN_CI_N &&
      (ci = np_results_median_ci_by(v, n, seed, m, &lo, &hi)) != 0 &&
      ci != NP_ERANGE)
    return ci;
  if (ci == 0) {
    cJSON *c = cJSON_AddObjectToObject(o, "ci95");
    if (c == NULL)
      return NP_ENOMEM;
    np_json_add_number(c, "lo", lo);
    np_json_add_number(c, "hi", hi);
  } else {
    cJSON_AddNullToObject(o, "ci95");
    cJSON_AddStringToObject(o, "ci95_note", n ? NP_RESULTS_TOO_FEW
                                              : "no values");
  }
  cJSON *out = cJSON_AddArrayToObject(o, "outliers");
  if (out == NULL)
    return NP_ENOMEM;
  if (n == 0)
    return 0;
  if ((z = malloc(n * sizeof *z)) == NULL)
    return NP_ENOMEM;
  if ((rc = np_stats_modz(v, n, z)) == 0)
    for (size_t i = 0; i < n; i++)
      if (fabs(z[i]) > NP_STATS_OUTLIER_Z)
        cJSON_AddItemToArray(out, cJSON_CreateNumber((double)tags[i]));
  free(z);
  return rc;
}
