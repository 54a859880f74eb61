/*
 * np_arq_cc.h - congestion control for np_arq behind a small ops table
 * (iperf3's struct protocol pattern): the ARQ core reports acks, loss
 * episodes and timeouts; the algorithm answers with a congestion window in
 * fragments.
 *
 *   none    - no limit beyond the send and receive windows.
 *   newreno - loss-based (RFC 5681/6582 shape): slow start, additive
 *             increase, halve once per loss episode, collapse on RTO.
 *   bbr     - model-based (BBR v1 shape): windowed-max delivery rate over
 *             10 round trips and windowed-min RTT over 10 s; cwnd = gain x
 *             bandwidth-delay product (gain 2.89 in startup, 2 after the pipe
 *             is full).  Loss does not reduce the window: random loss is not
 *             congestion.  No pacing (the window bounds queueing at ~1 BDP).
 */
#ifndef NP_ARQ_CC_H
#define NP_ARQ_CC_H

#include <stdint.h>

#include "np_arq.h"

/* One delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation). */
struct np_arq_rate_sample {
  uint64_t delivered_bytes; /* bytes delivered over the interval        */
  uint64_t interval_ns;     /* max(send elapsed, ack elapsed)           */
  uint64_t rtt_ns;          /* RTT sample of this ack (0 = none)        */
  uint32_t newly_acked;     /* fragments newly acked by this ack        */
  int app_limited;          /* the sender had nothing more to send      */
  int round_start;          /* a new round trip began with this ack     */
};

struct np_arq_cc;

struct np_arq_cc_ops {
  const char *name;
  void (*on_ack)(struct np_arq_cc *cc, const struct np_arq_rate_sample *rs,
                 uint64_t now_ns);
  void (*on_loss)(struct np_arq_cc *cc, uint32_t inflight, uint64_t now_ns);
  void (*on_rto)(struct np_arq_cc *cc, uint32_t inflight, uint64_t now_ns);
};

#define NP_ARQ_BBR_BW_ROUNDS 10

struct np_arq_cc {
  const struct np_arq_cc_ops *ops;
  uint32_t cwnd;       /* congestion window, fragments              */
  uint32_t frag_bytes; /* bytes per full fragment (BDP -> fragments) */
  /* newreno */
  uint32_t ssthresh;
  uint32_t ca_acc; /* acked fragments toward the next +1          */
  /* bbr */
  uint64_t bw_max[NP_ARQ_BBR_BW_ROUNDS]; /* per-round max rate, B/s  */
  uint64_t round;                        /* round-trip counter       */
  uint64_t min_rtt_ns, min_rtt_at_ns;
  uint64_t full_bw;
  uint32_t full_bw_cnt;
  int filled_pipe;
};

/* Set up cc for kind; cwnd starts at init_cwnd fragments. */
void np_arq_cc_init(struct np_arq_cc *cc, enum np_arq_cc_kind kind,
                    uint32_t init_cwnd, uint32_t frag_bytes);

/* bbr: current bandwidth estimate (bytes/s); 0 for the others. */
uint64_t np_arq_cc_btlbw(const struct np_arq_cc *cc);

#endif /* NP_ARQ_CC_H */
