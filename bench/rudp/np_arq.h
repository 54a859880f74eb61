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

#include "np_arq_config.h" /* wire sizes, config, counters (model/rudp) */
#include "np_err.h"

/* The wire format (header layout, flags, sizes) is in np_arq_config.h: the
 * rudp record reports those sizes. */

enum np_arq_state {
  NP_ARQ_OPEN,    /* data flows both ways                                  */
  NP_ARQ_CLOSING, /* close requested or peer FIN seen, not finished         */
  NP_ARQ_CLOSED,  /* our FIN acked and peer FIN received: orderly end      */
  NP_ARQ_FAILED   /* peer vanished (dead timeout / retry limit)            */
};

enum np_arq_input_source {
  NP_ARQ_IN_NETWORK,  /* straight from the socket                          */
  NP_ARQ_IN_RECOVERED /* rebuilt by the FEC layer (issue 8)                */
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
