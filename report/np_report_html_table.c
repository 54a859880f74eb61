/*
 * np_report_html_table.c - the tables of index.html (np_report_html.h).
 *
 * One <table class="data"> per report.json table, in its order, under the
 * set it belongs to (set "" at the top).  A row's fields are flattened as
 * the CSV does (np_report_flatten, units in brackets); a statistic
 * {median, min, max} is one column showing the median, its range in the
 * cell's title; run-id lists are not columns but the run list below the
 * row.  Each row is its own <tbody>, so sorting moves a configuration
 * with its runs.  The marks column says what the Markdown marks say (see
 * mark_text) with a footnote of the marks used.  A row of a configuration
 * gains the plan's dimensions (summary.json's options) and its runs, each
 * with its files copied into the page's folder or linked in place.
 */
#include "np_report_html.h"
#include "np_report_html_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"
#include "np_json.h"
#include "np_report_formats.h"
#include "np_report_int.h"

/* A run file larger than this is linked, not copied: 256 MiB. */
#define NP_HTML_FILE_MAX ((size_t)256 << 20)

/* ---- the set's context ----------------------------------------------- */

/* summary.json's options of configuration id, or NULL. */
static const cJSON *options_of(const struct np_results_set *s,
                               const char *id) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s->summary,
                                                         "configurations")) {
    if (strcmp(np_json_get_string(e, "id", ""), id) == 0)
      return cJSON_GetObjectItemCaseSensitive(e, "options");
  }
  return NULL;
}

/* A JSON scalar as text ("" for anything else). */
static void scalar_text(const cJSON *v, char *buf, size_t len) {
  if (cJSON_IsNumber(v))
    np_report_number_text(buf, len, v->valuedouble);
  else if (cJSON_IsString(v))
    snprintf(buf, len, "%s", v->valuestring);
  else
    buf[0] = '\0';
}

/* The value of plan dimension dim for a configuration with summary.json
 * options opts: the option of that name, or for a dimension of option
 * sets ({"io-model": "pool", "io-threads": 2}) the values of the set the
 * options match, space-separated; "" when none. */
static void dim_value(const struct np_results_set *s, const cJSON *opts,
                      const char *dim, char *buf, size_t len) {
  buf[0] = '\0';
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(opts, dim), *e, *kv;
  if (v != NULL) {
    scalar_text(v, buf, len);
    return;
  }
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(
                            np_json_pointer(s->suite, "/plan/dimensions"),
                            dim)) {
    if (!cJSON_IsObject(e))
      continue;
    int all = 1;
    cJSON_ArrayForEach(kv, e) {
      char a[64], b[64];
      scalar_text(kv, a, sizeof a);
      scalar_text(cJSON_GetObjectItemCaseSensitive(opts, kv->string), b,
                  sizeof b);
      all &= strcmp(a, b) == 0;
    }
    if (!all)
      continue;
    size_t k = 0;
    cJSON_ArrayForEach(kv, e) {
      char a[64];
      scalar_text(kv, a, sizeof a);
      k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s",
                            k ? " " : "", a);
    }
    return;
  }
}

static const struct np_results_config *config_of(
    const struct np_results_set *s, const char *id) {
  for (size_t i = 0; i < s->nconfigs; i++)
    if (strcmp(s->configs[i].id, id) == 0)
      return &s->configs[i];
  return NULL;
}

/* ---- run files ------------------------------------------------------- */

/* The runner's kernel snapshots of run r when the set stores them by
 * content (0.3 sets: rep-N.cmd.txt names kernel-snapshots/<sha256>.txt
 * by "kernel_before_sha256: " / "kernel_after_sha256: " lines); one <a>
 * each, copied into t like the run's own files.  0.2 sets keep them as
 * rep-N.kernel-before/after.txt, already linked by run_files. */
static int run_snapshots(FILE *f, const struct np_report_html__setctx *sc,
                         const struct np_results_config *c,
                         const struct np_results_run *r, struct np_ftree *t,
                         struct np_errbuf *eb) {
  static const char *const keys[2] = {"kernel_before_sha256: ",
                                      "kernel_after_sha256: "};
  static const char *const texts[2] = {"kernel-before", "kernel-after"};
  char cmd[PATH_MAX];
  snprintf(cmd, sizeof cmd, "%s/runs/%.200s/rep-%ld.cmd.txt", sc->dir, c->id,
           r->rep);
  char *text = NULL;
  size_t tlen = 0;
  struct np_errbuf quiet = {0};
  if (np_file_read_all(cmd, NP_HTML_FILE_MAX, &text, &tlen, &quiet) != 0)
    return 0; /* no command file: nothing to link */
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    const char *p = strstr(text, keys[k]);
    if (p == NULL)
      continue;
    p += strlen(keys[k]);
    char hex[65];
    size_t n = 0;
    while (n < 64 && isxdigit((unsigned char)p[n])) {
      hex[n] = p[n];
      n++;
    }
    hex[n] = 0;
    if (n != 64)
      continue;
    char path[PATH_MAX * 2], link[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/kernel-snapshots/%s.txt", sc->dir, hex);
    if (sc->relative) {
      snprintf(link, sizeof link, "%skernel-snapshots/%s.txt", sc->rel, hex);
    } else {
      snprintf(link, sizeof link, "runs/%.200s/kernel-snapshots/%s.txt",
               sc->label, hex);
      if (np_ftree_get(t, link, NULL) == NULL) {
        char *data = NULL;
        size_t len = 0;
        if ((rc = np_file_read_all(path, NP_HTML_FILE_MAX, &data, &len, eb)) ==
            0) {
          rc = np_ftree_add(t, link, data, len);
          free(data);
        }
      }
    }
    fputs(" <a href=\"", f);
    np_report_html_esc(f, link);
    fputs("\">", f);
    fputs(texts[k], f);
    fputs("</a>", f);
  }
  free(text);
  return rc;
}

/* Copy (or link) the files of run r: every file of runs/<config>/ named
 * rep-<n>.*; one <a> per file into f. */
static int run_files(FILE *f, const struct np_report_html__setctx *sc,
                     const struct np_results_config *c,
                     const struct np_results_run *r, struct np_ftree *t,
                     struct np_errbuf *eb) {
  char folder[PATH_MAX], prefix[64];
  snprintf(folder, sizeof folder, "%s/runs/%.200s", sc->dir, c->id);
  snprintf(prefix, sizeof prefix, "rep-%ld.", r->rep);
  DIR *d = opendir(folder);
  if (d == NULL)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", folder,
                         strerror(errno));
  struct dirent *e;
  char *names[64];
  size_t n = 0;
  int rc = 0;
  while ((e = readdir(d)) != NULL && rc == 0)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
      if (n == 64) /* more files than a run list links: refused */
        rc = np_errbuf_set(eb, NP_ERANGE, "%s: more than 64 files of "
                           "repetition %ld", folder, r->rep);
      else if ((names[n] = strdup(e->d_name)) == NULL)
        rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      else
        n++;
    }
  closedir(d);
  for (size_t i = 1; i < n; i++) /* sorted: the page is deterministic */
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  for (size_t i = 0; i < n; i++) {
    char link[PATH_MAX * 2];
    if (sc->relative) {
      snprintf(link, sizeof link, "%sruns/%.200s/%.200s", sc->rel, c->id,
               names[i]);
    } else {
      char path[PATH_MAX * 2];
      snprintf(path, sizeof path, "%s/%.200s", folder, names[i]);
      snprintf(link, sizeof link, "runs/%.200s/%.200s/%.200s", sc->label,
               c->id, names[i]);
      char *data = NULL;
      size_t len = 0;
      if (rc == 0 && (rc = np_file_read_all(path, NP_HTML_FILE_MAX, &data, &len,
                                         eb)) == 0) {
        if (np_ftree_get(t, link, NULL) == NULL)
          rc = np_ftree_add(t, link, data, len);
        free(data);
      }
    }
    fputs(i ? " " : "", f);
    fputs("<a href=\"", f);
    np_report_html_esc(f, link);
    fputs("\">", f);
    np_report_html_esc(f, names[i] + strlen(prefix));
    fputs("</a>", f);
    free(names[i]);
  }
  if (rc == 0)
    rc = run_snapshots(f, sc, c, r, t, eb);
  return rc;
}

/* The run list of configuration c, one row per run. */
static int runs_block(FILE *f, const struct np_report_html__setctx *sc,
                      const struct np_results_config *c, int ncols,
                      struct np_ftree *t, struct np_errbuf *eb) {
  fprintf(f, "<tr class=\"runs\"><td class=\"runs\" colspan=\"%d\"><details>"
             "<summary>%zu run%s, %zu passed</summary>\n<table>"
             "<thead><tr><th scope=\"col\">Run</th><th scope=\"col\">Status"
             "</th><th scope=\"col\">Failed checks</th>"
             "<th scope=\"col\">Round trips / s</th><th scope=\"col\">p50 / "
             "\xce\xbcs</th><th scope=\"col\">p99 / \xce\xbcs</th>"
             "<th scope=\"col\">CPU / %%</th><th scope=\"col\">Max RSS / MiB"
             "</th><th scope=\"col\">Files</th></tr></thead><tbody>\n",
          ncols, c->nruns, c->nruns == 1 ? "" : "s", c->npassed);
  int rc = 0;
  for (size_t i = 0; i < c->nruns && rc == 0; i++) {
    const struct np_results_run *r = &c->runs[i];
    fprintf(f, "<tr%s><th scope=\"row\">", r->passed ? "" : " class=\"failed\"");
    np_report_html_esc(f, r->id);
    fputs("</th><td>", f);
    np_report_html_esc(f, r->status ? r->status : "?");
    fputs("</td><td class=\"wrap\">", f);
    const cJSON *ch;
    int k = 0;
    cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(r->doc,
                                                            "checks")) {
      if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "passed")))
        continue;
      fputs(k++ ? "<br>" : "", f);
      np_report_html_esc(f, np_json_get_string(ch, "name", "?"));
      fputs(": ", f);
      np_report_html_esc(f, np_json_get_string(ch, "detail", ""));
    }
    fputs("</td>", f);
    double v[5] = {r->m[NP_M_RPS], r->m[NP_M_P50], r->m[NP_M_P99],
                   r->m[NP_M_CPU], r->m[NP_M_RSS] / 1048576.0};
    for (int j = 0; j < 5; j++) {
      char txt[64], exact[64];
      np_report_html_num(txt, sizeof txt, v[j]);
      np_report_number_text(exact, sizeof exact, v[j]);
      if (isfinite(v[j]))
        fprintf(f, "<td class=\"num\" data-value=\"%s\">%s</td>", exact, txt);
      else
        fputs("<td class=\"num\">-</td>", f);
    }
    fputs("<td>", f);
    rc = run_files(f, sc, c, r, t, eb);
    fputs("</td></tr>\n", f);
  }
  fputs("</tbody></table></details></td></tr>\n", f);
  return rc;
}

/* ---- tables ---------------------------------------------------------- */

/* One column of a table. */
struct col {
  char key[128];   /* flattened key; a statistic's base key            */
  char head[160];  /* header text with its unit                       */
  int stat;        /* 1: key.median / .min / .max                      */
  int dim;         /* 1: a plan dimension from summary.json            */
  int num;         /* 1: numeric (right-aligned)                       */
};

#define MAX_COLS 64

static int col_index(struct col *cols, int ncol, const char *key) {
  for (int i = 0; i < ncol; i++)
    if (strcmp(cols[i].key, key) == 0)
      return i;
  return -1;
}

/* The columns of rows: the plan's dimensions first (rows with a
 * config), then every field in first-seen order. */
static int columns(const cJSON *rows, const cJSON *dims, struct col *cols,
                   struct np_report_flat *fl) {
  int ncol = 0, has_config = 0;
  const cJSON *r, *d;
  cJSON_ArrayForEach(r, rows) {
    has_config |= cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "config"));
  }
  if (has_config)
    cJSON_ArrayForEach(d, dims) {
      if (ncol < MAX_COLS) {
        struct col *c = &cols[ncol++];
        memset(c, 0, sizeof *c);
        snprintf(c->key, sizeof c->key, "%s", d->string);
        snprintf(c->head, sizeof c->head, "%s", d->string);
        c->dim = 1;
      }
    }
  cJSON_ArrayForEach(r, rows) {
    fl->n = 0;
    np_report_flatten(r, "", fl);
    for (size_t i = 0; i < fl->n; i++) {
      char key[128];
      snprintf(key, sizeof key, "%s", fl->key[i]);
      int stat = 0;
      char *dot = strrchr(key, '.');
      if (dot && (!strcmp(dot, ".median") || !strcmp(dot, ".min") ||
                  !strcmp(dot, ".max"))) {
        *dot = '\0';
        stat = 1;
      }
      if (!strcmp(key, "runs") || !strcmp(key, "runs_ids"))
        continue; /* run ids: the run list, not a column */
      int j = col_index(cols, ncol, key);
      if (j < 0 && ncol == MAX_COLS)
        return -1; /* more fields than a page table holds: refused */
      if (j < 0) {
        j = ncol++;
        memset(&cols[j], 0, sizeof cols[j]);
        snprintf(cols[j].key, sizeof cols[j].key, "%s", key);
        np_report_column_name(cols[j].head, sizeof cols[j].head, key);
        cols[j].stat = stat;
      }
      if (j >= 0 && fl->is_num[i])
        cols[j].num = 1;
    }
  }
  return ncol;
}

/* The marks of a row, as the Markdown tables give them; *used collects
 * which ones appear (bits: 1 unstable, 2 excluded, 4 missing, 8 n/m,
 * 16 interval target missed).  c: the row's configuration, or NULL. */
static void mark_text(const cJSON *r, const struct np_report_html__setctx *sc,
                      const struct np_results_config *c, char *buf,
                      size_t len, unsigned *used) {
  size_t k = 0;
  buf[0] = '\0';
  double passed = np_json_get_number(r, "runs_passed", NAN),
         total = np_json_get_number(r, "runs_total", NAN);
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "missing"))) {
    k += (size_t)snprintf(buf + k, len - k, "missing");
    *used |= 4;
  } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "excluded"))) {
    char why[120] = "";
    if (c != NULL)
      np_report__fail_reason(c, why, sizeof why);
    k += (size_t)snprintf(buf + k, len - k, "excluded (%s)",
                          why[0] ? why : "failed");
    *used |= 2;
  }
  if (k < len &&
      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "unstable"))) {
    k += (size_t)snprintf(buf + k, len - k, "%s\xe2\x80\xa0", k ? " " : "");
    *used |= 1;
  }
  if (k < len && sc != NULL && c != NULL &&
      np_report__target_missed(sc->s, c->id)) {
    k += (size_t)snprintf(buf + k, len - k, "%s\xe2\x80\xa1", k ? " " : "");
    *used |= 16;
  }
  if (k < len && isfinite(passed) && isfinite(total) && passed < total) {
    snprintf(buf + k, len - k, "%s%.0f/%.0f", k ? " " : "", passed, total);
    *used |= 8;
  }
}

/* One cell of row r for column c. */
static void cell(FILE *f, const cJSON *r, const struct col *c,
                 const struct np_report_html__setctx *sc, const cJSON *opts) {
  const cJSON *v = NULL;
  char exact[64], txt[64];
  if (c->dim) {
    char d[128];
    dim_value(sc->s, opts, c->key, d, sizeof d);
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(opts, c->key);
    if (cJSON_IsNumber(raw)) {
      np_report_html_num(txt, sizeof txt, raw->valuedouble);
      fprintf(f, "<td class=\"num\" data-value=\"%s\">%s</td>", d, txt);
    } else {
      fputs("<td data-value=\"", f);
      np_report_html_esc(f, d);
      fputs("\">", f);
      np_report_html_esc(f, d[0] ? d : "-");
      fputs("</td>", f);
    }
    return;
  }
  {
    const cJSON *x = r;
    char key[128], *p, *save = NULL;
    snprintf(key, sizeof key, "%s", c->key);
    for (p = strtok_r(key, ".", &save); p && x; p = strtok_r(NULL, ".", &save))
      x = cJSON_GetObjectItemCaseSensitive(x, p);
    v = c->stat && cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x,
                                                                    "median")
                                     : x;
    if (c->stat && cJSON_IsObject(x)) {
      double lo = np_json_get_number(x, "min", NAN),
             hi = np_json_get_number(x, "max", NAN);
      if (cJSON_IsNumber(v)) {
        np_report_number_text(exact, sizeof exact, v->valuedouble);
        np_report_html_num(txt, sizeof txt, v->valuedouble);
        char a[64], b[64];
        np_report_html_num(a, sizeof a, lo);
        np_report_html_num(b, sizeof b, hi);
        fprintf(f, "<td class=\"num\" data-value=\"%s\" title=\"median; min "
                   "%s, max %s\">%s</td>", exact, a, b, txt);
        return;
      }
    }
  }
  if (cJSON_IsNumber(v)) {
    np_report_number_text(exact, sizeof exact, v->valuedouble);
    np_report_html_num(txt, sizeof txt, v->valuedouble);
    fprintf(f, "<td class=\"num\" data-value=\"%s\">%s</td>", exact, txt);
  } else if (cJSON_IsString(v)) {
    fputs(strlen(v->valuestring) > 40 ? "<td class=\"wrap\">" : "<td>", f);
    np_report_html_esc(f, v->valuestring);
    fputs("</td>", f);
  } else if (cJSON_IsBool(v)) {
    fprintf(f, "<td>%s</td>", cJSON_IsTrue(v) ? "yes" : "no");
  } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    char *j = cJSON_PrintUnformatted(v);
    fputs("<td>", f);
    np_report_html_esc(f, j ? j : "");
    fputs("</td>", f);
    free(j);
  } else {
    fputs("<td>-</td>", f);
  }
}

/* Distinct values of dimension column c over rows, as <option>s. */
static void dim_select(FILE *f, const char *tid, int ci, const struct col *c,
                       const cJSON *rows, const struct np_report_html__setctx *sc) {
  char seen[32][64];
  size_t n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    char t[64];
    dim_value(sc->s, options_of(sc->s, np_json_get_string(r, "config", "")),
              c->key, t, sizeof t);
    if (t[0] == '\0')
      continue;
    size_t i = 0;
    while (i < n && strcmp(seen[i], t) != 0)
      i++;
    if (i == n && n < 32)
      snprintf(seen[n++], sizeof seen[0], "%s", t);
  }
  fprintf(f, " <label>%s", "");
  np_report_html_esc(f, c->key);
  fprintf(f, " <select hidden data-filter=\"%s\" data-col=\"%d\"><option "
             "value=\"\">all</option>", tid, ci);
  for (size_t i = 0; i < n; i++) {
    fputs("<option value=\"", f);
    np_report_html_esc(f, seen[i]);
    fputs("\">", f);
    np_report_html_esc(f, seen[i]);
    fputs("</option>", f);
  }
  fputs("</select></label>", f);
}

int np_report_html__table(FILE *f, const cJSON *tab,
                          const struct np_report_html__setctx *sc,
                 struct np_ftree *t, struct np_errbuf *eb) {
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(tab, "rows");
  const cJSON *dims = sc ? np_json_pointer(sc->s->suite, "/plan/dimensions")
                         : NULL;
  struct col *cols = calloc(MAX_COLS, sizeof *cols);
  struct np_report_flat *fl = calloc(1, sizeof *fl);
  int rc = 0;
  if (cols == NULL || fl == NULL) {
    free(cols);
    free(fl);
    return NP_ENOMEM;
  }
  int ncol = columns(rows, dims, cols, fl);
  if (ncol < 0) {
    free(cols);
    free(fl);
    return np_errbuf_set(eb, NP_ERANGE, "html: table %s has more than %d "
                         "columns", np_json_get_string(tab, "id", "?"),
                         MAX_COLS);
  }
  char tid[200];
  np_report_html__idtext(tid, sizeof tid, "t-", np_json_get_string(tab, "id", "table"));
  fputs("<h3>", f);
  np_report_html_esc(f, np_json_get_string(tab, "name", "table"));
  fputs("</h3>\n<div class=\"filters\">", f);
  fprintf(f, "<input hidden type=\"search\" placeholder=\"filter rows\" "
             "aria-label=\"filter rows\" data-filter=\"%s\">", tid);
  for (int i = 0; sc && i < ncol; i++)
    if (cols[i].dim)
      dim_select(f, tid, i, &cols[i], rows, sc);
  fprintf(f, " <a href=\"tables/%s.csv\">CSV</a></div>\n", tid + 2);
  fprintf(f, "<div class=\"scroll\"><table class=\"data\" id=\"%s\">\n"
             "<thead><tr>", tid);
  for (int i = 0; i < ncol; i++) { /* data-key: the report.json field */
    fprintf(f, "<th scope=\"col\" aria-sort=\"none\" data-%s=\"",
            cols[i].dim ? "dim" : cols[i].stat ? "stat" : "key");
    np_report_html_esc(f, cols[i].key);
    fputs("\"><button type=\"button\">", f);
    np_report_html_esc(f, cols[i].head);
    fputs("</button></th>", f);
  }
  /* the marks column only where a row can carry a mark */
  unsigned used = 0;
  const cJSON *r;
  int marks_col = 0;
  cJSON_ArrayForEach(r, rows) {
    marks_col |= cJSON_HasObjectItem(r, "runs_passed") ||
                 cJSON_HasObjectItem(r, "excluded") ||
                 cJSON_HasObjectItem(r, "unstable") ||
                 cJSON_HasObjectItem(r, "missing");
  }
  if (marks_col)
    fputs("<th scope=\"col\" aria-sort=\"none\"><button type=\"button\">"
          "marks</button></th>", f);
  fputs("</tr></thead>\n", f);
  cJSON_ArrayForEach(r, rows) {
    const char *cid = np_json_get_string(r, "config", NULL);
    const cJSON *opts = sc && cid ? options_of(sc->s, cid) : NULL;
    const struct np_results_config *c = sc && cid ? config_of(sc->s, cid)
                                                  : NULL;
    char marks[256];
    mark_text(r, sc, c, marks, sizeof marks, &used);
    fprintf(f, "<tbody><tr%s>", marks[0] && strstr(marks, "excluded")
                                    ? " class=\"failed\"" : "");
    for (int i = 0; i < ncol; i++)
      cell(f, r, &cols[i], sc, opts);
    if (marks_col) {
      fputs("<td class=\"mark wrap\">", f);
      np_report_html_esc(f, marks);
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
    if (c != NULL && rc == 0)
      rc = runs_block(f, sc, c, ncol + marks_col, t, eb);
    fputs("</tbody>\n", f);
  }
  fputs("</table></div>\n", f);
  if (used)
    fprintf(f, "<p class=\"foot\">%s%s%s%s%s</p>\n",
            used & 1 ? "\xe2\x80\xa0 unstable: the round trips/s of its runs "
                       "spread over the set's limit. " : "",
            used & 2 ? "excluded: a run failed a check; not ranked. " : "",
            used & 4 ? "missing: planned, no run in the set. " : "",
            used & 8 ? "n/m: n of m runs passed. " : "",
            used & 16 ? "\xe2\x80\xa1 interval target missed: the "
                        "configuration ran its maximum repetitions "
                        "(until-stable) before its interval was within the "
                        "plan's target." : "");
  free(cols);
  free(fl);
  return rc;
}

