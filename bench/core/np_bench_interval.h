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
#include "np_err.h"
#include "np_hist.h"

#define NP_BENCH_IV_MAX 3600 /* points a record holds at most */

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

/* One slice. */
struct np_bench_iv_point {
  double t;              /* end of the slice, s since the phase began  */
  double seconds;        /* its length                                  */
  uint64_t ops, bytes;   /* in the slice                                */
  uint64_t lost;         /* in the slice                                */
  uint64_t lat_count;    /* latency samples in the slice                */
  int64_t p50_ns, p99_ns; /* -1 = the slice's count cannot support it   */
  double cpu_percent;    /* process CPU over the slice, one core = 100  */
  int64_t rss_bytes;     /* resident set size at its end                */
};

struct np_bench_intervals {
  double every;                  /* S; 0 = off                          */
  const char *prog;              /* prefix of the stderr lines          */
  const char *lost_rule;         /* what "lost" counts (static text)    */
  int quiet;                     /* 1 = no stderr lines                 */
  size_t n, cap;                 /* points kept, room                   */
  uint64_t missed;               /* boundaries without a sample (or with
                                    a counter that went back)           */
  struct np_bench_iv_point *pts; /* owned                               */
};

/* 0, or NP_EUSAGE with one line when seconds / every would exceed
 * NP_BENCH_IV_MAX points ("--interval 0.001: ..."). */
int np_bench_interval_check(double every, double seconds,
                            struct np_errbuf *eb);

/* Ready for a phase of `seconds`; every = 0 leaves it off.  NP_ENOMEM. */
int np_bench_interval_init(struct np_bench_intervals *iv, double every,
                           double seconds, const char *prog,
                           const char *lost_rule, int quiet);
void np_bench_interval_free(struct np_bench_intervals *iv); /* NULL ok */

/* np_bench_ctl_sleep(c, seconds), sampled every iv->every through fn
 * (iv off or NULL: a plain sleep, or - when c->live - fn each second for
 * the live line's rate only: c->live_ops).  Returns the phase's length. */
double np_bench_interval_sleep(struct np_bench_ctl *c, double seconds,
                               struct np_bench_intervals *iv,
                               np_bench_iv_fn fn, void *ctx);

/* The record's "intervals" object, NULL when off or on no memory. */
cJSON *np_bench_interval_json(const struct np_bench_intervals *iv);

/* Resident set size now (/proc/self/statm), bytes; -1 if unknown. */
int64_t np_bench_rss_now_bytes(void);

/* --interval's row over cfgtype's `double interval` (the same in every
 * kind's table). */
#define NP_BENCH_OPT_INTERVAL_ROW(cfgtype)                                   \
  {.name = "interval", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 3600,     \
   .unit = "s", .dflt = "0",                                                \
   .help = "time series: throughput, p50/p99, loss, CPU every S seconds "   \
           "(record and stderr; 0 = off)",                                  \
   NP_BENCH_AT(cfgtype, interval), .tag = "iv"}

#endif /* NP_BENCH_INTERVAL_H */
