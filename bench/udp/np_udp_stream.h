/*
 * np_udp_stream.h - `netproof-bench udp --mode stream`: one-way streams
 * over loopback, iperf3's UDP test with the evidence of the echo mode.
 *
 * A sender thread sends --clients streams (one socket each) at --bitrate
 * or --packet-rate (or as fast as it can) with sendmmsg, --batch
 * datagrams per call, optionally as UDP_SEGMENT (GSO) buffers of --gso
 * bytes; a receiver thread reads one socket with recvmmsg, optionally with
 * UDP_GRO, and counts per stream: datagrams, bytes, loss (sequence gaps,
 * and sent - unique received), duplicates, out-of-order (count and
 * largest displacement), RFC 3550 jitter as iperf3 computes it and the
 * distribution of the transit differences behind it, one-way delay (both
 * ends share this process's CLOCK_REALTIME: the send time stamped before
 * each sendmmsg call, the kernel's SO_TIMESTAMPNS on receipt; a datagram
 * received before its send time, the clock stepped back, is counted in
 * negative_delay, not in the delay histogram).  Loss is matched against
 * the receiving socket's kernel drop counter, as in echo mode.
 *
 * The receiver's accounting is sans-IO (np_udp_stream_rx_*), so tests
 * feed it sequences directly.
 *
 * Datagram (little-endian, --payload >= NP_UDP_STREAM_MIN_PAYLOAD):
 *   0-7 sequence in its stream and phase, 8-11 stream (client) id,
 *   12-15 check = hash of (seed, id, seq, send time), 16-23 send time
 *   (CLOCK_REALTIME ns, stamped just before the sendmmsg call that sends
 *   the datagram), 24 phase (0 warm-up, 1 measurement), 25.. zero.
 */
#ifndef NP_UDP_STREAM_H
#define NP_UDP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_ctl.h"
#include "np_bench_interval.h"
#include "np_err.h"
#include "np_hist.h"
#include "np_udp_config.h"
#include "np_udp_stream_record.h" /* result, checks, record (model/udp) */

#define NP_UDP_STREAM_REORDER 1024u /* seqs behind the newest told apart */

/* ---- the receiver's accounting of one stream (sans-IO) ---- */

struct np_udp_stream_rx {
  uint64_t next;          /* highest sequence seen + 1 (0: none yet)     */
  uint64_t received;      /* datagrams, duplicates included              */
  uint64_t unique;        /* distinct sequences                          */
  uint64_t duplicates;    /* a sequence seen before                      */
  uint64_t out_of_order;  /* arrived after a higher sequence             */
  uint64_t max_displacement; /* largest (newest - seq) of those          */
  uint64_t too_late;      /* more than NP_UDP_STREAM_REORDER behind:
                             cannot be told from a duplicate; not unique */
  uint64_t gap_lost;      /* iperf3's count: gaps, less late arrivals
                             (decreases when a late one fills a gap)     */
  uint64_t skipped;       /* sequences jumped over, never decreasing     */
  uint64_t negative_delay; /* arrived before the send time: clock stepped */
  int64_t prev_transit;   /* RFC 3550: the previous datagram's transit   */
  int have_transit;
  double jitter_ns;       /* RFC 3550 J, in ns                           */
  uint64_t seen[NP_UDP_STREAM_REORDER / 64]; /* bit per recent sequence  */
};

/* One datagram of the stream: seq, its send and arrival times.  The
 * transit difference |D| is written to *delta_ns (-1 for the first).
 * Returns 1 (and counts it in negative_delay) when it arrived before its
 * send time - the shared realtime clock stepped back - so the caller
 * keeps that delay out of its histograms; else 0. */
int np_udp_stream_rx_add(struct np_udp_stream_rx *rx, uint64_t seq,
                         int64_t sent_ns, int64_t arrived_ns,
                         int64_t *delta_ns);

/* ---- the run ---- */

/* Run the stream under the controller.  0 with *res filled (free with
 * np_udp_stream_result_free), or NP_E* for environment failures. */
int np_udp_stream_run(const struct np_udp_config *cfg,
                      struct np_bench_ctl *ctl,
                      struct np_udp_stream_result *res, struct np_errbuf *eb);
void np_udp_stream_result_free(struct np_udp_stream_result *res);

#endif /* NP_UDP_STREAM_H */
