/*
 * np_results_stat.c - numbers out of records and their summary statistics:
 * median, min and max over a configuration's repetitions, by the rule
 * summary.json uses (every repetition that has the value; no fixed buffer
 * caps how many).
 */
#include "np_results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_json.h"
#include "np_results_stats.h"

double np_results_num(const cJSON *doc, const char *pointer) {
  const cJSON *v = np_json_pointer(doc, pointer);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double np_results_median(const double *v, size_t n) {
  double tmp[64], *s = n <= 64 ? tmp : malloc(n * sizeof *s);
  if (s == NULL || n == 0)
    return NAN;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double m = (n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  if (s != tmp)
    free(s);
  return m;
}

size_t np_results_stat(const struct np_results_config *c,
                       enum np_results_metric m, int passed_only, double *med,
                       double *min, double *max) {
  /* plans allow up to 1000 repetitions: never drop values past a fixed
   * buffer (the summary's figures use every repetition) */
  double tmp[64], *v = c->nruns <= 64 ? tmp : malloc(c->nruns * sizeof *v);
  size_t n = 0;
  *med = *min = *max = NAN;
  if (v == NULL)
    return 0;
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_results_run *r = &c->runs[i];
    if ((passed_only && !r->passed) || !isfinite(r->m[m]))
      continue;
    v[n++] = r->m[m];
  }
  if (n > 0) {
    *med = np_results_median(v, n);
    *min = *max = v[0];
  }
  for (size_t i = 1; i < n; i++) {
    if (v[i] < *min)
      *min = v[i];
    if (v[i] > *max)
      *max = v[i];
  }
  if (v != tmp)
    free(v);
  return n;
}

int np_results_stat_ci(const struct np_results_config *c,
                       enum np_results_metric m, int passed_only, double *lo,
                       double *hi) {
  double *v = malloc((c->nruns ? c->nruns : 1) * sizeof *v);
  size_t n = 0;
  if (v == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < c->nruns; i++)
    if ((!passed_only || c->runs[i].passed) && isfinite(c->runs[i].m[m]))
      v[n++] = c->runs[i].m[m];
  int rc = np_results_median_ci_by(v, n, np_results_seed_of(c->id),
                                   (enum np_results_ci_method)c->ci_method,
                                   lo, hi);
  free(v);
  return rc;
}
