/*
 * np_bench_ctl.h - the run controller every benchmark kind shares.
 *
 * The thread that runs a benchmark is its controller: it blocks SIGINT and
 * SIGTERM (threads it starts afterwards inherit the mask) and reads them
 * through a signalfd, so no handler and no global flag exist; it sleeps
 * until a deadline or a signal, times phases on CLOCK_MONOTONIC, takes
 * rusage deltas and kernel counter snapshots.  The snapshot policy is one:
 * a snapshot that fails fails the run with an environment error (the
 * caller returns the code, the CLI exits 3).  What the controller records
 * about a run (wall-clock start and end in the one timestamp format of
 * common/np_time.h, the signal, the snapshots) is a struct np_bench_run
 * (model/core/np_bench_run.h) that each kind embeds in its result and the
 * record envelope reads.
 *
 * Threading: only the controlling thread calls these functions.
 */
#ifndef NP_BENCH_CTL_H
#define NP_BENCH_CTL_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "np_bench_run.h" /* struct np_bench_run, np_bench_cpu (model/core) */
#include "np_err.h"
#include "np_kernel.h"
#include "np_time.h"

/* Test seam: how snapshots are taken.  Production passes no hooks. */
struct np_bench_ctl_hooks {
  int (*kernel_take)(void *arg, struct np_kernel **out); /* NULL: np_kernel_take */
  void *arg;                                             /* kernel_take's arg */
};

/* The controller's state; lives on the controlling thread's stack. */
struct np_bench_ctl {
  int sigfd;                       /* signalfd for SIGINT/SIGTERM, or -1 */
  int signal;                      /* first signal read, or 0            */
  sigset_t old_mask;               /* the mask to restore on close       */
  struct np_bench_ctl_hooks hooks; /* snapshot seam (copied)             */
  int live;                        /* the live line shows a rate: a kind
                                    * samples its counters each second
                                    * (np_bench_interval_sleep) though
                                    * --interval is off                  */
  _Atomic uint64_t live_ops;       /* cumulative operations of the
                                    * measured phase, last sample        */
  _Atomic uint64_t live_ns;        /* its monotonic time, ns (0 = none)  */
  _Atomic unsigned live_seq;       /* odd while the pair is written      */
};

/* Block SIGINT/SIGTERM in the calling thread and open the signalfd.
 * hooks may be NULL.  0, or NP_E* with detail in eb (mask restored). */
int np_bench_ctl_open(struct np_bench_ctl *c,
                      const struct np_bench_ctl_hooks *hooks,
                      struct np_errbuf *eb);

/* Read what is pending (so an unblocked signal cannot kill the process
 * afterwards), close the signalfd, restore the mask.  Accepts NULL and a
 * controller whose open failed. */
void np_bench_ctl_close(struct np_bench_ctl *c);

/* The first SIGINT/SIGTERM seen so far, or 0 (no system call). */
int np_bench_ctl_signal(const struct np_bench_ctl *c);

/* Wait up to timeout_ms (0 = just look) for a signal; note the first. */
void np_bench_ctl_poll(struct np_bench_ctl *c, int timeout_ms);

/* Wait until the monotonic deadline (seconds, np_time_mono_s), or until
 * cond(arg) holds when cond is given (checked about every millisecond), or
 * - without cond - until a signal.  With cond a signal does not end the
 * wait: the caller shortens the deadline instead. */
void np_bench_ctl_wait(struct np_bench_ctl *c, double deadline,
                       int (*cond)(void *), void *arg);

/* One timed phase: sleep `seconds` from now unless a signal ends it
 * (returns at once when one was already seen).  Returns the seconds the
 * phase lasted, on CLOCK_MONOTONIC. */
double np_bench_ctl_sleep(struct np_bench_ctl *c, double seconds);

/* The run begins: zeroes *run and stamps started_at. */
void np_bench_ctl_start(struct np_bench_ctl *c, struct np_bench_run *run);

/* The run ends: looks for a last signal, stamps ended_at, copies the
 * signal into run->signal. */
void np_bench_ctl_finish(struct np_bench_ctl *c, struct np_bench_run *run);

enum np_bench_snap {
  NP_BENCH_SNAP_BEFORE, /* into run->kernel_before */
  NP_BENCH_SNAP_AFTER   /* into run->kernel_after  */
};

/* Take a kernel snapshot into the run (the one policy): 0, or the
 * snapshot's NP_E* code with "kernel snapshot before|after the
 * measurement: reason" in eb; the run must then fail with that code. */
int np_bench_ctl_snapshot(struct np_bench_ctl *c, struct np_bench_run *run,
                          enum np_bench_snap which, struct np_errbuf *eb);

/* Process CPU time now (getrusage RUSAGE_SELF). */
void np_bench_cpu_now(struct np_bench_cpu *out);

/* CPU used since *start (taken with np_bench_cpu_now). */
void np_bench_cpu_since(const struct np_bench_cpu *start,
                        struct np_bench_cpu *delta);

/* Peak resident set size of the process so far, bytes. */
int64_t np_bench_rss_max_bytes(void);

#endif /* NP_BENCH_CTL_H */
