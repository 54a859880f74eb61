/*
 * np_bench_interval.h - the time series every kind can keep (--interval
 * S): the measured phase is slept in slices of S; at each boundary the
 * kind reports its cumulative counters and the latency histogram of the
 * slice (a sample callback, run on the controller), and the sampler adds
 * the process CPU and resident memory, prints one human line on stderr
 * and keeps a point.  The record gets "intervals" (schema $defs/
 * intervals): at most NP_BENCH_IV_MAX points, refused at parse time
 * rather than dropped (np_bench_interval_check).
 *
 * Threading: the controller only; the kind's callback does its own
 * hand-off with its threads.
 */
#ifndef NP_BENCH_INTERVAL_H
#define NP_BENCH_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_ctl.h"
#include "np_bench_intervals.h" /* the series and its record part (model/core) */
#include "np_err.h"
#include "np_hist.h"

/* What a kind reports at a boundary: counters since the phase began
 * (cumulative, never decreasing: a sample whose counter went back is
 * refused and counted in "missed") and the latencies of this slice
 * only. */
struct np_bench_iv_sample {
  uint64_t ops;               /* completed operations (round trips,
                                 datagrams received)                   */
  uint64_t bytes;             /* payload bytes those carried           */
  uint64_t lost;              /* losses as the kind's lost_rule counts */
  const struct np_hist *lat;  /* this slice's latencies (ns) or NULL;
                                 read during the callback's return only */
};

/* Fill *out at a boundary; nonzero = no sample (the point is skipped and
 * counted in "missed"). */
typedef int (*np_bench_iv_fn)(void *ctx, struct np_bench_iv_sample *out);

/* np_bench_ctl_sleep(c, seconds), sampled every iv->every through fn
 * (iv off or NULL: a plain sleep, or - when c->live - fn each second for
 * the live line's rate only: c->live_ops).  Returns the phase's length. */
double np_bench_interval_sleep(struct np_bench_ctl *c, double seconds,
                               struct np_bench_intervals *iv,
                               np_bench_iv_fn fn, void *ctx);

/* Resident set size now (/proc/self/statm), bytes; -1 if unknown. */
int64_t np_bench_rss_now_bytes(void);

#endif /* NP_BENCH_INTERVAL_H */
