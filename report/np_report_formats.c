/*
 * np_report_formats.c - every table of report.json as CSV, and a compact
 * JSON summary (docs/report.md, "Formats").
 *
 * CSV: one file per table, tables/<table id>.csv, RFC 4180 quoting, a
 * header row.  A row's nested objects flatten to "key.sub" columns (the
 * statistics become "rtt_p99.median [µs]"), arrays of run ids to one
 * space-separated cell, anything else to its JSON text.  The unit a key
 * names (_per_sec, _us, _ms, _bytes, _percent, _seconds) moves out of the
 * name into brackets, as the SI symbol, so every physical column says its
 * unit.  Numbers keep full precision: CSV is for computing, the Markdown
 * tables are for reading.
 *
 * JSON: report-summary.json, one line: per set its label, folder, suite,
 * UTC start and end, self-check state, completeness and counts, and per
 * configuration its status (passed / excluded / missing), whether it is
 * unstable, and the medians of round trips/s, p99 RTT and CPU, taken
 * from the same report.json rows the pages show.
 */
#include "np_report_formats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_html.h"

/* Unit tokens of a key ("_us" in "rtt_p99_us"), their SI symbols. */
static const struct {
  const char *token;
  const char *unit;
} units[] = {{"_per_sec", "1/s"}, {"_us", "\xce\xbcs"}, {"_ms", "ms"},
             {"_bytes", "B"},     {"_percent", "%"},   {"_seconds", "s"}};

void np_report_column_name(char *buf, size_t len, const char *key) {
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    const char *p = strstr(key, units[i].token);
    size_t tl = strlen(units[i].token);
    if (p == NULL || (p[tl] != '\0' && p[tl] != '_' && p[tl] != '.'))
      continue;
    snprintf(buf, len, "%.*s%s [%s]", (int)(p - key), key, p + tl,
             units[i].unit);
    return;
  }
  snprintf(buf, len, "%s", key);
}

static void put_field(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\n\r") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void np_report_number_text(char *buf, size_t len, double v) {
  if (v == floor(v) && fabs(v) < 1e15) {
    snprintf(buf, len, "%.0f", v);
    return;
  }
  snprintf(buf, len, "%.15g", v);
  if (strtod(buf, NULL) != v)
    snprintf(buf, len, "%.17g", v);
}

int np_report_flatten(const cJSON *o, const char *prefix,
                      struct np_report_flat *fl) {
  const cJSON *e;
  cJSON_ArrayForEach(e, o) {
    if (fl->n == NP_REPORT_FLAT_MAX)
      return NP_ERANGE;
    char key[128];
    snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "",
             e->string ? e->string : "?");
    if (cJSON_IsObject(e)) {
      if (np_report_flatten(e, key, fl) != 0)
        return NP_ERANGE;
      continue;
    }
    char *v = fl->val[fl->n];
    v[0] = '\0';
    fl->is_num[fl->n] = 0;
    if (cJSON_IsNumber(e)) {
      np_report_number_text(v, 512, e->valuedouble);
      fl->num[fl->n] = e->valuedouble;
      fl->is_num[fl->n] = 1;
    } else if (cJSON_IsString(e))
      snprintf(v, 512, "%s", e->valuestring);
    else if (cJSON_IsBool(e))
      snprintf(v, 512, "%s", cJSON_IsTrue(e) ? "true" : "false");
    else if (cJSON_IsArray(e)) {
      const cJSON *x;
      size_t k = 0;
      int strings = 1;
      cJSON_ArrayForEach(x, e) { strings &= cJSON_IsString(x); }
      cJSON_ArrayForEach(x, e) {
        if (!strings)
          break;
        k += (size_t)snprintf(v + k, k < 512 ? 512 - k : 0, "%s%s",
                              k ? " " : "", x->valuestring);
      }
      if (!strings) {
        char *j = cJSON_PrintUnformatted(e);
        snprintf(v, 512, "%s", j ? j : "");
        free(j);
      }
    }
    snprintf(fl->key[fl->n], sizeof fl->key[0], "%s", key);
    fl->n++;
  }
  return 0;
}

/* One table as CSV text (*out malloc'd). */
static int table_csv(const cJSON *rows, char **out, size_t *len) {
  FILE *f = open_memstream(out, len);
  struct np_report_flat *fl = calloc(1, sizeof *fl),
                        *hdr = calloc(1, sizeof *hdr);
  if (f == NULL || fl == NULL || hdr == NULL) {
    if (f)
      fclose(f);
    free(fl);
    free(hdr);
    return NP_ENOMEM;
  }
  const cJSON *r;
  int rc = 0;
  cJSON_ArrayForEach(r, rows) { /* header: every key, first-seen order */
    fl->n = 0;
    rc |= np_report_flatten(r, "", fl);
    for (size_t i = 0; i < fl->n; i++) {
      size_t j = 0;
      while (j < hdr->n && strcmp(hdr->key[j], fl->key[i]) != 0)
        j++;
      if (j == hdr->n && hdr->n == NP_REPORT_FLAT_MAX)
        rc = NP_ERANGE;
      else if (j == hdr->n)
        snprintf(hdr->key[hdr->n++], sizeof hdr->key[0], "%s", fl->key[i]);
    }
  }
  for (size_t j = 0; j < hdr->n; j++) {
    char name[160];
    np_report_column_name(name, sizeof name, hdr->key[j]);
    if (j)
      fputc(',', f);
    put_field(f, name);
  }
  fputc('\n', f);
  cJSON_ArrayForEach(r, rows) {
    fl->n = 0;
    np_report_flatten(r, "", fl);
    for (size_t j = 0; j < hdr->n; j++) {
      if (j)
        fputc(',', f);
      for (size_t i = 0; i < fl->n; i++)
        if (strcmp(fl->key[i], hdr->key[j]) == 0) {
          put_field(f, fl->val[i]);
          break;
        }
    }
    fputc('\n', f);
  }
  free(fl);
  free(hdr);
  if (fclose(f) != 0)
    return NP_ENOMEM;
  return rc != 0 ? NP_ERANGE : 0;
}

static int add_csv(const cJSON *report, struct np_ftree *t) {
  const cJSON *tab, *tables = cJSON_GetObjectItemCaseSensitive(report,
                                                               "tables");
  cJSON_ArrayForEach(tab, tables) {
    char *csv = NULL, path[512];
    size_t len = 0;
    snprintf(path, sizeof path, "tables/%s.csv",
             np_json_get_string(tab, "id", "table"));
    int rc = table_csv(cJSON_GetObjectItemCaseSensitive(tab, "rows"), &csv,
                       &len);
    if (rc == 0)
      rc = np_ftree_add(t, path, csv, len);
    free(csv);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* The median of a row's statistic, or NULL. */
static void copy_median(cJSON *dst, const char *key, const cJSON *row) {
  const cJSON *m = np_json_pointer(cJSON_GetObjectItemCaseSensitive(row, key),
                                   "/median");
  if (cJSON_IsNumber(m))
    np_json_add_number(dst, key, m->valuedouble);
}

static cJSON *summary_json(const cJSON *report,
                           struct np_results_set *const *sets, size_t nsets) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "schema", "netproof/report-summary/1");
  cJSON_AddStringToObject(o, "title", np_json_get_string(report, "title", ""));
  cJSON *jsets = cJSON_AddArrayToObject(o, "sets");
  const cJSON *rs, *rsets = cJSON_GetObjectItemCaseSensitive(report, "sets");
  size_t i = 0;
  cJSON_ArrayForEach(rs, rsets) {
    if (i >= nsets)
      break;
    const struct np_results_set *s = sets[i++];
    const char *label = np_json_get_string(rs, "label", "");
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "label", label);
    cJSON_AddStringToObject(j, "folder", s->label);
    cJSON_AddStringToObject(j, "suite", np_json_get_string(rs, "suite", ""));
    cJSON_AddStringToObject(j, "started_at",
                            np_json_get_string(s->suite, "started_at", ""));
    cJSON_AddStringToObject(j, "ended_at",
                            np_json_get_string(s->suite, "ended_at", ""));
    int failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        rs, "self_check_failed"));
    cJSON_AddStringToObject(j, "self_check", failed ? "failed" : "clean");
    double missing = np_json_get_number(rs, "configurations_missing", 0);
    cJSON_AddBoolToObject(j, "complete", missing == 0);
    size_t passed = 0;
    for (size_t c = 0; c < s->nconfigs; c++)
      passed += s->configs[c].npassed;
    cJSON_AddNumberToObject(j, "runs", (double)s->nruns);
    cJSON_AddNumberToObject(j, "runs_passed", (double)passed);
    cJSON_AddNumberToObject(j, "configurations", (double)s->nconfigs);
    cJSON_AddNumberToObject(j, "configurations_missing", missing);
    cJSON *cfgs = cJSON_AddArrayToObject(j, "results");
    const cJSON *tab, *tables = cJSON_GetObjectItemCaseSensitive(report,
                                                                 "tables");
    cJSON_ArrayForEach(tab, tables) {
      const char *name = np_json_get_string(tab, "name", "");
      if (strcmp(np_json_get_string(tab, "set", ""), label) != 0 ||
          (strcmp(name, "throughput_latency_cpu") != 0 &&
           strcmp(name, "rudp_results") != 0))
        continue;
      const cJSON *r;
      cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(tab, "rows")) {
        cJSON *c = cJSON_CreateObject();
        int excl = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r,
                                                                 "excluded"));
        int miss = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r,
                                                                 "missing"));
        cJSON_AddStringToObject(c, "config",
                                np_json_get_string(r, "config", ""));
        cJSON_AddStringToObject(c, "status", miss   ? "missing"
                                             : excl ? "excluded"
                                                    : "passed");
        cJSON_AddBoolToObject(
            c, "unstable",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "unstable")));
        copy_median(c, "roundtrips_per_sec", r);
        copy_median(c, "rtt_p99_us", r);
        copy_median(c, "cpu_percent", r);
        cJSON_AddItemToArray(cfgs, c);
      }
    }
    cJSON_AddItemToArray(jsets, j);
  }
  return o;
}

int np_report_formats(const struct np_ftree *md,
                      struct np_results_set *const *sets, size_t nsets,
                      const struct np_report_opts *o, unsigned formats,
                      struct np_ftree **out, struct np_errbuf *eb) {
  size_t len = 0;
  const char *rj = np_ftree_get(md, "report.json", &len);
  cJSON *report = NULL;
  struct np_ftree *t = NULL;
  struct np_errbuf jeb = {{0}};
  if (rj == NULL)
    return np_errbuf_set(eb, NP_EPARSE, "report: no report.json to convert");
  if (np_json_parse(rj, len, NULL, &report, &jeb) != 0)
    return np_errbuf_set(eb, NP_EPARSE, "report: report.json: %s", jeb.msg);
  int rc = np_ftree_new(&t);
  for (size_t i = 0; rc == 0 && (formats & NP_REPORT_FMT_MD) &&
                     i < np_ftree_count(md);
       i++) {
    const char *p = np_ftree_path_at(md, i);
    size_t n;
    const char *d = np_ftree_get(md, p, &n);
    rc = np_ftree_add(t, p, d, n);
  }
  /* the page links every table's CSV */
  if (rc == 0 && (formats & (NP_REPORT_FMT_CSV | NP_REPORT_FMT_HTML)))
    rc = add_csv(report, t);
  if (rc == 0 && (formats & NP_REPORT_FMT_HTML)) {
    if (o == NULL || o->html == NULL)
      rc = np_errbuf_set(eb, NP_EINVAL, "report: html needs its run folders");
    else
      rc = np_report_html(report, md, sets, nsets, o->html, t, eb);
  }
  if (rc == 0 && (formats & NP_REPORT_FMT_JSON)) {
    cJSON *sum = summary_json(report, sets, nsets);
    char *txt = sum ? cJSON_PrintUnformatted(sum) : NULL;
    cJSON_Delete(sum);
    if (txt == NULL)
      rc = NP_ENOMEM;
    else {
      size_t n = strlen(txt);
      char *line = realloc(txt, n + 2);
      if (line == NULL) {
        free(txt);
        rc = NP_ENOMEM;
      } else {
        line[n] = '\n';
        line[n + 1] = '\0';
        rc = np_ftree_add(t, "report-summary.json", line, n + 1);
        free(line);
      }
    }
  }
  cJSON_Delete(report);
  if (rc != 0) {
    np_ftree_free(t);
    return np_errbuf_set(eb, rc, "report: %s", np_strerror(rc));
  }
  *out = t;
  return 0;
}
