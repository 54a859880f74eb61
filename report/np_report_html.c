/*
 * np_report_html.c - index.html from report.json, the Markdown report's
 * SVGs and the loaded sets (see np_report_html.h).
 *
 * Tables: one <table class="data"> per report.json table, in its order,
 * under the set it belongs to (set "" at the top).  A row's fields are
 * flattened as the CSV does (np_report_flatten, units in brackets); a
 * statistic {median, min, max} is one column showing the median, its
 * range in the cell's title; run-id lists are not columns but the run
 * list below the row.  Each row is its own <tbody>, so sorting moves a
 * configuration with its runs.  The marks column says what the Markdown
 * marks say (see mark_text) with a footnote of the marks used.
 */
#include "np_report_html.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_report_formats.h"
#include "np_report_int.h"
#include "np_sha256.h"

/* A run file larger than this is linked, not copied: 256 MiB. */
#define NP_HTML_FILE_MAX ((size_t)256 << 20)

/* ---- text ---------------------------------------------------------- */


void np_report_html_esc(FILE *f, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      if (c < 0x20 && c != '\n' && c != '\t')
        fputs("\xef\xbf\xbd", f);
      else
        fputc(c, f);
    }
  }
}

/* A page-unique id from text: letters, digits, '-', '_' and '.'. */
static void idtext(char *buf, size_t len, const char *prefix, const char *s) {
  size_t k = (size_t)snprintf(buf, len, "%s", prefix);
  for (; s && *s && k + 1 < len; s++)
    buf[k++] = (isalnum((unsigned char)*s) || *s == '-' || *s == '_' ||
                *s == '.') ? *s : '_';
  buf[k < len ? k : len - 1] = '\0';
}

void np_report_html_num(char *buf, size_t len, double v) {
  if (!isfinite(v)) {
    snprintf(buf, len, "-");
  } else if (fabs(v) >= 10000) {
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", fabs(v));
    size_t n = strlen(raw), k = 0;
    if (v < 0 && k + 1 < len)
      buf[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < len; i++) {
      if (i > 0 && (n - i) % 3 == 0)
        buf[k++] = ',';
      buf[k++] = raw[i];
    }
    buf[k] = '\0';
  } else if (v == floor(v)) {
    snprintf(buf, len, "%.0f", v);
  } else {
    snprintf(buf, len, "%.4g", v);
  }
}

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

/* What the page links a run file by: a copy under runs/<set>/ or the
 * results folder seen from the output folder (rel, ends in '/'). */
struct setctx {
  const struct np_results_set *s;
  const char *label;  /* the set's label in report.json              */
  const char *dir;    /* its results folder                          */
  char rel[PATH_MAX]; /* link_relative: dir seen from the output     */
  int relative;       /* link into dir instead of copying            */
};

/* Absolute form of path (which may not exist yet: its parent must). */
static int absolute(const char *path, char *out) {
  char buf[PATH_MAX], parent[PATH_MAX];
  if (realpath(path, out) != NULL)
    return 0;
  if (strlen(path) >= sizeof buf)
    return NP_ERANGE;
  memcpy(buf, path, strlen(path) + 1);
  char *slash = strrchr(buf, '/');
  const char *base = slash ? slash + 1 : buf;
  if (slash != NULL)
    *slash = '\0';
  if (realpath(slash == NULL ? "." : slash == buf ? "/" : buf, parent) ==
      NULL)
    return np_err_from_errno(errno);
  size_t pl = strcmp(parent, "/") == 0 ? 0 : strlen(parent), bl = strlen(base);
  if (pl + 1 + bl >= PATH_MAX)
    return NP_ERANGE;
  memcpy(out, parent, pl);
  out[pl] = '/';
  memcpy(out + pl + 1, base, bl + 1);
  return 0;
}

/* to seen from from (both absolute folders), with a trailing '/'. */
static void relpath(const char *from, const char *to, char *out, size_t len) {
  size_t common = 0, i = 0;
  for (; from[i] && from[i] == to[i]; i++)
    if (from[i] == '/')
      common = i;
  if (from[i] == '\0' && (to[i] == '/' || to[i] == '\0'))
    common = i;
  else if (to[i] == '\0' && from[i] == '/')
    common = i;
  size_t k = 0;
  out[0] = '\0';
  for (const char *p = from + common; *p; p++)
    if (*p == '/')
      k += (size_t)snprintf(out + k, k < len ? len - k : 0, "../");
  const char *rest = to + common + (to[common] == '/');
  if (*rest)
    snprintf(out + k, k < len ? len - k : 0, "%s/", rest);
}

/* ---- run files ------------------------------------------------------- */

/* Copy (or link) the files of run r: every file of runs/<config>/ named
 * rep-<n>.*; one <a> per file into f. */
static int run_files(FILE *f, const struct setctx *sc,
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
  return rc;
}

/* The run list of configuration c, one row per run. */
static int runs_block(FILE *f, const struct setctx *sc,
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
static void mark_text(const cJSON *r, const struct setctx *sc,
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
      np_report_fail_reason(c, why, sizeof why);
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
      np_report_target_missed(sc->s, c->id)) {
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
                 const struct setctx *sc, const cJSON *opts) {
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
                       const cJSON *rows, const struct setctx *sc) {
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

static int table(FILE *f, const cJSON *tab, const struct setctx *sc,
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
  idtext(tid, sizeof tid, "t-", np_json_get_string(tab, "id", "table"));
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

/* ---- charts ---------------------------------------------------------- */

/* data/<stem>.csv: every point of chart c. */
static int chart_csv(const cJSON *c, const char *stem, struct np_ftree *t) {
  char *buf = NULL, path[300];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NP_ENOMEM;
  fputs("series,category,config,excluded,median,min,max,runs\n", f);
  const cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c, "series")) {
    char m[3][64];
    static const char *const k[3] = {"median", "min", "max"};
    for (int i = 0; i < 3; i++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, k[i]);
      if (cJSON_IsNumber(v))
        np_report_number_text(m[i], sizeof m[i], v->valuedouble);
      else
        m[i][0] = '\0';
    }
    fprintf(f, "\"%s\",\"%s\",\"%s\",%s,%s,%s,%s,\"",
            np_json_get_string(p, "series", ""),
            np_json_get_string(p, "category", ""),
            np_json_get_string(p, "config", ""),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "excluded"))
                ? "true" : "false", m[0], m[1], m[2]);
    const cJSON *id;
    int n = 0;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(p, "runs")) {
      if (cJSON_IsString(id))
        fprintf(f, "%s%s", n++ ? " " : "", id->valuestring);
    }
    fputs("\"\n", f);
  }
  if (fclose(f) != 0)
    return NP_ENOMEM;
  snprintf(path, sizeof path, "data/%s.csv", stem);
  int rc = np_ftree_add(t, path, buf, len);
  free(buf);
  return rc;
}

static int chart(FILE *f, const cJSON *c, const struct np_ftree *md,
                 struct np_ftree *t) {
  const char *file = np_json_get_string(c, "file", "");
  size_t len = 0;
  const char *svg = np_ftree_get(md, file, &len);
  char stem[256];
  const char *base = strrchr(file, '/');
  snprintf(stem, sizeof stem, "%s", base ? base + 1 : file);
  char *dot = strrchr(stem, '.');
  if (dot)
    *dot = '\0';
  fputs("<figure>\n", f);
  if (svg != NULL) {
    const char *start = strstr(svg, "<svg");
    size_t off = start ? (size_t)(start - svg) : len;
    if (start != NULL) { /* a name for readers of the page without sight */
      fputs("<svg role=\"img\" aria-label=\"", f);
      np_report_html_esc(f, np_json_get_string(c, "title", ""));
      fputs(": ", f);
      np_report_html_esc(f, np_json_get_string(c, "subtitle", ""));
      fputs("\"", f);
      off += 4;
    }
    fwrite(svg + off, 1, len - off, f);
  } else {
    fputs("<p class=\"bad\">chart missing from the report</p>", f);
  }
  fputs("\n<figcaption><strong>", f);
  np_report_html_esc(f, np_json_get_string(c, "title", ""));
  fputs("</strong>: ", f);
  np_report_html_esc(f, np_json_get_string(c, "subtitle", ""));
  fprintf(f, " (<a href=\"data/%s.csv\">data</a>)</figcaption>\n</figure>\n",
          stem);
  return chart_csv(c, stem, t);
}

/* ---- the page -------------------------------------------------------- */

/* "sha256-BASE64" of js into out. */
static int hash_of(const char *js, char *out, size_t len) {
  char hex[NP_SHA256_HEX_SIZE];
  unsigned char raw[32];
  int rc = np_sha256_buf(js, strlen(js), hex);
  if (rc != 0)
    return rc;
  for (int i = 0; i < 32; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    raw[i] = (unsigned char)v;
  }
  unsigned char b64[64];
  EVP_EncodeBlock(b64, raw, 32);
  snprintf(out, len, "sha256-%s", (char *)b64);
  return 0;
}

int np_report_html_script_hash(char *out, size_t len) {
  char a[80], b[80]; /* "sha256-" + 44 base64 characters */
  int rc = hash_of(np_report_html_guard_js, a, sizeof a);
  if (rc == 0)
    rc = hash_of(np_report_html_js, b, sizeof b);
  if (rc == 0)
    snprintf(out, len, "%s' '%s", a, b); /* the template quotes the ends */
  return rc;
}

static void set_header(FILE *f, const cJSON *rs, const struct setctx *sc) {
  const char *label = np_json_get_string(rs, "label", "");
  char sid[200];
  idtext(sid, sizeof sid, "set-", label);
  fprintf(f, "<section id=\"%s\">\n<h2>", sid);
  np_report_html_esc(f, label);
  fputs(" <small>(suite ", f);
  np_report_html_esc(f, np_json_get_string(rs, "suite", ""));
  fputs(")</small></h2>\n", f);
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rs, "self_check_failed")))
    fputs("<p class=\"banner\">SELF-CHECK FAILED: rendered with --force; "
          "its numbers are not evidence.</p>\n", f);
  else
    fputs("<p>Self-check: <span class=\"ok\">clean</span> (every number of "
          "the set re-derived from its records).</p>\n", f);
  double missing = np_json_get_number(rs, "configurations_missing", 0);
  if (missing > 0)
    fprintf(f, "<p class=\"banner\">INCOMPLETE: %.0f of %.0f configurations "
               "have no run.</p>\n", missing,
            np_json_get_number(rs, "configurations", 0));
  const cJSON *tool = sc->s->nruns ? cJSON_GetObjectItemCaseSensitive(
                                         sc->s->runs[0].doc, "tool")
                                   : NULL;
  const cJSON *mach = sc->s->nruns ? cJSON_GetObjectItemCaseSensitive(
                                         sc->s->runs[0].doc, "machine")
                                   : NULL;
  fputs("<table class=\"kv\"><tbody><tr><th scope=\"row\">Runs</th><td>", f);
  fprintf(f, "%.0f runs of %.0f configurations", np_json_get_number(rs, "runs",
                                                                    0),
          np_json_get_number(rs, "configurations", 0));
  fputs("</td></tr><tr><th scope=\"row\">Source SHA-256</th><td><code>", f);
  np_report_html_esc(f, np_json_get_string(tool, "source_sha256", "-"));
  fputs("</code> (netproof ", f);
  np_report_html_esc(f, np_json_get_string(tool, "version", "?"));
  fputs(")</td></tr><tr><th scope=\"row\">Machine</th><td>", f);
  np_report_html_esc(f, np_json_get_string(mach, "hostname", "-"));
  fputs("</td></tr></tbody></table>\n", f);
}

void np_report_html_head(FILE *f, const char *title, const char *hash) {
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\" data-csp-violations=\"0\">"
             "\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-"
             "Security-Policy\" content=\"default-src 'none'; img-src 'self' "
             "data:; style-src 'unsafe-inline'; script-src '%s'; form-action "
             "'none'; base-uri 'none'\">\n<script>%s</script>\n<meta name="
             "\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<title>", hash, np_report_html_guard_js);
  np_report_html_esc(f, title);
  fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header><h1>",
          np_report_html_css);
  np_report_html_esc(f, title);
}

void np_report_html_foot(FILE *f) {
  fprintf(f, "</main>\n<script>%s</script>\n</body>\n</html>\n",
          np_report_html_js);
}

int np_report_html(const cJSON *report, const struct np_ftree *md,
                   struct np_results_set *const *sets, size_t nsets,
                   const struct np_report_html_opts *o, struct np_ftree *t,
                   struct np_errbuf *eb) {
  char *buf = NULL, hash[160], outabs[PATH_MAX];
  size_t len = 0;
  int rc = np_report_html_script_hash(hash, sizeof hash);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "html: SHA-256 failed");
  if (o->link_relative && (rc = absolute(o->outdir, outabs)) != 0)
    return np_errbuf_set(eb, rc, "%s: %s", o->outdir, np_strerror(rc));
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "html: out of memory");
  const char *title = np_json_get_string(report, "title", "netproof report");
  np_report_html_head(f, title, hash);
  fprintf(f, "</h1>\n<p>netproof-report %s; the same data as index.md and "
             "report.json. Tables sort by a click on their header and "
             "filter by text or dimension with JavaScript; without it "
             "everything is shown.</p>\n<nav><ul>", NP_VERSION);
  const cJSON *rs, *tab, *ch;
  cJSON_ArrayForEach(rs, cJSON_GetObjectItemCaseSensitive(report, "sets")) {
    char sid[200];
    idtext(sid, sizeof sid, "set-", np_json_get_string(rs, "label", ""));
    fprintf(f, "<li><a href=\"#%s\">", sid);
    np_report_html_esc(f, np_json_get_string(rs, "label", ""));
    fputs("</a></li>", f);
  }
  fputs("</ul></nav></header>\n<main>\n<section id=\"all\">\n<h2>All sets"
        "</h2>\n", f);
  cJSON_ArrayForEach(tab, cJSON_GetObjectItemCaseSensitive(report, "tables")) {
    if (rc == 0 && np_json_get_string(tab, "set", "")[0] == '\0')
      rc = table(f, tab, NULL, t, eb);
  }
  fputs("</section>\n", f);
  size_t i = 0;
  cJSON_ArrayForEach(rs, cJSON_GetObjectItemCaseSensitive(report, "sets")) {
    if (rc != 0 || i >= nsets)
      break;
    struct setctx sc = {.s = sets[i], .label = np_json_get_string(rs, "label",
                                                                  ""),
                        .dir = o->dirs[i], .relative = o->link_relative};
    i++;
    if (sc.relative) {
      char dabs[PATH_MAX];
      if ((rc = absolute(sc.dir, dabs)) != 0) {
        np_errbuf_set(eb, rc, "%s: %s", sc.dir, np_strerror(rc));
        break;
      }
      relpath(outabs, dabs, sc.rel, sizeof sc.rel);
    }
    set_header(f, rs, &sc);
    cJSON_ArrayForEach(tab, cJSON_GetObjectItemCaseSensitive(report,
                                                             "tables")) {
      if (rc == 0 && strcmp(np_json_get_string(tab, "set", ""), sc.label) == 0)
        rc = table(f, tab, &sc, t, eb);
    }
    fputs("<h3>Charts</h3>\n", f);
    cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(report,
                                                            "charts")) {
      if (rc == 0 && strcmp(np_json_get_string(ch, "set", ""), sc.label) == 0)
        rc = chart(f, ch, md, t);
    }
    fputs("</section>\n", f);
  }
  np_report_html_foot(f);
  if (fclose(f) != 0) {
    free(buf);
    return np_errbuf_set(eb, NP_ENOMEM, "html: out of memory");
  }
  if (rc == 0 && (rc = np_ftree_add(t, "index.html", buf, len)) != 0)
    np_errbuf_set(eb, rc, "html: out of memory");
  free(buf);
  return rc;
}
