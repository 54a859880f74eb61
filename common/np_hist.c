/*
 * np_hist.c - log-linear latency histogram after HdrHistogram's design.
 *
 * Layout (as in HdrHistogram's hdr_histogram.c): the value range is split
 * into buckets whose widths grow by powers of two.  Each bucket holds
 * sub_bucket_count linear sub-buckets, where sub_bucket_count is the power
 * of two that resolves 2 * 10^sigfigs distinct values; bucket 0 covers
 * [0, sub_bucket_count << unit) and every later bucket only needs its upper
 * half, because its lower half overlaps the previous bucket.  So the counts
 * array is (bucket_count + 1) * sub_bucket_half_count long, allocated once
 * in np_hist_new; recording is an index computation and an increment.
 *
 * Statistics kept exactly beside the buckets: count, overflows, min, max
 * and the sum of recorded values (128-bit, so the mean is exact).  The
 * percentile answer is the highest value equivalent to the bucket that
 * holds the nearest-rank sample (HdrHistogram's value_at_percentile),
 * clamped into [min, max] so p100 is the true max.
 */
#include "np_hist.h"
#include "np_hist_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Position of the highest set bit plus one (v > 0). */
static int np_hist_bit_length_(uint64_t v) { return 64 - __builtin_clzll(v); }

static int32_t np_hist_bucket_index_(const struct np_hist *h, int64_t value) {
  int pow2ceiling =
      np_hist_bit_length_((uint64_t)(value | h->sub_bucket_mask));
  return pow2ceiling - h->unit_magnitude -
         (h->sub_bucket_half_count_magnitude + 1);
}

static int32_t np_hist_sub_bucket_index_(const struct np_hist *h,
                                         int64_t value, int32_t bucket) {
  return (int32_t)(value >> (bucket + h->unit_magnitude));
}

static int32_t np_hist_counts_index_(const struct np_hist *h, int64_t value) {
  int32_t bucket = np_hist_bucket_index_(h, value);
  int32_t sub = np_hist_sub_bucket_index_(h, value, bucket);
  int32_t base = (bucket + 1) << h->sub_bucket_half_count_magnitude;
  return base + (sub - h->sub_bucket_half_count);
}

/* Lowest value that lands in counts[index]. */
static int64_t np_hist_value_at_index_(const struct np_hist *h,
                                       int32_t index) {
  int32_t bucket = (index >> h->sub_bucket_half_count_magnitude) - 1;
  int32_t sub = (index & (h->sub_bucket_half_count - 1)) +
                h->sub_bucket_half_count;
  if (bucket < 0) {
    sub -= h->sub_bucket_half_count;
    bucket = 0;
  }
  return (int64_t)sub << (bucket + h->unit_magnitude);
}

/* Highest value that shares a counter with value. */
static int64_t np_hist_highest_equivalent_(const struct np_hist *h,
                                           int64_t value) {
  int32_t bucket = np_hist_bucket_index_(h, value);
  int32_t sub = np_hist_sub_bucket_index_(h, value, bucket);
  int64_t lowest_equiv = (int64_t)sub << (bucket + h->unit_magnitude);
  int32_t adjusted = sub >= h->sub_bucket_count ? bucket + 1 : bucket;
  int64_t width = (int64_t)1 << (h->unit_magnitude + adjusted);
  return lowest_equiv + (width - 1); /* no overflow at INT64_MAX */
}

/* Buckets needed so that sub_bucket_count << unit << (n - 1) > highest. */
static int32_t np_hist_buckets_needed_(int64_t highest, int32_t sub_count,
                                       int unit) {
  int64_t smallest_untrackable = (int64_t)sub_count << unit;
  int32_t needed = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > INT64_MAX / 2)
      return needed + 1;
    smallest_untrackable <<= 1;
    needed++;
  }
  return needed;
}

/* Internal accessors for np_hist_codec.c (np_hist_int.h). */
int32_t np_hist__index_of(const struct np_hist *h, int64_t value) {
  return np_hist_counts_index_(h, value);
}

int64_t np_hist__lowest_at(const struct np_hist *h, int32_t index) {
  return np_hist_value_at_index_(h, index);
}

int64_t np_hist__highest_at(const struct np_hist *h, int32_t index) {
  return np_hist_highest_equivalent_(h, np_hist_value_at_index_(h, index));
}

/* The layout of (lowest, highest, sigfigs), computed without allocating
 * (np_hist_new, and np_hist__counters for a decoder that must refuse a
 * hostile header before it allocates).  NP_EINVAL when not valid. */
struct np_hist_layout_ {
  int unit;           /* floor(log2(lowest))             */
  int half_magnitude; /* log2(sub_bucket_half_count)     */
  int32_t sub_count;  /* linear sub-buckets per bucket   */
  int32_t buckets;    /* power-of-two buckets            */
  int32_t counts_len; /* entries of counts[]             */
};

static int np_hist_layout_of_(int64_t lowest, int64_t highest, int sigfigs,
                              struct np_hist_layout_ *l) {
  if (lowest < 1 || sigfigs < 1 || sigfigs > 5 || lowest > INT64_MAX / 2 ||
      highest < 2 * lowest)
    return NP_EINVAL;

  int64_t largest_single_unit = 2;
  for (int i = 0; i < sigfigs; i++)
    largest_single_unit *= 10;
  /* ceil(log2(2 * 10^sigfigs)) */
  int sub_count_magnitude =
      np_hist_bit_length_((uint64_t)largest_single_unit - 1);
  int half_magnitude = sub_count_magnitude > 1 ? sub_count_magnitude - 1 : 0;
  int unit = np_hist_bit_length_((uint64_t)lowest) - 1;
  if (unit + half_magnitude > 61)
    return NP_EINVAL;

  int32_t sub_count = (int32_t)1 << (half_magnitude + 1);
  int32_t buckets = np_hist_buckets_needed_(highest, sub_count, unit);
  *l = (struct np_hist_layout_){.unit = unit,
                                .half_magnitude = half_magnitude,
                                .sub_count = sub_count,
                                .buckets = buckets,
                                .counts_len = (buckets + 1) * (sub_count / 2)};
  return 0;
}

int np_hist__counters(int64_t lowest, int64_t highest, int sigfigs,
                      int32_t *counts_len) {
  struct np_hist_layout_ l;
  int rc = np_hist_layout_of_(lowest, highest, sigfigs, &l);
  if (rc == 0)
    *counts_len = l.counts_len;
  return rc;
}

int np_hist_new(int64_t lowest, int64_t highest, int sigfigs,
                struct np_hist **out) {
  struct np_hist_layout_ l;
  if (out == NULL || np_hist_layout_of_(lowest, highest, sigfigs, &l) != 0)
    return NP_EINVAL;
  int unit = l.unit, half_magnitude = l.half_magnitude;
  int32_t sub_count = l.sub_count, half_count = sub_count / 2;
  int32_t buckets = l.buckets, counts_len = l.counts_len;

  /* np_hist_reset below zeroes the counters: calloc would zero them a
   * second time (the self-check decodes a histogram per record) */
  struct np_hist *h = malloc(sizeof(*h) + (size_t)counts_len *
                                              sizeof(h->counts[0]));
  if (h == NULL)
    return NP_ENOMEM;
  h->lowest = lowest;
  h->highest = highest;
  h->sigfigs = sigfigs;
  h->unit_magnitude = unit;
  h->sub_bucket_half_count_magnitude = half_magnitude;
  h->sub_bucket_count = sub_count;
  h->sub_bucket_half_count = half_count;
  h->sub_bucket_mask = ((int64_t)sub_count - 1) << unit;
  h->bucket_count = buckets;
  h->counts_len = counts_len;
  np_hist_reset(h);
  *out = h;
  return 0;
}

void np_hist_free(struct np_hist *h) { free(h); }

void np_hist_reset(struct np_hist *h) {
  if (h == NULL)
    return;
  memset(h->counts, 0, (size_t)h->counts_len * sizeof(h->counts[0]));
  h->total = 0;
  h->overflows = 0;
  h->min = 0;
  h->max = 0;
  h->sum = 0;
}

int np_hist_record(struct np_hist *h, int64_t value) {
  return np_hist_record_n(h, value, 1);
}

int np_hist_record_n(struct np_hist *h, int64_t value, uint64_t n) {
  if (h == NULL)
    return NP_EINVAL;
  if (n == 0)
    return 0;
  if (value > h->highest) {
    value = h->highest;
    h->overflows += n;
  } else if (value < h->lowest) {
    value = h->lowest;
  }
  h->counts[np_hist_counts_index_(h, value)] += n;
  if (h->total == 0 || value < h->min)
    h->min = value;
  if (h->total == 0 || value > h->max)
    h->max = value;
  h->total += n;
  h->sum += (np_hist_u128_)(uint64_t)value * n;
  return 0;
}

int np_hist_merge(struct np_hist *dst, const struct np_hist *src) {
  if (dst == NULL || src == NULL || dst->lowest != src->lowest ||
      dst->highest != src->highest || dst->sigfigs != src->sigfigs)
    return NP_EINVAL;
  if (src->total == 0)
    return 0;
  for (int32_t i = 0; i < dst->counts_len; i++)
    dst->counts[i] += src->counts[i];
  if (dst->total == 0 || src->min < dst->min)
    dst->min = src->min;
  if (dst->total == 0 || src->max > dst->max)
    dst->max = src->max;
  dst->total += src->total;
  dst->overflows += src->overflows;
  dst->sum += src->sum;
  return 0;
}

uint64_t np_hist_count(const struct np_hist *h) { return h ? h->total : 0; }

uint64_t np_hist_overflows(const struct np_hist *h) {
  return h ? h->overflows : 0;
}

int64_t np_hist_min(const struct np_hist *h) {
  return h && h->total ? h->min : 0;
}

int64_t np_hist_max(const struct np_hist *h) {
  return h && h->total ? h->max : 0;
}

double np_hist_mean(const struct np_hist *h) {
  if (h == NULL || h->total == 0)
    return 0.0;
  return (double)h->sum / (double)h->total;
}

/* ceil(x), forgiving the rounding noise of decimal percentiles: 99.9 % of
 * 1000 computes as 999.0000000000001 and 100 / (100 - 99.9) as
 * 1000.0000000000568; both must count as whole numbers. */
static double np_hist_ceil_(double x) { return ceil(x - fabs(x) * 1e-9); }

int np_hist_percentile(const struct np_hist *h, double pct, int64_t *out) {
  if (h == NULL || out == NULL || !isfinite(pct) || pct <= 0.0 ||
      pct > 100.0)
    return NP_EINVAL;
  if (h->total == 0)
    return NP_ERANGE;
  double n = (double)h->total;
  if (pct < 100.0 && np_hist_ceil_(100.0 / (100.0 - pct)) > n)
    return NP_ERANGE;

  /* Nearest rank: the ceil(pct/100 * n)-th smallest sample (1-based). */
  double rank_d = np_hist_ceil_(pct / 100.0 * n);
  uint64_t rank = rank_d < 1.0 ? 1 : (uint64_t)rank_d;
  if (rank > h->total)
    rank = h->total;

  /* no counter below min's holds a sample (min is the smallest value
   * recorded, or decoded from the first non-zero counter) */
  uint64_t seen = 0;
  int64_t value = h->max;
  for (int32_t i = np_hist_counts_index_(h, h->min); i < h->counts_len; i++) {
    seen += h->counts[i];
    if (seen >= rank) {
      value = np_hist_highest_equivalent_(h, np_hist_value_at_index_(h, i));
      break;
    }
  }
  if (value > h->max)
    value = h->max;
  if (value < h->min)
    value = h->min;
  *out = value;
  return 0;
}

size_t np_hist_memory(const struct np_hist *h) {
  if (h == NULL)
    return 0;
  return sizeof(*h) + (size_t)h->counts_len * sizeof(h->counts[0]);
}
