/*
 * far_test_util.h - what the far self-check tests share
 * (test_results_far.c, test_results_far_rudp.c): the problem callback
 * collecting pointers, and edits of a fixture at a JSON pointer (a test
 * fails when the fixture has no such value).  Static: one copy per test
 * program.
 */
#ifndef FAR_TEST_UTIL_H
#define FAR_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_test.h"

struct seen {
  size_t n;
  char ptrs[2048];
};

static void on_problem(void *ctx, const char *ptr, const char *reason) {
  struct seen *s = ctx;
  (void)reason;
  s->n++;
  size_t used = strlen(s->ptrs);
  snprintf(s->ptrs + used, sizeof s->ptrs - used, "%s ", ptr);
}

static cJSON *at(cJSON *d, const char *ptr) {
  cJSON *v = (cJSON *)np_json_pointer(d, ptr);
  if (v == NULL)
    NP_TEST_FAIL_("the fixture has no %s", ptr);
  return v;
}

static void add(cJSON *d, const char *ptr, double k) {
  cJSON *v = at(d, ptr);
  cJSON_SetNumberValue(v, v->valuedouble + k);
}

static void set_str(cJSON *d, const char *ptr, const char *s) {
  cJSON *v = at(d, ptr);
  ASSERT_TRUE(cJSON_IsString(v));
  cJSON_SetValuestring(v, s);
}

#endif /* FAR_TEST_UTIL_H */
