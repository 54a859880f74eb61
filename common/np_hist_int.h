/*
 * np_hist_int.h - the layout of struct np_hist, shared by np_hist.c (the
 * histogram) and np_hist_codec.c (its HdrHistogram encoding, which walks
 * and fills the counts array directly).  Internal to common/; every other
 * module sees only the opaque type of np_hist.h.
 */
#ifndef NP_HIST_INT_H
#define NP_HIST_INT_H

#include <stdint.h>

/* Exact 128-bit sum of values; GCC/clang extension, marked for -Wpedantic. */
__extension__ typedef unsigned __int128 np_hist_u128_;

struct np_hist {
  int64_t lowest;                  /* configured lowest trackable value     */
  int64_t highest;                 /* configured highest trackable value    */
  int sigfigs;                     /* configured significant digits (1..5)  */
  int unit_magnitude;              /* floor(log2(lowest))                   */
  int sub_bucket_half_count_magnitude; /* log2(sub_bucket_half_count)       */
  int32_t sub_bucket_count;        /* linear sub-buckets per bucket         */
  int32_t sub_bucket_half_count;   /* sub_bucket_count / 2                  */
  int64_t sub_bucket_mask;         /* (sub_bucket_count - 1) << unit        */
  int32_t bucket_count;            /* power-of-two buckets covering highest */
  int32_t counts_len;              /* entries in counts[]                   */
  uint64_t total;                  /* samples recorded (incl. overflows)    */
  uint64_t overflows;              /* samples above highest (clamped)       */
  int64_t min;                     /* smallest recorded (clamped) value     */
  int64_t max;                     /* largest recorded (clamped) value      */
  np_hist_u128_ sum;               /* sum of recorded (clamped) values      */
  uint64_t counts[];               /* counts_len bucket counters            */
};

/* Entries of counts[] np_hist_new(lowest, highest, sigfigs) would
 * allocate, computed without allocating: 0, or NP_EINVAL for a
 * configuration np_hist_new refuses. */
int np_hist__counters(int64_t lowest, int64_t highest, int sigfigs,
                      int32_t *counts_len);
/* counts[] index of value (lowest <= value <= highest). */
int32_t np_hist__index_of(const struct np_hist *h, int64_t value);
/* Lowest and highest value that land in counts[index]. */
int64_t np_hist__lowest_at(const struct np_hist *h, int32_t index);
int64_t np_hist__highest_at(const struct np_hist *h, int32_t index);

#endif /* NP_HIST_INT_H */
