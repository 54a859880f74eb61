/*
 * test_fec_erasure - every erasure pattern of an 8+4 group, through two
 * endpoints: all 794 subsets of at most 4 lost shards out of 12 are
 * recovered byte-exact with random datagram lengths, surviving shards
 * arriving in a shuffled order (so parity often precedes data); then
 * every pattern of 5 losses is reported unrecoverable.  Also the bare
 * RS codec on the same patterns, and the decode-table cache.
 */
#include <stdlib.h>

#include "fec_test_util.h"
#include "np_fec_rs.h"

struct sent {
  uint8_t d[8][1200];
  size_t len[8];
};

/* Send one 8+4 group with random lengths; returns first output index. */
static size_t send_group(struct np_fec *tx, struct cap *ctx, struct sent *s,
                         uint64_t *seed, uint64_t now) {
  size_t first = ctx->n;
  uint32_t dmax = 1194;
  for (unsigned i = 0; i < 8; i++) {
    s->len[i] = 1 + rng_next(seed) % dmax;
    make_datagram(seed, s->d[i], s->len[i]);
    ASSERT_OK(np_fec_send(tx, s->d[i], s->len[i], now));
  }
  ASSERT_EQ(ctx->n - first, 12); /* 8 data + 4 parity */
  return first;
}

/* Deliver all shards of the group except the `lost` mask, shuffled;
 * check that the 8 datagrams come out (passed or recovered) exactly. */
static void deliver(struct np_fec *rx, struct cap *ctx, struct cap *crx,
                    size_t first, uint32_t lost, const struct sent *s,
                    uint64_t *seed, uint64_t now, int expect_ok) {
  unsigned order[12], n = 0;
  for (unsigned i = 0; i < 12; i++)
    if (!(lost & (1u << i)))
      order[n++] = i;
  for (unsigned i = n; i > 1; i--) {
    unsigned j = (unsigned)(rng_next(seed) % i), t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  int seen[8] = {0};
  crx->nrec = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned row = order[i];
    const uint8_t *o;
    size_t olen;
    int kind = np_fec_input(rx, ctx->buf[first + row], ctx->len[first + row],
                            now, &o, &olen);
    if (row < 8) {
      ASSERT_EQ(kind, NP_FEC_IN_DATA);
      ASSERT_UINT_EQ(olen, s->len[row]);
      ASSERT_TRUE(memcmp(o, s->d[row], olen) == 0);
      seen[row] = 1;
    } else {
      ASSERT_EQ(kind, NP_FEC_IN_PARITY);
    }
  }
  /* Match recovered datagrams to data rows (by content). */
  unsigned lost_data = (unsigned)__builtin_popcount(lost & 0xffu);
  if (!expect_ok) {
    ASSERT_EQ(crx->nrec, 0);
    return;
  }
  /* Shuffled delivery may rebuild a shard that was merely late (k shards
   * arrived before it): then both copies come up, as they should. */
  ASSERT_GE(crx->nrec, lost_data);
  for (size_t r = 0; r < crx->nrec; r++) {
    int found = 0;
    for (unsigned i = 0; i < 8 && !found; i++) {
      if (crx->rec_len[r] == s->len[i] &&
          memcmp(crx->rec[r], s->d[i], s->len[i]) == 0) {
        seen[i] = 1;
        found = 1;
      }
    }
    ASSERT_TRUE(found);
  }
  for (unsigned i = 0; i < 8; i++)
    ASSERT_TRUE(seen[i]);
}

/* Whether the decoder can tell data is missing (np_fec_rx.c): k is known
 * once any parity arrived; without parity only rows below the highest
 * data row seen are known to exist. */
static int unrec_visible(uint32_t lost) {
  if (!(lost & 0xffu))
    return 0;
  if ((lost & 0xf00u) != 0xf00u)
    return 1;
  int top = -1;
  for (int i = 0; i < 8; i++)
    if (!(lost & (1u << i)))
      top = i;
  for (int i = 0; i < top; i++)
    if (lost & (1u << i))
      return 1;
  return 0;
}

static void test_endpoint_patterns(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.parity = 4;
  cfg.ratio_pct = 400; /* this test is about the code, not the cap */
  cfg.final_lag = 8;
  cfg.cache_entries = 64;
  struct cap *ctx = calloc(1, sizeof *ctx), *crx = calloc(1, sizeof *crx);
  ASSERT_NOT_NULL(ctx);
  ASSERT_NOT_NULL(crx);
  struct np_fec *tx = fec_make(&cfg, ctx), *rx = fec_make(&cfg, crx);
  struct sent *s = calloc(1, sizeof *s);
  ASSERT_NOT_NULL(s);
  uint64_t seed = 42, now = 1000;
  unsigned patterns = 0, unrec_patterns = 0;
  for (uint32_t lost = 0; lost < (1u << 12); lost++) {
    int nl = __builtin_popcount(lost);
    if (nl > 5)
      continue;
    ctx->n = 0;
    size_t first = send_group(tx, ctx, s, &seed, now);
    deliver(rx, ctx, crx, first, lost, s, &seed, now, nl <= 4);
    if (nl <= 4)
      patterns++;
    else if (unrec_visible(lost))
      unrec_patterns++;
    now += 1000;
  }
  ASSERT_EQ(patterns, 794);
  /* Finalise everything: a timer far in the future. */
  np_fec_on_timer(rx, now + 10ull * 1000000000ull);
  struct np_fec_stats st;
  np_fec_get_stats(rx, &st);
  ASSERT_UINT_EQ(st.unrecoverable, unrec_patterns);
  ASSERT_GT(st.recovered, 0);
  ASSERT_UINT_EQ(st.malformed, 0);
  ASSERT_UINT_EQ(st.late_shards, 0);
  ASSERT_GT(st.cache_hits, 0); /* 5-loss patterns repeat 4-loss tables? */
  np_fec_get_stats(tx, &st);
  ASSERT_UINT_EQ(st.parity_hist[4], st.groups_encoded);
  ASSERT_UINT_EQ(st.parity_max, 4);
  ASSERT_DBL_NEAR(st.parity_mean, 4.0, 1e-9);
  np_fec_free(tx);
  np_fec_free(rx);
  free(s);
  free(ctx);
  free(crx);
}

/* The bare codec: every pattern of <= 4 losses, shard length 1,196. */
static void test_rs_patterns(void) {
  struct np_fec_rs *rs = NULL;
  ASSERT_OK(np_fec_rs_new(8, &rs));
  enum { L = 1196 };
  static uint8_t shard[12][L], out[8][L];
  uint64_t seed = 7;
  for (unsigned i = 0; i < 8; i++)
    make_datagram(&seed, shard[i], L);
  uint8_t *data[8], *par[4], *outs[12];
  for (unsigned i = 0; i < 8; i++)
    data[i] = shard[i];
  for (unsigned i = 0; i < 4; i++)
    par[i] = shard[8 + i];
  ASSERT_OK(np_fec_rs_encode(rs, 8, 4, L, data, par));
  unsigned n = 0;
  for (uint32_t lost = 0; lost < (1u << 12); lost++) {
    if (__builtin_popcount(lost) > 4)
      continue;
    uint8_t *in[12];
    for (unsigned i = 0; i < 12; i++) {
      in[i] = (lost & (1u << i)) ? NULL : shard[i];
      outs[i] = i < 8 ? out[i] : NULL;
    }
    ASSERT_OK(np_fec_rs_decode(rs, 8, 4, L, in, outs));
    for (unsigned i = 0; i < 8; i++)
      if (lost & (1u << i))
        ASSERT_TRUE(memcmp(out[i], shard[i], L) == 0);
    n++;
  }
  ASSERT_EQ(n, 794);
  /* Five losses: not enough shards. */
  uint8_t *in5[12] = {0};
  for (unsigned i = 5; i < 12; i++)
    in5[i] = shard[i];
  ASSERT_EQ(np_fec_rs_decode(rs, 8, 4, L, in5, outs), NP_ECHECK);
  struct np_fec_rs_stats st;
  np_fec_rs_get_stats(rs, &st);
  ASSERT_GT(st.evictions, 0); /* 8 entries for ~790 patterns */
  /* Same pattern twice in a row: a cache hit. */
  uint64_t hits = st.cache_hits;
  uint8_t *in1[12];
  for (unsigned i = 0; i < 12; i++)
    in1[i] = i == 3 ? NULL : shard[i];
  ASSERT_OK(np_fec_rs_decode(rs, 8, 4, L, in1, outs));
  ASSERT_OK(np_fec_rs_decode(rs, 8, 4, L, in1, outs));
  np_fec_rs_get_stats(rs, &st);
  ASSERT_GE(st.cache_hits, hits + 1);
  np_fec_rs_free(rs);
}

int main(void) {
  test_rs_patterns();
  test_endpoint_patterns();
  puts("test_fec_erasure: ok");
  return 0;
}
