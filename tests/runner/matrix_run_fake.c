/*
 * matrix_run_fake.c - the runner against a fake bench that passes, crashes,
 * hangs, exits without a record, fails a data check (expected) and varies
 * between repetitions: every repetition keeps its five files, crashed and
 * timed-out children get runner-written failed records that validate, the
 * summary ranks only clean configurations and lists the others with reasons,
 * and the spread flag fires; a runner that inherits an ignored SIGCHLD
 * still finishes.  Progress: each repetition's own line names its own
 * configuration and result (the last one too), the end summary counts the
 * configurations and says where the files are, and the live line appears
 * on a terminal only.  Session: suite.json's session id reaches every
 * child (NETPROOF_RUNNER_SESSION) and every record, runner-written ones
 * included.  A child that times out after writing a complete record
 * gets a failed record, and its own is moved to kept/ and listed in the
 * session; so is a stray complete rep-N.json.tmp found on --resume.
 * argv[1]: the fake bench script.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
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

/* Lines of the progress file that contain needle. */
static int count_lines(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

/* Each repetition's own line, in order, and the end summary. */
static void check_progress(const char *err, const char *out) {
  char *text = mx_read(err);
  static const char *const want[] = {
      "[1/7] udp-p100-c16-w1-single-uv rep 1/2: passed, 99,900 round "
      "trips/s, ",
      "[2/7] udp-p100-c16-w1-split-uv rep 2/2: passed, 49,950 round trips/s, ",
      "[3/7] udp-p1-c16-w1-single-uv rep 1/2: failed: signal 11 (SEGV)",
      "[4/7] udp-p2-c16-w1-single-uv rep 2/2: failed: timeout: killed after "
      "1 s",
      "[5/7] udp-p3-c16-w1-single-uv rep 1/2: failed: exit 3 without a "
      "valid record",
      "[6/7] udp-p4-c16-w1-single-uv rep 1/2: failed as expected: lost 7 "
      "echoes\n",
      /* the last repetition's own result, never a neighbour's */
      "[7/7] udp-p6-c16-w1-single-uv rep 1/2: passed, 120,000 round trips/s",
      "[7/7] udp-p6-c16-w1-single-uv rep 2/2: passed, 140,000 round trips/s",
      "netproof-bench matrix: suite fake complete after ",
      ": 14 repetitions run (6 passed), 0 kept from before\n",
      "  configurations: 3 passed, 3 failed, 1 expected-fail, 4 excluded from "
      "rankings (of 7)\n"};
  const char *at = text;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const char *hit = strstr(at, want[i]);
    if (hit == NULL)
      NP_TEST_FAIL_("progress lacks (in order) \"%s\":\n%s", want[i], text);
    at = hit;
  }
  ASSERT_EQ(count_lines(text, "\n["), 14); /* one line per repetition */
  ASSERT_EQ(count_lines(text, "\033[K"), 0); /* no live line: not a tty */
  ASSERT_EQ(count_lines(text, "last:"), 0);
  char where[2048];
  snprintf(where, sizeof where, "  suite:   %s/suite.json\n  summary: %s/"
           "summary.json\n", out, out);
  ASSERT_NOT_NULL(strstr(text, where));
  free(text);
}

/* Every record carries the session of suite.json's only session. */
static void check_sessions(const char *out, const cJSON *suite) {
  const cJSON *ses = cJSON_GetObjectItem(suite, "sessions");
  ASSERT_EQ(cJSON_GetArraySize(ses), 1);
  const char *id = np_json_get_string(cJSON_GetArrayItem(ses, 0), "session",
                                      "");
  ASSERT_EQ(strlen(id), 32);
  ASSERT_EQ(strspn(id, "0123456789abcdef"), 32);
  char p[1024];
  for (size_t i = 0; i < 7; i++)
    for (int n = 1; n <= 2; n++) {
      snprintf(p, sizeof p, "%s/runs/%s/rep-%d.json", out, ids[i], n);
      cJSON *rec = load(p);
      const cJSON *runner = cJSON_GetObjectItem(rec, "runner");
      if (!cJSON_IsObject(runner))
        NP_TEST_FAIL_("%s: no runner object", p);
      ASSERT_STR_EQ(np_json_get_string(runner, "session", ""), id);
      cJSON_Delete(rec);
    }
}

/* On a terminal (a pty here) a live line shows the running repetition and
 * is replaced in place; the repetition lines and the summary still come. */
static void live_line_on_terminal(const char *plan, const char *tmp,
                                  const char *fake) {
  char out[600];
  snprintf(out, sizeof out, "%s/out-tty", tmp);
  int m = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(m, 0);
  ASSERT_EQ(grantpt(m), 0);
  ASSERT_EQ(unlockpt(m), 0);
  const char *slave = ptsname(m);
  ASSERT_NOT_NULL(slave);
  int keep = open(slave, O_RDWR | O_NOCTTY); /* no EIO on the master */
  ASSERT_GE(keep, 0);
  char *run[] = {"matrix", (char *)plan, "--output", out, "--bench-binary",
                 (char *)fake, "--only", "udp-p100-c16-w1-single-uv", NULL};
  pid_t pid = mx_spawn(run, NULL, slave);
  ASSERT_EQ(fcntl(m, F_SETFL, O_NONBLOCK), 0);
  char buf[16384];
  size_t len = 0;
  int st = 0, done = 0;
  for (int i = 0; i < 400 && !done; i++) { /* bounded: 20 s */
    struct pollfd pf = {m, POLLIN, 0};
    poll(&pf, 1, 50);
    done = waitpid(pid, &st, WNOHANG) == pid;
    ssize_t n;
    while (len < sizeof buf - 1 &&
           (n = read(m, buf + len, sizeof buf - 1 - len)) > 0)
      len += (size_t)n;
  }
  buf[len] = '\0';
  close(keep);
  close(m);
  ASSERT_TRUE(done);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 0);
  ASSERT_NOT_NULL(strstr(buf, "\r\033[K[1/1] udp-p100-c16-w1-single-uv rep "
                              "1/2 running  elapsed "));
  ASSERT_NOT_NULL(strstr(buf, "  eta "));
  ASSERT_NOT_NULL(strstr(buf, "\r\033[K[1/1] udp-p100-c16-w1-single-uv rep "
                              "2/2: passed, 99,900 round trips/s, "));
  ASSERT_NOT_NULL(strstr(buf, "configurations: 1 passed"));
}

/* Records that will not become rep-N.json are set aside in kept/. */
static void kept_records(const char *tmp, const char *fake) {
  char plan[600], out[600], err[600], p[1200];
  snprintf(plan, sizeof plan, "%s/plan-hang.json", tmp);
  snprintf(out, sizeof out, "%s/out-hang", tmp);
  snprintf(err, sizeof err, "%s/hang-err.txt", tmp);
  mx_write(plan, "{\"schema\":\"netproof/plan/1\",\"suite\":\"hang\","
                 "\"protocol\":\"udp\",\"repetitions\":1,"
                 "\"timeout_seconds\":1,\"base\":{\"seconds\":0.1,"
                 "\"warmup\":0},\"configurations\":[{\"payload\":8}]}");
  char *run[] = {"matrix", plan, "--output", out, "--bench-binary",
                 (char *)fake, NULL};
  ASSERT_EQ(mx_run(run, NULL, err), 1);
  snprintf(p, sizeof p, "%s/suite.json", out);
  cJSON *suite = load(p);
  const cJSON *ses = cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"),
                                        0);
  const char *id = np_json_get_string(ses, "session", "");
  char rel[300];
  snprintf(rel, sizeof rel, "kept/udp-p8-c16-w1-single-uv/rep-1.%s.json", id);
  const cJSON *list = cJSON_GetObjectItem(ses, "kept_records");
  ASSERT_EQ(cJSON_GetArraySize(list), 1);
  ASSERT_STR_EQ(cJSON_GetArrayItem(list, 0)->valuestring, rel);
  validate("suite", suite, "suite.json with kept_records");
  snprintf(p, sizeof p, "%s/%s", out, rel);
  cJSON *kept = load(p);
  ASSERT_STR_EQ(np_json_get_string(kept, "status", ""), "passed");
  cJSON_Delete(kept);
  snprintf(p, sizeof p, "%s/runs/udp-p8-c16-w1-single-uv/rep-1.json", out);
  cJSON *rec = load(p);
  ASSERT_STR_EQ(np_json_get_string(cJSON_GetObjectItem(rec, "failure"), "kind",
                                   ""), "timeout");
  cJSON_Delete(rec);
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  char *text = mx_read(err);
  snprintf(p, sizeof p, "after writing a complete record; it is kept at %s/%s",
           out, rel);
  ASSERT_NOT_NULL(strstr(text, p));
  free(text);

  /* a stray complete temporary record beside a complete repetition */
  snprintf(p, sizeof p, "%s/runs/udp-p8-c16-w1-single-uv/rep-1.json.tmp", out);
  mx_write(p, "{\"status\":\"passed\",\"runner\":{\"session\":"
              "\"0123456789abcdef0123456789abcdef\"}}");
  char *resume[] = {"matrix", plan, "--output", out, "--bench-binary",
                    (char *)fake, "--resume", "--quiet", NULL};
  ASSERT_EQ(mx_run(resume, NULL, NULL), 1);
  ASSERT_TRUE(!mx_exists(p));
  snprintf(p, sizeof p, "%s/kept/udp-p8-c16-w1-single-uv/"
           "rep-1.0123456789abcdef0123456789abcdef.json", out);
  ASSERT_TRUE(mx_exists(p));
  cJSON_Delete(suite);
  snprintf(p, sizeof p, "%s/suite.json", out);
  suite = load(p);
  ses = cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"), 1);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(ses, "kept_records")), 1);
  cJSON_Delete(suite);
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
  check_progress(err, out);

  /* three files per repetition and its two snapshots by reference (each
   * in kernel-snapshots/ under its SHA-256), nothing temporary left */
  static const char *const sfx[] = {".json", ".stderr.txt", ".cmd.txt"};
  char snaps[7 * 2 * 2][1024];
  int nsnap = 0;
  for (size_t i = 0; i < 7; i++)
    for (int n = 1; n <= 2; n++) {
      for (size_t s = 0; s < 3; s++) {
        snprintf(p, sizeof p, "%s/runs/%s/rep-%d%s", out, ids[i], n, sfx[s]);
        if (!mx_exists(p))
          NP_TEST_FAIL_("missing %s", p);
      }
      char stem[900], sp[1024];
      snprintf(stem, sizeof stem, "%s/runs/%s/rep-%d", out, ids[i], n);
      for (int a = 0; a < 2; a++) {
        if (!mx_snapshot(out, stem, a, sp, sizeof sp))
          NP_TEST_FAIL_("%s.cmd.txt: no valid %s snapshot reference", stem,
                        a ? "after" : "before");
        int seen = 0;
        for (int k = 0; k < nsnap; k++)
          seen |= strcmp(snaps[k], sp) == 0;
        if (!seen)
          snprintf(snaps[nsnap++], sizeof snaps[0], "%s", sp);
      }
    }
  /* the store holds exactly the referenced snapshots, each once */
  snprintf(p, sizeof p, "%s/kernel-snapshots", out);
  ASSERT_EQ(mx_count(p, ".txt"), nsnap);
  ASSERT_EQ(mx_count(out, ".kernel-before.txt"), 0);
  ASSERT_EQ(mx_count(out, ".kernel-after.txt"), 0);
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
  char stem2[900];
  snprintf(stem2, sizeof stem2, "%s/runs/%s/rep-1", out, ids[2]);
  ASSERT_TRUE(mx_snapshot(out, stem2, 1, p, sizeof p));
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
  check_sessions(out, suite);
  cJSON_Delete(suite);
  snprintf(p, sizeof p, "%s/.netproof-matrix.lock", out);
  ASSERT_TRUE(!mx_exists(p)); /* the runner removes its lock file */
  ignored_sigchld(plan, tmp, fake);
  live_line_on_terminal(plan, tmp, fake);
  kept_records(tmp, fake);
  mx_rm_rf(tmp);
  return 0;
}
