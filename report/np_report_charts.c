/*
 * np_report_charts.c - which charts a result set gets, and their data.
 *
 * A chart spec names the dimension along the x axis (categories), the one
 * that makes the bars of a group (series) and the metric.  Configurations
 * that agree on every other dimension form one chart, so the same code
 * gives "throughput by IO model and backend, one chart per payload and
 * client count" and "throughput by payload and window, one chart per IO
 * model".  A run condition that varies inside the set (address, timing,
 * buffers: np_report__cond_varying) joins the category as a second line.
 * A spec yields no chart for a group with a single bar.
 *
 * Every bar carries its marks: excluded (a failed repetition; the failed
 * checks go into the caption), missing (an incomplete set), unstable
 * (summary.json), and bars of one run get no error bars.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_report_chartb.h"
#include "np_report_fmt.h"
#include "np_report_int.h"

struct chart_spec {
  const char *section;      /* "io", "grid", "limits"                      */
  const char *name;         /* file name stem                              */
  const char *title;        /* chart title                                 */
  const char *ylabel;       /* y axis label with unit                      */
  enum np_results_dim cat;  /* x axis categories                           */
  enum np_results_dim ser;  /* bars within a category                      */
  enum np_results_metric m; /* value                                       */
  int passed_only;          /* failed configurations get no bar            */
  int log_y;                /* logarithmic axis                            */
  int needs_nonzero;        /* skip the chart when every value is zero     */
  int headline;             /* also drawn for a plan's headline            */
};

static const struct chart_spec specs[] = {
    {"io", "io-throughput", "UDP round trips/s by IO model and backend",
     "round trips / s", NP_D_MODEL, NP_D_BACKEND, NP_M_RPS, 1, 0, 0, 1},
    {"io", "io-p99", "UDP p99 round-trip time by IO model and backend",
     "p99 RTT / \xce\xbcs", NP_D_MODEL, NP_D_BACKEND, NP_M_P99, 1, 0, 0, 1},
    {"io", "io-cpu", "Process CPU by IO model and backend",
     "process CPU / % (one core = 100)", NP_D_MODEL, NP_D_BACKEND, NP_M_CPU,
     1, 0, 0, 0},
    {"grid", "grid-throughput", "UDP round trips/s by payload and window",
     "round trips / s", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_RPS, 1, 0, 0, 0},
    {"grid", "grid-p99", "UDP p99 round-trip time by payload and window",
     "p99 RTT / \xce\xbcs", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_P99, 1, 0, 0, 0},
    {"limits", "limits-lost", "Lost echoes by payload and window",
     "lost echoes per run (log)", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_LOST, 0,
     1, 1, 0},
};

static const char *const dim_slug[NP_D_COUNT_] = {"p", "c", "w", "m", "b",
                                                  "r"};
static const char *const dim_name[NP_D_COUNT_] = {
    "payload (B)", "clients", "window", "IO model", "backend",
    "server receive buffer (B)"};

/* a and b agree on dimension d: numbers compared as numbers (payload,
 * clients, window, server buffer), names as names. */
static int dim_eq(const struct np_results_config *a,
                  const struct np_results_config *b, enum np_results_dim d) {
  if (d == NP_D_MODEL || d == NP_D_BACKEND)
    return strcmp(a->dim[d], b->dim[d]) == 0;
  double x = a->dimv[d], y = b->dimv[d];
  return x == y || (isnan(x) && isnan(y));
}

static int dims_differ(const struct np_results_set *s, enum np_results_dim d) {
  for (size_t i = 1; i < s->nconfigs; i++)
    if (!dim_eq(&s->configs[i], &s->configs[0], d))
      return 1;
  return 0;
}

/* Same group: equal on every dimension except the spec's two. */
static int same_group(const struct chart_spec *sp,
                      const struct np_results_config *a,
                      const struct np_results_config *b) {
  for (int d = 0; d < NP_D_COUNT_; d++)
    if (d != (int)sp->cat && d != (int)sp->ser &&
        !dim_eq(a, b, (enum np_results_dim)d))
      return 0;
  return 1;
}

/* Display text of a dimension value in a category or legend. */
static void dim_text(char *buf, size_t len, enum np_results_dim d,
                     const struct np_results_config *c) {
  char num[48];
  switch (d) {
  case NP_D_PAYLOAD:
    np_fmt_num(num, sizeof num, c->dimv[d], 0);
    snprintf(buf, len, "%s B", num);
    break;
  case NP_D_WINDOW:
    snprintf(buf, len, "window %s", c->dim[d]);
    break;
  case NP_D_CLIENTS:
    snprintf(buf, len, "%s %s", c->dim[d],
             c->dimv[d] == 1 ? "client" : "clients");
    break;
  case NP_D_SRVBUF:
    np_fmt_bytes(buf, len, c->dimv[d]);
    break;
  default:
    snprintf(buf, len, "%s", c->dim[d]);
  }
}

/* Conditions of the group (every dimension but the spec's two). */
static void group_subtitle(char *buf, size_t len, const struct chart_spec *sp,
                           const struct np_results_config *c,
                           const struct np_results_set *s, const char *set,
                           const char *machine) {
  size_t k = 0;
  buf[0] = '\0';
  for (int d = 0; d < NP_D_COUNT_; d++) {
    if (d == (int)sp->cat || d == (int)sp->ser ||
        (d == NP_D_SRVBUF && !dims_differ(s, d)))
      continue;
    char t[128], x[64];
    dim_text(x, sizeof x, (enum np_results_dim)d, c);
    static const char *const prefix[NP_D_COUNT_] = {
        "payload ", "", "", "IO model ", "backend ", "server rcvbuf "};
    snprintf(t, sizeof t, "%s%s", prefix[d], x);
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s",
                          k ? ", " : "", t);
  }
  unsigned vary = np_report__cond_varying(s);
  const cJSON *cfg = np_json_pointer(c->runs[0].doc, "/config");
  if (!(vary & (1u << NP_C_SECONDS)))
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%g s measured",
                          k ? ", " : "",
                          np_json_get_number(cfg, "seconds", NAN));
  if (!(vary & (1u << NP_C_ADDRESS)))
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s",
                          k ? ", " : "",
                          np_json_get_string(cfg, "address", "-"));
  snprintf(buf + k, k < len ? len - k : 0, "%sset %s, machine %s",
           k ? ", " : "", set, machine);
}

static void group_slug(char *buf, size_t len, const struct chart_spec *sp,
                       const struct np_results_config *c,
                       const struct np_results_set *s) {
  size_t k = (size_t)snprintf(buf, len, "%s", sp->name);
  for (int d = 0; d < NP_D_COUNT_; d++) {
    if (d == (int)sp->cat || d == (int)sp->ser ||
        (d == NP_D_SRVBUF && !dims_differ(s, d)))
      continue;
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "-%s%s",
                          dim_slug[d], c->dim[d]);
  }
  for (char *p = buf; *p; p++)
    if (*p == '/')
      *p = '_';
}

/* Render one chart for the group of configs g[0..ng) and record it. */
static int emit_chart(struct np_report_ctx *ctx, const struct np_results_set *s,
                      const struct chart_spec *sp,
                      const struct np_results_config **g, size_t ng,
                      const char *stem_pre) {
  struct np_report_cbar *b = calloc(ng, sizeof *b);
  char (*catk)[200] = calloc(ng, sizeof *catk), (*catx)[64] = calloc(ng, 64),
       (*serx)[64] = calloc(ng, 64), (*note)[128] = calloc(ng, 128);
  int rc = 0;
  if (b == NULL || catk == NULL || catx == NULL || serx == NULL ||
      note == NULL) {
    rc = NP_ENOMEM;
    goto free_all;
  }
  unsigned vary = np_report__cond_varying(s);
  int use_ci = np_report__ci_bars(ctx, s);
  for (size_t i = 0; i < ng; i++) {
    struct np_report_cbar *r = &b[i];
    dim_text(catx[i], 64, sp->cat, g[i]);
    dim_text(serx[i], 64, sp->ser, g[i]);
    np_report__cond_text(note[i], 128, vary, g[i]);
    snprintf(catk[i], 200, "%s|%s", catx[i], note[i]);
    *r = (struct np_report_cbar){.key = catk[i],
                                 .label = catx[i],
                                 .note = note[i],
                                 .jcat = catx[i],
                                 .series = serx[i],
                                 .rank = -1,
                                 .cfg = g[i],
                                 .med = NAN,
                                 .mn = NAN,
                                 .mx = NAN,
                                 .clo = NAN,
                                 .chi = NAN};
    if (np_report__short(ctx, s, g[i])) {
      r->mark = NP_CHART_MISSING;
      continue;
    }
    if (sp->passed_only && g[i]->npassed < g[i]->nruns) {
      r->mark = NP_CHART_EXCLUDED;
      continue;
    }
    r->n = np_results_stat(g[i], sp->m, sp->passed_only, &r->med, &r->mn,
                           &r->mx);
    if (r->n == 0)
      continue;
    if (use_ci && np_results_stat_ci(g[i], sp->m, sp->passed_only, &r->clo,
                                     &r->chi) != 0)
      r->clo = r->chi = NAN; /* fewer than 5 runs: none */
    if (sp->passed_only && np_report__target_missed(s, g[i]->id))
      r->mark |= NP_CHART_MISSED;
    /* unstable is about round trips/s of passed runs; a loss chart of
     * failed runs does not carry it */
    if (sp->passed_only && np_report__unstable(s, g[i]->id))
      r->mark |= NP_CHART_UNSTABLE;
  }
  const cJSON *m0 =
      cJSON_GetObjectItemCaseSensitive(g[0]->runs[0].doc, "machine");
  const char *machine = np_json_get_string(m0, "hostname", "unknown");
  char subtitle[512], slug[256], stem[300];
  group_subtitle(subtitle, sizeof subtitle, sp, g[0], s,
                 np_report__info(ctx, s)->name, machine);
  group_slug(slug, sizeof slug, sp, g[0], s);
  snprintf(stem, sizeof stem, "%s%s", stem_pre ? stem_pre : "", slug);
  struct np_report_cchart ch = {.title = sp->title,
                                .subtitle = subtitle,
                                .xlabel = dim_name[sp->cat],
                                .ylabel = sp->ylabel,
                                .stem = stem,
                                .unit = "run",
                                .log_y = sp->log_y,
                                .unstable_note = 1,
                                .needs_nonzero = sp->needs_nonzero,
                                .json = NP_CJ_CAPTION | NP_CJ_NOTE |
                                        NP_CJ_MARKS | NP_CJ_MISSED};
  rc = np_report_chartb_emit(ctx, s, &ch, b, ng);
free_all:
  free(b);
  free(catk);
  free(catx);
  free(serx);
  free(note);
  return rc;
}

int np_report__charts_of(struct np_report_ctx *ctx,
                         const struct np_results_set *s, const char *section,
                         const struct np_results_config *const *sel, size_t n,
                         const char *stem_pre) {
  int rc = 0;
  const struct np_results_config **v = np_report_sorted_configs(s);
  const struct np_results_config **g = malloc((s->nconfigs + 1) * sizeof *g);
  char *used = calloc(s->nconfigs + 1, 1);
  if (v == NULL || g == NULL || used == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  /* a selection keeps the sorted order: drop what it does not hold */
  size_t nv = 0;
  for (size_t i = 0; i < s->nconfigs; i++) {
    int keep = sel == NULL;
    for (size_t j = 0; sel && j < n && !keep; j++)
      keep = sel[j] == v[i];
    if (keep)
      v[nv++] = v[i];
  }
  for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
    const struct chart_spec *sp = &specs[k];
    if (strcmp(sp->section, section) != 0 || (sel && !sp->headline))
      continue;
    memset(used, 0, s->nconfigs);
    for (size_t i = 0; i < nv && rc == 0; i++) {
      if (used[i])
        continue;
      size_t ng = 0;
      int varies = 0;
      for (size_t j = i; j < nv; j++) {
        if (used[j] || !same_group(sp, v[i], v[j]))
          continue;
        used[j] = 1;
        g[ng++] = v[j];
        varies |= !dim_eq(v[j], v[i], sp->cat) || !dim_eq(v[j], v[i], sp->ser);
      }
      /* A useful chart compares: some category or series must differ, and
       * the "io" charts need more than one IO model or backend. */
      if (varies && ng <= 64)
        rc = emit_chart(ctx, s, sp, g, ng, stem_pre);
    }
  }
done:
  free(v);
  free(g);
  free(used);
  return rc;
}

int np_report__charts(struct np_report_ctx *ctx, const struct np_results_set *s,
                      const char *section) {
  return np_report__charts_of(ctx, s, section, NULL, 0, NULL);
}
