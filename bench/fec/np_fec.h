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

#include "np_err.h"
#include "np_fec_params.h" /* config, stats, sizes (model/fec) */
#include "np_fec_win.h"

#define NP_FEC_MARK 0x10u          /* byte-0 bit marking an FEC datagram  */
#define NP_FEC_F_BARE 0x20u        /* data: its group carries no parity   */

/* What np_fec_input found. */
enum np_fec_kind {
  NP_FEC_IN_PLAIN = 1,  /* no FEC mark: *out is the whole datagram        */
  NP_FEC_IN_DATA = 2,   /* a data shard: *out is the inner datagram       */
  NP_FEC_IN_PARITY = 3, /* consumed                                       */
  NP_FEC_IN_REPORT = 4  /* consumed (fed the adaptive policy)             */
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

struct np_fec;

/* Byte 0 of an FEC datagram that carries a data datagram after
 * NP_FEC_HDR_DATA bytes (block data or window source), e.g. to route it
 * by the inner ARQ header before np_fec_input. */
static inline int np_fec_is_data(uint8_t b0) {
  return (b0 & NP_FEC_MARK) && ((b0 & 0xc0u) == 0 || (b0 & 0xe0u) == 0xc0u);
}

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

#endif /* NP_FEC_H */
