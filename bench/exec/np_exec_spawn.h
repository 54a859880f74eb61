/*
 * np_exec_spawn.h - run one program as a bounded child process.
 *
 * The child gets its own process group, stdin from /dev/null, stdout and
 * stderr on pipes, the environment and working directory it is given, the
 * signal mask netproof-bench had before its controller blocked SIGINT and
 * SIGTERM, and PR_SET_PDEATHSIG so it dies with us.  netproof-bench makes
 * itself a child subreaper, so descendants the program orphans are
 * reparented to it and reaped, and their CPU time counts.
 *
 * Ending: at the time bound, or on SIGINT/SIGTERM to netproof-bench, the
 * whole process group is killed with SIGKILL.  Once the program's main
 * process has ended (by itself, or killed so), every descendant still
 * running - in its group or out of it (setsid, double forks) - is found,
 * listed in leftovers and ended, SIGTERM then SIGKILL (np_exec_tree.h);
 * the program's own group after our kill is not counted.  Then the pipes
 * are drained for at most one more second.  Every loop is bounded in
 * time.
 *
 * Output: the first `limit` bytes of each stream are kept in memory; the
 * rest is read, counted and dropped, and the stream is marked truncated.
 *
 * CPU and memory are getrusage(RUSAGE_CHILDREN) differences over the run:
 * the program and every descendant that was reaped (by it, or by us as
 * subreaper).  Threading: the controlling thread only; the caller must
 * not have other children it expects to reap itself.
 */
#ifndef NP_EXEC_SPAWN_H
#define NP_EXEC_SPAWN_H

#include <stddef.h>
#include <stdint.h>

#include "np_bench_ctl.h"
#include "np_err.h"
#include "np_exec_tree.h"

/* One output stream of the program. */
struct np_exec_stream {
  char *data;     /* the kept bytes (malloc'd; NULL when none)     */
  size_t kept;    /* bytes in data, at most the limit              */
  uint64_t total; /* bytes the program wrote to the stream         */
  int truncated;  /* total > kept                                  */
  /* stdout with line_times only: when each kept line was read, seconds
   * from fork (CLOCK_MONOTONIC): line_t[i] for the i-th '\n' in data,
   * and one more for a last line without '\n' (the time its last bytes
   * were read).  malloc'd; NULL when none. */
  double *line_t;
  size_t nlines;  /* entries in line_t                             */
};

enum np_exec_end {
  NP_EXEC_EXITED,     /* it exited by itself: exit_code            */
  NP_EXEC_SIGNALED,   /* a signal ended it (not ours): signo       */
  NP_EXEC_TIMEOUT,    /* killed by us at the time bound            */
  NP_EXEC_INTERRUPTED /* killed by us after SIGINT/SIGTERM         */
};

/* How the run went. */
struct np_exec_result {
  enum np_exec_end end;       /* see above                                */
  int exit_code;              /* EXITED: the status; else -1              */
  int signo;                  /* the signal that ended it; 0 when exited  */
  double wall_seconds;        /* fork to the end being seen (monotonic)   */
  double user_seconds;        /* user CPU of the reaped process tree      */
  double sys_seconds;         /* system CPU of the reaped process tree    */
  int64_t max_rss_bytes;      /* largest max RSS among them               */
  int64_t voluntary_cs;       /* voluntary context switches               */
  int64_t involuntary_cs;     /* involuntary context switches             */
  unsigned descendants_reaped; /* orphaned descendants we reaped          */
  int output_drained;         /* 1: both pipes reached end of file        */
  struct np_exec_tree leftovers; /* what it left running, ended (owned)   */
  int leftovers_incomplete;   /* no memory to list them all              */
  struct np_exec_stream out;  /* stdout                                   */
  struct np_exec_stream err;  /* stderr                                   */
};

/* What to run. */
struct np_exec_spawn_req {
  const char *path;      /* absolute path of the executable        */
  char *const *argv;     /* argv, NULL-terminated (argv[0] as given)*/
  char *const *envp;     /* the whole environment, NULL-terminated */
  const char *cwd;       /* working directory, or NULL for ours    */
  double timeout;        /* seconds from fork to the kill          */
  size_t limit;          /* bytes kept per stream                  */
  int line_times;        /* 1: note when each stdout line was read */
};

/* Run it.  0: *res holds the result (free with np_exec_result_free), also
 * for a timeout, a signal or an interruption; NP_ECHILD (fork, or exec
 * itself failed: "exec PATH: reason"), NP_ENOMEM, NP_ESYS with one line in
 * eb, nothing to free. */
int np_exec_spawn(struct np_bench_ctl *ctl, const struct np_exec_spawn_req *rq,
                  struct np_exec_result *res, struct np_errbuf *eb);

/* Frees the kept output; accepts NULL. */
void np_exec_result_free(struct np_exec_result *res);

#endif /* NP_EXEC_SPAWN_H */
