/*
 * test_exec_metric.c - the metric sources (json pointer, regex, file spec)
 * and every failure kind (missing, non-numeric, non-finite, multiple,
 * not-json, unreadable, truncated), the spec and bound parsers' refusals,
 * and bounds against numbers and kernel deltas (model/exec/np_exec_metric.h).
 */
#include <math.h>
#include <string.h>

#include "np_exec_metric.h"
#include "np_test.h"

static struct np_exec_metric_val eval(const char *spec, const char *data) {
  struct np_exec_metric_spec s;
  struct np_exec_metric_val v;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_exec_metric_parse(spec, &s, &eb));
  ASSERT_OK(np_exec_metric_eval(&s, data, strlen(data), 0, &v));
  return v;
}

static void test_json(void) {
  const char *doc = "{\"end\":{\"sum\":{\"lost_percent\":1.25,\"n\":null,"
                    "\"s\":\"12\",\"nan\":\"NaN\",\"o\":{}}},\"a\":[3,4]}";
  struct np_exec_metric_val v = eval("loss=json:/end/sum/lost_percent:%", doc);
  ASSERT_EQ(v.fail, NP_EXEC_OK);
  ASSERT_DBL_NEAR(v.value, 1.25, 0);
  ASSERT_STR_EQ(v.raw, "1.25");
  ASSERT_DBL_NEAR(eval("x=json:/a/1", doc).value, 4, 0);
  ASSERT_EQ(eval("x=json:/end/sum/absent", doc).fail, NP_EXEC_MISSING);
  ASSERT_EQ(eval("x=json:/a/2", doc).fail, NP_EXEC_MISSING);
  ASSERT_EQ(eval("x=json:/end/sum/n", doc).fail, NP_EXEC_NONNUMERIC);
  ASSERT_EQ(eval("x=json:/end/sum/s", doc).fail, NP_EXEC_NONNUMERIC);
  ASSERT_EQ(eval("x=json:/end/sum/o", doc).fail, NP_EXEC_NONNUMERIC);
  ASSERT_EQ(eval("x=json:/end/sum/nan", doc).fail, NP_EXEC_NONFINITE);
  ASSERT_EQ(eval("x=json:/a", "not json").fail, NP_EXEC_NOTJSON);
  ASSERT_EQ(eval("x=json:/a", "").fail, NP_EXEC_NOTJSON);
  /* a bare NaN is not JSON: the loader refuses it */
  ASSERT_EQ(eval("x=json:/a", "{\"a\": NaN}").fail, NP_EXEC_NOTJSON);
  ASSERT_DBL_NEAR(eval("x=json:", "42").value, 42, 0);
}

static void test_regex(void) {
  const char *out = "sockperf: ---> percentile 99.000 =  140.305\n"
                    "sockperf: ---> percentile 50.000 =    6.757\n"
                    "lat=nan\nlat2=inf\nrate=1,234\nx=1\nx=2\n";
  struct np_exec_metric_val v =
      eval("p99=regex:percentile 99\\.000 = *([0-9.]+):us", out);
  ASSERT_EQ(v.fail, NP_EXEC_OK);
  ASSERT_DBL_NEAR(v.value, 140.305, 0);
  ASSERT_EQ(v.matches, 1);
  ASSERT_EQ(eval("p=regex:percentile 99\\.9 = *([0-9.]+)", out).fail,
            NP_EXEC_MISSING);
  v = eval("x=regex:^x=(\\d+)$", out);
  ASSERT_EQ(v.fail, NP_EXEC_MULTIPLE);
  ASSERT_EQ(v.matches, 2);
  ASSERT_TRUE(strstr(v.reason, "2 times") != NULL);
  ASSERT_EQ(eval("l=regex:^lat=(\\w+)$", out).fail, NP_EXEC_NONFINITE);
  ASSERT_EQ(eval("l=regex:^lat2=(\\w+)$", out).fail, NP_EXEC_NONFINITE);
  ASSERT_EQ(eval("r=regex:^rate=(\\S+)$", out).fail, NP_EXEC_NONNUMERIC);
  ASSERT_EQ(eval("r=regex:^sockperf: (---)", out).fail, NP_EXEC_MULTIPLE);
  ASSERT_EQ(eval("r=regex:^(sockperf): ---> percentile 5", out).fail,
            NP_EXEC_NONNUMERIC);
  /* the optional group took no part */
  ASSERT_EQ(eval("o=regex:x=1(z)?\\n", out).fail, NP_EXEC_MISSING);
  /* ^ and $ are per line */
  ASSERT_DBL_NEAR(eval("e=regex:^x=(1)$", out).value, 1, 0);
}

static void test_spec_text(void) {
  struct np_exec_metric_spec s, t;
  char buf[2048], text[2100];
  ASSERT_OK(np_exec_metric_parse("f=file:out/r.json:json:/a/b:ms", &s, NULL));
  ASSERT_EQ(s.source, NP_EXEC_SOURCE_FILE);
  ASSERT_EQ(s.kind, NP_EXEC_KIND_JSON);
  ASSERT_STR_EQ(s.path, "out/r.json");
  ASSERT_STR_EQ(s.expr, "/a/b");
  ASSERT_STR_EQ(s.unit, "ms");
  ASSERT_OK(np_exec_metric_parse("g=file:log.txt:regex:t=(\\d+)", &s, NULL));
  ASSERT_EQ(s.kind, NP_EXEC_KIND_REGEX);
  ASSERT_STR_EQ(s.unit, "");
  /* the unit rule: a unit word after the last ':', a trailing ':' for none */
  ASSERT_OK(np_exec_metric_parse("h=regex:a:(\\d+):", &s, NULL));
  ASSERT_STR_EQ(s.expr, "a:(\\d+)");
  ASSERT_OK(np_exec_metric_parse("h=regex:t=(\\d+) ms:", &s, NULL));
  ASSERT_STR_EQ(s.expr, "t=(\\d+) ms");
  ASSERT_OK(np_exec_metric_parse("k=regex:v (\\d+):Mbit/s", &s, NULL));
  ASSERT_STR_EQ(s.unit, "Mbit/s");
  np_exec_metric_spec_text(&s, buf, sizeof buf);
  snprintf(text, sizeof text, "k=%s", buf);
  ASSERT_OK(np_exec_metric_parse(text, &t, NULL));
  ASSERT_STR_EQ(t.expr, s.expr);
  ASSERT_STR_EQ(t.unit, s.unit);
}

static void test_refusals(void) {
  static const char *const bad[] = {
      "noequals", "Bad=json:/a", "9x=json:/a", "x=csv:/a", "x=json:a/b",
      "x=regex:(a)(b)", "x=regex:nogroup", "x=regex:(", "x=regex:",
      "x=file:json:/a", "x=file:p.txt:/a",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct np_exec_metric_spec s;
    struct np_errbuf eb = {{0}};
    ASSERT_EQ(np_exec_metric_parse(bad[i], &s, &eb), NP_EUSAGE);
    ASSERT_TRUE(strstr(eb.msg, "--metric") != NULL);
  }
  static const char *const badb[] = {"x", "x<", "x<=abc", "x<=nan", "X<=1",
                                     "x<=kernel:", "x=>1", "x<=0x10"};
  for (size_t i = 0; i < sizeof badb / sizeof *badb; i++) {
    struct np_exec_bound b;
    struct np_errbuf eb = {{0}};
    ASSERT_EQ(np_exec_bound_parse(badb[i], &b, &eb), NP_EUSAGE);
    ASSERT_TRUE(strstr(eb.msg, "--check") != NULL);
  }
}

static void test_truncated_unreadable(void) {
  struct np_exec_metric_spec s;
  struct np_exec_metric_val v;
  ASSERT_OK(np_exec_metric_parse("x=json:/a", &s, NULL));
  ASSERT_OK(np_exec_metric_eval(&s, "{\"a\":1}", 7, 1, &v));
  ASSERT_EQ(v.fail, NP_EXEC_TRUNCATED);
  ASSERT_STR_EQ(np_exec_fail_name(v.fail), "truncated");
  ASSERT_OK(np_exec_metric_parse("x=file:r.json:json:/a", &s, NULL));
  np_exec_metric_unreadable(&s, "No such file or directory", &v);
  ASSERT_EQ(v.fail, NP_EXEC_UNREADABLE);
  ASSERT_TRUE(strstr(v.reason, "r.json") != NULL);
}

static void test_bounds(void) {
  struct np_exec_bound b;
  char d[320], text[160];
  ASSERT_OK(np_exec_bound_parse("loss<=5", &b, NULL));
  ASSERT_EQ(np_exec_bound_eval(&b, 5, 5, d, sizeof d), 1);
  ASSERT_EQ(np_exec_bound_eval(&b, 5.5, 5, d, sizeof d), 0);
  ASSERT_TRUE(strstr(d, "violates") != NULL);
  ASSERT_EQ(np_exec_bound_eval(&b, NAN, 5, d, sizeof d), 0);
  ASSERT_OK(np_exec_bound_parse("sent<=kernel:Udp.OutDatagrams", &b, NULL));
  ASSERT_EQ(b.kernel, 1);
  ASSERT_STR_EQ(b.counter, "Udp.OutDatagrams");
  ASSERT_EQ(np_exec_bound_eval(&b, 10, 12, d, sizeof d), 1);
  ASSERT_EQ(np_exec_bound_eval(&b, 10, NAN, d, sizeof d), 0);
  np_exec_bound_text(&b, text, sizeof text);
  ASSERT_STR_EQ(text, "sent<=kernel:Udp.OutDatagrams");
  static const char *const ops[] = {"a>=1", "a<1", "a>1", "a==1"};
  static const int want[] = {1, 0, 0, 1};
  for (int i = 0; i < 4; i++) {
    ASSERT_OK(np_exec_bound_parse(ops[i], &b, NULL));
    ASSERT_EQ(np_exec_bound_eval(&b, 1, b.value, d, sizeof d), want[i]);
  }
}

int main(void) {
  test_json();
  test_regex();
  test_spec_text();
  test_refusals();
  test_truncated_unreadable();
  test_bounds();
  printf("exec metrics: every source and failure kind\n");
  return 0;
}
