/*
 * matrix_run_fake.c - the runner against a fake bench that passes, crashes,
 * hangs, exits without a record, fails a data check (expected) and varies
 * between repetitions: every repetition keeps its five files, crashed and
 * timed-out children get runner-written failed records that validate, the
 * summary ranks only clean configurations and lists the others with reasons,
 * and the spread flag fires; a runner that inherits an ignored SIGCHLD
 * still finishes.  argv[1]: the fake bench script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_matrix_cli.h"
#include "np_schema.h"
#include "np_test.h"

static const char plan_text[] =
    "{\"schema\":\"netproof/plan/1\",\"suite\":\"fake\",\"protocol\":\"udp\","
    "\"description\":\"runner test\",\"repetitions\":2,\"timeout_seconds\":1,"
    "\"base\":{\"seconds\":0.1,\"warmup\":0},"
    "\"configurations\":[{\"payload\":100},"
    "{\"payload\":100,\"io-model\":\"split\"},{\"payload\":1},{\"payload\":2},"
    "{\"payload\":3},{\"payload\":4},{\"payload\":6}],"
    "\"expectations\":[{\"match\":{\"payload\":4},\"expect\":\"fail\","
    "\"reason\":\"overflow probe\"}]}";

static const char *const ids[] = {
    "udp-p100-c16-w1-single-uv", "udp-p100-c16-w1-split-uv",
    "udp-p1-c16-w1-single-uv",   "udp-p2-c16-w1-single-uv",
    "udp-p3-c16-w1-single-uv",   "udp-p4-c16-w1-single-uv",
    "udp-p6-c16-w1-single-uv"};
static const char *const statuses[] = {"passed", "passed", "failed", "failed",
                                       "failed", "confirmed", "passed"};

/* Validate doc against a built-in schema; skip (say so) if not built in. */
static void validate(const char *schema, const cJSON *doc, const char *what) {
  struct np_schema *s = NULL;
  struct np_errbuf eb = {{0}};
  if (np_schema_builtin(schema, &s, &eb) != 0) {
    printf("skip: schema %s not built in (%s)\n", schema, what);
    return;
  }
  int rc = np_schema_validate_tagged(doc, &eb);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", what, eb.msg);
  ASSERT_OK(rc);
  np_schema_free(s);
}

static cJSON *load(const char *path) {
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_json_load_file(path, NULL, &doc, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  return doc;
}

static const cJSON *config_of(const cJSON *sum, const char *id) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(sum, "configurations"))
    if (strcmp(np_json_get_string(c, "id", ""), id) == 0)
      return c;
  NP_TEST_FAIL_("configuration %s not in summary", id);
}

/* A runner started with SIGCHLD ignored (inherited from its parent) still
 * sees its children's exits instead of waiting forever, and gives the
 * caller's SIGCHLD action back.  In-process, bounded by alarm(). */
static void ignored_sigchld(const char *plan, const char *tmp,
                            const char *fake) {
  char out[600], p[1024];
  snprintf(out, sizeof out, "%s/out-sigchld", tmp);
  char *run[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                 (char *)fake, "--only", "udp-p100-c16-w1-single-uv",
                 "--quiet", NULL};
  signal(SIGCHLD, SIG_IGN);
  alarm(20); /* the old runner looped forever here */
  int rc = np_matrix_cli_main(9, run);
  alarm(0);
  struct sigaction now;
  sigaction(SIGCHLD, NULL, &now);
  ASSERT_TRUE(now.sa_handler == SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  ASSERT_EQ(rc, 0);
  snprintf(p, sizeof p, "%s/runs/%s/rep-2.json", out, ids[0]);
  cJSON *rec = load(p);
  ASSERT_STR_EQ(np_json_get_string(rec, "status", ""), "passed");
  cJSON_Delete(rec);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], fake[512], plan[512], out[512], p[1024];
  mx_tmpdir(tmp, sizeof tmp);
  mx_install_fake(argv[1], tmp, fake, sizeof fake);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  snprintf(out, sizeof out, "%s/out", tmp);
  mx_write(plan, plan_text);
  char *run[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                 NULL};
  char err[600];
  snprintf(err, sizeof err, "%s/progress.txt", tmp);
  time_t t0 = time(NULL);
  ASSERT_EQ(mx_run(run, NULL, err), 1); /* crash/hang/no-record fail */
  ASSERT_LE(time(NULL) - t0, 12);       /* two 1 s timeouts, not 60 s hangs */
  char *progress = mx_read(err);
  ASSERT_NOT_NULL(strstr(progress, "[7/7] udp-p6-c16-w1-single-uv rep 2/2"));
  ASSERT_NOT_NULL(strstr(progress, "eta"));
  free(progress);

  /* five files per repetition, nothing temporary left */
  static const char *const sfx[] = {".json", ".stderr.txt", ".cmd.txt",
                                    ".kernel-before.txt", ".kernel-after.txt"};
  for (size_t i = 0; i < 7; i++)
    for (int n = 1; n <= 2; n++)
      for (size_t s = 0; s < 5; s++) {
        snprintf(p, sizeof p, "%s/runs/%s/rep-%d%s", out, ids[i], n, sfx[s]);
        if (!mx_exists(p))
          NP_TEST_FAIL_("missing %s", p);
      }
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  ASSERT_EQ(mx_count(out, ".json"), 7 * 2 + 2);

  /* the crash: runner-written record, command file with the outcome */
  snprintf(p, sizeof p, "%s/runs/%s/rep-1.json", out, ids[2]);
  cJSON *rec = load(p);
  ASSERT_STR_EQ(np_json_get_string(rec, "status", ""), "failed");
  const cJSON *f = cJSON_GetObjectItem(rec, "failure");
  ASSERT_NOT_NULL(strstr(np_json_get_string(f, "reason", ""), "signal 11"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(rec, "tool"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(rec, "machine"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(rec, "config"));
  validate("run", rec, "crash record");
  cJSON_Delete(rec);
  snprintf(p, sizeof p, "%s/runs/%s/rep-1.cmd.txt", out, ids[2]);
  char *cmd = mx_read(p);
  ASSERT_NOT_NULL(strstr(cmd, " udp --payload 1 --clients 16 --window 1"));
  ASSERT_NOT_NULL(strstr(cmd, "outcome: signal 11 (SEGV)"));
  free(cmd);
  snprintf(p, sizeof p, "%s/runs/%s/rep-2.stderr.txt", out, ids[2]);
  char *se = mx_read(p);
  ASSERT_NOT_NULL(strstr(se, "fake bench: payload 1"));
  free(se);
  snprintf(p, sizeof p, "%s/runs/%s/rep-1.kernel-after.txt", out, ids[2]);
  char *kt = mx_read(p);
  ASSERT_EQ(strncmp(kt, "==> /proc/net/snmp", 18), 0);
  free(kt);

  /* the hang: killed at the timeout */
  snprintf(p, sizeof p, "%s/runs/%s/rep-2.json", out, ids[3]);
  rec = load(p);
  f = cJSON_GetObjectItem(rec, "failure");
  ASSERT_STR_EQ(np_json_get_string(f, "kind", ""), "timeout");
  ASSERT_NOT_NULL(strstr(np_json_get_string(f, "reason", ""), "timeout"));
  ASSERT_LT(np_json_get_number(f, "wall_seconds", 99), 3);
  validate("run", rec, "timeout record");
  cJSON_Delete(rec);
  /* exit 3 without a record */
  snprintf(p, sizeof p, "%s/runs/%s/rep-1.json", out, ids[4]);
  rec = load(p);
  f = cJSON_GetObjectItem(rec, "failure");
  ASSERT_NOT_NULL(strstr(np_json_get_string(f, "reason", ""), "exit 3"));
  ASSERT_EQ(np_json_get_number(f, "exit_code", -1), 3);
  cJSON_Delete(rec);

  /* summary: statuses, ranking, exclusions, spread */
  snprintf(p, sizeof p, "%s/summary.json", out);
  cJSON *sum = load(p);
  validate("summary", sum, "summary.json");
  for (size_t i = 0; i < 7; i++)
    ASSERT_STR_EQ(np_json_get_string(config_of(sum, ids[i]), "status", ""),
                  statuses[i]);
  const cJSON *probe = config_of(sum, ids[5]);
  const cJSON *lost = cJSON_GetObjectItem(
      cJSON_GetObjectItem(probe, "stats"), "lost");
  ASSERT_EQ(np_json_get_number(lost, "median", -1), 7);
  const cJSON *crash = config_of(sum, ids[2]);
  ASSERT_NOT_NULL(strstr(np_json_get_string(crash, "exclusion_reason", ""),
                         "repetition 1 failed: signal 11"));
  const cJSON *vary = config_of(sum, ids[6]);
  ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(vary, "unstable")));
  ASSERT_DBL_NEAR(np_json_get_number(vary, "spread", 0), 20000.0 / 130000.0,
                  1e-9);
  ASSERT_TRUE(cJSON_IsFalse(
      cJSON_GetObjectItem(config_of(sum, ids[0]), "unstable")));
  const cJSON *totals = cJSON_GetObjectItem(sum, "totals");
  ASSERT_EQ(np_json_get_number(totals, "passed", -1), 3);
  ASSERT_EQ(np_json_get_number(totals, "failed", -1), 3);
  ASSERT_EQ(np_json_get_number(totals, "confirmed", -1), 1);
  ASSERT_EQ(np_json_get_number(totals, "unstable", -1), 1);
  /* the payload-100 group ranks single (99900) over split (49950) */
  const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "rankings"), 0);
  const cJSON *ranked = cJSON_GetObjectItem(g, "ranked");
  ASSERT_EQ(cJSON_GetArraySize(ranked), 2);
  ASSERT_STR_EQ(np_json_get_string(cJSON_GetArrayItem(ranked, 0), "id", ""),
                ids[0]);
  ASSERT_STR_EQ(np_json_get_string(cJSON_GetArrayItem(ranked, 1), "id", ""),
                ids[1]);
  int excluded = 0;
  const cJSON *gr;
  cJSON_ArrayForEach(gr, cJSON_GetObjectItem(sum, "rankings"))
    excluded += cJSON_GetArraySize(cJSON_GetObjectItem(gr, "excluded"));
  ASSERT_EQ(excluded, 4);
  cJSON_Delete(sum);

  /* suite.json: plan copy and hash, identity, machine, stability */
  snprintf(p, sizeof p, "%s/suite.json", out);
  cJSON *suite = load(p);
  validate("suite", suite, "suite.json");
  ASSERT_STR_EQ(np_json_get_string(suite, "status", ""), "complete");
  ASSERT_EQ(strlen(np_json_get_string(suite, "plan_sha256", "")), 64);
  ASSERT_TRUE(cJSON_IsObject(cJSON_GetObjectItem(suite, "plan")));
  const cJSON *ses = cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"), 0);
  const cJSON *stab = cJSON_GetObjectItem(ses, "stability");
  ASSERT_EQ(np_json_get_number(stab, "samples", 0), 14);
  ASSERT_NOT_NULL(cJSON_GetObjectItem(suite, "stability_flags"));
  cJSON_Delete(suite);
  ignored_sigchld(plan, tmp, fake);
  mx_rm_rf(tmp);
  return 0;
}
