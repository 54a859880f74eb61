/*
 * np_report_compare_html.c - compare.html (`netproof-report compare ...
 * --format html`): the comparison as one offline page, from compare.json
 * itself, so it says what compare.md says.  At the top the gate (pass,
 * fail or inconclusive) with every reason and every inconclusive line;
 * then BASE and NEW (label, suite, status, runs, version, source hash,
 * machine) and the differences between their conditions; per metric a
 * sortable table of every configuration (medians and run counts of both
 * sides, ratio and its interval, U, p, Holm's p, the p floor of the run
 * counts, the verdict) and the metric's charts inline.  Same page shell,
 * script and Content-Security-Policy as the report's (np_report_html.h).
 */
#include "np_report_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_formats.h"
#include "np_report_html.h"

#define esc np_report_html_esc

static void num_cell(FILE *f, const cJSON *v) {
  char exact[64], txt[64];
  if (!cJSON_IsNumber(v)) {
    fputs("<td class=\"num\">-</td>", f);
    return;
  }
  np_report_number_text(exact, sizeof exact, v->valuedouble);
  np_report_html_num(txt, sizeof txt, v->valuedouble);
  fprintf(f, "<td class=\"num\" data-value=\"%s\">%s</td>", exact, txt);
}

static void text_cell(FILE *f, const char *s, int wrap) {
  fputs(wrap ? "<td class=\"wrap\">" : "<td>", f);
  esc(f, s);
  fputs("</td>", f);
}

static void side(FILE *f, const char *name, const cJSON *x) {
  fputs("<tr><th scope=\"row\">", f);
  fputs(name, f);
  fputs("</th>", f);
  text_cell(f, np_json_get_string(x, "label", "?"), 0);
  text_cell(f, np_json_get_string(x, "suite", "?"), 0);
  text_cell(f, np_json_get_string(x, "status", "?"), 0);
  num_cell(f, cJSON_GetObjectItemCaseSensitive(x, "configurations"));
  num_cell(f, cJSON_GetObjectItemCaseSensitive(x, "runs"));
  text_cell(f, np_json_get_string(np_json_pointer(x, "/tool"), "version", "?"),
            0);
  text_cell(f, np_json_get_string(np_json_pointer(x, "/tool"),
                                  "source_sha256", "?"), 0);
  text_cell(f, np_json_get_string(np_json_pointer(x, "/machine"), "hostname",
                                  "?"), 0);
  fputs("</tr>\n", f);
}

static void list(FILE *f, const char *head, const cJSON *a) {
  if (cJSON_GetArraySize(a) == 0)
    return;
  const cJSON *e;
  fprintf(f, "<p>%s</p>\n<ul>", head);
  cJSON_ArrayForEach(e, a) {
    fputs("<li>", f);
    esc(f, cJSON_IsString(e) ? e->valuestring : "?");
    fputs("</li>", f);
  }
  fputs("</ul>\n", f);
}

/* One metric's table over every compared configuration. */
static void metric_table(FILE *f, const cJSON *doc, const char *metric) {
  char tid[128];
  snprintf(tid, sizeof tid, "t-compare-%s", metric);
  fputs("<h2>", f);
  esc(f, metric);
  fprintf(f, "</h2>\n<div class=\"filters\"><input hidden type=\"search\" "
             "placeholder=\"filter rows\" aria-label=\"filter rows\" "
             "data-filter=\"%s\"></div>\n<div class=\"scroll\"><table "
             "class=\"data\" id=\"%s\">\n<thead><tr>", tid, tid);
  static const char *const head[] = {
      "configuration", "base median", "base n", "new median", "new n",
      "ratio new / base", "95 % interval", "U", "p", "p (Holm)",
      "p floor (run counts)", "verdict"};
  for (size_t i = 0; i < sizeof head / sizeof *head; i++)
    fprintf(f, "<th scope=\"col\" aria-sort=\"none\"><button type=\"button\">"
               "%s</button></th>", head[i]);
  fputs("</tr></thead>\n", f);
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc,
                                                         "configurations")) {
    const cJSON *m = np_json_pointer(cJSON_GetObjectItemCaseSensitive(
                                         c, "metrics"), "");
    m = cJSON_GetObjectItemCaseSensitive(m, metric);
    if (m == NULL)
      continue;
    const char *verdict = np_json_get_string(m, "verdict", "?");
    int bad = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "regression"));
    fprintf(f, "<tbody><tr%s>", bad ? " class=\"failed\"" : "");
    text_cell(f, np_json_get_string(c, "id", "?"), 0);
    num_cell(f, np_json_pointer(m, "/base/median"));
    num_cell(f, np_json_pointer(m, "/base/n"));
    num_cell(f, np_json_pointer(m, "/new/median"));
    num_cell(f, np_json_pointer(m, "/new/n"));
    num_cell(f, cJSON_GetObjectItemCaseSensitive(m, "ratio"));
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(m, "ci95");
    if (cJSON_GetArraySize(ci) == 2) {
      char a[64], b[64];
      np_report_html_num(a, sizeof a, cJSON_GetArrayItem(ci, 0)->valuedouble);
      np_report_html_num(b, sizeof b, cJSON_GetArrayItem(ci, 1)->valuedouble);
      fprintf(f, "<td class=\"num\">%s - %s</td>", a, b);
    } else {
      text_cell(f, np_json_get_string(m, "ci95_note", "-"), 1);
    }
    num_cell(f, cJSON_GetObjectItemCaseSensitive(m, "u"));
    num_cell(f, cJSON_GetObjectItemCaseSensitive(m, "p"));
    num_cell(f, cJSON_GetObjectItemCaseSensitive(m, "p_holm"));
    num_cell(f, cJSON_GetObjectItemCaseSensitive(m, "p_floor"));
    text_cell(f, verdict, 1);
    fputs("</tr></tbody>\n", f);
  }
  fputs("</table></div>\n", f);
}

int np_report_compare_html(const cJSON *doc, struct np_ftree *t,
                           struct np_errbuf *eb) {
  char *buf = NULL, hash[160];
  size_t len = 0;
  int rc = np_report_html_script_hash(hash, sizeof hash);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "compare.html: SHA-256 failed");
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "compare.html: out of memory");
  char title[600];
  snprintf(title, sizeof title, "Comparison: %s -> %s",
           np_json_get_string(np_json_pointer(doc, "/base"), "label", "?"),
           np_json_get_string(np_json_pointer(doc, "/new"), "label", "?"));
  np_report_html_head(f, title, hash);
  const char *gate = np_json_get_string(doc, "gate", "?");
  fputs("</h1>\n<p class=\"", f);
  fputs(strcmp(gate, "pass") == 0 ? "ok" : "banner", f);
  fputs("\">Gate: ", f);
  esc(f, gate);
  fputs(strcmp(gate, "inconclusive") == 0
            ? " - no configuration regresses, but these run counts could not "
              "have shown one (netproof-report compare exits 5 unless "
              "--allow-inconclusive)"
            : strcmp(gate, "fail") == 0 ? " - see the reasons below"
                                        : " - no configuration regresses",
        f);
  fputs("</p>\n", f);
  list(f, "Why the gate fails:", cJSON_GetObjectItemCaseSensitive(
                                     doc, "gate_reasons"));
  list(f, "Inconclusive:", cJSON_GetObjectItemCaseSensitive(
                               doc, "gate_inconclusive"));
  fputs("</header>\n<main>\n<h2>The two sets</h2>\n<div class=\"scroll\">"
        "<table class=\"kv\"><thead><tr><th scope=\"col\"></th>"
        "<th scope=\"col\">label</th><th scope=\"col\">suite</th>"
        "<th scope=\"col\">status</th><th scope=\"col\">configurations</th>"
        "<th scope=\"col\">runs</th><th scope=\"col\">version</th>"
        "<th scope=\"col\">source SHA-256</th><th scope=\"col\">machine</th>"
        "</tr></thead><tbody>\n", f);
  side(f, "base", cJSON_GetObjectItemCaseSensitive(doc, "base"));
  side(f, "new", cJSON_GetObjectItemCaseSensitive(doc, "new"));
  fputs("</tbody></table></div>\n", f);
  list(f, "Conditions that differ:", cJSON_GetObjectItemCaseSensitive(
                                         doc, "differences"));
  const cJSON *mn;
  cJSON_ArrayForEach(mn, np_json_pointer(doc, "/options/metrics")) {
    if (!cJSON_IsString(mn))
      continue;
    metric_table(f, doc, mn->valuestring);
    char prefix[160];
    snprintf(prefix, sizeof prefix, "assets/compare-%s", mn->valuestring);
    for (size_t i = 0; i < np_ftree_count(t); i++) {
      const char *p = np_ftree_path_at(t, i);
      size_t n = 0;
      const char *svg = np_ftree_get(t, p, &n);
      if (strncmp(p, prefix, strlen(prefix)) != 0 || svg == NULL)
        continue;
      const char *start = strstr(svg, "<svg");
      if (start == NULL)
        continue;
      fputs("<figure>\n<svg role=\"img\" aria-label=\"", f);
      esc(f, p);
      fputs("\"", f);
      fwrite(start + 4, 1, n - (size_t)(start - svg) - 4, f);
      fputs("\n<figcaption>", f);
      esc(f, p);
      fputs("</figcaption></figure>\n", f);
    }
  }
  list(f, "Only in BASE:", cJSON_GetObjectItemCaseSensitive(doc,
                                                            "only_in_base"));
  list(f, "Only in NEW:", cJSON_GetObjectItemCaseSensitive(doc,
                                                           "only_in_new"));
  np_report_html_foot(f);
  if (fclose(f) != 0) {
    free(buf);
    return np_errbuf_set(eb, NP_ENOMEM, "compare.html: out of memory");
  }
  rc = np_ftree_add(t, "compare.html", buf, len);
  free(buf);
  return rc == 0 ? 0 : np_errbuf_set(eb, rc, "compare.html: out of memory");
}
