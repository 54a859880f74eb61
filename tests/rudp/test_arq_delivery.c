/*
 * test_arq_delivery.c - unordered delivery (issue 20) through the
 * virtual-time pipe of arq_sim.h: a lost fragment stalls only its own
 * message (single- and multi-fragment messages, against the same run in
 * order), every message arrives exactly once with its content under loss,
 * duplication and reordering, a message longer than the receive window
 * still arrives, and complete messages waiting behind a pause go up when
 * delivery resumes.
 */
#include <string.h>

#include "arq_sim.h"
#include "np_arq.h"
#include "np_test.h"

#define NMSG 200

static uint64_t g_target;
static uint64_t g_at[NMSG]; /* virtual time message n reached endpoint 1 */

static int all_delivered(struct sim *s) {
  return s->side[1].delivered >= g_target;
}

static void cfg_for(struct np_arq_config *cfg, enum np_arq_delivery d) {
  np_arq_config_defaults(cfg);
  cfg->conv = 7;
  cfg->delivery = d;
}

static uint32_t dg_seq(const uint8_t *b, size_t len) {
  uint64_t tag = 0;
  ASSERT_OK(np_arq_datagram_tag(b, len, &tag));
  return (uint32_t)tag;
}

/* drop the first transmission of data fragment g_drop from endpoint 0 */
static uint32_t g_drop;
static int g_dropped;
static int drop_once(struct sim *s, int from, const uint8_t *b, size_t len,
                     uint64_t idx) {
  (void)s, (void)idx;
  if (from != 0 || g_dropped || !(b[0] & NP_ARQ_F_DATA) ||
      dg_seq(b, len) != g_drop)
    return 0;
  g_dropped = 1;
  return 1;
}

/* Run NMSG messages of len bytes with fragment drop_seq lost once; fill
 * g_at with each message's delivery time at endpoint 1. */
static void run_hole(enum np_arq_delivery d, size_t len, uint32_t drop_seq,
                     struct np_arq_stats *rx) {
  struct np_arq_config cfg;
  cfg_for(&cfg, d);
  struct sim s;
  sim_init(&s, &cfg, 3);
  s.dir[0].delay_ns = s.dir[1].delay_ns = 5 * SIM_MS;
  s.side[1].unordered = 1; /* check by number in both modes */
  s.fixed_len = len;
  s.drop = drop_once;
  g_drop = drop_seq;
  g_dropped = 0;
  memset(g_at, 0, sizeof g_at);
  s.side[1].at = g_at;
  s.side[1].nat = NMSG;
  g_target = NMSG;
  sim_send(&s, NMSG);
  ASSERT_TRUE(sim_run(&s, all_delivered, 10000 * SIM_MS));
  ASSERT_EQ(g_dropped, 1);
  ASSERT_EQ(s.side[1].bad, 0);
  ASSERT_EQ(s.side[1].delivered, NMSG);
  np_arq_get_stats(s.ep[1], rx);
  sim_free(&s);
}

static void test_single_fragment_hole(void) {
  struct np_arq_stats rx;
  /* 1,000 B messages: one fragment each, seq n = message n */
  run_hole(NP_ARQ_UNORDERED, 1000, 10, &rx);
  ASSERT_GT(rx.msgs_delivered_early, 50); /* what cwnd let past 10 */
  ASSERT_EQ(rx.msgs_delivered, NMSG);
  ASSERT_NE(g_at[10], 0);
  ASSERT_TRUE(g_at[11] != 0 && g_at[11] < g_at[10]);
  ASSERT_TRUE(g_at[40] != 0 && g_at[40] < g_at[10]);
  uint64_t gap = g_at[10] - g_at[11]; /* about one retransmission */
  ASSERT_GE(gap, 10 * SIM_MS);
  run_hole(NP_ARQ_ORDERED, 1000, 10, &rx);
  ASSERT_EQ(rx.msgs_delivered_early, 0);
  ASSERT_EQ(g_at[11], g_at[10]); /* in order, 11 waited for 10 */
}

static void test_multi_fragment_hole(void) {
  struct np_arq_stats rx;
  /* 2,500 B = 3 fragments (1,162 + 1,162 + 176): message 5 is seqs 15..17;
   * its middle fragment is lost */
  run_hole(NP_ARQ_UNORDERED, 2500, 16, &rx);
  ASSERT_GT(rx.msgs_delivered_early, 10); /* cwnd 32 = ~10 messages */
  ASSERT_TRUE(g_at[6] != 0 && g_at[6] < g_at[5]);
  ASSERT_GT(rx.msg_bytes_delivered, 0);
  ASSERT_EQ(rx.msg_bytes_delivered, (uint64_t)NMSG * 2500);
}

/* Request/response under 5 % loss, 1 % duplication, 5 % reordering by
 * +15 ms: exactly once with the right bytes, and no head-of-line wait. */
static double run_random(enum np_arq_delivery d, struct np_arq_stats *rx) {
  struct np_arq_config cfg;
  cfg_for(&cfg, d);
  struct sim s;
  sim_init(&s, &cfg, 17);
  for (int i = 0; i < 2; i++) {
    s.dir[i].delay_ns = 10 * SIM_MS;
    s.dir[i].loss = 0.05;
    s.dir[i].dup = 0.01;
    s.dir[i].reorder = 0.05;
    s.dir[i].reorder_ns = 15 * SIM_MS;
    s.side[i].unordered = 1;
  }
  s.side[1].echo = 1;
  s.fixed_len = 1024;
  const uint64_t want = 4000;
  sim_send(&s, 16);
  while (s.side[0].delivered < want) {
    uint64_t before = s.side[0].delivered;
    (void)sim_run(&s, NULL, 1 * SIM_MS);
    uint64_t done = s.side[0].delivered - before;
    if (done && s.next_msg < want)
      sim_send(&s, done);
    ASSERT_LT(s.now, 200000 * SIM_MS);
    ASSERT_EQ(s.side[0].failed + s.side[1].failed, 0);
  }
  ASSERT_EQ(s.side[0].bad + s.side[1].bad, 0);
  ASSERT_GE(s.side[0].delivered, want);
  np_arq_get_stats(s.ep[0], rx);
  double mean = s.rtt_sum_ns / 1e6 / (double)s.rtt_n;
  fprintf(stderr, "%s: mean rtt %.2f ms, early %llu\n",
          np_arq_delivery_name(d), mean,
          (unsigned long long)rx->msgs_delivered_early);
  sim_free(&s);
  return mean;
}

static void test_random_exactly_once(void) {
  struct np_arq_stats u, o;
  double mu = run_random(NP_ARQ_UNORDERED, &u);
  double mo = run_random(NP_ARQ_ORDERED, &o);
  ASSERT_GT(u.msgs_delivered_early, 0);
  ASSERT_EQ(o.msgs_delivered_early, 0);
  /* virtual time, same seed: deterministic, not a speed measurement */
  ASSERT_TRUE(mu < mo);
  ASSERT_TRUE(mu < 30.0); /* 20 ms path; only lost messages wait */
}

/* A message of 16 fragments through a receive window of 8, 10 % loss:
 * the head streams it, unordered mode included. */
static void test_message_longer_than_window(void) {
  struct np_arq_config cfg;
  cfg_for(&cfg, NP_ARQ_UNORDERED);
  cfg.mtu = 300; /* 262 B fragments */
  cfg.snd_wnd = cfg.rcv_wnd = 8;
  struct sim s;
  sim_init(&s, &cfg, 5);
  s.dir[0].delay_ns = s.dir[1].delay_ns = 5 * SIM_MS;
  s.dir[0].loss = 0.10;
  s.side[1].unordered = 1;
  s.fixed_len = 4000;
  g_target = 30;
  sim_send(&s, g_target);
  ASSERT_TRUE(sim_run(&s, all_delivered, 60000 * SIM_MS));
  ASSERT_EQ(s.side[1].bad, 0);
  struct np_arq_stats rx;
  np_arq_get_stats(s.ep[1], &rx);
  ASSERT_EQ(rx.msg_bytes_delivered, 30 * 4000);
  sim_free(&s);
}

/* Delivery paused while seq 3 stays lost: nothing goes up; on resume the
 * 19 complete messages around the hole go up at once, 3 later. */
static int drop_3_early(struct sim *s, int from, const uint8_t *b, size_t len,
                        uint64_t idx) {
  (void)idx;
  return from == 0 && (b[0] & NP_ARQ_F_DATA) && dg_seq(b, len) == 3 &&
         s->now < 1000 * SIM_MS + 100 * SIM_MS;
}

static void test_pause_then_resume(void) {
  struct np_arq_config cfg;
  cfg_for(&cfg, NP_ARQ_UNORDERED);
  struct sim s;
  sim_init(&s, &cfg, 6);
  s.dir[0].delay_ns = s.dir[1].delay_ns = 5 * SIM_MS;
  s.side[1].unordered = 1;
  s.fixed_len = 1000;
  s.drop = drop_3_early;
  np_arq_pause_delivery(s.ep[1], 1, s.now);
  g_target = 20;
  sim_send(&s, g_target);
  (void)sim_run(&s, NULL, 50 * SIM_MS);
  ASSERT_EQ(s.side[1].delivered, 0);
  np_arq_pause_delivery(s.ep[1], 0, s.now);
  ASSERT_EQ(s.side[1].delivered, 19);
  ASSERT_TRUE(sim_run(&s, all_delivered, 5000 * SIM_MS));
  ASSERT_EQ(s.side[1].last_n, 3);
  ASSERT_EQ(s.side[1].bad, 0);
  sim_free(&s);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  static const struct {
    const char *name;
    void (*fn)(void);
  } tests[] = {
      {"single_fragment_hole", test_single_fragment_hole},
      {"multi_fragment_hole", test_multi_fragment_hole},
      {"random_exactly_once", test_random_exactly_once},
      {"message_longer_than_window", test_message_longer_than_window},
      {"pause_then_resume", test_pause_then_resume},
  };
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    if (only && strcmp(only, tests[i].name) != 0)
      continue;
    fprintf(stderr, "-- %s\n", tests[i].name);
    tests[i].fn();
  }
  return 0;
}
