/*
 * test_bench_output.c - bench/core/np_bench_output: the output is created
 * at open (temp file, mode 0644, in the target's folder), bad paths are
 * usage errors naming the path, commit moves a complete file into place,
 * close without commit leaves nothing behind.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_bench_output.h"
#include "np_test.h"

static char g_dir[256];

static void path_in(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", g_dir, name);
}

/* Entries of g_dir other than . and .. */
static int entries(void) {
  DIR *d = opendir(g_dir);
  ASSERT_NOT_NULL(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  ASSERT_NOT_NULL(f);
  static char buf[256];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* path must be refused with NP_EUSAGE, one line naming it and want. */
static void expect_usage(const char *path, const char *want) {
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  int before = entries();
  int rc = np_bench_output_open(path, &o, &eb);
  if (rc != NP_EUSAGE || !strstr(eb.msg, want) || !strstr(eb.msg, path))
    fprintf(stderr, "%s: rc %d, message '%s', want '%s'\n", path, rc, eb.msg,
            want);
  ASSERT_EQ(rc, NP_EUSAGE);
  ASSERT_TRUE(o == NULL);
  ASSERT_TRUE(strstr(eb.msg, path) != NULL);
  ASSERT_TRUE(strstr(eb.msg, want) != NULL);
  ASSERT_TRUE(strchr(eb.msg, '\n') == NULL);
  ASSERT_EQ(entries(), before); /* nothing created */
}

static void test_bad_paths(void) {
  char p[512], file[512];
  path_in(p, sizeof p, "missing/run.json");
  expect_usage(p, "does not exist");
  expect_usage(g_dir, "is a folder");
  path_in(p, sizeof p, "sub/");
  expect_usage(p, "is a folder");
  path_in(file, sizeof file, "plain");
  FILE *f = fopen(file, "w");
  ASSERT_NOT_NULL(f);
  fclose(f);
  path_in(p, sizeof p, "plain/run.json");
  expect_usage(p, "is not a folder");
  unlink(file);
  expect_usage("/dev/null", "not a regular file");
  /* read-only: root writes through chmod 555, but not into sysfs */
  if (geteuid() == 0) {
    /* EACCES, or EROFS where sysfs is mounted read-only */
    expect_usage("/sys/np-test-run.json", "folder /sys is ");
  } else {
    char ro[512];
    path_in(ro, sizeof ro, "ro");
    ASSERT_OK(mkdir(ro, 0555));
    path_in(p, sizeof p, "ro/run.json");
    expect_usage(p, "not writable");
    rmdir(ro);
  }
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_bench_output_open("", &o, &eb), NP_EUSAGE);
}

static void test_commit(void) {
  char target[512];
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  path_in(target, sizeof target, "run.json");
  mode_t old = umask(077);
  ASSERT_OK(np_bench_output_open(target, &o, &eb));
  umask(old);
  const char *tmp = np_bench_output_temp(o);
  ASSERT_NOT_NULL(tmp);
  ASSERT_STR_EQ(np_bench_output_path(o), target);
  struct stat st;
  ASSERT_OK(stat(tmp, &st)); /* exists from the start ... */
  ASSERT_EQ(st.st_mode & 0777, 0644); /* ... with the record's mode */
  ASSERT_EQ(st.st_size, 0);
  ASSERT_TRUE(strncmp(tmp, target, strlen(target)) == 0);
  ASSERT_EQ(access(target, F_OK), -1); /* the target only at commit */
  ASSERT_OK(np_bench_output_commit(o, "{\"a\": 1}\n", 9, &eb));
  ASSERT_TRUE(np_bench_output_temp(o) == NULL);
  ASSERT_EQ(np_bench_output_commit(o, "x", 1, &eb), NP_EINVAL);
  np_bench_output_close(o);
  ASSERT_STR_EQ(slurp(target), "{\"a\": 1}\n");
  ASSERT_OK(stat(target, &st));
  ASSERT_EQ(st.st_mode & 0777, 0644);
  ASSERT_EQ(entries(), 1); /* no temp file left */
  unlink(target);
}

/* Close without commit: the temp file goes, an existing target stays. */
static void test_abort_keeps_target(void) {
  char target[512];
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  path_in(target, sizeof target, "old.json");
  FILE *f = fopen(target, "w");
  ASSERT_NOT_NULL(f);
  fputs("old", f);
  fclose(f);
  ASSERT_OK(np_bench_output_open(target, &o, &eb));
  ASSERT_EQ(entries(), 2);
  np_bench_output_close(o);
  ASSERT_EQ(entries(), 1);
  ASSERT_STR_EQ(slurp(target), "old");
  /* and commit replaces it whole */
  ASSERT_OK(np_bench_output_open(target, &o, &eb));
  ASSERT_OK(np_bench_output_commit(o, "new", 3, &eb));
  np_bench_output_close(o);
  ASSERT_STR_EQ(slurp(target), "new");
  ASSERT_EQ(entries(), 1);
  unlink(target);
  np_bench_output_close(NULL);
}

/* A temp name left by an earlier process of the same pid is not reused. */
static void test_taken_temp_name(void) {
  char target[512], stale[600];
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  path_in(target, sizeof target, "r.json");
  snprintf(stale, sizeof stale, "%s.tmp.%ld", target, (long)getpid());
  FILE *f = fopen(stale, "w");
  ASSERT_NOT_NULL(f);
  fputs("stale", f);
  fclose(f);
  ASSERT_OK(np_bench_output_open(target, &o, &eb));
  ASSERT_TRUE(strcmp(np_bench_output_temp(o), stale) != 0);
  ASSERT_OK(np_bench_output_commit(o, "ok", 2, &eb));
  np_bench_output_close(o);
  ASSERT_STR_EQ(slurp(stale), "stale");
  ASSERT_STR_EQ(slurp(target), "ok");
  unlink(stale);
  unlink(target);
}

static void test_stdout(void) {
  struct np_bench_output *o = NULL;
  struct np_errbuf eb = {{0}};
  int before = entries();
  ASSERT_OK(np_bench_output_open("-", &o, &eb));
  ASSERT_TRUE(np_bench_output_temp(o) == NULL);
  ASSERT_OK(np_bench_output_commit(o, "", 0, &eb));
  np_bench_output_close(o);
  ASSERT_EQ(entries(), before);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/np_bench_output_%ld", (long)getpid());
  ASSERT_OK(mkdir(g_dir, 0755));
  test_bad_paths();
  test_commit();
  test_abort_keeps_target();
  test_taken_temp_name();
  test_stdout();
  ASSERT_EQ(entries(), 0);
  rmdir(g_dir);
  return 0;
}
