/*
 * np_relay_impair.c - seeded streams and the per-packet decision (netem
 * order: duplicate, loss, queue limit, delay/jitter, rate, reorder).
 *
 * Draw discipline: the dup stream is drawn once per received packet; the
 * burst stream once per burst window; the GE stream twice, and the loss,
 * jitter and reorder streams once, per copy reaching the loss stage - even
 * when an earlier stage already decided the copy's fate.  So each
 * impairment's pattern depends only on the seed and the packet sequence,
 * never on which other impairments are configured.
 */
#include "np_relay_impair.h"

#include <string.h>

void np_relay_rng_seed(struct np_rng *rng, uint64_t seed, uint32_t route,
                       unsigned dir, unsigned stream) {
  uint64_t key = (((uint64_t)route * 2u + dir) * 8u + stream) + 1u;
  np_rng_seed(rng, seed ^ (key * 0xD1B54A32D192ED03ull));
}

void np_relay_dir_init(struct np_relay_dir_state *st,
                       const struct np_relay_impair *cfg, uint64_t seed,
                       uint32_t route, unsigned dir) {
  memset(st, 0, sizeof(*st));
  st->cfg = *cfg;
  for (unsigned i = 0; i < NP_RELAY_STREAMS; i++)
    np_relay_rng_seed(&st->rng[i], seed, route, dir, i);
}

double np_relay_ge_stationary_loss(const struct np_relay_impair *cfg) {
  double p = cfg->ge_p / 100.0, r = cfg->ge_r / 100.0;
  double pi_bad = (p + r > 0) ? p / (p + r) : 0.0;
  return (1.0 - pi_bad) * cfg->ge_1k / 100.0 + pi_bad * cfg->ge_1h / 100.0;
}

/* Burst model: the window of burst_m copies starting at a multiple of
 * burst_m loses burst_n consecutive copies starting at an offset drawn
 * uniformly from [0, burst_m - burst_n] when the window opens. */
static int burst_lost(struct np_relay_dir_state *st, uint64_t idx) {
  const struct np_relay_impair *c = &st->cfg;
  if (c->burst_m == 0 || c->burst_n == 0)
    return 0;
  uint64_t pos = idx % c->burst_m;
  if (pos == 0) {
    uint64_t span = (uint64_t)(c->burst_m - c->burst_n) + 1u;
    st->burst_start =
        (uint64_t)(np_rng_unit(&st->rng[NP_RELAY_STREAM_BURST]) *
                   (double)span);
  }
  return pos >= st->burst_start && pos < st->burst_start + c->burst_n;
}

/* netem's loss_gilb_ell: draw the transition out of the current state,
 * then decide loss with the loss probability of the state the packet
 * arrived in (GOOD: 1-k, BAD: 1-h). */
static int ge_lost(struct np_relay_dir_state *st) {
  const struct np_relay_impair *c = &st->cfg;
  if (!c->ge_enabled)
    return 0;
  struct np_rng *g = &st->rng[NP_RELAY_STREAM_GE];
  double u_move = np_rng_unit(g), u_loss = np_rng_unit(g);
  if (!st->ge_bad) {
    if (u_move < c->ge_p / 100.0)
      st->ge_bad = 1;
    return u_loss < c->ge_1k / 100.0;
  }
  if (u_move < c->ge_r / 100.0)
    st->ge_bad = 0;
  return u_loss < c->ge_1h / 100.0;
}

static int occupancy_admit(struct np_relay_occupancy *occ, size_t len) {
  if (occ == NULL)
    return 1;
  if (occ->cap_packets && occ->packets + 1 > occ->cap_packets)
    return 0;
  if (occ->cap_bytes && occ->bytes + len > occ->cap_bytes)
    return 0;
  if (occ->mem_bounded && occ->mem_room < occ->mem_cost)
    return 0;
  if (occ->mem_bounded)
    occ->mem_room -= occ->mem_cost;
  occ->packets += 1;
  occ->bytes += len;
  return 1;
}

static void decide_copy(struct np_relay_dir_state *st, uint64_t now_ns,
                        size_t len, struct np_relay_occupancy *occ,
                        struct np_relay_copy *cp) {
  const struct np_relay_impair *c = &st->cfg;
  struct np_relay_counts *n = &st->counts;
  uint64_t idx = n->loss_stage++;

  /* Every stream is drawn before any fate is applied (see file comment). */
  int by_burst = burst_lost(st, idx);
  int by_ge = ge_lost(st);
  int by_random = c->loss_pct > 0 &&
                  np_rng_unit(&st->rng[NP_RELAY_STREAM_LOSS]) <
                      c->loss_pct / 100.0;
  uint64_t jitter_draw = 0;
  if (c->jitter_ns > 0)
    jitter_draw = (uint64_t)(np_rng_unit(&st->rng[NP_RELAY_STREAM_JITTER]) *
                             (double)(2 * c->jitter_ns));
  int reorder = c->reorder_pct > 0 &&
                np_rng_unit(&st->rng[NP_RELAY_STREAM_REORDER]) <
                    c->reorder_pct / 100.0;

  memset(cp, 0, sizeof(*cp));
  if (by_burst) {
    cp->fate = NP_RELAY_LOST_BURST;
    n->lost_burst++;
    return;
  }
  if (by_ge) {
    cp->fate = NP_RELAY_LOST_GE;
    n->lost_ge++;
    return;
  }
  if (by_random) {
    cp->fate = NP_RELAY_LOST_RANDOM;
    n->lost_random++;
    return;
  }
  if (!occupancy_admit(occ, len)) {
    cp->fate = NP_RELAY_OVERFLOW;
    n->overflow++;
    return;
  }
  n->queued++;

  /* Delay with uniform jitter in [D-J, D+J), clamped at zero. */
  uint64_t delay = c->delay_ns;
  if (c->jitter_ns > 0) {
    int64_t d = (int64_t)c->delay_ns - (int64_t)c->jitter_ns +
                (int64_t)jitter_draw;
    delay = d > 0 ? (uint64_t)d : 0;
  }
  if (delay > 0)
    n->delayed++;
  uint64_t tx = now_ns + delay;

  /* Rate: like netem's rate, a packet leaves no earlier than the previous
   * packet of this direction finished, plus its own serialization time. */
  if (c->rate_bytes > 0) {
    if (st->link_free_ns > tx) {
      tx = st->link_free_ns;
      n->rate_paced++;
    }
    tx += (uint64_t)len * 1000000000ull / c->rate_bytes;
    st->link_free_ns = tx;
  }

  /* The reference's reordering: extra delay after the link, so a
   * reordered packet does not hold the link busy for the others. */
  if (reorder) {
    tx += c->reorder_delay_ns;
    cp->reordered = 1;
    n->reordered++;
  }
  cp->fate = NP_RELAY_FORWARD;
  cp->release_ns = tx;
}

void np_relay_decide(struct np_relay_dir_state *st, uint64_t now_ns,
                     size_t len, struct np_relay_occupancy *occ,
                     struct np_relay_decision *out) {
  struct np_relay_counts *n = &st->counts;
  n->received++;
  n->received_bytes += len;
  out->ncopies = 1;
  if (st->cfg.dup_pct > 0 &&
      np_rng_unit(&st->rng[NP_RELAY_STREAM_DUP]) <
          st->cfg.dup_pct / 100.0) {
    out->ncopies = 2;
    n->duplicated++;
  }
  for (unsigned i = 0; i < out->ncopies; i++)
    decide_copy(st, now_ns, len, occ, &out->copy[i]);
}
