/*
 * np_udp_stream_record.h - the udp-stream kind's pure part (`netproof-bench
 * udp --mode stream`, bench/udp/np_udp_stream.h runs it): the smallest
 * payload the datagram format allows, the run's result as the engine
 * leaves it, the checks over it (the self-check fills their input from a
 * record), the record and the human summary.
 */
#ifndef NP_UDP_STREAM_RECORD_H
#define NP_UDP_STREAM_RECORD_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_intervals.h"
#include "np_bench_record.h"
#include "np_hist.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"

/* datagram bytes 0-24 hold the header (bench/udp/np_udp_stream.h) */
#define NP_UDP_STREAM_MIN_PAYLOAD 32u

/* Counters of one phase, summed over streams. */
struct np_udp_stream_counters {
  uint64_t sent;             /* datagrams the kernel accepted           */
  uint64_t send_calls;       /* sendmmsg / sendmsg calls                */
  uint64_t send_errors;      /* datagrams refused                       */
  uint64_t received, unique, duplicates, out_of_order, too_late;
  uint64_t max_displacement;
  uint64_t gap_lost;
  uint64_t bytes;            /* payload bytes received (unique + dups)  */
  uint64_t content_errors;   /* wrong length, check or stream id        */
  uint64_t truncated;        /* MSG_TRUNC                               */
  uint64_t gro_receives;     /* receives that carried several segments  */
  uint64_t gro_max_segments; /* most segments in one receive            */
  uint64_t negative_delay;   /* received before sent: the clock stepped */
  int errnos[4];
  uint64_t errno_counts[4];
};

struct np_udp_stream_result {
  struct np_udp_stream_counters warmup, measure;
  double warmup_seconds, measure_seconds, drain_seconds;
  int drain_complete;        /* sent = unique + receiver drops          */
  double jitter_us;          /* RFC 3550 J at the end, mean over streams */
  struct np_hist *delay_ns;  /* one-way delay, measurement; owned       */
  struct np_hist *transit_delta_ns; /* |D| behind the jitter; owned     */
  uint64_t rx_drops;         /* receiving socket's sk_drops delta       */
  uint64_t tx_drops;         /* sending sockets' sk_drops delta         */
  int rcvbuf_effective, sndbuf_effective;
  int gso_segments;          /* datagrams per GSO send, 0 = no GSO      */
  int gso_accepted;          /* UDP_SEGMENT set and first send taken    */
  int gro_accepted;          /* getsockopt(UDP_GRO) reads back 1        */
  double cpu_user_seconds, cpu_sys_seconds;
  int64_t rss_max_bytes;
  struct np_bench_run run;   /* times, signal, kernel snapshots         */
  struct np_bench_intervals intervals; /* --interval; owned             */
};

/* What the checks read, as the record holds it (the self-check fills it
 * from a record, np_udp_stream_check_input_json: 0, or -1 without a
 * stream part). */
struct np_udp_stream_check_input {
  uint64_t sent, unique, rx_drops, content_errors, truncated;
  uint64_t duplicates, too_late, send_errors;
  int gso;          /* GSO asked for (segments per send > 0)   */
  int gso_accepted; /* UDP_SEGMENT taken                       */
  int gro_accepted; /* UDP_GRO on                              */
};
void np_udp_stream_check_input_of(const struct np_udp_stream_result *res,
                                  struct np_udp_stream_check_input *out);
int np_udp_stream_check_input_json(const cJSON *record,
                                   struct np_udp_stream_check_input *out);
void np_udp_stream_checks(const struct np_udp_stream_check_input *in,
                          struct np_udp_checks *cs);
int np_udp_stream_record_build(const struct np_udp_config *cfg,
                               const struct np_udp_stream_result *res,
                               const struct np_udp_checks *checks, int argc,
                               char **argv, cJSON **out,
                               struct np_bench_verdict *v,
                               struct np_errbuf *eb);
void np_udp_stream_summary(const struct np_udp_config *cfg,
                           const struct np_udp_stream_result *res,
                           const char *status);

#endif /* NP_UDP_STREAM_RECORD_H */
