/*
 * np_report_charts.c - which charts a result set gets, and their data.
 *
 * A chart spec names the dimension along the x axis (categories), the one
 * that makes the bars of a group (series) and the metric.  Configurations
 * that agree on every other dimension form one chart, so the same code
 * gives "throughput by IO model and backend, one chart per payload and
 * client count" and "throughput by payload and window, one chart per IO
 * model".  A run condition that varies inside the set (address, timing,
 * buffers: np_report_cond_varying) joins the category as a second line.
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
  unsigned vary = np_report_cond_varying(s);
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

/* Per-bar values and marks of one chart (series-major, ns x nc). */
struct bars {
  double *mid, *lo, *hi;  /* median, min, max                     */
  double *clo, *chi;      /* its 95 % interval (--error-bars ci95) */
  unsigned char *mark;
  size_t *n;              /* values behind each bar                  */
  const struct np_results_config **cfg; /* the configuration of a bar */
};

static int bars_alloc(struct bars *b, size_t cells) {
  b->mid = malloc(cells * sizeof *b->mid);
  b->lo = malloc(cells * sizeof *b->lo);
  b->hi = malloc(cells * sizeof *b->hi);
  b->clo = malloc(cells * sizeof *b->clo);
  b->chi = malloc(cells * sizeof *b->chi);
  b->mark = calloc(cells, 1);
  b->n = calloc(cells, sizeof *b->n);
  b->cfg = calloc(cells, sizeof *b->cfg);
  if (!b->mid || !b->lo || !b->hi || !b->clo || !b->chi || !b->mark ||
      !b->n || !b->cfg)
    return NP_ENOMEM;
  for (size_t i = 0; i < cells; i++)
    b->mid[i] = b->lo[i] = b->hi[i] = b->clo[i] = b->chi[i] = NAN;
  return 0;
}

static void bars_free(struct bars *b) {
  free(b->mid);
  free(b->lo);
  free(b->hi);
  free(b->clo);
  free(b->chi);
  free(b->mark);
  free(b->n);
  free(b->cfg);
}

/* Render one chart for the group of configs g[0..ng) and record it. */
static int emit_chart(struct np_report_ctx *ctx, const struct np_results_set *s,
                      const struct chart_spec *sp,
                      const struct np_results_config **g, size_t ng,
                      const char *stem_pre) {
  int rc = 0;
  const char **cats = calloc(ng, sizeof *cats), **sers = calloc(ng, sizeof *sers);
  const char **notes = calloc(ng, sizeof *notes);
  char (*catk)[200] = calloc(ng, sizeof *catk), (*catx)[64] = calloc(ng, 64),
       (*serx)[64] = calloc(ng, 64), (*note)[128] = calloc(ng, 128);
  size_t *ci = calloc(ng, sizeof *ci), *si = calloc(ng, sizeof *si);
  struct np_chart_series *series = calloc(ng, sizeof *series);
  struct bars b = {0};
  char *svg = NULL;
  if (!cats || !sers || !notes || !catk || !catx || !serx || !note || !ci ||
      !si || !series || bars_alloc(&b, ng * ng) != 0) {
    rc = NP_ENOMEM;
    goto free_all;
  }
  unsigned vary = np_report_cond_varying(s);
  int use_ci = np_report_ci_bars(ctx, s);
  size_t nc = 0, ns = 0, nmin = 0, nmax = 0;
  int nonzero = 0, any_note = 0;
  char reasons[256] = "";
  const char **keys = sers; /* category keys first, then series names */
  for (size_t i = 0; i < ng; i++) {
    dim_text(catx[i], 64, sp->cat, g[i]);
    dim_text(serx[i], 64, sp->ser, g[i]);
    np_report_cond_text(note[i], 128, vary, g[i]);
    snprintf(catk[i], 200, "%s|%s", catx[i], note[i]);
    size_t before = nc;
    ci[i] = intern(keys, &nc, catk[i]);
    if (nc > before) {
      cats[ci[i]] = catx[i];
      notes[ci[i]] = note[i];
      any_note |= note[i][0] != '\0';
    }
  }
  memset(keys, 0, ng * sizeof *keys);
  for (size_t i = 0; i < ng; i++)
    si[i] = intern(sers, &ns, serx[i]);
  for (size_t i = 0; i < ng; i++) {
    size_t cell = si[i] * ng + ci[i];
    b.cfg[cell] = g[i];
    if (np_report_short(ctx, s, g[i])) {
      b.mark[cell] = NP_CHART_MISSING;
      continue;
    }
    if (sp->passed_only && g[i]->npassed < g[i]->nruns) {
      b.mark[cell] = NP_CHART_EXCLUDED;
      char r[160];
      np_report_fail_reason(g[i], r, sizeof r);
      if (r[0] && strstr(reasons, r) == NULL &&
          strlen(reasons) + strlen(r) + 3 < sizeof reasons)
        snprintf(reasons + strlen(reasons), sizeof reasons - strlen(reasons),
                 "%s%s", reasons[0] ? "; " : "", r);
      continue;
    }
    double med, mn, mx;
    size_t n = np_results_stat(g[i], sp->m, sp->passed_only, &med, &mn, &mx);
    if (n == 0)
      continue;
    nmin = nmin == 0 || n < nmin ? n : nmin;
    nmax = n > nmax ? n : nmax;
    nonzero |= med > 0 || mx > 0;
    b.mid[cell] = med;
    b.lo[cell] = n > 1 ? mn : NAN;
    b.hi[cell] = n > 1 ? mx : NAN;
    b.n[cell] = n;
    if (use_ci && np_results_stat_ci(g[i], sp->m, sp->passed_only,
                                     &b.clo[cell], &b.chi[cell]) != 0)
      b.clo[cell] = b.chi[cell] = NAN; /* fewer than 5 runs: none */
    if (sp->passed_only && np_report_target_missed(s, g[i]->id))
      b.mark[cell] |= NP_CHART_MISSED;
    /* unstable is about round trips/s of passed runs; a loss chart of
     * failed runs does not carry it */
    if (sp->passed_only && np_report_unstable(s, g[i]->id))
      b.mark[cell] |= NP_CHART_UNSTABLE;
  }
  if (sp->needs_nonzero && !nonzero)
    goto free_all;
  /* values are indexed [series][category] with stride ng */
  for (size_t k = 0; k < ns; k++)
    series[k] = (struct np_chart_series){
        .name = sers[k], .mid = &b.mid[k * ng],
        .lo = use_ci ? &b.clo[k * ng] : &b.lo[k * ng],
        .hi = use_ci ? &b.chi[k * ng] : &b.hi[k * ng], .marks = &b.mark[k * ng],
        .style = np_report_style(ctx, sers[k])};
  const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(g[0]->runs[0].doc,
                                                     "machine");
  const char *machine = np_json_get_string(m0, "hostname", "unknown");
  const struct np_report_setinfo *in = np_report_info(ctx, s);
  char subtitle[512], slug[256], stem[300], caption[200], excl[400],
      unst[200], nb[4][200];
  const char *nv[5];
  group_subtitle(subtitle, sizeof subtitle, sp, g[0], s, in->name, machine);
  group_slug(slug, sizeof slug, sp, g[0], s);
  snprintf(stem, sizeof stem, "%s%s", stem_pre ? stem_pre : "", slug);
  if (use_ci)
    np_chart_ci_caption(caption, sizeof caption, nmin, nmax, "run", 0);
  else
    np_chart_runs_caption(caption, sizeof caption, nmin, nmax, "run", 0);
  snprintf(excl, sizeof excl,
           "excluded: a repetition failed (%s); its records are kept, it is "
           "not ranked",
           reasons[0] ? reasons : "see the table");
  snprintf(unst, sizeof unst,
           "\xe2\x80\xa0 dashed outline: unstable, round trips/s spread over "
           "%.0f %% across runs",
           np_report_spread_limit(s));
  struct np_chart ch = {
      .title = sp->title, .subtitle = subtitle, .xlabel = dim_name[sp->cat],
      .ylabel = sp->ylabel, .caption = caption, .unstable_note = unst,
      .excluded_note = excl,
      .notes_extra = np_report_chart_notes(s, nb, nv, 5),
      .stamp = np_report_stamp(ctx, s), .log_y = sp->log_y, .ncat = nc,
      .categories = cats, .notes = any_note ? notes : NULL, .nseries = ns,
      .series = series};
  size_t len = 0;
  char alt[800];
  snprintf(alt, sizeof alt, "%s: %s", sp->title, subtitle);
  cJSON *jc = NULL;
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  if (rc == 0)
    rc = np_report_add_chart(ctx, stem, svg, len, alt, &jc);
  if (rc != 0)
    goto free_all;
  cJSON_AddStringToObject(jc, "set", in->name);
  cJSON_AddStringToObject(jc, "title", sp->title);
  cJSON_AddStringToObject(jc, "subtitle", subtitle);
  cJSON_AddStringToObject(jc, "y_label", sp->ylabel);
  cJSON_AddBoolToObject(jc, "log_y", sp->log_y);
  cJSON_AddStringToObject(jc, "caption", caption);
  if (use_ci)
    cJSON_AddStringToObject(jc, "error_bars", "ci95");
  cJSON *jser = cJSON_AddArrayToObject(jc, "series");
  for (size_t i = 0; i < ng; i++) {
    size_t cell = si[i] * ng + ci[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "series", serx[i]);
    cJSON_AddStringToObject(o, "category", catx[i]);
    if (note[i][0])
      cJSON_AddStringToObject(o, "note", note[i]);
    cJSON_AddStringToObject(o, "config", g[i]->id);
    cJSON_AddBoolToObject(o, "excluded", (b.mark[cell] & NP_CHART_EXCLUDED) != 0);
    cJSON_AddBoolToObject(o, "missing", (b.mark[cell] & NP_CHART_MISSING) != 0);
    cJSON_AddBoolToObject(o, "unstable", (b.mark[cell] & NP_CHART_UNSTABLE) != 0);
    if (b.mark[cell] & NP_CHART_MISSED)
      cJSON_AddBoolToObject(o, "target_missed", 1);
    np_json_add_number(o, "median", b.mid[cell]);
    np_json_add_number(o, "min", b.n[cell] > 1 ? b.lo[cell] : b.mid[cell]);
    np_json_add_number(o, "max", b.n[cell] > 1 ? b.hi[cell] : b.mid[cell]);
    if (use_ci && isfinite(b.clo[cell])) {
      cJSON *iv = cJSON_AddObjectToObject(o, "ci95");
      np_json_add_number(iv, "lo", b.clo[cell]);
      np_json_add_number(iv, "hi", b.chi[cell]);
    } else if (use_ci) {
      cJSON_AddNullToObject(o, "ci95");
    }
    cJSON_AddItemToObject(o, "runs", np_report_run_ids(g[i], 0));
    cJSON_AddItemToArray(jser, o);
  }
free_all:
  free(svg);
  free(cats);
  free(sers);
  free(notes);
  free(catk);
  free(catx);
  free(serx);
  free(note);
  free(ci);
  free(si);
  free(series);
  bars_free(&b);
  return rc;
}

int np_report_charts_of(struct np_report_ctx *ctx,
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
      const char *c0 = v[i]->dim[sp->cat], *s0 = v[i]->dim[sp->ser];
      int varies = 0;
      for (size_t j = i; j < nv; j++) {
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
        rc = emit_chart(ctx, s, sp, g, ng, stem_pre);
    }
  }
done:
  free(v);
  free(g);
  free(used);
  return rc;
}

int np_report_charts(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const char *section) {
  return np_report_charts_of(ctx, s, section, NULL, 0, NULL);
}
