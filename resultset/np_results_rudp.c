/*
 * np_results_rudp.c - reliable-UDP round values and their statistics (see
 * np_results_rudp.h).  Metric pointers are relative to one element of a
 * record's rudp.rounds[].
 */
#include "np_results_rudp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_stats.h"

static const struct {
  const char *key; /* summary.json key                            */
  const char *ptr; /* JSON pointer inside one round; NULL: computed */
} np_rmetric[NP_R_COUNT_] = {
    [NP_R_RPS] = {"roundtrips_per_sec", "/measurement/roundtrips_per_sec"},
    [NP_R_P99] = {"rtt_p99_us", "/measurement/rtt_us/p99"},
    [NP_R_P50] = {"rtt_p50_us", "/measurement/rtt_us/p50"},
    [NP_R_CPU] = {"cpu_percent", "/measurement/cpu_percent"},
    [NP_R_RSS] = {"rss_max_bytes", "/measurement/rss_max_bytes"},
    [NP_R_OVERHEAD] = {"network_overhead_percent",
                       "/arq/network_overhead_percent"},
    [NP_R_RETX] = {"retransmits_per_1000_roundtrips",
                   "/arq/retransmits_per_1000_roundtrips"},
    [NP_R_RECOV] = {"recoveries_per_1000_roundtrips",
                    "/fec/recoveries_per_1000_roundtrips"},
    [NP_R_UNREC] = {"unrecoverable_groups", "/fec/unrecoverable_groups"},
    [NP_R_RETAINED] = {"fec_retained_peak_bytes",
                       "/fec/retained/peak_sum_bytes"},
    [NP_R_RELAY] = {"relay_route_peak_bytes_sum",
                    "/relay/route_peak_bytes_sum"},
    [NP_R_LOSS] = {"applied_loss_percent",
                   "/relay/window/applied_loss_percent"},
    [NP_R_CPU_RT] = {"cpu_us_per_roundtrip", NULL},
};

const char *np_results_rudp_metric_key(enum np_results_rudp_metric m) {
  return np_rmetric[m].key;
}

double np_results_rudp_round_value(const cJSON *round,
                                   enum np_results_rudp_metric m) {
  if (np_rmetric[m].ptr != NULL)
    return np_results_num(round, np_rmetric[m].ptr);
  double rt = np_results_num(round, "/measurement/roundtrips");
  double u = np_results_num(round, "/measurement/cpu_user_seconds");
  double s = np_results_num(round, "/measurement/cpu_sys_seconds");
  if (isnan(rt) || isnan(u) || isnan(s))
    return NAN;
  return rt > 0 ? 1e6 * (u + s) / rt : 0;
}

/* The record's rounds array and median round index (-1 when absent). */
static const cJSON *rounds_of(const cJSON *doc, int *median) {
  const cJSON *part = cJSON_GetObjectItemCaseSensitive(doc, "rudp");
  const cJSON *mr = cJSON_GetObjectItemCaseSensitive(part, "median_round");
  *median = cJSON_IsNumber(mr) ? (int)mr->valuedouble : -1;
  return cJSON_GetObjectItemCaseSensitive(part, "rounds");
}

/* The values of m by the rule above into a malloc'd *out (*k of them)
 * and the median the rule states (NAN when none).  NP_ENOMEM. */
static int values_of(const struct np_results_config *c,
                     enum np_results_rudp_metric m, double **out, size_t *k,
                     double *med) {
  int mi;
  /* one value per round of a single record, or per repetition */
  size_t cap = c->nruns == 1
                   ? (size_t)cJSON_GetArraySize(rounds_of(c->runs[0].doc, &mi))
                   : c->nruns;
  double *v = malloc((cap ? cap : 1) * sizeof *v);
  *k = 0;
  *med = NAN;
  if (v == NULL)
    return NP_ENOMEM;
  if (c->nruns == 1) {
    const cJSON *r, *rounds = rounds_of(c->runs[0].doc, &mi);
    int i = 0;
    cJSON_ArrayForEach(r, rounds) {
      double x = np_results_rudp_round_value(r, m);
      if (i++ == mi)
        *med = x;
      if (!isnan(x) && *k < cap)
        v[(*k)++] = x;
    }
  } else {
    for (size_t i = 0; i < c->nruns; i++) {
      const cJSON *rounds = rounds_of(c->runs[i].doc, &mi);
      double x = np_results_rudp_round_value(cJSON_GetArrayItem(rounds, mi), m);
      if (mi >= 0 && !isnan(x))
        v[(*k)++] = x;
    }
    if (*k > 0)
      *med = np_results_median(v, *k);
  }
  *out = v;
  return 0;
}

int np_results_rudp_stat(const struct np_results_config *c,
                         enum np_results_rudp_metric m, double *med,
                         double *min, double *max, size_t *n) {
  size_t k = 0;
  double *v = NULL;
  *med = *min = *max = NAN;
  if (n != NULL)
    *n = 0;
  if (values_of(c, m, &v, &k, med) != 0)
    return NP_ENOMEM;
  for (size_t i = 0; i < k; i++) {
    if (i == 0 || v[i] < *min)
      *min = v[i];
    if (i == 0 || v[i] > *max)
      *max = v[i];
  }
  free(v);
  if (n != NULL)
    *n = k;
  return 0;
}

int np_results_rudp_ci(const struct np_results_config *c,
                       enum np_results_rudp_metric m, double *lo, double *hi) {
  size_t k = 0;
  double *v = NULL, med;
  if (values_of(c, m, &v, &k, &med) != 0)
    return NP_ENOMEM;
  int rc = np_results_median_ci_by(v, k, np_results_seed_of(c->id),
                                   (enum np_results_ci_method)c->ci_method,
                                   lo, hi);
  free(v);
  return rc;
}

int np_results_is_rudp(const struct np_results_set *s) {
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *cfg =
        cJSON_GetObjectItemCaseSensitive(s->runs[i].doc, "config");
    if (np_kind_is(np_json_get_string(cfg, "protocol", ""), NP_KIND_RUDP))
      return 1;
  }
  return 0;
}
