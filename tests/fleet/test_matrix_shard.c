/*
 * test_matrix_shard.c - the --shard cut (model/plan/np_matrix_shard.h)
 * on every shipped plan: K/N parsing and its refusals; for N = 1..8 every
 * configuration in exactly one slice, the same cut twice, the slices'
 * estimates adding up to the plan's and within the greedy bound (no slice
 * above the mean plus the longest configuration); more slices than
 * configurations refused, and 0 slices; the suite.json object lists the
 * slice's ids, and reading one back refuses what --shard would (counts
 * outside 1..1000, an index outside 0..N-1, non-integers).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_matrix_plan.h"
#include "np_matrix_shard.h"
#include "np_test.h"

static void test_parse(void) {
  unsigned k = 7, n = 7;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_matrix_shard_parse("0/1", &k, &n, &eb));
  ASSERT_UINT_EQ(k, 0);
  ASSERT_UINT_EQ(n, 1);
  ASSERT_OK(np_matrix_shard_parse("3/4", &k, &n, &eb));
  ASSERT_UINT_EQ(k, 3);
  ASSERT_UINT_EQ(n, 4);
  static const char *const bad[] = {"4/4", "1/0", "-1/4", "1/-4", "x",
                                    "1/",  "/4",  "1/4x", "1/1001", "+1/4",
                                    "1/+4", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    k = n = 9;
    eb.msg[0] = '\0';
    ASSERT_EQ(np_matrix_shard_parse(bad[i], &k, &n, &eb), NP_EUSAGE);
    ASSERT_UINT_EQ(k, 9);
    ASSERT_UINT_EQ(n, 9);
    ASSERT_TRUE(strncmp(eb.msg, "--shard '", 9) == 0);
  }
}

/* suite.json's shard object read back: integers within the --shard
 * bounds, or one line naming the field; the outputs untouched then. */
static void test_read(void) {
  unsigned k = 7, n = 7;
  struct np_errbuf eb = {{0}};
  cJSON *o = cJSON_Parse("{\"index\":3,\"count\":4}");
  ASSERT_OK(np_matrix_shard_read(o, &k, &n, &eb));
  ASSERT_UINT_EQ(k, 3);
  ASSERT_UINT_EQ(n, 4);
  cJSON_Delete(o);
  static const struct {
    const char *json, *why;
  } bad[] = {
      {"{\"index\":0,\"count\":0}", "/shard/count: 0, not an integer 1..1000"},
      {"{\"index\":0,\"count\":-1}", "/shard/count: -1,"},
      {"{\"index\":0,\"count\":1.5}", "/shard/count: 1.5,"},
      {"{\"index\":0,\"count\":1001}", "/shard/count: 1001,"},
      {"{\"index\":0,\"count\":1e300}", "e+300, not an integer 1..1000"},
      {"{\"index\":0,\"count\":\"4\"}", "/shard/count: not a number"},
      {"{\"index\":0}", "/shard/count: missing"},
      {"{\"index\":-1,\"count\":4}", "/shard/index: -1, not an integer 0..3"},
      {"{\"index\":4,\"count\":4}", "/shard/index: 4,"},
      {"{\"index\":0.5,\"count\":4}", "/shard/index: 0.5,"},
      {"{\"index\":-1e300,\"count\":4}", "e+300, not an integer 0..3"},
      {"{\"count\":4}", "/shard/index: missing"},
      {"[0,4]", "/shard: not an object"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    o = cJSON_Parse(bad[i].json);
    ASSERT_NOT_NULL(o);
    k = n = 9;
    eb.msg[0] = '\0';
    ASSERT_EQ(np_matrix_shard_read(o, &k, &n, &eb), NP_EUSAGE);
    ASSERT_UINT_EQ(k, 9);
    ASSERT_UINT_EQ(n, 9);
    if (strstr(eb.msg, bad[i].why) == NULL)
      NP_TEST_FAIL_("%s: '%s' lacks '%s'", bad[i].json, eb.msg, bad[i].why);
    cJSON_Delete(o);
  }
}

static void test_plan(const char *path) {
  struct np_matrix_plan *p = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_matrix_plan_load(path, &p, &eb));
  double all = 0, longest = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    double c = p->configs[i].est_seconds * p->repetitions;
    all += c;
    longest = c > longest ? c : longest;
  }
  unsigned *a = calloc(p->nconfigs, sizeof *a);
  unsigned *b = calloc(p->nconfigs, sizeof *b);
  double est[8];
  ASSERT_NOT_NULL(a);
  ASSERT_NOT_NULL(b);
  for (unsigned n = 1; n <= 8 && n <= p->nconfigs; n++) {
    ASSERT_OK(np_matrix_shard_assign(p, n, a, est, &eb));
    ASSERT_OK(np_matrix_shard_assign(p, n, b, NULL, &eb));
    ASSERT_EQ(memcmp(a, b, p->nconfigs * sizeof *a), 0);
    double sum = 0;
    for (unsigned k = 0; k < n; k++) {
      double mine = 0;
      size_t count = 0;
      for (size_t i = 0; i < p->nconfigs; i++)
        if (a[i] == k) {
          mine += p->configs[i].est_seconds * p->repetitions;
          count++;
        }
      ASSERT_GT(count, 0);
      ASSERT_DBL_NEAR(est[k], mine, 1e-6);
      ASSERT_TRUE(est[k] <= all / n + longest + 1e-6);
      sum += est[k];
    }
    ASSERT_DBL_NEAR(sum, all, 1e-6);
    for (size_t i = 0; i < p->nconfigs; i++)
      ASSERT_LT(a[i], n);
    cJSON *j = np_matrix_shard_json(p, n - 1, n, &eb);
    ASSERT_NOT_NULL(j);
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(j, "configurations");
    size_t listed = 0;
    for (size_t i = 0; i < p->nconfigs; i++)
      if (a[i] == n - 1) {
        const cJSON *id = cJSON_GetArrayItem(ids, (int)listed++);
        ASSERT_NOT_NULL(id);
        ASSERT_STR_EQ(id->valuestring, p->configs[i].id);
      }
    ASSERT_EQ(cJSON_GetArraySize(ids), (int)listed);
    cJSON_Delete(j);
  }
  ASSERT_EQ(np_matrix_shard_assign(p, (unsigned)p->nconfigs + 1, a, NULL,
                                   &eb),
            NP_EUSAGE);
  ASSERT_NOT_NULL(strstr(eb.msg, "a slice would be empty"));
  /* no slices: refused (it once allocated none and wrote the first) */
  eb.msg[0] = '\0';
  ASSERT_EQ(np_matrix_shard_assign(p, 0, a, NULL, &eb), NP_EUSAGE);
  ASSERT_NOT_NULL(strstr(eb.msg, "0 slices"));
  ASSERT_TRUE(np_matrix_shard_json(p, 0, 0, &eb) == NULL);
  free(a);
  free(b);
  np_matrix_plan_free(p);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  test_parse();
  test_read();
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/bench/plans", argv[1]);
  DIR *d = opendir(dir);
  ASSERT_NOT_NULL(d);
  struct dirent *e;
  int plans = 0;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    test_plan(path);
    plans++;
  }
  closedir(d);
  ASSERT_GT(plans, 5);
  return 0;
}
