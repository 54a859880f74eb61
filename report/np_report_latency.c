/*
 * np_report_latency.c - the views of issue 19 for a udp set, each drawn
 * only when the set's records carry what it needs:
 *   - latency under load: p50 / p99 / p99.9 (medians over passed runs,
 *     or over every run of a configuration none of whose runs passed -
 *     overload loses datagrams, and its latencies are the point of the
 *     chart - from each message's intended send time) against the
 *     offered rate of the open-loop configurations, with the closed-loop
 *     capacity (median round trips/s of the set's one closed-loop
 *     configuration) marked; one point per open-loop configuration and
 *     every run in each median, however many (nothing capped);
 *   - the percentile distribution: every passed run's histogram of a
 *     configuration merged, latency against percentile on HdrHistogram's
 *     1/(1-p) axis, out to the tail the merged count supports; a passed
 *     run whose histogram is missing, does not decode or has another
 *     layout is left out and counted in the caption;
 *   - time series (--interval): p50 / p99 per slice of each
 *     configuration's first passed run, and a trend line in the text when
 *     p99 or the resident set grows from the first third of the run to
 *     the last (p99 x 1.5, RSS + 10 % and + 1 MiB).
 * Stream sets (udp-stream) get a table of their rates, loss, jitter and
 * one-way delay (the echo table's round trips mean nothing there) and
 * the distribution of their one-way delay;
 * rudp sets only the time series (np_report_latency_series: the first
 * round's slices of each configuration's first passed run).
 */
#include "np_report_latency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart_xy.h"
#include "np_hist_codec.h"
#include "np_json.h"
#include "np_kind.h"
#include "np_report_assets.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_stats.h"

#define MAX_CFG NP_CHART_XY_MAX_SERIES
#define NPCT 12

static const double pcts[NPCT] = {0,    50,    75,     90,     95,     99,
                                  99.5, 99.9,  99.95,  99.99,  99.995, 99.999};

static const char *host_of(const struct np_results_set *s) {
  return np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, "machine"), "hostname",
      "unknown");
}

static double num(const cJSON *d, const char *ptr) {
  const cJSON *v = np_json_pointer(d, ptr);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Median of ptr over c's passed runs (every run when none passed: an
 * overloaded configuration's latencies are still measured) into *out,
 * NAN when none has it; every run counts, however many.  0 or
 * NP_ENOMEM. */
/* Median over the runs that count (passed, or all when none passed) of
 * the number at ptr, divided by the one at den when den is not NULL. */
static int median_ratio(const struct np_results_config *c, const char *ptr,
                        const char *den, double *out) {
  double *v = calloc(c->nruns ? c->nruns : 1, sizeof *v), m = NAN;
  size_t n = 0;
  if (v == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < c->nruns; i++) {
    double x = num(c->runs[i].doc, ptr);
    if (den != NULL)
      x /= num(c->runs[i].doc, den);
    if ((c->runs[i].passed || c->npassed == 0) && isfinite(x))
      v[n++] = x;
  }
  if (n == 0 || np_stats_median(v, n, &m) != 0)
    m = NAN;
  free(v);
  *out = m;
  return 0;
}

static int median_of(const struct np_results_config *c, const char *ptr,
                     double *out) {
  return median_ratio(c, ptr, NULL, out);
}

void np_report_xy_point(cJSON *arr, const char *series, double x, double y,
                        const struct np_results_config *c, cJSON *runs) {
  char cat[48];
  snprintf(cat, sizeof cat, "%.6g", x);
  cJSON *b = cJSON_CreateObject();
  if (b == NULL || !cJSON_AddItemToArray(arr, b)) {
    cJSON_Delete(b);
    cJSON_Delete(runs);
    return;
  }
  cJSON_AddStringToObject(b, "series", series);
  cJSON_AddStringToObject(b, "category", cat);
  cJSON_AddStringToObject(b, "config", c->id);
  cJSON_AddBoolToObject(b, "excluded", 0);
  np_json_add_number(b, "median", y);
  np_json_add_number(b, "min", y);
  np_json_add_number(b, "max", y);
  if (runs == NULL || !cJSON_AddItemToObject(b, "runs", runs))
    cJSON_Delete(runs);
}

/* One report.json point of a view drawn from c's runs: the passed ones,
 * or all when none passed (as median_of takes them). */
static void point(cJSON *arr, const char *series, double x, double y,
                  const struct np_results_config *c) {
  np_report_xy_point(arr, series, x, y, c,
                     np_report_run_ids(c, c->npassed > 0));
}

int np_report_xy_emit(struct np_report_ctx *ctx,
                      const struct np_results_set *s,
                      const struct np_chart_xy *ch, const char *stem,
                      cJSON **series) {
  char *svg = NULL, alt[600];
  size_t len = 0;
  cJSON *jc = NULL;
  int rc = np_chart_xy_svg(ch, &svg, &len, ctx->eb);
  if (rc != 0)
    return rc;
  snprintf(alt, sizeof alt, "%s: %s", ch->title, ch->subtitle);
  rc = np_report_add_chart(ctx, stem, svg, len, alt, &jc);
  free(svg);
  if (rc != 0)
    return rc;
  cJSON_AddStringToObject(jc, "set", np_report__info(ctx, s)->name);
  cJSON_AddStringToObject(jc, "title", ch->title);
  cJSON_AddStringToObject(jc, "subtitle", ch->subtitle);
  cJSON_AddStringToObject(jc, "y_label", ch->ylabel);
  cJSON_AddBoolToObject(jc, "log_y", ch->log_y);
  *series = cJSON_AddArrayToObject(jc, "series");
  return 0;
}

/* ---- latency under load ---- */

/* One point of the load chart: an open-loop configuration at its rate. */
struct load_point {
  double x;                            /* offered rate / messages per s */
  double y[3];                         /* median p50, p99, p99.9 / us   */
  const struct np_results_config *pc;  /* its configuration             */
};

/* Draw the n points (sorted by rate; x and y[q] their coordinates) with
 * the closed-loop capacity cap (NAN = none) marked. */
static int hockey_draw(struct np_report_ctx *ctx,
                       const struct np_results_set *s,
                       const struct load_point *pt, const double *x,
                       double *const y[3], size_t n, double cap,
                       size_t unpassed) {
  if (n < 2)
    return 0;
  char sub[700], capl[64], c1[200], c2[240], c3[200];
  snprintf(sub, sizeof sub,
           "suite %s, set %s, machine %s; open loop (udp "
           "--rate), latency from each intended send time",
           np_json_get_string(s->suite, "suite", s->label),
           np_report__info(ctx, s)->name, host_of(s));
  snprintf(capl, sizeof capl, "closed-loop capacity %.0f/s", cap);
  snprintf(c1, sizeof c1,
           "points: medians over the passed runs of each "
           "configuration; p99.9 only where a run has 1,000 samples");
  /* a point from failed runs, or from fewer than half of its runs, is
   * marked on the chart and named in the legend and the caption */
  enum np_chart_xy_mark *mk = calloc(n, sizeof *mk);
  if (mk == NULL)
    return NP_ENOMEM;
  size_t minority = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_results_config *pc = pt[i].pc;
    if (pc->npassed == 0)
      mk[i] = NP_CHART_XY_FAILED;
    else if (2 * pc->npassed < pc->nruns) {
      mk[i] = NP_CHART_XY_MINORITY;
      minority++;
    }
  }
  snprintf(c2, sizeof c2, "cross: %zu configuration%s without a passed "
           "run (lost datagrams: overloaded), %s point%s drawn from %s "
           "failed runs, excluded from rankings", unpassed,
           unpassed == 1 ? "" : "s", unpassed == 1 ? "its" : "their",
           unpassed == 1 ? "" : "s", unpassed == 1 ? "its" : "their");
  snprintf(c3, sizeof c3, "ring: %zu configuration%s where fewer than half "
           "of the runs passed, %s point%s the median of those few only",
           minority, minority == 1 ? "" : "s",
           minority == 1 ? "its" : "their", minority == 1 ? "" : "s");
  const char *caption[] = {c1, isfinite(cap) ? "dashed line: the closed-loop "
                           "capacity measured first in the same suite"
                                             : "no single closed-loop "
                           "configuration: no capacity marked",
                           unpassed ? c2 : minority ? c3 : NULL,
                           unpassed && minority ? c3 : NULL, NULL};
  struct np_chart_xy_series se[3] = {{"p50", n, x, y[0], 0, mk},
                                     {"p99", n, x, y[1], 1, mk},
                                     {"p99.9", n, x, y[2], 3, mk}};
  struct np_chart_xy ch = {
      .title = "UDP latency under load: p50 / p99 / "
               "p99.9 against offered load",
      .subtitle = sub,
      .xlabel = "offered load / messages per second",
      .ylabel = "latency / \xce\xbcs (log)",
      .caption = caption,
      .stamp = np_report__stamp(ctx, s),
      .log_y = 1,
      .vline_x = cap,
      .vline_label = capl,
      .mark_name = {[NP_CHART_XY_FAILED] = unpassed ? "failed runs" : NULL,
                    [NP_CHART_XY_MINORITY] = minority ? "< half passed" : NULL},
      .nseries = 3,
      .series = se};
  fprintf(ctx->md, "### Latency under load (open loop)\n\n");
  cJSON *js = NULL;
  int rc = np_report_xy_emit(ctx, s, &ch, "latency-load", &js);
  free(mk);
  if (rc != 0)
    return rc;
  for (int q = 0; q < 3 && js; q++)
    for (size_t i = 0; i < n; i++)
      point(js, se[q].name, x[i], y[q][i], pt[i].pc);
  fprintf(ctx->md, "| Offered / s | of capacity | Runs passed | p50 / μs | "
          "p99 / μs | p99.9 / μs | Sender behind |\n|---:|---:|---:|---:|"
          "---:|---:|---:|\n");
  for (size_t i = 0; i < n; i++) {
    size_t behind = 0;
    for (size_t r = 0; r < pt[i].pc->nruns; r++)
      behind += cJSON_IsTrue(np_json_pointer(pt[i].pc->runs[r].doc,
                                             "/open_loop/sender_behind"));
    char off[32], frac[32], p50[32], p99[32], p999[32];
    np_fmt_num(off, sizeof off, x[i], 0);
    np_fmt_num(frac, sizeof frac, isfinite(cap) ? 100 * x[i] / cap : NAN, 0);
    np_fmt_num(p50, sizeof p50, y[0][i], 2);
    np_fmt_num(p99, sizeof p99, y[1][i], 2);
    np_fmt_num(p999, sizeof p999, y[2][i], 2);
    fprintf(ctx->md, "| %s | %s%s | %zu / %zu | %s | %s | %s | %zu of %zu "
            "runs%s |\n", off, frac, isfinite(cap) ? " %" : "",
            pt[i].pc->npassed, pt[i].pc->nruns, p50, p99, p999, behind,
            pt[i].pc->nruns,
            pt[i].pc->npassed == 0 ? " (all failed: drawn from them)"
            : 2 * pt[i].pc->npassed < pt[i].pc->nruns
                ? " (fewer than half passed: ringed)"
                : "");
  }
  fprintf(ctx->md, "\nA run whose sender fell behind (more than 1 %% of "
          "its sends over 1 ms late) includes the load generator's own "
          "delay in its latencies.\n\n");
  return 0;
}

static int hockey(struct np_report_ctx *ctx, const struct np_results_set *s,
                  const struct np_results_config **cfg, size_t ncfg) {
  /* one point per open-loop configuration, however many: none dropped */
  struct load_point *pt = calloc(ncfg ? ncfg : 1, sizeof *pt);
  double *x = calloc(ncfg ? ncfg : 1, sizeof *x), *y[3] = {NULL, NULL, NULL},
         cap = NAN;
  size_t n = 0, closed = 0, unpassed = 0;
  int rc = 0;
  static const char *const key[3] = {"/measurement/rtt_us/p50",
                                     "/measurement/rtt_us/p99",
                                     "/measurement/rtt_us/p999"};
  for (int q = 0; q < 3; q++)
    y[q] = calloc(ncfg ? ncfg : 1, sizeof *y[q]);
  if (pt == NULL || x == NULL || !y[0] || !y[1] || !y[2]) {
    rc = NP_ENOMEM;
    goto free_points;
  }
  for (size_t i = 0; i < ncfg && rc == 0; i++) {
    const cJSON *d = cfg[i]->nruns ? cfg[i]->runs[0].doc : NULL;
    double rate = num(d, "/config/rate");
    if (!isfinite(rate)) {
      closed++;
      rc = median_of(cfg[i], "/measurement/roundtrips_per_sec", &cap);
      continue;
    }
    if (cfg[i]->npassed == 0)
      unpassed++; /* drawn from its failed runs, said in the caption */
    struct load_point p = {.x = rate, .pc = cfg[i]};
    for (int q = 0; q < 3 && rc == 0; q++)
      rc = median_of(cfg[i], key[q], &p.y[q]);
    size_t at = n; /* keep the points sorted by rate */
    for (; at > 0 && pt[at - 1].x > rate; at--)
      pt[at] = pt[at - 1];
    pt[at] = p;
    n++;
  }
  if (rc != 0)
    goto free_points;
  for (size_t i = 0; i < n; i++) {
    x[i] = pt[i].x;
    for (int q = 0; q < 3; q++)
      y[q][i] = pt[i].y[q];
  }
  rc = hockey_draw(ctx, s, pt, x, y, n, closed == 1 ? cap : NAN, unpassed);
free_points:
  free(pt);
  free(x);
  for (int q = 0; q < 3; q++)
    free(y[q]);
  return rc;
}

/* ---- percentile distribution ---- */

/* Every passed run's histogram at ptr merged into *out (NULL when none
 * has one); of the passed runs left out, *missing counts those without a
 * histogram and *bad those whose histogram does not decode or has another
 * layout than the first.  0 or NP_ENOMEM. */
static int merged(const struct np_results_config *c, const char *ptr,
                  struct np_hist **out, size_t *missing, size_t *bad) {
  struct np_hist *m = NULL;
  size_t nmiss = 0, nbad = 0;
  for (size_t i = 0; i < c->nruns; i++) {
    struct np_hist *h = NULL;
    const cJSON *o = np_json_pointer(c->runs[i].doc, ptr);
    if (!c->runs[i].passed)
      continue;
    if (o == NULL) {
      nmiss++;
      continue;
    }
    int rc = np_hist_from_json(o, &h, NULL);
    if (rc == NP_ENOMEM) {
      np_hist_free(m);
      return rc;
    }
    if (rc != 0) {
      nbad++;
      continue;
    }
    if (m == NULL)
      m = h;
    else {
      nbad += np_hist_merge(m, h) != 0;
      np_hist_free(h);
    }
  }
  *out = m;
  *missing = nmiss;
  *bad = nbad;
  return 0;
}

static int distribution(struct np_report_ctx *ctx,
                        const struct np_results_set *s,
                        const struct np_results_config **cfg, size_t ncfg,
                        const char *ptr, const char *what) {
  double x[MAX_CFG][NPCT], y[MAX_CFG][NPCT];
  struct np_chart_xy_series se[MAX_CFG];
  const struct np_results_config *pc[MAX_CFG];
  size_t ns = 0, more = 0, left = 0;
  for (size_t i = 0; i < ncfg; i++) {
    struct np_hist *h = NULL;
    size_t missing = 0, bad = 0;
    int mrc = merged(cfg[i], ptr, &h, &missing, &bad);
    if (mrc != 0)
      return mrc;
    if (h == NULL) { /* no line; a configuration without histograms is
                      * not drawn, one with unusable ones is counted */
      left += bad;
      continue;
    }
    if (ns == MAX_CFG) {
      more++;
      np_hist_free(h);
      continue;
    }
    left += missing + bad;
    size_t k = 0;
    for (size_t p = 0; p < NPCT; p++) {
      int64_t v;
      int rc = pcts[p] == 0 ? (v = np_hist_min(h), np_hist_count(h) ? 0 : -1)
                            : np_hist_percentile(h, pcts[p], &v);
      if (rc == 0) {
        x[ns][k] = pcts[p];
        y[ns][k++] = (double)v / 1e3;
      }
    }
    pc[ns] = cfg[i];
    se[ns] = (struct np_chart_xy_series){cfg[i]->id, k, x[ns], y[ns],
                                         (int)ns, NULL};
    ns++;
    np_hist_free(h);
  }
  if (ns == 0)
    return 0;
  char sub[700], title[200], c2[160], c3[200];
  snprintf(title, sizeof title, "%s against percentile", what);
  snprintf(sub, sizeof sub, "suite %s, set %s, machine %s; %s",
           np_json_get_string(s->suite, "suite", s->label),
           np_report__info(ctx, s)->name, host_of(s),
           left ? "the passed runs of a configuration merged, some left out"
                : "every passed run of a configuration merged");
  snprintf(c2, sizeof c2,
           "%zu more configuration%s not drawn (at most %d "
           "per chart)",
           more, more == 1 ? "" : "s", MAX_CFG);
  snprintf(c3, sizeof c3, "%zu passed run%s left out of the chart (no "
           "histogram, one that does not decode, or another layout)", left,
           left == 1 ? "" : "s");
  const char *caption[] = {
      "x: percentile on a 1/(1-p) axis, as HdrHistogram plots; each line "
      "stops at the tail its sample count supports (p needs ceil(100 / "
      "(100 - p)) samples)",
      more ? c2 : left ? c3 : NULL, more && left ? c3 : NULL, NULL};
  struct np_chart_xy ch = {.title = title,
                           .subtitle = sub,
                           .xlabel = "percentile / %",
                           .ylabel = "latency / \xce\xbcs (log)",
                           .caption = caption,
                           .stamp = np_report__stamp(ctx, s),
                           .log_y = 1,
                           .x_percentile = 1,
                           .vline_x = NAN,
                           .nseries = ns,
                           .series = se};
  fprintf(ctx->md, "### %s: percentile distribution\n\n", what);
  cJSON *js = NULL;
  int rc = np_report_xy_emit(ctx, s, &ch, "latency-distribution", &js);
  for (size_t i = 0; rc == 0 && js && i < ns; i++)
    for (size_t k = 0; k < se[i].n; k++)
      point(js, se[i].name, x[i][k], y[i][k], pc[i]);
  return rc;
}

/* ---- time series ---- */

/* Median of member key over points [a, b). */
static double third(const cJSON *pts, size_t a, size_t b, const char *key) {
  double *v = calloc(b > a ? b - a : 1, sizeof *v), m = NAN;
  size_t n = 0;
  for (size_t i = a; v && i < b; i++) {
    double d = np_json_get_number(cJSON_GetArrayItem(pts, (int)i), key, NAN);
    if (isfinite(d))
      v[n++] = d;
  }
  if (n == 0 || np_stats_median(v, n, &m) != 0)
    m = NAN;
  free(v);
  return m;
}

static int series_of(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const struct np_results_config *c, const cJSON *pts,
                     const char *run_id) {
  size_t n = (size_t)cJSON_GetArraySize(pts);
  double *x = calloc(n + 1, sizeof *x), *p50 = calloc(n + 1, sizeof *p50),
         *p99 = calloc(n + 1, sizeof *p99);
  int rc = 0;
  if (!x || !p50 || !p99) {
    rc = NP_ENOMEM;
    goto free_arrays;
  }
  for (size_t i = 0; i < n; i++) {
    const cJSON *e = cJSON_GetArrayItem(pts, (int)i);
    x[i] = np_json_get_number(e, "t", NAN);
    p50[i] = np_json_get_number(e, "p50_us", NAN);
    p99[i] = np_json_get_number(e, "p99_us", NAN);
  }
  char sub[900], title[240], stem[240];
  snprintf(title, sizeof title, "Time series: %s", c->id);
  snprintf(sub, sizeof sub,
           "suite %s, set %s, machine %s; run %s, one "
           "point per --interval slice",
           np_json_get_string(s->suite, "suite", s->label),
           np_report__info(ctx, s)->name, host_of(s), run_id);
  const char *caption[] = {"points: p50 and p99 of each slice's latencies",
                           NULL};
  struct np_chart_xy_series se[2] = {{"p50", n, x, p50, 0, NULL},
                                     {"p99", n, x, p99, 1, NULL}};
  struct np_chart_xy ch = {.title = title,
                           .subtitle = sub,
                           .xlabel = "time since the measurement began / s",
                           .ylabel = "latency / \xce\xbcs (log)",
                           .caption = caption,
                           .stamp = np_report__stamp(ctx, s),
                           .log_y = 1,
                           .vline_x = NAN,
                           .nseries = 2,
                           .series = se};
  snprintf(stem, sizeof stem, "timeseries-%s", c->id);
  cJSON *js = NULL;
  int drawable = 0;
  for (size_t i = 0; i < n; i++)
    drawable |= isfinite(x[i]) && (p50[i] > 0 || p99[i] > 0);
  if (!drawable)
    goto trend; /* every slice too small for a percentile: text only */
  if ((rc = np_report_xy_emit(ctx, s, &ch, stem, &js)) != 0)
    goto free_arrays;
  for (int q = 0; q < 2 && js; q++)
    for (size_t i = 0; i < n; i++)
      if (isfinite(se[q].y[i]))
        point(js, se[q].name, x[i], se[q].y[i], c);
trend:;
  size_t t3 = n / 3;
  double a99 = third(pts, 0, t3, "p99_us"), b99 = third(pts, n - t3, n,
                                                       "p99_us");
  double ar = third(pts, 0, t3, "rss_bytes"), br = third(pts, n - t3, n,
                                                        "rss_bytes");
  int up99 = t3 > 0 && isfinite(a99) && isfinite(b99) && b99 >= 1.5 * a99;
  int uprss = t3 > 0 && isfinite(ar) && isfinite(br) && br >= 1.1 * ar &&
              br - ar >= 1 << 20;
  fprintf(ctx->md, "%s: %zu slices; median p99 of the first third %.1f μs, "
          "of the last %.1f μs; RSS %.1f MiB -> %.1f MiB. %s%s%s%s\n\n",
          c->id, n, a99, b99, ar / (1 << 20), br / (1 << 20),
          up99 || uprss ? "**Trend:** " : "No trend (p99 x 1.5, RSS + 10 % "
                                          "and + 1 MiB).",
          up99 ? "p99 grows across the run." : "", up99 && uprss ? " " : "",
          uprss ? "RSS grows across the run." : "");
free_arrays:
  free(x);
  free(p50);
  free(p99);
  return rc;
}

static int timeseries(struct np_report_ctx *ctx,
                      const struct np_results_set *s,
                      const struct np_results_config **cfg, size_t ncfg) {
  int said = 0, rc = 0;
  for (size_t i = 0; i < ncfg && rc == 0; i++)
    for (size_t r = 0; r < cfg[i]->nruns; r++) {
      const cJSON *doc = cfg[i]->runs[r].doc, *pts =
          np_json_pointer(doc, "/intervals/points");
      if (pts == NULL) /* rudp: one series per round, the first drawn */
        pts = np_json_pointer(doc, "/rudp/rounds/0/intervals/points");
      if (!cfg[i]->runs[r].passed || cJSON_GetArraySize(pts) < 1)
        continue;
      if (!said++)
        fprintf(ctx->md, "### Time series (--interval)\n\n");
      rc = series_of(ctx, s, cfg[i], pts, cfg[i]->runs[r].id);
      break;
    }
  return rc;
}

int np_report_is_stream(const struct np_results_set *s) {
  return s->nruns > 0 &&
         np_kind_is(
             np_json_get_string(np_json_pointer(s->runs[0].doc, "/config"),
                                "protocol", ""),
             NP_KIND_UDP_STREAM);
}

/* ---- stream table (instead of the echo table's round trips) ---- */

/* The stream.clock text of the code before 0.2's per-call send stamps
 * (commit 054c434): it says "before each send call", but that code took
 * one stamp per batch and kept it for the retry of what a call left
 * unsent. */
#define STREAM_CLOCK_PRE_PER_CALL \
  "one process: CLOCK_REALTIME before each send call,"

/* 1 when a run of the set states the clock text above. */
static int stream_clock_pre_per_call(const struct np_results_set *s) {
  for (size_t i = 0; i < s->nruns; i++)
    if (strstr(np_json_get_string(np_json_pointer(s->runs[i].doc, "/stream"),
                                  "clock", ""),
               STREAM_CLOCK_PRE_PER_CALL) != NULL)
      return 1;
  return 0;
}

/* The caption: what the columns are, why a marked jitter is no jitter,
 * and what an old clock text overstates. */
static void stream_caption(struct np_report_ctx *ctx,
                           const struct np_results_set *s, int marked) {
  fprintf(ctx->md, "\nMedians over the passed runs (over every run of a "
          "configuration none of whose runs passed). Received: payload "
          "bits/s at the receiver; loss: sent - distinct received; jitter: "
          "RFC 3550 as iperf3; datagrams / send call: sent / send calls; "
          "one-way delay from each send time to the kernel's receive "
          "timestamp (one process, one clock).");
  if (marked)
    fprintf(ctx->md, " † Not a path's jitter: every datagram of one send "
            "call carries that call's one send stamp (a sendmmsg batch; "
            "with GSO, every segment of each super-datagram), so where calls "
            "carry two or more datagrams on average at least half of the "
            "transit differences are between datagrams of one call and "
            "measure only how far apart the receiver got them - the figure "
            "is an artifact of the shared stamp.");
  if (stream_clock_pre_per_call(s))
    fprintf(ctx->md, " These records' clock text says \"CLOCK_REALTIME "
            "before each send call\"; the code that wrote it stamped once "
            "per batch and kept that stamp for the retry of what a call "
            "left unsent (the per-call stamps came later), so it overstates "
            "the stamping where a call left datagrams unsent.");
  fprintf(ctx->md, "\n\n");
}

static int stream_table(struct np_report_ctx *ctx,
                        const struct np_results_set *s,
                        const struct np_results_config **cfg, size_t n) {
  enum { COL_JITTER = 3, COL_PER_CALL = 7 };
  static const struct {
    const char *ptr, *den;
    const char *key;
    double scale;
    int decimals;
  } col[] = {{"/stream/datagrams_per_sec", NULL, "datagrams_per_sec", 1, 0},
             {"/stream/bitrate_bps", NULL, "bitrate_mbps", 1e-6, 1},
             {"/stream/loss_percent", NULL, "loss_percent", 1, 3},
             [COL_JITTER] = {"/stream/jitter_us", NULL, "jitter_us", 1, 2},
             {"/stream/one_way_delay_us/p50", NULL, "one_way_p50_us", 1, 2},
             {"/stream/one_way_delay_us/p99", NULL, "one_way_p99_us", 1, 2},
             {"/stream/cpu_percent", NULL, "cpu_percent", 1, 1},
             [COL_PER_CALL] = {"/stream/counters/sent",
                               "/stream/counters/send_calls",
                               "datagrams_per_send_call", 1, 1}};
  enum { NCOL = sizeof col / sizeof col[0] };
  int marked = 0;
  fprintf(ctx->md, "### Streams: rate, loss, jitter and one-way delay\n\n"
          "| Configuration | Runs passed | Datagrams / s | Received / Mbit/s "
          "| Loss / %% | Jitter / μs | One-way p50 / μs | One-way p99 / μs | "
          "Process CPU / %% | Datagrams / send call |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, "streams", s);
  for (size_t i = 0; i < n; i++) {
    cJSON *r = cJSON_CreateObject();
    double v[NCOL];
    cJSON_AddStringToObject(r, "config", cfg[i]->id);
    fprintf(ctx->md, "| %s | %zu / %zu |", cfg[i]->id, cfg[i]->npassed,
            cfg[i]->nruns);
    for (size_t k = 0; k < NCOL; k++)
      if (median_ratio(cfg[i], col[k].ptr, col[k].den, &v[k]) != 0) {
        cJSON_Delete(r);
        return NP_ENOMEM;
      }
    /* two or more datagrams per call: at least half of the transit
     * differences are within one call, so the jitter is marked */
    int shared = v[COL_PER_CALL] >= 2;
    marked |= shared;
    for (size_t k = 0; k < NCOL; k++) {
      double x = v[k] * col[k].scale;
      char cell[48];
      np_fmt_num(cell, sizeof cell, x, col[k].decimals);
      fprintf(ctx->md, " %s%s |", cell,
              k == COL_JITTER && shared && isfinite(x) ? " †" : "");
      if (isfinite(x))
        cJSON_AddNumberToObject(r, col[k].key, x);
    }
    fprintf(ctx->md, "\n");
    cJSON_AddBoolToObject(r, "jitter_from_shared_stamps", shared);
    cJSON_AddNumberToObject(r, "runs_passed", (double)cfg[i]->npassed);
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(cfg[i], 0));
    if (rows)
      cJSON_AddItemToArray(rows, r);
    else
      cJSON_Delete(r);
  }
  stream_caption(ctx, s, marked);
  return 0;
}

int np_report_latency_series(struct np_report_ctx *ctx,
                             const struct np_results_set *s) {
  if (s->nruns == 0)
    return 0;
  const struct np_results_config **cfg = np_report_plan_order(s);
  if (cfg == NULL)
    return NP_ENOMEM;
  int rc = timeseries(ctx, s, cfg, s->nconfigs);
  free(cfg);
  return rc;
}

int np_report_latency(struct np_report_ctx *ctx,
                      const struct np_results_set *s) {
  if (s->nruns == 0)
    return 0;
  const struct np_results_config **cfg = np_report_plan_order(s);
  if (cfg == NULL)
    return NP_ENOMEM;
  int stream = np_report_is_stream(s);
  int rc = stream ? stream_table(ctx, s, cfg, s->nconfigs)
                  : hockey(ctx, s, cfg, s->nconfigs);
  if (rc == 0)
    rc = stream ? distribution(ctx, s, cfg, s->nconfigs,
                               "/stream/one_way_delay_histogram",
                               "One-way delay")
                : distribution(ctx, s, cfg, s->nconfigs,
                               "/measurement/rtt_histogram", "Latency");
  if (rc == 0)
    rc = timeseries(ctx, s, cfg, s->nconfigs);
  free(cfg);
  return rc;
}
