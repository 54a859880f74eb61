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

#include "np_relay_config.h" /* directions, impairments, counts (model/relay) */
#include "np_rng.h"

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
