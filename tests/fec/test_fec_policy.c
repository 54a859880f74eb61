/*
 * test_fec_policy - the adaptive parity policy: the binomial formula,
 * m rising and falling as reported loss changes, hysteresis, counted
 * changes; and end to end, two endpoints whose decoder's loss reports
 * drive the sender's parity up when the link starts losing and down when
 * it stops; bursts (3 consecutive in every 100) that the binomial model
 * underrates raise m to 3 through the reported per-group loss counts, and
 * m falls back once the bursts stop.
 */
#include <math.h>
#include <stdlib.h>

#include "fec_test_util.h"
#include "np_fec_policy.h"

#define MS 1000000ull

static void test_formula(void) {
  /* P(Bin(10, 0.05) > 2) = 1 - (q^10 + 10 p q^9 + 45 p^2 q^8). */
  double p = 0.05, q = 0.95;
  double want = 1 - (pow(q, 10) + 10 * p * pow(q, 9) + 45 * p * p * pow(q, 8));
  ASSERT_DBL_NEAR(np_fec_policy_p_unrecoverable(8, 2, p), want, 1e-12);
  ASSERT_DBL_NEAR(np_fec_policy_p_unrecoverable(8, 0, 0.0), 0.0, 0);
  ASSERT_DBL_NEAR(np_fec_policy_p_unrecoverable(8, 4, 1.0), 1.0, 0);
}

static void test_up_and_down(void) {
  struct np_fec_policy_config cfg;
  np_fec_policy_config_defaults(&cfg);
  struct np_fec_policy pol;
  ASSERT_OK(np_fec_policy_init(&pol, &cfg));
  ASSERT_EQ(pol.m, 1); /* initial */
  /* No loss: falls to 0. */
  for (int i = 0; i < 10; i++)
    np_fec_policy_report(&pol, 1000, 0);
  ASSERT_EQ(pol.m, 0);
  uint64_t c0 = pol.changes;
  ASSERT_EQ(c0, 1);
  /* 5 % loss: 2 parity (P(unrec) 1.2 % < 2 %, with 1 parity 7 %). */
  for (int i = 0; i < 40; i++)
    np_fec_policy_report(&pol, 1000, 50);
  ASSERT_DBL_NEAR(pol.p, 0.05, 0.002);
  ASSERT_EQ(pol.m, 2);
  /* 15 % loss: the cap, 4. */
  for (int i = 0; i < 40; i++)
    np_fec_policy_report(&pol, 1000, 150);
  ASSERT_EQ(pol.m, 4);
  /* Back to 1 %: down to 1, then 0 when loss stops. */
  for (int i = 0; i < 60; i++)
    np_fec_policy_report(&pol, 1000, 10);
  ASSERT_EQ(pol.m, 1);
  for (int i = 0; i < 60; i++)
    np_fec_policy_report(&pol, 1000, 0);
  ASSERT_EQ(pol.m, 0);
  ASSERT_GE(pol.changes, 5);
  /* Small reports move p less than big ones. */
  struct np_fec_policy a, b;
  ASSERT_OK(np_fec_policy_init(&a, &cfg));
  ASSERT_OK(np_fec_policy_init(&b, &cfg));
  np_fec_policy_report(&a, 1000, 0);
  np_fec_policy_report(&b, 1000, 0);
  np_fec_policy_report(&a, 1000, 500);
  np_fec_policy_report(&b, 4, 2);
  ASSERT_TRUE(a.p > b.p);
  /* Bad configuration. */
  cfg.max_m = 5;
  ASSERT_EQ(np_fec_policy_init(&pol, &cfg), NP_EINVAL);
}

static void test_hysteresis(void) {
  struct np_fec_policy_config cfg;
  np_fec_policy_config_defaults(&cfg);
  struct np_fec_policy pol;
  ASSERT_OK(np_fec_policy_init(&pol, &cfg));
  for (int i = 0; i < 40; i++)
    np_fec_policy_report(&pol, 1000, 45);
  ASSERT_EQ(pol.m, 2);
  /* For k = 8 and target 2 %, m = 1 suffices below 2.5 % loss, but m
   * only drops from 2 once m = 1 would meet target / 4 (below 1.2 %):
   * loss wandering between 1.5 % and 2.4 % leaves m at 2. */
  uint64_t c = pol.changes;
  for (int i = 0; i < 200; i++)
    np_fec_policy_report(&pol, 1000, (i & 1) ? 24 : 15);
  ASSERT_EQ(pol.m, 2);
  ASSERT_EQ(pol.changes, c);
  for (int i = 0; i < 40; i++)
    np_fec_policy_report(&pol, 1000, 8);
  ASSERT_EQ(pol.m, 1);
}

/* Group-loss reports: with 3 % loss the binomial model says 2 parity;
 * when 8 % of the groups lose 3 shards (bursts) the policy takes 3, and
 * returns to 2 when the bursts stop. */
static void test_groups_burst(void) {
  struct np_fec_policy_config cfg;
  np_fec_policy_config_defaults(&cfg);
  struct np_fec_policy pol;
  ASSERT_OK(np_fec_policy_init(&pol, &cfg));
  for (int i = 0; i < 40; i++)
    np_fec_policy_report(&pol, 1000, 30);
  ASSERT_EQ(pol.m, 2);
  uint64_t burst[5] = {20, 12, 8, 0, 0}; /* of 100 groups */
  for (int i = 0; i < 40; i++)
    np_fec_policy_groups(&pol, 100, burst);
  ASSERT_EQ(pol.m, 3);
  ASSERT_DBL_NEAR(pol.q[2], 0.08, 0.005);
  /* a report of few groups moves q little */
  uint64_t none[5] = {0, 0, 0, 0, 0};
  np_fec_policy_groups(&pol, 1, none);
  ASSERT_EQ(pol.m, 3);
  uint64_t indep[5] = {20, 2, 0, 0, 0};
  for (int i = 0; i < 60; i++)
    np_fec_policy_groups(&pol, 100, indep);
  ASSERT_EQ(pol.m, 2);
  ASSERT_GE(pol.changes, 2);
}

/* End to end: A sends to B through a lossy link; B's reports reach A. */
struct link {
  struct cap *ca, *cb;
  struct np_fec *a, *b;
};

/* loss_per_mille >= 1000 means bursts: 3 consecutive datagrams lost in
 * every 100 (counted by *pos across calls). */
static void pump(struct link *l, uint64_t now, unsigned loss_per_mille,
                 uint64_t *seed) {
  static uint64_t pos;
  uint8_t d[800];
  const uint8_t *o;
  size_t olen;
  for (int i = 0; i < 64; i++) {
    make_datagram(seed, d, sizeof d);
    ASSERT_OK(np_fec_send(l->a, d, sizeof d, now));
  }
  np_fec_flush(l->a, now);
  for (size_t i = 0; i < l->ca->n; i++, pos++) {
    int lost = loss_per_mille >= 1000 ? pos % 100 >= 37 && pos % 100 < 40
                                      : rng_next(seed) % 1000 < loss_per_mille;
    if (!lost)
      np_fec_input(l->b, l->ca->buf[i], l->ca->len[i], now, &o, &olen);
  }
  l->ca->n = 0;
  l->cb->nrec = 0;
  np_fec_on_timer(l->b, now + 150 * MS); /* finalise, report */
  for (size_t i = 0; i < l->cb->n; i++)
    ASSERT_EQ(np_fec_input(l->a, l->cb->buf[i], l->cb->len[i], now, &o, &olen),
              NP_FEC_IN_REPORT);
  l->cb->n = 0;
}

static void test_end_to_end(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.mode = NP_FEC_ADAPTIVE;
  struct link l;
  l.ca = calloc(1, sizeof *l.ca);
  l.cb = calloc(1, sizeof *l.cb);
  ASSERT_NOT_NULL(l.ca);
  ASSERT_NOT_NULL(l.cb);
  l.a = fec_make(&cfg, l.ca);
  l.b = fec_make(&cfg, l.cb);
  uint64_t seed = 99, now = 0;
  struct np_fec_stats st;
  for (int r = 0; r < 20; r++, now += 200 * MS)
    pump(&l, now, 0, &seed);
  np_fec_get_stats(l.a, &st);
  ASSERT_EQ(st.policy_m, 0);
  ASSERT_GT(st.reports_in, 0);
  for (int r = 0; r < 40; r++, now += 200 * MS)
    pump(&l, now, 80, &seed);
  np_fec_get_stats(l.a, &st);
  ASSERT_GE(st.policy_m, 2);
  ASSERT_DBL_NEAR(st.policy_loss, 0.08, 0.04);
  np_fec_get_stats(l.b, &st);
  ASSERT_GT(st.recovered, 0);
  for (int r = 0; r < 60; r++, now += 200 * MS)
    pump(&l, now, 0, &seed);
  np_fec_get_stats(l.a, &st);
  ASSERT_EQ(st.policy_m, 0);
  ASSERT_GE(st.policy_changes, 3);
  ASSERT_GT(st.parity_hist[0], 0);
  ASSERT_GE(st.parity_max, 2);
  /* bursts of 3: 3 % loss, but groups hit lose 3 shards -> m = 3 */
  for (int r = 0; r < 40; r++, now += 200 * MS)
    pump(&l, now, 1000, &seed);
  np_fec_get_stats(l.a, &st);
  ASSERT_EQ(st.policy_m, 3);
  ASSERT_DBL_NEAR(st.policy_loss, 0.03, 0.01);
  uint64_t unrec0 = 0;
  np_fec_get_stats(l.b, &st);
  unrec0 = st.unrecoverable;
  for (int r = 0; r < 10; r++, now += 200 * MS)
    pump(&l, now, 1000, &seed);
  np_fec_get_stats(l.b, &st);
  ASSERT_EQ(st.unrecoverable, unrec0); /* m = 3 repairs every burst */
  for (int r = 0; r < 80; r++, now += 200 * MS)
    pump(&l, now, 0, &seed);
  np_fec_get_stats(l.a, &st);
  ASSERT_EQ(st.policy_m, 0);
  np_fec_free(l.a);
  np_fec_free(l.b);
  free(l.ca);
  free(l.cb);
}

int main(void) {
  test_formula();
  test_up_and_down();
  test_hysteresis();
  test_groups_burst();
  test_end_to_end();
  puts("test_fec_policy: ok");
  return 0;
}
