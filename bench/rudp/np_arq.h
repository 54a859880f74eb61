/*
 * np_arq.h - a sans-IO ARQ connection: reliable delivery of whole messages,
 * in order or each as soon as it is complete, over an unreliable datagram
 * service.
 *
 * No sockets and no clock live here.  The caller passes time in (ns, any
 * monotonic origin), hands received datagrams to np_arq_input, calls
 * np_arq_flush after input so acks and queued data go out (piggybacked
 * where possible), and arms one timer on np_arq_deadline, calling
 * np_arq_on_timer when it fires.  Datagrams leave through the output
 * callback; whole messages arrive through the deliver callback.  This makes
 * every behaviour testable through an in-memory lossy pipe.
 *
 * Mechanisms (documented in docs/rudp.md):
 *   - fragmentation to the protocol MTU (default 1,200 B UDP payload);
 *     send window 128, receive window 512 fragments;
 *   - delivery in order (default) or unordered: a message goes up as soon
 *     as all its fragments arrived (SCTP unordered chunks, QUIC streams),
 *     so one loss stalls only its own message;
 *   - no allocation per message: fragment buffers and the send queue are
 *     reserved in np_arq_new from the windows (np_arq_pool.c);
 *   - cumulative ack + SACK ranges (4 piggybacked on data, 32 in a pure
 *     ack, sent as well when more holes exist), advertised window; acks
 *     coalesced with a bound: every ack_every-th datagram, at once for
 *     anything out of order, and never later than ack_delay_ns
 *     (RFC 5681 4.2, RFC 9000 13.2; np_arq_recv.c);
 *   - every datagram carries a 32-bit microsecond send timestamp; acks echo
 *     the newest timestamp among the data that made them (RFC 7323 TSecr
 *     style).  That yields RTT samples even for retransmitted data and
 *     detects spurious retransmissions (Eifel, RFC 3522);
 *   - RFC 6298 SRTT/RTTVAR/RTO with a configurable minimum RTO;
 *   - RACK time-based loss detection (RFC 8985) with a reordering window
 *     that grows when a retransmission proves spurious; in ordered
 *     delivery the fragments blocking the head of the stream get a short
 *     window of their own (reo_wnd_head_ns) once head_dupthresh (1)
 *     later fragments are acked, since every message behind them waits,
 *     and go out as head_copies (2) copies without FEC; a fragment an FEC
 *     group protects with parity (np_arq_protect) waits only
 *     reo_wnd_protected_ns, since a late or lost one is rebuilt within the
 *     group's wait; tail-loss probe;
 *   - congestion control through a small ops table: newreno, bbr, none;
 *   - orderly close: a sequenced FIN each way, both acknowledged;
 *   - peer-dead detection: no ack progress for dead_timeout_ns -> FAILED.
 *
 * FEC hook (issue 8): NP_ARQ_F_FEC is reserved in the flags byte for a
 * wrapping FEC layer; cfg.reserve shrinks fragments so an FEC extension
 * fits in the MTU; recovered datagrams re-enter through np_arq_input with
 * NP_ARQ_IN_RECOVERED so they are counted and never taken as RTT or
 * congestion signals.
 *
 * Not thread-safe: one connection belongs to one loop thread.
 */
#ifndef NP_ARQ_H
#define NP_ARQ_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"

/* ---- wire format (big-endian) ------------------------------------------
 * common header, 8 B:   u8 flags | u8 nsack | u16 conv | u32 ts_us
 * if F_ACK, 10 B + 4 B per SACK range:
 *                       u32 cum (next expected seq) | u32 echo_ts_us |
 *                       u16 rwnd (free fragments) |
 *                       nsack x (u16 start - cum, u16 length)
 * if F_DATA, 4 B:       u32 seq, then the fragment bytes to the end.
 * Data-only datagram: 12 B of header; data + ack: 22 B (+4 per range). */
#define NP_ARQ_F_DATA 0x01u  /* a fragment follows                         */
#define NP_ARQ_F_ACK 0x02u   /* an ack block follows the common header     */
#define NP_ARQ_F_END 0x04u   /* this fragment ends a message               */
#define NP_ARQ_F_FIN 0x08u   /* this (empty) fragment closes the stream    */
#define NP_ARQ_F_FEC 0x10u   /* reserved: FEC layer datagram (issue 8)     */
#define NP_ARQ_F_PROBE 0x20u /* sender asks for an immediate ack           */
#define NP_ARQ_F_BEGIN 0x40u /* this fragment starts a message (issue 20)  */
#define NP_ARQ_F_KNOWN 0x7fu

#define NP_ARQ_HDR_COMMON 8u
#define NP_ARQ_HDR_ACK 10u
#define NP_ARQ_HDR_SACK 4u
#define NP_ARQ_HDR_DATA 4u
#define NP_ARQ_MAX_SACK 4u      /* ranges piggybacked on a data datagram */
#define NP_ARQ_MAX_SACK_ACK 32u /* ranges in a pure ack                  */
/* Largest header, so a fragment always fits with a piggybacked ack. */
#define NP_ARQ_HDR_MAX                                                      \
  (NP_ARQ_HDR_COMMON + NP_ARQ_HDR_ACK + NP_ARQ_MAX_SACK * NP_ARQ_HDR_SACK + \
   NP_ARQ_HDR_DATA)

enum np_arq_cc_kind { NP_ARQ_CC_NONE, NP_ARQ_CC_NEWRENO, NP_ARQ_CC_BBR };

enum np_arq_state {
  NP_ARQ_OPEN,    /* data flows both ways                                  */
  NP_ARQ_CLOSING, /* close requested or peer FIN seen, not finished         */
  NP_ARQ_CLOSED,  /* our FIN acked and peer FIN received: orderly end      */
  NP_ARQ_FAILED   /* peer vanished (dead timeout / retry limit)            */
};

enum np_arq_delivery {
  NP_ARQ_ORDERED,  /* whole messages in sending order (the reference's)   */
  NP_ARQ_UNORDERED /* each message as soon as all its fragments arrived   */
};

enum np_arq_input_source {
  NP_ARQ_IN_NETWORK,  /* straight from the socket                          */
  NP_ARQ_IN_RECOVERED /* rebuilt by the FEC layer (issue 8)                */
};

struct np_arq_config {
  uint32_t mtu;             /* max UDP payload per datagram (1,200)       */
  uint32_t reserve;         /* bytes kept free for an FEC extension (0)   */
  uint32_t snd_wnd;         /* send window, fragments (128)               */
  uint32_t rcv_wnd;         /* receive window, fragments (512)            */
  uint16_t conv;            /* connection id, both ends must agree        */
  enum np_arq_cc_kind cc;   /* congestion control (bbr)                   */
  uint32_t init_cwnd;       /* initial congestion window, fragments (32)  */
  uint64_t min_rto_ns;      /* RTO floor (100 ms)                         */
  uint64_t max_rto_ns;      /* RTO ceiling after backoff (2 s)            */
  uint64_t initial_rto_ns;  /* before the first RTT sample (200 ms)       */
  uint64_t dead_timeout_ns; /* no ack progress for this long -> FAILED (10 s) */
  uint32_t max_retries;     /* per fragment, then FAILED (30)             */
  size_t max_queue_bytes;   /* unsent application bytes (16 MiB)          */
  uint32_t queue_frags;     /* fragment buffers reserved for the queue
                               beyond the windows (0 = snd_wnd); a deeper
                               queue grows the reserve, doubling         */
  enum np_arq_delivery delivery; /* ordered (default) or unordered        */
  uint32_t ack_every;       /* ack at once after this many data
                               datagrams, 1..64 (2)                       */
  uint64_t ack_delay_ns;    /* no data datagram waits longer for its ack
                               (1 ms); 0 = every one at the next flush   */
  uint32_t reo_mult_max;    /* reordering window multiplier cap (16)      */
  uint64_t reo_wnd_max_ns;  /* cap on the reordering window, 0 = none (0).
                               With FEC below, a reordered fragment is
                               usually rebuilt within the group wait, so
                               waiting out the path's full reordering
                               delay only slows the repair of fragments
                               FEC could not rebuild (docs/rudp.md)     */
  uint64_t reo_wnd_protected_ns; /* reordering window for a fragment an
                               FEC group protects with parity
                               (np_arq_protect), 0 = no such rule (0)    */
  uint64_t reo_wnd_head_ns; /* ordered delivery: reordering window for a
                               fragment blocking the head of the stream
                               once head_dupthresh later ones are acked
                               (at least reo_wnd_protected_ns, at most
                               the full window); 0 = no such rule (1 ms).
                               np_arq_sender.c, docs/rudp.md            */
  uint32_t head_dupthresh;  /* later fragments acked before the head rule
                               may fire, 1..16 (1; KCP's fastresend is 2,
                               RFC 5681's DupThresh 3)                   */
  uint32_t head_copies;     /* copies of each head-rule retransmission,
                               sent back to back, 1..2 (2): a lost repair
                               of the head costs the whole window another
                               round trip, a second copy one datagram.
                               Only without FEC (reo_wnd_protected_ns 0):
                               FEC rebuilds a lost repair                */
};

/* Counters; monotonically increasing unless noted. */
struct np_arq_stats {
  uint64_t datagrams_sent, bytes_sent;     /* UDP payload bytes            */
  uint64_t datagrams_recv, bytes_recv;
  uint64_t pure_acks_sent;                 /* ack-only datagrams           */
  uint64_t acks_piggybacked;               /* pending acks that rode on data */
  uint64_t acks_delayed;                   /* acks sent by ack_delay_ns    */
  uint64_t ack_repeats;                    /* repeated out-of-order acks   */
  uint64_t fragments_sent;                 /* first transmissions          */
  uint64_t retransmits;                    /* all fragment retransmissions
                                              (datagrams: each head copy
                                              counts)                    */
  uint64_t retx_rack, retx_tlp, retx_rto;  /* by trigger                   */
  uint64_t retx_head;                      /* ... of retx_rack: by the
                                              head-of-line window        */
  uint64_t spurious;                       /* proven unnecessary (Eifel)   */
  uint64_t spurious_rack, spurious_tlp, spurious_rto; /* by first trigger  */
  uint64_t spurious_head;                  /* ... of spurious_rack         */
  uint64_t spurious_protected;             /* ... whose original FEC
                                              parity covered            */
  uint64_t rto_events, tlp_events;
  uint64_t msgs_sent, msg_bytes_sent;      /* accepted by np_arq_send      */
  uint64_t msgs_delivered, msg_bytes_delivered;
  uint64_t msgs_delivered_early;           /* unordered: ahead of an earlier
                                              message                    */
  uint64_t dup_fragments;                  /* already had it               */
  uint64_t out_of_window;                  /* beyond the receive window    */
  uint64_t malformed;                      /* rejected datagrams           */
  uint64_t recovered_in;                   /* NP_ARQ_IN_RECOVERED inputs   */
  uint64_t rtt_samples;
  uint64_t reo_wnd_grows;                  /* reordering window widened    */
  uint64_t reordered_seen;                 /* acked after a later fragment */
  uint64_t protected_frags;                /* np_arq_protect applied       */
  /* gauges */
  uint64_t srtt_ns, rttvar_ns, min_rtt_ns, rto_ns, reo_wnd_ns;
  uint32_t cwnd, inflight, unacked;        /* fragments                    */
  uint32_t peer_rwnd;
  uint64_t btlbw_bps;                      /* bbr estimate, bytes/s        */
};

struct np_arq_callbacks {
  /* Send one datagram; return 0, or a negative code (counted, the datagram
   * is treated as lost).  buf is valid only during the call. */
  int (*output)(void *ud, const uint8_t *buf, size_t len);
  /* One whole message (in order unless cfg.delivery is unordered).  msg
   * is valid only during the call; the callback may call np_arq_send on
   * the same connection. */
  void (*deliver)(void *ud, const uint8_t *msg, size_t len);
  /* Optional: state changed (CLOSED or FAILED, ...). */
  void (*state)(void *ud, enum np_arq_state st);
  void *ud;
};

struct np_arq;

void np_arq_config_defaults(struct np_arq_config *cfg);
const char *np_arq_cc_name(enum np_arq_cc_kind k);
const char *np_arq_delivery_name(enum np_arq_delivery d);
/* "none", "newreno", "bbr" -> kind; NP_EINVAL otherwise. */
int np_arq_cc_parse(const char *name, enum np_arq_cc_kind *out);

/* Largest fragment payload for cfg (mtu - reserve - NP_ARQ_HDR_MAX). */
uint32_t np_arq_frag_max(const struct np_arq_config *cfg);

/* Validates cfg (NP_EINVAL with detail).  now_ns starts the connection's
 * clock.  *out owned by the caller; free with np_arq_free. */
int np_arq_new(const struct np_arq_config *cfg, const struct np_arq_callbacks *cb,
               uint64_t now_ns, struct np_arq **out, struct np_errbuf *eb);
void np_arq_free(struct np_arq *a); /* accepts NULL */

/* Queue a message (copied).  NP_EAGAIN when the queue limit would be
 * exceeded, NP_EINVAL after close or on failure. */
int np_arq_send(struct np_arq *a, const uint8_t *msg, size_t len);

/* A received datagram.  May call deliver.  Returns 0 or NP_EPARSE
 * (malformed, counted, ignored). */
int np_arq_input(struct np_arq *a, const uint8_t *buf, size_t len,
                 uint64_t now_ns, enum np_arq_input_source src);

/* Send what the windows allow plus any pending ack. */
void np_arq_flush(struct np_arq *a, uint64_t now_ns);

/* Next time np_arq_on_timer must run (UINT64_MAX: no timer needed). */
uint64_t np_arq_deadline(const struct np_arq *a);
void np_arq_on_timer(struct np_arq *a, uint64_t now_ns);

/* The tag of a data datagram this connection sent (what np_arq_protect
 * takes): its seq and the timestamp of that transmission.  NP_EINVAL when
 * buf is not a data datagram. */
int np_arq_datagram_tag(const uint8_t *buf, size_t len, uint64_t *tag);
/* An FEC layer below sent parity over the transmission `tag`: if that is
 * still the fragment's latest copy and unacknowledged, RACK gives it
 * cfg.reo_wnd_protected_ns instead of the full reordering window (a late
 * or lost copy is rebuilt from the group; waiting longer would only delay
 * the repair of what FEC cannot rebuild, and waiting less for fragments
 * without parity would retransmit late originals: issue 20).  May be
 * called from inside the output callback. */
void np_arq_protect(struct np_arq *a, uint64_t tag, uint64_t now_ns);

/* Orderly close: queued data is sent first, then a FIN. */
void np_arq_close(struct np_arq *a, uint64_t now_ns);
enum np_arq_state np_arq_get_state(const struct np_arq *a);
/* 1 when every sent fragment (and our FIN, if any) is acknowledged and
 * nothing is queued. */
int np_arq_all_acked(const struct np_arq *a);
/* 1 once the peer's FIN has been delivered. */
int np_arq_peer_closed(const struct np_arq *a);

/* Stop (1) or resume (0) delivery: the receive window then fills and the
 * advertised window shrinks to zero (flow control). */
void np_arq_pause_delivery(struct np_arq *a, int paused, uint64_t now_ns);

/* Copy of the counters with gauges filled in. */
void np_arq_get_stats(const struct np_arq *a, struct np_arq_stats *out);
/* Zero the counters (gauges unaffected), e.g. after warm-up. */
void np_arq_reset_counters(struct np_arq *a);

#endif /* NP_ARQ_H */
