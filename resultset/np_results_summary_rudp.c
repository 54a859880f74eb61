/*
 * np_results_summary_rudp.c - round metrics of `netproof-bench rudp`
 * records and their statistics in summary.json (see
 * np_results_summary_rudp.h for the two bases).  The accumulator reads the
 * repetition entries, not the records, so the self-check can keep an
 * entry per run instead of the run's whole record.
 *
 * On the "rounds" basis the median is the record's own median round
 * (rudp.median_round, chosen by round trips/s), so every figure of a bar
 * comes from one coherent round - the same rule as the record's
 * rudp.summary - and min / max span all rounds.
 */
#include "np_results_summary_rudp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_stats.h"

/* Where each metric lives inside one element of rudp.rounds[]. */
static const struct {
  const char *name;
  const char *ptr; /* NULL: computed (cpu_us_per_roundtrip) */
} np_rudp_metrics[] = {
    {"roundtrips_per_sec", "/measurement/roundtrips_per_sec"},
    {"rtt_p99_us", "/measurement/rtt_us/p99"},
    {"rtt_p50_us", "/measurement/rtt_us/p50"},
    {"cpu_percent", "/measurement/cpu_percent"},
    {"rss_max_bytes", "/measurement/rss_max_bytes"},
    {"network_overhead_percent", "/arq/network_overhead_percent"},
    {"retransmits_per_1000_roundtrips", "/arq/retransmits_per_1000_roundtrips"},
    {"recoveries_per_1000_roundtrips", "/fec/recoveries_per_1000_roundtrips"},
    {"unrecoverable_groups", "/fec/unrecoverable_groups"},
    {"fec_retained_peak_bytes", "/fec/retained/peak_sum_bytes"},
    {"relay_route_peak_bytes_sum", "/relay/route_peak_bytes_sum"},
    {"applied_loss_percent", "/relay/window/applied_loss_percent"},
    {"cpu_us_per_roundtrip", NULL},
};
#define NP_NRM (sizeof np_rudp_metrics / sizeof np_rudp_metrics[0])

/* Values of one metric, grown as repetitions are added, each with its
 * tag: the round index (rounds basis) or the repetition number. */
struct np_vec {
  double *v;
  long *tag;
  size_t n, cap;
};

struct np_results_rudp_acc {
  int by_rounds;            /* "rounds" basis (else "repetitions")        */
  struct np_vec all[NP_NRM];/* every round (rounds) / median rounds (reps) */
  double med[NP_NRM];       /* rounds basis: the median round's value     */
  int have_med[NP_NRM];
  int nrecords;             /* records with a rudp part                    */
};

size_t np_results_summary_rudp_nmetrics(void) { return NP_NRM; }

const char *np_results_summary_rudp_metric(size_t i) {
  return i < NP_NRM ? np_rudp_metrics[i].name : NULL;
}

int np_results_summary_rudp_round_metric(const cJSON *round, size_t i,
                                         double *v) {
  if (i >= NP_NRM)
    return 0;
  if (np_rudp_metrics[i].ptr == NULL) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(round, "measurement");
    double rt = np_json_get_number(m, "roundtrips", -1);
    double u = np_json_get_number(m, "cpu_user_seconds", -1);
    double s = np_json_get_number(m, "cpu_sys_seconds", -1);
    if (rt < 0 || u < 0 || s < 0)
      return 0;
    *v = rt > 0 ? 1e6 * (u + s) / rt : 0;
    return 1;
  }
  const cJSON *x = np_json_pointer(round, np_rudp_metrics[i].ptr);
  if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
    return 0;
  *v = x->valuedouble;
  return 1;
}

static void vec_push(struct np_vec *w, double x, long tag) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 8;
    double *nv = realloc(w->v, cap * sizeof *nv);
    if (nv != NULL)
      w->v = nv;
    long *nt = realloc(w->tag, cap * sizeof *nt);
    if (nt != NULL)
      w->tag = nt;
    if (nv == NULL || nt == NULL)
      return; /* the value is left out; n stays honest */
    w->cap = cap;
  }
  w->tag[w->n] = tag;
  w->v[w->n++] = x;
}

struct np_results_rudp_acc *np_results_rudp_acc_new(int by_rounds) {
  struct np_results_rudp_acc *a = calloc(1, sizeof *a);
  if (a != NULL)
    a->by_rounds = by_rounds;
  return a;
}

void np_results_rudp_acc_free(struct np_results_rudp_acc *a) {
  if (a == NULL)
    return;
  for (size_t i = 0; i < NP_NRM; i++) {
    free(a->all[i].v);
    free(a->all[i].tag);
  }
  free(a);
}

void np_results_summary_rudp_rep(const cJSON *rec, cJSON *rep) {
  const cJSON *part = cJSON_GetObjectItemCaseSensitive(rec, "rudp");
  const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(part, "rounds");
  const cJSON *mr = cJSON_GetObjectItemCaseSensitive(part, "median_round");
  if (!cJSON_IsArray(rounds) || !cJSON_IsNumber(mr))
    return;
  cJSON *o = cJSON_AddObjectToObject(rep, "rudp");
  cJSON *list = o ? cJSON_AddArrayToObject(o, "rounds") : NULL;
  if (list == NULL)
    return;
  /* a self-check reads hostile records too: no undefined conversion */
  double m = mr->valuedouble;
  cJSON_AddNumberToObject(o, "median_round", m >= 0 && m < 1e9 ? (int)m : -1);
  int k = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rounds) {
    cJSON *e = cJSON_CreateObject();
    if (e == NULL || !cJSON_AddItemToArray(list, e)) {
      cJSON_Delete(e);
      return;
    }
    cJSON_AddNumberToObject(e, "round", k++);
    cJSON_AddStringToObject(e, "status",
                            np_json_get_string(r, "status", "invalid"));
    for (size_t i = 0; i < NP_NRM; i++) {
      double v;
      if (np_results_summary_rudp_round_metric(r, i, &v))
        np_json_add_number(e, np_rudp_metrics[i].name, v);
      else
        cJSON_AddNullToObject(e, np_rudp_metrics[i].name);
    }
  }
}

void np_results_rudp_acc_add(struct np_results_rudp_acc *a, const cJSON *rep,
                             long n) {
  const cJSON *part = cJSON_GetObjectItemCaseSensitive(rep, "rudp");
  const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(part, "rounds");
  const cJSON *mr = cJSON_GetObjectItemCaseSensitive(part, "median_round");
  if (!cJSON_IsArray(rounds) || !cJSON_IsNumber(mr))
    return;
  double m = mr->valuedouble;
  int median = m >= 0 && m < 1e9 ? (int)m : -1;
  a->nrecords++;
  int k = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rounds) {
    for (size_t i = 0; i < NP_NRM; i++) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(r,
                                                        np_rudp_metrics[i].name);
      if (!cJSON_IsNumber(x))
        continue;
      double v = x->valuedouble;
      /* rounds basis: every round of the (single) record; repetitions
       * basis: only the record's median round */
      if (a->by_rounds || k == median)
        vec_push(&a->all[i], v, a->by_rounds ? k : n);
      if (a->by_rounds && k == median && !a->have_med[i]) {
        a->med[i] = v;
        a->have_med[i] = 1;
      }
    }
    k++;
  }
}

static int cmp_double(const void *x, const void *y) {
  double p = *(const double *)x, q = *(const double *)y;
  return (p > q) - (p < q);
}

int np_results_rudp_acc_finish(struct np_results_rudp_acc *a, cJSON *config,
                               double spread_limit, uint64_t seed,
                               enum np_results_ci_method m,
                               double *median_rps) {
  *median_rps = -1;
  cJSON_AddStringToObject(config, "stats_basis",
                          a->by_rounds ? "rounds" : "repetitions");
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(config, "stats");
  if (stats == NULL || a->nrecords == 0)
    return 0; /* no rudp record (e.g. every repetition crashed) */
  double spread = -1;
  for (size_t i = 0; i < NP_NRM; i++) {
    struct np_vec *w = &a->all[i];
    cJSON *s = cJSON_CreateObject(), *ext = cJSON_CreateObject();
    /* mean, sd, interval and outliers of the values as added (tags in
     * order), moved in after median / min / max / n */
    if (s == NULL || ext == NULL ||
        np_results_stat_extend(ext, w->v, w->tag, w->n, seed, m) != 0) {
      cJSON_Delete(s);
      cJSON_Delete(ext);
      return NP_ENOMEM;
    }
    qsort(w->v, w->n, sizeof *w->v, cmp_double);
    int have = a->by_rounds ? a->have_med[i] : w->n > 0;
    double med = !have            ? 0
                 : a->by_rounds   ? a->med[i]
                 : w->n % 2       ? w->v[w->n / 2]
                                  : (w->v[w->n / 2 - 1] + w->v[w->n / 2]) / 2;
    if (have)
      np_json_add_number(s, "median", med);
    else
      cJSON_AddNullToObject(s, "median");
    if (w->n > 0) {
      np_json_add_number(s, "min", w->v[0]);
      np_json_add_number(s, "max", w->v[w->n - 1]);
    } else {
      cJSON_AddNullToObject(s, "min");
      cJSON_AddNullToObject(s, "max");
    }
    cJSON_AddNumberToObject(s, "n", (double)w->n);
    for (cJSON *e = ext->child; e != NULL; e = ext->child) {
      cJSON_DetachItemViaPointer(ext, e);
      cJSON_AddItemToObject(s, e->string, e);
    }
    cJSON_Delete(ext);
    /* replace in place (keeps the generic key order), else append */
    if (cJSON_HasObjectItem(stats, np_rudp_metrics[i].name))
      cJSON_ReplaceItemInObjectCaseSensitive(stats, np_rudp_metrics[i].name,
                                             s);
    else
      cJSON_AddItemToObject(stats, np_rudp_metrics[i].name, s);
    if (i == 0 && have) {
      *median_rps = med;
      if (w->n > 1 && med > 0)
        spread = (w->v[w->n - 1] - w->v[0]) / med;
    }
  }
  cJSON_DeleteItemFromObjectCaseSensitive(config, "spread");
  cJSON_DeleteItemFromObjectCaseSensitive(config, "unstable");
  if (spread >= 0)
    np_json_add_number(config, "spread", spread);
  else
    cJSON_AddNullToObject(config, "spread");
  cJSON_AddBoolToObject(config, "unstable", spread > spread_limit);
  return 0;
}
