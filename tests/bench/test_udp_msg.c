/* Unit tests of the UDP benchmark's message format and --work unit. */
#include <stdint.h>
#include <string.h>

#include "np_test.h"
#include "np_udp_msg.h"

static void test_build_verify(void) {
  struct np_udp_msg_gen g, h;
  uint8_t a[1501], b[1501];
  ASSERT_OK(np_udp_msg_gen_init(&g, 7, 3, sizeof a));
  np_udp_msg_build(&g, a, 42, 123456789);
  np_udp_msg_build(&g, b, 42, 123456789);
  ASSERT_EQ(memcmp(a, b, sizeof a), 0); /* deterministic */
  ASSERT_UINT_EQ(np_udp_msg_wire_seq(a, sizeof a), 42);
  ASSERT_EQ(np_udp_msg_verify(&g, a, sizeof a, 42, 123456789), 1);
  /* wrong seq, wrong timestamp, wrong length: rejected */
  ASSERT_EQ(np_udp_msg_verify(&g, a, sizeof a, 43, 123456789), 0);
  ASSERT_EQ(np_udp_msg_verify(&g, a, sizeof a, 42, 123456788), 0);
  ASSERT_EQ(np_udp_msg_verify(&g, a, sizeof a - 1, 42, 123456789), 0);
  /* every single flipped bit anywhere is caught, the last partial word too */
  for (size_t i = 0; i < sizeof a; i += 97) {
    memcpy(b, a, sizeof a);
    b[i] ^= 0x10;
    ASSERT_EQ(np_udp_msg_verify(&g, b, sizeof b, 42, 123456789), 0);
  }
  memcpy(b, a, sizeof a);
  b[sizeof b - 1] ^= 1;
  ASSERT_EQ(np_udp_msg_verify(&g, b, sizeof b, 42, 123456789), 0);
  /* the body differs with seq, and with client and seed */
  np_udp_msg_build(&g, b, 43, 123456789);
  ASSERT_NE(memcmp(a + 24, b + 24, 8), 0);
  ASSERT_NE(memcmp(a + 12, b + 12, 4), 0); /* checksum */
  ASSERT_OK(np_udp_msg_gen_init(&h, 7, 4, sizeof a));
  np_udp_msg_build(&h, b, 42, 123456789);
  ASSERT_NE(memcmp(a + 24, b + 24, sizeof a - 24), 0);
  np_udp_msg_gen_free(&h);
  ASSERT_OK(np_udp_msg_gen_init(&h, 8, 3, sizeof a));
  np_udp_msg_build(&h, b, 42, 123456789);
  ASSERT_NE(memcmp(a + 24, b + 24, sizeof a - 24), 0);
  np_udp_msg_gen_free(&h);
  np_udp_msg_gen_free(&g);
  np_udp_msg_gen_free(NULL);
}

static void test_compact(void) {
  /* payloads shorter than the 24-byte header carry a prefix of it and
   * are still verified byte for byte */
  for (size_t p = 1; p <= 30; p++) {
    struct np_udp_msg_gen g;
    uint8_t buf[64];
    ASSERT_OK(np_udp_msg_gen_init(&g, 1, 2, p));
    memset(buf, 0xEE, sizeof buf);
    np_udp_msg_build(&g, buf, 0x0102030405060708ull, 99);
    ASSERT_EQ(buf[p], 0xEE); /* nothing written past the payload */
    ASSERT_EQ(buf[0], 0x08);  /* little-endian seq first */
    ASSERT_EQ(np_udp_msg_verify(&g, buf, p, 0x0102030405060708ull, 99), 1);
    buf[p - 1] ^= 0x80;
    ASSERT_EQ(np_udp_msg_verify(&g, buf, p, 0x0102030405060708ull, 99), 0);
    np_udp_msg_gen_free(&g);
  }
  ASSERT_EQ(np_udp_msg_seq_bits(1), 8);
  ASSERT_EQ(np_udp_msg_seq_bits(7), 56);
  ASSERT_EQ(np_udp_msg_seq_bits(8), 64);
  ASSERT_EQ(np_udp_msg_seq_bits(65507), 64);
}

static void test_expand_seq(void) {
  /* 8-bit wire: the newest sent is 1000; replies up to 255 back widen */
  for (uint64_t seq = 1000 - 255; seq <= 1000; seq++)
    ASSERT_UINT_EQ(np_udp_msg_expand_seq(1000, seq & 0xFF, 8), seq);
  ASSERT_UINT_EQ(np_udp_msg_expand_seq(5, 5, 64), 5);
  ASSERT_UINT_EQ(np_udp_msg_expand_seq(70000, 70000 & 0xFFFF, 16), 70000);
}

static void test_work(void) {
  uint8_t buf[100];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)i;
  uint64_t w0 = np_udp_work(buf, sizeof buf, 0);
  uint64_t w1 = np_udp_work(buf, sizeof buf, 1);
  uint64_t w2 = np_udp_work(buf, sizeof buf, 2);
  ASSERT_NE(w0, w1);
  ASSERT_NE(w1, w2);
  ASSERT_UINT_EQ(np_udp_work(buf, sizeof buf, 2), w2);
  /* only the first 64 bytes matter; short payloads are zero-padded */
  buf[80] ^= 0xFF;
  ASSERT_UINT_EQ(np_udp_work(buf, sizeof buf, 2), w2);
  uint8_t pad[64] = {1, 2, 3};
  ASSERT_UINT_EQ(np_udp_work(pad, 3, 5), np_udp_work(pad, 64, 5));
}

int main(void) {
  test_build_verify();
  test_compact();
  test_expand_seq();
  test_work();
  return 0;
}
