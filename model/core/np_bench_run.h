/*
 * np_bench_run.h - what the run controller (bench/core/np_bench_ctl.h)
 * records about one run, as the record envelope reads it: wall-clock start
 * and end in the one timestamp format of common/np_time.h, the signal that
 * ended it, the kernel counter snapshots before and after, and process
 * CPU time.  Plain data, so the envelope builder (np_bench_record.h) and
 * every kind's result embed it without the controller.
 */
#ifndef NP_BENCH_RUN_H
#define NP_BENCH_RUN_H

#include "np_kernel.h"
#include "np_time.h"

/* What the controller records about one run; embedded in a kind's result.
 * The snapshots are owned: free with np_bench_run_free. */
struct np_bench_run {
  char started_at[NP_TIME_TEXT_MAX]; /* RFC 3339 UTC ms: the run began     */
  char ended_at[NP_TIME_TEXT_MAX];   /* RFC 3339 UTC ms: the run ended     */
  int signal;                        /* SIGINT/SIGTERM that ended it, or 0 */
  struct np_kernel *kernel_before;   /* snapshot before measuring; owned   */
  struct np_kernel *kernel_after;    /* snapshot after measuring; owned    */
};

/* Frees the snapshots and zeroes *run.  Accepts NULL. */
void np_bench_run_free(struct np_bench_run *run);

/* Process CPU time (getrusage RUSAGE_SELF). */
struct np_bench_cpu {
  double user_seconds; /* user CPU */
  double sys_seconds;  /* system CPU */
};

#endif /* NP_BENCH_RUN_H */
