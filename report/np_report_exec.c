/*
 * np_report_exec.c - the part of a report for an exec result set (any
 * benchmark program, `netproof-bench exec`): what ran, one chart per
 * declared metric by the plan's dimensions, and one table of every
 * metric per configuration.
 *
 * The metrics, their units, labels and which way is better come from the
 * plan the suite ran (suite.json "plan".exec.metrics).  Charts put the
 * first dimension on the x axis and one bar per value of the others (up to
 * eight series); bars are medians of the passed repetitions with min/max
 * error bars, and a configuration with any failed repetition gets no bar
 * (the rule of every other chart).  The statistics are np_results_exec's,
 * the rule of summary.json's "exec.NAME" entries.
 */
#include "np_report_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_report_assets.h"
#include "np_report_chartb.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_results_exec.h"

/* A configuration's value of dimension dim as text ("-" when absent). */
static void dim_text(const struct np_results_set *s,
                     const struct np_results_config *c, const char *dim,
                     char *buf, size_t len) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s->summary,
                                                         "configurations")) {
    if (strcmp(np_json_get_string(e, "id", ""), c->id) != 0)
      continue;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(e, "options"), dim);
    if (cJSON_IsString(v))
      snprintf(buf, len, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
      snprintf(buf, len, "%.15g", v->valuedouble);
    else
      break;
    return;
  }
  snprintf(buf, len, "-");
}

/* The plan's unit of dimension dim ("" when it names none):
 * plan.dimension_units, e.g. {"length": "B"}. */
static const char *dim_unit(const struct np_results_set *s, const char *dim) {
  return np_json_get_string(np_json_pointer(s->suite, "/plan/dimension_units"),
                            dim, "");
}

/* dim's value with its unit ("512 B"), or named when it has none
 * ("length 512"): how a series label shows a dimension. */
static void dim_label(const struct np_results_set *s,
                      const struct np_results_config *c, const char *dim,
                      char *buf, size_t len) {
  char v[64];
  const char *u = dim_unit(s, dim);
  dim_text(s, c, dim, v, sizeof v);
  if (u[0])
    snprintf(buf, len, "%s %s", v, u);
  else
    snprintf(buf, len, "%s %s", dim, v);
}

static int excluded(const struct np_results_config *c) {
  return c->npassed < c->nruns;
}

/* One metric's chart. */
static int chart(struct np_report_ctx *ctx, const struct np_results_set *s,
                 const struct np_results_config **cfg, size_t ncfg,
                 const cJSON *metric, const cJSON *dims) {
  const char *name = np_json_get_string(metric, "name", "?");
  double k_unit;
  const char *unit = np_fmt_unit(np_json_get_string(metric, "unit", ""),
                                 &k_unit);
  const char *label = np_json_get_string(metric, "label", name);
  const char *better = np_json_get_string(metric, "better", NULL);
  const cJSON *d0 = cJSON_GetArrayItem(dims, 0);
  struct np_report_cbar *b = calloc(ncfg + 1, sizeof *b);
  char (*cat)[64] = calloc(ncfg + 1, sizeof *cat);
  char (*ser)[160] = calloc(ncfg + 1, sizeof *ser);
  int rc = 0, use_ci = np_report__ci_bars(ctx, s);
  if (b == NULL || cat == NULL || ser == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < ncfg; i++) {
    char part[96];
    const cJSON *d;
    dim_text(s, cfg[i], d0 ? d0->string : "", cat[i], sizeof cat[i]);
    if (d0 == NULL)
      snprintf(cat[i], sizeof cat[i], "all");
    int k = 0;
    cJSON_ArrayForEach(d, dims) {
      if (k++ == 0)
        continue;
      dim_label(s, cfg[i], d->string, part, sizeof part);
      size_t used = strlen(ser[i]);
      snprintf(ser[i] + used, sizeof ser[i] - used, "%s%s",
               used ? ", " : "", part);
    }
    if (ser[i][0] == '\0')
      snprintf(ser[i], sizeof ser[i], "%s", label);
    struct np_report_cbar *r = &b[i];
    *r = (struct np_report_cbar){.key = cat[i], .label = cat[i], .note = "",
                                 .jcat = cat[i], .series = ser[i],
                                 .rank = -1, .cfg = cfg[i], .med = NAN,
                                 .mn = NAN, .mx = NAN, .clo = NAN,
                                 .chi = NAN};
    if (excluded(cfg[i])) {
      r->mark = NP_CHART_EXCLUDED;
      continue;
    }
    r->n = np_results_exec_stat(cfg[i], name, 1, &r->med, &r->mn, &r->mx);
    /* --error-bars ci95: the interval, none below 5 runs */
    if (use_ci && np_results_exec_ci(cfg[i], name, 1, &r->clo, &r->chi) != 0)
      r->clo = r->chi = NAN;
    r->med *= k_unit;
    r->mn *= k_unit;
    r->mx *= k_unit;
    r->clo *= k_unit;
    r->chi *= k_unit;
  }
  const char *prog = np_json_get_string(
      np_json_pointer(s->runs[0].doc, "/exec/program"), "given", "program");
  const char *host = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, "machine"), "hostname",
      "unknown");
  char title[200], subtitle[300], ylabel[120], stem[240], xlabel[96];
  snprintf(title, sizeof title, "%s: %s%s%s%s", prog, label,
           better ? " (" : "", better ? better : "",
           better ? " is better)" : "");
  snprintf(subtitle, sizeof subtitle, "suite %s, set %s, machine %s",
           np_json_get_string(s->suite, "suite", s->label),
           np_report__info(ctx, s)->name, host);
  snprintf(ylabel, sizeof ylabel, "%s%s%s", label, unit[0] ? " / " : "", unit);
  const char *xu = d0 ? dim_unit(s, d0->string) : "";
  snprintf(xlabel, sizeof xlabel, "%s%s%s", d0 ? d0->string : "configuration",
           xu[0] ? " / " : "", xu);
  /* the set's slug prefixes the file (np_report_add_chart) */
  snprintf(stem, sizeof stem, "exec-%s", name);
  struct np_report_cchart ch = {.title = title, .subtitle = subtitle,
                                .xlabel = xlabel, .ylabel = ylabel,
                                .stem = stem, .unit = "run", .metric = name};
  rc = np_report_chartb_emit(ctx, s, &ch, b, ncfg);
done:
  free(b);
  free(cat);
  free(ser);
  return rc;
}

/* The member of a table row for a dimension or metric name: the name,
 * or "<kind>:<name>" when the row has it already or it is one of the
 * row's own columns (a dimension and a metric may share a name; one row
 * must not hold a member twice). */
static const char *row_key(const cJSON *row, const char *name,
                           const char *kind, char *buf, size_t n) {
  static const char *const own[] = {"config", "runs_passed", "runs",
                                    "bounds_held", "runs_ids"};
  int taken = cJSON_GetObjectItemCaseSensitive(row, name) != NULL;
  for (size_t i = 0; !taken && i < sizeof own / sizeof own[0]; i++)
    taken = strcmp(name, own[i]) == 0;
  if (!taken)
    return name;
  snprintf(buf, n, "%s:%s", kind, name);
  return buf;
}

/* How many runs of c held every bound (bound_K checks). */
static size_t bounds_held(const struct np_results_config *c, size_t *nb) {
  size_t held = 0;
  *nb = 0;
  for (size_t i = 0; i < c->nruns; i++) {
    const cJSON *e;
    int ok = 1;
    size_t k = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c->runs[i].doc,
                                                           "checks")) {
      if (strncmp(np_json_get_string(e, "name", ""), "bound_", 6) != 0)
        continue;
      k++;
      ok &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "passed"));
    }
    *nb = k > *nb ? k : *nb;
    held += ok;
  }
  return held;
}

static void table(struct np_report_ctx *ctx, const struct np_results_set *s,
                  const struct np_results_config **cfg, size_t ncfg,
                  const cJSON *metrics, const cJSON *dims) {
  const cJSON *m, *d;
  cJSON *rows = np_report__new_table(ctx, "exec_metrics", s);
  fprintf(ctx->md, "| Configuration |");
  char cell[512], ucell[128], key[128];
  cJSON_ArrayForEach(d, dims) {
    const char *du = dim_unit(s, d->string);
    np_report__md_cell(cell, sizeof cell, d->string, 0);
    np_report__md_cell(ucell, sizeof ucell, du, 0);
    fprintf(ctx->md, " %s%s%s |", cell, du[0] ? " / " : "", ucell);
  }
  fprintf(ctx->md, " Runs passed | Bounds held |");
  cJSON_ArrayForEach(m, metrics) {
    double k_unit;
    const char *unit = np_fmt_unit(np_json_get_string(m, "unit", ""), &k_unit);
    const char *better = np_json_get_string(m, "better", NULL);
    np_report__md_cell(
        cell, sizeof cell,
        np_json_get_string(m, "label", np_json_get_string(m, "name", "")), 0);
    np_report__md_cell(ucell, sizeof ucell, unit, 0);
    fprintf(ctx->md, " %s%s%s%s |", cell, unit[0] ? " / " : "", ucell,
            better ? (strcmp(better, "higher") == 0 ? " (↑)" : " (↓)") : "");
  }
  fprintf(ctx->md, "\n|---|");
  cJSON_ArrayForEach(d, dims) fprintf(ctx->md, "---|");
  fprintf(ctx->md, "---:|---:|");
  cJSON_ArrayForEach(m, metrics) fprintf(ctx->md, "---:|");
  fprintf(ctx->md, "\n");
  for (size_t i = 0; i < ncfg && rows != NULL; i++) {
    const struct np_results_config *c = cfg[i];
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToArray(rows, r);
    cJSON_AddStringToObject(r, "config", c->id);
    fprintf(ctx->md, "| `%s` |", c->id);
    cJSON_ArrayForEach(d, dims) {
      char t2[64];
      dim_text(s, c, d->string, t2, sizeof t2);
      np_report__md_cell(cell, sizeof cell, t2, 0);
      fprintf(ctx->md, " %s |", cell);
      cJSON_AddStringToObject(
          r, row_key(r, d->string, "dimension", key, sizeof key), t2);
    }
    size_t nb = 0, held = bounds_held(c, &nb);
    fprintf(ctx->md, " %zu / %zu |", c->npassed, c->nruns);
    if (nb > 0)
      fprintf(ctx->md, " %zu / %zu |", held, c->nruns);
    else
      fprintf(ctx->md, " - |");
    cJSON_AddNumberToObject(r, "runs_passed", (double)c->npassed);
    cJSON_AddNumberToObject(r, "runs", (double)c->nruns);
    cJSON_AddNumberToObject(r, "bounds_held", (double)held);
    cJSON_ArrayForEach(m, metrics) {
      const char *name = np_json_get_string(m, "name", "");
      double med, mn, mx, k_unit;
      char txt[96];
      size_t n = np_results_exec_stat(c, name, 1, &med, &mn, &mx);
      np_fmt_unit(np_json_get_string(m, "unit", ""), &k_unit);
      /* counts (every value whole: lost datagrams) without decimals,
       * "64 (0-148)", not "64.00 (0.00-148.00)" nor "0.0000" */
      int whole = med == floor(med) && mn == floor(mn) && mx == floor(mx);
      int dec = n == 0 || whole ? 0
                : fabs(med) >= 100 ? 0
                : fabs(med) >= 1   ? 2
                                   : 4;
      if (excluded(c))
        snprintf(txt, sizeof txt, "excluded");
      else if (k_unit != 1) /* shown in a larger unit: Mbit/s */
        np_fmt_range(txt, sizeof txt, med * k_unit, mn * k_unit, mx * k_unit,
                     fabs(med * k_unit) >= 100 ? 0 : 2);
      else
        np_fmt_range(txt, sizeof txt, med, mn, mx, dec);
      fprintf(ctx->md, " %s |", txt);
      cJSON *o = cJSON_AddObjectToObject(
          r, row_key(r, name, "metric", key, sizeof key));
      np_json_add_number(o, "median", excluded(c) ? NAN : med);
      np_json_add_number(o, "min", excluded(c) ? NAN : mn);
      np_json_add_number(o, "max", excluded(c) ? NAN : mx);
    }
    fprintf(ctx->md, "\n");
    cJSON_AddItemToObject(r, "runs_ids", np_report_run_ids(c, 0));
  }
  fprintf(ctx->md,
          "\nMedians (min-max) of the passed repetitions; a configuration "
          "with a failed repetition is excluded. Every value is re-derived "
          "by the self-check from the program's output kept beside its "
          "record.\n\n");
}

/* What ran: the program, its identity and the command template. */
static void conditions(struct np_report_ctx *ctx,
                       const struct np_results_set *s) {
  const cJSON *p = np_json_pointer(s->runs[0].doc, "/exec/program");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, "machine");
  const cJSON *cmd = np_json_pointer(s->suite, "/plan/exec/command"), *e;
  char a[1024], b[1024];
  fprintf(ctx->md, "| Item | Value |\n|---|---|\n");
  np_report__md_cell(a, sizeof a, np_json_get_string(p, "given", "-"), 1);
  np_report__md_cell(b, sizeof b, np_json_get_string(p, "path", "-"), 1);
  fprintf(ctx->md, "| Program | `%s` (`%s`) |\n", a, b);
  np_report__md_cell(a, sizeof a, np_json_get_string(p, "sha256", "-"), 1);
  fprintf(ctx->md, "| Program SHA-256 | `%s` |\n", a);
  fprintf(ctx->md, "| Command template |");
  cJSON_ArrayForEach(e, cmd) {
    np_report__md_cell(a, sizeof a, cJSON_GetStringValue(e), 1);
    fprintf(ctx->md, " `%s`", a);
  }
  np_report__md_cell(a, sizeof a, np_json_get_string(m, "cpu_model", "-"), 0);
  np_report__md_cell(b, sizeof b, np_json_get_string(m, "kernel_release", "-"),
                     0);
  fprintf(ctx->md, " |\n| Machine | %s, %.0f logical CPUs, kernel %s |\n", a,
          np_json_get_number(m, "logical_cores", NAN), b);
  fprintf(ctx->md, "| Repetitions | %.0f independent processes per "
          "configuration |\n\n",
          np_json_get_number(s->suite, "repetitions", NAN));
}

int np_report_exec(struct np_report_ctx *ctx, const struct np_results_set *s) {
  const cJSON *metrics = np_json_pointer(s->suite, "/plan/exec/metrics");
  const cJSON *dims = np_json_pointer(s->suite, "/plan/dimensions"), *m;
  const struct np_results_config **cfg = np_report_plan_order(s);
  int rc = 0;
  if (cfg == NULL)
    return NP_ENOMEM;
  fprintf(ctx->md, "## %s: %s\n\n",
          np_json_get_string(s->suite, "suite", s->label),
          np_json_get_string(np_json_pointer(s->runs[0].doc, "/exec/program"),
                             "given", "program"));
  conditions(ctx, s);
  cJSON_ArrayForEach(m, metrics) {
    if ((rc = chart(ctx, s, cfg, s->nconfigs, m, dims)) != 0)
      break;
  }
  if (rc == 0)
    table(ctx, s, cfg, s->nconfigs, metrics, dims);
  if (rc == 0)
    rc = np_report_exec_series(ctx, s, cfg, s->nconfigs);
  free(cfg);
  return rc;
}
