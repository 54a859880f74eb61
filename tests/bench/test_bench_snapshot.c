/*
 * test_bench_snapshot.c - a kernel snapshot that fails fails the run the
 * same way in udp and rudp: injected through the controller's seam
 * (struct np_bench_ctl_hooks), before and after the measurement.
 *
 *   - np_udp_run / np_rudp_run return the snapshot's code with
 *     "kernel snapshot before|after the measurement" and leave their result
 *     freed (all zero);
 *   - the command flow exits 3 with one line on stderr and leaves neither
 *     the record nor a temporary file.
 *
 * Usage: test_bench_snapshot udp|rudp
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_bench_ctl_main.h"
#include "np_rudp_cli.h"
#include "np_rudp_run.h"
#include "np_test.h"
#include "np_udp_cli.h"
#include "np_udp_run.h"

struct fail_at {
  int call; /* snapshots taken so far */
  int fail; /* the one that fails     */
};

static int failing_take(void *arg, struct np_kernel **out) {
  struct fail_at *f = arg;
  if (++f->call == f->fail)
    return NP_ENOMEM; /* np_kernel_take's only failure */
  return np_kernel_take(out);
}

static int all_zero(const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    if (b[i])
      return 0;
  return 1;
}

/* The command line of a short run writing to out; *argc entries. */
static void args_for(int udp, const char *out, char **argv, int *argc) {
  static const char *const u[] = {"udp", "--clients", "2", "--warmup", "0",
                                  "--seconds", "0.1", "--output"};
  static const char *const r[] = {"rudp", "--clients", "1", "--warmup", "0",
                                  "--seconds", "0.1", "--rounds", "1",
                                  "--output"};
  const char *const *src = udp ? u : r;
  int n = udp ? (int)(sizeof u / sizeof u[0]) : (int)(sizeof r / sizeof r[0]);
  for (int i = 0; i < n; i++)
    argv[i] = (char *)src[i];
  argv[n] = (char *)out;
  argv[n + 1] = NULL;
  *argc = n + 1;
}

/* The run function itself, snapshot `fail` (1 = before, 2 = after). */
static void direct(int udp, int fail) {
  struct fail_at f = {0, fail};
  struct np_bench_ctl_hooks hooks = {failing_take, &f};
  struct np_bench_ctl ctl;
  struct np_errbuf eb = {{0}};
  char *argv[16];
  int argc, help = 0, rc;
  args_for(udp, "-", argv, &argc);
  ASSERT_OK(np_bench_ctl_open(&ctl, &hooks, &eb));
  if (udp) {
    struct np_udp_config cfg;
    struct np_udp_result res;
    ASSERT_OK(np_udp_cli_parse(argc, argv, &cfg, &help, &eb));
    rc = np_udp_run(&cfg, &ctl, &res, &eb);
    ASSERT_TRUE(all_zero(&res, sizeof res));
  } else {
    struct np_rudp_config cfg;
    struct np_rudp_result res;
    ASSERT_OK(np_rudp_config_parse(argc, argv, &cfg, &help, &eb));
    rc = np_rudp_run(&cfg, &ctl, &res, &eb);
    ASSERT_TRUE(all_zero(&res, sizeof res));
    np_rudp_result_free(&res); /* freeing again is harmless */
  }
  np_bench_ctl_close(&ctl);
  fprintf(stderr, "%s, snapshot %d fails: %s\n", udp ? "udp" : "rudp", fail,
          eb.msg);
  ASSERT_EQ(rc, NP_ENOMEM);
  ASSERT_EQ(f.call, fail); /* nothing taken after the failure */
  ASSERT_TRUE(strstr(eb.msg, fail == 1
                                 ? "kernel snapshot before the measurement"
                                 : "kernel snapshot after the measurement") !=
              NULL);
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ASSERT_NOT_NULL(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* The whole command: exit 3, one line naming the snapshot, no files. */
static void command(int udp, int fail) {
  char dir[128], out[192], errpath[192];
  snprintf(dir, sizeof dir, "/tmp/np_bench_snap_%ld", (long)getpid());
  ASSERT_OK(mkdir(dir, 0755));
  snprintf(out, sizeof out, "%s/run.json", dir);
  snprintf(errpath, sizeof errpath, "/tmp/np_bench_snap_%ld.err",
           (long)getpid());
  char *argv[16];
  int argc;
  args_for(udp, out, argv, &argc);
  struct fail_at f = {0, fail};
  struct np_bench_ctl_hooks hooks = {failing_take, &f};
  /* stderr into a file for the duration of the run */
  fflush(stderr);
  int saved = dup(2);
  int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_TRUE(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  int code = np_bench_ctl_main(udp ? &np_udp_bench_kind : &np_rudp_bench_kind,
                               argc, argv, &hooks);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *ef = fopen(errpath, "r");
  ASSERT_NOT_NULL(ef);
  char text[1024];
  size_t len = fread(text, 1, sizeof text - 1, ef);
  text[len] = '\0';
  fclose(ef);
  unlink(errpath);
  fprintf(stderr, "%s command, snapshot %d fails: exit %d, stderr: %s",
          udp ? "udp" : "rudp", fail, code, text);
  ASSERT_EQ(code, NP_EXIT_RUNTIME);
  ASSERT_TRUE(strstr(text, "kernel snapshot") != NULL);
  ASSERT_TRUE(strchr(text, '\n') == text + len - 1); /* one line */
  ASSERT_EQ(count_entries(dir), 0); /* neither record nor temp file */
  rmdir(dir);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  int udp = strcmp(argv[1], "udp") == 0;
  ASSERT_TRUE(udp || strcmp(argv[1], "rudp") == 0);
  for (int fail = 1; fail <= 2; fail++) {
    direct(udp, fail);
    command(udp, fail);
  }
  return 0;
}
