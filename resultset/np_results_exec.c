/*
 * np_results_exec.c - exec sets and their metric statistics (see
 * np_results_exec.h).
 */
#include "np_results_exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_json.h"
#include "np_kind.h"
#include "np_results_stats.h"

int np_results_is_exec(const struct np_results_set *s) {
  if (s->suite != NULL)
    return np_kind_is(np_json_get_string(s->suite, "protocol", ""),
                      NP_KIND_EXEC);
  return s->nruns > 0 &&
         np_kind_is(np_json_get_string(cJSON_GetObjectItemCaseSensitive(
                                           s->runs[0].doc, "config"),
                                       "protocol", ""),
                    NP_KIND_EXEC);
}

double np_results_exec_value(const cJSON *rec, const char *name) {
  const cJSON *m;
  cJSON_ArrayForEach(m, np_json_pointer(rec, "/exec/metrics")) {
    if (strcmp(np_json_get_string(m, "name", ""), name) != 0)
      continue;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
  }
  return NAN;
}

size_t np_results_exec_stat(const struct np_results_config *c,
                            const char *name, int passed_only, double *med,
                            double *min, double *max) {
  double *v = malloc((c->nruns + 1) * sizeof *v);
  size_t n = 0;
  *med = *min = *max = NAN;
  if (v == NULL)
    return 0;
  for (size_t i = 0; i < c->nruns; i++) {
    double x = np_results_exec_value(c->runs[i].doc, name);
    if ((!passed_only || c->runs[i].passed) && isfinite(x))
      v[n++] = x;
  }
  if (n > 0) {
    *med = np_results_median(v, n);
    *min = *max = v[0];
  }
  for (size_t i = 1; i < n; i++) {
    *min = v[i] < *min ? v[i] : *min;
    *max = v[i] > *max ? v[i] : *max;
  }
  free(v);
  return n;
}

int np_results_exec_ci(const struct np_results_config *c, const char *name,
                       int passed_only, double *lo, double *hi) {
  double *v = malloc((c->nruns + 1) * sizeof *v);
  size_t n = 0;
  if (v == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < c->nruns; i++) {
    double x = np_results_exec_value(c->runs[i].doc, name);
    if ((!passed_only || c->runs[i].passed) && isfinite(x))
      v[n++] = x;
  }
  int rc = np_results_median_ci_by(v, n, np_results_seed_of(c->id),
                                   (enum np_results_ci_method)c->ci_method,
                                   lo, hi);
  free(v);
  return rc;
}
