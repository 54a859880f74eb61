/*
 * test_bench_interval.c - the shared --interval sampler (bench/core) with
 * a fake kind: one point per slice, slices contiguous and adding up to the
 * phase, differences of cumulative counters, percentiles of the slice's
 * histogram (null when its count cannot support them), a refused sample
 * counted as missed, a sample whose cumulative lost went back refused as
 * missed (never differenced into a wrapped count), the 3,600-point bound
 * refused at parse time, the record object; and a plain sleep when off.
 */
#include <math.h>
#include <string.h>

#include "np_bench_ctl.h"
#include "np_bench_interval.h"
#include "np_json.h"
#include "np_test.h"

struct fake {
  int calls;              /* samples asked for           */
  struct np_hist *h;      /* the slice's latencies       */
};

static int sample(void *ctx, struct np_bench_iv_sample *out) {
  struct fake *f = ctx;
  f->calls++;
  if (f->calls == 3)
    return -1; /* the third boundary has no sample */
  np_hist_reset(f->h);
  for (int i = 0; i < 100 * f->calls; i++)
    np_hist_record(f->h, 1000 + i);
  out->ops = (uint64_t)(10 * f->calls * (f->calls + 1) / 2);
  out->bytes = out->ops * 100;
  out->lost = (uint64_t)f->calls;
  out->lat = f->h;
  return 0;
}

/* lost goes 5, 3 (back: refused), 6 */
static int sample_back(void *ctx, struct np_bench_iv_sample *out) {
  struct fake *f = ctx;
  static const uint64_t lost[] = {5, 3, 6, 6, 6, 6};
  f->calls++;
  out->ops = (uint64_t)f->calls;
  out->lost = lost[f->calls < 6 ? f->calls - 1 : 5];
  out->lat = NULL;
  return 0;
}

static void test_counter_back(struct np_bench_ctl *ctl) {
  struct np_bench_intervals iv;
  struct fake f = {0};
  ASSERT_OK(np_bench_interval_init(&iv, 0.05, 0.15, "test", "fake", 1));
  np_bench_interval_sleep(ctl, 0.15, &iv, sample_back, &f);
  ASSERT_EQ(f.calls, 3);
  ASSERT_EQ(iv.missed, 1);
  ASSERT_EQ(iv.n, 2);
  ASSERT_UINT_EQ(iv.pts[0].lost, 5);
  ASSERT_UINT_EQ(iv.pts[1].lost, 1); /* 6 - 5 over the merged slices */
  ASSERT_UINT_EQ(iv.pts[1].ops, 2);
  np_bench_interval_free(&iv);
}

int main(void) {
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_bench_interval_check(0.001, 10, &eb), NP_EUSAGE);
  ASSERT_TRUE(strstr(eb.msg, "--interval 0.001") != NULL);
  ASSERT_OK(np_bench_interval_check(0.01, 36, &eb));
  ASSERT_OK(np_bench_interval_check(0, 3600, &eb));

  struct np_bench_ctl ctl;
  ASSERT_OK(np_bench_ctl_open(&ctl, NULL, &eb));
  struct np_bench_intervals iv;
  struct fake f = {0};
  ASSERT_OK(np_hist_new(1, 60000000000LL, 3, &f.h));
  ASSERT_OK(np_bench_interval_init(&iv, 0.05, 0.25, "test", "fake", 1));
  double took = np_bench_interval_sleep(&ctl, 0.25, &iv, sample, &f);
  ASSERT_TRUE(took >= 0.25 - 1e-6);
  ASSERT_EQ(f.calls, 5);
  ASSERT_EQ(iv.missed, 1);
  ASSERT_EQ(iv.n, 4);
  double sum = 0;
  for (size_t i = 0; i < iv.n; i++)
    sum += iv.pts[i].seconds;
  ASSERT_DBL_NEAR(sum, iv.pts[iv.n - 1].t, 1e-9);
  /* differences of cumulative counts: 10, 20, (missed), 40+30, 50 */
  ASSERT_UINT_EQ(iv.pts[0].ops, 10);
  ASSERT_UINT_EQ(iv.pts[1].ops, 20);
  ASSERT_UINT_EQ(iv.pts[2].ops, 70); /* the missed slice merged in */
  ASSERT_UINT_EQ(iv.pts[3].ops, 50);
  ASSERT_UINT_EQ(iv.pts[3].bytes, 5000);
  ASSERT_UINT_EQ(iv.pts[0].lat_count, 100);
  ASSERT_TRUE(iv.pts[0].p50_ns >= 1049 && iv.pts[0].p50_ns <= 1051);
  ASSERT_EQ(iv.pts[0].p99_ns, 1098); /* nearest rank 99 of 1000..1099 */
  cJSON *o = np_bench_interval_json(&iv);
  ASSERT_NOT_NULL(o);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(o, "points")), 4);
  ASSERT_EQ((int)np_json_get_number(o, "missed", -1), 1);
  cJSON_Delete(o);
  np_bench_interval_free(&iv);

  /* a slice too small for p99: null */
  struct np_hist *small = NULL;
  ASSERT_OK(np_hist_new(1, 60000000000LL, 3, &small));
  np_hist_record(small, 5);
  ASSERT_OK(np_bench_interval_init(&iv, 0, 1, "test", "fake", 1));
  ASSERT_TRUE(np_bench_interval_json(&iv) == NULL); /* off: no object */
  double t = np_bench_interval_sleep(&ctl, 0.02, &iv, sample, &f);
  ASSERT_TRUE(t >= 0.02 - 1e-6);
  ASSERT_EQ(f.calls, 5); /* off: never sampled */
  np_hist_free(small);
  np_hist_free(f.h);
  test_counter_back(&ctl);
  np_bench_ctl_close(&ctl);
  return 0;
}
