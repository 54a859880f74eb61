/*
 * rudp_live_util.c - see rudp_live_util.h.
 */
#include "rudp_live_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_json.h"
#include "np_rudp_cli.h"
#include "np_test.h"
#include "np_schema.h"

int rl_run(const char *const *args, int n) {
  char *argv[64];
  ASSERT_LT(n, 63);
  argv[0] = (char *)"rudp";
  for (int i = 0; i < n; i++)
    argv[i + 1] = (char *)args[i];
  argv[n + 1] = NULL;
  return np_rudp_cli_main(n + 1, argv);
}

cJSON *rl_load(const char *path) {
  cJSON *doc = NULL;
  struct np_errbuf eb;
  if (np_json_load_file(path, NULL, &doc, &eb) != 0)
    NP_TEST_FAIL_("%s", eb.msg);
  return doc;
}

const cJSON *rl_get(const cJSON *o, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  const cJSON *cur = o;
  for (char *tok = strtok(buf, "/"); tok && cur; tok = strtok(NULL, "/")) {
    if (cJSON_IsArray(cur))
      cur = cJSON_GetArrayItem(cur, atoi(tok));
    else
      cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
  }
  if (cur == NULL)
    NP_TEST_FAIL_("record has no %s", path);
  return cur;
}

double rl_num(const cJSON *o, const char *path) {
  const cJSON *v = rl_get(o, path);
  ASSERT_TRUE(cJSON_IsNumber(v));
  return v->valuedouble;
}

void rl_check_passed(const cJSON *doc, const char *name) {
  const cJSON *checks = rl_get(doc, "checks");
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name) == 0) {
      if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")))
        NP_TEST_FAIL_("check %s failed: %s", name,
                      cJSON_GetObjectItem(c, "detail")->valuestring);
      return;
    }
  }
  NP_TEST_FAIL_("no check %s", name);
}

static void on_err(void *ctx, const char *ptr, const char *kw,
                   const char *reason) {
  (void)ctx;
  fprintf(stderr, "schema: %s: %s: %s\n", ptr, kw, reason);
}

/* The whole record against the shipped run schema ("rudp" part included,
 * schema/run.schema.json $defs/rudp); schema_dir is kept for callers. */
void rl_validate(const cJSON *doc, const char *schema_dir) {
  (void)schema_dir;
  struct np_errbuf eb;
  struct np_schema *run_s = NULL;
  ASSERT_OK(np_schema_builtin("run", &run_s, &eb));
  ASSERT_OK(np_schema_validate(run_s, doc, on_err, NULL));
  np_schema_free(run_s);
}

void rl_tmp_path(char *buf, size_t len, const char *tag) {
  snprintf(buf, len, "/tmp/np_rudp_test_%d_%s.json", (int)getpid(), tag);
}

