/*
 * np_results_compare.c - NEW against BASE, configuration by configuration
 * (see np_results_compare.h for the rules).  Every figure comes from
 * common/np_stats through the fixed level, resamples and seeds of
 * np_results_stats, so the check of a comparison rebuilds it exactly.
 */
#include "np_results_compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_stats.h"
#include "np_stats.h"

static const struct np_results_compare_metric np_cmp_metrics[] = {
    {"roundtrips_per_sec", NP_M_RPS, "round trips/s", 1, "faster", "slower"},
    {"rtt_p50_us", NP_M_P50, "p50 RTT / \xce\xbcs", 0, "faster", "slower"},
    {"rtt_p99_us", NP_M_P99, "p99 RTT / \xce\xbcs", 0, "faster", "slower"},
    {"cpu_percent", NP_M_CPU, "process CPU / %", 0, "less CPU", "more CPU"},
};
#define NP_NCMP (sizeof np_cmp_metrics / sizeof np_cmp_metrics[0])
#define NO_CHANGE "no significant change"
#define INCONCLUSIVE "inconclusive"

const struct np_results_compare_metric *np_results_compare_metric_at(size_t i) {
  return i < NP_NCMP ? &np_cmp_metrics[i] : NULL;
}

const struct np_results_compare_metric *
np_results_compare_metric_find(const char *name) {
  for (size_t i = 0; i < NP_NCMP; i++)
    if (strcmp(np_cmp_metrics[i].name, name) == 0)
      return &np_cmp_metrics[i];
  return NULL;
}

void np_results_compare_opts_init(struct np_results_compare_opts *o) {
  memset(o, 0, sizeof *o);
  o->alpha = NP_COMPARE_ALPHA;
  o->threshold = NP_COMPARE_THRESHOLD;
  o->base_label = "base";
  o->new_label = "new";
}

int np_results_compare_opts_of(const cJSON *doc,
                               struct np_results_compare_opts *o,
                               struct np_errbuf *eb) {
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(doc, "options");
  np_results_compare_opts_init(o);
  if (!cJSON_IsObject(op))
    return np_errbuf_set(eb, NP_EPARSE, "/options: missing");
  o->alpha = np_json_get_number(op, "alpha", NAN);
  o->threshold = np_json_get_number(op, "threshold", NAN);
  o->base_only = np_json_get_string(op, "base_only", NULL);
  o->new_only = np_json_get_string(op, "new_only", NULL);
  const cJSON *map = cJSON_GetObjectItemCaseSensitive(op, "map");
  o->map_from = np_json_get_string(map, "from", NULL);
  o->map_to = np_json_get_string(map, "to", NULL);
  o->base_label = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(doc, "base"), "label", "base");
  o->new_label = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(doc, "new"), "label", "new");
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(op, "metrics")) {
    if (!cJSON_IsString(m) || o->nmetrics == NP_COMPARE_MAX_METRICS)
      return np_errbuf_set(eb, NP_EPARSE, "/options/metrics: not a list of "
                                          "at most %d names",
                           NP_COMPARE_MAX_METRICS);
    o->metrics[o->nmetrics++] = m->valuestring;
  }
  if (!isfinite(o->alpha) || !isfinite(o->threshold))
    return np_errbuf_set(eb, NP_EPARSE, "/options: alpha and threshold "
                                        "must be numbers");
  return 0;
}

/* The metrics of o (defaults when none) into sel; 0 or NP_EINVAL. */
static int pick_metrics(const struct np_results_compare_opts *o,
                        const struct np_results_compare_metric **sel,
                        size_t *n, struct np_errbuf *eb) {
  static const char *const dflt[] = {"roundtrips_per_sec", "rtt_p99_us"};
  size_t k = o->nmetrics ? o->nmetrics : 2;
  for (size_t i = 0; i < k; i++) {
    const char *name = o->nmetrics ? o->metrics[i] : dflt[i];
    sel[i] = np_results_compare_metric_find(name);
    if (sel[i] == NULL)
      return np_errbuf_set(eb, NP_EINVAL,
                           "--metrics %s: not one of roundtrips_per_sec, "
                           "rtt_p50_us, rtt_p99_us, cpu_percent",
                           name);
    for (size_t j = 0; j < i; j++)
      if (sel[j] == sel[i])
        return np_errbuf_set(eb, NP_EINVAL, "--metrics %s: given twice",
                             name);
  }
  *n = k;
  return 0;
}

/* NEW's id as matched: map_from replaced (first occurrence) by map_to. */
static void mapped_id(const char *id, const struct np_results_compare_opts *o,
                      char *buf, size_t len) {
  const char *at = o->map_from && o->map_from[0] ? strstr(id, o->map_from)
                                                 : NULL;
  if (at == NULL)
    snprintf(buf, len, "%s", id);
  else
    snprintf(buf, len, "%.*s%s%s", (int)(at - id), id,
             o->map_to ? o->map_to : "", at + strlen(o->map_from));
}

static int selected(const char *glob, const char *id) {
  return glob == NULL || fnmatch(glob, id, 0) == 0;
}

/* Who, where and with what a set ran (suite.json), for the top lines. */
static cJSON *set_json(const struct np_results_set *s, const char *label) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(s->suite, "tool");
  const cJSON *mach = cJSON_GetObjectItemCaseSensitive(s->suite, "machine");
  cJSON_AddStringToObject(o, "label", label);
  cJSON_AddStringToObject(o, "suite",
                          np_json_get_string(s->suite, "suite", ""));
  cJSON_AddStringToObject(o, "plan_sha256",
                          np_json_get_string(s->suite, "plan_sha256", ""));
  cJSON_AddStringToObject(o, "status",
                          np_json_get_string(s->suite, "status", ""));
  cJSON_AddStringToObject(o, "started_at",
                          np_json_get_string(s->suite, "started_at", ""));
  cJSON_AddNumberToObject(o, "configurations", (double)s->nconfigs);
  cJSON_AddNumberToObject(o, "runs", (double)s->nruns);
  static const char *const tk[] = {"version", "source_sha256",
                                   "binary_sha256"};
  static const char *const mk[] = {"hostname", "cpu_model", "logical_cores",
                                   "kernel_release"};
  cJSON *t = cJSON_AddObjectToObject(o, "tool");
  for (size_t i = 0; t && i < sizeof tk / sizeof *tk; i++)
    cJSON_AddStringToObject(t, tk[i], np_json_get_string(tool, tk[i], ""));
  cJSON *m = cJSON_AddObjectToObject(o, "machine");
  for (size_t i = 0; m && i < sizeof mk / sizeof *mk; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(mach, mk[i]);
    if (cJSON_IsNumber(v))
      cJSON_AddNumberToObject(m, mk[i], v->valuedouble);
    else
      cJSON_AddStringToObject(m, mk[i], np_json_get_string(mach, mk[i], ""));
  }
  return o;
}

/* "machine hostname: a (base) vs b (new)" for every field that differs. */
static void differences(cJSON *list, const cJSON *b, const cJSON *n) {
  static const char *const parts[] = {"machine", "tool"};
  for (size_t p = 0; p < 2; p++) {
    const cJSON *x, *pb = cJSON_GetObjectItemCaseSensitive(b, parts[p]);
    const cJSON *pn = cJSON_GetObjectItemCaseSensitive(n, parts[p]);
    cJSON_ArrayForEach(x, pb) {
      const cJSON *y = cJSON_GetObjectItemCaseSensitive(pn, x->string);
      if (y != NULL && cJSON_Compare(x, y, 1))
        continue;
      char a[160], c[160], line[400];
      char *ta = cJSON_PrintUnformatted(x), *tc = cJSON_PrintUnformatted(y);
      snprintf(a, sizeof a, "%s", ta ? ta : "?");
      snprintf(c, sizeof c, "%s", tc ? tc : "(none)");
      free(ta);
      free(tc);
      snprintf(line, sizeof line, "%s %s: %s (base) vs %s (new)",
               p == 0 ? "machine" : "build", x->string, a, c);
      cJSON_AddItemToArray(list, cJSON_CreateString(line));
    }
  }
}

/* The finite values of metric m over c's runs, and their run ids. */
static size_t values_of(const struct np_results_config *c,
                        enum np_results_metric m, double *v, cJSON *ids) {
  size_t n = 0;
  for (size_t i = 0; i < c->nruns; i++)
    if (isfinite(c->runs[i].m[m])) {
      v[n++] = c->runs[i].m[m];
      cJSON_AddItemToArray(ids, cJSON_CreateString(c->runs[i].id));
    }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* {n, median, min, max, values, runs} of one side. */
static cJSON *side_json(const double *v, size_t n, cJSON *ids) {
  cJSON *o = cJSON_CreateObject(), *vals;
  if (o == NULL) {
    cJSON_Delete(ids);
    return NULL;
  }
  struct np_stats_desc d = {0};
  cJSON_AddNumberToObject(o, "n", (double)n);
  if (n > 0 && np_stats_describe(v, n, &d) == 0) {
    np_json_add_number(o, "median", d.median);
    np_json_add_number(o, "min", d.min);
    np_json_add_number(o, "max", d.max);
  } else {
    cJSON_AddNullToObject(o, "median");
    cJSON_AddNullToObject(o, "min");
    cJSON_AddNullToObject(o, "max");
  }
  vals = cJSON_AddArrayToObject(o, "values");
  for (size_t i = 0; vals && i < n; i++)
    cJSON_AddItemToArray(vals, cJSON_CreateNumber(v[i]));
  cJSON_AddItemToObject(o, "runs", ids);
  return o;
}

/* One compared pair: the BASE and NEW configurations. */
struct pair {
  const struct np_results_config *b, *n;
};

/* Per metric of one pair: what the family correction needs later. */
struct cell {
  cJSON *o;    /* the metric's object in the document */
  double p;    /* U test p-value; NAN when not tested */
  double ratio;
  size_t nb, nn; /* values a side                      */
};

/* What the inconclusive configurations of one metric have in common, for
 * the gate's line: how many, their run counts, the family, the need. */
struct floor_sum {
  size_t count, family, need;
  size_t lo, hi; /* fewest and most runs a side among them */
};

/* The metric entry of one pair (sides, ratio, interval, U test); the
 * verdict comes after Holm.  NULL on no memory. */
static cJSON *metric_json(const struct pair *pr,
                          const struct np_results_compare_metric *mt,
                          uint64_t seed, struct cell *cl) {
  size_t cap = pr->b->nruns + pr->n->nruns + 1;
  double *vb = malloc(cap * sizeof *vb), *vn = malloc(cap * sizeof *vn);
  cJSON *o = cJSON_CreateObject(), *ib = cJSON_CreateArray(),
        *in = cJSON_CreateArray();
  cl->o = o;
  cl->p = cl->ratio = NAN;
  if (vb == NULL || vn == NULL || o == NULL || ib == NULL || in == NULL) {
    free(vb);
    free(vn);
    cJSON_Delete(o);
    cJSON_Delete(ib);
    cJSON_Delete(in);
    return NULL;
  }
  size_t nb = values_of(pr->b, mt->m, vb, ib);
  size_t nn = values_of(pr->n, mt->m, vn, in);
  cl->nb = nb;
  cl->nn = nn;
  cJSON_AddItemToObject(o, "base", side_json(vb, nb, ib));
  cJSON_AddItemToObject(o, "new", side_json(vn, nn, in));
  qsort(vb, nb, sizeof *vb, cmp_double); /* the values, not their order */
  qsort(vn, nn, sizeof *vn, cmp_double);
  struct np_stats_cmp c;
  if (nb == 0 || nn == 0 ||
      np_stats_compare(vb, nb, vn, nn, NP_RESULTS_CI_LEVEL,
                       NP_STATS_RESAMPLES, seed, &c) != 0) {
    cJSON_AddNullToObject(o, "ratio");
    cJSON_AddNullToObject(o, "ci95");
    cJSON_AddStringToObject(o, "note", nb == 0   ? "no values in base"
                                       : nn == 0 ? "no values in new"
                                                 : "not computable");
  } else {
    cl->p = c.p;
    cl->ratio = c.ratio;
    np_json_add_number(o, "ratio", c.ratio);
    if (c.has_ci) {
      cJSON *ci = cJSON_AddObjectToObject(o, "ci95");
      np_json_add_number(ci, "lo", c.ci_lo);
      np_json_add_number(ci, "hi", c.ci_hi);
    } else {
      cJSON_AddNullToObject(o, "ci95");
      cJSON_AddStringToObject(o, "ci95_note", NP_RESULTS_TOO_FEW);
    }
    np_json_add_number(o, "u", c.u);
    np_json_add_number(o, "p", c.p);
    cJSON_AddBoolToObject(o, "exact", c.exact);
  }
  free(vb);
  free(vn);
  return o;
}

/* "<runs> cannot detect a change at alpha = A[ over M configurations
 * (Holm)]; need >= N a side": why a configuration, or a metric's
 * configurations, cannot conclude. */
static void cannot_text(const char *runs, size_t family, double alpha,
                        size_t need, char *buf, size_t len) {
  char fam[64] = "", nd[48];
  if (family > 1)
    snprintf(fam, sizeof fam, " with Holm over %zu configurations", family);
  if (need > 0)
    snprintf(nd, sizeof nd, "need \xe2\x89\xa5 %zu a side", need);
  else
    snprintf(nd, sizeof nd, "need more than %d a side", NP_STATS_MW_MAX_N);
  snprintf(buf, len, "%s cannot detect a change at \xce\xb1 = %g%s; %s",
           runs, alpha, fam, nd);
}

/* Holm across the pairs of metric k, then every verdict; counts[0..3]:
 * better, worse, no change, inconclusive.  A configuration is
 * inconclusive when even the most extreme ordering of its runs could not
 * give a Holm-adjusted p below alpha: the floors are Holm applied to the
 * family's smallest exact p-values (np_stats_mw_min_p), a lower bound of
 * every adjusted p since Holm never decreases when a p-value grows. */
static int verdicts(struct cell *cells, size_t npairs,
                    const struct np_results_compare_metric *mt,
                    const struct np_results_compare_opts *o,
                    double counts[4], struct floor_sum *fs) {
  size_t cap = npairs ? npairs : 1;
  double *p = malloc(cap * sizeof *p), *adj = malloc(cap * sizeof *adj);
  double *pmin = malloc(cap * sizeof *pmin), *fl = malloc(cap * sizeof *fl);
  size_t *at = malloc(cap * sizeof *at), k = 0;
  int rc = p && adj && pmin && fl && at ? 0 : NP_ENOMEM;
  for (size_t i = 0; rc == 0 && i < npairs; i++)
    if (isfinite(cells[i].p)) {
      at[k] = i;
      pmin[k] = np_stats_mw_min_p(cells[i].nb, cells[i].nn);
      p[k++] = cells[i].p;
    }
  if (rc == 0)
    rc = np_stats_holm(p, k, adj);
  if (rc == 0)
    rc = np_stats_holm(pmin, k, fl);
  memset(fs, 0, sizeof *fs);
  fs->family = k;
  fs->need = np_stats_mw_min_n(k, o->alpha);
  for (size_t j = 0; rc == 0 && j < k; j++) {
    struct cell *cl = &cells[at[j]];
    enum np_stats_verdict v = np_stats_verdict_of(
        cl->ratio, adj[j], o->alpha, o->threshold, mt->higher_is_better);
    int cannot = !(fl[j] < o->alpha);
    char text[240];
    np_json_add_number(cl->o, "p_holm", adj[j]);
    np_json_add_number(cl->o, "p_floor", fl[j]);
    if (cannot) {
      /* also over the normal approximation of tied values, which can dip
       * below the exact floor at small n: the exact test could not */
      char runs[64], why[200];
      if (cl->nb == cl->nn)
        snprintf(runs, sizeof runs, "%zu run%s a side", cl->nb,
                 cl->nb == 1 ? "" : "s");
      else
        snprintf(runs, sizeof runs, "%zu (base) and %zu (new) runs", cl->nb,
                 cl->nn);
      cannot_text(runs, k, o->alpha, fs->need, why, sizeof why);
      snprintf(text, sizeof text, INCONCLUSIVE " (%s)", why);
      size_t lo = cl->nb < cl->nn ? cl->nb : cl->nn;
      size_t hi = cl->nb < cl->nn ? cl->nn : cl->nb;
      if (fs->count == 0 || lo < fs->lo)
        fs->lo = lo;
      if (fs->count == 0 || hi > fs->hi)
        fs->hi = hi;
      fs->count++;
    }
    cJSON_AddStringToObject(cl->o, "verdict",
                            cannot                ? text
                            : v == NP_STATS_BETTER ? mt->better
                            : v == NP_STATS_WORSE  ? mt->worse
                                                   : NO_CHANGE);
    cJSON_AddBoolToObject(cl->o, "regression", !cannot && v == NP_STATS_WORSE);
    counts[cannot                ? 3
           : v == NP_STATS_BETTER ? 0
           : v == NP_STATS_WORSE  ? 1
                                  : 2]++;
  }
  free(p);
  free(adj);
  free(pmin);
  free(fl);
  free(at);
  return rc;
}

/* The gate's line for the inconclusive configurations of metric mt. */
static void floor_line(const struct np_results_compare_metric *mt,
                       const struct floor_sum *fs, double alpha, char *buf,
                       size_t len) {
  char runs[64], why[200];
  if (fs->lo == fs->hi)
    snprintf(runs, sizeof runs, "%zu run%s a side", fs->lo,
             fs->lo == 1 ? "" : "s");
  else
    snprintf(runs, sizeof runs, "%zu to %zu runs a side", fs->lo, fs->hi);
  cannot_text(runs, fs->family, alpha, fs->need, why, sizeof why);
  snprintf(buf, len, "%s: %zu of %zu configuration%s " INCONCLUSIVE " (%s)",
           mt->name, fs->count, fs->family, fs->family == 1 ? "" : "s", why);
}

/* Why a matched pair is not compared, or NULL. */
static const char *not_comparable(const struct pair *pr, char *buf,
                                  size_t len) {
  const struct np_results_config *side[2] = {pr->b, pr->n};
  static const char *const name[2] = {"base", "new"};
  for (int s = 0; s < 2; s++) {
    if (side[s]->expect_fail) {
      snprintf(buf, len, "expected to fail in %s", name[s]);
      return buf;
    }
    if (side[s]->npassed < side[s]->nruns) {
      snprintf(buf, len, "%zu of %zu runs failed in %s",
               side[s]->nruns - side[s]->npassed, side[s]->nruns, name[s]);
      return buf;
    }
  }
  return NULL;
}

static cJSON *options_json(const struct np_results_compare_opts *o,
                           const struct np_results_compare_metric **sel,
                           size_t nsel) {
  cJSON *op = cJSON_CreateObject();
  if (op == NULL)
    return NULL;
  cJSON_AddNumberToObject(op, "alpha", o->alpha);
  cJSON_AddNumberToObject(op, "threshold", o->threshold);
  cJSON *ms = cJSON_AddArrayToObject(op, "metrics");
  for (size_t i = 0; ms && i < nsel; i++)
    cJSON_AddItemToArray(ms, cJSON_CreateString(sel[i]->name));
  if (o->base_only)
    cJSON_AddStringToObject(op, "base_only", o->base_only);
  if (o->new_only)
    cJSON_AddStringToObject(op, "new_only", o->new_only);
  if (o->map_from) {
    cJSON *map = cJSON_AddObjectToObject(op, "map");
    cJSON_AddStringToObject(map, "from", o->map_from);
    cJSON_AddStringToObject(map, "to", o->map_to ? o->map_to : "");
  }
  return op;
}

static cJSON *method_json(void) {
  cJSON *m = cJSON_CreateObject();
  char seed[17];
  if (m == NULL)
    return NULL;
  np_results_seed_hex(NP_RESULTS_ROOT_SEED, seed);
  cJSON_AddStringToObject(m, "ratio",
                          "median(new) / median(base) with a 95 % percentile "
                          "bootstrap interval (each side resampled on its "
                          "own, values sorted first; none below 5 runs a "
                          "side)");
  cJSON_AddNumberToObject(m, "resamples", NP_STATS_RESAMPLES);
  cJSON_AddStringToObject(m, "root_seed", seed);
  cJSON_AddStringToObject(m, "test",
                          "two-sided Mann-Whitney U of new against base "
                          "(exact without ties up to 100 values, else the "
                          "normal approximation with tie and continuity "
                          "correction)");
  cJSON_AddStringToObject(m, "correction",
                          "Holm across the compared configurations of each "
                          "metric");
  cJSON_AddStringToObject(m, "verdict",
                          "a change counts when p_holm < alpha and |ratio - "
                          "1| > threshold; a change for the worse is a "
                          "regression; inconclusive when p_floor (Holm over "
                          "the smallest exact U-test p-values the run "
                          "counts allow) is not below alpha");
  return m;
}

/* The pairs and the lists of unmatched and not-compared configurations. */
static int match(const struct np_results_set *base,
                 const struct np_results_set *new_,
                 const struct np_results_compare_opts *o, struct pair *pairs,
                 size_t *npairs, size_t *new_failed, cJSON *doc) {
  cJSON *ob = cJSON_AddArrayToObject(doc, "only_in_base");
  cJSON *on = cJSON_AddArrayToObject(doc, "only_in_new");
  cJSON *nc = cJSON_AddArrayToObject(doc, "not_compared");
  char *taken = calloc(new_->nconfigs + 1, 1);
  if (ob == NULL || on == NULL || nc == NULL || taken == NULL) {
    free(taken);
    return NP_ENOMEM;
  }
  char id[NP_RESULTS_ID_MAX + 64], why[96];
  size_t k = 0;
  for (size_t i = 0; i < base->nconfigs; i++) {
    const struct np_results_config *b = &base->configs[i];
    if (!selected(o->base_only, b->id))
      continue;
    const struct np_results_config *n = NULL;
    for (size_t j = 0; j < new_->nconfigs && n == NULL; j++) {
      mapped_id(new_->configs[j].id, o, id, sizeof id);
      if (!taken[j] && selected(o->new_only, new_->configs[j].id) &&
          strcmp(id, b->id) == 0) {
        n = &new_->configs[j];
        taken[j] = 1;
      }
    }
    if (n == NULL) {
      cJSON_AddItemToArray(ob, cJSON_CreateString(b->id));
      continue;
    }
    struct pair pr = {b, n};
    if (not_comparable(&pr, why, sizeof why) != NULL) {
      /* passed in base, runs failed in new: the new build broke it */
      if (!b->expect_fail && !n->expect_fail && b->npassed == b->nruns &&
          n->npassed < n->nruns)
        (*new_failed)++;
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "id", b->id);
      cJSON_AddStringToObject(e, "reason", why);
      cJSON_AddItemToArray(nc, e);
      continue;
    }
    pairs[k++] = pr;
  }
  for (size_t j = 0; j < new_->nconfigs; j++)
    if (!taken[j] && selected(o->new_only, new_->configs[j].id))
      cJSON_AddItemToArray(on, cJSON_CreateString(new_->configs[j].id));
  free(taken);
  *npairs = k;
  return 0;
}

int np_results_compare(const struct np_results_set *base,
                       const struct np_results_set *new_,
                       const struct np_results_compare_opts *o, cJSON **out,
                       struct np_errbuf *eb) {
  const struct np_results_compare_metric *sel[NP_COMPARE_MAX_METRICS];
  size_t nsel = 0, npairs = 0, new_failed = 0;
  if (!(o->alpha > 0 && o->alpha < 1))
    return np_errbuf_set(eb, NP_EINVAL, "--alpha %g: expected 0 < alpha < 1",
                         o->alpha);
  if (!(o->threshold >= 0 && o->threshold < 1))
    return np_errbuf_set(eb, NP_EINVAL,
                         "--threshold %g: expected a percentage from 0 to "
                         "below 100",
                         o->threshold * 100);
  int rc = pick_metrics(o, sel, &nsel, eb);
  if (rc != 0)
    return rc;
  struct pair *pairs = calloc(base->nconfigs + 1, sizeof *pairs);
  struct cell *cells = calloc((base->nconfigs + 1) * nsel, sizeof *cells);
  cJSON *doc = cJSON_CreateObject(), *bj = NULL, *nj = NULL;
  rc = np_errbuf_set(eb, NP_ENOMEM, "compare: out of memory");
  if (pairs == NULL || cells == NULL || doc == NULL)
    goto cleanup_all;
  cJSON_AddStringToObject(doc, "schema", "netproof/compare/1");
  /* the gate first, so the top of compare.json says it; set at the end */
  cJSON_AddStringToObject(doc, "gate", "fail");
  cJSON *why = cJSON_AddArrayToObject(doc, "gate_reasons");
  cJSON *unsure = cJSON_AddArrayToObject(doc, "gate_inconclusive");
  if (why == NULL || unsure == NULL)
    goto cleanup_all;
  bj = set_json(base, o->base_label);
  nj = set_json(new_, o->new_label);
  if (bj == NULL || nj == NULL)
    goto cleanup_all;
  cJSON_AddItemToObject(doc, "base", bj);
  cJSON_AddItemToObject(doc, "new", nj);
  cJSON *diff = cJSON_AddArrayToObject(doc, "differences");
  if (diff != NULL)
    differences(diff, bj, nj);
  cJSON_AddItemToObject(doc, "options", options_json(o, sel, nsel));
  cJSON_AddItemToObject(doc, "method", method_json());
  if (match(base, new_, o, pairs, &npairs, &new_failed, doc) != 0)
    goto cleanup_all;
  cJSON *cfgs = cJSON_AddArrayToObject(doc, "configurations");
  for (size_t i = 0; cfgs && i < npairs; i++) {
    cJSON *c = cJSON_CreateObject(), *ms;
    char seed[17];
    uint64_t s = np_results_seed_of(pairs[i].b->id);
    np_results_seed_hex(s, seed);
    if (c == NULL || !cJSON_AddItemToArray(cfgs, c))
      goto cleanup_all;
    cJSON_AddStringToObject(c, "id", pairs[i].b->id);
    cJSON_AddStringToObject(c, "new_id", pairs[i].n->id);
    cJSON_AddStringToObject(c, "seed", seed);
    if ((ms = cJSON_AddObjectToObject(c, "metrics")) == NULL)
      goto cleanup_all;
    for (size_t k = 0; k < nsel; k++) {
      cJSON *m = metric_json(&pairs[i], sel[k], s, &cells[k * npairs + i]);
      if (m == NULL || !cJSON_AddItemToObject(ms, sel[k]->name, m))
        goto cleanup_all;
    }
  }
  cJSON *tot = cJSON_AddObjectToObject(doc, "totals");
  double regressions = 0, inconclusive = 0;
  char line[320];
  cJSON_AddNumberToObject(tot, "compared", (double)npairs);
  for (size_t k = 0; tot && k < nsel; k++) {
    double counts[4] = {0, 0, 0, 0};
    struct floor_sum fs;
    if (verdicts(&cells[k * npairs], npairs, sel[k], o, counts, &fs) != 0)
      goto cleanup_all;
    cJSON *t = cJSON_AddObjectToObject(tot, sel[k]->name);
    cJSON_AddNumberToObject(t, sel[k]->better, counts[0]);
    cJSON_AddNumberToObject(t, sel[k]->worse, counts[1]);
    cJSON_AddNumberToObject(t, NO_CHANGE, counts[2]);
    cJSON_AddNumberToObject(t, INCONCLUSIVE, counts[3]);
    regressions += counts[1];
    inconclusive += counts[3];
    if (fs.count > 0) {
      floor_line(sel[k], &fs, o->alpha, line, sizeof line);
      cJSON_AddItemToArray(unsure, cJSON_CreateString(line));
    }
  }
  cJSON_AddNumberToObject(tot, "regressions", regressions);
  cJSON_AddNumberToObject(tot, INCONCLUSIVE, inconclusive);
  cJSON_AddNumberToObject(tot, "failed_in_new", (double)new_failed);
  /* the gate fails on a regression, and on anything that keeps a
   * regression from being seen: a configuration whose runs fail in NEW
   * only, one of BASE missing from NEW, nothing compared at all; else it
   * is inconclusive when a compared configuration could not have shown a
   * regression at these run counts (gate_inconclusive says which) */
  int nmiss = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc,
                                                                  "only_in_base"));
  if (regressions > 0) {
    snprintf(line, sizeof line, "%.0f regression%s beyond the noise threshold",
             regressions, regressions == 1 ? "" : "s");
    cJSON_AddItemToArray(why, cJSON_CreateString(line));
  }
  if (new_failed > 0) {
    snprintf(line, sizeof line, "%zu configuration%s passed in base and "
             "failed in new", new_failed, new_failed == 1 ? "" : "s");
    cJSON_AddItemToArray(why, cJSON_CreateString(line));
  }
  if (nmiss > 0) {
    snprintf(line, sizeof line, "%d configuration%s of base missing from new",
             nmiss, nmiss == 1 ? "" : "s");
    cJSON_AddItemToArray(why, cJSON_CreateString(line));
  }
  if (npairs == 0)
    cJSON_AddItemToArray(why, cJSON_CreateString("no configuration compared"));
  const char *gate = cJSON_GetArraySize(why) > 0 ? "fail"
                     : inconclusive > 0         ? INCONCLUSIVE
                                                : "pass";
  cJSON *g = cJSON_CreateString(gate);
  if (g == NULL || !cJSON_ReplaceItemInObjectCaseSensitive(doc, "gate", g))
    goto cleanup_all;
  *out = doc;
  doc = NULL;
  rc = 0;
cleanup_all:
  cJSON_Delete(doc);
  free(pairs);
  free(cells);
  return rc;
}
