/*
 * test_results_hist.c - the self-check's histogram rule on records built
 * in memory: a record whose summary came from its histogram is clean;
 * a changed percentile, count, mean or null, a corrupted or truncated
 * histogram, and a summary pointer that resolves to nothing are each
 * reported with the JSON pointer of what is wrong; records without
 * histograms have nothing to check.
 */
#include <stdio.h>
#include <string.h>

#include "np_hist_codec.h"
#include "np_results_hist.h"
#include "np_test.h"

struct seen {
  char lines[16][768];
  size_t n;
};

static void collect(void *ctx, const char *ptr, const char *reason) {
  struct seen *s = ctx;
  if (s->n < 16)
    snprintf(s->lines[s->n], sizeof s->lines[0], "%s: %s", ptr, reason);
  s->n++;
}

/* {"measurement": {"rtt_us": summary, "rtt_histogram": histogram}} over
 * n samples. */
static cJSON *record(int n) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, INT64_C(60000000000), 3, &h));
  for (int i = 1; i <= n; i++)
    ASSERT_OK(np_hist_record(h, 20000 + (int64_t)i * 37 % 90000));
  cJSON *d = cJSON_CreateObject();
  cJSON *m = cJSON_AddObjectToObject(d, "measurement");
  cJSON_AddItemToObject(m, "rtt_us", np_hist_summary_json(h, 1000.0));
  cJSON *o = np_hist_to_json(h, "ns");
  cJSON_AddStringToObject(o, "summarizes", "rtt_us");
  cJSON_AddItemToObject(m, "rtt_histogram", o);
  np_hist_free(h);
  return d;
}

/* Set the member at parent/key to v; the problems the rule reports. */
static struct seen check_with(int n, const char *parent, const char *key,
                              cJSON *v) {
  cJSON *d = record(n);
  if (parent) {
    cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(d, "measurement"), parent);
    ASSERT_NOT_NULL(p);
    ASSERT_TRUE(cJSON_ReplaceItemInObjectCaseSensitive(p, key, v));
  }
  struct seen s = {0};
  size_t k = np_results_check_hist(d, collect, &s);
  ASSERT_EQ(k, s.n);
  cJSON_Delete(d);
  return s;
}

static void expect(const char *parent, const char *key, cJSON *v, int n,
                   const char *want) {
  struct seen s = check_with(n, parent, key, v);
  int found = 0;
  for (size_t i = 0; i < s.n && i < 16; i++)
    found |= strstr(s.lines[i], want) != NULL;
  if (!found) {
    for (size_t i = 0; i < s.n && i < 16; i++)
      fprintf(stderr, "  got: %s\n", s.lines[i]);
    NP_TEST_FAIL_("%s/%s: expected a problem with \"%s\"", parent, key, want);
  }
}

int main(void) {
  struct seen s = check_with(5000, NULL, NULL, NULL);
  ASSERT_EQ(s.n, 0);
  s = check_with(0, NULL, NULL, NULL); /* empty: nulls agree */
  ASSERT_EQ(s.n, 0);
  expect("rtt_us", "p99", cJSON_CreateNumber(1.5), 5000,
         "/measurement/rtt_us/p99: 1.5, the histogram gives");
  expect("rtt_us", "mean", cJSON_CreateNumber(50), 5000,
         "/measurement/rtt_us/mean");
  expect("rtt_us", "count", cJSON_CreateNumber(4999), 5000,
         "/measurement/rtt_us/count");
  /* 500 samples cannot support p99.9 */
  expect("rtt_us", "p999", cJSON_CreateNumber(99), 500,
         "/measurement/rtt_us/p999: 99, but the histogram's 500 samples");
  expect("rtt_us", "p50", cJSON_CreateNull(), 5000,
         "/measurement/rtt_us/p50: missing or null");
  expect("rtt_histogram", "count", cJSON_CreateNumber(5001), 5000,
         "/measurement/rtt_histogram/count: 5001, but the counts");
  expect("rtt_histogram", "data", cJSON_CreateString("HISTFAAAAB54"), 5000,
         "/measurement/rtt_histogram/data");
  expect("rtt_histogram", "max", cJSON_CreateNumber(1), 5000,
         "/measurement/rtt_histogram/min, /max");
  expect("rtt_histogram", "summarizes", cJSON_CreateString("nowhere"), 5000,
         "/measurement/rtt_histogram: summarizes nowhere");
  cJSON *plain = cJSON_Parse("{\"measurement\":{\"rtt_us\":{\"p50\":1}}}");
  ASSERT_EQ(np_results_check_hist(plain, collect, &s), 0);
  cJSON_Delete(plain);
  return 0;
}
