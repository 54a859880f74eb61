/*
 * test_relay_pool.c - the per-route queue pool: an admitted copy always
 * fits (the chunk bound for P packets and B bytes), bytes come back intact
 * through the iovec, released chunks and descriptors are reused last-in
 * first-out (so the touched part stays at the peak), the reservation
 * refuses what it cannot hold, and the heap's reservation means pushes up
 * to it never grow the array.
 */
#include <string.h>

#include "np_err.h"
#include "np_relay_heap.h"
#include "np_relay_pool.h"
#include "np_rng.h"
#include "np_test.h"

static void fill(unsigned char *b, size_t n, uint32_t tag) {
  for (size_t i = 0; i < n; i++)
    b[i] = (unsigned char)(tag * 31u + i);
}

/* The bytes of p, gathered through its iovec, equal what was put. */
static void check_bytes(const struct np_relay_pool *p,
                        const struct np_relay_pkt *k, uint32_t tag) {
  struct iovec iov[NP_RELAY_CHUNKS_MAX];
  unsigned n = np_relay_pool_iov(p, k, iov);
  static unsigned char want[65535];
  fill(want, k->len, tag);
  size_t off = 0;
  for (unsigned i = 0; i < n; i++) {
    ASSERT_EQ(memcmp(iov[i].iov_base, want + off, iov[i].iov_len), 0);
    off += iov[i].iov_len;
  }
  ASSERT_UINT_EQ(off, k->len);
  ASSERT_EQ(n, (k->len + NP_RELAY_CHUNK - 1) / NP_RELAY_CHUNK);
}

/* Worst cases for the bound: all tiny packets, all maximal, a mix. */
static void test_bound(void) {
  static unsigned char buf[65535];
  const uint64_t P = 64, B = 200000;
  size_t sizes[3] = {1, 65535, 0};
  for (int mode = 0; mode < 3; mode++) {
    struct np_relay_pool p;
    ASSERT_OK(np_relay_pool_init(&p, P, B));
    ASSERT_UINT_EQ(p.nchunks, np_relay_pool_chunks_for(P, B));
    struct np_relay_pkt *held[64];
    uint64_t bytes = 0;
    unsigned n = 0;
    struct np_rng rng;
    np_rng_seed(&rng, 5);
    for (;;) {
      size_t len = mode < 2 ? sizes[mode] : 1 + np_rng_next(&rng) % 9000;
      if (n == P || bytes + len > B)
        break; /* what the capacity check admits */
      fill(buf, len, n);
      held[n] = np_relay_pool_put(&p, buf, len, 3, 1);
      ASSERT_NOT_NULL(held[n]); /* an admitted copy always fits */
      bytes += len;
      n++;
    }
    for (unsigned i = 0; i < n; i++) {
      ASSERT_EQ(held[i]->route, 3);
      ASSERT_EQ(held[i]->dir, 1);
      check_bytes(&p, held[i], i);
    }
    for (unsigned i = 0; i < n; i++)
      np_relay_pool_release(&p, held[i]);
    ASSERT_EQ(p.chunks_used, 0);
    ASSERT_EQ(p.pkts_used, 0);
    np_relay_pool_free(&p);
  }
}

/* A descriptor or chunk shortage refuses without taking anything. */
static void test_full(void) {
  static unsigned char buf[8192];
  struct np_relay_pool p;
  ASSERT_OK(np_relay_pool_init(&p, 2, 4096)); /* 2 + 2 chunks */
  struct np_relay_pkt *a = np_relay_pool_put(&p, buf, 4096, 0, 0);
  ASSERT_NOT_NULL(a);
  ASSERT_EQ(p.chunks_used, 2);
  ASSERT_TRUE(np_relay_pool_put(&p, buf, 8192, 0, 0) == NULL); /* chunks */
  ASSERT_EQ(p.chunks_used, 2);
  ASSERT_EQ(p.pkts_used, 1);
  struct np_relay_pkt *b = np_relay_pool_put(&p, buf, 10, 0, 0);
  ASSERT_NOT_NULL(b);
  ASSERT_TRUE(np_relay_pool_put(&p, buf, 10, 0, 0) == NULL); /* descriptors */
  ASSERT_TRUE(np_relay_pool_put(&p, buf, 65536, 0, 0) == NULL); /* > UDP */
  struct np_relay_pkt *z = NULL;
  np_relay_pool_release(&p, b);
  z = np_relay_pool_put(&p, buf, 0, 0, 0); /* an empty datagram */
  ASSERT_NOT_NULL(z);
  struct iovec iov[NP_RELAY_CHUNKS_MAX];
  ASSERT_EQ(np_relay_pool_iov(&p, z, iov), 0);
  np_relay_pool_free(&p);
  ASSERT_EQ(np_relay_pool_init(&p, 0, 100), NP_ERANGE);
  ASSERT_EQ(np_relay_pool_init(&p, 1ull << 32, 100), NP_ERANGE);
  np_relay_pool_free(&p); /* a failed pool is zeroed: freeing is harmless */
}

/* Steady churn at a small queue never touches more than the peak. */
static void test_lifo(void) {
  static unsigned char buf[1500];
  struct np_relay_pool p;
  ASSERT_OK(np_relay_pool_init(&p, 8192, 8u << 20));
  struct np_relay_pkt *q[4] = {0};
  for (int i = 0; i < 100000; i++) {
    if (q[i % 4])
      np_relay_pool_release(&p, q[i % 4]);
    q[i % 4] = np_relay_pool_put(&p, buf, 1200, 0, 0);
    ASSERT_NOT_NULL(q[i % 4]);
  }
  ASSERT_LE(p.chunk_bump, 4); /* never-used chunks were not reached */
  ASSERT_LE(p.pkt_bump, 4);
  np_relay_pool_free(&p);
}

static void test_heap_reserve(void) {
  struct np_relay_heap h;
  static int tag;
  np_relay_heap_init(&h);
  ASSERT_OK(np_relay_heap_reserve(&h, 1000));
  struct np_relay_heap_entry *v = h.v;
  for (int i = 0; i < 1000; i++)
    ASSERT_OK(np_relay_heap_push(&h, (uint64_t)(1000 - i), &tag));
  ASSERT_TRUE(h.v == v); /* no growth up to the reservation */
  ASSERT_UINT_EQ(h.cap, 1000);
  ASSERT_OK(np_relay_heap_reserve(&h, 10)); /* never shrinks */
  ASSERT_UINT_EQ(h.cap, 1000);
  np_relay_heap_free(&h);
}

int main(void) {
  test_bound();
  test_full();
  test_lifo();
  test_heap_reserve();
  puts("test_relay_pool: ok");
  return 0;
}
