/*
 * np_bench_progress.h - the live line of a single long run on a terminal:
 * "netproof-bench udp: 4 s of 10.25 s, 6 s left, 92,515 round trips/s",
 * rewritten in place on stderr twice a second by a thread of its own and
 * erased before the summary.  The rate is the kind's headline rate over
 * the last second, from the cumulative count its controller thread
 * samples into np_bench_ctl.live_ops (kinds without one: no rate).  Only when stderr is a terminal, the run is planned to take at
 * least NP_BENCH_PROGRESS_MIN_S and no --interval prints its own lines
 * (the caller decides: planned 0 = none); never in a file or a pipe.
 * The thread starts with the caller's signal mask (SIGINT/SIGTERM
 * blocked by the controller), so signals stay the run's.
 */
#ifndef NP_BENCH_PROGRESS_H
#define NP_BENCH_PROGRESS_H

#include <stdio.h>

#include "np_bench_ctl.h"

#define NP_BENCH_PROGRESS_MIN_S 2.0 /* shorter runs get no line */

struct np_bench_progress;

/* Start the line for prog when fp is a terminal and planned >= the
 * minimum; bound_only: planned is an upper bound (exec's --timeout), the
 * line then says "time bound" instead of "left".  live (may be NULL): the
 * controller whose live_ops count `unit`s ("round trips/s"); the line
 * sets live->live = 1 when it starts, so the kind samples.  *out is NULL
 * when there is no line (also when the thread cannot start: the run goes
 * on). */
void np_bench_progress_start(FILE *fp, const char *prog, double planned,
                             int bound_only, struct np_bench_ctl *live,
                             const char *unit, struct np_bench_progress **out);

/* Stop the thread and erase the line; NULL is fine. */
void np_bench_progress_stop(struct np_bench_progress *p);

#endif /* NP_BENCH_PROGRESS_H */
