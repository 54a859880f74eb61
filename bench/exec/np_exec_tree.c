/*
 * np_exec_tree.c - the descendants of netproof-bench found in /proc and
 * ended through pidfds (see np_exec_tree.h).
 *
 * A pidfd names one process for good: once it is open, a signal sent
 * through it cannot reach a later process that reuses the pid.  Between
 * the scan and pidfd_open the pid could be reused, so the start time is
 * read again after the open and compared with the scan's.
 */
#include "np_exec_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "np_err.h"
#include "np_time.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* One line of /proc/<pid>/stat. */
struct stat_line {
  pid_t pid, ppid, pgid, sid;
  char state;
  uint64_t start_ticks;
  char comm[NP_EXEC_TREE_COMM];
};

/* /proc/<pid>/stat into *s; 0 or -1 (gone, unreadable). */
static int read_stat(pid_t pid, struct stat_line *s) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* the name may hold spaces and ')': it ends at the last ')' */
  char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
  if (open_p == NULL || close_p == NULL || close_p < open_p)
    return -1;
  size_t clen = (size_t)(close_p - open_p - 1);
  if (clen >= sizeof s->comm)
    clen = sizeof s->comm - 1;
  memcpy(s->comm, open_p + 1, clen);
  s->comm[clen] = '\0';
  int ppid, pgid, sid;
  unsigned long long start;
  /* fields 3 (state) .. 22 (starttime), after the name */
  if (sscanf(close_p + 2,
             "%c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
             "%*d %*d %*d %llu",
             &s->state, &ppid, &pgid, &sid, &start) != 5)
    return -1;
  s->pid = pid;
  s->ppid = ppid;
  s->pgid = pgid;
  s->sid = sid;
  s->start_ticks = start;
  return 0;
}

static int cmp_pid(const void *a, const void *b) {
  pid_t x = ((const struct stat_line *)a)->pid,
        y = ((const struct stat_line *)b)->pid;
  return (x > y) - (x < y);
}

/* Every process now, sorted by pid, into *out (malloc'd).  0, NP_ENOMEM
 * or a negative errno-derived code. */
static int scan_all(struct stat_line **out, size_t *nout) {
  DIR *d = opendir("/proc");
  if (d == NULL)
    return np_err_from_errno(errno);
  struct stat_line *v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0)
      continue;
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 256;
      struct stat_line *nv = realloc(v, ncap * sizeof *nv);
      if (nv == NULL) {
        rc = NP_ENOMEM;
        break;
      }
      v = nv;
      cap = ncap;
    }
    if (read_stat((pid_t)pid, &v[n]) == 0)
      n++;
  }
  closedir(d);
  if (rc != 0) {
    free(v);
    return rc;
  }
  qsort(v, n, sizeof *v, cmp_pid);
  *out = v;
  *nout = n;
  return 0;
}

static const struct stat_line *find(const struct stat_line *v, size_t n,
                                    pid_t pid) {
  struct stat_line key = {.pid = pid};
  return bsearch(&key, v, n, sizeof *v, cmp_pid);
}

/* Is s below self through its chain of parents? */
static int descends(const struct stat_line *v, size_t n,
                    const struct stat_line *s, pid_t self) {
  for (size_t depth = 0; depth <= n; depth++) {
    if (s->ppid == self)
      return 1;
    if (s->ppid <= 1 || (s = find(v, n, s->ppid)) == NULL)
      return 0;
  }
  return 0; /* a cycle cannot happen; refuse it anyway */
}

static int known(const struct np_exec_tree *t, const struct stat_line *s) {
  for (size_t i = 0; i < t->n; i++)
    if (t->procs[i].pid == s->pid && t->procs[i].start_ticks == s->start_ticks)
      return 1;
  return 0;
}

static int push(struct np_exec_tree *t, const struct stat_line *s) {
  if (t->n == t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 16;
    struct np_exec_tree_proc *np = realloc(t->procs, ncap * sizeof *np);
    if (np == NULL)
      return NP_ENOMEM;
    t->procs = np;
    t->cap = ncap;
  }
  struct np_exec_tree_proc *p = &t->procs[t->n++];
  memset(p, 0, sizeof *p);
  p->pid = s->pid;
  p->ppid = s->ppid;
  p->pgid = s->pgid;
  p->sid = s->sid;
  p->start_ticks = s->start_ticks;
  snprintf(p->comm, sizeof p->comm, "%s", s->comm);
  p->fate = NP_EXEC_TREE_GONE;
  return 0;
}

/* A pidfd for p, or -1 when it ended (or its pid now names another). */
static int open_checked(const struct np_exec_tree_proc *p) {
  int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
  if (fd < 0)
    return -1;
  struct stat_line now;
  if (read_stat(p->pid, &now) != 0 || now.start_ticks != p->start_ticks ||
      now.state == 'Z') {
    close(fd);
    return -1;
  }
  return fd;
}

/* Wait until every fd in fds[0..n) (-1 = done) is readable (its process
 * ended) or until the deadline; ended ones become -1 (closed). */
static void wait_ended(int *fds, size_t n, double deadline) {
  struct pollfd p[64];
  size_t map[64];
  for (;;) {
    size_t k = 0, left = 0;
    for (size_t i = 0; i < n; i++)
      if (fds[i] >= 0) {
        left++;
        if (k < 64) {
          map[k] = i;
          p[k++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        }
      }
    double now = np_time_mono_s();
    if (left == 0 || now >= deadline)
      return;
    int ms = (int)((deadline - now) * 1000.0) + 1;
    if (left > k && ms > 10)
      ms = 10; /* more than one poll set: look again soon */
    int got = poll(p, (nfds_t)k, ms);
    if (got < 0 && errno != EINTR)
      return;
    for (size_t j = 0; got > 0 && j < k; j++)
      if (p[j].revents & (POLLIN | POLLHUP | POLLERR)) {
        close(fds[map[j]]);
        fds[map[j]] = -1;
      }
  }
}

static void send_sig(int fd, int sig) {
  syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

/* End procs[from..t->n): SIGTERM, the bound, SIGKILL, the bound. */
static void end_batch(struct np_exec_tree *t, size_t from) {
  size_t n = t->n - from;
  int *fds = malloc((n ? n : 1) * sizeof *fds);
  if (fds == NULL) { /* no memory for pidfds: signal by pid, once */
    for (size_t i = from; i < t->n; i++) {
      kill(t->procs[i].pid, SIGKILL);
      t->procs[i].fate = NP_EXEC_TREE_KILLED;
    }
    return;
  }
  for (size_t i = 0; i < n; i++) {
    fds[i] = open_checked(&t->procs[from + i]);
    if (fds[i] >= 0) {
      send_sig(fds[i], SIGTERM);
      t->procs[from + i].fate = NP_EXEC_TREE_TERMINATED;
    }
  }
  wait_ended(fds, n, np_time_mono_s() + NP_EXEC_TREE_TERM_S);
  for (size_t i = 0; i < n; i++)
    if (fds[i] >= 0) {
      send_sig(fds[i], SIGKILL);
      t->procs[from + i].fate = NP_EXEC_TREE_KILLED;
    }
  wait_ended(fds, n, np_time_mono_s() + NP_EXEC_TREE_KILL_S);
  for (size_t i = 0; i < n; i++)
    if (fds[i] >= 0) {
      t->procs[from + i].fate = NP_EXEC_TREE_SURVIVED;
      close(fds[i]);
    }
  free(fds);
}

int np_exec_tree_end(pid_t skip_pgid, struct np_exec_tree *t) {
  pid_t self = getpid();
  int rc = 0;
  memset(t, 0, sizeof *t);
  while (t->rounds < NP_EXEC_TREE_ROUNDS) {
    struct stat_line *v = NULL;
    size_t n = 0, from = t->n;
    t->rounds++;
    int src = scan_all(&v, &n);
    if (src != 0) {
      t->scan_error = src;
      return src == NP_ENOMEM ? NP_ENOMEM : 0;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
      const struct stat_line *s = &v[i];
      if (s->pid == self || s->state == 'Z' || s->state == 'X' ||
          (skip_pgid > 0 && s->pgid == skip_pgid) || known(t, s) ||
          !descends(v, n, s, self))
        continue;
      rc = push(t, s);
    }
    free(v);
    if (t->n == from)
      break; /* nothing new is running */
    end_batch(t, from);
    if (rc != 0)
      break;
  }
  return rc;
}

void np_exec_tree_free(struct np_exec_tree *t) {
  if (t == NULL)
    return;
  free(t->procs);
  memset(t, 0, sizeof *t);
}

const char *np_exec_tree_fate_name(enum np_exec_tree_fate f) {
  static const char *const names[] = {"terminated", "killed", "gone",
                                      "survived"};
  return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}
