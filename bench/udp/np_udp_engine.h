/*
 * np_udp_engine.h - internal state shared by np_udp_run.c (set-up, threads,
 * phases) and np_udp_echo.c (what happens to each datagram).  Not public.
 *
 * A lane is one event loop and the thread that runs it.  Clients and
 * server sockets belong to exactly one lane and are touched only by its
 * thread.  The controller (the thread that called np_udp_run) moves the
 * global phase forward and wakes the lanes; each lane follows the phase in
 * its wake callback and acknowledges it.
 */
#ifndef NP_UDP_ENGINE_H
#define NP_UDP_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "np_bench_interval.h"
#include "np_hist.h"
#include "np_rng.h"
#include "np_udp_msg.h"
#include "np_udp_open.h"
#include "np_udp_config.h"
#include "np_udp_run.h"
#include "np_udp_transport.h"

enum np_udp_phase {
  NP_UDP_PH_IDLE,         /* sockets open, nothing sent              */
  NP_UDP_PH_WARMUP,       /* clients send; counters -> warm-up       */
  NP_UDP_PH_WARMUP_DRAIN, /* no new sends; warm-up replies come back */
  NP_UDP_PH_MEASURE,      /* clients send; counters -> measurement   */
  NP_UDP_PH_DRAIN,        /* no new sends; measurement replies back  */
  NP_UDP_PH_STOP          /* lanes leave their loops                 */
};

/* Counter set of a phase: 0 warm-up, 1 measurement. */
#define NP_UDP_SET(ph) ((ph) >= NP_UDP_PH_MEASURE ? 1 : 0)

struct np_udp_engine;
struct np_udp_lane;

struct np_udp_slot {
  uint64_t seq;     /* sequence this slot holds                  */
  int64_t ts;       /* its send time, CLOCK_MONOTONIC ns         */
  int64_t intended; /* when it was due: open loop's schedule; ts
                       in closed loop (latency counts from here) */
  int live;         /* 1 while the reply is outstanding          */
};

/* A message the client stopped waiting for (reply timeout, or its ring
 * slot was needed): kept so a reply that still comes counts as late, not
 * as lost or stale (np_udp_timeout.c). */
struct np_udp_gone {
  uint64_t seq1;    /* seq + 1 of the message; 0 = empty entry    */
  int64_t ts;       /* its send time (the bytes it carried)       */
  int64_t intended; /* its due time (open loop), else ts          */
  int set;          /* counter set it was sent in (0 / 1)         */
  int held;         /* 1 = still in the lane's outstanding count
                       (open loop's expired messages)             */
};

struct np_udp_client {
  uint32_t id;
  struct np_udp_lane *lane;
  struct np_udp_sock *sock;
  uint64_t next_seq;          /* sequence of the next message          */
  uint64_t highest;           /* highest sequence received + 1 (0 none) */
  uint32_t outstanding;       /* live slots                            */
  struct np_udp_slot *ring;   /* ring_len entries, index seq % ring_len */
  uint32_t ring_len;          /* window; --connect: 2 x window where the
                                 sequence bits allow, so a reply one
                                 window late (reordered by the server)
                                 still finds its slot                    */
  uint8_t *txbufs;            /* tx_batch * payload                    */
  struct np_udp_tx *tx;       /* tx_batch entries                      */
  struct np_udp_msg_gen gen;  /* this client's message generator      */
  uint64_t *answered;         /* --connect: seq + 1 of recently answered
                                 messages at seq & answered_mask (tells a
                                 duplicate from a stale reply), or NULL  */
  uint64_t answered_mask;     /* entries - 1 (a power of two >= 2 x window) */
  struct np_udp_gone *gone;   /* given-up messages at seq & gone_mask     */
  uint64_t gone_mask;         /* entries - 1 (a power of two)            */
  uint64_t oldest;            /* closed loop: lowest seq that may still be
                                 outstanding (the reply timeout's scan)   */
  /* open loop (np_udp_open.c) */
  int64_t next_due;           /* intended time of the next message (ns) */
  int64_t phase_t0;           /* the schedule's origin in this phase    */
  uint64_t due_index;         /* messages scheduled in this phase       */
  double period_ns;           /* mean gap between this client's sends   */
  int64_t *due;               /* tx_batch intended times of a batch     */
  struct np_rng rng;          /* Poisson gaps                           */
};

struct np_udp_server {
  uint32_t index;
  struct np_udp_lane *lane;
  struct np_udp_sock *sock;
  struct np_udp_tx *tx;       /* rx_batch_server entries               */
};

struct np_udp_lane {
  uint32_t index;
  struct np_udp_engine *eng;
  struct np_udp_loop *loop;
  pthread_t thread;
  int thread_started;
  int run_rc;                       /* loop_run's result               */
  int seen_phase;                   /* phase this lane follows (own)   */
  struct np_udp_server *server;     /* NULL if this lane has none      */
  struct np_udp_client **clients;   /* this lane's clients             */
  uint32_t nclients;
  uint32_t outstanding;             /* sum over this lane's clients    */
  struct np_udp_counters ctr[2];    /* [NP_UDP_SET(phase)]             */
  struct np_hist *hist;             /* measurement RTTs (ns)           */
  uint64_t warmup_lost;             /* outstanding at measurement start */
  uint64_t work_digest;
  _Atomic int ack_phase;            /* seen_phase, for the controller  */
  _Atomic uint32_t outstanding_pub; /* outstanding, for the controller */
  _Atomic int64_t max_rtt_pub;      /* largest RTT so far (ns)         */
  /* open loop */
  struct np_hist *service;          /* measurement: reply - actual send */
  struct np_hist *send_lag;         /* measurement: send - intended     */
  _Atomic int64_t next_due_pub;     /* earliest due send of the lane, ns;
                                       INT64_MAX = none (for the pacer) */
  pthread_t pacer;                  /* wakes the loop when a send is due */
  int pacer_started;
  _Atomic int pacer_stop;           /* set by the controller           */
  /* reply timeout, closed loop (np_udp_timeout.c) */
  struct np_hist *to_hist;          /* every RTT so far, both phases   */
  uint64_t to_fresh;                /* replies since the last derivation */
  int64_t timeout_ns;               /* the reply timeout now           */
  int64_t to_min_ns, to_max_ns;     /* timeouts in force while measured
                                       (0 = none yet)                  */
  /* --interval (np_udp_interval.c) */
  struct np_hist *iv_hist;          /* this slice's latencies (own)    */
  struct np_hist *iv_pub;           /* handed over at a boundary       */
  uint64_t iv_received;             /* ctr[1].received at the hand-over */
  pthread_mutex_t iv_lock;          /* guards iv_pub and iv_received   */
  int iv_lock_init;
  _Atomic unsigned iv_req, iv_ack;  /* boundary asked / handed over    */
};

struct np_udp_engine {
  const struct np_udp_config *cfg;
  const struct np_udp_transport *tp;
  _Atomic int phase;                /* written by the controller only  */
  uint32_t nlanes;
  struct np_udp_lane *lanes;
  uint32_t nservers;
  struct np_udp_server *servers;
  struct np_udp_client *clients;    /* nclients entries                */
  uint32_t nclients;                /* cfg->clients; 0 for serve       */
  unsigned rx_batch_server, rx_batch_client, tx_batch;
  int steered;                      /* reuseport steered by client id  */
  uint16_t bound_port;              /* the (first) server socket's port */
  int live;                         /* lanes hand over their counts each
                                     * second for the live line though
                                     * --interval is off (bc->live)     */
};

/* np_udp_open.c: open loop (--rate) */
int np_udp_open_alloc(struct np_udp_engine *eng, struct np_udp_client *cl);
void np_udp_open_start(struct np_udp_lane *l);   /* a sending phase begins */
void np_udp_open_send_due(struct np_udp_lane *l); /* send what is due now  */

/* np_udp_timeout.c: giving up on a message, late replies, the closed
 * loop's reply timeout (lane threads only, except _alloc at set-up) */
int np_udp_timeout_lane_init(struct np_udp_lane *l); /* timeout, histogram */
int np_udp_timeout_alloc(struct np_udp_engine *eng, struct np_udp_client *cl);
void np_udp_timeout_measure_start(struct np_udp_lane *l);
void np_udp_give_up(struct np_udp_client *cl, struct np_udp_slot *s, int held);
/* 1 when the reply of seq is a late one (counted), 0 when it is not ours */
int np_udp_late_reply(struct np_udp_client *cl, uint64_t seq,
                      const struct np_udp_rx *rx, int64_t now);
void np_udp_timeout_note_rtt(struct np_udp_lane *l, int64_t rtt);
/* give up every message older than the timeout; returns the earliest
 * deadline still pending (INT64_MAX = none) and publishes it */
int64_t np_udp_timeout_reap(struct np_udp_lane *l, int64_t now);
void np_udp_timeout_reap_client(struct np_udp_client *cl, int64_t now);
void np_udp_timeout_sent(struct np_udp_lane *l, int64_t now); /* a send */
/* messages held in the lane count by given-up entries become unheld (the
 * count restarts at a phase boundary) */
void np_udp_timeout_forget_held(struct np_udp_client *cl);

/* np_udp_pacer.c: one thread per lane that sleeps until the lane's next
 * due send and wakes its loop (transports have no sub-millisecond timer) */
int np_udp_pacer_start(struct np_udp_lane *l);
void np_udp_pacer_stop(struct np_udp_lane *l); /* joins; accepts unstarted */

/* np_udp_interval.c: --interval's hand-over between lanes and the
 * controller's sampler (bench/core/np_bench_interval.h) */
int np_udp_interval_alloc(struct np_udp_lane *l);
void np_udp_interval_free(struct np_udp_lane *l);
void np_udp_interval_on_wake(struct np_udp_lane *l); /* lane thread */
struct np_udp_iv_ctx {
  struct np_udp_engine *eng;        /* the lanes                       */
  const struct np_udp_result *res;  /* drop counters' starting values  */
  struct np_hist *merged;           /* the slice over every lane       */
};
int np_udp_interval_sample(void *ctx, struct np_bench_iv_sample *out);

/* np_udp_run.c: kernel drops on the run's sockets since the measurement
 * began (controller thread) */
int64_t np_udp_drops_since(struct np_udp_engine *eng,
                           const struct np_udp_result *res);

/* np_udp_echo.c */
int64_t np_udp_now_ns(void);
void np_udp_server_on_recv(void *ctx, const struct np_udp_rx *rx, unsigned n);
void np_udp_client_on_recv(void *ctx, const struct np_udp_rx *rx, unsigned n);
void np_udp_lane_on_wake(void *ctx);

#endif /* NP_UDP_ENGINE_H */
