/* test_results_stat.c - np_results' statistics use every value: a rudp
 * record of 130 rounds gives min / max over all 130 (a fixed 128-slot
 * buffer once dropped the last two), 70 repetitions give the median of all
 * 70, and np_results_num reads JSON pointers. */
#include <math.h>
#include <stdio.h>

#include "np_ftree.h"
#include "np_json.h"
#include "np_results.h"
#include "np_results_rudp.h"
#include "np_test.h"

/* A minimal run record: status, protocol, roundtrips_per_sec = rps and,
 * when rounds > 0, a rudp part whose round i has roundtrips_per_sec = i. */
static void add_record(struct np_ftree *t, const char *path, double rps,
                       int rounds) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "status", "passed");
  cJSON *cfg = cJSON_AddObjectToObject(d, "config");
  cJSON_AddStringToObject(cfg, "protocol", rounds > 0 ? "rudp" : "udp");
  cJSON *m = cJSON_AddObjectToObject(d, "measurement");
  cJSON_AddNumberToObject(m, "roundtrips_per_sec", rps);
  if (rounds > 0) {
    cJSON *part = cJSON_AddObjectToObject(d, "rudp");
    cJSON_AddNumberToObject(part, "median_round", 65);
    cJSON *arr = cJSON_AddArrayToObject(part, "rounds");
    for (int i = 0; i < rounds; i++) {
      cJSON *r = cJSON_CreateObject();
      cJSON *rm = cJSON_AddObjectToObject(r, "measurement");
      cJSON_AddNumberToObject(rm, "roundtrips_per_sec", i);
      cJSON_AddItemToArray(arr, r);
    }
  }
  char *txt = np_json_print(d, 0);
  ASSERT_NOT_NULL(txt);
  ASSERT_OK(np_ftree_add(t, path, txt, strlen(txt)));
  free(txt);
  cJSON_Delete(d);
}

static void test_rudp_rounds_uncapped(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  add_record(t, "runs/rudp-x/rep-1.json", 65, 130);
  struct np_results_set *s = NULL;
  struct np_errbuf eb;
  ASSERT_OK(np_results_load(t, "fx", &s, &eb));
  ASSERT_TRUE(np_results_is_rudp(s));
  ASSERT_EQ(s->nconfigs, 1);
  double med, mn, mx;
  size_t n = 0;
  ASSERT_OK(np_results_rudp_stat(&s->configs[0], NP_R_RPS, &med, &mn, &mx,
                                 &n));
  ASSERT_EQ(n, 130);
  ASSERT_DBL_NEAR(med, 65, 0); /* the median round, by the record */
  ASSERT_DBL_NEAR(mn, 0, 0);
  ASSERT_DBL_NEAR(mx, 129, 0);
  np_results_free(s);
  np_ftree_free(t);
}

static void test_repetitions_uncapped(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  char path[64];
  for (int i = 1; i <= 70; i++) {
    snprintf(path, sizeof path, "runs/udp-x/rep-%d.json", i);
    add_record(t, path, 1000 + i, 0);
  }
  struct np_results_set *s = NULL;
  struct np_errbuf eb;
  ASSERT_OK(np_results_load(t, "fx", &s, &eb));
  ASSERT_TRUE(!np_results_is_rudp(s));
  ASSERT_EQ(s->configs[0].nruns, 70);
  ASSERT_EQ(s->configs[0].runs[69].rep, 70); /* numeric order */
  double med, mn, mx;
  ASSERT_EQ(np_results_stat(&s->configs[0], NP_M_RPS, 1, &med, &mn, &mx), 70);
  ASSERT_DBL_NEAR(med, 1035.5, 0);
  ASSERT_DBL_NEAR(mn, 1001, 0);
  ASSERT_DBL_NEAR(mx, 1070, 0);
  /* a metric no record has: no values, NANs */
  ASSERT_EQ(np_results_stat(&s->configs[0], NP_M_P99, 0, &med, &mn, &mx), 0);
  ASSERT_TRUE(isnan(med) && isnan(mn) && isnan(mx));
  np_results_free(s);
  np_ftree_free(t);
}

static void test_num(void) {
  cJSON *d = NULL;
  const char *txt = "{\"kernel\": {\"delta\": {\"Udp.RcvbufErrors\": 7}}, "
                    "\"a\": [1, \"x\"]}";
  ASSERT_OK(np_json_parse(txt, strlen(txt), NULL, &d, NULL));
  ASSERT_DBL_NEAR(np_results_num(d, "/kernel/delta/Udp.RcvbufErrors"), 7, 0);
  ASSERT_DBL_NEAR(np_results_num(d, "/a/0"), 1, 0);
  ASSERT_TRUE(isnan(np_results_num(d, "/a/1")));   /* not a number */
  ASSERT_TRUE(isnan(np_results_num(d, "kernel"))); /* not a pointer */
  ASSERT_TRUE(isnan(np_results_num(d, "/missing")));
  cJSON_Delete(d);
}

int main(void) {
  test_rudp_rounds_uncapped();
  test_repetitions_uncapped();
  test_num();
  puts("test_results_stat: ok");
  return 0;
}
