/*
 * test_fec_groups - group mechanics of the FEC endpoint: partial groups
 * closed by the wait timer, the parity-ratio cap, the memory budget on
 * both sides, duplicates and parity before data, unrecoverable groups
 * (by lag and by timeout), late shards, malformed input, mode none, and
 * the JSON view of the counters.
 */
#include <stdlib.h>

#include "fec_test_util.h"

#define MS 1000000ull

struct pair {
  struct cap *ctx, *crx;
  struct np_fec *tx, *rx;
};

static void pair_open(struct pair *p, const struct np_fec_config *cfg) {
  p->ctx = calloc(1, sizeof *p->ctx);
  p->crx = calloc(1, sizeof *p->crx);
  ASSERT_NOT_NULL(p->ctx);
  ASSERT_NOT_NULL(p->crx);
  p->tx = fec_make(cfg, p->ctx);
  p->rx = fec_make(cfg, p->crx);
}

static void pair_close(struct pair *p) {
  np_fec_free(p->tx);
  np_fec_free(p->rx);
  free(p->ctx);
  free(p->crx);
}

/* Feed captured datagram i to rx; returns the kind. */
static int feed(struct pair *p, size_t i, uint64_t now) {
  const uint8_t *o;
  size_t olen;
  return np_fec_input(p->rx, p->ctx->buf[i], p->ctx->len[i], now, &o, &olen);
}

static void test_partial_group_by_timer(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 1;
  uint8_t d[4][1000];
  for (unsigned i = 0; i < 4; i++) {
    make_datagram(&seed, d[i], sizeof d[i]);
    ASSERT_OK(np_fec_send(p.tx, d[i], sizeof d[i], 100 * MS + i));
  }
  ASSERT_EQ(p.ctx->n, 4);
  ASSERT_UINT_EQ(p.ctx->len[0], 1003); /* 3-byte data header */
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), 102 * MS);
  np_fec_on_timer(p.tx, 101 * MS); /* too early: nothing */
  ASSERT_EQ(p.ctx->n, 4);
  np_fec_on_timer(p.tx, 102 * MS);
  /* 2 parity: 2 x 1002 <= 50 % of 4 x 1002. */
  ASSERT_EQ(p.ctx->n, 6);
  ASSERT_UINT_EQ(p.ctx->len[4], 4 + 1002);
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), UINT64_MAX);
  struct np_fec_stats st;
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.groups_partial, 1);
  ASSERT_UINT_EQ(st.parity_sent, 2);
  ASSERT_UINT_EQ(st.ratio_binds, 0);
  /* Lose data 0 and 2: both come back. */
  ASSERT_EQ(feed(&p, 1, 110 * MS), NP_FEC_IN_DATA);
  ASSERT_EQ(feed(&p, 3, 110 * MS), NP_FEC_IN_DATA);
  ASSERT_EQ(feed(&p, 4, 110 * MS), NP_FEC_IN_PARITY);
  ASSERT_EQ(p.crx->nrec, 0);
  ASSERT_EQ(feed(&p, 5, 110 * MS), NP_FEC_IN_PARITY);
  ASSERT_EQ(p.crx->nrec, 2);
  ASSERT_UINT_EQ(p.crx->rec_len[0], 1000);
  ASSERT_TRUE(memcmp(p.crx->rec[0], d[0], 1000) == 0);
  ASSERT_TRUE(memcmp(p.crx->rec[1], d[2], 1000) == 0);
  /* A late send after the wait closes the stale group first. */
  p.ctx->n = 0;
  ASSERT_OK(np_fec_send(p.tx, d[0], 1000, 200 * MS));
  ASSERT_OK(np_fec_send(p.tx, d[1], 1000, 203 * MS));
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.groups_encoded, 2);
  ASSERT_UINT_EQ(st.groups_no_parity, 1); /* k = 1: the ratio allows none */
  ASSERT_UINT_EQ(st.ratio_binds, 1);
  pair_close(&p);
}

static void test_ratio_cap(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.group = 3;
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 2;
  uint8_t d[1194];
  /* k = 3, equal lengths: 2 x L > 50 % of 3 x L, so m = 1. */
  for (unsigned i = 0; i < 3; i++) {
    make_datagram(&seed, d, 500);
    ASSERT_OK(np_fec_send(p.tx, d, 500, 0));
  }
  ASSERT_EQ(p.ctx->n, 4);
  struct np_fec_stats st;
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.ratio_binds, 1);
  ASSERT_UINT_EQ(st.parity_hist[1], 1);
  /* Padding-heavy: one 1,194 B and two 10 B datagrams -> no parity. */
  make_datagram(&seed, d, sizeof d);
  ASSERT_OK(np_fec_send(p.tx, d, sizeof d, 0));
  ASSERT_OK(np_fec_send(p.tx, d, 10, 0));
  ASSERT_OK(np_fec_send(p.tx, d, 10, 0));
  ASSERT_EQ(p.ctx->n, 7);
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.ratio_binds, 2);
  ASSERT_UINT_EQ(st.groups_no_parity, 1);
  /* Parity bytes never exceeded 50 % of data shard bytes. */
  ASSERT_LE(st.parity_bytes - st.parity_sent * NP_FEC_HDR_PARITY,
            (st.data_bytes + 2 * st.data_sent) / 2);
  pair_close(&p);
}

static void test_duplicates_and_parity_first(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 3;
  uint8_t d[8][1100];
  for (unsigned i = 0; i < 8; i++) {
    make_datagram(&seed, d[i], 100 + 100 * i);
    ASSERT_OK(np_fec_send(p.tx, d[i], 100 + 100 * i, 0));
  }
  ASSERT_EQ(p.ctx->n, 10);
  /* Parity first, twice each; then data 2..7 twice; data 0, 1 lost. */
  ASSERT_EQ(feed(&p, 8, 0), NP_FEC_IN_PARITY);
  ASSERT_EQ(feed(&p, 8, 0), NP_FEC_IN_PARITY);
  ASSERT_EQ(feed(&p, 9, 0), NP_FEC_IN_PARITY);
  ASSERT_EQ(feed(&p, 9, 0), NP_FEC_IN_PARITY);
  for (size_t i = 2; i < 8; i++) {
    ASSERT_EQ(feed(&p, i, 0), NP_FEC_IN_DATA);
    ASSERT_EQ(feed(&p, i, 0), NP_FEC_IN_DATA); /* passes again: ARQ dedups */
  }
  ASSERT_EQ(p.crx->nrec, 2);
  ASSERT_UINT_EQ(p.crx->rec_len[0], 100);
  ASSERT_TRUE(memcmp(p.crx->rec[0], d[0], 100) == 0);
  ASSERT_UINT_EQ(p.crx->rec_len[1], 200);
  ASSERT_TRUE(memcmp(p.crx->rec[1], d[1], 200) == 0);
  /* The originals arriving late: passed through, never recovered twice. */
  ASSERT_EQ(feed(&p, 0, 0), NP_FEC_IN_DATA);
  ASSERT_EQ(feed(&p, 1, 0), NP_FEC_IN_DATA);
  ASSERT_EQ(p.crx->nrec, 2);
  struct np_fec_stats st;
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.dup_shards, 2 + 6 + 2);
  ASSERT_UINT_EQ(st.recovered, 2);
  ASSERT_UINT_EQ(st.groups_recovered, 1);
  ASSERT_UINT_EQ(st.retained_bytes, 0); /* done: buffers released */
  np_fec_on_timer(p.rx, 1000 * MS);
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.unrecoverable, 0);
  ASSERT_UINT_EQ(st.shards_expected, 10);
  ASSERT_UINT_EQ(st.shards_lost, 0); /* everything arrived, some late */
  pair_close(&p);
}

/* A lone datagram would close with m = 0 (ratio cap): no wake-up for it;
 * a second one makes parity possible and arms the wait; a lone group left
 * open is closed by the next send after its wait. */
static void test_lazy_close(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 11;
  uint8_t d[4][1000];
  for (unsigned i = 0; i < 4; i++)
    make_datagram(&seed, d[i], sizeof d[i]);
  struct np_fec_stats st;
  ASSERT_OK(np_fec_send(p.tx, d[0], sizeof d[0], 300 * MS));
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), UINT64_MAX);
  ASSERT_OK(np_fec_send(p.tx, d[1], sizeof d[1], 301 * MS));
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), 302 * MS);
  np_fec_on_timer(p.tx, 302 * MS);
  ASSERT_EQ(p.ctx->n, 3); /* 2 data + 1 parity (50 % of 2 x 1002) */
  ASSERT_OK(np_fec_send(p.tx, d[2], sizeof d[2], 400 * MS));
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), UINT64_MAX);
  ASSERT_OK(np_fec_send(p.tx, d[3], sizeof d[3], 500 * MS));
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.groups_encoded, 2); /* the lone 400 ms group closed */
  ASSERT_UINT_EQ(st.groups_no_parity, 1);
  pair_close(&p);
}

static void test_unrecoverable(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.final_lag = 4;
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 4;
  uint8_t d[600];
  /* Group 0: 3 data lost of 8+2 -> unrecoverable, final by timeout. */
  for (unsigned i = 0; i < 8; i++) {
    make_datagram(&seed, d, sizeof d);
    ASSERT_OK(np_fec_send(p.tx, d, sizeof d, 0));
  }
  for (size_t i = 3; i < 10; i++)
    feed(&p, i, 5 * MS);
  struct np_fec_stats st;
  np_fec_get_stats(p.rx, &st);
  ASSERT_GT(st.retained_bytes, 0);
  /* Finality by time is checked on the 50 ms report tick: the group
   * (first shard at 5 ms) becomes final on the first tick >= 105 ms. */
  ASSERT_UINT_EQ(np_fec_deadline(p.rx), 50 * MS);
  uint64_t t = 0;
  for (int i = 0; i < 5 && st.groups_final == 0; i++) {
    t = np_fec_deadline(p.rx);
    np_fec_on_timer(p.rx, t);
    np_fec_get_stats(p.rx, &st);
  }
  ASSERT_UINT_EQ(t, 150 * MS);
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.unrecoverable, 1);
  ASSERT_UINT_EQ(st.groups_final, 1);
  ASSERT_UINT_EQ(st.shards_lost, 3);
  ASSERT_UINT_EQ(st.retained_bytes, 0);
  ASSERT_EQ(p.crx->nrec, 0);
  /* A late shard of the final group: passed through, counted late. */
  ASSERT_EQ(feed(&p, 0, 151 * MS), NP_FEC_IN_DATA);
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.late_shards, 1);
  /* Group 1: lose data 0 and every parity; final by lag when group 5
   * arrives.  Row 0 is known missing (row 1 arrived). */
  p.ctx->n = 0;
  for (unsigned g = 1; g <= 5; g++)
    for (unsigned i = 0; i < 8; i++)
      ASSERT_OK(np_fec_send(p.tx, d, sizeof d, 200 * MS));
  for (size_t i = 1; i < 8; i++)
    feed(&p, i, 200 * MS);
  feed(&p, 4 * 10, 201 * MS); /* first shard of group 5 */
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.unrecoverable, 2);
  ASSERT_UINT_EQ(st.groups_final, 2);
  pair_close(&p);
}

static void test_budget_rx(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.budget = 16 * 1024;
  struct pair p;
  pair_open(&p, &cfg);
  uint8_t d[1000];
  uint64_t seed = 5;
  /* Groups lose data 7 and both parity: each keeps 7 x 1002 B waiting. */
  for (unsigned g = 0; g < 6; g++) {
    p.ctx->n = 0;
    for (unsigned i = 0; i < 8; i++) {
      make_datagram(&seed, d, sizeof d);
      ASSERT_OK(np_fec_send(p.tx, d, sizeof d, g * MS));
    }
    for (size_t i = 0; i < 7; i++)
      ASSERT_EQ(feed(&p, i, g * MS), NP_FEC_IN_DATA);
  }
  struct np_fec_stats st;
  np_fec_get_stats(p.rx, &st);
  ASSERT_GT(st.budget_binds, 0);
  ASSERT_GT(st.rx_evictions, 0);
  ASSERT_LE(st.retained_peak, cfg.budget);
  ASSERT_LE(st.retained_bytes, cfg.budget);
  pair_close(&p);
}

static void test_budget_tx(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.budget = 4000; /* three 1,002 B shards fit, four do not */
  cfg.parity = 1;
  struct pair p;
  pair_open(&p, &cfg);
  uint8_t d[1000];
  uint64_t seed = 6;
  for (unsigned i = 0; i < 8; i++) {
    make_datagram(&seed, d, sizeof d);
    ASSERT_OK(np_fec_send(p.tx, d, sizeof d, 0));
  }
  struct np_fec_stats st;
  np_fec_get_stats(p.tx, &st);
  ASSERT_GT(st.budget_binds, 0);
  ASSERT_GE(st.groups_encoded, 2); /* closed early to stay in budget */
  ASSERT_LE(st.retained_peak, cfg.budget);
  ASSERT_UINT_EQ(st.data_sent + st.plain_sent, 8);
  pair_close(&p);
}

/* A data row that arrives while the budget is full passes through without
 * a buffer; when parity later completes the group, only the row that was
 * really lost may be handed up as recovered (not the one already passed). */
static void test_budget_row_not_recovered_twice(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.budget = 2400; /* the minimum: two 1,200 B datagrams */
  struct pair p;
  pair_open(&p, &cfg);
  uint64_t seed = 9;
  uint8_t d[8][100], big[1194];
  for (unsigned i = 0; i < 8; i++) {
    make_datagram(&seed, d[i], sizeof d[i]);
    ASSERT_OK(np_fec_send(p.tx, d[i], sizeof d[i], 0));
  }
  ASSERT_EQ(p.ctx->n, 10); /* 8 data + 2 parity */
  for (size_t i = 0; i < 6; i++)
    ASSERT_EQ(feed(&p, i, 0), NP_FEC_IN_DATA); /* 6 x 102 B kept */
  /* The receiver's own open send group takes the rest of the budget. */
  make_datagram(&seed, big, sizeof big);
  ASSERT_OK(np_fec_send(p.rx, big, 1194, 0)); /* 1,196 B */
  ASSERT_OK(np_fec_send(p.rx, big, 550, 0));  /* 552 B: 2,360 in all */
  struct np_fec_stats st;
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.retained_bytes, 2360);
  ASSERT_EQ(feed(&p, 6, 0), NP_FEC_IN_DATA); /* passes up, no buffer */
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.retained_bytes, 2360);
  ASSERT_GT(st.budget_binds, 0);
  np_fec_flush(p.rx, 0); /* the send group leaves: room again */
  /* Row 7 lost; both parity shards arrive and complete the group. */
  ASSERT_EQ(feed(&p, 8, 0), NP_FEC_IN_PARITY);
  ASSERT_EQ(feed(&p, 9, 0), NP_FEC_IN_PARITY);
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.groups_recovered, 1);
  ASSERT_UINT_EQ(st.recovered, 1);
  ASSERT_EQ(p.crx->nrec, 1);
  ASSERT_EQ(p.crx->rec_len[0], sizeof d[7]);
  ASSERT_EQ(memcmp(p.crx->rec[0], d[7], sizeof d[7]), 0);
  pair_close(&p);
}

static void test_malformed_and_plain(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  struct pair p;
  pair_open(&p, &cfg);
  const uint8_t *o;
  size_t olen;
  uint8_t ack[22] = {0x02};
  ASSERT_EQ(np_fec_input(p.rx, ack, sizeof ack, 0, &o, &olen),
            NP_FEC_IN_PLAIN);
  ASSERT_TRUE(o == ack && olen == sizeof ack);
  uint8_t short_data[3] = {0x10, 0, 0};
  ASSERT_EQ(np_fec_input(p.rx, short_data, 3, 0, &o, &olen), NP_EPARSE);
  uint8_t bad_parity[10] = {0x50 | 9, 0, 0, 0x00, 1, 2, 3, 4, 5, 6};
  ASSERT_EQ(np_fec_input(p.rx, bad_parity, 10, 0, &o, &olen), NP_EPARSE);
  bad_parity[3] = 0x82; /* k 8, m 2, row 9: fine */
  ASSERT_EQ(np_fec_input(p.rx, bad_parity, 10, 0, &o, &olen),
            NP_FEC_IN_PARITY);
  bad_parity[0] = 0x50 | 3; /* row below k */
  ASSERT_EQ(np_fec_input(p.rx, bad_parity, 10, 0, &o, &olen), NP_EPARSE);
  uint8_t bad_report[5] = {0x90, 0, 0, 0, 1};
  ASSERT_EQ(np_fec_input(p.rx, bad_report, 5, 0, &o, &olen), NP_EPARSE);
  uint8_t bad_kind[8] = {0xd0};
  ASSERT_EQ(np_fec_input(p.rx, bad_kind, 8, 0, &o, &olen), NP_EPARSE);
  struct np_fec_stats st;
  np_fec_get_stats(p.rx, &st);
  ASSERT_UINT_EQ(st.malformed, 5);
  /* Send-side checks. */
  uint8_t big[1200] = {0x01};
  ASSERT_EQ(np_fec_send(p.tx, big, 1195, 0), NP_EMSGSIZE);
  ASSERT_OK(np_fec_send(p.tx, big, 1194, 0));
  big[0] = 0x11;
  ASSERT_EQ(np_fec_send(p.tx, big, 100, 0), NP_EINVAL);
  ASSERT_EQ(np_fec_send(p.tx, big, 0, 0), NP_EINVAL);
  pair_close(&p);
  /* Mode none: no header, nothing retained. */
  cfg.mode = NP_FEC_NONE;
  pair_open(&p, &cfg);
  big[0] = 0x01;
  ASSERT_OK(np_fec_send(p.tx, big, 500, 0));
  ASSERT_UINT_EQ(p.ctx->len[0], 500);
  ASSERT_UINT_EQ(np_fec_deadline(p.tx), UINT64_MAX);
  np_fec_get_stats(p.tx, &st);
  ASSERT_UINT_EQ(st.plain_sent, 1);
  pair_close(&p);
  /* Bad configuration. */
  np_fec_config_defaults(&cfg);
  cfg.group = 9;
  struct np_fec_callbacks cb = {cap_output, NULL, NULL, NULL};
  struct np_fec *f = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_fec_new(&cfg, &cb, 0, &f, &eb), NP_EINVAL);
  ASSERT_TRUE(f == NULL);
  ASSERT_TRUE(strstr(eb.msg, "--fec-group") != NULL);
  enum np_fec_mode mode;
  ASSERT_OK(np_fec_mode_parse("adaptive", &mode));
  ASSERT_EQ(mode, NP_FEC_ADAPTIVE);
  ASSERT_EQ(np_fec_mode_parse("rs", &mode), NP_EINVAL);
}

static void test_stats_json(void) {
  struct np_fec_stats st;
  memset(&st, 0, sizeof st);
  st.recovered = 7;
  st.parity_hist[2] = 3;
  st.parity_mean = 1.5;
  cJSON *o = np_fec_stats_to_json(&st);
  ASSERT_NOT_NULL(o);
  ASSERT_DBL_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "recovered")),
                  7, 0);
  ASSERT_DBL_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "parity_mean")),
                  1.5, 0);
  cJSON *h = cJSON_GetObjectItem(o, "parity_hist");
  ASSERT_EQ(cJSON_GetArraySize(h), 5);
  ASSERT_DBL_NEAR(cJSON_GetNumberValue(cJSON_GetArrayItem(h, 2)), 3, 0);
  cJSON_Delete(o);
  /* Preallocation is reported and bounded (defaults). */
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  struct cap *c = calloc(1, sizeof *c);
  ASSERT_NOT_NULL(c);
  struct np_fec *f = fec_make(&cfg, c);
  np_fec_get_stats(f, &st);
  fprintf(stderr, "prealloc_bytes %" PRIu64 "\n", st.prealloc_bytes);
  ASSERT_GT(st.prealloc_bytes, 256u * 1200u);
  ASSERT_LT(st.prealloc_bytes, 1u << 20);
  ASSERT_UINT_EQ(st.budget, 1u << 20);
  np_fec_free(f);
  free(c);
}

int main(void) {
  test_partial_group_by_timer();
  test_lazy_close();
  test_ratio_cap();
  test_duplicates_and_parity_first();
  test_unrecoverable();
  test_budget_rx();
  test_budget_tx();
  test_budget_row_not_recovered_twice();
  test_malformed_and_plain();
  test_stats_json();
  puts("test_fec_groups: ok");
  return 0;
}
