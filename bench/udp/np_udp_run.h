/*
 * np_udp_run.h - run one UDP echo benchmark and return what happened.
 *
 * np_udp_run() opens the sockets, runs the phases (warm-up, warm-up drain,
 * measurement, drain) on the IO model's threads and fills a result that
 * np_udp_checks and np_udp_record turn into checks and the run record.
 * The calling thread is the controller (bench/core/np_bench_ctl.h): it
 * already blocks SIGINT/SIGTERM and reads them through the controller's
 * signalfd, so no handler and no global state is needed; a signal ends the
 * current phase and is reported in result->run.signal.
 */
#ifndef NP_UDP_RUN_H
#define NP_UDP_RUN_H

#include <stdint.h>

#include "np_bench_ctl.h"
#include "np_bench_interval.h"
#include "np_err.h"
#include "np_hist.h"
#include "np_kernel.h"
#include "np_udp_config.h"
#include "np_udp_lanecpu.h"
#include "np_udp_syscount.h"
#include "np_udp_transport.h"

#define NP_UDP_MAX_ERRNOS 8

/* Counters of one phase (warm-up or measurement), summed over threads. */
struct np_udp_counters {
  uint64_t sent;               /* client datagrams the kernel accepted     */
  uint64_t server_received;    /* datagrams the server read                */
  uint64_t server_replied;     /* echoes the kernel accepted               */
  uint64_t received;           /* replies matched to an outstanding message */
  uint64_t content_errors;     /* matched replies whose bytes differ       */
  uint64_t sequence_errors;    /* duplicates, stale or reordered replies   */
  uint64_t send_errors;        /* client sends refused                     */
  uint64_t server_send_errors; /* echo sends refused                       */
  uint64_t truncated;          /* datagrams cut by MSG_TRUNC               */
  uint64_t cross_thread;       /* requests a server socket got from a client
                                  on another thread (payload >= 12 only)   */
  /* the kinds inside sequence_errors and content_errors (--connect reports
   * them; sequence = duplicates + reordered + stale, content = wrong_length
   * + corrupted) */
  uint64_t duplicates;         /* a reply to a message already answered    */
  uint64_t reordered;          /* answered after a later message was       */
  uint64_t stale;              /* a reply to nothing the client knows of:
                                  never sent, given up so long ago that its
                                  record was overwritten, or too short to
                                  carry a seq                              */
  uint64_t wrong_length;       /* matched reply of another length (or cut by
                                  MSG_TRUNC)                               */
  uint64_t corrupted;          /* matched reply of the right length whose
                                  bytes differ                             */
  /* open loop (--rate): scheduled = sent + dropped_by_client + send_errors */
  uint64_t scheduled;          /* messages that came due                   */
  uint64_t dropped_by_client;  /* due while --max-outstanding were in flight:
                                  not sent                                 */
  uint64_t late_sends;         /* left more than 1 ms after their due time */
  uint64_t expired;            /* outstanding when their ring slot was
                                  needed again: given up                   */
  uint64_t timed_out;          /* closed loop: given up when the reply
                                  timeout passed (their slot reused)       */
  uint64_t late;               /* replies to a message given up (timed out
                                  or expired): arrived, but not counted in
                                  received, nor as lost or stale           */
  int64_t late_max_ns;         /* the latest late reply's time from its
                                  (intended) send (a max, not a sum)       */
  int64_t timeout_wait_ns;     /* slot time spent waiting on messages that
                                  then timed out                          */
  int errnos[NP_UDP_MAX_ERRNOS];         /* errno values seen on sends      */
  uint64_t errno_counts[NP_UDP_MAX_ERRNOS];
};

/* Record one refused send under its errno (first NP_UDP_MAX_ERRNOS kinds;
 * further kinds are folded into the last slot). */
void np_udp_counters_note_errno(struct np_udp_counters *c, int errnum,
                                uint64_t n);
void np_udp_counters_add(struct np_udp_counters *dst,
                         const struct np_udp_counters *src);

enum np_udp_role { NP_UDP_ROLE_SERVER, NP_UDP_ROLE_CLIENT };

struct np_udp_sock_report {
  enum np_udp_role role;
  uint32_t index;        /* server or client index                      */
  uint32_t lane;         /* thread that served it                       */
  int rcvbuf_requested, rcvbuf_effective;
  int sndbuf_requested, sndbuf_effective;
  uint64_t drops_before; /* SO_MEMINFO drops at measurement start       */
  uint64_t drops_after;  /* ... at the end of the drain                 */
  int64_t rxq_ovfl_last; /* latest SO_RXQ_OVFL cmsg value, -1 n/a       */
  /* server sockets: what the lane serving it counted in the measured
   * phase (one server socket per lane; the serve record's per-socket
   * counters) */
  uint64_t received, replied, send_errors, truncated;
};

struct np_udp_target; /* np_udp_target.h: the --connect target via /proc */

struct np_udp_result {
  struct np_udp_counters warmup;   /* warm-up phase incl. its drain      */
  struct np_udp_counters measure;  /* measurement phase incl. its drain  */
  uint64_t warmup_lost;            /* warm-up messages never answered    */
  struct np_hist *rtt_ns;          /* measurement RTTs, merged; owned (open
                                      loop: from the intended send time) */
  struct np_hist *service_ns;      /* open loop: from the actual send;
                                      owned, NULL in closed loop          */
  struct np_hist *send_lag_ns;     /* open loop: actual - intended send;
                                      owned, NULL in closed loop          */
  double warmup_seconds;           /* warm-up as run (without its drain) */
  double measure_seconds;          /* measurement as run                 */
  double drain_seconds;            /* drain as run                       */
  double drain_bound_seconds;      /* the drain's time limit             */
  int drain_complete;              /* 1 = every message answered or
                                      dropped by the kernel            */
  double cpu_user_seconds, cpu_sys_seconds; /* over measurement+drain    */
  int64_t rss_max_bytes;
  uint32_t nsocks;
  struct np_udp_sock_report *socks; /* servers first, then clients; owned */
  struct np_bench_run run;          /* times, signal, kernel snapshots
                                       (before/after measurement+drain)  */
  uint32_t lanes;                   /* threads used                       */
  uint32_t rx_batch_server, rx_batch_client, tx_batch;
  uint64_t work_digest;             /* xor of --work results (keeps work) */
  int reuseport_steered;            /* 1 = cBPF steering by client id     */
  struct np_udp_target *target;     /* --connect: the target's socket and
                                       process as /proc saw them before and
                                       after; owned, NULL otherwise       */
  uint16_t bound_port;              /* serve: the port the server bound   */
  int64_t timeout_min_ns;           /* closed loop: the reply timeouts in */
  int64_t timeout_max_ns;           /* force while measured (0 = none)    */
  struct np_bench_intervals intervals; /* --interval's time series; owned */
  struct np_udp_syscount sys_before; /* --count-syscalls: at measurement
                                       start ...                          */
  struct np_udp_syscount sys_after;  /* ... and at the end of the drain   */
  struct np_udp_lanecpu lanecpu;    /* clients-only modes: each lane's CPU
                                       over the measured window           */
  struct np_udp_loop_info transport; /* the first lane's set-up (every lane
                                        asks for the same), sync_sends
                                        summed over lanes                 */
};

/* Run the benchmark under the controller ctl (opened by the caller, see
 * np_bench_ctl_open).  cfg->mode picks the ends: both (loopback); the
 * clients alone against cfg->address:port, whose socket and process are
 * observed through /proc (res->target); or the server alone bound to
 * cfg->address:port, serving until a signal or cfg->max_seconds (one
 * measured phase, no warm-up, no drain).  On success *res is filled (free with
 * np_udp_result_free) - also for runs whose data checks will fail.
 * Returns NP_E* for environment failures (sockets, threads, memory, a
 * kernel snapshot); *res then holds nothing to free. */
int np_udp_run(const struct np_udp_config *cfg, struct np_bench_ctl *ctl,
               struct np_udp_result *res, struct np_errbuf *eb);

void np_udp_result_free(struct np_udp_result *res); /* accepts NULL */

#endif /* NP_UDP_RUN_H */
