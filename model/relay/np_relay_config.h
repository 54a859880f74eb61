/*
 * np_relay_config.h - what the relay (bench/relay/np_relay.h) is asked to
 * do and what it counts: the impairments of each direction, the
 * configuration, its option table (shared by the relay command, rudp, its
 * --help and the matrix) and the per-direction counters.  Plain data and
 * pure functions (np_relay_options.c): the rudp record builder, the plan
 * checks and the self-check read them without the relay's sockets.
 */
#ifndef NP_RELAY_CONFIG_H
#define NP_RELAY_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_opt.h"
#include "np_err.h"

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

/* Everything the relay does, filled by np_relay_config_init and the
 * option parser, handed to np_relay_create (which copies it). */
struct np_relay_config {
  char profile[16];                         /* name of the base profile   */
  struct np_relay_impair dir[NP_RELAY_DIRS]; /* per direction             */
  uint64_t seed;                            /* root of every PRNG stream  */
  uint64_t capacity_bytes;    /* per route; 0 = NP_RELAY_CAP_BYTES_MAX
                                 (np_relay.h)                            */
  uint64_t capacity_packets;  /* per route; 0 = NP_RELAY_CAP_PACKETS_MAX  */
  uint64_t timer_spin_ns;  /* wake this early and spin to the release
                            * time (0 = sleep until the timerfd fires) */
};

/* The relay's options are one table (common/np_bench_opt.h), so the
 * rudp command, its --help, the matrix and a standalone relay command read
 * the same names, ranges and defaults.  Every option sets both directions
 * (the reference configures its links symmetrically); library users may
 * set cfg->dir[d] individually.  Setting any --ge-* switches the
 * Gilbert-Elliott model on with tc's defaults for the rest (r = 100 - p,
 * 1-h = 100, 1-k = 0); --profile is applied before every other option,
 * wherever it appears. */

/* Profile names, NULL-terminated: none, random, burst, sustained. */
extern const char *const np_relay_profile_names[];

/* The impairment rows over struct np_relay_config: --loss-percent
 * --delay-ms --jitter-ms --duplicate-percent --reorder-percent
 * --reorder-delay-ms --burst-loss N/M --ge-p --ge-r --ge-1-h --ge-1-k
 * --rate-bytes --relay-capacity-bytes --relay-capacity-packets
 * --relay-spin-us.  rudp composes them (its section's base is the
 * offset of its struct np_relay_config). */
/* Datagrams per recvmmsg / sendmmsg, and so at most per UDP_SEGMENT
 * group of the relay's sends (the self-check bounds io.gso_* by it). */
#define NP_RELAY_BATCH 32u

#define NP_RELAY_IMPAIR_NOPTS 15
extern const struct np_bench_opt np_relay_impair_opts[NP_RELAY_IMPAIR_NOPTS];

/* Setter of a --profile row (CHOICE over np_relay_profile_names) whose
 * section is a struct np_relay_config: applies the named profile. */
int np_relay_opt_profile(void *sec, const struct np_bench_opt *o,
                         const struct np_bench_val *v, struct np_errbuf *eb);

/* The --profile row (default none) and the --seed row (42) over struct
 * np_relay_config, for option sets that compose the relay's own. */
extern const struct np_bench_opt np_relay_profile_opts[1];
extern const struct np_bench_opt np_relay_seed_opts[1];

/* The relay's own option set over struct np_relay_config: --profile
 * (default none), the impairment rows, --seed (42). */
extern const struct np_bench_optset np_relay_optset;

/* Every option's default: profile "none", capacity 8 MiB and 8,192
 * packets per route, seed 42, spin 200 us. */
void np_relay_config_init(struct np_relay_config *cfg);

/* Replace both directions' impairments with a named profile: none, random,
 * burst, sustained.  Seed and capacity are kept.  NP_EUSAGE if unknown. */
int np_relay_profile_apply(struct np_relay_config *cfg, const char *name,
                           struct np_errbuf *eb);

/* 1 when name ("--loss-percent" or "loss-percent") is a relay option. */
int np_relay_option_known(const char *name);

/* Set one option of np_relay_optset.  NP_EUSAGE with one line in eb
 * ("--loss-percent 101: out of range 0..100") on bad names or values. */
int np_relay_option_set(struct np_relay_config *cfg, const char *name,
                        const char *value, struct np_errbuf *eb);

/* Apply n name/value pairs: --profile first (wherever it appears), then
 * the others in order, then np_relay_config_validate. */
int np_relay_options_parse(struct np_relay_config *cfg, size_t n,
                           const char *const *names, const char *const *values,
                           struct np_errbuf *eb);

/* Range checks (percentages 0..100, burst N <= M, ...).  NP_EUSAGE. */
int np_relay_config_validate(const struct np_relay_config *cfg,
                             struct np_errbuf *eb);

/* The configuration as a new cJSON object (caller deletes), or NULL. */
cJSON *np_relay_config_json(const struct np_relay_config *cfg);

/* The relay's errors in c (recv, send, truncated). */
uint64_t np_relay_counts_errors(const struct np_relay_counts *c);

#endif /* NP_RELAY_CONFIG_H */
