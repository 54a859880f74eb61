/*
 * np_bench_interval.c - the shared time-series sampler (see
 * np_bench_interval.h).  Boundaries are fixed on the phase's clock
 * (t0 + k S), so a late wake-up shortens the next slice instead of
 * shifting every later one; each point records its own length, and a
 * boundary without a sample (counted in "missed") merges its slice into
 * the next point.  CPU is getrusage's process total, RSS the resident
 * pages of /proc/self/statm.  The series' bound, memory and record part
 * are model/core/np_bench_intervals.c.
 */
#include "np_bench_interval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int64_t np_bench_rss_now_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL)
    return -1;
  int ok = fscanf(f, "%ld %ld", &pages, &resident) == 2;
  fclose(f);
  return ok ? (int64_t)resident * sysconf(_SC_PAGESIZE) : -1;
}

static int64_t pct(const struct np_hist *h, double p) {
  int64_t v;
  return h && np_hist_percentile(h, p, &v) == 0 ? v : -1;
}

/* One boundary: sample, difference, print, keep; 0 when no sample (the
 * next point then covers this slice too).  A sample whose cumulative
 * counter went back is refused the same way (counted in missed): its
 * difference would wrap to an absurd count. */
static int take(struct np_bench_intervals *iv, double t, double len,
                 struct np_bench_iv_sample *prev, struct np_bench_cpu *cpu0,
                 np_bench_iv_fn fn, void *ctx) {
  struct np_bench_iv_sample s = {0};
  struct np_bench_cpu cpu;
  if (fn(ctx, &s) != 0 || iv->n >= iv->cap || s.ops < prev->ops ||
      s.bytes < prev->bytes || s.lost < prev->lost) {
    iv->missed++;
    return 0;
  }
  np_bench_cpu_since(cpu0, &cpu);
  np_bench_cpu_now(cpu0);
  struct np_bench_iv_point *p = &iv->pts[iv->n++];
  p->t = t;
  p->seconds = len;
  p->ops = s.ops - prev->ops;
  p->bytes = s.bytes - prev->bytes;
  p->lost = s.lost - prev->lost;
  p->lat_count = s.lat ? np_hist_count(s.lat) : 0;
  p->p50_ns = pct(s.lat, 50);
  p->p99_ns = pct(s.lat, 99);
  p->cpu_percent =
      len > 0 ? 100.0 * (cpu.user_seconds + cpu.sys_seconds) / len : 0.0;
  p->rss_bytes = np_bench_rss_now_bytes();
  *prev = s;
  prev->lat = NULL;
  if (iv->quiet)
    return 1;
  char t50[24] = "n/a", t99[24] = "n/a";
  if (p->p50_ns >= 0)
    snprintf(t50, sizeof t50, "%.1f", (double)p->p50_ns / 1e3);
  if (p->p99_ns >= 0)
    snprintf(t99, sizeof t99, "%.1f", (double)p->p99_ns / 1e3);
  fprintf(stderr,
          "%s: [%6.2f s] %.0f/s, %.2f Mbit/s, p50 %s us, p99 %s us, lost %llu,"
          " cpu %.0f %%, rss %.1f MiB\n", iv->prog, t,
          len > 0 ? (double)p->ops / len : 0.0,
          len > 0 ? (double)p->bytes * 8 / len / 1e6 : 0.0, t50, t99,
          (unsigned long long)p->lost, p->cpu_percent,
          (double)p->rss_bytes / (1 << 20));
  return 1;
}

/* --interval off but a live line wants a rate: sample the counters each
 * second for it (np_bench_ctl.live_ops), keeping nothing. */
static double live_sleep(struct np_bench_ctl *c, double seconds,
                         np_bench_iv_fn fn, void *ctx) {
  double t0 = np_time_mono_s();
  for (unsigned k = 1;; k++) {
    np_bench_ctl_wait(c, t0 + fmin(seconds, k * 1.0), NULL, NULL);
    double now = np_time_mono_s();
    if (c->signal || now - t0 >= seconds - 1e-9)
      return now - t0;
    struct np_bench_iv_sample s = {0};
    if (fn(ctx, &s) == 0) { /* a pair the line reads whole (seqlock) */
      atomic_fetch_add(&c->live_seq, 1);
      atomic_store(&c->live_ops, s.ops);
      atomic_store(&c->live_ns, (uint64_t)(np_time_mono_s() * 1e9));
      atomic_fetch_add(&c->live_seq, 1);
    }
  }
}

double np_bench_interval_sleep(struct np_bench_ctl *c, double seconds,
                               struct np_bench_intervals *iv,
                               np_bench_iv_fn fn, void *ctx) {
  if ((iv == NULL || iv->every <= 0) && fn != NULL && c->live)
    return live_sleep(c, seconds, fn, ctx);
  if (iv == NULL || iv->every <= 0 || fn == NULL)
    return np_bench_ctl_sleep(c, seconds);
  double t0 = np_time_mono_s(), last = t0;
  struct np_bench_iv_sample prev = {0};
  struct np_bench_cpu cpu0;
  np_bench_cpu_now(&cpu0);
  for (unsigned k = 1;; k++) {
    double end = t0 + fmin(seconds, k * iv->every);
    np_bench_ctl_wait(c, end, NULL, NULL);
    double now = np_time_mono_s();
    if (c->signal || now - t0 >= seconds - 1e-9) {
      if (now - last > 1e-3) /* the last, possibly short, slice */
        take(iv, now - t0, now - last, &prev, &cpu0, fn, ctx);
      return now - t0;
    }
    if (take(iv, now - t0, now - last, &prev, &cpu0, fn, ctx))
      last = now;
  }
}

