/*
 * np_rudp_endpoint_int.h - what the endpoint files share (not a public
 * API): one connection (struct conn: an np_arq, its optional np_fec, the
 * echo application's state and counters), one lane (a libuv loop on its
 * thread) and the round's network.  np_rudp_endpoint.c owns the loops,
 * sockets and phases; np_rudp_conn.c one connection's application and
 * datagram path (ARQ <-> FEC <-> socket); np_rudp_endpoint_io.c the
 * batched system calls.
 */
#ifndef NP_RUDP_ENDPOINT_INT_H
#define NP_RUDP_ENDPOINT_INT_H

#include <time.h>

#include <uv.h>

#include "np_rudp_endpoint.h"
#include "np_rudp_endpoint_io.h"

struct lane;

struct conn {
  struct lane *lane;
  struct np_arq *arq;
  struct np_fec *fec;          /* NULL with --fec none               */
  int is_server;
  uint32_t client;
  uv_udp_t sock;               /* client only: bind, connect, close  */
  int sock_open;
  uv_poll_t poll;              /* client only: readable -> recvmmsg  */
  int poll_open;
  struct np_rudp_txq txq;      /* client only: sendmmsg batch        */
  struct sockaddr_storage peer; /* server only: pinned client route   */
  struct sockaddr_storage self; /* client only: its bound address     */
  int peer_set;
  int dirty;                   /* received data: flush at uv_check   */
  uint64_t next_send;          /* client: number of the next request */
  uint64_t recv_low;           /* lowest message number not received */
  uint32_t ring;               /* numbers tracked from recv_low on, a
                                  power of two above any span in
                                  flight (np_rudp_conn.c)            */
  uint8_t *seen;               /* unordered: bit k % ring = received */
  uint64_t *sent_at;           /* client: send time of k, at k % ring */
  int measuring;
  int drained_noted, done_noted, close_called;
  struct np_rudp_app app, app_base, app_end;
  struct np_arq_stats base, end;
  struct np_fec_stats fec_end; /* counters reset at measurement start */
  uint64_t wire_bytes, wire_dgrams; /* put on the socket, whole round */
  uint64_t wire_base[2], wire_end[2];
  uint64_t drops;
};

struct lane {
  struct np_rudp_net *net;
  unsigned idx;
  uv_loop_t loop;
  int loop_open;
  uv_thread_t th;
  int th_started;
  uv_async_t wake;
  uv_timer_t timer;
  uv_check_t check;
  uv_timer_t sampler;          /* FEC retained bytes every 100 ms     */
  uint64_t *retained;          /* samples, measurement + drain        */
  uint32_t nretained, cap_retained;
  uv_udp_t server;
  int has_server;
  uv_poll_t server_poll;       /* readable -> recvmmsg               */
  int server_poll_open;
  struct np_rudp_txq server_txq; /* addressed: one per client route  */
  struct np_rudp_rxb rxb;      /* the lane's receive batch           */
  struct np_rudp_io_stats io, io_base, io_end; /* base/end: MEASURE and
                                  CLOSE phase snapshots              */
  uint64_t server_drops;
  struct conn **conns;
  unsigned nconns;
  int phase_seen;
  struct np_hist *rtt;
  /* --interval (np_rudp_interval.c) */
  struct np_hist *iv_hist;     /* this slice's latencies (own)        */
  struct np_hist *iv_pub;      /* handed over at a boundary           */
  uint64_t iv_received;        /* measured round trips so far (own)   */
  uint64_t iv_received_pub;    /* ... at the hand-over                */
  uv_mutex_t iv_lock;          /* guards iv_pub, iv_received_pub      */
  int iv_lock_init;
  _Atomic unsigned iv_req, iv_ack; /* boundary asked / handed over     */
  uint64_t send_errors, foreign;
  uint8_t *msgbuf, *scratch;   /* payload-sized                       */
};

struct np_rudp_net {
  const struct np_rudp_config *cfg;
  struct np_rudp_ctl *ctl;
  uint64_t seed;
  struct lane lanes[NP_RUDP_MAX_LANES];
  unsigned nlanes;
  struct conn *clients, *servers;
  uint32_t ncl, nsv;            /* client / server connections built:
                                   cfg->clients each, 0 for the role's
                                   missing side (cfg->role)           */
  struct np_rudp_sockrep *reps; /* server, then clients (bind time)   */
  int fec;                      /* endpoints carry an np_fec          */
};

static inline uint64_t np_rudp__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* np_rudp_interval.c */
int np_rudp__iv_alloc(struct lane *l);
void np_rudp__iv_free(struct lane *l);
void np_rudp__iv_handover(struct lane *l); /* lane thread, on wake-up */

/* np_rudp_conn.c */
void np_rudp__client_send(struct conn *c); /* queue the next request     */
void np_rudp__note_drained(struct conn *c);
void np_rudp__on_deliver(void *ud, const uint8_t *msg, size_t len);
void np_rudp__on_state(void *ud, enum np_arq_state st);
int np_rudp__sock_send(void *ud, const uint8_t *buf, size_t len);
int np_rudp__on_arq_output(void *ud, const uint8_t *buf, size_t len);
void np_rudp__on_fec_recovered(void *ud, const uint8_t *buf, size_t len);
void np_rudp__on_fec_parity(void *ud, const uint64_t *tags, unsigned k,
                            unsigned m);
/* One datagram from the socket: FEC layer (if any), then the ARQ. */
void np_rudp__conn_input(struct conn *c, const uint8_t *p, size_t len);
/* The application's bookkeeping for cfg: ring and buffers (NP_ENOMEM). */
int np_rudp__conn_app_init(struct conn *c, const struct np_rudp_config *cfg);
void np_rudp__conn_app_free(struct conn *c);
/* Every request answered (client). */
int np_rudp__conn_drained(const struct conn *c);

#endif /* NP_RUDP_ENDPOINT_INT_H */
