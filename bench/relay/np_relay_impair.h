/*
 * np_relay_impair.h - the relay's socket-free decision core.
 *
 * Given one packet arriving in one direction of one route, decide what the
 * emulated link does to it, in netem's order:
 *
 *   duplicate -> loss (burst, Gilbert-Elliott, random) -> queue limit
 *             -> delay + jitter -> rate (serialization) -> reorder extra delay
 *
 * Nothing here touches a socket or a clock: the caller passes "now" and the
 * route's current queue occupancy, and gets back one or two copies, each
 * with a fate and an absolute release time.  That keeps determinism and
 * the statistics unit-testable at millions of packets per second.
 *
 * Randomness: every (route, direction, impairment) has its own xoshiro256**
 * stream seeded through splitmix64 from the run seed (np_relay_rng_seed).
 * Each stream is drawn a fixed number of times per packet whatever the
 * other impairments do, so e.g. the loss pattern for seed 42 is identical
 * whether or not jitter or reordering are switched on.
 */
#ifndef NP_RELAY_IMPAIR_H
#define NP_RELAY_IMPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "np_rng.h"

/* Directions of a route. */
enum np_relay_dir {
  NP_RELAY_C2S = 0, /* client -> server */
  NP_RELAY_S2C = 1, /* server -> client */
  NP_RELAY_DIRS = 2
};

/* Impairments of one direction.  Percentages are 0..100. */
struct np_relay_impair {
  double loss_pct;           /* random loss of packets no earlier model lost */
  uint32_t burst_n;          /* burst loss: burst_n consecutive packets ...  */
  uint32_t burst_m;          /* ... lost in every burst_m (0 = off)           */
  int ge_enabled;            /* Gilbert-Elliott loss as netem's gemodel       */
  double ge_p;               /* % GOOD -> BAD transition per packet           */
  double ge_r;               /* % BAD -> GOOD transition per packet           */
  double ge_1h;              /* % loss while BAD  (netem "1-h")               */
  double ge_1k;              /* % loss while GOOD (netem "1-k")               */
  uint64_t delay_ns;         /* one-way delay D                               */
  uint64_t jitter_ns;        /* uniform jitter J: delay in [D-J, D+J), >= 0   */
  double dup_pct;            /* duplication; the copy gets its own fate/delay */
  double reorder_pct;        /* % of packets given reorder_delay_ns extra     */
  uint64_t reorder_delay_ns; /* the extra delay (reference: 15 ms)            */
  uint64_t rate_bytes;       /* link rate, bytes/s (0 = unlimited)            */
};

/* What happened to the packets of one direction.  The decision core fills
 * the impairment counters; the live relay fills forwarded, peaks, errors. */
struct np_relay_counts {
  uint64_t received;         /* datagrams that entered this direction       */
  uint64_t received_bytes;
  uint64_t duplicated;       /* received packets that got a second copy     */
  uint64_t loss_stage;       /* copies that reached the loss stage          */
  uint64_t lost_burst;       /* copies lost by the burst model              */
  uint64_t lost_ge;          /* copies lost by the Gilbert-Elliott model    */
  uint64_t lost_random;      /* copies lost by random loss                  */
  uint64_t overflow;         /* copies tail-dropped at the capacity limit   */
  uint64_t queued;           /* copies admitted to the delay queue          */
  uint64_t delayed;          /* admitted copies with a non-zero base delay  */
  uint64_t reordered;        /* admitted copies given the reorder delay     */
  uint64_t rate_paced;       /* admitted copies held back by the rate limit */
  uint64_t forwarded;        /* copies sent on                              */
  uint64_t forwarded_bytes;
  uint64_t dropped_at_stop;  /* copies still queued when the relay stopped  */
  uint64_t peak_queue_bytes; /* this direction's own peak queue             */
  uint64_t peak_queue_packets;
  uint64_t recv_errors;      /* relay errors: receive failed                */
  uint64_t send_errors;      /* relay errors: send failed                   */
  uint64_t truncated;        /* relay errors: datagram larger than buffer   */
  uint64_t foreign;          /* datagrams from an unexpected source         */
  uint64_t send_deferred;    /* sends that hit EAGAIN and waited            */
};

/* Every field of struct np_relay_counts, in order: X(name).  The stats
 * JSON writes them by these names and np_relay_link.c reads them back. */
#define NP_RELAY_COUNT_FIELDS(X)                                              \
  X(received) X(received_bytes) X(duplicated) X(loss_stage) X(lost_burst)     \
  X(lost_ge) X(lost_random) X(overflow) X(queued) X(delayed) X(reordered)     \
  X(rate_paced) X(forwarded) X(forwarded_bytes) X(dropped_at_stop)            \
  X(peak_queue_bytes) X(peak_queue_packets) X(recv_errors) X(send_errors)     \
  X(truncated) X(foreign) X(send_deferred)

/* Streams of one direction, in the order their index enters the seed. */
enum np_relay_stream {
  NP_RELAY_STREAM_DUP = 0,
  NP_RELAY_STREAM_BURST,
  NP_RELAY_STREAM_GE,
  NP_RELAY_STREAM_LOSS,
  NP_RELAY_STREAM_JITTER,
  NP_RELAY_STREAM_REORDER,
  NP_RELAY_STREAMS
};

/* Seed one stream: key = ((route * 2 + dir) * 8 + stream) + 1; the four
 * state words are successive splitmix64 outputs starting from
 * seed ^ (key * 0xD1B54A32D192ED03).  Documented in docs/relay.md. */
void np_relay_rng_seed(struct np_rng *rng, uint64_t seed, uint32_t route,
                       unsigned dir, unsigned stream);

/* Fate of one copy. */
enum np_relay_fate {
  NP_RELAY_FORWARD = 0, /* queued; release at release_ns */
  NP_RELAY_LOST_BURST,
  NP_RELAY_LOST_GE,
  NP_RELAY_LOST_RANDOM,
  NP_RELAY_OVERFLOW
};

struct np_relay_copy {
  enum np_relay_fate fate;
  uint64_t release_ns; /* absolute; meaningful for NP_RELAY_FORWARD only */
  int reordered;       /* got the reorder extra delay                   */
};

struct np_relay_decision {
  unsigned ncopies; /* 1, or 2 when duplicated */
  struct np_relay_copy copy[2];
};

/* Queue occupancy of a route (both directions share the capacity, as
 * the reference's "capacity per route").  np_relay_decide adds admitted
 * copies to it; the caller subtracts them when it releases them. */
struct np_relay_occupancy {
  uint64_t bytes;
  uint64_t packets;
  uint64_t cap_bytes;   /* 0 = unlimited */
  uint64_t cap_packets; /* 0 = unlimited */
  /* A bound shared with other routes (the live relay's total memory),
   * set by the caller for one decision: each admitted copy takes
   * mem_cost of mem_room; a copy that finds less is overflow. */
  int mem_bounded;      /* 0 = no shared bound (zeroed: none)           */
  uint64_t mem_room;    /* what is left of it                            */
  uint64_t mem_cost;    /* what one copy of this datagram takes          */
};

/* Per-direction state.  Plain data: copy it to fork a scenario. */
struct np_relay_dir_state {
  struct np_relay_impair cfg;
  struct np_rng rng[NP_RELAY_STREAMS];
  uint64_t burst_start; /* offset of the lost run in the current window */
  int ge_bad;           /* Gilbert-Elliott chain: 0 GOOD, 1 BAD          */
  uint64_t link_free_ns; /* rate limit: when the emulated link is idle   */
  struct np_relay_counts counts;
};

/* Initialise st for (seed, route, dir) with a copy of cfg. */
void np_relay_dir_init(struct np_relay_dir_state *st,
                       const struct np_relay_impair *cfg, uint64_t seed,
                       uint32_t route, unsigned dir);

/* Decide the fate of one received datagram of len bytes arriving at now_ns.
 * occ may be NULL (no capacity limit).  Updates st->counts and *occ. */
void np_relay_decide(struct np_relay_dir_state *st, uint64_t now_ns,
                     size_t len, struct np_relay_occupancy *occ,
                     struct np_relay_decision *out);

/* Stationary loss probability of netem's gemodel with these parameters
 * (0..1), for tests and the record. */
double np_relay_ge_stationary_loss(const struct np_relay_impair *cfg);

#endif /* NP_RELAY_IMPAIR_H */
