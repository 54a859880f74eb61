/*
 * test_arq_acks.c - the ack coalescing bound and the FEC-protected
 * reordering window (issue 20), in the virtual time of arq_sim.h.
 *
 * Acks: a one-way transfer where endpoint 1 has nothing to send, so every
 * ack is a pure ack and visible to the drop hook.  Each data datagram's
 * arrival is its send time + the path delay; the first ack whose
 * cumulative point covers it must leave no later than ack_delay_ns after
 * that arrival; back-to-back datagrams are acknowledged every second one,
 * sparse ones by the timer exactly ack_delay_ns late, and ack_every = 1
 * answers every datagram.
 *
 * Protection: after the path taught RACK a ~18 ms reordering window, a
 * lost fragment that np_arq_protect marked (its FEC group carried parity)
 * is retransmitted after rack_rtt + reo_wnd_protected_ns, one that was not
 * only after the whole learned window.
 */
#include <string.h>

#include "arq_sim.h"
#include "np_arq.h"
#include "np_test.h"

#define NSEQ 4096
#define DELAY_NS (5 * SIM_MS)

static uint64_t g_sent_at[NSEQ];  /* first transmission of seq            */
static uint64_t g_acked_at[NSEQ]; /* first ack from endpoint 1 covering it */
static uint32_t g_acked_to;       /* cumulative point seen so far          */
static uint64_t g_pure_acks, g_data;

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static int watch(struct sim *s, int from, const uint8_t *b, size_t len,
                 uint64_t idx) {
  (void)idx;
  if (from == 0 && (b[0] & NP_ARQ_F_DATA)) {
    uint64_t tag;
    ASSERT_OK(np_arq_datagram_tag(b, len, &tag));
    uint32_t seq = (uint32_t)tag;
    if (seq < NSEQ && g_sent_at[seq] == 0) {
      g_sent_at[seq] = s->now;
      g_data++;
    }
  }
  if (from == 1 && (b[0] & NP_ARQ_F_ACK)) {
    ASSERT_GE(len, 18);
    if (!(b[0] & NP_ARQ_F_DATA))
      g_pure_acks++;
    uint32_t cum = rd32(b + 8);
    for (; g_acked_to < cum && g_acked_to < NSEQ; g_acked_to++)
      g_acked_at[g_acked_to] = s->now;
  }
  return 0;
}

static void reset_watch(void) {
  memset(g_sent_at, 0, sizeof g_sent_at);
  memset(g_acked_at, 0, sizeof g_acked_at);
  g_acked_to = 0;
  g_pure_acks = g_data = 0;
}

/* n single-fragment messages, one every gap_ns; returns the largest wait
 * from a datagram's arrival to its ack; *st: endpoint 1's counters. */
static uint64_t run_paced(uint32_t ack_every, uint64_t gap_ns, uint32_t n,
                          struct np_arq_stats *st) {
  struct np_arq_config cfg;
  np_arq_config_defaults(&cfg);
  cfg.conv = 3;
  cfg.ack_every = ack_every;
  struct sim s;
  sim_init(&s, &cfg, 8);
  s.dir[0].delay_ns = s.dir[1].delay_ns = DELAY_NS;
  s.fixed_len = 500;
  s.drop = watch;
  reset_watch();
  for (uint32_t i = 0; i < n; i++) {
    sim_send(&s, 1);
    (void)sim_run(&s, NULL, gap_ns);
  }
  (void)sim_run(&s, NULL, 100 * SIM_MS);
  ASSERT_EQ(s.side[1].delivered, n);
  ASSERT_EQ(g_data, n);
  ASSERT_EQ(g_acked_to, n);
  uint64_t worst = 0;
  for (uint32_t q = 0; q < n; q++) {
    uint64_t arrival = g_sent_at[q] + DELAY_NS;
    ASSERT_GE(g_acked_at[q], arrival);
    if (g_acked_at[q] - arrival > worst)
      worst = g_acked_at[q] - arrival;
  }
  np_arq_get_stats(s.ep[1], st);
  ASSERT_EQ(st->pure_acks_sent, g_pure_acks);
  sim_free(&s);
  return worst;
}

static void test_ack_bound(void) {
  struct np_arq_stats st;
  struct np_arq_config d;
  np_arq_config_defaults(&d);
  ASSERT_EQ(d.ack_every, 2);
  ASSERT_EQ(d.ack_delay_ns, 1 * SIM_MS);
  /* back to back (all 400 sent at once): every second datagram */
  uint64_t w = run_paced(2, 0, 400, &st);
  fprintf(stderr, "burst: %llu pure acks for 400, worst wait %llu us\n",
          (unsigned long long)g_pure_acks, (unsigned long long)(w / 1000));
  ASSERT_LE(w, d.ack_delay_ns);
  ASSERT_LE(g_pure_acks, 400 / 2 + 1);
  ASSERT_GE(g_pure_acks, 400 / 2);
  /* 0.3 ms apart: pairs within the delay, never beyond it */
  w = run_paced(2, 300 * 1000, 400, &st);
  ASSERT_LE(w, d.ack_delay_ns);
  ASSERT_LE(g_pure_acks, 400 / 2 + 1);
  /* 5 ms apart: each waits for the timer, exactly the bound */
  w = run_paced(2, 5 * SIM_MS, 100, &st);
  ASSERT_EQ(w, d.ack_delay_ns);
  ASSERT_EQ(st.acks_delayed, 100);
  ASSERT_EQ(g_pure_acks, 100);
  /* ack_every 1: one ack per datagram, none waits */
  w = run_paced(1, 300 * 1000, 200, &st);
  ASSERT_EQ(w, 0);
  ASSERT_EQ(g_pure_acks, 200);
  ASSERT_EQ(st.acks_delayed, 0);
}

/* ---- protection ---------------------------------------------------- */

static uint32_t g_lose[2];    /* seqs lost once (first transmission)      */
static int g_protect_first;   /* g_lose[0] gets np_arq_protect            */
static uint64_t g_retx_at[2];
static uint64_t g_first_at[2];

static int lose_two(struct sim *s, int from, const uint8_t *b, size_t len,
                    uint64_t idx) {
  (void)idx;
  if (from != 0 || !(b[0] & NP_ARQ_F_DATA))
    return 0;
  uint64_t tag;
  ASSERT_OK(np_arq_datagram_tag(b, len, &tag));
  for (int i = 0; i < 2; i++) {
    if ((uint32_t)tag != g_lose[i])
      continue;
    if (g_first_at[i] == 0) {
      g_first_at[i] = s->now;
      if (i == 0 && g_protect_first)
        np_arq_protect(s->ep[0], tag, s->now); /* "its group had parity" */
      return 1;
    }
    if (g_retx_at[i] == 0)
      g_retx_at[i] = s->now;
  }
  return 0;
}

static void test_protected_window(void) {
  struct np_arq_config cfg;
  np_arq_config_defaults(&cfg);
  cfg.conv = 4;
  cfg.reo_wnd_protected_ns = 5 * SIM_MS;
  struct sim s;
  sim_init(&s, &cfg, 23);
  s.dir[0].delay_ns = s.dir[1].delay_ns = 10 * SIM_MS;
  s.dir[0].reorder = 0.05;
  s.dir[0].reorder_ns = 15 * SIM_MS;
  s.fixed_len = 1000;
  s.side[1].echo = 1;
  /* teach RACK the path's reordering: request/response, 16 in flight */
  sim_send(&s, 16);
  while (s.side[0].delivered < 3000) {
    uint64_t before = s.side[0].delivered;
    (void)sim_run(&s, NULL, 1 * SIM_MS);
    if (s.side[0].delivered > before)
      sim_send(&s, s.side[0].delivered - before);
    ASSERT_LT(s.now, 60000 * SIM_MS);
  }
  struct np_arq_stats a;
  np_arq_get_stats(s.ep[0], &a);
  ASSERT_GE(a.reo_wnd_ns, 15 * SIM_MS);
  /* now two losses, no more reordering: one protected, one not */
  s.dir[0].reorder = 0;
  uint32_t next = (uint32_t)(a.fragments_sent);
  g_lose[0] = next + 20;
  g_lose[1] = next + 60;
  g_protect_first = 1;
  memset(g_retx_at, 0, sizeof g_retx_at);
  memset(g_first_at, 0, sizeof g_first_at);
  s.drop = lose_two;
  uint64_t stop = s.side[0].delivered + 300;
  while (s.side[0].delivered < stop) {
    uint64_t before = s.side[0].delivered;
    (void)sim_run(&s, NULL, 1 * SIM_MS);
    if (s.side[0].delivered > before)
      sim_send(&s, s.side[0].delivered - before);
    ASSERT_LT(s.now, 120000 * SIM_MS);
  }
  ASSERT_EQ(s.side[0].bad + s.side[1].bad, 0);
  ASSERT_TRUE(g_retx_at[0] && g_retx_at[1]);
  uint64_t prot = g_retx_at[0] - g_first_at[0];
  uint64_t unprot = g_retx_at[1] - g_first_at[1];
  fprintf(stderr, "retransmitted after %llu us (protected), %llu us (not)\n",
          (unsigned long long)(prot / 1000),
          (unsigned long long)(unprot / 1000));
  np_arq_get_stats(s.ep[0], &a);
  ASSERT_EQ(a.protected_frags, 1);
  /* RACK: rack_rtt (~20 ms) + 5 ms vs + the learned ~18 ms */
  ASSERT_LE(prot, 20 * SIM_MS + 5 * SIM_MS + 2 * SIM_MS);
  ASSERT_GE(unprot, 20 * SIM_MS + 15 * SIM_MS);
  sim_free(&s);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  static const struct {
    const char *name;
    void (*fn)(void);
  } tests[] = {
      {"ack_bound", test_ack_bound},
      {"protected_window", test_protected_window},
  };
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    if (only && strcmp(only, tests[i].name) != 0)
      continue;
    fprintf(stderr, "-- %s\n", tests[i].name);
    tests[i].fn();
  }
  return 0;
}
