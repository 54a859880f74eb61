/*
 * np_bench_record_sections.h - record sections with one shape for every
 * kind: "measurement" (schema $defs/measurement) and its "rtt_us", and the
 * entries of "sockets.list" (schema $defs/sockets).  A kind
 * fills the plain struct below from its own result; the JSON is built
 * here once, so the two benchmarks cannot drift apart.
 */
#ifndef NP_BENCH_RECORD_SECTIONS_H
#define NP_BENCH_RECORD_SECTIONS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_run.h"
#include "np_hist.h"

/* One measured phase and its drain. */
struct np_bench_measurement {
  double seconds;             /* measured phase, wall clock               */
  double drain_seconds;       /* drain after it                           */
  double drain_bound_seconds; /* the drain's limit; < 0 = not recorded    */
  int drain_complete;         /* 1 = every outstanding message settled    */
  uint64_t roundtrips;        /* round trips completed in both            */
  const struct np_hist *rtt_ns; /* their RTTs, nanoseconds (not owned)    */
  struct np_bench_cpu cpu;    /* process CPU over seconds + drain         */
  int64_t rss_max_bytes;      /* peak resident set size                   */
};

/* {"count", "min", "p50", "p90", "p99", "p999", "max", "mean"} in
 * microseconds; what the sample count cannot support is null
 * (np_hist_percentile refuses it), never invented.  NULL on no memory. */
cJSON *np_bench_record_rtt(const struct np_hist *h);

/* The whole histogram (common/np_hist_codec.h: HdrHistogram V2 encoding
 * plus exact min, max, sum and overflows; values in ns), with
 * "summarizes": the name of the member beside it that holds the summary
 * it reproduces (or NULL), so the self-check recomputes that summary.  NULL on no memory. */
cJSON *np_bench_record_histogram(const struct np_hist *h,
                                 const char *summarizes);

/* The "measurement" object (with "rtt_histogram", the whole distribution
 * behind rtt_us): rates over seconds + drain_seconds, CPU
 * percent with one core = 100 and divided by the online cores.  NULL on
 * no memory. */
cJSON *np_bench_record_measurement(const struct np_bench_measurement *m);

/* One benchmark socket as a sockets.list[] entry. */
struct np_bench_socket {
  const char *role;     /* "server", "client" or "relay"                */
  uint32_t index;       /* index within its role                        */
  uint32_t thread;      /* thread (lane) that served it                 */
  int rcvbuf_requested; /* SO_RCVBUF asked for                          */
  int rcvbuf_effective; /* what getsockopt returned                     */
  int sndbuf_requested; /* SO_SNDBUF asked for                          */
  int sndbuf_effective; /* what getsockopt returned                     */
  uint64_t drops;       /* this socket's kernel drops in the window     */
  int64_t rxq_ovfl_last; /* last SO_RXQ_OVFL value seen; < 0 = null     */
};

/* The entry object; NULL on no memory. */
cJSON *np_bench_record_socket(const struct np_bench_socket *s);

#endif /* NP_BENCH_RECORD_SECTIONS_H */
