/*
 * np_rudp_result.h - what one `netproof-bench rudp` run (np_rudp_run,
 * bench/rudp) hands back: per round the application, ARQ, FEC, relay and
 * socket-layer counters, the sockets, the histogram and the checks.  Plain
 * data: the record builders (np_rudp_record.h, np_rudp_record_fec.h) and
 * the counter sums (np_rudp_sums.c, the functions declared below) read it
 * without linking an engine; np_rudp_result_free (np_rudp_run.h) frees
 * what it owns.
 */
#ifndef NP_RUDP_RESULT_H
#define NP_RUDP_RESULT_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_arq_config.h"
#include "np_bench_intervals.h"
#include "np_bench_run.h"
#include "np_fec_params.h"
#include "np_hist.h"
#include "np_relay_config.h"
#include "np_rudp_checks.h"
#include "np_time.h"

/* Application-level counters (messages), same names as the udp record. */
struct np_rudp_app {
  uint64_t sent;            /* requests queued by clients                */
  uint64_t server_received; /* requests delivered to the server          */
  uint64_t server_replied;  /* echoes queued by the server               */
  uint64_t received;        /* echoes delivered to clients (round trips) */
  uint64_t content_errors;  /* bytes differ from what was sent           */
  uint64_t sequence_errors; /* a message arrived out of order            */
  uint64_t send_errors;     /* np_arq_send refused or a socket send failed */
  uint64_t msg_bytes;       /* application bytes, both directions        */
};

void np_rudp_app_sub(struct np_rudp_app *acc, const struct np_rudp_app *a,
                     const struct np_rudp_app *b); /* acc = a - b */
void np_rudp_app_add(struct np_rudp_app *acc, const struct np_rudp_app *a);
/* acc += a for the FEC counters of endpoints (peaks and retained bytes
 * summed, parity_max / policy_m the largest, parity_mean recomputed from
 * the histogram, policy_loss the mean over the endpoints added). */
void np_rudp_fec_add(struct np_fec_stats *acc, const struct np_fec_stats *a,
                     unsigned *n_added);
/* acc += a - b for every counter of struct np_arq_stats (gauges: a's). */
void np_rudp_arq_add_delta(struct np_arq_stats *acc,
                           const struct np_arq_stats *a,
                           const struct np_arq_stats *b);

/* System calls and datagrams, per lane (summed into the record). */
struct np_rudp_io_stats {
  uint64_t recv_calls;      /* recvmmsg calls                            */
  uint64_t recv_datagrams;  /* datagrams they returned                   */
  uint64_t recv_empty;      /* calls that found nothing (EAGAIN)         */
  uint64_t send_calls;      /* sendmmsg calls                            */
  uint64_t send_datagrams;  /* datagrams the kernel took                 */
  uint64_t send_failed;     /* datagrams refused (counted as lost)       */
  uint64_t truncated;       /* received datagrams longer than the MTU    */
};

/* One endpoint socket, for the record's `sockets` list. */
struct np_rudp_sockrep {
  int server;            /* 1 server socket, 0 client socket             */
  uint32_t index, lane;
  int rcvbuf_requested, rcvbuf_effective;
  int sndbuf_requested, sndbuf_effective;
  uint64_t drops;        /* SO_MEMINFO SK_MEMINFO_DROPS, whole round     */
};

struct np_rudp_round {
  uint64_t seed;
  char started_at[NP_TIME_TEXT_MAX]; /* RFC 3339 UTC ms                  */
  double warmup_seconds, measure_seconds, drain_seconds, close_seconds;
  int drain_complete;        /* every request answered within the bound  */
  double cpu_user_seconds, cpu_sys_seconds; /* measurement + drain       */
  struct np_rudp_app app;    /* measurement + drain window               */
  struct np_rudp_app total;  /* whole round                              */
  struct np_arq_stats arq_client, arq_server; /* measurement + drain     */
  struct np_arq_stats arq_total; /* whole round, both sides             */
  /* FEC (zero with --fec none), measurement + drain, summed per side */
  struct np_fec_stats fec_client, fec_server;
  uint64_t wire_bytes, wire_datagrams; /* UDP payloads put on the wire by
                                        every endpoint (ARQ + FEC layer),
                                        measurement + drain              */
  uint64_t *fec_retained; /* owned: retained bytes summed over endpoints,
                             sampled every 100 ms from measurement start  */
  uint32_t fec_nretained;
  struct np_hist *rtt_ns;    /* round trips completed in the window      */
  uint32_t conns, conns_closed, conns_failed, conns_unacked;
  struct np_relay_counts relay_dir[NP_RELAY_DIRS]; /* summed over routes */
  uint64_t relay_peak_bytes_sum, relay_peak_packets_sum;
  uint64_t relay_errors, relay_overflow;
  struct np_relay_counts relay_window; /* both directions, all routes,
                                          measurement + drain only    */
  struct np_bench_intervals intervals; /* --interval's series; owned */
  cJSON *relay_stats;        /* np_relay_stats_json, or an external
                                relay's link (owned)                     */
  const char *relay_scope;   /* what the relay counters cover; NULL =
                                the in-process relay's whole round       */
  struct np_rudp_sockrep *socks; /* owned; server first, then clients    */
  uint32_t nsocks;
  uint64_t socket_send_errors; /* sends the socket layer refused (ARQ
                                 repairs them)                           */
  struct np_rudp_io_stats io;  /* endpoint system calls, measurement +
                                  drain, all lanes                       */
  struct np_rudp_io_stats io_total; /* the same, whole round             */
  uint64_t foreign;          /* server datagrams with an unknown conv    */
  struct np_rudp_check checks[NP_RUDP_CHECKS];
  int failed;                /* any check failed                        */
  int server_remote;         /* --connect without --agent: no server
                                counts here (np_rudp_check_input)       */
};

struct np_rudp_result {
  struct np_bench_run run;   /* times, signal, kernel snapshots (around
                                all rounds)                             */
  uint32_t nrounds;          /* rounds run (>= 1 after a successful run) */
  struct np_rudp_round *rounds; /* owned                                 */
  uint32_t median;           /* index of the median round (throughput)   */
  uint64_t rss_max_bytes;    /* process peak, all rounds                 */
  uint32_t lanes;            /* loop threads                             */
};

#endif /* NP_RUDP_RESULT_H */
