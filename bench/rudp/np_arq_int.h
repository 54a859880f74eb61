/*
 * np_arq_int.h - np_arq's private state, shared by np_arq.c (lifecycle,
 * output, timers), np_arq_sender.c (acks, RACK, TLP, RTO), np_arq_recv.c
 * (reassembly, delivery, ack generation) and np_arq_pool.c (fragment
 * buffers and the send queue, allocated up front).
 */
#ifndef NP_ARQ_INT_H
#define NP_ARQ_INT_H

#include <stdint.h>

#include "np_arq.h"
#include "np_arq_cc.h"

/* sequence arithmetic modulo 2^32 */
static inline int np_seq_lt(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) < 0;
}
static inline int np_seq_le(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) <= 0;
}

enum np_arq_sf_state { SF_FREE, SF_INFLIGHT, SF_LOST, SF_ACKED };
/* RETX_HEAD: RACK with the head-of-line window (np_arq_sender.c); it is
 * counted under retx_rack too, and in retx_head. */
enum np_arq_retx_why { RETX_RACK = 1, RETX_TLP, RETX_RTO, RETX_HEAD };

/* one fragment in the send window */
struct np_arq_sfrag {
  uint8_t *buf;          /* fragment bytes (a pool buffer, returned when
                            the fragment is acknowledged)              */
  uint32_t len;          /* payload length                             */
  uint8_t flags;         /* NP_ARQ_F_END / NP_ARQ_F_FIN                */
  uint8_t state;         /* enum np_arq_sf_state                       */
  uint8_t why;           /* enum np_arq_retx_why when SF_LOST          */
  uint8_t app_limited;   /* sent with nothing else queued              */
  uint8_t first_why;     /* trigger of the first retransmission        */
  uint8_t first_prot;    /* that retransmission's original was covered
                            by FEC parity                               */
  uint8_t prot;          /* latest transmission sits in an FEC group
                            that carried parity (np_arq_protect)       */
  uint32_t tx;           /* transmissions so far                       */
  uint32_t ts_last;      /* wire ts of the latest transmission         */
  uint32_t ts_first_retx;/* wire ts of the first retransmission        */
  uint64_t sent_ns;      /* latest transmission time                   */
  uint64_t delivered;    /* rate sampling state at send time           */
  uint64_t delivered_ns;
  uint64_t first_sent_ns;
};

/* one slot of the receive window */
struct np_arq_rslot {
  uint8_t *buf;          /* a pool buffer while held, else NULL        */
  uint32_t len;          /* fragment bytes                             */
  uint8_t flags;         /* NP_ARQ_F_BEGIN / END / FIN                 */
  uint8_t present;       /* received (stays 1 after an unordered
                            delivery, for acks and duplicates)         */
  uint8_t done;          /* delivered out of order, buffer returned    */
};

/* one queued fragment: application bytes already cut to frag_max */
struct np_arq_qfrag {
  uint8_t *buf;          /* a pool buffer (moves to the send slot)     */
  uint32_t len;          /* bytes                                      */
  uint8_t flags;         /* NP_ARQ_F_BEGIN / END / FIN                 */
};

/* Fragment buffers (frag_max bytes each) cut from slabs allocated at
 * np_arq_new: snd_wnd + rcv_wnd + queue_frags of them, which covers
 * every send slot, every receive slot and queue_frags queued fragments.
 * A queue deeper than ever before adds a slab (the only allocation after
 * np_arq_new, and never in a steady state); nothing is freed before
 * np_arq_free. */
struct np_arq_pool {
  uint8_t **free;        /* stack of free buffers                      */
  size_t nfree;          /* entries on the stack                       */
  size_t total;          /* buffers in all slabs (stack capacity)      */
  uint8_t **slabs;       /* slab base pointers                         */
  size_t nslabs, cap_slabs;
};

/* The send queue: a ring of fragments, cap a power of two, grown by
 * doubling together with the pool (see np_arq_pool). */
struct np_arq_queue {
  struct np_arq_qfrag *ring;
  uint32_t cap;          /* ring entries (power of two)                */
  uint32_t head;         /* index of the oldest entry                  */
  uint32_t n;            /* entries                                    */
  size_t bytes;          /* application bytes queued                   */
  size_t allowance;      /* pool buffers reserved for queued fragments */
};

struct np_arq {
  struct np_arq_config cfg;
  struct np_arq_callbacks cb;
  uint32_t frag_max;
  uint64_t epoch_ns; /* wire ts origin */
  enum np_arq_state st;
  struct np_arq_stats stats;

  /* sender */
  struct np_arq_sfrag *snd; /* cfg.snd_wnd slots, index seq % snd_wnd */
  uint32_t snd_una, snd_nxt;
  uint32_t pipe;       /* fragments in flight (sent, not acked/lost)  */
  uint32_t lost;       /* marked lost, awaiting retransmission        */
  uint32_t peer_rwnd;  /* peer's advertised free fragments            */
  struct np_arq_queue q;
  int close_requested, fin_assigned, fin_acked;
  uint32_t fin_seq;
  struct np_arq_cc cc;
  /* rtt */
  uint64_t srtt_ns, rttvar_ns, rto_ns, min_rtt_ns;
  int rto_backoff; /* exponent applied to rto_ns                      */
  /* rack */
  uint64_t rack_xmit_ns, rack_rtt_ns;
  uint32_t rack_seq;
  uint32_t fack; /* one past the highest fragment acked so far        */
  uint32_t reo_mult;
  uint64_t reo_learned_ns; /* reordering lateness seen (np_arq_sender.c) */
  uint64_t reo_last_grow_ns;
  uint32_t recoveries_clean; /* loss episodes since the last spurious  */
  uint32_t head_lost, head_spur; /* head-of-line rule evidence, halved at
                                    64 (np_arq_sender.c)               */
  int in_recovery;
  uint32_t recovery_end;
  /* rate sampling */
  uint64_t delivered, delivered_ns, first_sent_ns;
  uint64_t next_round_delivered;
  /* timers (0 = disarmed) */
  uint64_t rto_at, pto_at, reo_at, persist_at;
  int tlp_out;
  uint64_t last_progress_ns;

  /* receiver */
  struct np_arq_rslot *rcv; /* cfg.rcv_wnd slots, index seq % rcv_wnd */
  uint32_t rcv_nxt;  /* next seq not yet received in order (cum ack) */
  uint32_t dlv_nxt;  /* next seq to hand to the application         */
  uint32_t rcv_high; /* one past the highest seq received            */
  uint32_t last_rcv_seq; /* most recently stored fragment (SACK order) */
  int ack_pending;       /* something arrived that no ack covered yet  */
  int ack_now;           /* ... and the ack must go at the next flush  */
  uint32_t ack_count;    /* data datagrams since the last ack          */
  uint64_t ack_at;       /* delayed-ack deadline (0 = none)            */
  int ack_repeat_arm;   /* the pending ack reports out-of-order data   */
  uint64_t ack_repeat_at; /* send that ack once more (0 = no)           */
  uint32_t echo_ts;
  int echo_fresh;
  int paused, peer_fin;
  uint8_t *reasm;
  size_t reasm_len, reasm_cap;

  struct np_arq_pool pool; /* np_arq_pool.c                             */
};

/* np_arq_pool.c */
/* Slabs for nbufs buffers and a queue ring; NP_ENOMEM. */
int np_arq__pool_init(struct np_arq *a, size_t nbufs);
void np_arq__pool_free(struct np_arq *a);
/* A free buffer, or NULL when none is left (never allocates). */
uint8_t *np_arq__buf_get(struct np_arq *a);
void np_arq__buf_put(struct np_arq *a, uint8_t *buf); /* accepts NULL */
/* Cut msg into fragments at the queue's tail (fin: one empty FIN
 * fragment).  NP_ENOMEM leaves the queue as it was. */
int np_arq__queue_push(struct np_arq *a, const uint8_t *msg, size_t len,
                       int fin);
/* The oldest queued fragment, removed (q.n > 0). */
struct np_arq_qfrag np_arq__queue_pop(struct np_arq *a);

/* np_arq.c */
uint32_t np_arq__ts(const struct np_arq *a, uint64_t now_ns);
void np_arq__set_state(struct np_arq *a, enum np_arq_state st);
void np_arq__fail(struct np_arq *a);
/* Send fragment seq again (counted under why); extra flags e.g. PROBE. */
void np_arq__retransmit(struct np_arq *a, uint32_t seq, uint8_t why,
                        uint8_t extra, uint64_t now_ns);
/* Assign the next fragment of queued data a seq and send it; 0 if none. */
int np_arq__take_new(struct np_arq *a, uint64_t now_ns);

/* np_arq_sender.c */
struct np_arq_ack {
  uint32_t cum, echo_ts;
  uint16_t rwnd;
  unsigned nsack;
  uint32_t sack_start[NP_ARQ_MAX_SACK_ACK], sack_len[NP_ARQ_MAX_SACK_ACK];
};
void np_arq__on_ack(struct np_arq *a, const struct np_arq_ack *ack,
                    uint64_t now_ns, enum np_arq_input_source src);
void np_arq__rack_detect(struct np_arq *a, uint64_t now_ns);
/* A head fragment was just resent by the head rule: arm its timer. */
void np_arq__head_arm(struct np_arq *a, uint64_t now_ns);
void np_arq__fire_rto(struct np_arq *a, uint64_t now_ns);
void np_arq__fire_tlp(struct np_arq *a, uint64_t now_ns);
void np_arq__rearm(struct np_arq *a, uint64_t now_ns);
uint64_t np_arq__pto(const struct np_arq *a);
uint64_t np_arq__reo_wnd(const struct np_arq *a);

/* np_arq_recv.c */
void np_arq__on_data(struct np_arq *a, uint32_t seq, uint8_t flags, uint32_t ts,
                     const uint8_t *p, size_t len, uint64_t now_ns);
void np_arq__deliver_ready(struct np_arq *a);
/* Write the ack block at p with at most max ranges; returns bytes.
 * *truncated = 1 when more ranges existed. */
size_t np_arq__build_ack(struct np_arq *a, uint8_t *p, unsigned max,
                         unsigned *nsack, int *truncated);

#endif /* NP_ARQ_INT_H */
