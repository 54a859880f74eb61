/*
 * matrix_quick.c - the `quick` plan for real: `netproof-bench matrix
 * bench/plans/quick.json` spawning `netproof-bench udp`, end to end.  Every
 * record validates, every configuration passes, the suite finishes in
 * under a minute, and stderr shows each repetition's own result (the last
 * one too) and the end summary.  argv[1]: netproof-bench, argv[2]: source
 * tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_schema.h"
#include "np_test.h"

static void validate_file(const char *path) {
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_json_load_file(path, NULL, &doc, &eb));
  int rc = np_schema_validate_tagged(doc, &eb);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", path, eb.msg);
  ASSERT_OK(rc);
  cJSON_Delete(doc);
}

/* One line per repetition with its own result, then the end summary. */
static void check_progress(const char *text, const char *out) {
  int lines = 0;
  for (const char *p = text; (p = strstr(p, "\n[")) != NULL; p++)
    lines++;
  ASSERT_EQ(lines, 12);
  static const char *const want[] = {
      "[1/4] udp-p1024-c16-w1-single-uv rep 1/3: passed, ",
      " round trips/s, ",
      "[3/4] udp-p1024-c16-w1-split-uv rep 3/3: passed, ",
      "[4/4] udp-p16384-c16-w64-single-uv-srb4m rep 3/3: failed as expected: "
      "no_loss: lost ",
      "netproof-bench matrix: suite quick complete after ",
      ": 12 repetitions run (9 passed), 0 kept from before\n",
      "  configurations: 3 passed, 0 failed, 1 expected-fail, 1 excluded from "
      "rankings (of 4)\n"};
  const char *at = text;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const char *hit = strstr(at, want[i]);
    if (hit == NULL)
      NP_TEST_FAIL_("stderr lacks (in order) \"%s\"", want[i]);
    at = hit;
  }
  char where[1200];
  snprintf(where, sizeof where, "  summary: %s/summary.json\n", out);
  ASSERT_NOT_NULL(strstr(text, where));
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 3);
  char tmp[256], out[512], plan[1024], err[600], p[1024];
  mx_tmpdir(tmp, sizeof tmp);
  snprintf(out, sizeof out, "%s/quick", tmp);
  snprintf(err, sizeof err, "%s/stderr.txt", tmp);
  snprintf(plan, sizeof plan, "%s/bench/plans/quick.json", argv[2]);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (freopen(err, "w", stderr) == NULL)
      _exit(99);
    execl(argv[1], argv[1], "matrix", plan, "--output", out, (char *)NULL);
    _exit(98);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  char *text = mx_read(err);
  fprintf(stderr, "%s", text);
  check_progress(text, out);
  free(text);
  printf("quick plan wall time: %.1f s\n", wall);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 0);
  ASSERT_LT(wall, 60);
  static const char *const ids[] = {"udp-p1024-c16-w1-single-uv",
                                    "udp-p1024-c16-w1-single-raw",
                                    "udp-p1024-c16-w1-split-uv",
                                    "udp-p16384-c16-w64-single-uv-srb4m"};
  for (size_t i = 0; i < 4; i++)
    for (int n = 1; n <= 3; n++) {
      snprintf(p, sizeof p, "%s/runs/%s/rep-%d.json", out, ids[i], n);
      validate_file(p);
    }
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  snprintf(p, sizeof p, "%s/suite.json", out);
  validate_file(p);
  snprintf(p, sizeof p, "%s/summary.json", out);
  validate_file(p);
  cJSON *sum = NULL;
  ASSERT_OK(np_json_load_file(p, NULL, &sum, NULL));
  const cJSON *t = cJSON_GetObjectItem(sum, "totals");
  ASSERT_EQ(np_json_get_number(t, "passed", -1), 3);
  ASSERT_EQ(np_json_get_number(t, "confirmed", -1), 1);
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(sum, "configurations")) {
    if (strcmp(np_json_get_string(c, "status", ""), "confirmed") == 0) {
      /* the probe: lost echoes equal the kernel's per-socket drops */
      const cJSON *stats = cJSON_GetObjectItem(c, "stats");
      double lost = np_json_get_number(cJSON_GetObjectItem(stats, "lost"),
                                       "median", -1);
      ASSERT_GT(lost, 0);
      ASSERT_EQ(lost, np_json_get_number(cJSON_GetObjectItem(stats,
                                                             "kernel_drops"),
                                         "median", -2));
      printf("%s: confirmed, %.0f lost = kernel drops\n",
             np_json_get_string(c, "id", ""), lost);
      continue;
    }
    const cJSON *rps = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(c, "stats"),
                            "roundtrips_per_sec"), "median");
    ASSERT_TRUE(cJSON_IsNumber(rps) && rps->valuedouble > 0);
    printf("%s: median %.0f round trips/s\n", np_json_get_string(c, "id", ""),
           rps->valuedouble);
  }
  cJSON_Delete(sum);
  mx_rm_rf(tmp);
  return 0;
}
