/*
 * arq_sim.h - a deterministic, virtual-time network between two np_arq
 * endpoints for unit tests: per-direction delay, loss, duplication and
 * reorder (extra delay), from a seeded PRNG, plus a per-test drop hook.
 * Endpoint 0 sends numbered messages; endpoint 1 checks content and order
 * (and optionally echoes, for request/response runs).  A side marked
 * unordered checks each message by the number it carries instead: right
 * content, delivered exactly once (messages of 8 bytes or more).
 */
#ifndef ARQ_SIM_H
#define ARQ_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "np_arq.h"

#define SIM_MS 1000000ull

struct sim;

struct sim_dir {
  uint64_t delay_ns;
  double loss, dup, reorder; /* probabilities 0..1                     */
  uint64_t reorder_ns;       /* extra delay for reordered packets      */
  uint64_t sent, dropped;    /* datagrams offered / dropped by the sim */
};

/* return 1 to drop; idx counts datagrams from `from` since the start */
typedef int (*sim_drop_fn)(struct sim *s, int from, const uint8_t *buf,
                           size_t len, uint64_t idx);

struct sim_pkt {
  uint64_t at, order;
  int to;
  size_t len;
  uint8_t data[1500];
};

struct sim_side {
  struct sim *s;
  int id;
  uint64_t delivered;  /* messages received (in order unless unordered) */
  uint64_t bad;        /* content or order failures, duplicates        */
  int unordered;       /* check by carried number, not by position      */
  uint64_t early;      /* unordered: delivered before an earlier one    */
  uint64_t last_n;     /* number of the latest delivered message        */
  uint64_t last_at;    /* virtual time of that delivery                 */
  uint8_t seen[65536 / 8]; /* unordered: numbers delivered (n < 65536)  */
  uint64_t *at;        /* optional: at[n] = first delivery time of n    */
  size_t nat;          /* entries of at                                 */
  int echo;            /* 1: send every delivered message back          */
  int failed;          /* state callback saw FAILED                     */
  int closed;          /* state callback saw CLOSED                     */
};

struct sim {
  struct np_arq *ep[2];
  struct sim_side side[2];
  struct sim_dir dir[2]; /* dir[i]: datagrams sent by endpoint i        */
  uint64_t now;
  uint64_t rng;
  uint64_t order;
  sim_drop_fn drop;
  void *user;
  struct sim_pkt *heap;
  size_t n, cap;
  uint64_t next_msg;     /* next message number endpoint 0 sends       */
  size_t fixed_len;      /* 0: lengths vary by message number          */
  uint64_t rtt_sum_ns, rtt_n; /* request/response round trips           */
  uint32_t *rtt_us;      /* optional: the first rtt_cap round trips, us */
  size_t rtt_cap;
  uint64_t msg_sent_at[65536];
};

/* cfg used for both ends (conv must match). */
void sim_init(struct sim *s, const struct np_arq_config *cfg, uint64_t seed);
void sim_free(struct sim *s);

/* Message n's length and content (length varies: 1..3 fragments). */
size_t sim_msg_len(const struct sim *s, uint64_t n);
void sim_msg_fill(uint64_t n, uint8_t *buf, size_t len);

/* A datagram from endpoint `from` that arrives at virtual time at (the
 * drop hook's way to delay one instead of dropping it). */
void sim_inject(struct sim *s, int from, const uint8_t *buf, size_t len,
                uint64_t at);

/* Endpoint 0 queues k more messages (flushes). */
void sim_send(struct sim *s, uint64_t k);

/* Advance virtual time, processing packets and timers, until pred returns
 * 1 or until limit_ns passes.  Returns 1 when pred was met. */
int sim_run(struct sim *s, int (*pred)(struct sim *s), uint64_t limit_ns);

#endif /* ARQ_SIM_H */
