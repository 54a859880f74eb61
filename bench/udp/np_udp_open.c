/*
 * np_udp_open.c - open loop (--rate): each client sends on a schedule that
 * does not wait for replies, so a stall of the server (or of the sender)
 * delays every message due during it, and each of those counts from when
 * it was due.  This is the correction for coordinated omission (wrk2's):
 * a closed loop stops sending while the server stalls and reports the
 * stall as one slow sample per window slot.
 *
 * Schedule: client k of C sends every C / rate seconds, the clients
 * staggered by 1 / rate so the lane's sends are evenly spaced (constant),
 * or with exponential gaps of that mean drawn from np_rng seeded by
 * (seed, client) (Poisson).  The origin is the moment the lane takes up a
 * sending phase (warm-up, measurement).  A due message is sent at the
 * next chance the lane thread gets - when the pacer (np_udp_pacer.c) wakes
 * it, or when replies arrive - and the lateness (actual - intended) goes
 * into the send-lag histogram; above 1 ms it is a late send.  A message
 * due while --max-outstanding are in flight is not sent: dropped by the
 * client, counted.  A message still outstanding when its ring slot comes
 * round again (--max-outstanding sends later) is given up (expired): it
 * frees its client's slot but stays in the lane's outstanding count (the
 * drain's) until a late reply comes (np_udp_timeout.c); without one it is
 * lost.
 * Runs on lane threads only; nothing here allocates after set-up.
 */
#include <math.h>
#include <stdlib.h>

#include "np_udp_engine.h"

int np_udp_open_alloc(struct np_udp_engine *eng, struct np_udp_client *cl) {
  const struct np_udp_config *cfg = eng->cfg;
  cl->period_ns = (double)cfg->clients * 1e9 / cfg->rate;
  np_rng_seed(&cl->rng, cfg->seed ^ (0x9e3779b97f4a7c15ull * (cl->id + 1)));
  cl->due = calloc(eng->tx_batch, sizeof *cl->due);
  return cl->due ? 0 : NP_ENOMEM;
}

/* Gap to the next message: the period, or an exponential draw of that
 * mean (inverse transform; 1 - u is in (0, 1]). */
static double gap(struct np_udp_client *cl, const struct np_udp_config *cfg) {
  if (cfg->arrivals == NP_UDP_ARRIVALS_POISSON)
    return -log(1.0 - np_rng_unit(&cl->rng)) * cl->period_ns;
  return cl->period_ns;
}

static void advance(struct np_udp_client *cl, const struct np_udp_config *cfg) {
  cl->due_index++;
  if (cfg->arrivals == NP_UDP_ARRIVALS_POISSON)
    cl->next_due += (int64_t)gap(cl, cfg);
  else /* from the origin, so rounding does not accumulate */
    cl->next_due = cl->phase_t0 +
                   (int64_t)(((double)cl->id / cfg->clients +
                              (double)cl->due_index) * cl->period_ns);
}

void np_udp_open_start(struct np_udp_lane *l) {
  const struct np_udp_config *cfg = l->eng->cfg;
  int64_t now = np_udp_now_ns();
  for (uint32_t i = 0; i < l->nclients; i++) {
    struct np_udp_client *cl = l->clients[i];
    cl->phase_t0 = now;
    cl->due_index = 0;
    if (cfg->arrivals == NP_UDP_ARRIVALS_POISSON)
      cl->next_due = now + (int64_t)gap(cl, cfg);
    else
      cl->next_due =
          now + (int64_t)((double)cl->id / cfg->clients * cl->period_ns);
  }
  np_udp_open_send_due(l);
}

/* Send cl's messages due by now, in batches of tx_batch; returns how many
 * outstanding messages it gave up (expired). */
static uint32_t client_send_due(struct np_udp_client *cl, int64_t now,
                                int set) {
  uint32_t gave_up = 0;
  struct np_udp_lane *l = cl->lane;
  const struct np_udp_engine *eng = l->eng;
  const struct np_udp_config *cfg = eng->cfg;
  struct np_udp_counters *c = &l->ctr[set];
  while (cl->next_due <= now) {
    unsigned k = 0;
    while (k < eng->tx_batch && cl->next_due <= now) {
      c->scheduled++;
      if (cl->outstanding + k >= cfg->max_outstanding) {
        c->dropped_by_client++;
        advance(cl, cfg);
        continue;
      }
      uint8_t *buf = cl->txbufs + (size_t)k * cfg->payload;
      np_udp_msg_build(&cl->gen, buf, cl->next_seq + k, (uint64_t)now);
      cl->tx[k] = (struct np_udp_tx){.data = buf, .len = cfg->payload};
      cl->due[k] = cl->next_due;
      advance(cl, cfg);
      k++;
    }
    unsigned done = 0;
    while (done < k) {
      unsigned ns = 0;
      int errnum = 0;
      int rc = eng->tp->send_batch(cl->sock, cl->tx + done, k - done, &ns,
                                   &errnum);
      for (unsigned i = done; i < done + ns; i++) {
        uint64_t seq = cl->next_seq + i;
        struct np_udp_slot *s = &cl->ring[seq % cl->ring_len];
        if (s->live) { /* max-outstanding sends ago and still unanswered */
          c->expired++;
          np_udp_give_up(cl, s, 1); /* a reply that still comes is late */
          cl->outstanding--;
          gave_up++;
        }
        *s = (struct np_udp_slot){
            .seq = seq, .ts = now, .intended = cl->due[i], .live = 1};
        cl->outstanding++;
        int64_t lag = now - cl->due[i];
        if (lag > NP_UDP_LATE_NS)
          c->late_sends++;
        if (set == 1)
          np_hist_record(l->send_lag, lag);
      }
      c->sent += ns;
      done += ns;
      if (rc) { /* that message was due and is not in flight: counted */
        c->send_errors++;
        np_udp_counters_note_errno(c, errnum, 1);
        done++;
      }
    }
    cl->next_seq += k;
  }
  return gave_up;
}

void np_udp_open_send_due(struct np_udp_lane *l) {
  int ph = l->seen_phase;
  int64_t next = INT64_MAX;
  if (ph == NP_UDP_PH_WARMUP || ph == NP_UDP_PH_MEASURE) {
    int64_t now = np_udp_now_ns();
    uint32_t before = 0, after = 0;
    for (uint32_t i = 0; i < l->nclients; i++) {
      struct np_udp_client *cl = l->clients[i];
      before += cl->outstanding;
      /* an expired message stays in the lane's count: it never comes back,
       * so the drain waits for it like any other (or sees its kernel drop)
       * instead of ending early on drops of messages it no longer counts */
      after += client_send_due(cl, now, NP_UDP_SET(ph));
      after += cl->outstanding;
      if (cl->next_due < next)
        next = cl->next_due;
    }
    l->outstanding += after - before;
  }
  atomic_store_explicit(&l->next_due_pub, next, memory_order_release);
}
