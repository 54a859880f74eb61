/* `netproof-bench udp --backend uring` where io_uring is refused: a child
 * installs a seccomp filter that fails io_uring_setup with EPERM (as
 * Docker's default profile and kernel.io_uring_disabled do) and runs the
 * program.  It must exit 3 (environment) with one line on stderr naming
 * the backend and the reason, and write no record; the raw backend under
 * the same filter still runs.  argv[1]: the netproof-bench binary. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "np_test.h"

/* Fail io_uring_setup with EPERM; allow everything else. */
static int deny_io_uring(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Run bench with args under the filter; stderr into err, exit code out. */
static int run_denied(const char *bench, const char *backend,
                      const char *out, char *err, size_t errlen) {
  int pipefd[2];
  ASSERT_OK(pipe(pipefd));
  pid_t pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    if (deny_io_uring()) {
      fprintf(stderr, "seccomp: %s\n", strerror(errno));
      _exit(99);
    }
    execl(bench, bench, "udp", "--backend", backend, "--seconds", "0.1",
          "--warmup", "0", "--clients", "2", "--quiet", "--output", out,
          (char *)NULL);
    _exit(98);
  }
  close(pipefd[1]);
  size_t used = 0;
  ssize_t r;
  while (used + 1 < errlen &&
         (r = read(pipefd[0], err + used, errlen - 1 - used)) > 0)
    used += (size_t)r;
  err[used] = '\0';
  close(pipefd[0]);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  return WEXITSTATUS(st);
}

int main(int argc, char **argv) {
  ASSERT_TRUE(argc > 1);
  char err[4096], out[64];
  snprintf(out, sizeof out, "/tmp/np-uring-denied-%ld.json", (long)getpid());
  unlink(out);
  int code = run_denied(argv[1], "uring", out, err, sizeof err);
  fprintf(stderr, "uring under the filter: exit %d, stderr: %s", code, err);
  ASSERT_EQ(code, 3);
  ASSERT_TRUE(strstr(err, "--backend uring") != NULL);
  ASSERT_TRUE(strstr(err, "io_uring_setup") != NULL);
  ASSERT_TRUE(strstr(err, "seccomp") != NULL);
  ASSERT_EQ(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
  ASSERT_TRUE(access(out, F_OK) != 0);                 /* no record */
  code = run_denied(argv[1], "raw", out, err, sizeof err);
  fprintf(stderr, "raw under the filter: exit %d %s\n", code, err);
  ASSERT_EQ(code, 0);
  ASSERT_OK(access(out, F_OK));
  unlink(out);
  return 0;
}
