/*
 * np_fec_params.h - what the FEC layer (bench/fec/np_fec.h) is configured
 * with and counts, and the sizes of its wire format: the plain data the
 * rudp option table, its record builder and the self-check read without
 * the codec (no ISA-L).  The wire format itself is described in
 * np_fec.h; the functions below are defined in np_fec_config.c and
 * np_fec_json.c.
 */
#ifndef NP_FEC_PARAMS_H
#define NP_FEC_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_fec_policy.h"

/* Sizes on the wire (np_fec.h "Wire format"). */
#define NP_FEC_HDR_DATA 3u         /* header bytes on each data datagram  */
#define NP_FEC_HDR_PARITY 4u       /* header bytes on each parity datagram */
#define NP_FEC_HDR_REPORT 21u      /* a whole loss-report datagram        */
#define NP_FEC_RESERVE 6u          /* MTU bytes a data datagram must leave */
#define NP_FEC_HDR_REPAIR 6u       /* window mode: header of a repair      */
#define NP_FEC_RESERVE_WINDOW 8u   /* window mode: 6 B header + u16 length */
#define NP_FEC_MAX_GROUP 8u
#define NP_FEC_MAX_PARITY 4u
#define NP_FEC_WIN_MAX_W 32u    /* encoding window bound, source symbols */

enum np_fec_mode {
  NP_FEC_NONE,     /* pass everything through, no header                  */
  NP_FEC_FIXED,    /* cfg.parity parity shards per group                   */
  NP_FEC_ADAPTIVE, /* 0..cfg.policy.max_m chosen from reported loss        */
  NP_FEC_WINDOW    /* sliding-window RLC (np_fec_win.h), repair rate chosen
                      from reported loss                                   */
};

struct np_fec_config {
  enum np_fec_mode mode;     /* (fixed)                                    */
  uint32_t mtu;              /* max UDP payload (1,200)                    */
  unsigned group;            /* data shards per full group, 1..8 (8)       */
  unsigned parity;           /* fixed mode parity, 0..4 (2)                */
  uint64_t wait_ns;          /* an open group waits at most this (2 ms)    */
  size_t budget;             /* retained bytes per endpoint (1 MiB)        */
  unsigned ratio_pct;        /* parity bytes <= ratio_pct % of data (50)   */
  unsigned rx_slots;         /* receive group slots, power of 2 (64)       */
  unsigned rx_buffers;       /* receive shard buffers (256)                */
  unsigned final_lag;        /* a group is final once a group this many
                                newer has been seen (32)                    */
  uint64_t final_ns;         /* ... or this long after its first shard
                                (100 ms)                                    */
  uint64_t report_ns;        /* loss report to the peer every (50 ms); 0 off */
  unsigned cache_entries;    /* decode-table LRU entries (32)              */
  unsigned window;           /* window mode: encoding window, source
                                symbols, 1..NP_FEC_WIN_MAX_W (16)          */
  struct np_fec_policy_config policy; /* adaptive mode                     */
};

/* Counters are cumulative unless marked gauge. */
struct np_fec_stats {
  /* send side */
  uint64_t data_sent;          /* data datagrams sent with an FEC header  */
  uint64_t plain_sent;         /* sent without header (mode none, budget) */
  uint64_t data_bytes;         /* inner datagram bytes of data shards     */
  uint64_t groups_encoded;     /* groups closed (with or without parity)  */
  uint64_t groups_partial;     /* closed by the wait timer, k < group     */
  uint64_t groups_no_parity;   /* closed with m = 0                       */
  uint64_t groups_bare;        /* ... of them planned so: nothing kept    */
  uint64_t parity_sent;        /* parity datagrams                        */
  uint64_t parity_bytes;       /* parity datagram bytes incl. header      */
  uint64_t header_bytes;       /* FEC header bytes on data datagrams      */
  uint64_t reports_sent, report_bytes;
  uint64_t ratio_binds;        /* groups whose m the ratio cap lowered    */
  uint64_t budget_binds;       /* sends or groups the budget constrained  */
  uint64_t output_errors;
  uint64_t parity_hist[NP_FEC_MAX_PARITY + 1]; /* groups by m sent         */
  unsigned parity_max;         /* largest m sent                          */
  double parity_mean;          /* mean m over groups_encoded              */
  /* adaptive policy */
  unsigned policy_m;           /* gauge: current choice                   */
  double policy_loss;          /* gauge: EWMA loss estimate               */
  uint64_t policy_changes;
  uint64_t reports_in;
  /* receive side */
  uint64_t data_in, parity_in, plain_in;
  uint64_t dup_shards;         /* a shard already held or rebuilt         */
  uint64_t late_shards;        /* for a group already final               */
  uint64_t malformed;          /* rejected datagrams                      */
  uint64_t recovered;          /* data datagrams rebuilt                  */
  uint64_t groups_recovered;   /* groups with at least one rebuilt shard  */
  uint64_t groups_final;       /* receive groups finalised                */
  uint64_t unrecoverable;      /* final groups with known-missing data    */
  uint64_t rx_evictions;       /* groups finalised early: slot or buffers */
  uint64_t shards_expected, shards_lost; /* inbound loss, final groups     */
  uint64_t cache_hits, cache_misses;
  /* memory */
  uint64_t retained_bytes;     /* gauge                                   */
  uint64_t retained_peak;
  uint64_t budget;             /* configured                              */
  uint64_t prealloc_bytes;     /* allocated at creation                   */
  /* window mode (zero otherwise); repairs count as parity_sent /
   * parity_bytes / parity_in, rebuilt source symbols as recovered, source
   * symbols given up as unrecoverable, shards_* are source symbols */
  unsigned window;             /* encoding window W                       */
  unsigned repair_per_window;  /* gauge: repairs per W source symbols     */
  uint64_t repair_tail;        /* repairs sent by the tail timer          */
  uint64_t win_redundant;      /* repairs that brought nothing new        */
  uint64_t win_dropped_eq;     /* equations given up (window bound)       */
  uint64_t win_late_repair;    /* repairs older than the decoding window  */
  uint64_t win_eq_at_reset;    /* equations held when counters were reset */
};

void np_fec_config_defaults(struct np_fec_config *cfg);
const char *np_fec_mode_name(enum np_fec_mode m);
/* "none", "fixed", "adaptive", "window"; NP_EINVAL otherwise. */
int np_fec_mode_parse(const char *s, enum np_fec_mode *out);

/* MTU bytes the layer above must leave free: NP_FEC_RESERVE, or
 * NP_FEC_RESERVE_WINDOW in window mode. */
uint32_t np_fec_reserve(enum np_fec_mode m);

/* Stats as a new cJSON object (caller deletes); NULL on allocation
 * failure. */
cJSON *np_fec_stats_to_json(const struct np_fec_stats *st);

#endif /* NP_FEC_PARAMS_H */
