/*
 * np_report_html.c - index.html from report.json, the Markdown report's
 * SVGs and the loaded sets (see np_report_html.h): the page's shell (its
 * Content-Security-Policy, the scripts' hashes), text escaping, each
 * set's header, the charts with their data CSV, and the order of it all.
 * The tables and run lists are np_report_html_table.c's.
 */
#include "np_report_html.h"
#include "np_report_html_int.h"

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
void np_report_html__idtext(char *buf, size_t len, const char *prefix, const char *s) {
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

static void set_header(FILE *f, const cJSON *rs,
                       const struct np_report_html__setctx *sc) {
  const char *label = np_json_get_string(rs, "label", "");
  char sid[200];
  np_report_html__idtext(sid, sizeof sid, "set-", label);
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
    np_report_html__idtext(sid, sizeof sid, "set-", np_json_get_string(rs, "label", ""));
    fprintf(f, "<li><a href=\"#%s\">", sid);
    np_report_html_esc(f, np_json_get_string(rs, "label", ""));
    fputs("</a></li>", f);
  }
  fputs("</ul></nav></header>\n<main>\n<section id=\"all\">\n<h2>All sets"
        "</h2>\n", f);
  cJSON_ArrayForEach(tab, cJSON_GetObjectItemCaseSensitive(report, "tables")) {
    if (rc == 0 && np_json_get_string(tab, "set", "")[0] == '\0')
      rc = np_report_html__table(f, tab, NULL, t, eb);
  }
  fputs("</section>\n", f);
  size_t i = 0;
  cJSON_ArrayForEach(rs, cJSON_GetObjectItemCaseSensitive(report, "sets")) {
    if (rc != 0 || i >= nsets)
      break;
    struct np_report_html__setctx sc = {
        .s = sets[i], .label = np_json_get_string(rs, "label", ""),
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
        rc = np_report_html__table(f, tab, &sc, t, eb);
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
