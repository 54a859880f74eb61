/*
 * test_report_rudp.c - the reliable-UDP report and self-check over the
 * committed real fixtures (tests/report/make-rudp-fixtures.sh):
 *
 *  - both fixtures self-check clean;
 *  - each kind of RUDP tampering, applied to an in-memory copy of
 *    fixture-rudp, is reported at its JSON pointer: per-round counters,
 *    rates against counts / durations, retransmit split, overhead against
 *    the byte counters, recoveries rate, percentiles, checks against the
 *    round status, record status against its rounds, median round,
 *    rudp.summary spreads, parity mean, summary.json statistics and basis;
 *  - the index report and the rudp performance page of both fixtures are
 *    byte-identical to tests/report/golden-rudp/{index,pages} and contain
 *    the strategy tables ("which strategy wins where" with its verdict,
 *    payload x window, sustained); report.json validates.
 *
 * usage: test_report_rudp FIXTURE_RUDP FIXTURE_RUDP_PW GOLDEN_DIR
 *   (GOLDEN_DIR "--write" as a fourth argument regenerates the goldens)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ftree.h"
#include "np_json.h"
#include "np_report.h"
#include "np_report_pages.h"
#include "np_results_selfcheck.h"
#include "np_schema.h"
#include "np_test.h"

#define NONE "runs/rudp-p1024-c4-w16-single-fecnone-bbr-random/rep-1.json"
#define ADAPT "runs/rudp-p1024-c4-w16-single-fecadaptive-bbr-random/rep-1.json"

struct seen {
  char lines[32][768];
  size_t n;
};

static void collect(void *ctx, const char *file, const char *ptr,
                    const char *reason) {
  struct seen *s = ctx;
  if (s->n < 32)
    snprintf(s->lines[s->n], sizeof s->lines[0], "%s: %s: %s", file, ptr,
             reason);
  s->n++;
}

/* Walk "a/0/b" (object keys and array indices). */
static cJSON *walk(cJSON *doc, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  cJSON *cur = doc;
  for (char *seg = strtok(buf, "/"); seg && cur; seg = strtok(NULL, "/"))
    cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(seg))
                             : cJSON_GetObjectItemCaseSensitive(cur, seg);
  return cur;
}

/* How to change one value: set a number, scale one, set a string/bool. */
enum op { SET, SCALE, ADD, STR, FALSE_ };

/* Copy of t whose JSON file `file` has the value at `path` changed. */
static struct np_ftree *tamper(const struct np_ftree *t, const char *file,
                               const char *path, enum op op, double x,
                               const char *s) {
  struct np_ftree *o = NULL;
  ASSERT_OK(np_ftree_new(&o));
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t len;
    const char *d = np_ftree_get(t, p, &len);
    if (strcmp(p, file) != 0) {
      ASSERT_OK(np_ftree_add(o, p, d, len));
      continue;
    }
    cJSON *doc = cJSON_ParseWithLength(d, len);
    ASSERT_NOT_NULL(doc);
    cJSON *v = walk(doc, path);
    if (v == NULL)
      NP_TEST_FAIL_("%s: %s not found", file, path);
    if (op == STR) {
      ASSERT_TRUE(cJSON_IsString(v));
      cJSON_SetValuestring(v, s);
    } else if (op == FALSE_) {
      v->type = cJSON_False;
    } else {
      ASSERT_TRUE(cJSON_IsNumber(v));
      double nv = op == SET ? x : op == SCALE ? v->valuedouble * x
                                              : v->valuedouble + x;
      cJSON_SetNumberValue(v, nv);
    }
    char *text = cJSON_Print(doc);
    ASSERT_OK(np_ftree_add(o, p, text, strlen(text)));
    free(text);
    cJSON_Delete(doc);
  }
  return o;
}

/* The self-check of t finds a problem whose line contains want. */
static void expect(const struct np_ftree *t, const char *what,
                   const char *want) {
  struct seen s = {.n = 0};
  int rc = np_results_self_check(t, "fx", collect, &s);
  int found = 0;
  for (size_t i = 0; i < s.n && i < 32; i++)
    found |= strstr(s.lines[i], want) != NULL;
  if (rc != NP_ECHECK || !found) {
    for (size_t i = 0; i < s.n && i < 32; i++)
      fprintf(stderr, "  %s\n", s.lines[i]);
    NP_TEST_FAIL_("%s: expected a problem containing \"%s\" (rc %d)", what,
                  want, rc);
  }
  printf("rejected %-34s %s\n", what, s.lines[0]);
}

static void check_tampering(const struct np_ftree *fx) {
  struct seen s = {.n = 0};
  ASSERT_OK(np_results_self_check(fx, "fx", collect, &s));
  ASSERT_EQ(s.n, 0);
  static const struct {
    const char *what, *file, *path;
    enum op op;
    double x;
    const char *str, *want;
  } cases[] = {
      {"received above server_replied", NONE, "rudp/rounds/1/counters/received",
       ADD, 5, NULL, "/rudp/rounds/1/counters/received"},
      {"lost != sent - received", NONE, "rudp/rounds/0/counters/lost", ADD, 1,
       NULL, "/rudp/rounds/0/counters/lost"},
      {"round trips/s not count/duration", NONE,
       "rudp/rounds/2/measurement/roundtrips_per_sec", SCALE, 1.01, NULL,
       "/rudp/rounds/2/measurement/roundtrips_per_sec"},
      {"retransmit rate", NONE,
       "rudp/rounds/0/arq/retransmits_per_1000_roundtrips", SCALE, 1.02, NULL,
       "retransmits_per_1000_roundtrips: "},
      {"retransmits != RACK+TLP+RTO", NONE, "rudp/rounds/0/arq/retransmits",
       ADD, 1, NULL, "RACK + TLP + RTO"},
      {"overhead vs byte counters", ADAPT,
       "rudp/rounds/1/arq/network_overhead_percent", ADD, 1, NULL,
       "/rudp/rounds/1/arq/network_overhead_percent"},
      {"recoveries rate", ADAPT,
       "rudp/rounds/0/fec/recoveries_per_1000_roundtrips", SCALE, 1.1, NULL,
       "/rudp/rounds/0/fec/recoveries_per_1000_roundtrips"},
      {"percentiles not monotone", NONE,
       "rudp/rounds/1/measurement/rtt_us/p50", SCALE, 100, NULL,
       "not monotone"},
      {"failed check in a passed round", ADAPT,
       "rudp/rounds/2/checks/1/passed", FALSE_, 0, NULL,
       "/rudp/rounds/2/checks/1/passed: false, but re-deriving"},
      {"round failed, checks passed", NONE, "rudp/rounds/0/status", STR, 0,
       "failed", "/rudp/rounds/0/status: \"failed\", but the round's counters "
       "give \"passed\""},
      {"median round out of range", NONE, "rudp/median_round", SET, 7, NULL,
       "/rudp/median_round"},
      {"record summary spread", ADAPT, "rudp/summary/rtt_p99_us/max", SCALE,
       1.5, NULL, "/rudp/summary/rtt_p99_us/max"},
      {"parity mean above max", ADAPT, "rudp/rounds/1/fec/parity_max", SET, 0,
       NULL, "/fec/parity_mean"},
      {"summary overhead median", "summary.json",
       "configurations/3/stats/network_overhead_percent/median", ADD, 1, NULL,
       "/configurations/3/stats/network_overhead_percent/median"},
      {"summary retained max", "summary.json",
       "configurations/1/stats/fec_retained_peak_bytes/max", ADD, 1024, NULL,
       "fec_retained_peak_bytes/max"},
      {"summary p99 min (rounds basis)", "summary.json",
       "configurations/2/stats/rtt_p99_us/min", SCALE, 0.5, NULL,
       "/configurations/2/stats/rtt_p99_us/min"},
      {"summary stats basis", "summary.json", "configurations/0/stats_basis",
       STR, 0, "repetitions", "stats_basis"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct np_ftree *t = tamper(fx, cases[i].file, cases[i].path, cases[i].op,
                                cases[i].x, cases[i].str);
    expect(t, cases[i].what, cases[i].want);
    np_ftree_free(t);
  }
}

static void same_trees(const struct np_ftree *a, const struct np_ftree *b,
                       const char *what) {
  size_t n = np_ftree_count(a) > np_ftree_count(b) ? np_ftree_count(a)
                                                    : np_ftree_count(b);
  for (size_t i = 0; i < n; i++) {
    const char *pa = np_ftree_path_at(a, i), *pb = np_ftree_path_at(b, i);
    if (pa == NULL || pb == NULL || strcmp(pa, pb) != 0)
      NP_TEST_FAIL_("%s: file lists differ at %zu: %s vs %s", what, i,
                    pa ? pa : "(none)", pb ? pb : "(none)");
    size_t la, lb;
    const char *da = np_ftree_get(a, pa, &la), *db = np_ftree_get(b, pb, &lb);
    if (la != lb || memcmp(da, db, la) != 0)
      NP_TEST_FAIL_("%s: %s differs (%zu vs %zu bytes); regenerate with "
                    "tests/report/regen-goldens.sh only if intended",
                    what, pa, la, lb);
  }
}

static const char *text_of(const struct np_ftree *t, const char *path) {
  size_t len;
  const char *d = np_ftree_get(t, path, &len);
  ASSERT_NOT_NULL(d);
  return d;
}

static void report_json_valid(const struct np_ftree *t, const char *path) {
  size_t len;
  const char *d = np_ftree_get(t, path, &len);
  ASSERT_NOT_NULL(d);
  cJSON *doc = cJSON_ParseWithLength(d, len);
  ASSERT_NOT_NULL(doc);
  struct np_schema *sc = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_schema_builtin("report", &sc, &eb));
  int rc = np_schema_validate(sc, doc, NULL, NULL);
  ASSERT_OK(rc);
  np_schema_free(sc);
  cJSON_Delete(doc);
}

/* Write t under dir (regeneration on purpose). */
static void write_tree(const struct np_ftree *t, const char *dir) {
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_report_write_tree(t, dir, &eb));
}

int main(int argc, char **argv) {
  ASSERT_TRUE(argc == 4 || argc == 5);
  int write = argc == 5 && strcmp(argv[4], "--write") == 0;
  struct np_ftree *in[2] = {NULL, NULL};
  struct np_results_set *sets[2] = {NULL, NULL};
  struct np_errbuf eb = {{0}};
  static const char *const labels[2] = {"fixture-rudp", "fixture-rudp-pw"};
  for (int i = 0; i < 2; i++) {
    ASSERT_OK(np_ftree_load_dir(argv[1 + i], 0, &in[i], &eb));
    struct seen s = {.n = 0};
    ASSERT_OK(np_results_self_check(in[i], labels[i], collect, &s));
    ASSERT_OK(np_results_load(in[i], labels[i], &sets[i], &eb));
  }
  check_tampering(in[0]);

  struct np_report_opts o = {.title = "netproof reliable UDP report",
                             .lang = "en"};
  struct np_ftree *idx = NULL, *idx2 = NULL, *pages = NULL, *gold = NULL;
  ASSERT_OK(np_report_build(sets, 2, &o, &idx, &eb));
  ASSERT_OK(np_report_build(sets, 2, &o, &idx2, &eb));
  same_trees(idx, idx2, "two builds");
  int rc = np_report_pages_build(sets, 2, NULL, &pages, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  const char *md = text_of(pages, "rudp.md");
  ASSERT_NOT_NULL(strstr(md, "### Which strategy wins where"));
  ASSERT_NOT_NULL(strstr(md, "no universal winner"));
  ASSERT_NOT_NULL(strstr(md, "### Payload and window (round trips/s / p99 ms)"));
  ASSERT_NOT_NULL(strstr(md, "### Sustained test"));
  ASSERT_NOT_NULL(strstr(md, "assets/rudp-fixture-rudp-throughput.svg"));
  ASSERT_NOT_NULL(strstr(text_of(idx, "index.md"),
                         "### Reliable UDP results by strategy"));
  report_json_valid(idx, "report.json");
  report_json_valid(pages, "assets/rudp-report.json");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/index", argv[3]);
  if (write)
    write_tree(idx, dir);
  ASSERT_OK(np_ftree_load_dir(dir, 0, &gold, &eb));
  same_trees(idx, gold, "golden index");
  np_ftree_free(gold);
  gold = NULL;
  snprintf(dir, sizeof dir, "%s/pages", argv[3]);
  if (write)
    write_tree(pages, dir);
  ASSERT_OK(np_ftree_load_dir(dir, 0, &gold, &eb));
  same_trees(pages, gold, "golden pages");
  np_ftree_free(gold);
  np_ftree_free(idx);
  np_ftree_free(idx2);
  np_ftree_free(pages);
  for (int i = 0; i < 2; i++) {
    np_results_free(sets[i]);
    np_ftree_free(in[i]);
  }
  puts("test_report_rudp: ok");
  return 0;
}
