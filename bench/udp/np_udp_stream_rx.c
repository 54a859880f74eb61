/*
 * np_udp_stream_rx.c - the receiver's accounting of one stream, sans-IO
 * (see np_udp_stream.h).
 *
 * A bit per sequence over the last NP_UDP_STREAM_REORDER tells a late
 * arrival (out of order: it fills a gap) from a duplicate, which iperf3
 * cannot (it counts both as out of order and takes both off its loss).
 * gap_lost is iperf3's running count: sequences skipped, less late
 * arrivals; skipped is the same without taking late arrivals back, so it
 * never decreases (the --interval series differences it).  Jitter is
 * RFC 3550 section 6.4.1 as iperf3 computes it, in arrival order:
 * D = transit(i) - transit(i-1), J += (|D| - J) / 16, with transit =
 * arrival - send time on the one clock both ends share; a
 * negative transit (the clock stepped back) still enters the jitter, and
 * is counted in negative_delay for the caller to keep out of delays.
 */
#include <stdlib.h>

#include "np_udp_stream.h"

#define BITS NP_UDP_STREAM_REORDER

static void bit_set(struct np_udp_stream_rx *rx, uint64_t seq) {
  rx->seen[(seq % BITS) / 64] |= (uint64_t)1 << (seq % 64);
}

static void bit_clear(struct np_udp_stream_rx *rx, uint64_t seq) {
  rx->seen[(seq % BITS) / 64] &= ~((uint64_t)1 << (seq % 64));
}

static int bit_get(const struct np_udp_stream_rx *rx, uint64_t seq) {
  return (int)(rx->seen[(seq % BITS) / 64] >> (seq % 64) & 1);
}

int np_udp_stream_rx_add(struct np_udp_stream_rx *rx, uint64_t seq,
                         int64_t sent_ns, int64_t arrived_ns,
                         int64_t *delta_ns) {
  rx->received++;
  if (seq >= rx->next) {
    uint64_t gap = seq - rx->next;
    rx->gap_lost += gap;
    rx->skipped += gap;
    if (gap >= BITS)
      for (size_t i = 0; i < BITS / 64; i++)
        rx->seen[i] = 0;
    else
      for (uint64_t s = rx->next; s < seq; s++)
        bit_clear(rx, s);
    bit_set(rx, seq);
    rx->next = seq + 1;
    rx->unique++;
  } else {
    uint64_t behind = rx->next - 1 - seq;
    if (behind >= BITS) {
      rx->too_late++;
    } else if (bit_get(rx, seq)) {
      rx->duplicates++;
    } else {
      bit_set(rx, seq);
      rx->unique++;
      rx->out_of_order++;
      if (rx->gap_lost)
        rx->gap_lost--;
      if (behind > rx->max_displacement)
        rx->max_displacement = behind;
    }
  }
  int64_t transit = arrived_ns - sent_ns;
  *delta_ns = -1;
  if (rx->have_transit) {
    int64_t d = llabs(transit - rx->prev_transit);
    rx->jitter_ns += ((double)d - rx->jitter_ns) / 16.0;
    *delta_ns = d;
  }
  rx->prev_transit = transit;
  rx->have_transit = 1;
  int negative = transit < 0; /* the clock stepped back: counted */
  rx->negative_delay += (uint64_t)negative;
  return negative;
}
