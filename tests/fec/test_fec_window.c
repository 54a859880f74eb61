/*
 * test_fec_window - the sliding-window RLC codec (bench/fec/np_fec_win.h,
 * np_fec_rlc.h) and the FEC endpoint's window mode:
 *   - TinyMT32 against RFC 8682's test vector (seed 1), the RFC 8681
 *     coefficient generator (dense: never 0; sparse: zeros appear;
 *     deterministic per key);
 *   - exact cases: one loss and one repair; a burst of 3 losses and the 3
 *     repairs after it; repair before its sources; redundant repairs;
 *   - window bounds: a source that leaves the decoding window unknown is
 *     lost and its equations dropped, a repair older than the window is
 *     late, ESIs wrap past 2^16;
 *   - malformed repair headers are refused;
 *   - randomized: many seeds of random W, lengths, loss of sources and
 *     repairs, duplicates and reordering; every rebuilt datagram is
 *     byte-exact and was really missing, and the counters add up;
 *   - the np_fec endpoint in window mode: wire headers, recovery through
 *     cb.recovered, repair rate following the peer's loss reports.
 */
#include <stdlib.h>
#include <string.h>

#include "fec_test_util.h"
#include "np_fec_rlc.h"
#include "np_fec_win.h"

#define SYM_MAX 1194u
#define NMAX 4096u

/* ---- datagram of ESI i: u32 i, then bytes derived from (i, seed) ---- */
static size_t dg_len(uint32_t i, uint64_t seed, size_t max) {
  uint64_t s = seed ^ (i * 0x9e3779b97f4a7c15ull);
  return 8 + (size_t)(rng_next(&s) % (max - 7));
}
static void dg_fill(uint32_t i, uint64_t seed, uint8_t *d, size_t len) {
  uint64_t s = seed ^ (i * 0xd1b54a32d192ed03ull);
  for (size_t j = 0; j < len; j++)
    d[j] = (uint8_t)rng_next(&s);
  d[0] = (uint8_t)(i >> 24);
  d[1] = (uint8_t)(i >> 16);
  d[2] = (uint8_t)(i >> 8);
  d[3] = (uint8_t)i;
}

struct rx {
  uint64_t seed;
  size_t max;
  uint8_t got[NMAX];      /* 1 received, 2 rebuilt                      */
  unsigned rebuilt;
};

static void rx_cb(void *ud, const uint8_t *buf, size_t len) {
  struct rx *r = ud;
  ASSERT_GE(len, 8);
  uint32_t i = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 |
               (uint32_t)buf[2] << 8 | buf[3];
  ASSERT_LT(i, NMAX);
  ASSERT_EQ(r->got[i], 0); /* only what was really missing is rebuilt */
  uint8_t want[SYM_MAX];
  size_t wl = dg_len(i, r->seed, r->max);
  ASSERT_EQ(len, wl);
  dg_fill(i, r->seed, want, wl);
  ASSERT_TRUE(memcmp(buf, want, len) == 0);
  r->got[i] = 2;
  r->rebuilt++;
}

struct pair {
  struct np_fec_win_enc *enc;
  struct np_fec_win_dec *dec;
  struct rx *rx;
  uint8_t *rep;
};

static struct pair pair_new(unsigned w, size_t max, uint64_t seed) {
  struct pair p;
  p.rx = calloc(1, sizeof *p.rx);
  ASSERT_NOT_NULL(p.rx);
  p.rx->seed = seed;
  p.rx->max = max;
  ASSERT_OK(np_fec_win_enc_new(w, max, &p.enc));
  ASSERT_OK(np_fec_win_dec_new(max, rx_cb, p.rx, &p.dec));
  p.rep = malloc(np_fec_win_sym_cap(max));
  ASSERT_NOT_NULL(p.rep);
  return p;
}

static void pair_free(struct pair *p) {
  np_fec_win_enc_free(p->enc);
  np_fec_win_dec_free(p->dec);
  free(p->rx);
  free(p->rep);
}

/* Encode source i; deliver it unless lost. */
static void send_src(struct pair *p, uint32_t i, int lost) {
  uint8_t d[SYM_MAX];
  size_t len = dg_len(i, p->rx->seed, p->rx->max);
  dg_fill(i, p->rx->seed, d, len);
  uint16_t esi;
  ASSERT_OK(np_fec_win_enc_add(p->enc, d, len, &esi));
  ASSERT_EQ(esi, (uint16_t)i);
  if (!lost) {
    np_fec_win_dec_source(p->dec, esi, d, len);
    if (p->rx->got[i] == 0)
      p->rx->got[i] = 1;
  }
}

static void send_rep(struct pair *p, int lost) {
  struct np_fec_win_repair r;
  ASSERT_OK(np_fec_win_enc_repair(p->enc, p->rep, &r));
  if (!lost)
    ASSERT_OK(np_fec_win_dec_repair(p->dec, &r, p->rep));
}

static void test_tinymt32_vector(void) {
  /* RFC 8682 section 2.2: the first outputs for seed 1 */
  static const uint32_t want[10] = {2545341989u, 981918433u,  3715302833u,
                                    2387538352u, 3591001365u, 3820442102u,
                                    2114400566u, 2196103051u, 2783359912u,
                                    764534509u};
  struct np_tinymt32 s;
  np_tinymt32_init(&s, 1);
  for (unsigned i = 0; i < 10; i++)
    ASSERT_UINT_EQ(np_tinymt32_next(&s), want[i]);
}

static void test_coefs(void) {
  uint8_t a[32], b[32], c[32];
  unsigned zeros = 0, differ = 0;
  for (unsigned key = 0; key < 200; key++) {
    np_fec_rlc_coefs((uint16_t)key, a, 32, NP_FEC_RLC_DT_DENSE);
    np_fec_rlc_coefs((uint16_t)key, b, 32, NP_FEC_RLC_DT_DENSE);
    np_fec_rlc_coefs((uint16_t)(key + 1), c, 32, NP_FEC_RLC_DT_DENSE);
    ASSERT_TRUE(memcmp(a, b, 32) == 0);
    differ += memcmp(a, c, 32) != 0;
    for (unsigned i = 0; i < 32; i++)
      ASSERT_NE(a[i], 0);
    np_fec_rlc_coefs((uint16_t)key, a, 32, 7); /* density 8/16 */
    for (unsigned i = 0; i < 32; i++)
      zeros += a[i] == 0;
  }
  ASSERT_EQ(differ, 200);
  /* about half of 6,400 coefficients are zero at dt = 7 */
  ASSERT_GT(zeros, 2800);
  ASSERT_LT(zeros, 3600);
}

static void test_exact(void) {
  struct np_fec_win_dec_stats st;
  /* one loss, one repair after it */
  struct pair p = pair_new(16, SYM_MAX, 11);
  for (uint32_t i = 0; i < 8; i++)
    send_src(&p, i, i == 5);
  send_rep(&p, 0);
  ASSERT_EQ(p.rx->got[5], 2);
  ASSERT_EQ(p.rx->rebuilt, 1);
  /* a repair with nothing missing is redundant */
  send_rep(&p, 0);
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.redundant, 1);
  ASSERT_EQ(st.eq_live, 0);
  pair_free(&p);

  /* burst of 3 lost, then 2 repairs (not enough), then a third */
  p = pair_new(16, SYM_MAX, 12);
  for (uint32_t i = 0; i < 12; i++)
    send_src(&p, i, i >= 6 && i <= 8);
  send_rep(&p, 0);
  send_rep(&p, 0);
  ASSERT_EQ(p.rx->rebuilt, 0);
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.eq_live, 2);
  send_rep(&p, 0);
  ASSERT_EQ(p.rx->rebuilt, 3);
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.eq_live, 0);
  pair_free(&p);

  /* skipped (bare) sources: the next repair covers only what follows, and
   * a repair claiming a bare source is refused */
  p = pair_new(16, SYM_MAX, 14);
  for (uint32_t i = 0; i < 4; i++)
    send_src(&p, i, 0);
  uint16_t skip_esi;
  np_fec_win_enc_skip(p.enc, &skip_esi);
  ASSERT_EQ(skip_esi, 4);
  np_fec_win_dec_bare(p.dec, skip_esi);
  p.rx->got[4] = 1;
  ASSERT_EQ(np_fec_win_enc_count(p.enc), 0);
  for (uint32_t i = 5; i < 8; i++)
    send_src(&p, i, i == 6);
  struct np_fec_win_repair rr;
  uint8_t rpay[2048];
  ASSERT_OK(np_fec_win_enc_repair(p.enc, rpay, &rr));
  ASSERT_EQ(rr.fss, 5);
  ASSERT_EQ(rr.nss, 3);
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &rr, rpay));
  ASSERT_EQ(p.rx->got[6], 2);
  rr.fss = 3; /* a forged repair over the bare ESI 4 */
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &rr, rpay));
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.malformed, 1);
  ASSERT_EQ(st.recovered, 1);
  pair_free(&p);

  /* repairs first, the surviving sources after them */
  p = pair_new(8, 300, 13);
  uint8_t d[8][SYM_MAX];
  size_t len[8];
  struct np_fec_win_repair r[2];
  uint8_t rp[2][2048];
  for (uint32_t i = 0; i < 8; i++) {
    len[i] = dg_len(i, 13, 300);
    dg_fill(i, 13, d[i], len[i]);
    ASSERT_OK(np_fec_win_enc_add(p.enc, d[i], len[i], NULL));
  }
  ASSERT_OK(np_fec_win_enc_repair(p.enc, rp[0], &r[0]));
  ASSERT_OK(np_fec_win_enc_repair(p.enc, rp[1], &r[1]));
  ASSERT_NE(r[0].key, r[1].key);
  ASSERT_EQ(r[0].nss, 8);
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &r[1], rp[1]));
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &r[0], rp[0]));
  for (uint32_t i = 0; i < 8; i++)
    if (i != 2 && i != 7) {
      np_fec_win_dec_source(p.dec, (uint16_t)i, d[i], len[i]);
      p.rx->got[i] = p.rx->got[i] ? p.rx->got[i] : 1;
    }
  ASSERT_EQ(p.rx->got[2], 2);
  ASSERT_EQ(p.rx->got[7], 2);
  /* the originals arriving late are duplicates, nothing breaks */
  np_fec_win_dec_source(p.dec, 2, d[2], len[2]);
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.dup, 1);
  ASSERT_EQ(st.recovered, 2);
  pair_free(&p);
}

/* Datagrams of one repeated byte, 8..57 bytes long (the wrap test). */
static void flat_cb(void *ud, const uint8_t *buf, size_t len) {
  (void)ud;
  ASSERT_GE(len, 8);
  ASSERT_LE(len, 57);
  for (size_t i = 1; i < len; i++)
    ASSERT_EQ(buf[i], buf[0]);
}

static void test_window_bounds(void) {
  struct np_fec_win_dec_stats st;
  struct pair p = pair_new(16, 200, 21);
  /* source 3 lost, a repair too few: the equation waits */
  for (uint32_t i = 0; i < 6; i++)
    send_src(&p, i, i == 3 || i == 4);
  send_rep(&p, 0); /* 2 unknowns, 1 equation */
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.eq_live, 1);
  /* keep the old window's repair to replay it later */
  struct np_fec_win_repair old;
  uint8_t oldp[512];
  ASSERT_OK(np_fec_win_enc_repair(p.enc, oldp, &old));
  /* NP_FEC_WIN_DW more sources, none lost: 3 and 4 leave unknown */
  for (uint32_t i = 6; i < 6 + NP_FEC_WIN_DW; i++)
    send_src(&p, i, 0);
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.lost, 2);
  ASSERT_EQ(st.missing, 2);
  ASSERT_EQ(st.runs, 1); /* 3 and 4: one run of two */
  ASSERT_EQ(st.expected, 6 + NP_FEC_WIN_DW - NP_FEC_WIN_DW); /* 0..5 left */
  ASSERT_EQ(st.dropped_eq, 1);
  ASSERT_EQ(st.eq_live, 0);
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &old, oldp));
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.late_repair, 1);
  ASSERT_EQ(p.rx->rebuilt, 0);
  pair_free(&p);

  /* ESIs wrap past 2^16 (enc and dec both 16-bit on the wire) */
  p = pair_new(4, 64, 22);
  np_fec_win_dec_free(p.dec);
  ASSERT_OK(np_fec_win_dec_new(64, flat_cb, NULL, &p.dec));
  uint8_t d[64];
  for (uint32_t i = 0; i < 70000; i++) {
    size_t len = 8 + i % 50;
    memset(d, (int)((i * 7) & 0xff), len);
    uint16_t esi;
    ASSERT_OK(np_fec_win_enc_add(p.enc, d, len, &esi));
    if (i % 4 != 1)
      np_fec_win_dec_source(p.dec, esi, d, len);
    if (i % 4 == 3) {
      struct np_fec_win_repair r;
      ASSERT_OK(np_fec_win_enc_repair(p.enc, p.rep, &r));
      ASSERT_OK(np_fec_win_dec_repair(p.dec, &r, p.rep));
    }
  }
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.recovered, 70000 / 4);
  ASSERT_EQ(st.lost, 0);
  pair_free(&p);
}

static void test_malformed(void) {
  struct pair p = pair_new(16, 100, 31);
  struct np_fec_win_repair r = {.fss = 0, .key = 1, .nss = 0, .len = 50};
  uint8_t pay[256] = {0};
  ASSERT_EQ(np_fec_win_dec_repair(p.dec, &r, pay), NP_EPARSE);
  r.nss = NP_FEC_WIN_MAX_W + 1;
  ASSERT_EQ(np_fec_win_dec_repair(p.dec, &r, pay), NP_EPARSE);
  r.nss = 4;
  r.len = 2 + 100 + 1;
  ASSERT_EQ(np_fec_win_dec_repair(p.dec, &r, pay), NP_EPARSE);
  r.len = 2;
  ASSERT_EQ(np_fec_win_dec_repair(p.dec, &r, pay), NP_EPARSE);
  uint16_t esi;
  ASSERT_EQ(np_fec_win_enc_add(p.enc, pay, 101, &esi), NP_EMSGSIZE);
  ASSERT_EQ(np_fec_win_enc_add(p.enc, pay, 0, &esi), NP_EINVAL);
  ASSERT_EQ(np_fec_win_enc_repair(p.enc, p.rep, &r), NP_ENOENT);
  struct np_fec_win_enc *e = NULL;
  ASSERT_EQ(np_fec_win_enc_new(0, 100, &e), NP_EINVAL);
  ASSERT_EQ(np_fec_win_enc_new(NP_FEC_WIN_MAX_W + 1, 100, &e), NP_EINVAL);
  /* a repair whose payload is garbage: whatever it rebuilds has a length
   * the decoder refuses or is handed up only for a missing ESI */
  for (uint32_t i = 0; i < 4; i++)
    send_src(&p, i, i == 2);
  r.fss = 0;
  r.nss = 4;
  r.key = 77;
  r.len = 60;
  memset(pay, 0xff, sizeof pay);
  ASSERT_OK(np_fec_win_dec_repair(p.dec, &r, pay));
  struct np_fec_win_dec_stats st;
  np_fec_win_dec_get_stats(p.dec, &st);
  ASSERT_EQ(st.malformed, 1); /* the rebuilt length prefix is junk */
  ASSERT_EQ(st.recovered, 0);
  pair_free(&p);
}

/* Random W, loss of sources and repairs, repair every few sources; the
 * callback checks every rebuilt datagram byte for byte. */
static void test_randomized(void) {
  uint64_t total_lost = 0, total_rebuilt = 0;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    uint64_t s = seed * 7919;
    unsigned w = 1 + (unsigned)(rng_next(&s) % NP_FEC_WIN_MAX_W);
    size_t max = 8 + (size_t)(rng_next(&s) % (SYM_MAX - 8));
    unsigned loss_pct = (unsigned)(rng_next(&s) % 20);
    unsigned every = 1 + (unsigned)(rng_next(&s) % 6);
    struct pair p = pair_new(w, max, seed);
    unsigned n = 1500;
    uint32_t hi = 0; /* newest ESI the decoder saw */
    for (uint32_t i = 0; i < n; i++) {
      /* source 0 always arrives: accounting starts at the first ESI seen */
      int lost = rng_next(&s) % 100 < loss_pct && i > 0;
      send_src(&p, i, lost);
      hi = lost ? hi : i;
      if (i % every == every - 1) {
        int rlost = rng_next(&s) % 100 < loss_pct;
        send_rep(&p, rlost);
        hi = rlost ? hi : i;
      }
      if (rng_next(&s) % 50 == 0 && i > 0 && p.rx->got[i - 1] == 1) {
        uint8_t d[SYM_MAX]; /* a duplicate of the previous source */
        size_t len = dg_len(i - 1, seed, max);
        dg_fill(i - 1, seed, d, len);
        np_fec_win_dec_source(p.dec, (uint16_t)(i - 1), d, len);
      }
    }
    struct np_fec_win_dec_stats st;
    np_fec_win_dec_get_stats(p.dec, &st);
    unsigned lost = 0, rebuilt = 0;
    for (uint32_t i = 0; i < n; i++) {
      lost += p.rx->got[i] != 1;
      rebuilt += p.rx->got[i] == 2;
    }
    ASSERT_EQ(rebuilt, p.rx->rebuilt);
    ASSERT_EQ(st.recovered, rebuilt);
    ASSERT_EQ(st.malformed, 0);
    /* every repair that was neither late nor redundant became one
     * equation, and every equation ended rebuilt, dropped, emptied by
     * later sources, or is still held */
    ASSERT_EQ(st.repair_in - st.late_repair - st.redundant,
              st.recovered + st.dropped_eq + st.emptied + st.eq_live);
    /* of the ESIs that left the window, missing = not received, lost =
     * neither received nor rebuilt */
    ASSERT_EQ(st.expected, hi + 1 - NP_FEC_WIN_DW);
    unsigned miss_left = 0, lost_left = 0;
    for (uint32_t i = 0; i + NP_FEC_WIN_DW <= hi; i++) {
      miss_left += p.rx->got[i] != 1;
      lost_left += p.rx->got[i] == 0;
    }
    ASSERT_EQ(st.missing, miss_left);
    ASSERT_EQ(st.lost, lost_left);
    /* with a repair every source and light loss nearly all come back */
    if (every == 1 && loss_pct < 10)
      ASSERT_LE(lost_left * 50, miss_left + 50);
    total_lost += lost;
    total_rebuilt += rebuilt;
    pair_free(&p);
  }
  ASSERT_GT(total_lost, 1000);
  ASSERT_GT(total_rebuilt * 2, total_lost); /* most losses were rebuilt */
}

/* ---- the np_fec endpoint in window mode ---- */
static void test_endpoint(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.mode = NP_FEC_WINDOW;
  cfg.window = 8;
  cfg.policy.initial_m = 4; /* 4 of 8 -> 4 repairs per 8 sources */
  ASSERT_EQ(np_fec_data_max(&cfg), cfg.mtu - NP_FEC_RESERVE_WINDOW);
  ASSERT_EQ(np_fec_reserve(NP_FEC_WINDOW), 8);
  struct cap *ca = calloc(1, sizeof *ca), *cb = calloc(1, sizeof *cb);
  ASSERT_NOT_NULL(ca);
  ASSERT_NOT_NULL(cb);
  struct np_fec *a = fec_make(&cfg, ca), *b = fec_make(&cfg, cb);
  uint64_t seed = 5;
  uint8_t d[16][1192];
  size_t len[16];
  for (unsigned i = 0; i < 16; i++) {
    len[i] = 1 + rng_next(&seed) % np_fec_data_max(&cfg);
    make_datagram(&seed, d[i], len[i]);
    ASSERT_OK(np_fec_send(a, d[i], len[i], 0));
  }
  /* 16 sources + 8 repairs (every 2nd source) */
  ASSERT_EQ(ca->n, 24);
  unsigned src = 0, rep = 0;
  for (size_t i = 0; i < ca->n; i++) {
    if (ca->buf[i][0] == 0xd0) {
      ASSERT_EQ(ca->len[i], NP_FEC_HDR_DATA + len[src]);
      ASSERT_EQ((ca->buf[i][1] << 8 | ca->buf[i][2]), src);
      src++;
    } else {
      ASSERT_EQ(ca->buf[i][0], 0xf0);
      ASSERT_LE(ca->len[i], cfg.mtu);
      rep++;
    }
  }
  ASSERT_EQ(src, 16);
  ASSERT_EQ(rep, 8);
  ASSERT_EQ(np_fec_send(a, d[0], np_fec_data_max(&cfg) + 1, 0), NP_EMSGSIZE);
  /* lose sources 3, 4 and 10; everything else arrives */
  const uint8_t *o;
  size_t olen;
  src = 0;
  for (size_t i = 0; i < ca->n; i++) {
    int is_src = ca->buf[i][0] == 0xd0;
    if (is_src && (src == 3 || src == 4 || src == 10)) {
      src++;
      continue;
    }
    int k = np_fec_input(b, ca->buf[i], ca->len[i], 0, &o, &olen);
    if (is_src) {
      ASSERT_EQ(k, NP_FEC_IN_DATA);
      ASSERT_EQ(olen, len[src]);
      ASSERT_TRUE(memcmp(o, d[src], olen) == 0);
      src++;
    } else {
      ASSERT_EQ(k, NP_FEC_IN_PARITY);
    }
  }
  ASSERT_EQ(cb->nrec, 3);
  const unsigned want[3] = {3, 4, 10};
  for (unsigned j = 0; j < 3; j++) {
    int found = 0;
    for (size_t i = 0; i < cb->nrec; i++)
      found |= cb->rec_len[i] == len[want[j]] &&
               memcmp(cb->rec[i], d[want[j]], len[want[j]]) == 0;
    ASSERT_TRUE(found);
  }
  struct np_fec_stats st;
  np_fec_get_stats(b, &st);
  ASSERT_EQ(st.recovered, 3);
  ASSERT_EQ(st.parity_in, 8);
  ASSERT_EQ(st.window, 8);
  /* a window datagram at a block-mode endpoint is malformed */
  struct np_fec_config bc;
  np_fec_config_defaults(&bc);
  struct cap *cc = calloc(1, sizeof *cc);
  ASSERT_NOT_NULL(cc);
  struct np_fec *blk = fec_make(&bc, cc);
  ASSERT_EQ(np_fec_input(blk, ca->buf[0], ca->len[0], 0, &o, &olen),
            NP_EPARSE);
  np_fec_free(blk);
  free(cc);

  /* the repair rate follows reports: no loss -> it falls to min_m */
  np_fec_loss_report(a, 100000, 0);
  for (int i = 0; i < 40; i++)
    np_fec_loss_report(a, 1000, 0);
  np_fec_get_stats(a, &st);
  ASSERT_EQ(st.repair_per_window, 0);
  ca->n = 0;
  for (unsigned i = 0; i < 16; i++)
    ASSERT_OK(np_fec_send(a, d[i], len[i], 0));
  ASSERT_EQ(ca->n, 16); /* no repairs at rate 0 */
  ASSERT_EQ(np_fec_deadline(a), UINT64_MAX);
  for (size_t i = 0; i < ca->n; i++) { /* bare: passed up, not kept */
    ASSERT_EQ(ca->buf[i][0], 0xd1);
    ASSERT_EQ(np_fec_input(b, ca->buf[i], ca->len[i], 0, &o, &olen),
              NP_FEC_IN_DATA);
    ASSERT_EQ(olen, len[i]);
    ASSERT_TRUE(memcmp(o, d[i], olen) == 0);
  }
  /* 20 % loss -> the rate rises to at least 3 per 8 */
  for (int i = 0; i < 40; i++)
    np_fec_loss_report(a, 1000, 200);
  np_fec_get_stats(a, &st);
  ASSERT_GE(st.repair_per_window, 3);
  ASSERT_GT(st.policy_changes, 1);
  /* tail repair: one source, then the wait passes */
  ca->n = 0;
  ASSERT_OK(np_fec_send(a, d[0], len[0], 1000));
  ASSERT_EQ(ca->n, 1);
  ASSERT_EQ(np_fec_deadline(a), 1000 + cfg.wait_ns);
  np_fec_on_timer(a, 1000 + cfg.wait_ns);
  ASSERT_EQ(ca->n, 2);
  ASSERT_EQ(ca->buf[1][0], 0xf0);
  np_fec_get_stats(a, &st);
  ASSERT_EQ(st.repair_tail, 1);
  np_fec_free(a);
  np_fec_free(b);
  free(ca);
  free(cb);
}

/* A loss report as the peer's decoder sends it (np_fec.h): cumulative
 * source symbols expected / missing and, in window mode, loss runs. */
static void feed_report(struct np_fec *f, uint32_t exp, uint32_t lost,
                        uint16_t runs) {
  uint8_t d[NP_FEC_HDR_REPORT] = {0x90};
  d[1] = (uint8_t)(exp >> 24), d[2] = (uint8_t)(exp >> 16);
  d[3] = (uint8_t)(exp >> 8), d[4] = (uint8_t)exp;
  d[5] = (uint8_t)(lost >> 24), d[6] = (uint8_t)(lost >> 16);
  d[7] = (uint8_t)(lost >> 8), d[8] = (uint8_t)lost;
  d[9] = (uint8_t)(runs >> 8), d[10] = (uint8_t)runs;
  const uint8_t *o;
  size_t olen;
  ASSERT_EQ(np_fec_input(f, d, sizeof d, 0, &o, &olen), NP_FEC_IN_REPORT);
}

/* The same 3 % loss asks for more repair when it comes in runs of 3
 * (the burst profile) than when every loss is alone. */
static void test_runs_controller(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.mode = NP_FEC_WINDOW;
  cfg.policy.target = 0.05;
  struct cap *c1 = calloc(1, sizeof *c1), *c2 = calloc(1, sizeof *c2);
  ASSERT_NOT_NULL(c1);
  ASSERT_NOT_NULL(c2);
  struct np_fec *lone = fec_make(&cfg, c1), *burst = fec_make(&cfg, c2);
  for (uint32_t i = 1; i <= 40; i++) {
    feed_report(lone, 1000 * i, 30 * i, (uint16_t)(30 * i));
    feed_report(burst, 1000 * i, 30 * i, (uint16_t)(10 * i));
  }
  struct np_fec_stats s1, s2;
  np_fec_get_stats(lone, &s1);
  np_fec_get_stats(burst, &s2);
  ASSERT_DBL_NEAR(s1.policy_loss, 0.03, 0.002);
  ASSERT_DBL_NEAR(s2.policy_loss, 0.03, 0.002);
  /* W = 16, p = 3 %, target 5 %: alone m = 2 (P(Bin(18, .03) > 2) =
   * 1.7 %); runs of 3: events at 1 %, m = 3 covers one event
   * (P(Bin(19, .01) > 1) = 1.5 %), m = 2 covers none (17 %) */
  ASSERT_EQ(s1.repair_per_window, 2);
  ASSERT_EQ(s2.repair_per_window, 3);
  np_fec_free(lone);
  np_fec_free(burst);
  free(c1);
  free(c2);
}

int main(void) {
  test_tinymt32_vector();
  test_coefs();
  test_exact();
  test_window_bounds();
  test_malformed();
  test_randomized();
  test_endpoint();
  test_runs_controller();
  puts("test_fec_window: ok");
  return 0;
}
