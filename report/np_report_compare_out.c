/*
 * np_report_compare_out.c - the files of a comparison, from its document
 * alone (np_report_compare.h): Markdown with the sets side by side and
 * one table per metric, CSV (one row per configuration and metric), the
 * JSON itself, and two charts per metric and chunk of configurations.
 *
 * Intervals on the paired bars: the 95 % bootstrap interval of each
 * side's median (np_results_median_ci with that side's configuration
 * seed, the interval summary.json states) when every side of the chart
 * has at least 5 runs, else min/max - and the caption says which.  The
 * ratio chart grows its bars from the 1.0 line, with the ratio's interval
 * where both sides allow one.  Categories are named by the parts of the
 * ids that differ, the verdict under a changed one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_report_compare.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_results_compare.h"
#include "np_results_stats.h"
#include "np_stats.h"

#define CHUNK 12 /* configurations per chart */

/* Decimals a metric's medians are shown with. */
static int decimals_of(const char *metric) {
  return strcmp(metric, "roundtrips_per_sec") == 0 ? 0
         : strcmp(metric, "cpu_percent") == 0      ? 1
                                                   : 2;
}

/* Short category names: the '-' tokens of each id that not every id of
 * ids[0..n) has, joined by ", " (the chart puts each on its own line; the
 * whole id when none is left). */
static void short_names(const char *const *ids, size_t n, char (*out)[96]) {
  for (size_t i = 0; i < n; i++) {
    char buf[256];
    size_t k = 0;
    snprintf(buf, sizeof buf, "%s", ids[i]);
    out[i][0] = '\0';
    for (char *t = strtok(buf, "-"); t != NULL; t = strtok(NULL, "-")) {
      int everywhere = 1;
      for (size_t j = 0; j < n && everywhere; j++) {
        char other[256];
        snprintf(other, sizeof other, "-%s-", ids[j]);
        char tok[128];
        snprintf(tok, sizeof tok, "-%s-", t);
        everywhere = strstr(other, tok) != NULL;
      }
      if (!everywhere && n > 1)
        k += (size_t)snprintf(out[i] + k, k < 96 ? 96 - k : 0, "%s%s",
                              k ? ", " : "", t);
    }
    if (out[i][0] == '\0')
      snprintf(out[i], 96, "%s", ids[i]);
  }
}

/* The id tokens every one of ids[0..n) shares ("udp, p1024, c1, w1"), which
 * short_names leaves out of the categories: a chart names them in its
 * title so its payload and clients are not lost (issue 33).  "" for one
 * id (its category is the whole id). */
static void common_tokens(const char *const *ids, size_t n, char *out,
                          size_t len) {
  char buf[256];
  size_t k = 0;
  out[0] = '\0';
  if (n < 2)
    return;
  snprintf(buf, sizeof buf, "%s", ids[0]);
  for (char *t = strtok(buf, "-"); t != NULL; t = strtok(NULL, "-")) {
    int everywhere = 1;
    for (size_t j = 0; j < n && everywhere; j++) {
      char other[256], tok[128];
      snprintf(other, sizeof other, "-%s-", ids[j]);
      snprintf(tok, sizeof tok, "-%s-", t);
      everywhere = strstr(other, tok) != NULL;
    }
    if (everywhere && k < len)
      k += (size_t)snprintf(out + k, len - k, "%s%s", k ? ", " : "", t);
  }
}

/* The two display names of the sets (distinct: the series of a chart). */
static void set_names(const cJSON *doc, char *b, char *n, size_t len) {
  const char *lb = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(doc, "base"), "label", "base");
  const char *ln = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(doc, "new"), "label", "new");
  if (strcmp(lb, ln) == 0) {
    snprintf(b, len, "%s (base)", lb);
    snprintf(n, len, "%s (new)", ln);
  } else {
    snprintf(b, len, "%s", lb);
    snprintf(n, len, "%s", ln);
  }
}

static const cJSON *metric_of(const cJSON *cfg, const char *name) {
  return cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cfg, "metrics"), name);
}

/* The values of one side of a metric entry (malloc'd; NULL on no
 * memory) and their number. */
static double *side_values(const cJSON *side, size_t *n) {
  const cJSON *x, *vals = cJSON_GetObjectItemCaseSensitive(side, "values");
  double *v = malloc(((size_t)cJSON_GetArraySize(vals) + 1) * sizeof *v);
  *n = 0;
  cJSON_ArrayForEach(x, vals)
    if (v != NULL && cJSON_IsNumber(x))
      v[(*n)++] = x->valuedouble;
  return v;
}

/* ---- Markdown ------------------------------------------------------------ */

static void md_set_rows(FILE *md, const cJSON *b, const cJSON *n) {
  const cJSON *s[2] = {b, n};
  fprintf(md, "| | base | new |\n|---|---|---|\n");
  static const char *const keys[] = {"label", "suite", "status",
                                     "started_at"};
  static const char *const names[] = {"set", "suite", "suite status",
                                      "started"};
  for (size_t k = 0; k < 4; k++) { /* text from the sets: escaped */
    char a[600], b2[600];
    np_report__md_text(a, sizeof a, np_json_get_string(s[0], keys[k], ""));
    np_report__md_text(b2, sizeof b2, np_json_get_string(s[1], keys[k], ""));
    fprintf(md, "| %s | %s | %s |\n", names[k], a, b2);
  }
  fprintf(md, "| configurations, runs | %.0f, %.0f | %.0f, %.0f |\n",
          np_json_get_number(b, "configurations", 0),
          np_json_get_number(b, "runs", 0),
          np_json_get_number(n, "configurations", 0),
          np_json_get_number(n, "runs", 0));
  fprintf(md, "| machine |");
  for (int i = 0; i < 2; i++) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(s[i], "machine");
    char h[300], cpu[300], kr[300];
    np_report__md_text(h, sizeof h, np_json_get_string(m, "hostname", "?"));
    np_report__md_text(cpu, sizeof cpu,
                       np_json_get_string(m, "cpu_model", "?"));
    np_report__md_text(kr, sizeof kr,
                       np_json_get_string(m, "kernel_release", "?"));
    fprintf(md, " %s (%s, %.0f logical cores, kernel %s) |", h, cpu,
            np_json_get_number(m, "logical_cores", 0), kr);
  }
  fprintf(md, "\n| build |");
  for (int i = 0; i < 2; i++) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(s[i], "tool");
    fprintf(md, " netproof %s, source %.12s, binary %.12s |",
            np_json_get_string(t, "version", "?"),
            np_json_get_string(t, "source_sha256", ""),
            np_json_get_string(t, "binary_sha256", ""));
  }
  fprintf(md, "\n\n");
}

static void md_method(FILE *md, const cJSON *doc) {
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(doc, "options");
  const cJSON *map = cJSON_GetObjectItemCaseSensitive(op, "map");
  double compared = np_json_get_number(
      cJSON_GetObjectItemCaseSensitive(doc, "totals"), "compared", 0);
  char resamples[32];
  np_fmt_num(resamples, sizeof resamples,
             np_json_get_number(cJSON_GetObjectItemCaseSensitive(doc,
                                                                 "method"),
                                "resamples", 0),
             0);
  fprintf(md, "Configurations are matched by id");
  if (map != NULL)
    fprintf(md, " (in new's ids \"%s\" reads as \"%s\")",
            np_json_get_string(map, "from", ""),
            np_json_get_string(map, "to", ""));
  if (cJSON_HasObjectItem(op, "base_only"))
    fprintf(md, ", base's restricted to `%s`",
            np_json_get_string(op, "base_only", ""));
  if (cJSON_HasObjectItem(op, "new_only"))
    fprintf(md, ", new's to `%s`", np_json_get_string(op, "new_only", ""));
  fprintf(md,
          "; %.0f are compared.  Per metric: the ratio of medians new / "
          "base with its 95 %% percentile-bootstrap interval (%s "
          "resamples of each side; none below 5 runs a side), the "
          "two-sided Mann-Whitney U test, Holm's correction across the "
          "compared configurations; a change counts when the Holm-adjusted "
          "p is below %g and the ratio is more than %g %% from 1; a "
          "configuration whose run counts could not give a significant p in "
          "any order is inconclusive (docs/statistics.md).\n\n",
          compared, resamples,
          np_json_get_number(op, "alpha", 0),
          100 * np_json_get_number(op, "threshold", 0));
}

/* A verdict of a configuration that could not conclude (its reason in
 * parentheses after the word). */
static int is_inconclusive(const char *verdict) {
  return strncmp(verdict, "inconclusive", 12) == 0;
}

/* The gate, first: fail with its reasons; inconclusive with what could
 * not conclude (also under a failing gate); or pass. */
static void md_gate(FILE *md, const cJSON *doc) {
  const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "gate_reasons");
  const cJSON *unsure =
      cJSON_GetObjectItemCaseSensitive(doc, "gate_inconclusive");
  const cJSON *w;
  int first = 1;
  if (cJSON_GetArraySize(why) > 0) {
    fprintf(md, "**Gate: fail (netproof-report compare exits 1) -");
    cJSON_ArrayForEach(w, why) {
      fprintf(md, "%s %s", first ? "" : ";", cJSON_GetStringValue(w));
      first = 0;
    }
    fprintf(md, ".**\n\n");
  } else if (cJSON_GetArraySize(unsure) > 0) {
    fprintf(md, "**Gate: inconclusive (netproof-report compare exits 5 "
                "unless --allow-inconclusive) - no configuration regresses, "
                "but these run counts could not have shown one.**\n\n");
  } else {
    fprintf(md, "**Gate: pass - no configuration regresses beyond the "
                "noise threshold, none fails in new only, none is missing "
                "from new.**\n\n");
  }
  cJSON_ArrayForEach(w, unsure)
    fprintf(md, "**Inconclusive: %s.**\n\n", cJSON_GetStringValue(w));
}

static void md_metric(FILE *md, const cJSON *doc,
                      const struct np_results_compare_metric *mt) {
  const cJSON *cfg, *tot = cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(doc, "totals"),
                        mt->name);
  int dec = decimals_of(mt->name);
  fprintf(md, "## %s\n\n", mt->label);
  fprintf(md, "| Configuration | base median (runs) | new median (runs) | "
              "new / base | 95 %% interval | p (U test) | p (Holm) | "
              "verdict |\n|---|---:|---:|---:|---|---:|---:|---|\n");
  cJSON_ArrayForEach(cfg, cJSON_GetObjectItemCaseSensitive(doc,
                                                           "configurations")) {
    const cJSON *m = metric_of(cfg, mt->name);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "base");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "new");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(m, "ci95");
    char bm[48], nm[48], r[32], cis[64], p[32], ph[32];
    np_fmt_num(bm, sizeof bm, np_json_get_number(b, "median", NAN), dec);
    np_fmt_num(nm, sizeof nm, np_json_get_number(n, "median", NAN), dec);
    np_fmt_num(r, sizeof r, np_json_get_number(m, "ratio", NAN), 3);
    if (cJSON_IsObject(ci))
      snprintf(cis, sizeof cis, "%.3f to %.3f",
               np_json_get_number(ci, "lo", NAN),
               np_json_get_number(ci, "hi", NAN));
    else
      snprintf(cis, sizeof cis, "%s",
               np_json_get_string(m, "ci95_note",
                                  np_json_get_string(m, "note", "-")));
    snprintf(p, sizeof p, "%.3g", np_json_get_number(m, "p", NAN));
    snprintf(ph, sizeof ph, "%.3g", np_json_get_number(m, "p_holm", NAN));
    const char *v = np_json_get_string(m, "verdict", "not tested");
    int changed = strcmp(v, "no significant change") != 0 &&
                  strcmp(v, "not tested") != 0 && !is_inconclusive(v);
    const char *id = np_json_get_string(cfg, "id", "");
    const char *nid = np_json_get_string(cfg, "new_id", id);
    fprintf(md, "| `%s`%s%s%s | %s (%.0f) | %s (%.0f) | %s | %s | %s | %s | "
                "%s%s%s |\n",
            id, strcmp(id, nid) ? " (new: `" : "", strcmp(id, nid) ? nid : "",
            strcmp(id, nid) ? "`)" : "", bm, np_json_get_number(b, "n", 0),
            nm, np_json_get_number(n, "n", 0), r, cis,
            isfinite(np_json_get_number(m, "p", NAN)) ? p : "-",
            isfinite(np_json_get_number(m, "p_holm", NAN)) ? ph : "-",
            changed ? "**" : "", v, changed ? "**" : "");
  }
  fprintf(md, "\nTotals: %.0f %s, %.0f %s, %.0f no significant change",
          np_json_get_number(tot, mt->better, 0), mt->better,
          np_json_get_number(tot, mt->worse, 0), mt->worse,
          np_json_get_number(tot, "no significant change", 0));
  if (np_json_get_number(tot, "inconclusive", 0) > 0)
    fprintf(md, ", %.0f inconclusive",
            np_json_get_number(tot, "inconclusive", 0));
  fprintf(md, ".\n\n");
}

static void md_not_compared(FILE *md, const cJSON *doc) {
  const cJSON *ob = cJSON_GetObjectItemCaseSensitive(doc, "only_in_base");
  const cJSON *on = cJSON_GetObjectItemCaseSensitive(doc, "only_in_new");
  const cJSON *nc = cJSON_GetObjectItemCaseSensitive(doc, "not_compared");
  if (cJSON_GetArraySize(ob) + cJSON_GetArraySize(on) +
          cJSON_GetArraySize(nc) == 0)
    return;
  fprintf(md, "## Not compared\n\n| Configuration | why |\n|---|---|\n");
  const cJSON *x;
  cJSON_ArrayForEach(x, ob)
    fprintf(md, "| `%s` | only in base |\n", cJSON_GetStringValue(x));
  cJSON_ArrayForEach(x, on)
    fprintf(md, "| `%s` | only in new |\n", cJSON_GetStringValue(x));
  cJSON_ArrayForEach(x, nc)
    fprintf(md, "| `%s` | %s |\n", np_json_get_string(x, "id", ""),
            np_json_get_string(x, "reason", ""));
  fprintf(md, "\n");
}

/* ---- charts -------------------------------------------------------------- */

/* The paired-bar and ratio charts of metric mt over configurations
 * [from, from + n) of the document, as assets/<stem>.svg. */
static int charts_chunk(const cJSON *doc,
                        const struct np_results_compare_metric *mt,
                        size_t from, size_t n, const char *suffix,
                        struct np_ftree *out, FILE *md,
                        struct np_errbuf *eb) {
  const cJSON *cfgs = cJSON_GetObjectItemCaseSensitive(doc, "configurations");
  double *mid = calloc(3 * n, sizeof *mid), *lo = calloc(3 * n, sizeof *lo),
         *hi = calloc(3 * n, sizeof *hi);
  const char **cats = calloc(n, sizeof *cats), **ids = calloc(n, sizeof *ids);
  const char **notes = calloc(n, sizeof *notes);
  char (*names)[96] = calloc(n, sizeof *names);
  char (*lines)[128] = calloc(n, sizeof *lines);
  char *svg = NULL;
  int rc = NP_ENOMEM;
  if (!mid || !lo || !hi || !cats || !ids || !notes || !names || !lines)
    goto cleanup_chunk;
  int all_ci = 1, any_ratio_ci = 0;
  for (size_t i = 0; i < n; i++) {
    const cJSON *c = cJSON_GetArrayItem(cfgs, (int)(from + i));
    ids[i] = np_json_get_string(c, "id", "");
    const cJSON *m = metric_of(c, mt->name);
    for (int s = 0; s < 2; s++) {
      const cJSON *side = cJSON_GetObjectItemCaseSensitive(m, s ? "new"
                                                                : "base");
      all_ci &= np_json_get_number(side, "n", 0) >= NP_STATS_MIN_CI_N;
    }
  }
  short_names(ids, n, names);
  for (size_t i = 0; i < n; i++) {
    const cJSON *c = cJSON_GetArrayItem(cfgs, (int)(from + i));
    const cJSON *m = metric_of(c, mt->name);
    /* the first token is the label, the others and a verdict of change
     * the lines under it */
    const char *vd = np_json_get_string(m, "verdict", "");
    int changed = vd[0] && strcmp(vd, "no significant change") != 0 &&
                  !is_inconclusive(vd);
    char *comma = strstr(names[i], ", ");
    snprintf(lines[i], sizeof lines[i], "%s%s%s", comma ? comma + 2 : "",
             comma && changed ? ", " : "", changed ? vd : "");
    if (comma != NULL)
      *comma = '\0';
    cats[i] = names[i];
    notes[i] = lines[i];
    for (int s = 0; s < 2; s++) {
      const cJSON *side = cJSON_GetObjectItemCaseSensitive(m, s ? "new"
                                                                : "base");
      size_t k = 0;
      double *v = side_values(side, &k);
      double *M = &mid[s * n + i], *L = &lo[s * n + i], *H = &hi[s * n + i];
      *M = np_json_get_number(side, "median", NAN);
      *L = *H = NAN;
      if (v == NULL)
        goto cleanup_chunk;
      if (all_ci) {
        uint64_t seed = np_results_seed_of(
            np_json_get_string(c, s ? "new_id" : "id", ""));
        if (np_results_median_ci(v, k, seed, L, H) != 0)
          *L = *H = NAN;
      } else if (k > 1) {
        *L = np_json_get_number(side, "min", NAN);
        *H = np_json_get_number(side, "max", NAN);
      }
      free(v);
    }
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(m, "ci95");
    mid[2 * n + i] = np_json_get_number(m, "ratio", NAN);
    lo[2 * n + i] = cJSON_IsObject(ci) ? np_json_get_number(ci, "lo", NAN)
                                       : NAN;
    hi[2 * n + i] = cJSON_IsObject(ci) ? np_json_get_number(ci, "hi", NAN)
                                       : NAN;
    any_ratio_ci |= cJSON_IsObject(ci);
  }
  char bname[200], nname[200], sub[900], cap[300], rcap[300], stem[200],
      title[400], common[160];
  set_names(doc, bname, nname, sizeof bname);
  common_tokens(ids, n, common, sizeof common);
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(doc, "options");
  snprintf(sub, sizeof sub,
           "%s%s%sbase %s, new %s; alpha %g after Holm, noise threshold "
           "%g %%",
           common[0] ? "every configuration: " : "", common,
           common[0] ? "; " : "", bname, nname, np_json_get_number(op, "alpha", 0),
           100 * np_json_get_number(op, "threshold", 0));
  snprintf(cap, sizeof cap,
           all_ci ? "bars: medians; error bars: 95 %% percentile-bootstrap "
                    "confidence interval of each median (10,000 resamples)"
                  : "bars: medians; error bars: min/max of the runs, not "
                    "confidence intervals (fewer than 5 runs on a side)");
  snprintf(rcap, sizeof rcap,
           any_ratio_ci ? "bars: median(new) / median(base) from the "
                          "1.0 line; error bars: its 95 %% "
                          "percentile-bootstrap interval (none below 5 runs "
                          "a side)"
                        : "bars: median(new) / median(base) from the 1.0 "
                          "line; no intervals: fewer than 5 runs a side");
  struct np_chart_series ser[2] = {
      {.name = bname, .mid = mid, .lo = lo, .hi = hi, .style = 0},
      {.name = nname, .mid = mid + n, .lo = lo + n, .hi = hi + n,
       .style = 1}};
  struct np_chart ch = {.title = title, .subtitle = sub,
                        .xlabel = "configuration", .ylabel = mt->label,
                        .caption = cap, .ncat = n, .categories = cats,
                        .notes = notes, .nseries = 2,
                        .series = ser};
  const char *files[2] = {"", "-ratio"};
  for (int k = 0; k < 2; k++) {
    size_t len = 0;
    if (k == 1) {
      ser[0] = (struct np_chart_series){.name = "new / base",
                                        .mid = mid + 2 * n,
                                        .lo = lo + 2 * n, .hi = hi + 2 * n,
                                        .style = 2};
      ch.nseries = 1;
      ch.caption = rcap;
      ch.has_ref = 1;
      ch.ref = 1.0;
      ch.ref_note = "dashed line: 1.0, no change; below it new is lower, "
                    "above it higher";
      ch.ylabel = "new / base";
    }
    snprintf(title, sizeof title, "%s: %s", mt->label,
             k ? "new / base, ratio of medians" : "medians, base and new");
    snprintf(stem, sizeof stem, "assets/compare-%s%s%s.svg", mt->name,
             files[k], suffix);
    if ((rc = np_chart_render_svg(&ch, &svg, &len, eb)) != 0 ||
        (rc = np_ftree_add(out, stem, svg, len)) != 0)
      goto cleanup_chunk;
    free(svg);
    svg = NULL;
    fprintf(md, "![%s%s%s%s](%s)\n\n", title,
            common[0] ? " (every configuration: " : "", common,
            common[0] ? ")" : "", stem);
  }
  rc = 0;
cleanup_chunk:
  free(svg);
  free(mid);
  free(lo);
  free(hi);
  free(cats);
  free(ids);
  free(notes);
  free(names);
  free(lines);
  return rc;
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_num(FILE *f, const cJSON *o, const char *key) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
  if (cJSON_IsNumber(x))
    fprintf(f, ",%.17g", x->valuedouble);
  else
    fputc(',', f);
}

static void write_csv(FILE *f, const cJSON *doc) {
  fprintf(f, "config,new_config,metric,base_n,base_median,new_n,new_median,"
             "ratio,ci95_lo,ci95_hi,u,p,p_holm,verdict,regression\n");
  const cJSON *cfg, *m;
  cJSON_ArrayForEach(cfg, cJSON_GetObjectItemCaseSensitive(doc,
                                                           "configurations")) {
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(cfg, "metrics")) {
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "base");
      const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "new");
      const cJSON *ci = cJSON_GetObjectItemCaseSensitive(m, "ci95");
      fprintf(f, "%s,%s,%s", np_json_get_string(cfg, "id", ""),
              np_json_get_string(cfg, "new_id", ""), m->string);
      csv_num(f, b, "n");
      csv_num(f, b, "median");
      csv_num(f, n, "n");
      csv_num(f, n, "median");
      csv_num(f, m, "ratio");
      csv_num(f, ci, "lo");
      csv_num(f, ci, "hi");
      csv_num(f, m, "u");
      csv_num(f, m, "p");
      csv_num(f, m, "p_holm");
      fprintf(f, ",%s,%s\n", np_json_get_string(m, "verdict", ""),
              cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "regression"))
                  ? "true"
                  : "false");
    }
  }
}

/* ---- all of it ----------------------------------------------------------- */

static int add_stream(struct np_ftree *t, const char *path, char *buf,
                      size_t len) {
  int rc = buf ? np_ftree_add(t, path, buf, len) : NP_ENOMEM;
  free(buf);
  return rc;
}

int np_report_compare_render(const cJSON *doc, struct np_ftree **out,
                             struct np_errbuf *eb) {
  struct np_ftree *t = NULL;
  char *mdb = NULL, *csvb = NULL, *json = NULL;
  size_t mdl = 0, csvl = 0;
  int rc = np_ftree_new(&t);
  FILE *md = rc ? NULL : open_memstream(&mdb, &mdl);
  if (md == NULL) {
    np_ftree_free(t);
    return np_errbuf_set(eb, NP_ENOMEM, "compare: out of memory");
  }
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "base");
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "new");
  const cJSON *x;
  char nl[600], bl[600];
  np_report__md_text(nl, sizeof nl, np_json_get_string(n, "label", ""));
  np_report__md_text(bl, sizeof bl, np_json_get_string(b, "label", ""));
  fprintf(md, "# %s compared with %s\n\n", nl, bl);
  md_gate(md, doc);
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(doc, "differences"))
      fprintf(md, "**Not the same conditions: %s.**\n\n",
              cJSON_GetStringValue(x));
  const cJSON *side[2] = {b, n};
  for (int i = 0; i < 2; i++)
    if (strcmp(np_json_get_string(side[i], "status", ""), "complete") != 0)
      fprintf(md, "**The %s set is not complete (suite.json status \"%s\"): "
                  "configurations it lacks are listed below.**\n\n",
              i ? "new" : "base", np_json_get_string(side[i], "status", ""));
  md_set_rows(md, b, n);
  md_method(md, doc);
  size_t nc = (size_t)cJSON_GetArraySize(
      cJSON_GetObjectItemCaseSensitive(doc, "configurations"));
  const cJSON *mn;
  cJSON_ArrayForEach(mn, np_json_pointer(doc, "/options/metrics")) {
    const struct np_results_compare_metric *mt =
        np_results_compare_metric_find(cJSON_GetStringValue(mn));
    if (mt == NULL)
      continue;
    md_metric(md, doc, mt);
    for (size_t from = 0; rc == 0 && from < nc; from += CHUNK) {
      char suffix[32] = "";
      if (nc > CHUNK)
        snprintf(suffix, sizeof suffix, "-%zu", from / CHUNK + 1);
      rc = charts_chunk(doc, mt, from, nc - from < CHUNK ? nc - from : CHUNK,
                        suffix, t, md, eb);
    }
  }
  md_not_compared(md, doc);
  fclose(md);
  FILE *csv = open_memstream(&csvb, &csvl);
  if (csv != NULL) {
    write_csv(csv, doc);
    fclose(csv);
  }
  json = cJSON_Print(doc);
  if (rc == 0)
    rc = add_stream(t, "compare.md", mdb, mdl);
  else
    free(mdb);
  if (rc == 0)
    rc = add_stream(t, "compare.csv", csv ? csvb : NULL, csvl);
  else if (csv)
    free(csvb);
  if (rc == 0 && json != NULL) {
    size_t jl = strlen(json);
    char *j2 = realloc(json, jl + 2);
    if (j2 != NULL) {
      j2[jl] = '\n';
      j2[jl + 1] = '\0';
      json = NULL;
      rc = add_stream(t, "compare.json", j2, jl + 1);
    }
  }
  if (rc == 0 && json != NULL)
    rc = NP_ENOMEM;
  free(json);
  if (rc != 0) {
    np_ftree_free(t);
    return eb && eb->msg[0] ? rc
                            : np_errbuf_set(eb, rc, "compare: %s",
                                            np_strerror(rc));
  }
  *out = t;
  return 0;
}
