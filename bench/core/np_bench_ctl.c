/*
 * np_bench_ctl.c - signals through a signalfd, deadlines, phases, rusage
 * and kernel snapshots for every benchmark kind (see np_bench_ctl.h).
 */
#include "np_bench_ctl.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

int np_bench_ctl_open(struct np_bench_ctl *c,
                      const struct np_bench_ctl_hooks *hooks,
                      struct np_errbuf *eb) {
  sigset_t set;
  memset(c, 0, sizeof *c);
  c->sigfd = -1;
  if (hooks)
    c->hooks = *hooks;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int rc = pthread_sigmask(SIG_BLOCK, &set, &c->old_mask);
  if (rc != 0)
    return np_errbuf_set(eb, np_err_from_errno(rc), "signal mask: %s",
                         strerror(rc));
  c->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (c->sigfd < 0) {
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &c->old_mask, NULL);
    return np_errbuf_set(eb, np_err_from_errno(e), "signalfd: %s",
                         strerror(e));
  }
  return 0;
}

void np_bench_ctl_close(struct np_bench_ctl *c) {
  if (c == NULL || c->sigfd < 0)
    return;
  np_bench_ctl_poll(c, 0); /* consume what arrived before unblocking */
  close(c->sigfd);
  c->sigfd = -1;
  pthread_sigmask(SIG_SETMASK, &c->old_mask, NULL);
}

int np_bench_ctl_signal(const struct np_bench_ctl *c) { return c->signal; }

void np_bench_ctl_poll(struct np_bench_ctl *c, int timeout_ms) {
  struct pollfd p = {.fd = c->sigfd, .events = POLLIN};
  if (poll(&p, 1, timeout_ms) > 0) {
    struct signalfd_siginfo si;
    while (read(c->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
      if (!c->signal)
        c->signal = (int)si.ssi_signo;
  }
}

void np_bench_ctl_wait(struct np_bench_ctl *c, double deadline,
                       int (*cond)(void *), void *arg) {
  for (;;) {
    if (cond && cond(arg))
      return;
    double left = deadline - np_time_mono_s();
    if (left <= 0 || (c->signal && !cond))
      return;
    np_bench_ctl_poll(c, cond ? 1 : (int)(left * 1000.0) + 1);
  }
}

double np_bench_ctl_sleep(struct np_bench_ctl *c, double seconds) {
  double t0 = np_time_mono_s();
  np_bench_ctl_wait(c, t0 + seconds, NULL, NULL);
  return np_time_mono_s() - t0;
}

void np_bench_ctl_start(struct np_bench_ctl *c, struct np_bench_run *run) {
  memset(run, 0, sizeof *run);
  run->signal = c->signal;
  np_time_utc_now(run->started_at, sizeof run->started_at);
}

void np_bench_ctl_finish(struct np_bench_ctl *c, struct np_bench_run *run) {
  np_bench_ctl_poll(c, 0);
  run->signal = c->signal;
  np_time_utc_now(run->ended_at, sizeof run->ended_at);
}

int np_bench_ctl_snapshot(struct np_bench_ctl *c, struct np_bench_run *run,
                          enum np_bench_snap which, struct np_errbuf *eb) {
  struct np_kernel **slot = which == NP_BENCH_SNAP_BEFORE ? &run->kernel_before
                                                          : &run->kernel_after;
  struct np_kernel *k = NULL;
  int rc = c->hooks.kernel_take ? c->hooks.kernel_take(c->hooks.arg, &k)
                                : np_kernel_take(&k);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "kernel snapshot %s the measurement: %s",
                         which == NP_BENCH_SNAP_BEFORE ? "before" : "after",
                         np_strerror(rc));
  np_kernel_free(*slot);
  *slot = k;
  return 0;
}

static double tv_s(struct timeval tv) {
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void np_bench_cpu_now(struct np_bench_cpu *out) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  out->user_seconds = tv_s(ru.ru_utime);
  out->sys_seconds = tv_s(ru.ru_stime);
}

void np_bench_cpu_since(const struct np_bench_cpu *start,
                        struct np_bench_cpu *delta) {
  struct np_bench_cpu now;
  np_bench_cpu_now(&now);
  delta->user_seconds = now.user_seconds - start->user_seconds;
  delta->sys_seconds = now.sys_seconds - start->sys_seconds;
}

int64_t np_bench_rss_max_bytes(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (int64_t)ru.ru_maxrss * 1024;
}
