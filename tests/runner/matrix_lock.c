/*
 * matrix_lock.c - one runner per output folder.  While a runner works on a
 * folder (fake children of 0.4 s each), a second runner started fresh, a
 * third with --resume and a fourth with another plan are all refused with
 * exit 2 and one line naming the first runner's pid - before they look at
 * the folder, so none of them touches suite.json.  The lock file names the
 * holder's pid and session; the first runner finishes undisturbed and
 * removes it; afterwards --resume works.  (A lock left by a killed runner:
 * matrix_resume.)  An --output that is a file is refused before any lock
 * file is attempted.  argv[1]: the fake bench script.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_test.h"

static const char plan_text[] =
    "{\"schema\":\"netproof/plan/1\",\"suite\":\"locked\",\"protocol\":\"udp\","
    "\"repetitions\":2,\"timeout_seconds\":10,"
    "\"base\":{\"payload\":5,\"seconds\":0.1,\"warmup\":0},"
    "\"dimensions\":{\"clients\":[1,2,3]}}";

static const char other_plan_text[] =
    "{\"schema\":\"netproof/plan/1\",\"suite\":\"other\",\"protocol\":\"udp\","
    "\"repetitions\":1,\"base\":{\"seconds\":0.1,\"warmup\":0},"
    "\"configurations\":[{\"payload\":64}]}";

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Run argv; expect exit 2 and exactly one line naming pid. */
static void expect_locked_out(char **argv, const char *tmp, pid_t pid,
                              const char *what) {
  char err[600], want[64];
  snprintf(err, sizeof err, "%s/refused.txt", tmp);
  int rc = mx_run(argv, NULL, err);
  char *text = mx_read(err);
  fprintf(stderr, "%-28s -> %d: %s", what, rc, text);
  ASSERT_EQ(rc, 2);
  snprintf(want, sizeof want, "another matrix runner (pid %ld)", (long)pid);
  ASSERT_NOT_NULL(strstr(text, want));
  ASSERT_NOT_NULL(strchr(text, '\n'));
  ASSERT_TRUE(strchr(text, '\n')[1] == '\0'); /* exactly one line */
  free(text);
}

static cJSON *load(const char *path) {
  cJSON *doc = NULL;
  ASSERT_OK(np_json_load_file(path, NULL, &doc, NULL));
  return doc;
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], fake[512], plan[512], other[512], out[512];
  char sj[700], lock[700];
  mx_tmpdir(tmp, sizeof tmp);
  mx_install_fake(argv[1], tmp, fake, sizeof fake);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  snprintf(other, sizeof other, "%s/other.json", tmp);
  snprintf(out, sizeof out, "%s/out", tmp);
  snprintf(sj, sizeof sj, "%s/suite.json", out);
  snprintf(lock, sizeof lock, "%s/.netproof-matrix.lock", out);
  mx_write(plan, plan_text);
  mx_write(other, other_plan_text);

  char *first[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                   "--quiet", NULL};
  pid_t holder = mx_spawn(first, NULL, NULL);
  for (int i = 0; i < 400 && !mx_exists(sj); i++) /* bounded: 4 s */
    nap(0.01);
  ASSERT_TRUE(mx_exists(sj));
  char *before = mx_read(sj);

  /* the lock file says who holds it */
  char *held = mx_read(lock);
  cJSON *suite = load(sj);
  const char *session = np_json_get_string(
      cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"), 0), "session",
      "");
  char want[200];
  snprintf(want, sizeof want, "pid %ld\nsession %s\n", (long)holder, session);
  ASSERT_STR_EQ(held, want);
  free(held);
  cJSON_Delete(suite);

  char *fresh[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                   NULL};
  expect_locked_out(fresh, tmp, holder, "second runner, fresh");
  char *resume[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                    "--resume", NULL};
  expect_locked_out(resume, tmp, holder, "third runner, --resume");
  char *another[] = {"matrix", other, "--output", out, "--bench-binary", fake,
                     NULL};
  expect_locked_out(another, tmp, holder, "another plan, same folder");
  /* all refused while the first still ran (its six runs take 2.4 s) */
  int st = 0;
  ASSERT_EQ(waitpid(holder, &st, WNOHANG), 0);
  char *during = mx_read(sj);
  ASSERT_STR_EQ(before, during); /* none of them wrote suite.json */
  free(before);
  free(during);

  ASSERT_EQ(mx_wait(holder), 0);
  ASSERT_TRUE(!mx_exists(lock)); /* removed by its runner */
  suite = load(sj);
  ASSERT_STR_EQ(np_json_get_string(suite, "status", ""), "complete");
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(suite, "sessions")), 1);
  const cJSON *s1 = cJSON_GetArrayItem(cJSON_GetObjectItem(suite, "sessions"),
                                       0);
  ASSERT_EQ(np_json_get_number(s1, "repetitions_run", -1), 6);
  cJSON_Delete(suite);
  ASSERT_EQ(mx_count(out, ".stderr.txt"), 6); /* each repetition ran once */

  /* the folder is free again */
  char *quiet_resume[] = {"matrix", plan, "--output", out, "--bench-binary",
                          fake, "--resume", "--quiet", NULL};
  ASSERT_EQ(mx_run(quiet_resume, NULL, NULL), 0);
  suite = load(sj);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(suite, "sessions")), 2);
  cJSON_Delete(suite);
  ASSERT_TRUE(!mx_exists(lock));

  /* --output naming a file: one line, exit 2, the file untouched */
  char file[600], err[600];
  snprintf(file, sizeof file, "%s/a-file", tmp);
  snprintf(err, sizeof err, "%s/file-err.txt", tmp);
  mx_write(file, "not a folder\n");
  char *into_file[] = {"matrix", plan, "--output", file, "--bench-binary",
                       fake, NULL};
  ASSERT_EQ(mx_run(into_file, NULL, err), 2);
  char *text = mx_read(err);
  char want_file[700];
  snprintf(want_file, sizeof want_file,
           "netproof-bench matrix: %s: not a folder\n", file);
  ASSERT_STR_EQ(text, want_file);
  free(text);
  text = mx_read(file);
  ASSERT_STR_EQ(text, "not a folder\n");
  free(text);
  mx_rm_rf(tmp);
  return 0;
}
