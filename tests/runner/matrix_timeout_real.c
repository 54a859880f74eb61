/*
 * matrix_timeout_real.c - a real `netproof-bench udp` child killed at the
 * plan's timeout: the runner writes the failed record (kind "timeout",
 * the runner session), and no temporary file of the child's early-opened
 * output (rep-N.json.tmp.tmp.<pid>) is left in the set.  Also checks that
 * a real child's record names the runner session of suite.json.
 * argv[1]: netproof-bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_test.h"

static int run_matrix(const char *bench, const char *plan, const char *out) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(bench, bench, "matrix", plan, "--output", out, "--quiet",
          (char *)NULL);
    _exit(98);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  return WEXITSTATUS(st);
}

static const char *session_of(const cJSON *doc) {
  return np_json_get_string(cJSON_GetObjectItem(doc, "runner"), "session",
                            "");
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], plan[512], out[512], p[1024];
  mx_tmpdir(tmp, sizeof tmp);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  snprintf(out, sizeof out, "%s/set", tmp);
  mx_write(plan,
           "{\"schema\": \"netproof/plan/1\", \"suite\": \"timeout-real\","
           " \"protocol\": \"udp\", \"repetitions\": 1,"
           " \"timeout_seconds\": 1.5,"
           " \"base\": {\"clients\": 1, \"warmup\": 0},"
           " \"configurations\": [{\"seconds\": 0.2}, {\"seconds\": 30}]}");
  ASSERT_EQ(run_matrix(argv[1], plan, out), 1); /* one configuration failed */
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  cJSON *suite = NULL, *ok = NULL, *killed = NULL;
  snprintf(p, sizeof p, "%s/suite.json", out);
  ASSERT_OK(np_json_load_file(p, NULL, &suite, NULL));
  const char *sess = np_json_get_string(
      cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"), 0),
      "session", NULL);
  ASSERT_NOT_NULL(sess);
  ASSERT_EQ(strlen(sess), 32);
  snprintf(p, sizeof p, "%s/runs/udp-p1024-c1-w1-single-uv-s0.2/rep-1.json",
           out);
  ASSERT_OK(np_json_load_file(p, NULL, &ok, NULL));
  ASSERT_STR_EQ(np_json_get_string(ok, "status", ""), "passed");
  ASSERT_STR_EQ(session_of(ok), sess);
  snprintf(p, sizeof p, "%s/runs/udp-p1024-c1-w1-single-uv-s30/rep-1.json",
           out);
  ASSERT_OK(np_json_load_file(p, NULL, &killed, NULL));
  ASSERT_STR_EQ(np_json_get_string(killed, "status", ""), "failed");
  ASSERT_STR_EQ(np_json_get_string(cJSON_GetObjectItem(killed, "failure"),
                                   "kind", ""),
                "timeout");
  ASSERT_STR_EQ(session_of(killed), sess);
  cJSON_Delete(suite);
  cJSON_Delete(ok);
  cJSON_Delete(killed);
  mx_rm_rf(tmp);
  puts("matrix_timeout_real: ok");
  return 0;
}
