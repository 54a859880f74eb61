/*
 * np_exec_tree.h - find and end what a program left running.
 *
 * netproof-bench is a child subreaper (PR_SET_CHILD_SUBREAPER), so every
 * process the program started, however it detached itself (setsid, a
 * double fork), stays our descendant: orphans are reparented to us, not
 * to init.  At the end of a run the descendants are found by their
 * parent chains in /proc/<pid>/stat (every live process whose chain of
 * ppids reaches us), each is opened as a pidfd (checked against the start
 * time read with it, so a reused pid is never signalled), sent SIGTERM,
 * given NP_EXEC_TREE_TERM_S to end, then sent SIGKILL.  The scan repeats
 * (a process may fork while it is being ended) for at most
 * NP_EXEC_TREE_ROUNDS rounds; every loop is bounded in time.
 *
 * Zombies are dead already and not listed; processes of a given process
 * group can be skipped (the program's own group, killed with it at a
 * timeout or an interruption).
 *
 * Ownership: np_exec_tree_end fills a struct the caller frees with
 * np_exec_tree_free (accepts NULL and a zeroed struct).
 */
#ifndef NP_EXEC_TREE_H
#define NP_EXEC_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NP_EXEC_TREE_TERM_S 1.0 /* SIGTERM to SIGKILL                    */
#define NP_EXEC_TREE_KILL_S 1.0 /* SIGKILL to giving up on a survivor    */
#define NP_EXEC_TREE_ROUNDS 8   /* scans, for what forks while it ends   */
#define NP_EXEC_TREE_COMM 64    /* bytes of a command name kept          */

/* How a left-over process ended. */
enum np_exec_tree_fate {
  NP_EXEC_TREE_TERMINATED, /* it ended after SIGTERM                    */
  NP_EXEC_TREE_KILLED,     /* it needed SIGKILL                         */
  NP_EXEC_TREE_GONE,       /* it ended before we could signal it        */
  NP_EXEC_TREE_SURVIVED    /* still there after SIGKILL and its bound   */
};

/* One process the program left running. */
struct np_exec_tree_proc {
  pid_t pid, ppid, pgid, sid;       /* from /proc/<pid>/stat at the scan   */
  uint64_t start_ticks;             /* its start time (clock ticks)        */
  char comm[NP_EXEC_TREE_COMM];     /* its command name                    */
  enum np_exec_tree_fate fate;      /* how it ended                        */
};

struct np_exec_tree {
  struct np_exec_tree_proc *procs;  /* every one found, in order found     */
  size_t n;                         /* entries in procs                    */
  size_t cap;                       /* allocated entries                   */
  unsigned rounds;                  /* scans made                          */
  int scan_error;                   /* /proc could not be read (errno)     */
};

/* Find every live descendant of ours except those in process group
 * skip_pgid (0: skip none), end them as above, and list them in *t
 * (zeroed first).  0, or NP_ENOMEM (what was found so far is in *t and
 * was still ended). */
int np_exec_tree_end(pid_t skip_pgid, struct np_exec_tree *t);

void np_exec_tree_free(struct np_exec_tree *t);

/* "terminated", "killed", "gone", "survived". */
const char *np_exec_tree_fate_name(enum np_exec_tree_fate f);

#endif /* NP_EXEC_TREE_H */
