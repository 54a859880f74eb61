/*
 * np_rudp_interval.c - --interval for rudp: at each boundary of a round's
 * measured phase the controller asks every lane (a request counter and
 * the lane's wake-up) to hand over the round trips and latencies of the
 * slice; each lane merges its slice histogram into a hand-over one under
 * its lock, resets it and acknowledges (np_rudp__iv_handover, from its
 * wake callback).  The run adds the relay's losses (np_rudp_run.c) and
 * the shared sampler (bench/core/np_bench_interval.h) the rest.  The
 * lanes' own histograms are never read while a lane writes them.
 */
#include <time.h>

#include "np_rudp_endpoint_int.h"

#define ACK_WAIT_S 0.2 /* a lane that does not hand over in time: skipped */

int np_rudp__iv_alloc(struct lane *l) {
  if (np_hist_new(1000, 60000000000ll, 3, &l->iv_hist) != 0 ||
      np_hist_new(1000, 60000000000ll, 3, &l->iv_pub) != 0 ||
      uv_mutex_init(&l->iv_lock) != 0)
    return NP_ENOMEM;
  l->iv_lock_init = 1;
  return 0;
}

void np_rudp__iv_free(struct lane *l) {
  np_hist_free(l->iv_hist);
  np_hist_free(l->iv_pub);
  l->iv_hist = l->iv_pub = NULL;
  if (l->iv_lock_init)
    uv_mutex_destroy(&l->iv_lock);
  l->iv_lock_init = 0;
}

void np_rudp__iv_handover(struct lane *l) {
  if (l->iv_hist == NULL)
    return;
  unsigned req = atomic_load_explicit(&l->iv_req, memory_order_acquire);
  if (req == atomic_load_explicit(&l->iv_ack, memory_order_relaxed))
    return;
  uv_mutex_lock(&l->iv_lock);
  np_hist_merge(l->iv_pub, l->iv_hist);
  l->iv_received_pub = l->iv_received;
  uv_mutex_unlock(&l->iv_lock);
  np_hist_reset(l->iv_hist);
  atomic_store_explicit(&l->iv_ack, req, memory_order_release);
}

int np_rudp_net_interval(struct np_rudp_net *n, struct np_hist *slice,
                         uint64_t *roundtrips) {
  for (unsigned i = 0; i < n->nlanes; i++) {
    atomic_fetch_add_explicit(&n->lanes[i].iv_req, 1, memory_order_release);
    uv_async_send(&n->lanes[i].wake);
  }
  double t0 = (double)np_rudp__now_ns() / 1e9;
  for (unsigned i = 0; i < n->nlanes; i++) {
    struct lane *l = &n->lanes[i];
    while (atomic_load_explicit(&l->iv_ack, memory_order_acquire) !=
               atomic_load_explicit(&l->iv_req, memory_order_relaxed) &&
           (double)np_rudp__now_ns() / 1e9 - t0 < ACK_WAIT_S) {
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
  }
  np_hist_reset(slice);
  uint64_t sum = 0;
  for (unsigned i = 0; i < n->nlanes; i++) {
    struct lane *l = &n->lanes[i];
    if (l->iv_pub == NULL)
      return NP_EINVAL;
    uv_mutex_lock(&l->iv_lock);
    np_hist_merge(slice, l->iv_pub);
    np_hist_reset(l->iv_pub);
    sum += l->iv_received_pub;
    uv_mutex_unlock(&l->iv_lock);
  }
  *roundtrips = sum;
  return 0;
}
