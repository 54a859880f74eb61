/*
 * test_report_marks.c - the defects issue 14 found in the index report and
 * the pages, each on an in-memory variant of the committed fixtures:
 *
 *   1  two sets of one plan: every chart file exists once per set and is
 *      named by the set, each section shows its own set's numbers, sets
 *      are labelled by folder or --label;
 *   2  unstable configurations marked in tables and charts;
 *   3  excluded bars drawn and explained, distinct from "n/m";
 *   4  single-run bars without error bars, "one run", no "1 runs";
 *   5  one colour per series name (adaptive FEC green without fixed FEC);
 *   6  a mixed-family set: the address is a column and a category line;
 *   7  a rudp-only report is titled for it and has no MTU table;
 *   8  each set of a page has its own conditions;
 *   9  the count of unstable configurations is that of the marked rows,
 *      and a plan outside bench/plans is not named as one (issue 28);
 *   and an incomplete set's banner and "missing" marks, the --force stamp,
 *   the plan headline, MDX escaping of a label, CSV and JSON formats.
 *
 * usage: test_report_marks FIXTURE FIXTURE_RUDP FIXTURE_ISOLATION
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ftree.h"
#include "np_json.h"
#include "np_report.h"
#include "np_report_formats.h"
#include "np_report_pages.h"
#include "np_test.h"
#include "svg_text.h"

#define RAW "runs/udp-p1024-c16-w1-single-raw/"
#define SUV "runs/udp-p1024-c16-w1-single-uv/"

typedef void (*edit_fn)(cJSON *doc, const void *arg);

/* Copy of t: JSON files whose path contains `match` are edited by fn, or
 * every such file is dropped (fn NULL). */
static struct np_ftree *variant(const struct np_ftree *t, const char *match,
                                edit_fn fn, const void *arg) {
  struct np_ftree *o = NULL;
  ASSERT_OK(np_ftree_new(&o));
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t len;
    const char *d = np_ftree_get(t, p, &len);
    size_t pl = strlen(p);
    int json = pl > 5 && strcmp(p + pl - 5, ".json") == 0;
    if (strstr(p, match) == NULL || (fn != NULL && !json)) {
      ASSERT_OK(np_ftree_add(o, p, d, len));
      continue;
    }
    if (fn == NULL)
      continue;
    cJSON *doc = cJSON_ParseWithLength(d, len);
    ASSERT_NOT_NULL(doc);
    fn(doc, arg);
    char *txt = cJSON_Print(doc);
    ASSERT_OK(np_ftree_add(o, p, txt, strlen(txt)));
    free(txt);
    cJSON_Delete(doc);
  }
  return o;
}

static struct np_results_set *set_of(const struct np_ftree *t,
                                     const char *label) {
  struct np_results_set *s = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_results_load(t, label, &s, &eb));
  return s;
}

static struct np_ftree *index_of(struct np_results_set **sets, size_t n,
                                 const char *const *labels,
                                 const unsigned char *failed) {
  struct np_report_opts o = {.lang = "en", .labels = labels,
                             .check_failed = failed};
  struct np_ftree *out = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_report_build(sets, n, &o, &out, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("report: %s", eb.msg);
  return out;
}

static const char *file_of(const struct np_ftree *t, const char *path) {
  const char *d = np_ftree_get(t, path, NULL);
  if (d == NULL)
    NP_TEST_FAIL_("%s is missing", path);
  return d;
}

static cJSON *json_of(const struct np_ftree *t, const char *path) {
  size_t len;
  const char *d = np_ftree_get(t, path, &len);
  ASSERT_NOT_NULL(d);
  cJSON *doc = cJSON_ParseWithLength(d, len);
  ASSERT_NOT_NULL(doc);
  return doc;
}

/* The bar of configuration id in the first chart whose file contains
 * stem (report.json). */
static const cJSON *bar(const cJSON *rep, const char *stem, const char *id) {
  const cJSON *c, *b;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rep, "charts")) {
    if (strstr(np_json_get_string(c, "file", ""), stem) == NULL)
      continue;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(c, "series")) {
      if (strcmp(np_json_get_string(b, "config", ""), id) == 0)
        return b;
    }
  }
  NP_TEST_FAIL_("no bar of %s in a chart %s", id, stem);
  return NULL;
}

/* Row of configuration id in the table `name` of set `set`. */
static const cJSON *row(const cJSON *rep, const char *name, const char *set,
                        const char *id) {
  const cJSON *t, *r;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(rep, "tables")) {
    if (strcmp(np_json_get_string(t, "name", ""), name) != 0 ||
        strcmp(np_json_get_string(t, "set", ""), set) != 0)
      continue;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows")) {
      if (strcmp(np_json_get_string(r, "config", ""), id) == 0)
        return r;
    }
  }
  NP_TEST_FAIL_("no row %s in table %s of %s", id, name, set);
  return NULL;
}

/* The decoded text of the chart whose file contains stem. */
static char *chart_text(const struct np_ftree *t, const char *stem) {
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    if (strstr(p, stem) != NULL && strstr(p, ".svg") != NULL)
      return svg_all_text(np_ftree_get(t, p, NULL));
  }
  NP_TEST_FAIL_("no chart %s", stem);
  return NULL;
}

/* The first line of md containing needle, into buf. */
static const char *line_with(const char *md, const char *needle, char *buf,
                             size_t len) {
  const char *p = strstr(md, needle);
  if (p == NULL)
    NP_TEST_FAIL_("no line with %s", needle);
  while (p > md && p[-1] != '\n')
    p--;
  const char *e = strchr(p, '\n');
  snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
  return buf;
}

static void scale_rps(cJSON *doc, const void *arg) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "measurement");
  cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "roundtrips_per_sec");
  cJSON_SetNumberValue(v, v->valuedouble * *(const double *)arg);
}

/* Defect 1: two sets of one plan. */
static void check_two_sets(const struct np_ftree *fx) {
  const double k = 1.5;
  struct np_ftree *fb = variant(fx, SUV "rep-", scale_rps, &k);
  struct np_results_set *sets[2] = {set_of(fx, "fixture-a"),
                                    set_of(fb, "fixture-b")};
  struct np_ftree *out = index_of(sets, 2, NULL, NULL);
  cJSON *rep = json_of(out, "report.json");
  size_t charts = (size_t)cJSON_GetArraySize(
      cJSON_GetObjectItemCaseSensitive(rep, "charts"));
  size_t svgs = 0;
  for (size_t i = 0; i < np_ftree_count(out); i++)
    svgs += strstr(np_ftree_path_at(out, i), ".svg") != NULL;
  ASSERT_EQ(charts, svgs); /* was 20 entries for 10 files */
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rep, "charts")) {
    const char *set = np_json_get_string(c, "set", "");
    char want[64];
    snprintf(want, sizeof want, "assets/%s-", set);
    ASSERT_TRUE(strncmp(np_json_get_string(c, "file", ""), want,
                        strlen(want)) == 0);
  }
  const char *md = file_of(out, "index.md");
  ASSERT_NOT_NULL(strstr(md, "## Throughput and latency: fixture-a"));
  ASSERT_NOT_NULL(strstr(md, "## Throughput and latency: fixture-b"));
  /* the chart of each set shows that set's table value */
  const char *id = "udp-p1024-c16-w1-single-uv";
  for (int i = 0; i < 2; i++) {
    const char *set = i ? "fixture-b" : "fixture-a";
    char stem[64];
    snprintf(stem, sizeof stem, "%s-io-throughput", set);
    double chart = np_json_get_number(bar(rep, stem, id), "median", NAN);
    double table = np_results_num(
        row(rep, "throughput_latency_cpu", set, id),
        "/roundtrips_per_sec/median");
    ASSERT_DBL_NEAR(chart, table, 1e-9);
  }
  ASSERT_TRUE(np_json_get_number(bar(rep, "fixture-b-io-throughput", id),
                                 "median", 0) >
              1.4 * np_json_get_number(bar(rep, "fixture-a-io-throughput", id),
                                       "median", 0));
  cJSON_Delete(rep);
  np_ftree_free(out);
  /* --label names each set */
  static const char *const labels[2] = {"before", "after"};
  out = index_of(sets, 2, labels, NULL);
  md = file_of(out, "index.md");
  ASSERT_NOT_NULL(strstr(md, "## Throughput and latency: before"));
  ASSERT_NOT_NULL(strstr(md, "## Throughput and latency: after"));
  ASSERT_NOT_NULL(np_ftree_get(out, "assets/after-io-throughput-p1024-c16-w1.svg",
                               NULL));
  np_ftree_free(out);
  np_results_free(sets[0]);
  np_results_free(sets[1]);
  np_ftree_free(fb);
}

static void fail_no_loss(cJSON *doc, const void *arg) {
  (void)arg;
  cJSON_ReplaceItemInObject(doc, "status", cJSON_CreateString("failed"));
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(doc, "checks")) {
    if (strcmp(np_json_get_string(ch, "name", ""), "no_loss") == 0)
      cJSON_ReplaceItemInObject((cJSON *)ch, "passed", cJSON_CreateFalse());
  }
}

/* Defects 2 and 3: unstable and excluded marks, "n/m". */
static void check_marks(const struct np_ftree *fx) {
  struct np_ftree *fv = variant(fx, RAW "rep-2.json", fail_no_loss, NULL);
  struct np_results_set *s = set_of(fv, "fixture");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  cJSON *rep = json_of(out, "report.json");
  const char *md = file_of(out, "index.md");
  /* the quick fixture's summary flags single-uv and split-uv unstable */
  char line[1024];
  ASSERT_NOT_NULL(strstr(line_with(md, "| 1,024 | 16 | 1 | single | uv |", line,
                                   sizeof line), " \xe2\x80\xa0 |"));
  ASSERT_TRUE(strstr(line_with(md, "| 1,024 | 16 | 1 | single | raw |", line,
                               sizeof line), "\xe2\x80\xa0") == NULL);
  ASSERT_NOT_NULL(strstr(md, "excluded (no_loss)"));
  ASSERT_NOT_NULL(strstr(md, "\xe2\x80\xa0 unstable:"));
  const cJSON *b = bar(rep, "fixture-io-throughput", "udp-p1024-c16-w1-single-uv");
  ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "unstable")));
  b = bar(rep, "fixture-io-throughput", "udp-p1024-c16-w1-single-raw");
  ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "excluded")));
  char *txt = chart_text(out, "fixture-io-throughput");
  ASSERT_NOT_NULL(strstr(txt, "\xe2\x80\xa0\n"));
  ASSERT_NOT_NULL(strstr(txt, "excluded\n"));
  ASSERT_NOT_NULL(strstr(txt, "excluded: a repetition failed (no_loss)"));
  ASSERT_NOT_NULL(strstr(txt, "n/m\n")); /* split has no raw bar */
  ASSERT_NOT_NULL(strstr(txt, "n/m: not measured"));
  ASSERT_NOT_NULL(strstr(txt, "16 clients"));
  free(txt);
  cJSON_Delete(rep);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
}

/* summary.json: every configuration flagged unstable (an excluded one
 * too, like the overflow probe of the quick suite). */
static void all_unstable(cJSON *doc, const void *arg) {
  (void)arg;
  cJSON *cf;
  cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(doc,
                                                          "configurations"))
    cJSON_ReplaceItemInObject(cf, "unstable", cJSON_CreateTrue());
}

/* The "N of M configurations unstable" of the conditions and the
 * correctness table count the marked (†) rows: an excluded configuration
 * is not "unstable" (issue 28: "3 of 4 unstable" beside two marks). */
static void check_unstable_count(const struct np_ftree *fx) {
  struct np_ftree *f1 = variant(fx, RAW "rep-2.json", fail_no_loss, NULL);
  struct np_ftree *fv = variant(f1, "summary.json", all_unstable, NULL);
  struct np_results_set *s = set_of(fv, "fixture");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  const char *md = file_of(out, "index.md");
  char line[1024];
  ASSERT_NOT_NULL(strstr(line_with(md, "| 1,024 | 16 | 1 | single | uv |",
                                   line, sizeof line), " \xe2\x80\xa0 |"));
  ASSERT_TRUE(strstr(line_with(md, "| 1,024 | 16 | 1 | single | raw |", line,
                               sizeof line), "\xe2\x80\xa0") == NULL);
  ASSERT_NOT_NULL(strstr(md, "2 of 3 configurations unstable"));
  ASSERT_TRUE(strstr(md, "3 of 3 configurations unstable") == NULL);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
  np_ftree_free(f1);
}

static void own_plan(cJSON *doc, const void *arg) {
  cJSON_ReplaceItemInObject(doc, "plan_file", cJSON_CreateString(arg));
}

/* A plan that is not a shipped one is named by its file name, never as a
 * bench/plans path the tree does not have (issue 28). */
static void check_plan_name(const struct np_ftree *fx) {
  struct np_ftree *fv = variant(fx, "suite.json", own_plan,
                                "/tmp/tmp.x/mine.json");
  struct np_results_set *s = set_of(fv, "fixture");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  const char *md = file_of(out, "index.md");
  ASSERT_NOT_NULL(strstr(md, "(mine.json, not a shipped plan: its copy is "
                             "suite.json's plan)"));
  ASSERT_TRUE(strstr(md, "bench/plans/mine.json") == NULL);
  ASSERT_TRUE(strstr(md, "/tmp/tmp.x") == NULL);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
  fv = variant(fx, "suite.json", own_plan,
               "/usr/share/netproof/plans/quick.json");
  s = set_of(fv, "fixture");
  out = index_of(&s, 1, NULL, NULL);
  ASSERT_NOT_NULL(strstr(file_of(out, "index.md"), "(bench/plans/quick.json)"));
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
}

static void one_rep(cJSON *doc, const void *arg) {
  (void)arg;
  cJSON_ReplaceItemInObject(doc, "repetitions", cJSON_CreateNumber(1));
}

/* Defect 4 (and the plurals of 7): one run per configuration. */
static void check_one_run(const struct np_ftree *fx) {
  struct np_ftree *a = variant(fx, "rep-2.", NULL, NULL);
  struct np_ftree *b = variant(a, "rep-3.", NULL, NULL);
  struct np_ftree *c = variant(b, "suite.json", one_rep, NULL);
  struct np_results_set *s = set_of(c, "fixture");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  const char *md = file_of(out, "index.md");
  ASSERT_TRUE(strstr(md, "1 runs") == NULL);
  ASSERT_TRUE(strstr(md, "1 independent processes") == NULL);
  ASSERT_TRUE(strstr(md, "1 repetitions") == NULL);
  ASSERT_NOT_NULL(strstr(md, "1 independent process per configuration"));
  cJSON *rep = json_of(out, "report.json");
  const cJSON *bb = bar(rep, "io-throughput", "udp-p1024-c16-w1-single-uv");
  ASSERT_DBL_NEAR(np_json_get_number(bb, "min", 0),
                  np_json_get_number(bb, "median", 1), 0);
  ASSERT_DBL_NEAR(np_json_get_number(bb, "max", 0),
                  np_json_get_number(bb, "median", 1), 0);
  char *txt = chart_text(out, "io-throughput");
  ASSERT_NOT_NULL(strstr(txt, "bars: one run each, no error bars"));
  ASSERT_TRUE(strstr(txt, "min/max") == NULL);
  free(txt);
  cJSON_Delete(rep);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(a);
  np_ftree_free(b);
  np_ftree_free(c);
}

static void to_ipv6(cJSON *doc, const void *arg) {
  (void)arg;
  cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
  cJSON_ReplaceItemInObject(cfg, "address", cJSON_CreateString("::1"));
  cJSON_ReplaceItemInObject(cfg, "family", cJSON_CreateString("ipv6"));
}

/* Defect 6: a set of both families. */
static void check_families(const struct np_ftree *fx) {
  struct np_ftree *fv = variant(fx, RAW "rep-", to_ipv6, NULL);
  struct np_results_set *s = set_of(fv, "fixture");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  const char *md = file_of(out, "index.md");
  ASSERT_NOT_NULL(strstr(md, "| Network | varies between configurations"));
  ASSERT_NOT_NULL(strstr(md, "| Address |"));
  ASSERT_NOT_NULL(strstr(md, "| raw | ::1 |"));
  ASSERT_NOT_NULL(strstr(md, "| uv | 127.0.0.1 |"));
  cJSON *rep = json_of(out, "report.json");
  const cJSON *b = bar(rep, "io-throughput", "udp-p1024-c16-w1-single-raw");
  ASSERT_STR_EQ(np_json_get_string(b, "note", ""), "::1");
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rep, "charts")) {
    ASSERT_TRUE(strstr(np_json_get_string(c, "subtitle", ""), "127.0.0.1") ==
                NULL);
  }
  char *txt = chart_text(out, "io-throughput");
  ASSERT_NOT_NULL(strstr(txt, "::1\n"));
  ASSERT_NOT_NULL(strstr(txt, "127.0.0.1\n"));
  free(txt);
  cJSON_Delete(rep);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
}

/* Defects 5 and 7: a rudp-only report (strategies none and adaptive). */
static void check_rudp(const struct np_ftree *fr) {
  struct np_results_set *s = set_of(fr, "fixture-rudp");
  struct np_ftree *out = index_of(&s, 1, NULL, NULL);
  const char *md = file_of(out, "index.md");
  ASSERT_TRUE(strncmp(md, "# netproof reliable-UDP performance report\n", 43) ==
              0);
  ASSERT_TRUE(strstr(md, "Payload and MTU limits") == NULL);
  size_t charts = 0;
  for (size_t i = 0; i < np_ftree_count(out); i++) {
    const char *p = np_ftree_path_at(out, i);
    if (strstr(p, ".svg") == NULL)
      continue;
    const char *svg = np_ftree_get(out, p, NULL);
    /* adaptive FEC keeps its green; orange means fixed FEC, absent here */
    ASSERT_NOT_NULL(strstr(svg, "fill=\"#009E73\""));
    ASSERT_TRUE(strstr(svg, "fill=\"#E69F00\"") == NULL);
    charts++;
  }
  ASSERT_GT(charts, 5);
  np_ftree_free(out);
  np_results_free(s);
}

/* Defect 8: each set of a page has its own conditions. */
static void check_page_conditions(const struct np_ftree *fx,
                                  const struct np_ftree *fi) {
  struct np_results_set *sets[2] = {set_of(fi, "fixture-isolation"),
                                    set_of(fx, "fixture")};
  struct np_ftree *out = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_report_pages_build(sets, 2, NULL, &out, &eb));
  const char *md = file_of(out, "udp.md");
  for (int i = 0; i < 2; i++) {
    char head[128], at[128];
    snprintf(head, sizeof head, "**Conditions: %s**",
             np_json_get_string(sets[i]->suite, "suite", ""));
    const char *p = strstr(md, head);
    ASSERT_NOT_NULL(p);
    snprintf(at, sizeof at, "| Started → ended (UTC) | %s → %s |",
             np_json_get_string(sets[i]->suite, "started_at", ""),
             np_json_get_string(sets[i]->suite, "ended_at", ""));
    ASSERT_NOT_NULL(strstr(p, at));
  }
  np_ftree_free(out);
  /* MDX: front matter, and a label that would open JSX is escaped */
  static const char *const labels[2] = {"iso{late}<b>", NULL};
  struct np_report_pages_opts po = {.labels = labels, .mdx = 1};
  ASSERT_OK(np_report_pages_build(sets, 2, &po, &out, &eb));
  md = file_of(out, "udp.mdx");
  ASSERT_TRUE(strncmp(md, "---\ntitle: \"UDP loopback performance: ", 38) == 0);
  ASSERT_NOT_NULL(strstr(md, "iso\\{late\\}&lt;b&gt;"));
  ASSERT_TRUE(strstr(md, "<!--") == NULL);
  np_ftree_free(out);
  np_results_free(sets[0]);
  np_results_free(sets[1]);
}

static void add_headline(cJSON *doc, const void *arg) {
  (void)arg;
  cJSON *plan = cJSON_GetObjectItemCaseSensitive(doc, "plan");
  cJSON *h = cJSON_Parse("{\"title\": \"raw against split\", \"rows\": "
                         "[{\"backend\": \"raw\"}, {\"io-model\": \"split\"},"
                         " {\"backend\": \"dpdk\"}]}");
  cJSON_AddItemToObject(plan, "headline", h);
}

/* An incomplete set, a failed self-check under --force, a headline. */
static void check_banners(const struct np_ftree *fx) {
  struct np_ftree *fv = variant(fx, SUV "rep-3.", NULL, NULL);
  struct np_results_set *s = set_of(fv, "fixture");
  const unsigned char failed[1] = {1};
  struct np_ftree *out = index_of(&s, 1, NULL, failed);
  const char *md = file_of(out, "index.md");
  ASSERT_NOT_NULL(strstr(md, "> **Incomplete result set: fixture**"));
  ASSERT_NOT_NULL(strstr(md, "`udp-p1024-c16-w1-single-uv` (2 of 3)"));
  ASSERT_NOT_NULL(strstr(md, "missing (2 of 3 runs)"));
  ASSERT_NOT_NULL(strstr(md, "> **Self-check failed: fixture.**"));
  cJSON *rep = json_of(out, "report.json");
  const cJSON *b = bar(rep, "io-throughput", "udp-p1024-c16-w1-single-uv");
  ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "missing")));
  for (size_t i = 0; i < np_ftree_count(out); i++) {
    const char *p = np_ftree_path_at(out, i);
    if (strstr(p, ".svg") == NULL)
      continue;
    char *txt = svg_all_text(np_ftree_get(out, p, NULL));
    ASSERT_NOT_NULL(strstr(txt, "SELF-CHECK FAILED"));
    free(txt);
  }
  char *txt = chart_text(out, "io-throughput");
  ASSERT_NOT_NULL(strstr(txt, "missing\n"));
  free(txt);
  cJSON_Delete(rep);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);

  fv = variant(fx, "suite.json", add_headline, NULL);
  s = set_of(fv, "fixture");
  out = index_of(&s, 1, NULL, NULL);
  md = file_of(out, "index.md");
  const char *h = strstr(md, "### Headline: raw against split");
  ASSERT_NOT_NULL(h);
  const char *raw = strstr(h, "| raw |"), *split = strstr(h, "| split/");
  ASSERT_NOT_NULL(raw);
  ASSERT_NOT_NULL(strstr(h, "matches no configuration"));
  ASSERT_TRUE(split == NULL || raw < split);
  rep = json_of(out, "report.json");
  ASSERT_NOT_NULL(row(rep, "headline", "fixture",
                      "udp-p1024-c16-w1-single-raw"));
  ASSERT_NOT_NULL(row(rep, "headline", "fixture", "udp-p1024-c16-w1-split-uv"));
  /* CSV of every table, the compact JSON summary */
  struct np_ftree *fmt = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_report_formats(out, &s, 1, NULL,
                              NP_REPORT_FMT_CSV | NP_REPORT_FMT_JSON, &fmt,
                              &eb));
  const char *csv = file_of(fmt, "tables/fixture-throughput_latency_cpu.csv");
  ASSERT_NOT_NULL(strstr(csv, "roundtrips.median [1/s]"));
  ASSERT_NOT_NULL(strstr(csv, "rtt_p99.median [\xce\xbcs]"));
  ASSERT_NOT_NULL(strstr(csv, "rss_max.median [B]"));
  size_t lines = 0;
  for (const char *p = csv; *p; p++)
    lines += *p == '\n';
  ASSERT_EQ(lines, 4); /* header + three configurations */
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(rep, "tables")) {
    char path[256];
    snprintf(path, sizeof path, "tables/%s.csv",
             np_json_get_string(t, "id", "?"));
    ASSERT_NOT_NULL(np_ftree_get(fmt, path, NULL));
  }
  ASSERT_TRUE(np_ftree_get(fmt, "index.md", NULL) == NULL);
  cJSON *sum = json_of(fmt, "report-summary.json");
  ASSERT_STR_EQ(np_json_get_string(sum, "schema", ""),
                "netproof/report-summary/1");
  const cJSON *s0 = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(sum, "sets"), 0);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s0, "results")),
            3);
  ASSERT_STR_EQ(np_json_get_string(s0, "self_check", ""), "clean");
  cJSON_Delete(sum);
  np_ftree_free(fmt);
  cJSON_Delete(rep);
  np_ftree_free(out);
  np_results_free(s);
  np_ftree_free(fv);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 4);
  struct np_ftree *fx = NULL, *fr = NULL, *fi = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(argv[1], 0, &fx, &eb));
  ASSERT_OK(np_ftree_load_dir(argv[2], 0, &fr, &eb));
  ASSERT_OK(np_ftree_load_dir(argv[3], 0, &fi, &eb));
  check_two_sets(fx);
  check_marks(fx);
  check_unstable_count(fx);
  check_plan_name(fx);
  check_one_run(fx);
  check_families(fx);
  check_rudp(fr);
  check_page_conditions(fx, fi);
  check_banners(fx);
  np_ftree_free(fx);
  np_ftree_free(fr);
  np_ftree_free(fi);
  puts("test_report_marks: ok");
  return 0;
}
