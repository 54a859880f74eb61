/*
 * np_hist.h - latency histogram with log-linear buckets, after
 * HdrHistogram's design (Debian ships no C package of HdrHistogram).
 *
 * Values are int64 (netproof records nanoseconds).  With 3 significant
 * digits every recorded value is reproduced within 0.1 % relative.  Memory
 * is fixed at creation: for 1 ns ... 60 s at 3 digits it stays under
 * 256 KiB.  Recording never allocates, so it is safe on hot paths.
 * Not thread-safe: keep one per thread and merge.
 */
#ifndef NP_HIST_H
#define NP_HIST_H

#include <stdint.h>

#include "np_err.h"

struct np_hist;

/* lowest >= 1, highest >= 2 * lowest, sigfigs 1..5.  *out written on success. */
int np_hist_new(int64_t lowest, int64_t highest, int sigfigs,
                struct np_hist **out);
void np_hist_free(struct np_hist *h); /* accepts NULL */
void np_hist_reset(struct np_hist *h);

/* Values above highest are clamped to highest and counted in
 * np_hist_overflows; values below lowest are recorded as lowest. */
int np_hist_record(struct np_hist *h, int64_t value);
int np_hist_record_n(struct np_hist *h, int64_t value, uint64_t n);

/* dst += src; both must have the same lowest/highest/sigfigs (NP_EINVAL). */
int np_hist_merge(struct np_hist *dst, const struct np_hist *src);

uint64_t np_hist_count(const struct np_hist *h);
uint64_t np_hist_overflows(const struct np_hist *h);
int64_t np_hist_min(const struct np_hist *h);  /* 0 when empty */
int64_t np_hist_max(const struct np_hist *h);  /* 0 when empty */
double np_hist_mean(const struct np_hist *h);  /* 0 when empty */

/* Value at percentile pct (0 < pct <= 100) into *out.  Returns NP_ERANGE
 * (and leaves *out untouched) when the sample count cannot support the
 * rank: a percentile p needs count >= ceil(100 / (100 - p)) samples, e.g.
 * p99.9 needs 1,000; p100 (max) needs 1.  Empty histogram: NP_ERANGE. */
int np_hist_percentile(const struct np_hist *h, double pct, int64_t *out);

/* Memory footprint of h in bytes (for tests and the record). */
size_t np_hist_memory(const struct np_hist *h);

#endif /* NP_HIST_H */
