/*
 * np_arq_config.h - what an ARQ connection (bench/rudp/np_arq.h) is
 * configured with and counts, and its wire format's layout and sizes:
 * the plain data rudp's option table, its record builder and the
 * self-check read without the protocol code.  The functions below are
 * defined in np_arq_config.c.
 */
#ifndef NP_ARQ_CONFIG_H
#define NP_ARQ_CONFIG_H

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

enum np_arq_delivery {
  NP_ARQ_ORDERED,  /* whole messages in sending order (the reference's)   */
  NP_ARQ_UNORDERED /* each message as soon as all its fragments arrived   */
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

void np_arq_config_defaults(struct np_arq_config *cfg);
const char *np_arq_cc_name(enum np_arq_cc_kind k);
const char *np_arq_delivery_name(enum np_arq_delivery d);
/* "none", "newreno", "bbr" -> kind; NP_EINVAL otherwise. */
int np_arq_cc_parse(const char *name, enum np_arq_cc_kind *out);

/* Largest fragment payload for cfg (mtu - reserve - NP_ARQ_HDR_MAX). */
uint32_t np_arq_frag_max(const struct np_arq_config *cfg);

#endif /* NP_ARQ_CONFIG_H */
