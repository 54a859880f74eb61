/*
 * matrix_disk_full.c - a full disk never costs a record.
 *
 * The test mounts a small tmpfs, fills it with a filler file that leaves
 * k pages free, and runs a suite with the fake child into it (one
 * configuration that passes, one whose child crashes, two repetitions
 * each) - for k = 0, 1, 2, ... until the whole suite fits - so the disk
 * fills at every step in turn: the lock file, suite.json, a command file,
 * a kernel snapshot, the child's own record, the snapshot after it, the
 * command file's rewrite, a runner-written failed record, summary.json.
 * Each time, every record the child completed (the fake logs them outside
 * the tmpfs) is either in place as rep-N.json, or still in rep-N.json.tmp
 * and named by the runner's one error line (exit 3); a failed record the
 * runner could not write is reported as such, never left half written;
 * no rep-N.json is a half record and no temporary file is left over.  For the first kept
 * records the test then frees the space and resumes: the kept record is
 * moved byte for byte to kept/<id>/rep-N.<session>.json, suite.json's new
 * session lists it, and the repetition is redone.
 *
 * Mounting needs root or CAP_SYS_ADMIN; without it the test skips with
 * exit 77 (ctest SKIP_RETURN_CODE).  The mount lives in a private mount
 * namespace of this process and its children, so the kernel unmounts it
 * when they exit, even when an assertion aborts; the normal path unmounts
 * it explicitly.  argv[1]: the fake bench script.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_test.h"

#define SKIP 77
#define PAGE 4096
#define MAX_PAGES 200 /* bound of the sweep; the suite needs ~30 */

static const char plan_text[] =
    "{\"schema\":\"netproof/plan/1\",\"suite\":\"full\",\"protocol\":\"udp\","
    "\"repetitions\":2,\"timeout_seconds\":10,"
    "\"base\":{\"seconds\":0.1,\"warmup\":0},"
    "\"configurations\":[{\"payload\":100},{\"payload\":7}]}";

/* payload 100 passes, payload 7 crashes (SIGSEGV) after 2.4 KB of stderr:
 * its records are the runner's, two pages each */
static const char *const config_ids[] = {"udp-p100-c16-w1-single-uv",
                                         "udp-p7-c16-w1-single-uv"};

struct ctx {
  char tmp[256];       /* scratch folder on the normal disk          */
  char mnt[512];       /* the tmpfs                                  */
  char out[600];       /* the suite's folder inside it               */
  char filler[600];    /* the file that leaves k pages free          */
  char log[512];       /* the fake's log of completed records        */
  char err[512];       /* the runner's stderr                        */
  char fake[512];      /* the fake bench                             */
  char plan[512];      /* the plan                                   */
  int kept_cases;      /* runs that ended with a kept child record   */
  int resumed;         /* of those, how many were resumed            */
  int unwritten;       /* runs whose runner-written record failed    */
};

static int skip(const char *what) {
  printf("skip: %s: %s (mounting a tmpfs needs root or CAP_SYS_ADMIN)\n",
         what, strerror(errno));
  return SKIP;
}

/* Fill the tmpfs so that exactly pages pages stay free; 0 when it has
 * fewer free pages than that. */
static int fill_leaving(const struct ctx *c, size_t pages) {
  struct statvfs sv;
  ASSERT_EQ(statvfs(c->mnt, &sv), 0);
  size_t free_bytes = (size_t)sv.f_bavail * sv.f_frsize;
  if (free_bytes < pages * PAGE)
    return 0;
  size_t left = free_bytes - pages * PAGE;
  int fd = open(c->filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  static const char zero[PAGE];
  while (left > 0) {
    ssize_t n = write(fd, zero, left < PAGE ? left : PAGE);
    ASSERT_GT(n, 0);
    left -= (size_t)n;
  }
  ASSERT_EQ(close(fd), 0);
  ASSERT_EQ(statvfs(c->mnt, &sv), 0);
  ASSERT_EQ(sv.f_bavail * sv.f_frsize, pages * PAGE);
  return 1;
}

/* The record at path, when it parses and has a status. */
static cJSON *record(const char *path) {
  cJSON *doc = NULL;
  if (np_json_load_file(path, NULL, &doc, NULL) != 0)
    return NULL;
  if (!cJSON_IsString(cJSON_GetObjectItem(doc, "status"))) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

static const char *session_of(const cJSON *rec) {
  return np_json_get_string(cJSON_GetObjectItem(rec, "runner"), "session",
                            "");
}

/* Free the space, --resume, and find the kept record moved to kept/. */
static void resume_kept(struct ctx *c, const char *tmp_path,
                        const char *session, int rep) {
  char *bytes = mx_read(tmp_path);
  ASSERT_EQ(unlink(c->filler), 0);
  char *run[] = {"matrix", c->plan, "--output", c->out, "--bench-binary",
                 c->fake, "--quiet", "--resume", NULL};
  int rc = mx_run(run, NULL, c->err);
  char *err = mx_read(c->err);
  if (rc != 1) /* complete; the crashing configuration failed */
    NP_TEST_FAIL_("resume after a full disk: exit %d: %s", rc, err);
  free(err);
  char rel[300], kept[1000];
  snprintf(rel, sizeof rel, "kept/%s/rep-%d.%s.json", config_ids[0], rep,
           session);
  snprintf(kept, sizeof kept, "%s/%s", c->out, rel);
  char *moved = mx_read(kept);
  ASSERT_TRUE(strlen(bytes) > 0);
  ASSERT_STR_EQ(moved, bytes); /* byte for byte */
  ASSERT_TRUE(!mx_exists(tmp_path));
  free(moved);
  free(bytes);
  char sj[700];
  snprintf(sj, sizeof sj, "%s/suite.json", c->out);
  cJSON *suite = record(sj);
  ASSERT_NOT_NULL(suite);
  ASSERT_STR_EQ(np_json_get_string(suite, "status", ""), "complete");
  const cJSON *ses = cJSON_GetObjectItem(suite, "sessions");
  ASSERT_EQ(cJSON_GetArraySize(ses), 2);
  const cJSON *list =
      cJSON_GetObjectItem(cJSON_GetArrayItem(ses, 1), "kept_records");
  ASSERT_EQ(cJSON_GetArraySize(list), 1);
  ASSERT_STR_EQ(cJSON_GetArrayItem(list, 0)->valuestring, rel);
  cJSON_Delete(suite);
  for (int i = 0; i < 4; i++) {
    char p[700];
    snprintf(p, sizeof p, "%s/runs/%s/rep-%d.json", c->out, config_ids[i / 2],
             i % 2 + 1);
    cJSON *rec = record(p);
    ASSERT_NOT_NULL(rec);
    cJSON_Delete(rec);
  }
  c->resumed++;
}

/* Every record the child completed is in place or kept and named. */
static void check_run(struct ctx *c, size_t pages, int rc) {
  char *err = mx_read(c->err);
  char *log = mx_read(c->log);
  fprintf(stderr, "%3zu free pages -> exit %d %s", pages, rc,
          err[0] ? err : "\n");
  ASSERT_TRUE(rc == 0 || rc == 1 || rc == 3);
  if (rc == 3) { /* one line saying what failed */
    ASSERT_EQ(strncmp(err, "netproof-bench matrix: ", 23), 0);
    ASSERT_TRUE(strchr(err, '\n') != NULL && strchr(err, '\n')[1] == '\0');
  }
  int kept_here = 0, kept_rep = 0;
  char kept_path[700] = "", kept_session[40] = "";
  for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
    char tmp_path[700], session[40] = "";
    ASSERT_TRUE(sscanf(line, "%699s %39s", tmp_path, session) >= 1);
    ASSERT_EQ(strlen(session), 32); /* the runner's session reached it */
    char fin[700];
    snprintf(fin, sizeof fin, "%.*s", (int)(strlen(tmp_path) - 4), tmp_path);
    cJSON *rec = record(fin);
    if (rec == NULL) {
      /* not in place: then kept, and the runner's message names it */
      char want[800];
      snprintf(want, sizeof want,
               "the child's complete record is kept at %s\n", tmp_path);
      rec = record(tmp_path);
      if (rec == NULL || rc != 3 || strstr(err, want) == NULL)
        NP_TEST_FAIL_("%zu free pages: completed record %s lost (exit %d): "
                      "%s",
                      pages, tmp_path, rc, err);
      kept_here++;
      snprintf(kept_path, sizeof kept_path, "%s", tmp_path);
      snprintf(kept_session, sizeof kept_session, "%s", session);
      kept_rep = strstr(tmp_path, "rep-2.") ? 2 : 1;
    }
    ASSERT_STR_EQ(np_json_get_string(rec, "status", ""), "passed");
    ASSERT_STR_EQ(session_of(rec), session);
    cJSON_Delete(rec);
  }
  /* no half record and no temporary left behind */
  for (int i = 0; i < 4; i++) {
    char p[700];
    snprintf(p, sizeof p, "%s/runs/%s/rep-%d.json", c->out, config_ids[i / 2],
             i % 2 + 1);
    if (mx_exists(p)) {
      cJSON *rec = record(p);
      if (rec == NULL)
        NP_TEST_FAIL_("%zu free pages: %s is not a whole record", pages, p);
      cJSON_Delete(rec);
    }
  }
  /* a runner-written record that did not fit is reported, not faked */
  if (strstr(err, "has no record and is incomplete: --resume redoes it")) {
    ASSERT_NOT_NULL(strstr(err, "signal 11 (SEGV)"));
    c->unwritten++;
  }
  ASSERT_EQ(mx_count(c->out, ".tmp."), 0);
  ASSERT_EQ(mx_count(c->out, ".part"), 0);
  ASSERT_LE(kept_here, 1); /* the runner stops at the first failure */
  if (kept_here) {
    c->kept_cases++;
    if (c->resumed < 2)
      resume_kept(c, kept_path, kept_session, kept_rep);
  }
  free(log);
  free(err);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  struct ctx c;
  memset(&c, 0, sizeof c);
  if (unshare(CLONE_NEWNS) != 0)
    return skip("unshare(CLONE_NEWNS)");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return skip("making / private in the new mount namespace");
  mx_tmpdir(c.tmp, sizeof c.tmp);
  snprintf(c.mnt, sizeof c.mnt, "%s/fs", c.tmp);
  ASSERT_EQ(mkdir(c.mnt, 0755), 0);
  if (mount("tmpfs", c.mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=2m") != 0) {
    int e = errno;
    mx_rm_rf(c.tmp);
    errno = e;
    return skip("mount -t tmpfs");
  }
  snprintf(c.out, sizeof c.out, "%s/out", c.mnt);
  snprintf(c.filler, sizeof c.filler, "%s/filler", c.mnt);
  snprintf(c.log, sizeof c.log, "%s/completed.log", c.tmp);
  snprintf(c.err, sizeof c.err, "%s/err.txt", c.tmp);
  snprintf(c.plan, sizeof c.plan, "%s/plan.json", c.tmp);
  mx_install_fake(argv[1], c.tmp, c.fake, sizeof c.fake);
  mx_write(c.plan, plan_text);
  ASSERT_EQ(setenv("FAKE_BENCH_LOG", c.log, 1), 0);
  char *run[] = {"matrix", c.plan, "--output", c.out, "--bench-binary",
                 c.fake, "--quiet", NULL};
  int fits = 0;
  for (size_t pages = 0; pages < MAX_PAGES && !fits; pages++) {
    mx_rm_rf(c.out);
    unlink(c.filler);
    mx_write(c.log, "");
    ASSERT_EQ(fill_leaving(&c, pages), 1);
    int rc = mx_run(run, NULL, c.err);
    check_run(&c, pages, rc);
    fits = rc == 1; /* complete: the crashing configuration failed */
  }
  printf("suite fit once enough pages were free; %d runs kept a child's "
         "record (%d resumed), %d could not write a failed record\n",
         c.kept_cases, c.resumed, c.unwritten);
  ASSERT_TRUE(fits);
  char p[700];
  snprintf(p, sizeof p, "%s/summary.json", c.out);
  ASSERT_TRUE(mx_exists(p));
  ASSERT_GT(c.kept_cases, 0); /* the keep path really ran */
  ASSERT_GT(c.resumed, 0);
  ASSERT_GT(c.unwritten, 0);
  mx_rm_rf(c.out);
  unlink(c.filler);
  ASSERT_EQ(umount2(c.mnt, 0), 0);
  mx_rm_rf(c.tmp);
  return 0;
}
