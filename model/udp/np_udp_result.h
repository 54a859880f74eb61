/*
 * np_udp_result.h - what one udp run (np_udp_run, bench/udp) hands back:
 * the phases' counters, the sockets, the histograms, the set-up of the
 * transport, the system-call and CPU readings.  Plain data: the checks
 * (np_udp_checks.h) and the record builders (np_udp_record.h, ...) read
 * it without linking an engine; np_udp_run fills it and
 * np_udp_result_free (np_udp_run.h) frees what it owns.
 */
#ifndef NP_UDP_RESULT_H
#define NP_UDP_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "np_bench_intervals.h"
#include "np_bench_run.h"
#include "np_hist.h"

/* --count-syscalls: one reading (np_udp_syscount.h); two readings give the
 * measured window's counts. */
struct np_udp_syscount {
  int64_t syscalls;     /* sum over lanes; -1 when the backend cannot count */
  uint64_t voluntary;   /* context switches: the thread blocked             */
  uint64_t involuntary; /* ... the scheduler took the CPU away              */
};

/* Each lane thread's CPU time over the measured window (np_udp_lanecpu.h
 * reads and judges it). */
struct np_udp_lanecpu {
  uint32_t n;        /* lanes                                        */
  int64_t *start_ns; /* thread CPU clock at the window's start; owned */
  int64_t *used_ns;  /* CPU used in the window (-1: clock unreadable) */
};

/* What a loop did and how it was set up, read after loop_run returned
 * (np_udp_transport.h loop_info). */
struct np_udp_loop_info {
  unsigned setup_requested;  /* uring: IORING_SETUP_* bits asked for      */
  unsigned setup_accepted;   /* ... the ones the kernel took              */
  int registered_files;      /* uring: 1 = sockets are registered files   */
  int registered_buffers;    /* uring: 1 = send slots are a registered
                                buffer (WRITE_FIXED on connected sockets) */
  int buffer_ring;           /* uring: 1 = receives use a registered
                                provided-buffer ring                     */
  unsigned ring_entries;     /* uring: submission queue entries           */
  unsigned buffers;          /* uring: buffers in the ring                */
  uint64_t sync_sends;       /* uring: sends made with a plain syscall
                                because every send slot was in flight    */
  unsigned paired_sockets;   /* uring: sockets receiving in lock-step
                                (in-loop pairs; np_udp_uring.c)          */
};

/* Names of the IORING_SETUP_* bits in mask (setup_requested,
 * setup_accepted), ", "-separated, into buf (np_udp_record.c). */
void np_udp_uring_setup_names(unsigned mask, char *buf, size_t len);

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

#endif /* NP_UDP_RESULT_H */
