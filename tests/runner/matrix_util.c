/*
 * matrix_util.c - see matrix_util.h.
 */
#define _XOPEN_SOURCE 700
#include "matrix_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np_ksnap.h"
#include "np_matrix_cli.h"
#include "np_results_selfcheck.h"
#include "np_sha256.h"
#include "np_test.h"

void mx_tmpdir(char *buf, size_t len) {
  snprintf(buf, len, "/tmp/np-matrix-test-XXXXXX");
  ASSERT_NOT_NULL(mkdtemp(buf));
}

static int rm_one(const char *p, const struct stat *st, int flag,
                  struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(p);
  return 0;
}

void mx_rm_rf(const char *path) {
  nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void mx_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ASSERT_NOT_NULL(f);
  ASSERT_EQ(fputs(text, f) >= 0, 1);
  ASSERT_EQ(fclose(f), 0);
}

char *mx_read(const char *path) {
  FILE *f = fopen(path, "r");
  char *buf = calloc(1, 1 << 20);
  ASSERT_NOT_NULL(buf);
  if (f != NULL) {
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
  }
  return buf;
}

int mx_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

void mx_install_fake(const char *script, const char *dir, char *out,
                     size_t len) {
  snprintf(out, len, "%s/fake-bench.sh", dir);
  char *text = mx_read(script);
  ASSERT_TRUE(strlen(text) > 0);
  mx_write(out, text);
  free(text);
  ASSERT_EQ(chmod(out, 0755), 0);
}

static void redirect(int fd, const char *path) {
  int f = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (f < 0 || dup2(f, fd) < 0)
    _exit(99);
  close(f);
}

pid_t mx_spawn(char *const *argv, const char *out_file, const char *err_file) {
  fflush(NULL);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    redirect(1, out_file);
    redirect(2, err_file);
    int argc = 0;
    while (argv[argc] != NULL)
      argc++;
    int rc = np_matrix_cli_main(argc, (char **)argv);
    fflush(NULL);
    _exit(rc);
  }
  return pid;
}

int mx_wait(pid_t pid) {
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int mx_run(char *const *argv, const char *out_file, const char *err_file) {
  return mx_wait(mx_spawn(argv, out_file, err_file));
}

int mx_count(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
      n += mx_count(p, needle);
    else if (strstr(e->d_name, needle) != NULL)
      n++;
  }
  if (d != NULL)
    closedir(d);
  return n;
}

int mx_empty_or_absent(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return 1;
  int empty = 1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(d);
  return empty;
}

int mx_snapshot(const char *out, const char *stem, int after, char *buf,
                size_t len) {
  char p[4096], hex[NP_SHA256_HEX_SIZE], got[NP_SHA256_HEX_SIZE];
  snprintf(p, sizeof p, "%s.cmd.txt", stem);
  char *cmd = mx_read(p);
  int rc = np_ksnap_ref(cmd, strlen(cmd),
                        after ? NP_KSNAP_AFTER : NP_KSNAP_BEFORE, hex);
  free(cmd);
  if (rc != 0)
    return 0;
  snprintf(buf, len, "%s/%s/%s.txt", out, NP_KSNAP_DIR, hex);
  return np_sha256_file(buf, got, NULL, NULL) == 0 && strcmp(got, hex) == 0;
}

static void on_snapshot_problem(void *ctx, const char *file,
                                const char *pointer, const char *reason) {
  (void)pointer;
  if (strstr(file, "kernel-snapshots/") == NULL &&
      strstr(reason, "kernel_before_sha256") == NULL &&
      strstr(reason, "kernel_after_sha256") == NULL)
    return;
  fprintf(stderr, "snapshot problem: %s: %s\n", file, reason);
  (*(int *)ctx)++;
}

int mx_snapshot_problems(const char *out) {
  int n = 0;
  struct np_results_outcome o;
  struct np_errbuf eb = {{0}};
  np_results_check_dir(out, "", on_snapshot_problem, &n, &o, &eb);
  return n;
}
