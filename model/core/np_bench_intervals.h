/*
 * np_bench_intervals.h - the time series a run keeps with --interval S
 * (bench/core/np_bench_interval.h samples it on the controller): its
 * points, the parse-time bound on their number, the --interval option row
 * every kind's table shares, and the record's "intervals" object (schema
 * $defs/intervals).  Plain data and pure functions, so the record
 * builders and the self-check use them without the controller.
 */
#ifndef NP_BENCH_INTERVALS_H
#define NP_BENCH_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"

#define NP_BENCH_IV_MAX 3600 /* points a record holds at most */

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

/* The record's "intervals" object, NULL when off or on no memory. */
cJSON *np_bench_interval_json(const struct np_bench_intervals *iv);

/* --interval's row over cfgtype's `double interval` (the same in every
 * kind's table). */
#define NP_BENCH_OPT_INTERVAL_ROW(cfgtype)                                   \
  {.name = "interval", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 3600,     \
   .unit = "s", .dflt = "0",                                                \
   .help = "time series: throughput, p50/p99, loss, CPU every S seconds "   \
           "(record and stderr; 0 = off)",                                  \
   NP_BENCH_AT(cfgtype, interval), .tag = "iv"}

#endif /* NP_BENCH_INTERVALS_H */
