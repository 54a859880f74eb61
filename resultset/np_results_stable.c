/*
 * np_results_stable.c - the until-stable stopping rule (see
 * np_results_stable.h).  Each test is the same interval summary.json
 * states for round trips/s, over the repetitions run so far, so the
 * half-width a summary prints at the stop is the one the runner saw.
 */
#include "np_results_stable.h"

#include <math.h>
#include <stdlib.h>

#include "np_err.h"
#include "np_json.h"
#include "np_results_stats.h"
#include "np_stats.h"

int np_results_stable_eval(const struct np_matrix_plan *p, const double *rps,
                           size_t n, uint64_t seed,
                           struct np_results_stable_eval *out) {
  struct np_results_stable_eval e = {0, (size_t)p->repetitions, 0, NAN};
  size_t max = (size_t)p->repetitions, min = (size_t)p->min_repetitions;
  double *v = malloc((n ? n : 1) * sizeof *v);
  if (v == NULL)
    return NP_ENOMEM;
  size_t nv = 0;
  for (size_t k = 1; k <= n && k <= max && !e.decided; k++) {
    if (isfinite(rps[k - 1]))
      v[nv++] = rps[k - 1];
    if (k < min || nv < NP_STATS_MIN_CI_N)
      continue;
    double lo, hi, med;
    int rc = np_results_median_ci_by(
        v, nv, seed, (enum np_results_ci_method)p->ci_method, &lo, &hi);
    if (rc == 0)
      rc = np_stats_median(v, nv, &med);
    if (rc != 0) {
      free(v);
      return rc;
    }
    e.half_width_pct = np_results_half_width_pct(lo, hi, med);
    if (e.half_width_pct <= p->stable_ci_percent) {
      e.decided = e.met = 1;
      e.needed = k;
    }
  }
  free(v);
  if (!e.decided && n >= max) {
    e.decided = 1;
    e.needed = max;
  }
  *out = e;
  return 0;
}

cJSON *np_results_stable_plan_json(const struct np_matrix_plan *p) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddNumberToObject(o, "ci_percent", p->stable_ci_percent);
  cJSON_AddNumberToObject(o, "min_repetitions", p->min_repetitions);
  cJSON_AddNumberToObject(o, "max_repetitions", p->repetitions);
  return o;
}

cJSON *np_results_stable_json(const struct np_matrix_plan *p,
                              const struct np_results_stable_eval *e) {
  cJSON *o = np_results_stable_plan_json(p);
  if (o == NULL)
    return NULL;
  if (e->decided)
    cJSON_AddNumberToObject(o, "repetitions_needed", (double)e->needed);
  else
    cJSON_AddNullToObject(o, "repetitions_needed");
  cJSON_AddBoolToObject(o, "met", e->met);
  np_json_add_number(o, "half_width_percent", e->half_width_pct);
  return o;
}
