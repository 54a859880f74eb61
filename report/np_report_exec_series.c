/*
 * np_report_exec_series.c - the time series of an exec set (`exec
 * --interval S --interval-metric NAME=regex:...`): for each series the
 * plan declares, one line chart per configuration of its first passed
 * run, the samples (each line's value at the time it was read) and the
 * interval means at each interval's middle; and one table row per
 * configuration with its samples, intervals without a sample and the
 * first / last thirds' means, so a trend across the run shows in text.
 * Nothing is drawn for a set without series.
 */
#include "np_report_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart_xy.h"
#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_report_latency.h"

/* The record's series named name, or NULL. */
static const cJSON *series_in(const cJSON *doc, const char *name) {
  const cJSON *m;
  cJSON_ArrayForEach(m, np_json_pointer(doc, "/exec/series/metrics")) {
    if (strcmp(np_json_get_string(m, "name", ""), name) == 0)
      return m;
  }
  return NULL;
}

/* Mean of the samples' values with index in [a, b), NAN when none. */
static double mean_of(const cJSON *samples, int a, int b) {
  double sum = 0;
  int n = 0;
  for (int i = a; i < b; i++) {
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetArrayItem(samples, i), 2);
    if (cJSON_IsNumber(v)) {
      sum += v->valuedouble;
      n++;
    }
  }
  return n ? sum / n : NAN;
}

/* One point of report.json's chart: x, y of run run_id of c. */
static void point(cJSON *arr, const char *series, double x, double y,
                  const struct np_results_config *c, const char *run_id) {
  cJSON *runs = cJSON_CreateArray();
  if (runs != NULL)
    cJSON_AddItemToArray(runs, cJSON_CreateString(run_id));
  np_report_xy_point(arr, series, x, y, c, runs);
}

/* The chart of series m (plan entry: name, unit) for run r of c. */
static int chart_one(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const struct np_results_config *c,
                     const struct np_results_run *r, const cJSON *m,
                     const char *name, const char *given_unit) {
  double k_unit;
  const char *unit = np_fmt_unit(given_unit, &k_unit);
  const cJSON *samples = cJSON_GetObjectItemCaseSensitive(m, "samples"),
              *iv = cJSON_GetObjectItemCaseSensitive(m, "intervals");
  size_t n = (size_t)cJSON_GetArraySize(samples),
         k = (size_t)cJSON_GetArraySize(iv);
  double *x = calloc(n + 1, sizeof *x), *y = calloc(n + 1, sizeof *y),
         *ix = calloc(k + 1, sizeof *ix), *iy = calloc(k + 1, sizeof *iy);
  int rc = 0;
  if (x == NULL || y == NULL || ix == NULL || iy == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const cJSON *row = cJSON_GetArrayItem(samples, (int)i);
    const cJSON *t = cJSON_GetArrayItem(row, 1), *v = cJSON_GetArrayItem(row, 2);
    x[i] = cJSON_IsNumber(t) ? t->valuedouble : NAN;
    y[i] = cJSON_IsNumber(v) ? v->valuedouble * k_unit : NAN;
  }
  for (size_t i = 0; i < k; i++) {
    const cJSON *e = cJSON_GetArrayItem(iv, (int)i);
    ix[i] = (np_json_get_number(e, "start", NAN) +
             np_json_get_number(e, "end", NAN)) / 2;
    iy[i] = np_json_get_number(e, "mean", NAN) * k_unit;
  }
  char title[240], sub[900], ylabel[120], stem[240];
  snprintf(title, sizeof title, "Time series: %s, %s", name, c->id);
  snprintf(sub, sizeof sub, "suite %s, set %s; run %s, every %g s",
           np_json_get_string(s->suite, "suite", s->label),
           np_report__info(ctx, s)->name, r->id,
           np_json_get_number(np_json_pointer(r->doc, "/exec/series"),
                              "interval_seconds", NAN));
  snprintf(ylabel, sizeof ylabel, "%s%s%s%s", name, unit[0] ? " / " : "", unit,
           "");
  const char *caption[] = {
      "samples: each matching line's value at the time it was read",
      "interval mean: the mean of an interval's samples, at its middle",
      NULL};
  struct np_chart_xy_series se[2] = {{"samples", n, x, y, 0, NULL},
                                     {"interval mean", k, ix, iy, 1, NULL}};
  struct np_chart_xy ch = {.title = title,
                           .subtitle = sub,
                           .xlabel = "time since the program started / s",
                           .ylabel = ylabel,
                           .caption = caption,
                           .stamp = np_report__stamp(ctx, s),
                           .vline_x = NAN,
                           .nseries = 2,
                           .series = se};
  snprintf(stem, sizeof stem, "series-%s-%s", name, c->id);
  cJSON *js = NULL;
  if ((rc = np_report_xy_emit(ctx, s, &ch, stem, &js)) != 0)
    goto done;
  for (size_t i = 0; js != NULL && i < n; i++)
    if (isfinite(x[i]) && isfinite(y[i]))
      point(js, "samples", x[i], y[i], c, r->id);
  for (size_t i = 0; js != NULL && i < k; i++)
    if (isfinite(ix[i]) && isfinite(iy[i]))
      point(js, "interval mean", ix[i], iy[i], c, r->id);
done:
  free(x);
  free(y);
  free(ix);
  free(iy);
  return rc;
}

/* One series over every configuration: charts, then the table. */
static int one_series(struct np_report_ctx *ctx,
                      const struct np_results_set *s,
                      const struct np_results_config **cfg, size_t ncfg,
                      const cJSON *decl, cJSON *rows) {
  const char *name = np_json_get_string(decl, "name", "?");
  const char *unit = np_json_get_string(decl, "unit", "");
  char md_name[128], md_unit[64];
  double k_unit; /* the table shows values in the chart's unit */
  const char *shown = np_fmt_unit(unit, &k_unit);
  np_report__md_text(md_name, sizeof md_name, name);
  np_report__md_text(md_unit, sizeof md_unit, shown);
  fprintf(ctx->md, "### Time series: %s\n\n", md_name);
  int rc = 0;
  for (size_t i = 0; i < ncfg && rc == 0; i++)
    for (size_t r = 0; r < cfg[i]->nruns; r++) {
      const cJSON *m = series_in(cfg[i]->runs[r].doc, name);
      if (!cfg[i]->runs[r].passed || m == NULL ||
          cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "samples")) < 1)
        continue;
      rc = chart_one(ctx, s, cfg[i], &cfg[i]->runs[r], m, name, unit);
      break;
    }
  if (rc != 0)
    return rc;
  fprintf(ctx->md, "| Configuration | Run | Samples | Intervals | Without a "
          "sample | Mean of the first third%s%s | Mean of the last third%s%s "
          "|\n|---|---|---:|---:|---:|---:|---:|\n",
          shown[0] ? " / " : "", md_unit, shown[0] ? " / " : "", md_unit);
  for (size_t i = 0; i < ncfg; i++) {
    const struct np_results_run *run = NULL;
    for (size_t r = 0; r < cfg[i]->nruns && run == NULL; r++)
      if (cfg[i]->runs[r].passed && series_in(cfg[i]->runs[r].doc, name))
        run = &cfg[i]->runs[r];
    cJSON *row = cJSON_CreateObject();
    if (row == NULL || rows == NULL || !cJSON_AddItemToArray(rows, row)) {
      cJSON_Delete(row);
      return NP_ENOMEM;
    }
    cJSON_AddStringToObject(row, "series", name);
    cJSON_AddStringToObject(row, "config", cfg[i]->id);
    if (run == NULL) {
      fprintf(ctx->md, "| %s | no passed run | - | - | - | - | - |\n",
              cfg[i]->id);
      cJSON_AddNullToObject(row, "run");
      continue;
    }
    const cJSON *m = series_in(run->doc, name), *e;
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(m, "samples");
    int n = cJSON_GetArraySize(samples), t3 = n / 3, empty = 0;
    int k = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "intervals"));
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(m, "intervals"))
      empty += np_json_get_number(e, "count", 0) == 0;
    char a[48], b[48];
    double first = t3 > 0 ? mean_of(samples, 0, t3) : NAN,
           last = t3 > 0 ? mean_of(samples, n - t3, n) : NAN;
    np_fmt_num(a, sizeof a, first * k_unit, 3);
    np_fmt_num(b, sizeof b, last * k_unit, 3);
    cJSON_AddStringToObject(row, "run", run->id);
    cJSON_AddNumberToObject(row, "samples", n);
    cJSON_AddNumberToObject(row, "intervals", k);
    cJSON_AddNumberToObject(row, "intervals_without_sample", empty);
    np_json_add_number(row, "first_third_mean", first);
    np_json_add_number(row, "last_third_mean", last);
    fprintf(ctx->md, "| %s | %s | %d | %d | %d | %s | %s |\n", cfg[i]->id,
            run->id, n, k, empty, a, b);
  }
  fprintf(ctx->md, "\nEach configuration's first passed run. A sample is a "
          "line of the program's stdout that matched the series' pattern, "
          "timed when netproof-bench read it; thirds are by sample count "
          "(fewer than 3 samples: -).\n\n");
  return 0;
}

int np_report_exec_series(struct np_report_ctx *ctx,
                          const struct np_results_set *s,
                          const struct np_results_config **cfg, size_t ncfg) {
  const cJSON *decl, *all = np_json_pointer(s->suite, "/plan/exec/series");
  int rc = 0;
  if (cJSON_GetArraySize(all) == 0)
    return 0;
  cJSON *rows = np_report__new_table(ctx, "exec_series", s);
  cJSON_ArrayForEach(decl, all) {
    if ((rc = one_series(ctx, s, cfg, ncfg, decl, rows)) != 0)
      break;
  }
  return rc;
}
