/*
 * test_udp_stream_rx.c - the stream receiver's accounting (sans-IO) on
 * sequences written by hand: in order, a gap, a late arrival filling it,
 * a duplicate, one too late to tell, a gap wider than the reorder window;
 * skipped (what --interval differences) never decreasing where gap_lost
 * does; a datagram received before its send time counted; and RFC 3550
 * jitter against a value computed here step by step.
 */
#include <math.h>
#include <string.h>

#include "np_test.h"
#include "np_udp_stream.h"

static void add(struct np_udp_stream_rx *rx, uint64_t seq) {
  int64_t d;
  np_udp_stream_rx_add(rx, seq, 0, 1000, &d);
}

static void test_counts(void) {
  struct np_udp_stream_rx rx;
  memset(&rx, 0, sizeof rx);
  for (uint64_t s = 0; s < 10; s++)
    add(&rx, s);
  ASSERT_UINT_EQ(rx.unique, 10);
  ASSERT_UINT_EQ(rx.gap_lost, 0);
  add(&rx, 13); /* 10, 11, 12 missing */
  ASSERT_UINT_EQ(rx.gap_lost, 3);
  ASSERT_UINT_EQ(rx.skipped, 3);
  add(&rx, 11); /* late: fills one */
  ASSERT_UINT_EQ(rx.out_of_order, 1);
  ASSERT_UINT_EQ(rx.max_displacement, 2);
  ASSERT_UINT_EQ(rx.gap_lost, 2);
  ASSERT_UINT_EQ(rx.skipped, 3); /* never taken back */
  add(&rx, 11); /* again: a duplicate, no effect on loss */
  add(&rx, 13);
  ASSERT_UINT_EQ(rx.duplicates, 2);
  ASSERT_UINT_EQ(rx.gap_lost, 2);
  ASSERT_UINT_EQ(rx.unique, 12);
  add(&rx, 13 + NP_UDP_STREAM_REORDER + 5); /* far ahead */
  ASSERT_UINT_EQ(rx.gap_lost, 2 + NP_UDP_STREAM_REORDER + 4);
  ASSERT_UINT_EQ(rx.skipped, 3 + NP_UDP_STREAM_REORDER + 4);
  add(&rx, 12); /* now more than the window behind */
  ASSERT_UINT_EQ(rx.too_late, 1);
  ASSERT_UINT_EQ(rx.unique, 13);
  ASSERT_UINT_EQ(rx.received, 16);
  /* inside the window after the jump: a new late one is out of order */
  add(&rx, 13 + NP_UDP_STREAM_REORDER + 1);
  ASSERT_UINT_EQ(rx.out_of_order, 2);
  ASSERT_UINT_EQ(rx.max_displacement, 4);
  ASSERT_UINT_EQ(rx.skipped, 3 + NP_UDP_STREAM_REORDER + 4);
}

static void test_jitter(void) {
  struct np_udp_stream_rx rx;
  memset(&rx, 0, sizeof rx);
  const int64_t transit[] = {100, 130, 90, 90, 200, 150};
  double j = 0;
  int64_t d;
  for (size_t i = 0; i < sizeof transit / sizeof transit[0]; i++) {
    np_udp_stream_rx_add(&rx, i, 1000 * (int64_t)i,
                         1000 * (int64_t)i + transit[i], &d);
    if (i == 0) {
      ASSERT_EQ(d, -1);
      continue;
    }
    int64_t want = llabs(transit[i] - transit[i - 1]);
    ASSERT_EQ(d, want);
    j += ((double)want - j) / 16.0;
    ASSERT_DBL_NEAR(rx.jitter_ns, j, 1e-12);
  }
  ASSERT_TRUE(rx.jitter_ns > 0);
}

/* Received before its send time (the realtime clock stepped back):
 * counted and reported to the caller, not hidden. */
static void test_negative(void) {
  struct np_udp_stream_rx rx;
  memset(&rx, 0, sizeof rx);
  int64_t d;
  ASSERT_EQ(np_udp_stream_rx_add(&rx, 0, 1000, 1500, &d), 0);
  ASSERT_EQ(np_udp_stream_rx_add(&rx, 1, 2000, 1900, &d), 1);
  ASSERT_EQ(d, 600); /* |(-100) - 500| still enters the jitter */
  ASSERT_EQ(np_udp_stream_rx_add(&rx, 2, 3000, 3000, &d), 0); /* 0: not */
  ASSERT_UINT_EQ(rx.negative_delay, 1);
  ASSERT_UINT_EQ(rx.unique, 3);
}

int main(void) {
  test_counts();
  test_jitter();
  test_negative();
  return 0;
}
