/*
 * test_bench_record.c - bench/core/np_bench_record (the envelope every run
 * record shares) and np_bench_ctl (the controller): the one status rule
 * and exit codes, the runner session (valid, malformed, unset), the
 * envelope's fields and order, reasons, timestamps in the millisecond
 * format with ended_at >= started_at, signals through the signalfd, and
 * the snapshot policy through the controller's seam.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_ctl.h"
#include "np_bench_record.h"
#include "np_test.h"
#include "np_time.h"

#define SESSION "0123456789abcdef0123456789abcdef"

static void test_status_rule(void) {
  struct np_bench_check ok[] = {{"a", 1, "x"}, {"b", 1, "y"}};
  struct np_bench_check bad[] = {{"a", 1, "x"}, {"b", 0, "y"}};
  ASSERT_EQ(np_bench_status_of(ok, 2, 0), NP_BENCH_PASSED);
  ASSERT_EQ(np_bench_status_of(NULL, 0, 0), NP_BENCH_PASSED);
  ASSERT_EQ(np_bench_status_of(bad, 2, 0), NP_BENCH_FAILED);
  ASSERT_EQ(np_bench_status_of(bad, 2, SIGINT), NP_BENCH_INTERRUPTED);
  ASSERT_EQ(np_bench_status_of(ok, 2, SIGTERM), NP_BENCH_INTERRUPTED);
  ASSERT_STR_EQ(np_bench_status_name(NP_BENCH_PASSED), "passed");
  ASSERT_STR_EQ(np_bench_status_name(NP_BENCH_FAILED), "failed");
  ASSERT_STR_EQ(np_bench_status_name(NP_BENCH_INTERRUPTED), "interrupted");
  ASSERT_EQ(np_bench_exit_code(NP_BENCH_PASSED, 0), 0);
  ASSERT_EQ(np_bench_exit_code(NP_BENCH_FAILED, 0), 1);
  ASSERT_EQ(np_bench_exit_code(NP_BENCH_INTERRUPTED, SIGINT), 130);
  ASSERT_EQ(np_bench_exit_code(NP_BENCH_INTERRUPTED, SIGTERM), 143);
}

static void test_session_form(void) {
  ASSERT_TRUE(np_bench_runner_session_ok(SESSION));
  ASSERT_TRUE(!np_bench_runner_session_ok(NULL));
  ASSERT_TRUE(!np_bench_runner_session_ok(""));
  ASSERT_TRUE(!np_bench_runner_session_ok("0123456789ABCDEF0123456789abcdef"));
  ASSERT_TRUE(!np_bench_runner_session_ok("0123456789abcdef0123456789abcde"));
  ASSERT_TRUE(!np_bench_runner_session_ok(SESSION "0"));
  ASSERT_TRUE(!np_bench_runner_session_ok("0123456789abcdef0123456789abcdeg"));
  ASSERT_TRUE(!np_bench_runner_session_ok("0123456789abcdef 123456789abcdef"));
}

/* A run as the controller leaves it, with real snapshots. */
static void fake_run(struct np_bench_ctl *ctl, struct np_bench_run *run) {
  struct np_errbuf eb = {{0}};
  np_bench_ctl_start(ctl, run);
  ASSERT_OK(np_bench_ctl_snapshot(ctl, run, NP_BENCH_SNAP_BEFORE, &eb));
  ASSERT_OK(np_bench_ctl_snapshot(ctl, run, NP_BENCH_SNAP_AFTER, &eb));
  np_bench_ctl_finish(ctl, run);
}

static cJSON *build(const struct np_bench_run *run,
                    const struct np_bench_check *c, unsigned n,
                    cJSON *reasons, struct np_bench_verdict *v) {
  struct np_errbuf eb = {{0}};
  cJSON *config = cJSON_CreateObject();
  cJSON_AddStringToObject(config, "protocol", "udp");
  struct np_bench_envelope env = {
      .run = run, .checks = c, .nchecks = n, .config = config,
      .reasons = reasons};
  cJSON *doc = NULL;
  ASSERT_OK(np_bench_record_new(&env, &doc, v, &eb));
  ASSERT_TRUE(env.config == NULL && env.reasons == NULL); /* consumed */
  return doc;
}

static void assert_ms_time(const char *s, int64_t *ms) {
  ASSERT_NOT_NULL(s);
  ASSERT_EQ(strlen(s), 24); /* YYYY-MM-DDTHH:MM:SS.mmmZ */
  ASSERT_EQ(s[19], '.');
  ASSERT_OK(np_time_parse(s, ms));
}

static void test_envelope(void) {
  struct np_bench_ctl ctl;
  struct np_bench_run run;
  struct np_bench_verdict v;
  struct np_errbuf eb = {{0}};
  struct np_bench_check ok[] = {{"content", 1, "0 errors"}};
  ASSERT_OK(np_bench_ctl_open(&ctl, NULL, &eb));
  fake_run(&ctl, &run);
  unsetenv(NP_BENCH_RUNNER_ENV);
  cJSON *doc = build(&run, ok, 1, NULL, &v);
  ASSERT_EQ(v.status, NP_BENCH_PASSED);
  ASSERT_EQ(v.exit_code, 0);
  static const char *const order[] = {"schema", "status", "tool", "machine",
                                      "started_at", "ended_at", "config",
                                      "kernel", "checks"};
  const cJSON *it = doc->child;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++, it = it->next) {
    ASSERT_NOT_NULL(it);
    ASSERT_STR_EQ(it->string, order[i]);
  }
  ASSERT_TRUE(it == NULL); /* no reasons, no runner */
  ASSERT_STR_EQ(cJSON_GetObjectItem(doc, "schema")->valuestring,
                "netproof/run/1");
  int64_t t0, t1;
  assert_ms_time(cJSON_GetObjectItem(doc, "started_at")->valuestring, &t0);
  assert_ms_time(cJSON_GetObjectItem(doc, "ended_at")->valuestring, &t1);
  ASSERT_GE(t1, t0);
  const cJSON *k = cJSON_GetObjectItem(doc, "kernel");
  ASSERT_NOT_NULL(cJSON_GetObjectItem(k, "before"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(k, "after"));
  ASSERT_NOT_NULL(cJSON_GetObjectItem(k, "delta"));
  const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "checks"), 0);
  ASSERT_STR_EQ(cJSON_GetObjectItem(c0, "name")->valuestring, "content");
  ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(c0, "passed")));
  cJSON_Delete(doc);

  /* the runner session: valid -> recorded; malformed -> omitted */
  setenv(NP_BENCH_RUNNER_ENV, SESSION, 1);
  doc = build(&run, ok, 1, NULL, &v);
  const cJSON *r = cJSON_GetObjectItem(doc, "runner");
  ASSERT_NOT_NULL(r);
  ASSERT_STR_EQ(cJSON_GetObjectItem(r, "session")->valuestring, SESSION);
  ASSERT_EQ(cJSON_GetArraySize(r), 1);
  cJSON_Delete(doc);
  setenv(NP_BENCH_RUNNER_ENV, "not-a-session", 1);
  doc = build(&run, ok, 1, NULL, &v);
  ASSERT_TRUE(cJSON_GetObjectItem(doc, "runner") == NULL);
  cJSON_Delete(doc);
  unsetenv(NP_BENCH_RUNNER_ENV);

  /* a failed check: reasons derived from it; the kind's own replace them */
  struct np_bench_check bad[] = {{"content", 1, "0"}, {"order", 0, "3 late"}};
  doc = build(&run, bad, 2, NULL, &v);
  ASSERT_EQ(v.status, NP_BENCH_FAILED);
  ASSERT_EQ(v.exit_code, 1);
  ASSERT_STR_EQ(cJSON_GetObjectItem(doc, "status")->valuestring, "failed");
  const cJSON *why = cJSON_GetObjectItem(doc, "reasons");
  ASSERT_EQ(cJSON_GetArraySize(why), 1);
  ASSERT_STR_EQ(cJSON_GetArrayItem(why, 0)->valuestring, "order: 3 late");
  cJSON_Delete(doc);
  cJSON *mine = cJSON_CreateArray();
  cJSON_AddItemToArray(mine, cJSON_CreateString("round 1: order: 3 late"));
  doc = build(&run, bad, 2, mine, &v);
  why = cJSON_GetObjectItem(doc, "reasons");
  ASSERT_EQ(cJSON_GetArraySize(why), 1);
  ASSERT_STR_EQ(cJSON_GetArrayItem(why, 0)->valuestring,
                "round 1: order: 3 late");
  cJSON_Delete(doc);

  /* a signal comes first and wins */
  run.signal = SIGTERM;
  doc = build(&run, bad, 2, NULL, &v);
  ASSERT_EQ(v.status, NP_BENCH_INTERRUPTED);
  ASSERT_EQ(v.exit_code, 143);
  why = cJSON_GetObjectItem(doc, "reasons");
  ASSERT_EQ(cJSON_GetArraySize(why), 2);
  ASSERT_STR_EQ(cJSON_GetArrayItem(why, 0)->valuestring,
                "interrupted by SIGTERM");
  cJSON_Delete(doc);
  run.signal = 0;

  /* a run without its snapshots has no envelope */
  struct np_bench_run bare = run;
  bare.kernel_after = NULL;
  struct np_bench_envelope env = {.run = &bare,
                                  .checks = ok,
                                  .nchecks = 1,
                                  .config = cJSON_CreateObject()};
  cJSON *none = NULL;
  ASSERT_EQ(np_bench_record_new(&env, &none, &v, &eb), NP_EINVAL);
  ASSERT_TRUE(none == NULL && env.config == NULL);
  np_bench_run_free(&run);
  np_bench_run_free(NULL);
  np_bench_ctl_close(&ctl);
}

/* The seam: snapshot n (1-based) fails with NP_EIO. */
struct fail_at {
  int call; /* calls so far      */
  int fail; /* the call to fail  */
};

static int failing_take(void *arg, struct np_kernel **out) {
  struct fail_at *f = arg;
  if (++f->call == f->fail)
    return NP_EIO;
  return np_kernel_take(out);
}

static void test_snapshot_policy(void) {
  struct fail_at f = {0, 2};
  struct np_bench_ctl_hooks hooks = {failing_take, &f};
  struct np_bench_ctl ctl;
  struct np_bench_run run;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_bench_ctl_open(&ctl, &hooks, &eb));
  np_bench_ctl_start(&ctl, &run);
  ASSERT_OK(np_bench_ctl_snapshot(&ctl, &run, NP_BENCH_SNAP_BEFORE, &eb));
  ASSERT_NOT_NULL(run.kernel_before);
  ASSERT_EQ(np_bench_ctl_snapshot(&ctl, &run, NP_BENCH_SNAP_AFTER, &eb),
            NP_EIO);
  ASSERT_TRUE(run.kernel_after == NULL);
  ASSERT_TRUE(strstr(eb.msg, "kernel snapshot after the measurement") != NULL);
  np_bench_run_free(&run);
  ASSERT_TRUE(run.kernel_before == NULL);
  np_bench_ctl_close(&ctl);
}

static int flag_set(void *arg) { return *(int *)arg; }

static void test_signals(void) {
  struct np_bench_ctl ctl;
  struct np_errbuf eb = {{0}};
  sigset_t before, during, after;
  pthread_sigmask(SIG_SETMASK, NULL, &before);
  ASSERT_TRUE(!sigismember(&before, SIGINT));
  ASSERT_OK(np_bench_ctl_open(&ctl, NULL, &eb));
  pthread_sigmask(SIG_SETMASK, NULL, &during);
  ASSERT_TRUE(sigismember(&during, SIGINT) && sigismember(&during, SIGTERM));
  /* no signal: a phase lasts its length; a condition ends a wait */
  double took = np_bench_ctl_sleep(&ctl, 0.05);
  ASSERT_TRUE(took >= 0.05 && took < 2.0);
  int flag = 1;
  double t0 = np_time_mono_s();
  np_bench_ctl_wait(&ctl, t0 + 5.0, flag_set, &flag);
  ASSERT_LT(np_time_mono_s() - t0, 1.0);
  ASSERT_EQ(np_bench_ctl_signal(&ctl), 0);
  /* a blocked SIGINT reaches the signalfd, ends sleeps at once, and the
   * first one is kept */
  raise(SIGINT);
  raise(SIGTERM);
  took = np_bench_ctl_sleep(&ctl, 5.0);
  ASSERT_LT(took, 1.0);
  ASSERT_EQ(np_bench_ctl_signal(&ctl), SIGINT);
  /* a wait with a condition does not end on the signal alone */
  flag = 0;
  t0 = np_time_mono_s();
  np_bench_ctl_wait(&ctl, t0 + 0.05, flag_set, &flag);
  ASSERT_GE(np_time_mono_s() - t0, 0.05);
  struct np_bench_run run;
  np_bench_ctl_start(&ctl, &run);
  np_bench_ctl_finish(&ctl, &run);
  ASSERT_EQ(run.signal, SIGINT);
  np_bench_ctl_close(&ctl); /* pending SIGTERM consumed, not delivered */
  pthread_sigmask(SIG_SETMASK, NULL, &after);
  ASSERT_TRUE(!sigismember(&after, SIGINT));
  np_bench_ctl_close(NULL);
  struct np_bench_cpu c0, d;
  np_bench_cpu_now(&c0);
  np_bench_cpu_since(&c0, &d);
  ASSERT_TRUE(d.user_seconds >= 0 && d.sys_seconds >= 0);
  ASSERT_GT(np_bench_rss_max_bytes(), 0);
}

int main(void) {
  test_status_rule();
  test_session_form();
  test_envelope();
  test_snapshot_policy();
  test_signals();
  return 0;
}
