/* test_report_refs.c - references in readings (np_report_refs.h, issue
 * 33): values, ranges, sums, ratios, the verdict of compare's test, the
 * formats, expansion with line numbers, and every way a reference can
 * fail to resolve (one line naming file, line, reference and reason). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ftree.h"
#include "np_json.h"
#include "np_report_refs.h"
#include "np_results.h"
#include "np_test.h"

static void add_run(struct np_ftree *t, const char *cfg, int rep, double rps,
                    double p99, const char *status) {
  char path[128];
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "status", status);
  cJSON *c = cJSON_AddObjectToObject(d, "config");
  cJSON_AddStringToObject(c, "protocol", "udp");
  cJSON *m = cJSON_AddObjectToObject(d, "measurement");
  cJSON_AddNumberToObject(m, "roundtrips_per_sec", rps);
  cJSON_AddNumberToObject(m, "rss_max_bytes", 11878400);
  cJSON *r = cJSON_AddObjectToObject(m, "rtt_us");
  cJSON_AddNumberToObject(r, "p99", p99);
  cJSON *cnt = cJSON_AddObjectToObject(d, "counters");
  cJSON_AddNumberToObject(cnt, "lost", rep * 10);
  char *txt = np_json_print(d, 0);
  ASSERT_NOT_NULL(txt);
  snprintf(path, sizeof path, "runs/%s/rep-%d.json", cfg, rep);
  ASSERT_OK(np_ftree_add(t, path, txt, strlen(txt)));
  free(txt);
  cJSON_Delete(d);
}

/* Set "s1": a (3 runs 81,000..83,000), b (3 runs 60,000..70,000), fast
 * and slow (5 runs each, ranges apart), same1/same2 (identical). */
static struct np_results_set *make_set(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  const char *suite = "{\"suite\": \"s1\", \"configurations\": 90, "
                      "\"load\": 1.68}";
  ASSERT_OK(np_ftree_add(t, "suite.json", suite, strlen(suite)));
  add_run(t, "a", 1, 81602.4, 172.3, "passed");
  add_run(t, "a", 2, 83000, 180, "passed");
  add_run(t, "a", 3, 81000, 150, "passed");
  add_run(t, "b", 1, 68149, 1513.2, "passed");
  add_run(t, "b", 2, 70000, 1600, "passed");
  add_run(t, "b", 3, 60000, 1400, "failed");
  for (int i = 1; i <= 5; i++) {
    add_run(t, "fast", i, 1000 + i, 10, "passed");
    add_run(t, "slow", i, 500 + i, 10, "passed");
  }
  for (int i = 1; i <= 3; i++) {
    add_run(t, "same1", i, 653, 1, "passed");
    add_run(t, "same2", i, 653, 1, "passed");
  }
  struct np_results_set *s = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_results_load(t, "vm-x-s1", &s, &eb));
  np_ftree_free(t);
  return s;
}

static void want(struct np_results_set *s, const char *body, const char *exp) {
  char buf[256];
  struct np_errbuf eb = {{0}};
  int rc = np_report_ref_resolve(body, &s, 1, buf, sizeof buf, &eb);
  if (rc != 0) {
    fprintf(stderr, "%s: %s\n", body, eb.msg);
    ASSERT_OK(rc);
  }
  ASSERT_STR_EQ(buf, exp);
}

static void want_err(struct np_results_set *s, const char *body,
                     const char *reason) {
  char buf[256];
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_report_ref_resolve(body, &s, 1, buf, sizeof buf, &eb),
            NP_EINVAL);
  if (strstr(eb.msg, reason) == NULL) {
    fprintf(stderr, "%s: got '%s', want '%s'\n", body, eb.msg, reason);
    ASSERT_TRUE(0);
  }
}

static void test_values(struct np_results_set *s) {
  want(s, "s1: a rps", "81,602");
  want(s, "vm-x-s1: a rps", "81,602"); /* by folder name */
  want(s, "s1: a rps range", "81,000\xe2\x80\x93" "83,000");
  want(s, "s1: a rps min k", "81k");
  want(s, "s1: a p99", "172");
  want(s, "s1: b p99 ms1", "1.5");
  want(s, "s1: b p99 max sig2", "1,600");
  want(s, "s1: b rps passed range", "68,149\xe2\x80\x93" "70,000");
  want(s, "s1: b rps n", "3");
  want(s, "s1: b rps passed n", "2");
  want(s, "s1: a lost sum", "60");
  want(s, "s1: a rss", "11.3");
  want(s, "s1: a /measurement/rss_max_bytes mib2", "11.33");
  want(s, "s1: a /counters/lost max", "30");
  want(s, "s1: ? rps mrange", "68,149\xe2\x80\x93" "81,602");
  want(s, "s1: same* rps range", "653");
  want(s, "s1: suite.json /configurations", "90");
  want(s, "s1: suite.json /load d1", "1.7");
  want(s, "s1: suite.json /load", "1.68");
}

static void test_pairs(struct np_results_set *s) {
  want(s, "ratio: s1: b / a rps", "0.84\xc3\x97");
  want(s, "ratio: s1: b / a rps d1", "0.8");
  /* 3 + 3 passed-only runs cannot reach p < 0.05 */
  want(s, "verdict: s1: a vs b rps", "not distinguishable at 3 + 2 runs");
  want(s, "verdict: s1: fast vs slow rps", "significantly faster");
  want(s, "verdict: s1: slow vs fast rps", "significantly slower");
  want(s, "verdict: s1: fast vs slow p99", "not significantly different");
  want(s, "ranges: s1: fast vs slow rps", "ranges apart");
  want(s, "ranges: s1: a vs b rps", "ranges apart");
  want(s, "ranges: s1: a vs a rps", "ranges overlap");
  want(s, "same: s1: same1 vs same2 rps", "identical in every run");
  want(s, "same: s1: a vs b rps", "not identical");
}

static void test_errors(struct np_results_set *s) {
  want_err(s, "s2: a rps", "no result set 's2'");
  want_err(s, "s1 a rps", "want 'SET:' first");
  want_err(s, "s1: nope rps", "no configuration 'nope' in vm-x-s1");
  want_err(s, "s1: a speed", "unknown quantity 'speed'");
  want_err(s, "s1: a rps average", "'average' is no statistic");
  want_err(s, "s1: a /rudp/none", "no value of that quantity");
  want_err(s, "s1: summary.json /x", "has no number at /x");
  want_err(s, "s1: suite.json /configurations furlongs", "unknown format");
  want_err(s, "ratio: s1: a vs b rps", "want SET: A / B QUANTITY");
  want_err(s, "verdict: s1: a vs b lost", "compare has no test for 'lost'");
  want_err(s, "s1:", "nothing after");
}

static void test_expand(struct np_results_set *s) {
  const char *text = "Raw reaches {{s1: a rps}} round trips/s,\n"
                     "libuv {{ratio: s1: b / a rps}} of that.\n";
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_report_refs_expand(text, strlen(text), "r.md", &s, 1, f, &eb));
  fclose(f);
  ASSERT_STR_EQ(out, "Raw reaches 81,602 round trips/s,\n"
                     "libuv 0.84\xc3\x97 of that.\n");
  free(out);
  const char *bad = "one\ntwo {{s1: a rps}}\nthree {{s1: zz rps}}\n";
  f = open_memstream(&out, &len);
  ASSERT_EQ(np_report_refs_expand(bad, strlen(bad), "r.md", &s, 1, f, &eb),
            NP_EINVAL);
  fclose(f);
  free(out);
  ASSERT_STR_EQ(eb.msg, "r.md:3: {{s1: zz rps}}: no configuration 'zz' in "
                        "vm-x-s1");
  const char *open = "a\n\nb {{s1: a rps\n";
  f = open_memstream(&out, &len);
  ASSERT_EQ(np_report_refs_expand(open, strlen(open), "r.md", &s, 1, f, &eb),
            NP_EINVAL);
  fclose(f);
  free(out);
  ASSERT_STR_EQ(eb.msg, "r.md:3: '{{' without '}}'");
}

int main(void) {
  struct np_results_set *s = make_set();
  test_values(s);
  test_pairs(s);
  test_errors(s);
  test_expand(s);
  np_results_free(s);
  puts("test_report_refs: ok");
  return 0;
}
