/*
 * np_exec_spawn.c - fork, exec, read both pipes, watch the time bound and
 * the controller's signals, kill the process group, reap the tree (see
 * np_exec_spawn.h).  The child's exit is watched through a pidfd, so the
 * loop sleeps in poll() and wakes at once; where pidfd_open is missing it
 * looks every 10 ms instead.
 */
#include "np_exec_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np_exec_tree.h"
#include "np_time.h"

/* How long the pipes may stay open after the program ended, and how long
 * orphaned descendants (killed with the group) get to be reaped. */
#define NP_EXEC_DRAIN_S 1.0
#define NP_EXEC_REAP_S 0.2

void np_exec_result_free(struct np_exec_result *res) {
  if (res == NULL)
    return;
  free(res->out.data);
  free(res->err.data);
  free(res->out.line_t);
  res->out.data = res->err.data = NULL;
  res->out.line_t = NULL;
  np_exec_tree_free(&res->leftovers);
}

/* Note the time of every '\n' among the n bytes just kept at data[from];
 * *lcap is line_t's allocated length.  The last line's time, when it has
 * no '\n', is added at the end (lines_close). */
static int lines_take(struct np_exec_stream *s, size_t from, size_t n,
                      double t, size_t *lcap) {
  const char *p = s->data + from, *end = p + n;
  while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
    if (s->nlines == *lcap) {
      size_t ncap = *lcap ? *lcap * 2 : 256;
      double *d = realloc(s->line_t, ncap * sizeof *d);
      if (d == NULL)
        return NP_ENOMEM;
      s->line_t = d;
      *lcap = ncap;
    }
    s->line_t[s->nlines++] = t;
    p++;
  }
  return 0;
}

/* A last line without '\n' gets the time its last bytes were read. */
static int lines_close(struct np_exec_stream *s, double t_last,
                       size_t *lcap) {
  if (s->kept == 0 || s->data[s->kept - 1] == '\n')
    return 0;
  if (s->nlines == *lcap) {
    double *d = realloc(s->line_t, (*lcap + 1) * sizeof *d);
    if (d == NULL)
      return NP_ENOMEM;
    s->line_t = d;
    (*lcap)++;
  }
  s->line_t[s->nlines++] = t_last;
  return 0;
}

/* Keep what fits under limit, count everything. */
static int take(struct np_exec_stream *s, const char *buf, size_t n,
                size_t limit, size_t *cap) {
  s->total += n;
  size_t room = limit - s->kept;
  size_t k = n < room ? n : room;
  if (k < n)
    s->truncated = 1;
  if (k == 0)
    return 0;
  if (s->kept + k > *cap) {
    size_t ncap = *cap ? *cap : 65536;
    while (ncap < s->kept + k)
      ncap *= 2;
    if (ncap > limit)
      ncap = limit;
    char *d = realloc(s->data, ncap);
    if (d == NULL)
      return NP_ENOMEM;
    s->data = d;
    *cap = ncap;
  }
  memcpy(s->data + s->kept, buf, k);
  s->kept += k;
  return 0;
}

/* In the forked child: only async-signal-safe calls until exec.  errfd
 * carries errno back when exec (or chdir) fails. */
static void child(const struct np_exec_spawn_req *rq, const sigset_t *mask,
                  int out, int err, int errfd, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (nul < 0 || dup2(nul, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    _exit(127);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigprocmask(SIG_SETMASK, mask, NULL);
  if (rq->cwd == NULL || chdir(rq->cwd) == 0)
    execve(rq->path, rq->argv, rq->envp);
  int e = errno;
  ssize_t ignored = write(errfd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

/* Has pid ended (without reaping it)? */
static int ended(pid_t pid) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == pid;
}

static double tv_s(struct timeval tv) {
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The loop's state. */
struct np_exec_watch {
  int fd[2];        /* stdout, stderr read ends (-1 once closed)  */
  size_t cap[2];    /* allocated bytes of each stream             */
  int pidfd;        /* pidfd of the child, or -1                  */
  int exited;       /* the child has ended                        */
  int killed;       /* we killed the group (timeout / signal)     */
  int tree_done;    /* the leftovers were ended (np_exec_tree.h)  */
  double t0;        /* monotonic fork time                        */
  double end_at;    /* when the end was seen                      */
  int line_times;   /* note stdout's line times (the request's)   */
  size_t lcap;      /* allocated entries of out.line_t            */
  double last_out;  /* when stdout bytes were last kept (from t0) */
};

static int read_ready(struct np_exec_watch *w, int i, struct np_exec_result *r,
                      size_t limit) {
  char buf[65536];
  struct np_exec_stream *s = i == 0 ? &r->out : &r->err;
  ssize_t n = read(w->fd[i], buf, sizeof buf);
  if (n > 0) {
    size_t before = s->kept;
    int rc = take(s, buf, (size_t)n, limit, &w->cap[i]);
    if (rc == 0 && i == 0 && w->line_times && s->kept > before) {
      w->last_out = np_time_mono_s() - w->t0;
      rc = lines_take(s, before, s->kept - before, w->last_out, &w->lcap);
    }
    return rc;
  }
  if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close(w->fd[i]);
    w->fd[i] = -1;
  }
  return 0;
}

/* Read what the pipes hold already, without waiting: the output the
 * program wrote before it ended is read (and its lines timed) before the
 * leftovers are ended, which may take NP_EXEC_TREE_TERM_S and more. */
static int read_pending(struct np_exec_watch *w, struct np_exec_result *r,
                        size_t limit) {
  for (int round = 0; round < 1024; round++) {
    struct pollfd p[2];
    int idx[2], np = 0;
    for (int i = 0; i < 2; i++)
      if (w->fd[i] >= 0) {
        idx[np] = i;
        p[np++] = (struct pollfd){.fd = w->fd[i], .events = POLLIN};
      }
    if (np == 0 || poll(p, (nfds_t)np, 0) <= 0)
      return 0;
    for (int k = 0; k < np; k++)
      if (p[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        int rc = read_ready(w, idx[k], r, limit);
        if (rc != 0)
          return rc;
      }
  }
  return 0; /* 64 MiB read: the rest waits for the drain */
}

/* The program's main process has ended: end what it left running and
 * list it.  After our group kill (timeout, interruption) the program's
 * own group is dying already and is not counted; after a normal exit
 * every live descendant is a leftover, its group included. */
static int end_leftovers(pid_t pid, struct np_exec_watch *w,
                         struct np_exec_result *r, size_t limit) {
  if (w->tree_done)
    return 0;
  w->tree_done = 1;
  int rc = read_pending(w, r, limit);
  if (np_exec_tree_end(w->killed ? pid : 0, &r->leftovers) != 0)
    r->leftovers_incomplete = 1; /* out of memory: listed what it could */
  kill(-pid, SIGKILL); /* its group, whatever the search could see */
  return rc;
}

/* Poll until the child ended and both pipes closed (or the drain bound
 * passed).  Returns NP_ENOMEM when output could not be kept. */
static int watch(struct np_bench_ctl *ctl, const struct np_exec_spawn_req *rq,
                 pid_t pid, struct np_exec_watch *w,
                 struct np_exec_result *r) {
  double deadline = w->t0 + rq->timeout, drain_until = 0;
  for (;;) {
    double now = np_time_mono_s();
    if (!w->exited && !w->killed && now >= deadline) {
      r->end = NP_EXEC_TIMEOUT;
      w->killed = 1;
      kill(-pid, SIGKILL);
    }
    if (w->exited && drain_until == 0)
      drain_until = now + NP_EXEC_DRAIN_S;
    if (w->exited && ((w->fd[0] < 0 && w->fd[1] < 0) || now >= drain_until))
      return 0;
    struct pollfd p[4];
    int np = 0, ip[2] = {-1, -1}, ipid = -1, isig = -1;
    for (int i = 0; i < 2; i++)
      if (w->fd[i] >= 0) {
        ip[i] = np;
        p[np++] = (struct pollfd){.fd = w->fd[i], .events = POLLIN};
      }
    if (!w->exited && w->pidfd >= 0) {
      ipid = np;
      p[np++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
    }
    if (!w->killed) {
      isig = np;
      p[np++] = (struct pollfd){.fd = ctl->sigfd, .events = POLLIN};
    }
    double until = w->exited ? drain_until : w->killed ? now + 0.05 : deadline;
    int ms = (int)((until - now) * 1000.0) + 1;
    if (!w->exited && w->pidfd < 0 && ms > 10)
      ms = 10; /* no pidfd: look for the exit every 10 ms */
    int n = poll(p, (nfds_t)np, ms);
    if (n < 0 && errno != EINTR)
      return np_err_from_errno(errno);
    for (int i = 0; n > 0 && i < 2; i++)
      if (ip[i] >= 0 && (p[ip[i]].revents & (POLLIN | POLLHUP | POLLERR))) {
        int rc = read_ready(w, i, r, rq->limit);
        if (rc != 0)
          return rc;
      }
    if (isig >= 0 && n > 0 && (p[isig].revents & POLLIN)) {
      np_bench_ctl_poll(ctl, 0);
      if (np_bench_ctl_signal(ctl) && !w->exited) {
        r->end = NP_EXEC_INTERRUPTED;
        w->killed = 1;
        kill(-pid, SIGKILL);
      }
    }
    if (!w->exited &&
        ((ipid >= 0 && n > 0 && (p[ipid].revents & POLLIN)) ||
         (w->pidfd < 0 && ended(pid)))) {
      w->exited = 1;
      w->end_at = np_time_mono_s();
      int rc = end_leftovers(pid, w, r, rq->limit);
      if (rc != 0)
        return rc;
    }
  }
}

/* Reap the program, then the orphans we inherited as subreaper. */
static void reap(pid_t pid, struct np_exec_result *r) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (r->end != NP_EXEC_TIMEOUT && r->end != NP_EXEC_INTERRUPTED) {
    if (WIFEXITED(st)) {
      r->end = NP_EXEC_EXITED;
      r->exit_code = WEXITSTATUS(st);
    } else if (WIFSIGNALED(st)) {
      r->end = NP_EXEC_SIGNALED;
      r->signo = WTERMSIG(st);
    }
  } else {
    r->signo = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
    r->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  double until = np_time_mono_s() + NP_EXEC_REAP_S;
  for (;;) {
    pid_t w = waitpid(-1, &st, WNOHANG);
    if (w > 0) {
      r->descendants_reaped++;
      continue;
    }
    if (w < 0 || np_time_mono_s() >= until)
      break;
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int np_exec_spawn(struct np_bench_ctl *ctl, const struct np_exec_spawn_req *rq,
                  struct np_exec_result *res, struct np_errbuf *eb) {
  int po[2] = {-1, -1}, pe[2] = {-1, -1}, px[2] = {-1, -1};
  struct np_exec_result r;
  struct rusage ru0, ru1;
  int rc;
  memset(&r, 0, sizeof r);
  r.exit_code = -1;
  if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0 ||
      pipe2(px, O_CLOEXEC) != 0) {
    int e = errno;
    rc = np_errbuf_set(eb, np_err_from_errno(e), "pipe: %s", strerror(e));
    goto close_pipes;
  }
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  getrusage(RUSAGE_CHILDREN, &ru0);
  pid_t parent = getpid();
  struct np_exec_watch w = {.fd = {po[0], pe[0]}, .pidfd = -1,
                            .line_times = rq->line_times};
  w.t0 = np_time_mono_s();
  pid_t pid = fork();
  if (pid < 0) {
    rc = np_errbuf_set(eb, NP_ECHILD, "fork: %s", strerror(errno));
    goto close_pipes;
  }
  if (pid == 0)
    child(rq, &ctl->old_mask, po[1], pe[1], px[1], parent);
  setpgid(pid, pid);
  close(po[1]);
  close(pe[1]);
  close(px[1]);
  po[1] = pe[1] = px[1] = -1;
  int e = 0;
  ssize_t got;
  while ((got = read(px[0], &e, sizeof e)) < 0 && errno == EINTR)
    ;
  if (got == (ssize_t)sizeof e) {
    waitpid(pid, NULL, 0);
    rc = np_errbuf_set(eb, NP_ECHILD, "exec %s: %s", rq->path,
                       strerror(e));
    goto close_pipes;
  }
  w.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  rc = watch(ctl, rq, pid, &w, &r);
  if (!w.exited) { /* the loop failed: end the child before returning */
    kill(-pid, SIGKILL);
    w.killed = 1;
    w.end_at = np_time_mono_s();
  }
  if (end_leftovers(pid, &w, &r, rq->limit) != 0 && rc == 0)
    rc = NP_ENOMEM;
  if (rc == 0 && w.line_times)
    rc = lines_close(&r.out, w.last_out, &w.lcap);
  reap(pid, &r);
  getrusage(RUSAGE_CHILDREN, &ru1);
  r.wall_seconds = w.end_at - w.t0;
  r.user_seconds = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
  r.sys_seconds = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
  r.max_rss_bytes = (int64_t)ru1.ru_maxrss * 1024;
  r.voluntary_cs = ru1.ru_nvcsw - ru0.ru_nvcsw;
  r.involuntary_cs = ru1.ru_nivcsw - ru0.ru_nivcsw;
  r.output_drained = w.fd[0] < 0 && w.fd[1] < 0;
  for (int i = 0; i < 2; i++)
    if (w.fd[i] >= 0)
      close(w.fd[i]);
  po[0] = pe[0] = -1;
  if (w.pidfd >= 0)
    close(w.pidfd);
  if (rc != 0) {
    np_exec_result_free(&r);
    rc = np_errbuf_set(eb, rc, "reading the program's output: %s",
                       np_strerror(rc));
    goto close_pipes;
  }
  close(px[0]);
  *res = r;
  return 0;
close_pipes:
  for (int i = 0; i < 2; i++) {
    if (po[i] >= 0)
      close(po[i]);
    if (pe[i] >= 0)
      close(pe[i]);
    if (px[i] >= 0)
      close(px[i]);
  }
  return rc;
}
