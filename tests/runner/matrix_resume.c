/*
 * matrix_resume.c - a matrix killed with SIGKILL while a child runs, then
 * --resume: complete repetitions are kept byte for byte, the partial one is
 * redone, no half or temporary file survives, the orphaned child died with
 * its parent.  The killed runner's lock file stays behind and does not
 * block the resume, which removes it when it ends; the set then has two
 * sessions and each record names the one that ran it.  --resume on the
 * complete suite says so and prints the end summary.  Also SIGINT: the
 * current child is killed, summary.json is written for what finished, the
 * message says how to resume, exit 130.
 * argv[1]: the fake bench script (payload 5 = a 0.4 s run).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_test.h"

static const char plan_text[] =
    "{\"schema\":\"netproof/plan/1\",\"suite\":\"slow\",\"protocol\":\"udp\","
    "\"repetitions\":2,\"timeout_seconds\":10,"
    "\"base\":{\"payload\":5,\"seconds\":0.1,\"warmup\":0},"
    "\"dimensions\":{\"clients\":[1,2,3]}}";

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Finished repetitions: rep-N.json files (suite/summary excluded). */
static int complete_reps(const char *out) {
  return mx_count(out, ".json") - mx_count(out, ".json.tmp") -
         mx_count(out, "suite.json") - mx_count(out, "summary.json");
}

/* Wait (bounded) until at least n repetitions finished and another one has
 * started, i.e. a child is running. */
static void wait_mid_run(const char *out, int n) {
  for (int i = 0; i < 400; i++) {
    int done = complete_reps(out);
    if (done >= n && mx_count(out, ".cmd.txt") > done)
      return;
    nap(0.01);
  }
  NP_TEST_FAIL_("matrix never reached %d finished repetitions", n);
}

static void check_complete(const char *out) {
  ASSERT_EQ(complete_reps(out), 6);
  ASSERT_EQ(mx_count(out, ".cmd.txt"), 6);
  ASSERT_EQ(mx_count(out, ".stderr.txt"), 6);
  ASSERT_EQ(mx_count(out, ".kernel-before.txt"), 0); /* by reference */
  ASSERT_EQ(mx_count(out, ".kernel-after.txt"), 0);
  /* the interrupted repetition's snapshots went with its cmd.txt */
  ASSERT_EQ(mx_snapshot_problems(out), 0);
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  char p[600];
  snprintf(p, sizeof p, "%s/summary.json", out);
  cJSON *sum = NULL;
  ASSERT_OK(np_json_load_file(p, NULL, &sum, NULL));
  const cJSON *t = cJSON_GetObjectItem(sum, "totals");
  ASSERT_EQ(np_json_get_number(t, "passed", -1), 3);
  ASSERT_EQ(np_json_get_number(t, "incomplete", -1), 0);
  cJSON_Delete(sum);
}

/* The first session's records name it, the resumed ones the second. */
static void check_two_sessions(const char *out, const cJSON *ses, int kept) {
  const char *s1 = np_json_get_string(cJSON_GetArrayItem(ses, 0), "session",
                                      "");
  const char *s2 = np_json_get_string(cJSON_GetArrayItem(ses, 1), "session",
                                      "");
  ASSERT_EQ(strlen(s1), 32);
  ASSERT_EQ(strlen(s2), 32);
  ASSERT_TRUE(strcmp(s1, s2) != 0);
  static const char *const cfg[] = {"udp-p5-c1-w1-single-uv",
                                    "udp-p5-c2-w1-single-uv",
                                    "udp-p5-c3-w1-single-uv"};
  int n1 = 0, n2 = 0;
  for (int i = 0; i < 6; i++) {
    char p[700];
    snprintf(p, sizeof p, "%s/runs/%s/rep-%d.json", out, cfg[i / 2],
             i % 2 + 1);
    cJSON *rec = NULL;
    ASSERT_OK(np_json_load_file(p, NULL, &rec, NULL));
    const char *s = np_json_get_string(cJSON_GetObjectItem(rec, "runner"),
                                       "session", "");
    /* repetitions run in order: the first `kept` ran in session 1 */
    ASSERT_STR_EQ(s, i < kept ? s1 : s2);
    n1 += strcmp(s, s1) == 0;
    n2 += strcmp(s, s2) == 0;
    cJSON_Delete(rec);
  }
  ASSERT_EQ(n1, kept);
  ASSERT_EQ(n2, 6 - kept);
}

/* --resume on a complete suite: it says so, runs nothing, and prints the
 * end summary (it used to print nothing). */
static void resume_complete(const char *fake, const char *plan,
                            const char *tmp, const char *out) {
  char err[600], want[1400];
  snprintf(err, sizeof err, "%s/complete-err.txt", tmp);
  char *resume[] = {"matrix", (char *)plan, "--output", (char *)out,
                    "--bench-binary", (char *)fake, "--resume", NULL};
  ASSERT_EQ(mx_run(resume, NULL, err), 0);
  char *text = mx_read(err);
  fprintf(stderr, "%s", text);
  ASSERT_NOT_NULL(strstr(text, "netproof-bench matrix: suite slow is already "
                               "complete: all 6 repetitions kept, nothing to "
                               "run\n"));
  ASSERT_NOT_NULL(strstr(text, ": 0 repetitions run (0 passed), 6 kept from "
                               "before\n"));
  ASSERT_NOT_NULL(strstr(text, "  configurations: 3 passed, 0 failed, 0 "
                               "expected-fail, 0 excluded from rankings (of "
                               "3)\n"));
  snprintf(want, sizeof want, "  summary: %s/summary.json\n", out);
  ASSERT_NOT_NULL(strstr(text, want));
  ASSERT_TRUE(strstr(text, "rep 1/2:") == NULL); /* nothing ran */
  free(text);
  check_complete(out);
}

static void test_sigkill_resume(const char *fake, const char *plan,
                                const char *tmp) {
  char out[600], first[700], p[700];
  snprintf(out, sizeof out, "%s/out-kill", tmp);
  char *run[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                 (char *)fake, "--quiet", NULL};
  pid_t pid = mx_spawn(run, NULL, NULL);
  wait_mid_run(out, 2);
  nap(0.1); /* well inside the running child's 0.4 s */
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(mx_wait(pid), 128 + SIGKILL);
  int kept = complete_reps(out);
  ASSERT_GE(kept, 2);
  ASSERT_LT(kept, 6);
  ASSERT_GT(mx_count(out, ".cmd.txt"), kept); /* a partial repetition */
  snprintf(p, sizeof p, "%s/summary.json", out);
  ASSERT_TRUE(!mx_exists(p));
  snprintf(first, sizeof first, "%s/runs/udp-p5-c1-w1-single-uv/rep-1.json",
           out);
  char *before = mx_read(first);
  ASSERT_TRUE(strlen(before) > 0);
  /* the orphaned child was killed with its parent (PR_SET_PDEATHSIG):
   * it never writes its record */
  nap(0.7);
  ASSERT_EQ(mx_count(out, ".json.tmp"), 0);
  ASSERT_EQ(complete_reps(out), kept);

  char lock[700];
  snprintf(lock, sizeof lock, "%s/.netproof-matrix.lock", out);
  ASSERT_TRUE(mx_exists(lock)); /* stale: its flock died with the runner */

  char *resume[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                    (char *)fake, "--quiet", "--resume", NULL};
  ASSERT_EQ(mx_run(resume, NULL, NULL), 0);
  check_complete(out);
  ASSERT_TRUE(!mx_exists(lock));
  char *after = mx_read(first);
  ASSERT_STR_EQ(before, after); /* kept, not rerun */
  free(before);
  free(after);
  snprintf(p, sizeof p, "%s/suite.json", out);
  cJSON *suite = NULL;
  ASSERT_OK(np_json_load_file(p, NULL, &suite, NULL));
  ASSERT_STR_EQ(np_json_get_string(suite, "status", ""), "complete");
  const cJSON *ses = cJSON_GetObjectItem(suite, "sessions");
  ASSERT_EQ(cJSON_GetArraySize(ses), 2);
  const cJSON *s2 = cJSON_GetArrayItem(ses, 1);
  ASSERT_EQ(np_json_get_number(s2, "repetitions_kept", -1), kept);
  ASSERT_EQ(np_json_get_number(s2, "repetitions_run", -1), 6 - kept);
  check_two_sessions(out, ses, kept);
  cJSON_Delete(suite);
  resume_complete(fake, plan, tmp, out);
}

static void test_sigint(const char *fake, const char *plan, const char *tmp) {
  char out[600], err[600], p[700];
  snprintf(out, sizeof out, "%s/out-int", tmp);
  snprintf(err, sizeof err, "%s/int-err.txt", tmp);
  char *run[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                 (char *)fake, "--quiet", NULL};
  pid_t pid = mx_spawn(run, NULL, err);
  wait_mid_run(out, 1);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  ASSERT_EQ(mx_wait(pid), 130);
  char *text = mx_read(err);
  ASSERT_NOT_NULL(strstr(text, "interrupted"));
  ASSERT_NOT_NULL(strstr(text, "--resume"));
  free(text);
  int done = complete_reps(out);
  ASSERT_LT(done, 6);
  /* the interrupted repetition's files are gone; finished ones remain */
  ASSERT_EQ(mx_count(out, ".cmd.txt"), done);
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  snprintf(p, sizeof p, "%s/summary.json", out);
  cJSON *sum = NULL;
  ASSERT_OK(np_json_load_file(p, NULL, &sum, NULL));
  ASSERT_EQ(np_json_get_number(cJSON_GetObjectItem(sum, "totals"),
                               "incomplete", -1) > 0, 1);
  cJSON_Delete(sum);
  snprintf(p, sizeof p, "%s/suite.json", out);
  cJSON *suite = NULL;
  ASSERT_OK(np_json_load_file(p, NULL, &suite, NULL));
  ASSERT_STR_EQ(np_json_get_string(suite, "status", ""), "interrupted");
  cJSON_Delete(suite);
  char *resume[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                    (char *)fake, "--quiet", "--resume", NULL};
  ASSERT_EQ(mx_run(resume, NULL, NULL), 0);
  check_complete(out);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], fake[512], plan[512];
  mx_tmpdir(tmp, sizeof tmp);
  mx_install_fake(argv[1], tmp, fake, sizeof fake);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  mx_write(plan, plan_text);
  test_sigkill_resume(fake, plan, tmp);
  test_sigint(fake, plan, tmp);
  mx_rm_rf(tmp);
  return 0;
}
