/*
 * np_arq_cc.c - the three congestion controllers of np_arq_cc.h.
 */
#include "np_arq_cc.h"

#include <string.h>

#define CC_MAX_CWND 65535u
#define BBR_MIN_CWND 4u
#define BBR_MIN_RTT_WINDOW_NS (10ull * 1000000000ull)
/* Below ~1 ms the measured RTT on loopback is dominated by event-loop
 * batching, and a BDP of a few fragments would throttle the link; the
 * model therefore never uses an RTT below this for its window. */
#define BBR_RTT_FLOOR_NS 1000000ull

/* ---- none -------------------------------------------------------------- */

static void none_on_ack(struct np_arq_cc *cc,
                        const struct np_arq_rate_sample *rs, uint64_t now) {
  (void)cc, (void)rs, (void)now;
}
static void none_on_loss(struct np_arq_cc *cc, uint32_t inflight,
                         uint64_t now) {
  (void)cc, (void)inflight, (void)now;
}

static const struct np_arq_cc_ops cc_none = {"none", none_on_ack,
                                             none_on_loss, none_on_loss};

/* ---- newreno ----------------------------------------------------------- */

static void reno_on_ack(struct np_arq_cc *cc,
                        const struct np_arq_rate_sample *rs, uint64_t now) {
  (void)now;
  if (rs->app_limited && cc->cwnd >= 2 * rs->newly_acked + 16)
    return; /* RFC 7661: do not grow a window the sender does not use */
  if (cc->cwnd < cc->ssthresh) {
    cc->cwnd += rs->newly_acked;
  } else {
    cc->ca_acc += rs->newly_acked;
    while (cc->ca_acc >= cc->cwnd) {
      cc->ca_acc -= cc->cwnd;
      cc->cwnd++;
    }
  }
  if (cc->cwnd > CC_MAX_CWND)
    cc->cwnd = CC_MAX_CWND;
}

static void reno_on_loss(struct np_arq_cc *cc, uint32_t inflight,
                         uint64_t now) {
  (void)now;
  uint32_t half = (inflight > cc->cwnd ? cc->cwnd : inflight) / 2;
  cc->ssthresh = half < 2 ? 2 : half;
  cc->cwnd = cc->ssthresh;
  cc->ca_acc = 0;
}

static void reno_on_rto(struct np_arq_cc *cc, uint32_t inflight,
                        uint64_t now) {
  reno_on_loss(cc, inflight, now);
  cc->cwnd = 2;
}

static const struct np_arq_cc_ops cc_newreno = {"newreno", reno_on_ack,
                                                reno_on_loss, reno_on_rto};

/* ---- bbr --------------------------------------------------------------- */

static uint64_t bbr_bw(const struct np_arq_cc *cc) {
  uint64_t m = 0;
  for (unsigned i = 0; i < NP_ARQ_BBR_BW_ROUNDS; i++)
    if (cc->bw_max[i] > m)
      m = cc->bw_max[i];
  return m;
}

static void bbr_on_ack(struct np_arq_cc *cc,
                       const struct np_arq_rate_sample *rs, uint64_t now) {
  if (rs->round_start) {
    cc->round++;
    cc->bw_max[cc->round % NP_ARQ_BBR_BW_ROUNDS] = 0;
  }
  if (rs->rtt_ns > 0 &&
      (cc->min_rtt_ns == 0 || rs->rtt_ns <= cc->min_rtt_ns ||
       now - cc->min_rtt_at_ns > BBR_MIN_RTT_WINDOW_NS)) {
    cc->min_rtt_ns = rs->rtt_ns;
    cc->min_rtt_at_ns = now;
  }
  uint64_t bw = bbr_bw(cc);
  if (rs->interval_ns > 0 && rs->delivered_bytes > 0) {
    uint64_t sample = rs->delivered_bytes * 1000000000ull / rs->interval_ns;
    /* app-limited samples only count when they raise the estimate */
    if (!rs->app_limited || sample >= bw) {
      uint64_t *slot = &cc->bw_max[cc->round % NP_ARQ_BBR_BW_ROUNDS];
      if (sample > *slot)
        *slot = sample;
    }
  }
  bw = bbr_bw(cc);
  if (!cc->filled_pipe && rs->round_start && !rs->app_limited && bw > 0) {
    if (bw >= cc->full_bw + cc->full_bw / 4) {
      cc->full_bw = bw;
      cc->full_bw_cnt = 0;
    } else if (++cc->full_bw_cnt >= 3) {
      cc->filled_pipe = 1;
    }
  }
  if (bw == 0 || cc->min_rtt_ns == 0) {
    cc->cwnd += rs->newly_acked; /* no model yet: grow like slow start */
  } else {
    uint64_t rtt = cc->min_rtt_ns < BBR_RTT_FLOOR_NS ? BBR_RTT_FLOOR_NS
                                                      : cc->min_rtt_ns;
    uint64_t gain_x100 = cc->filled_pipe ? 200 : 289;
    uint64_t bdp_bytes = bw * rtt / 1000000000ull;
    uint64_t target = bdp_bytes * gain_x100 / 100 / cc->frag_bytes + 1;
    if (target < BBR_MIN_CWND)
      target = BBR_MIN_CWND;
    if (cc->filled_pipe) {
      uint64_t grown = (uint64_t)cc->cwnd + rs->newly_acked;
      cc->cwnd = (uint32_t)(grown < target ? grown : target);
    } else if (cc->cwnd < target) {
      cc->cwnd += rs->newly_acked;
    }
  }
  if (cc->cwnd < BBR_MIN_CWND)
    cc->cwnd = BBR_MIN_CWND;
  if (cc->cwnd > CC_MAX_CWND)
    cc->cwnd = CC_MAX_CWND;
}

static void bbr_on_loss(struct np_arq_cc *cc, uint32_t inflight,
                        uint64_t now) {
  (void)cc, (void)inflight, (void)now; /* loss is not a congestion signal */
}

static void bbr_on_rto(struct np_arq_cc *cc, uint32_t inflight,
                       uint64_t now) {
  (void)inflight, (void)now;
  /* a whole flight vanished: restart from the model's floor and let the
   * next acks rebuild the window toward gain x BDP */
  cc->cwnd = BBR_MIN_CWND;
}

static const struct np_arq_cc_ops cc_bbr = {"bbr", bbr_on_ack, bbr_on_loss,
                                            bbr_on_rto};

void np_arq_cc_init(struct np_arq_cc *cc, enum np_arq_cc_kind kind,
                    uint32_t init_cwnd, uint32_t frag_bytes) {
  memset(cc, 0, sizeof *cc);
  cc->frag_bytes = frag_bytes ? frag_bytes : 1;
  cc->ssthresh = CC_MAX_CWND;
  switch (kind) {
  case NP_ARQ_CC_NEWRENO:
    cc->ops = &cc_newreno;
    cc->cwnd = init_cwnd;
    break;
  case NP_ARQ_CC_BBR:
    cc->ops = &cc_bbr;
    cc->cwnd = init_cwnd;
    break;
  default:
    cc->ops = &cc_none;
    cc->cwnd = UINT32_MAX;
    break;
  }
}

uint64_t np_arq_cc_btlbw(const struct np_arq_cc *cc) {
  return cc->ops == &cc_bbr ? bbr_bw(cc) : 0;
}
