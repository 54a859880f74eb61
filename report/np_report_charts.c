/*
 * np_report_charts.c - which charts a result set gets, and their data.
 *
 * A chart spec names the dimension along the x axis (categories), the one
 * that makes the bars of a group (series) and the metric.  Configurations
 * that agree on every other dimension form one chart, so the same code
 * gives "throughput by IO model and backend, one chart per payload and
 * client count" and "throughput by payload and window, one chart per IO
 * model".  A spec yields no chart for a group with a single bar.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
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
};

static const struct chart_spec specs[] = {
    {"io", "io-throughput", "UDP round trips/s by IO model and backend",
     "round trips / s", NP_D_MODEL, NP_D_BACKEND, NP_M_RPS, 1, 0, 0},
    {"io", "io-p99", "UDP p99 round-trip time by IO model and backend",
     "p99 RTT / us", NP_D_MODEL, NP_D_BACKEND, NP_M_P99, 1, 0, 0},
    {"io", "io-cpu", "Process CPU by IO model and backend",
     "process CPU / % (one core = 100)", NP_D_MODEL, NP_D_BACKEND, NP_M_CPU,
     1, 0, 0},
    {"grid", "grid-throughput", "UDP round trips/s by payload and window",
     "round trips / s", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_RPS, 1, 0, 0},
    {"grid", "grid-p99", "UDP p99 round-trip time by payload and window",
     "p99 RTT / us", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_P99, 1, 0, 0},
    {"limits", "limits-lost", "Lost echoes by payload and window",
     "lost echoes per run (log)", NP_D_PAYLOAD, NP_D_WINDOW, NP_M_LOST, 0,
     1, 1},
};

static const char *const dim_slug[NP_D_COUNT_] = {"p", "c", "w", "m", "b",
                                                  "r"};
static const char *const dim_name[NP_D_COUNT_] = {
    "payload (B)", "clients", "window", "IO model", "backend",
    "server receive buffer (B)"};

static int dims_differ(const struct np_results_set *s, enum np_results_dim d) {
  for (size_t i = 1; i < s->nconfigs; i++)
    if (strcmp(s->configs[i].dim[d], s->configs[0].dim[d]) != 0)
      return 1;
  return 0;
}

/* Same group: equal on every dimension except the spec's two. */
static int same_group(const struct chart_spec *sp,
                      const struct np_results_config *a,
                      const struct np_results_config *b) {
  for (int d = 0; d < NP_D_COUNT_; d++)
    if (d != (int)sp->cat && d != (int)sp->ser &&
        strcmp(a->dim[d], b->dim[d]) != 0)
      return 0;
  return 1;
}

/* Index of text in list (adding it when absent); list holds pointers. */
static size_t intern(const char **list, size_t *n, const char *text) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(list[i], text) == 0)
      return i;
  list[*n] = text;
  return (*n)++;
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
    snprintf(buf, len, "%s clients", c->dim[d]);
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
                           const struct np_results_set *s, const char *machine,
                           size_t runs) {
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
  snprintf(buf + k, k < len ? len - k : 0, "%smachine %s, %zu runs per bar",
           k ? ", " : "", machine, runs);
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
                      const struct np_results_config **g, size_t ng) {
  int rc = 0;
  const char **cats = calloc(ng, sizeof *cats), **sers = calloc(ng, sizeof *sers);
  char (*catx)[64] = calloc(ng, sizeof *catx), (*serx)[64] = calloc(ng, sizeof *serx);
  double *vals = calloc(ng * ng * 3, sizeof *vals);
  struct np_chart_series *series = calloc(ng, sizeof *series);
  char *svg = NULL;
  if (!cats || !sers || !catx || !serx || !vals || !series) {
    rc = NP_ENOMEM;
    goto free_all;
  }
  size_t nc = 0, ns = 0, maxruns = 0;
  int nonzero = 0;
  for (size_t i = 0; i < ng * ng * 3; i++)
    vals[i] = NAN;
  for (size_t i = 0; i < ng; i++) {
    dim_text(catx[i], 64, sp->cat, g[i]);
    dim_text(serx[i], 64, sp->ser, g[i]);
  }
  cJSON *jc = cJSON_CreateObject(), *jser = NULL;
  cJSON_AddItemToArray(ctx->jcharts, jc);
  for (size_t i = 0; i < ng; i++) {
    size_t ci = intern(cats, &nc, catx[i]), si = intern(sers, &ns, serx[i]);
    double med, mn, mx;
    size_t n = np_results_stat(g[i], sp->m, sp->passed_only, &med, &mn, &mx);
    if (sp->passed_only && g[i]->npassed < g[i]->nruns)
      n = 0; /* a failed repetition excludes the configuration */
    if (n == 0)
      continue;
    maxruns = n > maxruns ? n : maxruns;
    nonzero |= med > 0 || mx > 0;
    double *v = &vals[(si * ng + ci) * 3];
    v[0] = med, v[1] = mn, v[2] = mx;
  }
  if (sp->needs_nonzero && !nonzero) {
    cJSON_DetachItemViaPointer(ctx->jcharts, jc);
    cJSON_Delete(jc);
    goto free_all;
  }
  double *mid = calloc(ns * nc * 3, sizeof *mid);
  if (mid == NULL) {
    rc = NP_ENOMEM;
    goto free_all;
  }
  for (size_t si = 0; si < ns; si++) {
    for (size_t ci = 0; ci < nc; ci++)
      for (int k = 0; k < 3; k++)
        mid[(k * ns + si) * nc + ci] = vals[(si * ng + ci) * 3 + k];
    series[si] = (struct np_chart_series){sers[si], &mid[(0 * ns + si) * nc],
                                          &mid[(1 * ns + si) * nc],
                                          &mid[(2 * ns + si) * nc]};
  }
  const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(g[0]->runs[0].doc,
                                                     "machine");
  const char *machine = np_json_get_string(m0, "hostname", "unknown");
  char subtitle[512], slug[256], file[400];
  group_subtitle(subtitle, sizeof subtitle, sp, g[0], s, machine, maxruns);
  group_slug(slug, sizeof slug, sp, g[0], s);
  snprintf(file, sizeof file, "assets/%s%s.svg",
           ctx->asset_prefix ? ctx->asset_prefix : "", slug);
  struct np_chart ch = {
      .title = sp->title, .subtitle = subtitle, .xlabel = dim_name[sp->cat],
      .ylabel = sp->ylabel, .runs = (int)maxruns, .log_y = sp->log_y,
      .ncat = nc, .categories = cats, .nseries = ns, .series = series};
  size_t len = 0;
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  if (rc == 0)
    rc = np_ftree_add(ctx->out, file, svg, len);
  if (rc == NP_EEXIST)
    rc = 0; /* same chart from another results folder: first one wins */
  if (rc == 0) {
    fprintf(ctx->md, "![%s: %s](%s)\n\n", sp->title, subtitle, file);
    cJSON_AddStringToObject(jc, "file", file);
    cJSON_AddStringToObject(jc, "set", s->label);
    cJSON_AddStringToObject(jc, "title", sp->title);
    cJSON_AddStringToObject(jc, "subtitle", subtitle);
    cJSON_AddStringToObject(jc, "y_label", sp->ylabel);
    cJSON_AddBoolToObject(jc, "log_y", sp->log_y);
    jser = cJSON_AddArrayToObject(jc, "series");
    for (size_t i = 0; i < ng; i++) {
      double med, mn, mx;
      size_t n = np_results_stat(g[i], sp->m, sp->passed_only, &med, &mn, &mx);
      cJSON *b = cJSON_CreateObject();
      cJSON_AddStringToObject(b, "series", serx[i]);
      cJSON_AddStringToObject(b, "category", catx[i]);
      cJSON_AddStringToObject(b, "config", g[i]->id);
      int excluded = sp->passed_only && g[i]->npassed < g[i]->nruns;
      cJSON_AddBoolToObject(b, "excluded", excluded);
      np_json_add_number(b, "median", excluded || !n ? NAN : med);
      np_json_add_number(b, "min", excluded || !n ? NAN : mn);
      np_json_add_number(b, "max", excluded || !n ? NAN : mx);
      cJSON_AddItemToObject(b, "runs", np_report_run_ids(g[i], sp->passed_only));
      cJSON_AddItemToArray(jser, b);
    }
  }
  free(mid);
free_all:
  free(svg);
  free(cats);
  free(sers);
  free(catx);
  free(serx);
  free(vals);
  free(series);
  return rc;
}

int np_report_charts(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const char *section) {
  int rc = 0;
  const struct np_results_config **v = np_report_sorted_configs(s);
  const struct np_results_config **g = malloc((s->nconfigs + 1) * sizeof *g);
  char *used = calloc(s->nconfigs + 1, 1);
  if (v == NULL || g == NULL || used == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
    const struct chart_spec *sp = &specs[k];
    if (strcmp(sp->section, section) != 0)
      continue;
    memset(used, 0, s->nconfigs);
    for (size_t i = 0; i < s->nconfigs && rc == 0; i++) {
      if (used[i])
        continue;
      size_t ng = 0;
      const char *c0 = v[i]->dim[sp->cat], *s0 = v[i]->dim[sp->ser];
      int varies = 0;
      for (size_t j = i; j < s->nconfigs; j++) {
        if (used[j] || !same_group(sp, v[i], v[j]))
          continue;
        used[j] = 1;
        g[ng++] = v[j];
        varies |= strcmp(v[j]->dim[sp->cat], c0) != 0 ||
                  strcmp(v[j]->dim[sp->ser], s0) != 0;
      }
      /* A useful chart compares: some category or series must differ, and
       * the "io" charts need more than one IO model or backend. */
      if (varies && ng <= 64)
        rc = emit_chart(ctx, s, sp, g, ng);
    }
  }
done:
  free(v);
  free(g);
  free(used);
  return rc;
}
