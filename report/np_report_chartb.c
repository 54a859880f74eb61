/*
 * np_report_chartb.c - the one bar-chart builder (see np_report_chartb.h).
 *
 * Bars become cells of a series x category grid (series-major, stride
 * NP_REPORT_CB_MAX_CAT).  A bar without a value (excluded, missing) sets
 * its cell's mark; a bar with one sets the cell's median, min/max (or the
 * 95 % interval with --error-bars ci95) and adds its marks.  report.json
 * gets one entry per bar with its cell's values, min = max = median for a
 * bar of one value.
 */
#include "np_report_chartb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_results_stats.h"

#define CB_MAX NP_REPORT_CB_MAX_CAT
#define CB_SERIES 8 /* np_chart's limit */

/* The grid of one chart. */
struct cb_grid {
  const char *cat[CB_MAX], *note[CB_MAX]; /* category labels, notes   */
  const char *key[CB_MAX];                /* category keys             */
  const char *ser[CB_MAX];                /* series legend texts       */
  int rank[CB_MAX];                       /* series rank (-1 none)     */
  size_t nc, ns;
  int *ci, *si;             /* per bar: its category, series (-1 dropped) */
  double mid[CB_SERIES * CB_MAX], lo[CB_SERIES * CB_MAX],
      hi[CB_SERIES * CB_MAX];             /* drawn: median, error bar   */
  double mn[CB_SERIES * CB_MAX], mx[CB_SERIES * CB_MAX]; /* report.json */
  double clo[CB_SERIES * CB_MAX], chi[CB_SERIES * CB_MAX];
  size_t n[CB_SERIES * CB_MAX];
  unsigned char mark[CB_SERIES * CB_MAX];
};

/* Index of text in list (adding it); -1 when the list is full. */
static int cb_slot(const char **list, size_t *n, const char *text) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(list[i], text) == 0)
      return (int)i;
  if (*n >= CB_MAX)
    return -1;
  list[*n] = text;
  return (int)(*n)++;
}

/* Categories and series of the bars; series reordered by rank when the
 * bars give one (a stable order: equal ranks keep first appearance). */
static void cb_layout(struct cb_grid *g, const struct np_report_cbar *b,
                      size_t nb) {
  for (size_t i = 0; i < nb; i++) {
    size_t before = g->nc;
    g->ci[i] = cb_slot(g->key, &g->nc, b[i].key);
    if (g->nc > before) {
      g->cat[g->ci[i]] = b[i].label;
      g->note[g->ci[i]] = b[i].note;
    }
    before = g->ns;
    g->si[i] = cb_slot(g->ser, &g->ns, b[i].series);
    if (g->ns > before)
      g->rank[g->si[i]] = b[i].rank;
  }
  int perm[CB_MAX], where[CB_MAX];
  for (size_t i = 0; i < g->ns; i++)
    perm[i] = (int)i;
  for (size_t i = 1; i < g->ns; i++) /* insertion sort: stable */
    for (size_t j = i; j > 0 && g->rank[perm[j - 1]] > g->rank[perm[j]]; j--) {
      int t = perm[j];
      perm[j] = perm[j - 1];
      perm[j - 1] = t;
    }
  const char *ser[CB_MAX];
  for (size_t i = 0; i < g->ns; i++) {
    where[perm[i]] = (int)i;
    ser[i] = g->ser[perm[i]];
  }
  memcpy(g->ser, ser, g->ns * sizeof *ser);
  for (size_t i = 0; i < nb; i++)
    if (g->si[i] >= 0)
      g->si[i] = where[g->si[i]];
}

/* Cell of bar i, or -1 when it was dropped (full grid). */
static long cb_cell(const struct cb_grid *g, size_t i) {
  if (g->ci[i] < 0 || g->si[i] < 0 || g->si[i] >= CB_SERIES)
    return -1;
  return (long)g->si[i] * CB_MAX + g->ci[i];
}

/* Values and marks of the cells; the run counts, the exclusion reasons
 * and whether any value is above zero. */
static void cb_fill(struct cb_grid *g, const struct np_report_cbar *b,
                    size_t nb, int use_ci, size_t *nmin, size_t *nmax,
                    char *reasons, size_t rlen, int *nonzero) {
  for (size_t i = 0; i < CB_SERIES * CB_MAX; i++)
    g->mid[i] = g->lo[i] = g->hi[i] = g->mn[i] = g->mx[i] = g->clo[i] =
        g->chi[i] = NAN;
  for (size_t i = 0; i < nb; i++) {
    long cell = cb_cell(g, i);
    if (cell < 0)
      continue;
    if (b[i].mark & (NP_CHART_EXCLUDED | NP_CHART_MISSING)) {
      g->mark[cell] = b[i].mark;
      char r[160];
      if (b[i].mark & NP_CHART_EXCLUDED)
        np_report__fail_reason(b[i].cfg, r, sizeof r);
      else
        r[0] = '\0';
      if (r[0] && strstr(reasons, r) == NULL &&
          strlen(reasons) + strlen(r) + 3 < rlen)
        snprintf(reasons + strlen(reasons), rlen - strlen(reasons), "%s%s",
                 reasons[0] ? "; " : "", r);
      continue;
    }
    size_t n = b[i].n;
    *nmax = n > *nmax ? n : *nmax;
    *nmin = *nmin == 0 || (n > 0 && n < *nmin) ? n : *nmin;
    *nonzero |= n > 0 && (b[i].med > 0 || b[i].mx > 0);
    g->mid[cell] = b[i].med;
    g->mn[cell] = n > 1 ? b[i].mn : NAN;
    g->mx[cell] = n > 1 ? b[i].mx : NAN;
    g->clo[cell] = use_ci ? b[i].clo : NAN;
    g->chi[cell] = use_ci ? b[i].chi : NAN;
    g->lo[cell] = use_ci ? g->clo[cell] : g->mn[cell];
    g->hi[cell] = use_ci ? g->chi[cell] : g->mx[cell];
    g->n[cell] = n;
    g->mark[cell] |= b[i].mark;
  }
}

/* report.json: the chart's members and one entry per bar. */
static void cb_json(cJSON *jc, const struct np_report_cchart *ch,
                    const struct cb_grid *g, const struct np_report_cbar *b,
                    size_t nb, const char *set, const char *caption,
                    int use_ci) {
  cJSON_AddStringToObject(jc, "set", set);
  cJSON_AddStringToObject(jc, "title", ch->title);
  cJSON_AddStringToObject(jc, "subtitle", ch->subtitle);
  cJSON_AddStringToObject(jc, "y_label", ch->ylabel);
  cJSON_AddBoolToObject(jc, "log_y", ch->log_y);
  if (ch->json & NP_CJ_CAPTION)
    cJSON_AddStringToObject(jc, "caption", caption);
  if (ch->metric != NULL)
    cJSON_AddStringToObject(jc, "metric", ch->metric);
  if (use_ci)
    cJSON_AddStringToObject(jc, "error_bars", "ci95");
  cJSON *js = cJSON_AddArrayToObject(jc, "series");
  for (size_t i = 0; i < nb && js != NULL; i++) {
    long cell = cb_cell(g, i);
    if (cell < 0)
      continue;
    unsigned char mk = g->mark[cell];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "series",
                            b[i].jseries ? b[i].jseries : b[i].series);
    cJSON_AddStringToObject(o, "category", b[i].jcat);
    if ((ch->json & NP_CJ_NOTE) && b[i].note[0])
      cJSON_AddStringToObject(o, "note", b[i].note);
    cJSON_AddStringToObject(o, "config", b[i].cfg->id);
    cJSON_AddBoolToObject(o, "excluded", (mk & NP_CHART_EXCLUDED) != 0);
    if (ch->json & NP_CJ_MARKS) {
      cJSON_AddBoolToObject(o, "missing", (mk & NP_CHART_MISSING) != 0);
      cJSON_AddBoolToObject(o, "unstable", (mk & NP_CHART_UNSTABLE) != 0);
    }
    if ((ch->json & NP_CJ_MISSED) && (mk & NP_CHART_MISSED))
      cJSON_AddBoolToObject(o, "target_missed", 1);
    int one = g->n[cell] <= 1;
    np_json_add_number(o, "median", g->mid[cell]);
    np_json_add_number(o, "min", one ? g->mid[cell] : g->mn[cell]);
    np_json_add_number(o, "max", one ? g->mid[cell] : g->mx[cell]);
    if (use_ci && isfinite(g->clo[cell])) {
      cJSON *iv = cJSON_AddObjectToObject(o, "ci95");
      np_json_add_number(iv, "lo", g->clo[cell]);
      np_json_add_number(iv, "hi", g->chi[cell]);
    } else if (use_ci) {
      cJSON_AddNullToObject(o, "ci95");
    }
    cJSON_AddItemToObject(o, "runs", np_report_run_ids(b[i].cfg, 0));
    cJSON_AddItemToArray(js, o);
  }
}

int np_report_chartb_emit(struct np_report_ctx *ctx,
                          const struct np_results_set *s,
                          const struct np_report_cchart *ch,
                          const struct np_report_cbar *b, size_t nb) {
  struct cb_grid *g = calloc(1, sizeof *g);
  int *idx = calloc(2 * nb + 2, sizeof *idx);
  char *svg = NULL;
  int rc = 0;
  if (g == NULL || idx == NULL) {
    rc = NP_ENOMEM;
    goto free_grid;
  }
  g->ci = idx;
  g->si = idx + nb + 1;
  cb_layout(g, b, nb);
  int use_ci = np_report__ci_bars(ctx, s), nonzero = 0;
  size_t nmin = 0, nmax = 0;
  char reasons[256] = "";
  if (g->ns > CB_SERIES || g->nc == 0)
    goto free_grid; /* more series than a chart tells apart: tables */
  cb_fill(g, b, nb, use_ci, &nmin, &nmax, reasons, sizeof reasons, &nonzero);
  if (ch->needs_nonzero && !nonzero)
    goto free_grid;
  struct np_chart_series ser[CB_SERIES];
  for (size_t k = 0; k < g->ns; k++)
    ser[k] =
        (struct np_chart_series){.name = g->ser[k],
                                 .mid = &g->mid[k * CB_MAX],
                                 .lo = &g->lo[k * CB_MAX],
                                 .hi = &g->hi[k * CB_MAX],
                                 .marks = &g->mark[k * CB_MAX],
                                 .style = np_report__style(ctx, g->ser[k])};
  int any_note = 0;
  for (size_t i = 0; i < g->nc; i++)
    any_note |= g->note[i][0] != '\0';
  const struct np_report_setinfo *in = np_report__info(ctx, s);
  char caption[200], excl[400], unst[200], nb4[4][200], alt[800];
  const char *nvp[5];
  if (use_ci)
    np_chart_ci_caption(caption, sizeof caption, nmin, nmax, ch->unit,
                        ch->of_one_process,
                        s->nconfigs > 0 &&
                            s->configs[0].ci_method == NP_RESULTS_CI_EXACT);
  else
    np_chart_runs_caption(caption, sizeof caption, nmin, nmax, ch->unit,
                          ch->of_one_process);
  snprintf(excl, sizeof excl,
           "excluded: a repetition failed (%s); its records are kept, it is "
           "not ranked",
           reasons[0] ? reasons : "see the table");
  snprintf(unst, sizeof unst,
           "\xe2\x80\xa0 dashed outline: unstable, round trips/s spread over "
           "%.0f %% across %ss",
           np_report__spread_limit(s), ch->unit);
  struct np_chart c = {.title = ch->title,
                       .subtitle = ch->subtitle,
                       .xlabel = ch->xlabel,
                       .ylabel = ch->ylabel,
                       .caption = caption,
                       .unstable_note = ch->unstable_note ? unst : NULL,
                       .excluded_note = excl,
                       .notes_extra = np_report__chart_notes(s, nb4, nvp, 5),
                       .stamp = np_report__stamp(ctx, s),
                       .log_y = ch->log_y,
                       .ncat = g->nc,
                       .categories = g->cat,
                       .notes = any_note ? g->note : NULL,
                       .nseries = g->ns,
                       .series = ser};
  size_t len = 0;
  cJSON *jc = NULL;
  snprintf(alt, sizeof alt, "%s: %s", ch->title, ch->subtitle);
  rc = np_chart_render_svg(&c, &svg, &len, ctx->eb);
  if (rc == 0)
    rc = np_report_add_chart(ctx, ch->stem, svg, len, alt, &jc);
  if (rc == 0)
    cb_json(jc, ch, g, b, nb, in->name, caption, use_ci);
free_grid:
  free(svg);
  free(idx);
  free(g);
  return rc;
}
