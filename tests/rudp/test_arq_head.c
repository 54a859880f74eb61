/*
 * test_arq_head.c - the head-of-line rule of np_arq_sender.c (issue 30),
 * in virtual time through arq_sim.h.  "Head" means any hole of an ordered
 * stream (an unacked fragment below acked ones): each holds back every
 * message behind it.
 *   - after the path taught RACK a ~18 ms reordering window, a lost
 *     fragment at the head of an ordered stream is repaired within
 *     rack_rtt + reo_wnd_head (about 35 ms from its send to its delivery),
 *     not rack_rtt + 18 ms (about 50 ms) as with the rule off;
 *   - when that retransmission is lost as well, the head's own timer
 *     (SRTT + the head window) resends it before the tail-loss probe;
 *   - a reordered head resent early is counted spurious and does not
 *     shrink newreno's window (with the rule off, RACK's loss does);
 *   - each head retransmission goes out as cfg.head_copies (2) copies:
 *     one lost copy costs no round trip;
 *   - the rule needs cfg.head_dupthresh later fragments acked (with 2,
 *     one is not enough), and unordered delivery never uses it;
 *   - on a path that only reorders, its retransmissions all prove
 *     spurious and it stands down (test_rudp_arq's reorder_no_spurious
 *     holds with the default configuration);
 *   - request/response under the random profile (5 % loss, 1 %
 *     duplication, 5 % reordered by +15 ms, both ways), several seeds:
 *     exactly once and in order, every byte checked, with more round
 *     trips and a lower p99 than the rule off; what it costs in spurious
 *     retransmissions is counted (spurious_head) and bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "arq_sim.h"
#include "np_arq.h"
#include "np_test.h"

static uint64_t g_target;
static uint32_t g_drop_seq;
static int g_drop_done, g_drop_times = 1;
static uint32_t g_hole_seq = UINT32_MAX; /* also dropped once if set     */
static int g_hole_done;
static uint32_t g_dupthresh = 1, g_copies = 2; /* head_repair_ns's cfg */
static uint64_t g_protected_ns;                /* ... and its FEC window */

static void cfg_default(struct np_arq_config *cfg) {
  np_arq_config_defaults(cfg);
  cfg->conv = 9;
}

static int all_delivered(struct sim *s) {
  return s->side[1].delivered >= g_target;
}

/* Drops the first g_drop_times transmissions of data fragment g_drop_seq
 * from ep 0 (g_drop_done counts them). */
static int drop_seq_once(struct sim *s, int from, const uint8_t *b,
                         size_t len, uint64_t idx) {
  (void)s, (void)idx;
  uint64_t tag;
  if (from == 0 && !g_hole_done && np_arq_datagram_tag(b, len, &tag) == 0 &&
      (uint32_t)tag == g_hole_seq) {
    g_hole_done = 1;
    return 1;
  }
  if (from != 0 || g_drop_done >= g_drop_times ||
      np_arq_datagram_tag(b, len, &tag) != 0 || (uint32_t)tag != g_drop_seq)
    return 0;
  g_drop_done++;
  return 1;
}

/* Endpoint 0 sends `teach` messages of one fragment over a path that
 * reorders 5 % by +15 ms (RACK learns ~18 ms) and loses `loss` of them,
 * then the path turns clean and a burst of `burst` messages loses its
 * first fragment.  Returns the time from that burst's send to the lost
 * message's delivery. */
static uint64_t head_repair_ns(uint64_t head_ns, double loss, uint64_t burst,
                               struct np_arq_stats *st) {
  struct np_arq_config cfg;
  cfg_default(&cfg);
  cfg.reo_wnd_head_ns = head_ns;
  cfg.head_dupthresh = g_dupthresh;
  cfg.head_copies = g_copies;
  cfg.reo_wnd_protected_ns = g_protected_ns;
  struct sim s;
  sim_init(&s, &cfg, 5);
  s.fixed_len = 1024;
  for (int d = 0; d < 2; d++) {
    s.dir[d].delay_ns = 10 * SIM_MS;
    s.dir[d].reorder = 0.05;
    s.dir[d].reorder_ns = 15 * SIM_MS;
    s.dir[d].loss = loss;
  }
  const uint64_t teach = 1000;
  g_target = teach;
  sim_send(&s, teach);
  ASSERT_TRUE(sim_run(&s, all_delivered, 60000 * SIM_MS));
  ASSERT_TRUE(sim_run(&s, NULL, 200 * SIM_MS) == 0); /* acks settle */
  for (int d = 0; d < 2; d++)
    s.dir[d].reorder = s.dir[d].loss = 0;
  np_arq_get_stats(s.ep[0], st);
  ASSERT_GE(st->reo_wnd_ns, 15 * SIM_MS); /* the window was learned */
  np_arq_reset_counters(s.ep[0]);          /* count the burst only    */
  g_drop_seq = (uint32_t)teach, g_drop_done = 0;
  s.drop = drop_seq_once;
  uint64_t at[1200] = {0};
  s.side[1].at = at;
  s.side[1].nat = 1200;
  uint64_t t0 = s.now;
  g_target = teach + burst;
  sim_send(&s, burst);
  ASSERT_TRUE(sim_run(&s, all_delivered, 3000 * SIM_MS));
  ASSERT_EQ(g_drop_done, g_drop_times);
  ASSERT_EQ(s.side[1].bad, 0);
  ASSERT_EQ(s.side[1].delivered, teach + burst);
  np_arq_get_stats(s.ep[0], st);
  uint64_t d = at[teach] - t0;
  sim_free(&s);
  return d;
}

static void test_head_loss_fast(void) {
  struct np_arq_stats on, off;
  uint64_t d_on = head_repair_ns(1 * SIM_MS, 0.05, 16, &on);
  uint64_t d_off = head_repair_ns(0, 0.05, 16, &off);
  fprintf(stderr, "head repair: rule on %.1f ms (retx_head %llu), off %.1f "
          "ms, reo_wnd %.1f ms\n", d_on / 1e6,
          (unsigned long long)on.retx_head, d_off / 1e6, off.reo_wnd_ns / 1e6);
  /* on: 20 ms RTT + 1 ms + 10 ms one way (+ slack) */
  ASSERT_LT(d_on, 33 * SIM_MS);
  ASSERT_EQ(on.retx_head, 2); /* one retransmission, two copies */
  ASSERT_EQ(on.retx_rack, 2); /* counted as RACK too */
  /* off: the learned window holds it back */
  ASSERT_GE(d_off, 45 * SIM_MS);
  ASSERT_EQ(off.retx_head, 0);
}

/* The head's retransmission is lost too (one copy per retransmission):
 * nothing sent after it is acked, so RACK cannot see it; its own timer
 * (SRTT + the head window) resends it about 42 ms after the original,
 * where the tail-loss probe would wait 2 x SRTT + the learned window +
 * the ack delay (~60 ms) after the retransmission. */
static void test_head_retransmission_lost(void) {
  struct np_arq_stats on, off;
  g_drop_times = 2, g_copies = 1;
  uint64_t d_on = head_repair_ns(1 * SIM_MS, 0.05, 16, &on);
  uint64_t d_off = head_repair_ns(0, 0.05, 16, &off);
  g_drop_times = 1, g_copies = 2;
  fprintf(stderr, "retransmission lost: rule on %.1f ms (retx_head %llu, "
          "tlp %llu), off %.1f ms (tlp %llu)\n", d_on / 1e6,
          (unsigned long long)on.retx_head, (unsigned long long)on.retx_tlp,
          d_off / 1e6, (unsigned long long)off.retx_tlp);
  ASSERT_EQ(on.retx_head, 2);
  ASSERT_EQ(on.retx_tlp + on.retx_rto, 0);
  /* 20 + 1 (head window), + 20 (SRTT) + 1, + 10 one way (+ slack) */
  ASSERT_LT(d_on, 56 * SIM_MS);
  ASSERT_GE(d_off, 90 * SIM_MS);
}

/* head_copies 2 (the default): the original and the first copy of its
 * retransmission are lost, the second copy repairs the head with the
 * first retransmission (~31 ms); with both copies lost as well the
 * head's own timer resends it, again as two copies. */
static void test_head_copies(void) {
  struct np_arq_stats one, both;
  g_drop_times = 2;
  uint64_t d_one = head_repair_ns(1 * SIM_MS, 0.05, 16, &one);
  g_drop_times = 3;
  uint64_t d_both = head_repair_ns(1 * SIM_MS, 0.05, 16, &both);
  g_drop_times = 1;
  fprintf(stderr, "copies: one copy lost %.1f ms (retx_head %llu, "
          "datagrams %llu), both lost %.1f ms (retx_head %llu)\n",
          d_one / 1e6, (unsigned long long)one.retx_head,
          (unsigned long long)one.datagrams_sent, d_both / 1e6,
          (unsigned long long)both.retx_head);
  ASSERT_EQ(one.retx_head, 2); /* one retransmission, two copies */
  ASSERT_LT(d_one, 33 * SIM_MS);
  ASSERT_EQ(both.retx_head, 4);
  ASSERT_EQ(both.retx_tlp + both.retx_rto, 0);
  ASSERT_LT(d_both, 56 * SIM_MS);
  /* with an FEC layer below (a protected window) no second copy: the
   * lost first retransmission needs a second one */
  struct np_arq_stats fec;
  g_drop_times = 2, g_protected_ns = 5 * SIM_MS;
  (void)head_repair_ns(1 * SIM_MS, 0.05, 16, &fec);
  g_drop_times = 1, g_protected_ns = 0;
  fprintf(stderr, "copies with FEC below: retx_head %llu, datagrams %llu\n",
          (unsigned long long)fec.retx_head,
          (unsigned long long)fec.datagrams_sent);
  ASSERT_EQ(fec.retx_head, 2);
  ASSERT_EQ(fec.datagrams_sent, 16 + fec.retransmits); /* one copy each */
  ASSERT_EQ(one.datagrams_sent, 16 + one.retransmits); /* copies counted */
  ASSERT_EQ(one.datagrams_sent, fec.datagrams_sent); /* 2 copies vs 2 sends */
}

/* A second hole (fragment 5 of the burst, below acked 6..15) holds back
 * ordered delivery as much as the head: the rule repairs both at once. */
static void test_second_hole(void) {
  struct np_arq_stats on;
  g_hole_seq = 1000 + 5, g_hole_done = 0;
  uint64_t d = head_repair_ns(1 * SIM_MS, 0.05, 16, &on);
  g_hole_seq = UINT32_MAX;
  fprintf(stderr, "second hole: head repaired after %.1f ms, retx_head "
          "%llu\n", d / 1e6, (unsigned long long)on.retx_head);
  ASSERT_EQ(g_hole_done, 1);
  ASSERT_EQ(on.retx_head, 4); /* two holes, two copies each */
  ASSERT_EQ(on.retransmits, 4);
  ASSERT_LT(d, 36 * SIM_MS);
}

/* head_dupthresh later fragments acked and no fewer: with 2, one is not
 * enough and the head waits for the learned window (or the probe), as
 * without the rule; with 1 (the default) one is. */
static void test_head_dupthresh(void) {
  struct np_arq_stats two, one;
  g_dupthresh = 2;
  uint64_t d2 = head_repair_ns(1 * SIM_MS, 0.05, 2, &two);
  g_dupthresh = 1;
  uint64_t d1 = head_repair_ns(1 * SIM_MS, 0.05, 2, &one);
  fprintf(stderr, "dupthresh: burst of 2, dupthresh 2 repaired after %.1f "
          "ms (retx_head %llu), dupthresh 1 after %.1f ms (retx_head "
          "%llu)\n", d2 / 1e6, (unsigned long long)two.retx_head, d1 / 1e6,
          (unsigned long long)one.retx_head);
  ASSERT_EQ(two.retx_head, 0);
  ASSERT_GE(d2, 45 * SIM_MS);
  ASSERT_EQ(one.retx_head, 2);
  ASSERT_LT(d1, 33 * SIM_MS);
}

/* A path that reorders and never loses: every head retransmission would
 * be spurious, so after HEAD_EVIDENCE_MIN of them the rule stands down and
 * the lost head of the burst waits for the learned window again. */
static void test_head_off_when_only_reordering(void) {
  struct np_arq_stats on;
  uint64_t d = head_repair_ns(1 * SIM_MS, 0, 16, &on);
  fprintf(stderr, "reordering only: repaired after %.1f ms, retx_head %llu\n",
          d / 1e6, (unsigned long long)on.retx_head);
  ASSERT_EQ(on.retx_head, 0);
  ASSERT_GE(d, 45 * SIM_MS);
}

/* Holds the first copy of fragment g_drop_seq back by 15 ms (reordered,
 * not lost). */
static int delay_seq_once(struct sim *s, int from, const uint8_t *b,
                          size_t len, uint64_t idx) {
  (void)idx;
  uint64_t tag;
  if (from != 0 || g_drop_done || np_arq_datagram_tag(b, len, &tag) != 0 ||
      (uint32_t)tag != g_drop_seq)
    return 0;
  g_drop_done = 1;
  sim_inject(s, from, b, len, s->now + s->dir[0].delay_ns + 15 * SIM_MS);
  return 1;
}

/* A reordered head the rule resends early is a spurious retransmission,
 * not a congestion signal: newreno keeps its window.  With the rule off
 * RACK's own (not yet learned, min_rtt / 4) window resends it too, and
 * that loss episode halves the window - the old behaviour, for contrast. */
static uint32_t reordered_head_cwnd(uint64_t head_ns, struct np_arq_stats *st,
                                    uint32_t *before) {
  struct np_arq_config cfg;
  cfg_default(&cfg);
  cfg.cc = NP_ARQ_CC_NEWRENO;
  cfg.reo_wnd_head_ns = head_ns;
  struct sim s;
  sim_init(&s, &cfg, 7);
  s.fixed_len = 1024;
  s.dir[0].delay_ns = s.dir[1].delay_ns = 10 * SIM_MS;
  g_target = 64;
  sim_send(&s, 64);
  ASSERT_TRUE(sim_run(&s, all_delivered, 3000 * SIM_MS));
  ASSERT_TRUE(sim_run(&s, NULL, 100 * SIM_MS) == 0);
  np_arq_get_stats(s.ep[0], st);
  *before = st->cwnd;
  np_arq_reset_counters(s.ep[0]);
  g_drop_seq = 64, g_drop_done = 0;
  s.drop = delay_seq_once;
  g_target = 64 + 16;
  sim_send(&s, 16);
  ASSERT_TRUE(sim_run(&s, all_delivered, 3000 * SIM_MS));
  ASSERT_TRUE(sim_run(&s, NULL, 100 * SIM_MS) == 0);
  ASSERT_EQ(g_drop_done, 1);
  ASSERT_EQ(s.side[1].bad, 0);
  np_arq_get_stats(s.ep[0], st);
  sim_free(&s);
  return st->cwnd;
}

static void test_reordered_head_not_congestion(void) {
  struct np_arq_stats on, off;
  uint32_t b_on, b_off;
  uint32_t c_on = reordered_head_cwnd(1 * SIM_MS, &on, &b_on);
  uint32_t c_off = reordered_head_cwnd(0, &off, &b_off);
  fprintf(stderr, "reordered head: cwnd %u -> %u with the rule (spurious "
          "head %llu), %u -> %u without (spurious %llu)\n", b_on, c_on,
          (unsigned long long)on.spurious_head, b_off, c_off,
          (unsigned long long)off.spurious);
  fprintf(stderr, "without: retx rack %llu tlp %llu rto %llu\n",
          (unsigned long long)off.retx_rack, (unsigned long long)off.retx_tlp,
          (unsigned long long)off.retx_rto);
  ASSERT_EQ(on.retx_head, 2);
  ASSERT_EQ(on.spurious_head, 1);
  ASSERT_GE(c_on, b_on);
  ASSERT_EQ(off.retx_head, 0);
  ASSERT_EQ(off.spurious, 1);
  ASSERT_LT(c_off, b_off);
}

struct rr_result {
  double rt_s, p99_ms;
  uint64_t retx, retx_head, spur, spur_head, frags, dgrams;
};

static int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return a < b ? -1 : a > b;
}

/* The ideal repair (test_head_bound): the network still loses 5 % of
 * the datagrams each way, but a lost data datagram reaches the receiver
 * one round trip (20 ms) after the original would have, as if the sender
 * had resent it the instant the receiver could first tell (a later
 * datagram arrived) and the resent copy were never lost; it is reordered
 * like any other (5 % +15 ms).  Lost acks stay lost.  No ARQ that learns
 * of a loss from its peer repairs faster on this path. */
static int g_ideal;
static uint64_t g_ideal_rng;

static double ideal_rnd(void) {
  g_ideal_rng ^= g_ideal_rng << 13;
  g_ideal_rng ^= g_ideal_rng >> 7;
  g_ideal_rng ^= g_ideal_rng << 17;
  return (double)(g_ideal_rng >> 11) / 9007199254740992.0;
}

static int ideal_repair(struct sim *s, int from, const uint8_t *b,
                        size_t len, uint64_t idx) {
  (void)idx;
  if (ideal_rnd() >= 0.05)
    return 0;
  if (b[0] & NP_ARQ_F_DATA) {
    uint64_t at = s->now + s->dir[from].delay_ns + 20 * SIM_MS;
    if (ideal_rnd() < 0.05)
      at += 15 * SIM_MS;
    sim_inject(s, from, b, len, at);
  }
  return 1;
}

/* Request/response, window 16, the random profile both ways. */
static void run_rr(enum np_arq_delivery dlv, uint64_t head_ns, uint64_t seed,
                   struct rr_result *r) {
  struct np_arq_config cfg;
  cfg_default(&cfg);
  cfg.delivery = dlv;
  cfg.reo_wnd_head_ns = head_ns;
  cfg.head_dupthresh = g_dupthresh;
  cfg.head_copies = g_copies;
  struct sim s;
  sim_init(&s, &cfg, seed);
  if (g_ideal) { /* the ideal repair (test_head_bound): no loss in sim */
    s.drop = ideal_repair;
    g_ideal_rng = seed * 2654435761u + 1;
  }
  for (int d = 0; d < 2; d++) {
    s.dir[d].delay_ns = 10 * SIM_MS;
    s.dir[d].loss = g_ideal ? 0 : 0.05;
    s.dir[d].dup = 0.01;
    s.dir[d].reorder = 0.05;
    s.dir[d].reorder_ns = 15 * SIM_MS;
  }
  s.side[1].echo = 1;
  s.side[0].unordered = s.side[1].unordered = dlv == NP_ARQ_UNORDERED;
  s.fixed_len = 1024;
  const uint64_t n = 6000;
  static uint32_t rtt[6000];
  s.rtt_us = rtt;
  s.rtt_cap = n;
  sim_send(&s, 16);
  uint64_t t0 = s.now;
  while (s.side[0].delivered < n) {
    uint64_t before = s.side[0].delivered;
    (void)sim_run(&s, NULL, 1 * SIM_MS);
    uint64_t done = s.side[0].delivered - before;
    if (done && s.next_msg < n)
      sim_send(&s, done < n - s.next_msg ? done : n - s.next_msg);
    ASSERT_LT(s.now - t0, 120000 * SIM_MS);
    ASSERT_EQ(s.side[0].failed + s.side[1].failed, 0);
  }
  /* exactly once, in order (or each once when unordered), every byte */
  ASSERT_EQ(s.side[0].bad + s.side[1].bad, 0);
  ASSERT_EQ(s.side[1].delivered, n);
  ASSERT_EQ(s.side[0].delivered, n);
  ASSERT_EQ(s.rtt_n, n);
  qsort(rtt, n, sizeof rtt[0], cmp_u32);
  struct np_arq_stats a, b;
  np_arq_get_stats(s.ep[0], &a);
  np_arq_get_stats(s.ep[1], &b);
  r->rt_s = (double)n / ((double)(s.now - t0) / 1e9);
  r->p99_ms = rtt[n * 99 / 100] / 1e3;
  r->retx = a.retransmits + b.retransmits;
  r->retx_head = a.retx_head + b.retx_head;
  r->spur = a.spurious + b.spurious;
  r->spur_head = a.spurious_head + b.spurious_head;
  r->frags = a.fragments_sent + b.fragments_sent;
  r->dgrams = a.datagrams_sent + b.datagrams_sent;
  ASSERT_LE(r->spur_head, r->spur);
  ASSERT_LE(r->retx_head, r->retx);
  ASSERT_LE(a.retx_rack + a.retx_tlp + a.retx_rto, a.retransmits);
  ASSERT_EQ(a.retx_rack + a.retx_tlp + a.retx_rto, a.retransmits);
  sim_free(&s);
}

static void print_rr(const char *what, const struct rr_result *r) {
  fprintf(stderr, "%-10s %6.0f rt/s  p99 %6.1f ms  retx %5llu (head %5llu)  "
          "spurious %4llu (head %4llu)  datagrams/fragment %.3f\n", what,
          r->rt_s, r->p99_ms, (unsigned long long)r->retx,
          (unsigned long long)r->retx_head, (unsigned long long)r->spur,
          (unsigned long long)r->spur_head,
          (double)r->dgrams / (double)r->frags);
}

static void test_head_random(void) {
  double rt_on = 0, rt_off = 0, p99_on = 0, p99_off = 0;
  for (uint64_t seed = 31; seed < 34; seed++) {
    struct rr_result on, off;
    run_rr(NP_ARQ_ORDERED, 1 * SIM_MS, seed, &on);
    run_rr(NP_ARQ_ORDERED, 0, seed, &off);
    print_rr("head on", &on);
    print_rr("head off", &off);
    ASSERT_GT(on.retx_head, 0);
    ASSERT_EQ(off.retx_head, 0);
    ASSERT_EQ(off.spur_head, 0);
    /* the rule's cost: a spurious head retransmission needs a reordered
     * (5 %) fragment at the head; at most one per 10 fragments sent */
    ASSERT_LT(on.spur_head * 10, on.frags);
    /* the other detectors stay as honest as before (test_rudp_arq) */
    ASSERT_LT((on.spur - on.spur_head) * 20, on.retx);
    rt_on += on.rt_s, rt_off += off.rt_s;
    p99_on += on.p99_ms, p99_off += off.p99_ms;
  }
  fprintf(stderr, "3 seeds: rule on %.0f rt/s p99 %.1f ms, off %.0f rt/s "
          "p99 %.1f ms\n", rt_on / 3, p99_on / 3, rt_off / 3, p99_off / 3);
  ASSERT_TRUE(rt_on > rt_off * 1.10); /* doubles: not ASSERT_GT */
  ASSERT_TRUE(p99_on < p99_off * 0.90);
}

/* What this round's head rule adds (docs/rudp.md): one later fragment
 * acked is enough (dupthresh 1) and each head retransmission goes out as
 * two copies, against dupthresh 2 and one copy; same seeds.  The copies
 * cost datagrams: bounded at 8 % more per fragment (7.4 % here). */
static void test_head_copies_random(void) {
  double rt_new = 0, rt_old = 0, p99_new = 0, p99_old = 0;
  double dg_new = 0, dg_old = 0;
  for (uint64_t seed = 31; seed < 34; seed++) {
    struct rr_result n, o;
    run_rr(NP_ARQ_ORDERED, 1 * SIM_MS, seed, &n);
    g_dupthresh = 2, g_copies = 1;
    run_rr(NP_ARQ_ORDERED, 1 * SIM_MS, seed, &o);
    g_dupthresh = 1, g_copies = 2;
    print_rr("defaults", &n);
    print_rr("dup2 1copy", &o);
    rt_new += n.rt_s, rt_old += o.rt_s;
    p99_new += n.p99_ms, p99_old += o.p99_ms;
    dg_new += (double)n.dgrams / (double)n.frags;
    dg_old += (double)o.dgrams / (double)o.frags;
  }
  fprintf(stderr, "3 seeds: defaults %.0f rt/s p99 %.1f ms %.3f dgrams/frag, "
          "dupthresh 2 one copy %.0f rt/s p99 %.1f ms %.3f dgrams/frag\n",
          rt_new / 3, p99_new / 3, dg_new / 3, rt_old / 3, p99_old / 3,
          dg_old / 3);
  ASSERT_TRUE(rt_new > rt_old * 1.05); /* doubles: not ASSERT_GT */
  ASSERT_TRUE(p99_new < p99_old * 0.85);
  ASSERT_TRUE(dg_new < dg_old * 1.08);
}

/* The bound of issue 30's goal 1 on this path: ordered request/response
 * with the ideal repair above.  Asserted: the ARQ's defaults reach 90 %
 * of it (printed beside it). */
static void test_head_bound(void) {
  double rt = 0, rt_ideal = 0, p99_ideal = 0;
  for (uint64_t seed = 31; seed < 34; seed++) {
    struct rr_result r, i;
    run_rr(NP_ARQ_ORDERED, 1 * SIM_MS, seed, &r);
    g_ideal = 1;
    run_rr(NP_ARQ_ORDERED, 1 * SIM_MS, seed, &i);
    g_ideal = 0;
    print_rr("ideal", &i);
    rt += r.rt_s, rt_ideal += i.rt_s, p99_ideal += i.p99_ms;
  }
  fprintf(stderr, "3 seeds: ideal repair %.0f rt/s p99 %.1f ms, the ARQ "
          "%.0f rt/s (%.0f %% of it)\n", rt_ideal / 3, p99_ideal / 3, rt / 3,
          100 * rt / rt_ideal);
  ASSERT_TRUE(rt > rt_ideal * 0.90);
  ASSERT_TRUE(rt < rt_ideal);
}

/* Unordered delivery has no head to unblock: the rule stays off. */
static void test_head_unordered(void) {
  struct rr_result u;
  run_rr(NP_ARQ_UNORDERED, 1 * SIM_MS, 35, &u);
  print_rr("unordered", &u);
  ASSERT_EQ(u.retx_head, 0);
  ASSERT_GT(u.retx, 0);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  static const struct {
    const char *name;
    void (*fn)(void);
  } tests[] = {
      {"head_loss_fast", test_head_loss_fast},
      {"head_retransmission_lost", test_head_retransmission_lost},
      {"head_copies", test_head_copies},
      {"second_hole", test_second_hole},
      {"head_dupthresh", test_head_dupthresh},
      {"reordered_head_not_congestion", test_reordered_head_not_congestion},
      {"head_off_when_only_reordering", test_head_off_when_only_reordering},
      {"head_random", test_head_random},
      {"head_copies_random", test_head_copies_random},
      {"head_bound", test_head_bound},
      {"head_unordered", test_head_unordered},
  };
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    if (only && strcmp(only, tests[i].name) != 0)
      continue;
    fprintf(stderr, "-- %s\n", tests[i].name);
    tests[i].fn();
  }
  return 0;
}
