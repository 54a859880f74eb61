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
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_results_exec.h"

#define NP_EXEC_MAX_CAT 64 /* categories (or series) one chart shows */

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

/* Index of text in list (adding it); -1 when the list is full. */
static int slot(char (*list)[64], size_t *n, const char *text) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(list[i], text) == 0)
      return (int)i;
  if (*n >= NP_EXEC_MAX_CAT)
    return -1;
  snprintf(list[*n], sizeof list[0], "%s", text);
  return (int)(*n)++;
}

static int excluded(const struct np_results_config *c) {
  return c->npassed < c->nruns;
}

/* One metric's chart. */
static int chart(struct np_report_ctx *ctx, const struct np_results_set *s,
                 const struct np_results_config **cfg, size_t ncfg,
                 const cJSON *metric, const cJSON *dims) {
  const char *name = np_json_get_string(metric, "name", "?");
  const char *unit = np_json_get_string(metric, "unit", "");
  const char *label = np_json_get_string(metric, "label", name);
  const char *better = np_json_get_string(metric, "better", NULL);
  const cJSON *d0 = cJSON_GetArrayItem(dims, 0);
  char (*cats)[64] = calloc(NP_EXEC_MAX_CAT, sizeof *cats);
  char (*sers)[64] = calloc(NP_EXEC_MAX_CAT, sizeof *sers);
  double *val = malloc(3 * NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT * sizeof *val);
  unsigned char *mark = calloc(NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT, 1);
  int *ci = calloc(ncfg + 1, sizeof *ci), *si = calloc(ncfg + 1, sizeof *si);
  /* with interval error bars val holds the interval; min / max here */
  double *mnv = malloc(NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT * sizeof *mnv);
  double *mxv = malloc(NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT * sizeof *mxv);
  char *svg = NULL;
  int rc = 0, use_ci = np_report_ci_bars(ctx, s);
  size_t nc = 0, ns = 0, maxn = 0, minn = 0;
  char reasons[256] = "";
  if (cats == NULL || sers == NULL || val == NULL || mark == NULL ||
      ci == NULL || si == NULL || mnv == NULL || mxv == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < 3 * NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT; i++)
    val[i] = NAN;
  for (size_t i = 0; i < NP_EXEC_MAX_CAT * NP_EXEC_MAX_CAT; i++)
    mnv[i] = mxv[i] = NAN;
  for (size_t i = 0; i < ncfg; i++) {
    char t[64], u[160] = "", part[64];
    const cJSON *d;
    dim_text(s, cfg[i], d0 ? d0->string : "", t, sizeof t);
    int k = 0;
    cJSON_ArrayForEach(d, dims) {
      if (k++ == 0)
        continue;
      dim_text(s, cfg[i], d->string, part, sizeof part);
      size_t used = strlen(u);
      snprintf(u + used, sizeof u - used, "%s%s %s", used ? ", " : "",
               d->string, part);
    }
    ci[i] = slot(cats, &nc, d0 ? t : "all");
    si[i] = slot(sers, &ns, u[0] ? u : label);
    if (ci[i] < 0 || si[i] < 0 || ns > 8)
      continue;
    if (excluded(cfg[i])) {
      mark[(size_t)si[i] * NP_EXEC_MAX_CAT + (size_t)ci[i]] = NP_CHART_EXCLUDED;
      char r[160];
      np_report_fail_reason(cfg[i], r, sizeof r);
      if (r[0] && strstr(reasons, r) == NULL &&
          strlen(reasons) + strlen(r) + 3 < sizeof reasons)
        snprintf(reasons + strlen(reasons), sizeof reasons - strlen(reasons),
                 "%s%s", reasons[0] ? "; " : "", r);
      continue;
    }
    double med, mn, mx;
    size_t n = np_results_exec_stat(cfg[i], name, 1, &med, &mn, &mx);
    maxn = n > maxn ? n : maxn;
    minn = minn == 0 || (n > 0 && n < minn) ? n : minn;
    double *v = &val[(size_t)si[i] * 3 * NP_EXEC_MAX_CAT];
    v[ci[i]] = med;
    v[NP_EXEC_MAX_CAT + ci[i]] = n > 1 ? mn : NAN;
    v[2 * NP_EXEC_MAX_CAT + ci[i]] = n > 1 ? mx : NAN;
    double lo, hi; /* --error-bars ci95: the interval, none below 5 runs */
    if (use_ci) {
      int cr = np_results_exec_ci(cfg[i], name, 1, &lo, &hi);
      v[NP_EXEC_MAX_CAT + ci[i]] = cr == 0 ? lo : NAN;
      v[2 * NP_EXEC_MAX_CAT + ci[i]] = cr == 0 ? hi : NAN;
      mnv[(size_t)si[i] * NP_EXEC_MAX_CAT + (size_t)ci[i]] = mn;
      mxv[(size_t)si[i] * NP_EXEC_MAX_CAT + (size_t)ci[i]] = n > 1 ? mx : NAN;
    }
  }
  if (ns > 8 || nc == 0)
    goto done; /* more series than a chart can tell apart: the table has it */
  const char *catp[NP_EXEC_MAX_CAT];
  struct np_chart_series ser[8];
  for (size_t i = 0; i < nc; i++)
    catp[i] = cats[i];
  for (size_t k = 0; k < ns; k++) {
    double *v = &val[k * 3 * NP_EXEC_MAX_CAT];
    ser[k] = (struct np_chart_series){sers[k], v, v + NP_EXEC_MAX_CAT,
                                      v + 2 * NP_EXEC_MAX_CAT,
                                      &mark[k * NP_EXEC_MAX_CAT],
                                      np_report_style(ctx, sers[k])};
  }
  const char *prog = np_json_get_string(
      np_json_pointer(s->runs[0].doc, "/exec/program"), "given", "program");
  const char *host = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, "machine"), "hostname",
      "unknown");
  char title[200], subtitle[300], ylabel[120], caption[200], stem[240];
  char xlabel[96], alt[600];
  snprintf(title, sizeof title, "%s: %s%s%s%s", prog, label,
           better ? " (" : "", better ? better : "",
           better ? " is better)" : "");
  snprintf(subtitle, sizeof subtitle, "suite %s, set %s, machine %s",
           np_json_get_string(s->suite, "suite", s->label),
           np_report_info(ctx, s)->name, host);
  snprintf(ylabel, sizeof ylabel, "%s%s%s", label, unit[0] ? " / " : "",
           unit);
  snprintf(xlabel, sizeof xlabel, "%s", d0 ? d0->string : "configuration");
  if (use_ci)
    np_chart_ci_caption(caption, sizeof caption, minn, maxn, "run", 0);
  else
    np_chart_runs_caption(caption, sizeof caption, minn, maxn, "run", 0);
  /* the set's slug prefixes the file (np_report_add_chart) */
  snprintf(stem, sizeof stem, "exec-%s", name);
  char nb[4][200], excl[400];
  const char *nvp[5];
  snprintf(excl, sizeof excl,
           "excluded: a repetition failed (%s); its records are kept, it is "
           "not ranked",
           reasons[0] ? reasons : "see the table");
  struct np_chart ch = {.title = title, .subtitle = subtitle,
                        .xlabel = xlabel, .ylabel = ylabel,
                        .caption = caption, .runs = (int)maxn,
                        .excluded_note = excl,
                        .notes_extra = np_report_chart_notes(s, nb, nvp, 5),
                        .stamp = np_report_stamp(ctx, s), .ncat = nc,
                        .categories = catp, .nseries = ns, .series = ser};
  size_t len = 0;
  cJSON *jc = NULL;
  snprintf(alt, sizeof alt, "%s: %s", title, subtitle);
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  if (rc == 0)
    rc = np_report_add_chart(ctx, stem, svg, len, alt, &jc);
  if (rc != 0)
    goto done;
  cJSON_AddStringToObject(jc, "set", np_report_info(ctx, s)->name);
  cJSON_AddStringToObject(jc, "title", title);
  cJSON_AddStringToObject(jc, "subtitle", subtitle);
  cJSON_AddStringToObject(jc, "y_label", ylabel);
  cJSON_AddBoolToObject(jc, "log_y", 0);
  cJSON_AddStringToObject(jc, "metric", name);
  if (use_ci)
    cJSON_AddStringToObject(jc, "error_bars", "ci95");
  cJSON *js = cJSON_AddArrayToObject(jc, "series");
  for (size_t i = 0; i < ncfg && js != NULL; i++) {
    if (ci[i] < 0 || si[i] < 0)
      continue;
    cJSON *b = cJSON_CreateObject();
    double *v = &val[(size_t)si[i] * 3 * NP_EXEC_MAX_CAT];
    cJSON_AddStringToObject(b, "series", sers[si[i]]);
    cJSON_AddStringToObject(b, "category", cats[ci[i]]);
    cJSON_AddStringToObject(b, "config", cfg[i]->id);
    cJSON_AddBoolToObject(b, "excluded", excluded(cfg[i]));
    size_t cell = (size_t)si[i] * NP_EXEC_MAX_CAT + (size_t)ci[i];
    double lo = use_ci ? mnv[cell] : v[NP_EXEC_MAX_CAT + ci[i]];
    double hi = use_ci ? mxv[cell] : v[2 * NP_EXEC_MAX_CAT + ci[i]];
    int one = isnan(use_ci ? hi : lo);
    np_json_add_number(b, "median", v[ci[i]]);
    np_json_add_number(b, "min", one ? v[ci[i]] : lo);
    np_json_add_number(b, "max", one ? v[ci[i]] : hi);
    if (use_ci && isfinite(v[NP_EXEC_MAX_CAT + ci[i]])) {
      cJSON *iv = cJSON_AddObjectToObject(b, "ci95");
      np_json_add_number(iv, "lo", v[NP_EXEC_MAX_CAT + ci[i]]);
      np_json_add_number(iv, "hi", v[2 * NP_EXEC_MAX_CAT + ci[i]]);
    } else if (use_ci) {
      cJSON_AddNullToObject(b, "ci95");
    }
    cJSON_AddItemToObject(b, "runs", np_report_run_ids(cfg[i], 0));
    cJSON_AddItemToArray(js, b);
  }
done:
  free(svg);
  free(cats);
  free(sers);
  free(val);
  free(mark);
  free(mnv);
  free(mxv);
  free(ci);
  free(si);
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
  cJSON *rows = np_report_new_table(ctx, "exec_metrics", s);
  fprintf(ctx->md, "| Configuration |");
  char cell[512], ucell[128], key[128];
  cJSON_ArrayForEach(d, dims) {
    np_report_md_cell(cell, sizeof cell, d->string, 0);
    fprintf(ctx->md, " %s |", cell);
  }
  fprintf(ctx->md, " Runs passed | Bounds held |");
  cJSON_ArrayForEach(m, metrics) {
    const char *unit = np_json_get_string(m, "unit", "");
    const char *better = np_json_get_string(m, "better", NULL);
    np_report_md_cell(cell, sizeof cell,
                      np_json_get_string(m, "label",
                                         np_json_get_string(m, "name", "")),
                      0);
    np_report_md_cell(ucell, sizeof ucell, unit, 0);
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
      np_report_md_cell(cell, sizeof cell, t2, 0);
      fprintf(ctx->md, " %s |", cell);
      cJSON_AddStringToObject(r, row_key(r, d->string, "dimension", key,
                                         sizeof key),
                              t2);
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
      double med, mn, mx;
      char txt[96];
      size_t n = np_results_exec_stat(c, name, 1, &med, &mn, &mx);
      /* counts (every value whole: lost datagrams) without decimals,
       * "64 (0-148)", not "64.00 (0.00-148.00)" nor "0.0000" */
      int whole = med == floor(med) && mn == floor(mn) && mx == floor(mx);
      int dec = n == 0 || whole ? 0
                : fabs(med) >= 100 ? 0
                : fabs(med) >= 1   ? 2
                                   : 4;
      if (excluded(c))
        snprintf(txt, sizeof txt, "excluded");
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
  np_report_md_cell(a, sizeof a, np_json_get_string(p, "given", "-"), 1);
  np_report_md_cell(b, sizeof b, np_json_get_string(p, "path", "-"), 1);
  fprintf(ctx->md, "| Program | `%s` (`%s`) |\n", a, b);
  np_report_md_cell(a, sizeof a, np_json_get_string(p, "sha256", "-"), 1);
  fprintf(ctx->md, "| Program SHA-256 | `%s` |\n", a);
  fprintf(ctx->md, "| Command template |");
  cJSON_ArrayForEach(e, cmd) {
    np_report_md_cell(a, sizeof a, cJSON_GetStringValue(e), 1);
    fprintf(ctx->md, " `%s`", a);
  }
  np_report_md_cell(a, sizeof a, np_json_get_string(m, "cpu_model", "-"), 0);
  np_report_md_cell(b, sizeof b,
                    np_json_get_string(m, "kernel_release", "-"), 0);
  fprintf(ctx->md, " |\n| Machine | %s, %.0f logical CPUs, kernel %s |\n",
          a, np_json_get_number(m, "logical_cores", NAN), b);
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
