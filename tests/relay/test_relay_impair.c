/*
 * test_relay_impair.c - the relay's decision core without sockets:
 * determinism, stream independence, and the observed rate of every
 * impairment within 3 sigma of the configured one over >= 100,000 packets
 * (seeds 42, 43, 44 as the reference's three rounds).  Also the timer
 * heap's ordering.
 */
#include <math.h>
#include <string.h>

#include "np_relay.h"
#include "np_relay_heap.h"
#include "np_test.h"

#define N_PACKETS 200000u
static const uint64_t seeds[3] = {42, 43, 44};

static void run(struct np_relay_dir_state *st, unsigned n,
                struct np_relay_occupancy *occ) {
  struct np_relay_decision d;
  for (unsigned i = 0; i < n; i++)
    np_relay_decide(st, (uint64_t)i * 1000u, 100, occ, &d);
}

/* |observed - expected| <= 3 sigma, binomial sigma unless given. */
static void assert_3sigma(const char *what, double observed, double p,
                          double n, double sigma) {
  if (sigma <= 0)
    sigma = sqrt(p * (1 - p) / n);
  double z = fabs(observed - p) / sigma;
  printf("%-28s expected %.5f observed %.5f (n %.0f, %.2f sigma)\n", what, p,
         observed, n, z);
  ASSERT_TRUE(z <= 3.0);
}

static void test_determinism(void) {
  struct np_relay_impair im;
  memset(&im, 0, sizeof(im));
  im.loss_pct = 5;
  im.dup_pct = 1;
  im.reorder_pct = 5;
  im.reorder_delay_ns = 15000000;
  im.delay_ns = 10000000;
  im.jitter_ns = 2000000;
  im.burst_n = 3;
  im.burst_m = 100;
  im.ge_enabled = 1;
  im.ge_p = 1;
  im.ge_r = 20;
  im.ge_1h = 80;
  im.rate_bytes = 1000000;
  struct np_relay_dir_state a, b, other_seed, other_route, other_dir;
  np_relay_dir_init(&a, &im, 42, 3, 0);
  np_relay_dir_init(&b, &im, 42, 3, 0);
  np_relay_dir_init(&other_seed, &im, 43, 3, 0);
  np_relay_dir_init(&other_route, &im, 42, 4, 0);
  np_relay_dir_init(&other_dir, &im, 42, 3, 1);
  unsigned diff_seed = 0, diff_route = 0, diff_dir = 0;
  for (unsigned i = 0; i < 50000; i++) {
    uint64_t now = (uint64_t)i * 37000u;
    size_t len = 64 + (i * 7919u) % 1200u;
    struct np_relay_decision da, db, dx, dy, dz;
    np_relay_decide(&a, now, len, NULL, &da);
    np_relay_decide(&b, now, len, NULL, &db);
    np_relay_decide(&other_seed, now, len, NULL, &dx);
    np_relay_decide(&other_route, now, len, NULL, &dy);
    np_relay_decide(&other_dir, now, len, NULL, &dz);
    ASSERT_EQ(da.ncopies, db.ncopies);
    for (unsigned c = 0; c < da.ncopies; c++) {
      ASSERT_EQ(da.copy[c].fate, db.copy[c].fate);
      ASSERT_UINT_EQ(da.copy[c].release_ns, db.copy[c].release_ns);
      ASSERT_EQ(da.copy[c].reordered, db.copy[c].reordered);
    }
    diff_seed += da.copy[0].fate != dx.copy[0].fate ||
                 da.copy[0].release_ns != dx.copy[0].release_ns;
    diff_route += da.copy[0].fate != dy.copy[0].fate ||
                  da.copy[0].release_ns != dy.copy[0].release_ns;
    diff_dir += da.copy[0].fate != dz.copy[0].fate ||
                da.copy[0].release_ns != dz.copy[0].release_ns;
  }
  ASSERT_TRUE(memcmp(&a.counts, &b.counts, sizeof(a.counts)) == 0);
  ASSERT_GT(diff_seed, 1000);
  ASSERT_GT(diff_route, 1000);
  ASSERT_GT(diff_dir, 1000);
}

/* Switching jitter/reordering on must not change which packets are lost. */
static void test_stream_independence(void) {
  struct np_relay_impair plain, fancy;
  memset(&plain, 0, sizeof(plain));
  plain.loss_pct = 5;
  fancy = plain;
  fancy.jitter_ns = 1000000;
  fancy.delay_ns = 5000000;
  fancy.reorder_pct = 5;
  struct np_relay_dir_state a, b;
  np_relay_dir_init(&a, &plain, 42, 0, 0);
  np_relay_dir_init(&b, &fancy, 42, 0, 0);
  for (unsigned i = 0; i < 20000; i++) {
    struct np_relay_decision da, db;
    np_relay_decide(&a, i, 100, NULL, &da);
    np_relay_decide(&b, i, 100, NULL, &db);
    ASSERT_EQ(da.copy[0].fate, db.copy[0].fate);
  }
}

static void test_random_loss_dup_reorder(void) {
  struct np_relay_impair im;
  memset(&im, 0, sizeof(im));
  im.loss_pct = 5;
  im.dup_pct = 1;
  im.reorder_pct = 5;
  im.reorder_delay_ns = 15000000;
  for (int s = 0; s < 3; s++) {
    struct np_relay_dir_state st;
    np_relay_dir_init(&st, &im, seeds[s], 0, 0);
    run(&st, N_PACKETS, NULL);
    const struct np_relay_counts *c = &st.counts;
    ASSERT_UINT_EQ(c->received, N_PACKETS);
    ASSERT_UINT_EQ(c->loss_stage, c->received + c->duplicated);
    ASSERT_UINT_EQ(c->queued + c->lost_random, c->loss_stage);
    assert_3sigma("random loss 5%", (double)c->lost_random / c->loss_stage,
                  0.05, c->loss_stage, 0);
    assert_3sigma("duplicate 1%", (double)c->duplicated / c->received, 0.01,
                  c->received, 0);
    assert_3sigma("reorder 5%", (double)c->reordered / c->queued, 0.05,
                  c->queued, 0);
  }
}

/* Exactly burst_n consecutive losses in every window of burst_m. */
static void test_burst(void) {
  struct np_relay_impair im;
  memset(&im, 0, sizeof(im));
  im.burst_n = 3;
  im.burst_m = 100;
  for (int s = 0; s < 3; s++) {
    struct np_relay_dir_state st;
    np_relay_dir_init(&st, &im, seeds[s], 1, 1);
    unsigned lost_in_window = 0, first = 0, last = 0;
    for (unsigned i = 0; i < N_PACKETS; i++) {
      struct np_relay_decision d;
      np_relay_decide(&st, i, 100, NULL, &d);
      unsigned pos = i % 100;
      if (pos == 0)
        lost_in_window = 0;
      if (d.copy[0].fate == NP_RELAY_LOST_BURST) {
        if (lost_in_window == 0)
          first = pos;
        last = pos;
        lost_in_window++;
      }
      if (pos == 99) {
        ASSERT_EQ(lost_in_window, 3);
        ASSERT_EQ(last - first, 2); /* consecutive */
      }
    }
    ASSERT_UINT_EQ(st.counts.lost_burst, N_PACKETS / 100 * 3);
    assert_3sigma("burst 3/100", (double)st.counts.lost_burst / N_PACKETS,
                  0.03, N_PACKETS, 0);
  }
}

/* sustained: burst 3/100 plus 2 % random on the rest. */
static void test_sustained(void) {
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  ASSERT_OK(np_relay_profile_apply(&cfg, "sustained", NULL));
  for (int s = 0; s < 3; s++) {
    struct np_relay_dir_state st;
    np_relay_dir_init(&st, &cfg.dir[0], seeds[s], 0, 0);
    run(&st, N_PACKETS, NULL);
    const struct np_relay_counts *c = &st.counts;
    uint64_t rest = c->loss_stage - c->lost_burst;
    ASSERT_GE(c->lost_burst, c->loss_stage / 100 * 3);
    ASSERT_LE(c->lost_burst, c->loss_stage / 100 * 3 + 3);
    assert_3sigma("sustained random 2% of rest",
                  (double)c->lost_random / rest, 0.02, rest, 0);
  }
}

/* Sigma of the mean of a GE loss sequence: Bernoulli noise in each state
 * plus the Markov chain's correlated part, lag-1 autocorrelation 1-p-r. */
static double ge_sigma(const struct np_relay_impair *im, double n) {
  double p = im->ge_p / 100, r = im->ge_r / 100;
  double pb = p / (p + r), pg = 1 - pb;
  double qb = im->ge_1h / 100, qg = im->ge_1k / 100;
  double lambda = 1 - p - r;
  double var = pb * qb * (1 - qb) + pg * qg * (1 - qg) +
               (qb - qg) * (qb - qg) * pb * pg * (1 + lambda) / (1 - lambda);
  return sqrt(var / n);
}

static void test_gilbert_elliott(void) {
  struct np_relay_impair cases[3];
  memset(cases, 0, sizeof(cases));
  /* Simple Gilbert: lose everything while BAD. */
  cases[0].ge_enabled = 1;
  cases[0].ge_p = 1;
  cases[0].ge_r = 10;
  cases[0].ge_1h = 100;
  /* Full GE: partial loss in both states. */
  cases[1].ge_enabled = 1;
  cases[1].ge_p = 2;
  cases[1].ge_r = 25;
  cases[1].ge_1h = 60;
  cases[1].ge_1k = 1;
  /* tc's default r = 1 - p (Bernoulli-like). */
  cases[2].ge_enabled = 1;
  cases[2].ge_p = 5;
  cases[2].ge_r = 95;
  cases[2].ge_1h = 100;
  for (int k = 0; k < 3; k++) {
    double expect = np_relay_ge_stationary_loss(&cases[k]);
    for (int s = 0; s < 3; s++) {
      struct np_relay_dir_state st;
      np_relay_dir_init(&st, &cases[k], seeds[s], 0, 0);
      unsigned n = 1000000;
      run(&st, n, NULL);
      assert_3sigma("gemodel stationary loss",
                    (double)st.counts.lost_ge / n, expect, n,
                    ge_sigma(&cases[k], n));
    }
  }
  ASSERT_DBL_NEAR(np_relay_ge_stationary_loss(&cases[0]), 1.0 / 11.0, 1e-12);
}

static void test_jitter_rate_queue(void) {
  struct np_relay_impair im;
  memset(&im, 0, sizeof(im));
  im.delay_ns = 10000000;
  im.jitter_ns = 2000000;
  struct np_relay_dir_state st;
  np_relay_dir_init(&st, &im, 42, 0, 0);
  double sum = 0;
  for (unsigned i = 0; i < N_PACKETS; i++) {
    struct np_relay_decision d;
    np_relay_decide(&st, 1000, 100, NULL, &d);
    uint64_t delay = d.copy[0].release_ns - 1000;
    ASSERT_GE(delay, 8000000);
    ASSERT_LT(delay, 12000000);
    sum += (double)delay;
  }
  /* Uniform on 4 ms: sigma of the mean = 4e6 / sqrt(12 n). */
  assert_3sigma("jitter mean (ms)", sum / N_PACKETS / 1e6, 10.0, N_PACKETS,
                4.0 / sqrt(12.0 * N_PACKETS));

  /* Rate 1 MB/s, 1000-byte packets all arriving at t=0: 1 ms apart. */
  memset(&im, 0, sizeof(im));
  im.rate_bytes = 1000000;
  np_relay_dir_init(&st, &im, 42, 0, 0);
  for (unsigned i = 0; i < 100; i++) {
    struct np_relay_decision d;
    np_relay_decide(&st, 0, 1000, NULL, &d);
    ASSERT_UINT_EQ(d.copy[0].release_ns, (uint64_t)(i + 1) * 1000000u);
  }
  ASSERT_EQ(st.counts.rate_paced, 99);

  /* Capacity: 10 packets / 1,000 bytes; tail drop counted as overflow. */
  memset(&im, 0, sizeof(im));
  im.delay_ns = 1000;
  np_relay_dir_init(&st, &im, 42, 0, 0);
  struct np_relay_occupancy occ = {.cap_packets = 10};
  run(&st, 15, &occ);
  ASSERT_EQ(st.counts.overflow, 5);
  ASSERT_EQ(occ.packets, 10);
  struct np_relay_occupancy occ2 = {.cap_bytes = 1000};
  np_relay_dir_init(&st, &im, 42, 0, 0);
  run(&st, 15, &occ2); /* 100 bytes each */
  ASSERT_EQ(st.counts.overflow, 5);
  ASSERT_EQ(occ2.bytes, 1000);
  /* A shared bound: room for 7 copies of cost 128, the rest overflow. */
  struct np_relay_occupancy occ3 = {.mem_bounded = 1, .mem_room = 7 * 128 + 5,
                                    .mem_cost = 128};
  np_relay_dir_init(&st, &im, 42, 0, 0);
  run(&st, 15, &occ3);
  ASSERT_EQ(st.counts.overflow, 8);
  ASSERT_EQ(occ3.packets, 7);
  ASSERT_UINT_EQ(occ3.mem_room, 5);
}

static void test_heap(void) {
  struct np_relay_heap h;
  np_relay_heap_init(&h);
  struct np_rng rng;
  np_relay_rng_seed(&rng, 7, 0, 0, 0);
  static int tags[5000];
  for (int i = 0; i < 5000; i++) {
    tags[i] = i;
    ASSERT_OK(np_relay_heap_push(&h, np_rng_next(&rng) % 100, &tags[i]));
  }
  struct np_relay_heap_entry e, prev = {0, 0, NULL};
  for (int i = 0; i < 5000; i++) {
    ASSERT_OK(np_relay_heap_pop(&h, &e));
    ASSERT_TRUE(e.release_ns > prev.release_ns ||
                (e.release_ns == prev.release_ns &&
                 (i == 0 || *(int *)e.pkt > *(int *)prev.pkt)));
    prev = e;
  }
  ASSERT_EQ(np_relay_heap_pop(&h, &e), NP_EAGAIN);
  np_relay_heap_free(&h);
}

int main(void) {
  test_determinism();
  test_stream_independence();
  test_random_loss_dup_reorder();
  test_burst();
  test_sustained();
  test_gilbert_elliott();
  test_jitter_rate_queue();
  test_heap();
  printf("relay impair: ok\n");
  return 0;
}
