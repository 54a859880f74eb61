/*
 * np_udp_interval.c - --interval for udp echo: at each boundary the
 * controller asks every lane (a request counter and a wake-up) to hand
 * over the latencies of the slice and its received count; each lane
 * merges its slice histogram into a hand-over one under its lock, resets
 * it and acknowledges.  The controller then merges the hand-overs into
 * the slice's histogram for the shared sampler
 * (bench/core/np_bench_interval.h).  "lost" per slice is the kernel's
 * per-socket drop counters on the run's sockets (SO_MEMINFO), the only
 * loss known before the drain.  The lanes' histograms are never read
 * while a lane writes them.
 */
#include <stdlib.h>

#include "np_udp_engine.h"

#define ACK_WAIT_S 0.2 /* a lane that does not hand over in time: skipped */

int np_udp_interval_alloc(struct np_udp_lane *l) {
  if (np_hist_new(1, 60000000000LL, 3, &l->iv_hist) != 0 ||
      np_hist_new(1, 60000000000LL, 3, &l->iv_pub) != 0 ||
      pthread_mutex_init(&l->iv_lock, NULL) != 0)
    return NP_ENOMEM;
  l->iv_lock_init = 1;
  return 0;
}

void np_udp_interval_free(struct np_udp_lane *l) {
  np_hist_free(l->iv_hist);
  np_hist_free(l->iv_pub);
  l->iv_hist = l->iv_pub = NULL;
  if (l->iv_lock_init)
    pthread_mutex_destroy(&l->iv_lock);
  l->iv_lock_init = 0;
}

void np_udp_interval_on_wake(struct np_udp_lane *l) {
  unsigned req = atomic_load_explicit(&l->iv_req, memory_order_acquire);
  if (req == atomic_load_explicit(&l->iv_ack, memory_order_relaxed))
    return;
  pthread_mutex_lock(&l->iv_lock);
  np_hist_merge(l->iv_pub, l->iv_hist);
  l->iv_received = l->ctr[1].received;
  pthread_mutex_unlock(&l->iv_lock);
  np_hist_reset(l->iv_hist);
  atomic_store_explicit(&l->iv_ack, req, memory_order_release);
}

int np_udp_interval_sample(void *ctx, struct np_bench_iv_sample *out) {
  struct np_udp_iv_ctx *iv = ctx;
  struct np_udp_engine *eng = iv->eng;
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    atomic_fetch_add_explicit(&eng->lanes[i].iv_req, 1, memory_order_release);
    eng->tp->loop_wake(eng->lanes[i].loop);
  }
  double t0 = (double)np_udp_now_ns() / 1e9;
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    struct np_udp_lane *l = &eng->lanes[i];
    while (atomic_load_explicit(&l->iv_ack, memory_order_acquire) !=
               atomic_load_explicit(&l->iv_req, memory_order_relaxed) &&
           (double)np_udp_now_ns() / 1e9 - t0 < ACK_WAIT_S) {
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
  }
  np_hist_reset(iv->merged);
  uint64_t received = 0;
  for (uint32_t i = 0; i < eng->nlanes; i++) {
    struct np_udp_lane *l = &eng->lanes[i];
    pthread_mutex_lock(&l->iv_lock);
    np_hist_merge(iv->merged, l->iv_pub);
    np_hist_reset(l->iv_pub);
    received += l->iv_received;
    pthread_mutex_unlock(&l->iv_lock);
  }
  int64_t drops = np_udp_drops_since(eng, iv->res);
  out->ops = received;
  out->bytes = received * eng->cfg->payload;
  out->lost = drops > 0 ? (uint64_t)drops : 0;
  out->lat = iv->merged;
  return 0;
}
