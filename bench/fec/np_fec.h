/*
 * np_fec.h - a sans-IO forward-error-correction layer for one endpoint of
 * a datagram connection: systematic Reed-Solomon groups (ISA-L) between
 * an ARQ transport and the socket.
 *
 * No sockets, no clock, no threads.  Time is passed in (ns, any monotonic
 * origin).  Datagrams leave through cb.output, rebuilt data datagrams go
 * up through cb.recovered, and one timer is armed on np_fec_deadline().
 *
 * Send side: every outgoing ARQ *data* datagram goes through np_fec_send.
 * It leaves at once, prefixed with a 3-byte FEC header, and is kept in the
 * open group.  When the group holds cfg.group datagrams, or cfg.wait_ns
 * has passed since it opened (np_fec_on_timer), parity is computed over
 * the group and sent (cb.on_parity then names the datagrams it covers).
 * A group that will carry no parity (adaptive m = 0, fixed parity 0) is
 * "bare": its datagrams say so in their header and nobody keeps a copy,
 * so an unimpaired path costs neither parity nor retained memory.  Pure
 * acks may bypass the layer entirely.
 *
 * Receive side: every datagram from the socket goes through np_fec_input.
 * Data datagrams come back at once (pass-through, header stripped);
 * datagrams without the FEC mark come back untouched; parity and loss
 * reports are consumed.  When a group has enough shards and data is
 * missing, the missing datagrams are rebuilt, byte-exact, and handed to
 * cb.recovered.
 *
 * Wire format (big-endian), byte 0 always has bit 0x10 set - the bit the
 * ARQ header reserves as NP_ARQ_F_FEC and never sets itself:
 *   data   (3 B + datagram): u8 0x10|bare 0x20|index(0..7) | u16 group id
 *                            (bare: the group carries no parity)
 *   parity (4 B + L):        u8 0x50|row(k..k+m-1) | u16 group | u8 k<<4|m
 *                            then L = 2 + longest datagram of the group
 *                            bytes of code over shards [u16 len][datagram,
 *                            zero-padded]: the rebuilt shard carries its
 *                            own true length.
 *   report (21 B):           u8 0x90 | u32 shards expected | u32 lost |
 *                            u16 groups | 5 x u16 groups that lost more
 *                            than i shards (i = 0..4)
 *                            (cumulative counts from the peer's decoder,
 *                            the group counts modulo 2^16, over groups
 *                            that carried parity; they feed our adaptive
 *                            policy, np_fec_policy.h)
 *   window source (3 B + datagram):  u8 0xd0|bare 0x01 | u16 ESI
 *                            (bare: sent at repair rate 0, no repair will
 *                            cover it)
 *   window repair (6 B + L):         u8 0xf0 | u16 FSS ESI | u8 NSS |
 *                            u16 repair key, then L = 2 + longest datagram
 *                            of the NSS source symbols covered
 *                            (--fec window, np_fec_window.c; the reports
 *                            above then count source symbols, and the
 *                            group count is the count of runs of missing
 *                            source symbols, the over[] counts 0)
 * A data datagram may be at most mtu - NP_FEC_RESERVE bytes so that its
 * parity (4 + 2 + length) still fits the MTU; set the ARQ's reserve to
 * NP_FEC_RESERVE.
 *
 * Memory: every buffer is allocated in np_fec_new; send, input and timer
 * never allocate.  Retained bytes (data kept by the open send group and
 * shards kept by incomplete receive groups) are held under cfg.budget.
 *
 * Not thread-safe.  Callbacks may call np_fec_send / np_fec_deadline /
 * np_fec_get_stats, but not np_fec_input or np_fec_on_timer (re-entry is
 * refused with NP_EINVAL).
 */
#ifndef NP_FEC_H
#define NP_FEC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_fec_policy.h"
#include "np_fec_win.h"

#define NP_FEC_MARK 0x10u          /* byte-0 bit marking an FEC datagram  */
#define NP_FEC_F_BARE 0x20u        /* data: its group carries no parity   */
#define NP_FEC_HDR_DATA 3u         /* header bytes on each data datagram  */
#define NP_FEC_HDR_PARITY 4u       /* header bytes on each parity datagram */
#define NP_FEC_HDR_REPORT 21u      /* a whole loss-report datagram        */
#define NP_FEC_RESERVE 6u          /* MTU bytes a data datagram must leave */
#define NP_FEC_HDR_REPAIR 6u       /* window mode: header of a repair      */
#define NP_FEC_RESERVE_WINDOW 8u   /* window mode: 6 B header + u16 length */
#define NP_FEC_MAX_GROUP 8u
#define NP_FEC_MAX_PARITY 4u

enum np_fec_mode {
  NP_FEC_NONE,     /* pass everything through, no header                  */
  NP_FEC_FIXED,    /* cfg.parity parity shards per group                   */
  NP_FEC_ADAPTIVE, /* 0..cfg.policy.max_m chosen from reported loss        */
  NP_FEC_WINDOW    /* sliding-window RLC (np_fec_win.h), repair rate chosen
                      from reported loss                                   */
};

/* What np_fec_input found. */
enum np_fec_kind {
  NP_FEC_IN_PLAIN = 1,  /* no FEC mark: *out is the whole datagram        */
  NP_FEC_IN_DATA = 2,   /* a data shard: *out is the inner datagram       */
  NP_FEC_IN_PARITY = 3, /* consumed                                       */
  NP_FEC_IN_REPORT = 4  /* consumed (fed the adaptive policy)             */
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

struct np_fec_callbacks {
  /* Put one datagram on the wire; buf valid only during the call.  A
   * negative return is counted (output_errors) and the datagram is
   * treated as lost. */
  int (*output)(void *ud, const uint8_t *buf, size_t len);
  /* A data datagram rebuilt from parity (the inner ARQ datagram, header
   * stripped); feed it to np_arq_input(..., NP_ARQ_IN_RECOVERED).  buf
   * valid only during the call. */
  void (*recovered)(void *ud, const uint8_t *buf, size_t len);
  void *ud;
  /* Optional: parity (m shards) just left for a group of k datagrams;
   * tags[i] is what np_fec_send_tagged was given for row i.  Lets the
   * layer above know which of its transmissions FEC can rebuild.  Runs
   * inside np_fec_send / np_fec_on_timer / np_fec_flush; must not call
   * back into this endpoint. */
  void (*on_parity)(void *ud, const uint64_t *tags, unsigned k, unsigned m);
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

struct np_fec;

/* Byte 0 of an FEC datagram that carries a data datagram after
 * NP_FEC_HDR_DATA bytes (block data or window source), e.g. to route it
 * by the inner ARQ header before np_fec_input. */
static inline int np_fec_is_data(uint8_t b0) {
  return (b0 & NP_FEC_MARK) && ((b0 & 0xc0u) == 0 || (b0 & 0xe0u) == 0xc0u);
}

void np_fec_config_defaults(struct np_fec_config *cfg);
const char *np_fec_mode_name(enum np_fec_mode m);
/* "none", "fixed", "adaptive", "window"; NP_EINVAL otherwise. */
int np_fec_mode_parse(const char *s, enum np_fec_mode *out);

/* MTU bytes the layer above must leave free: NP_FEC_RESERVE, or
 * NP_FEC_RESERVE_WINDOW in window mode. */
uint32_t np_fec_reserve(enum np_fec_mode m);
/* Largest data datagram np_fec_send accepts (mtu - np_fec_reserve). */
uint32_t np_fec_data_max(const struct np_fec_config *cfg);

/* Validates cfg (NP_EINVAL with detail in eb).  *out owned by the caller,
 * free with np_fec_free. */
int np_fec_new(const struct np_fec_config *cfg,
               const struct np_fec_callbacks *cb, uint64_t now_ns,
               struct np_fec **out, struct np_errbuf *eb);
void np_fec_free(struct np_fec *f); /* accepts NULL */

/* One outgoing data datagram (copied).  May emit parity when the group
 * fills.  NP_EMSGSIZE when len > np_fec_data_max, NP_EINVAL when empty
 * or when buf[0] carries NP_FEC_MARK. */
int np_fec_send(struct np_fec *f, const uint8_t *buf, size_t len,
                uint64_t now_ns);
/* np_fec_send with a caller's tag for this datagram, handed back by
 * cb.on_parity when parity covers it. */
int np_fec_send_tagged(struct np_fec *f, const uint8_t *buf, size_t len,
                       uint64_t now_ns, uint64_t tag);

/* Close the open group now (parity goes out), e.g. before idling. */
void np_fec_flush(struct np_fec *f, uint64_t now_ns);

/* One received datagram.  Returns an np_fec_kind (> 0); for PLAIN and
 * DATA, *out / *out_len point into buf (what to give the ARQ).  May call
 * cb.recovered before returning.  Negative: NP_EPARSE (malformed,
 * counted, drop it) or NP_EINVAL (re-entry). */
int np_fec_input(struct np_fec *f, const uint8_t *buf, size_t len,
                 uint64_t now_ns, const uint8_t **out, size_t *out_len);

/* Next time np_fec_on_timer must run; UINT64_MAX when none. */
uint64_t np_fec_deadline(const struct np_fec *f);
/* Closes a group whose wait expired, finalises old receive groups, sends
 * a due loss report. */
void np_fec_on_timer(struct np_fec *f, uint64_t now_ns);

/* Feed the adaptive policy from outside (e.g. ARQ loss figures): of
 * `sent` datagrams, `lost` were lost.  Reports from the peer's decoder
 * arrive on their own through np_fec_input. */
void np_fec_loss_report(struct np_fec *f, uint64_t sent, uint64_t lost);

void np_fec_get_stats(const struct np_fec *f, struct np_fec_stats *out);
/* Zero the counters (gauges and peaks restart from now), e.g. after
 * warm-up. */
void np_fec_reset_counters(struct np_fec *f);

/* Stats as a new cJSON object (caller deletes); NULL on allocation
 * failure. */
cJSON *np_fec_stats_to_json(const struct np_fec_stats *st);

#endif /* NP_FEC_H */
