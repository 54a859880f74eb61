/*
 * test_rudp_fec_live.c - `netproof-bench rudp --fec fixed|adaptive|window`
 * in-process over loopback through the relay (issue 8): short runs with
 * content / order / completion / shutdown checks, FEC repairing what the
 * relay loses so the ARQ retransmits little, duplication and reordering,
 * bursts longer than the parity falling back to ARQ, the adaptive policy
 * following a loss rate that changes mid-run (Gilbert-Elliott phases),
 * the pool IO model, and the record against the schemas (including a
 * deliberately broken record the built-in validation must refuse).
 *
 * Usage: test_rudp_fec_live CASE [SCHEMA_DIR]   (one ctest entry per case)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_rudp_record.h"
#include "np_test.h"
#include "rudp_live_util.h"

static const char *g_schema_dir = ".";

#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Run with the common short-run options plus extra; returns the record. */
static cJSON *run_fec(const char *tag, const char *const *extra, int nextra,
                      int want_rc) {
  char out[128];
  const char *args[64];
  int n = 0;
  static const char *const base[] = {"--seconds", "0.8", "--warmup", "0.3",
                                     "--rounds", "1", "--clients", "2",
                                     "--window", "8", "--payload", "3000",
                                     "--quiet"};
  rl_tmp_path(out, sizeof out, tag);
  for (int i = 0; i < NARGS(base); i++)
    args[n++] = base[i];
  for (int i = 0; i < nextra; i++)
    args[n++] = extra[i];
  args[n++] = "--output";
  args[n++] = out;
  ASSERT_EQ(rl_run(args, n), want_rc);
  cJSON *doc = rl_load(out);
  unlink(out);
  return doc;
}

static void all_checks_passed(const cJSON *doc) {
  ASSERT_STR_EQ(rl_get(doc, "status")->valuestring, "passed");
  rl_check_passed(doc, "content");
  rl_check_passed(doc, "order");
  rl_check_passed(doc, "send_completion");
  rl_check_passed(doc, "shutdown");
  ASSERT_EQ(rl_num(doc, "counters/lost"), 0);
  ASSERT_EQ(rl_num(doc, "counters/content_errors"), 0);
  ASSERT_EQ(rl_num(doc, "counters/sequence_errors"), 0);
}

/* Invariants of every FEC round. */
static void fec_invariants(const cJSON *doc, const char *mode) {
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  ASSERT_STR_EQ(rl_get(f, "mode")->valuestring, mode);
  int win = !strcmp(mode, "window"); /* 6 B repair header + u16 length */
  ASSERT_EQ(rl_num(doc, "rudp/header/fragment_max_bytes"), win ? 1154 : 1156);
  ASSERT_EQ(rl_num(doc, "rudp/header/fec_reserve_bytes"), win ? 8 : 6);
  ASSERT_GT(rl_num(f, "data_shards_sent"), 50);
  ASSERT_EQ(rl_num(f, "header_bytes"), 3 * rl_num(f, "data_shards_sent"));
  ASSERT_EQ(rl_num(f, "malformed"), 0);
  ASSERT_EQ(rl_num(f, "output_errors"), 0);
  /* every FEC-rebuilt fragment reached the ARQ as recovered input */
  ASSERT_EQ(rl_num(f, "recovered_into_arq"), rl_num(f, "recoveries"));
  ASSERT_GT(cJSON_GetArraySize(rl_get(f, "retained/samples_bytes")), 3);
  ASSERT_LE(rl_num(f, "retained/sample_max_bytes"),
            rl_num(f, "retained/peak_sum_bytes"));
  ASSERT_LE(rl_num(f, "retained/peak_sum_bytes"),
            rl_num(f, "retained/budget_bytes_sum"));
  /* overhead counts what reached the socket: FEC bytes included */
  ASSERT_GT(rl_num(doc, "rudp/rounds/0/arq/udp_payload_bytes_sent"),
            rl_num(doc, "rudp/rounds/0/arq/arq_bytes_sent") +
                rl_num(f, "parity_bytes"));
  if (win) { /* the sliding-window codec's own counters */
    const cJSON *w = rl_get(f, "window");
    ASSERT_EQ(rl_num(w, "window"), 16);
    ASSERT_EQ(rl_num(w, "repairs"), rl_num(f, "parity_sent"));
    ASSERT_LE(rl_num(w, "repairs_tail"), rl_num(w, "repairs"));
    /* one equation per useful repair, one equation per rebuilt datagram */
    ASSERT_LE(rl_num(f, "recoveries"),
              rl_num(f, "client/parity_in") + rl_num(f, "server/parity_in") -
                  rl_num(w, "repairs_redundant") - rl_num(w, "repairs_late") +
                  rl_num(w, "equations_at_start"));
    ASSERT_EQ(rl_num(f, "groups_encoded"), 0);
  } else {
    ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(f, "window") == NULL);
  }
  rl_validate(doc, g_schema_dir);
}

/* A record with an impossible value must be refused by the command's own
 * validation, naming the pointer. */
static void schema_rejects(const cJSON *doc) {
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_bench_record_validate(doc, &eb));
  cJSON *bad = cJSON_Duplicate(doc, 1);
  cJSON *f = (cJSON *)rl_get(bad, "rudp/rounds/0/fec");
  cJSON_ReplaceItemInObjectCaseSensitive(f, "parity_max",
                                         cJSON_CreateNumber(9));
  ASSERT_EQ(np_bench_record_validate(bad, &eb), NP_ESCHEMA);
  ASSERT_TRUE(strstr(eb.msg, "/rudp/rounds/0/fec/parity_max") != NULL);
  cJSON_Delete(bad);
}

/* fixed or adaptive under the random or burst profile */
static void test_profile(const char *mode, const char *profile) {
  const char *extra[] = {"--fec", mode, "--profile", profile};
  cJSON *doc = run_fec(profile, extra, NARGS(extra), 0);
  all_checks_passed(doc);
  fec_invariants(doc, mode);
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  double rec = rl_num(f, "recoveries");
  double retx = rl_num(doc, "rudp/rounds/0/arq/retransmits");
  fprintf(stderr, "%s/%s: recoveries %.0f, retransmits %.0f, unrecoverable "
          "%.0f, parity mean %.2f, applied loss %.2f %%\n", mode, profile,
          rec, retx, rl_num(f, "unrecoverable_groups"),
          rl_num(f, "parity_mean"),
          rl_num(doc, "rudp/rounds/0/relay/window/applied_loss_percent"));
  ASSERT_GT(rec, 10);
  ASSERT_GT(rl_num(f, "parity_sent"), 0);
  /* Whatever the machine's speed: a rebuilt shard was lost or held back
   * (reordered) by the relay, so recoveries cannot exceed what the relay
   * took away in the same window, plus the shards of groups that straddle
   * the window edges (at most one group per client and direction).  How
   * many repairs FEC wins over retransmission depends on timing and is
   * measured by bench/scripts/rudp_fec_targets.sh, not asserted here. */
  double taken = rl_num(doc, "rudp/rounds/0/relay/window/lost") +
                 rl_num(doc, "rudp/rounds/0/relay/window/reordered");
  ASSERT_GT(taken, 0);
  ASSERT_LE(rec, taken + 2 * 8 * 4);
  if (!strcmp(mode, "fixed"))
    ASSERT_LE(rl_num(f, "parity_max"), 2);
  if (!strcmp(profile, "random"))
    schema_rejects(doc);
  cJSON_Delete(doc);
}

/* Heavy duplication and reordering, no loss: duplicate shards and parity
 * before data are absorbed; nothing is corrupted or delivered twice. */
static void test_dup_reorder(void) {
  const char *extra[] = {"--fec", "fixed", "--profile", "none",
                         "--delay-ms", "2", "--duplicate-percent", "20",
                         "--reorder-percent", "20", "--reorder-delay-ms",
                         "4"};
  cJSON *doc = run_fec("dupreo", extra, NARGS(extra), 0);
  all_checks_passed(doc);
  fec_invariants(doc, "fixed");
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  ASSERT_GT(rl_num(f, "dup_shards"), 10);
  ASSERT_GT(rl_num(doc, "rudp/rounds/0/relay/window/reordered"), 10);
  ASSERT_EQ(rl_num(doc, "rudp/rounds/0/relay/window/lost"), 0);
  ASSERT_EQ(rl_num(f, "unrecoverable_groups"), 0);
  cJSON_Delete(doc);
}

/* Bursts of 4 against 1 parity shard per group: groups are lost beyond
 * repair, counted, and the ARQ retransmits their fragments. */
static void test_unrecoverable(void) {
  const char *extra[] = {"--fec", "fixed", "--fec-parity", "1",
                         "--profile", "none", "--delay-ms", "5",
                         "--burst-loss", "4/40"};
  cJSON *doc = run_fec("unrec", extra, NARGS(extra), 0);
  all_checks_passed(doc);
  fec_invariants(doc, "fixed");
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  fprintf(stderr, "burst 4/40, parity 1: unrecoverable %.0f, recoveries "
          "%.0f, retransmits %.0f\n", rl_num(f, "unrecoverable_groups"),
          rl_num(f, "recoveries"),
          rl_num(doc, "rudp/rounds/0/arq/retransmits"));
  ASSERT_GT(rl_num(f, "unrecoverable_groups"), 0);
  ASSERT_GT(rl_num(doc, "rudp/rounds/0/arq/retransmits"), 0);
  ASSERT_LE(rl_num(f, "parity_max"), 1);
  cJSON_Delete(doc);
}

/* Gilbert-Elliott: ~500-packet phases without loss alternate with phases
 * of 20 % loss, so the loss the peer reports changes mid-run and the
 * adaptive policy must move both up and down. */
static void test_adaptive_moves(void) {
  const char *extra[] = {"--fec", "adaptive", "--profile", "none",
                         "--delay-ms", "5", "--ge-p", "0.2", "--ge-r",
                         "0.2", "--ge-1-h", "20", "--ge-1-k", "0",
                         "--seconds", "1.5"};
  cJSON *doc = run_fec("ge", extra, NARGS(extra), 0);
  all_checks_passed(doc);
  fec_invariants(doc, "adaptive");
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  const cJSON *h = rl_get(f, "parity_hist");
  double low = cJSON_GetArrayItem(h, 0)->valuedouble +
               cJSON_GetArrayItem(h, 1)->valuedouble;
  double high = cJSON_GetArrayItem(h, 3)->valuedouble +
                cJSON_GetArrayItem(h, 4)->valuedouble;
  fprintf(stderr, "adaptive under GE: policy changes %.0f, groups with "
          "m<=1 %.0f, m>=3 %.0f\n", rl_num(f, "policy_changes"), low, high);
  ASSERT_GE(rl_num(f, "policy_changes"), 4);
  ASSERT_GT(low, 0);
  ASSERT_GT(high, 0);
  ASSERT_GE(rl_num(f, "parity_max"), 3);
  cJSON_Delete(doc);
}

/* Server on lane 0, clients on two lanes: FEC datagrams of every client
 * demultiplexed by route address. */
static void test_pool(void) {
  const char *extra[] = {"--fec", "adaptive", "--profile", "random",
                         "--io-model", "pool", "--io-threads", "2",
                         "--clients", "4"};
  cJSON *doc = run_fec("fpool", extra, NARGS(extra), 0);
  all_checks_passed(doc);
  fec_invariants(doc, "adaptive");
  ASSERT_EQ(rl_num(doc, "rudp/rounds/0/arq/foreign_datagrams"), 0);
  cJSON_Delete(doc);
}

int main(int argc, char **argv) {
  ASSERT_GE(argc, 2);
  if (argc > 2)
    g_schema_dir = argv[2];
  const char *c = argv[1];
  if (!strcmp(c, "fixed_random"))
    test_profile("fixed", "random");
  else if (!strcmp(c, "adaptive_random"))
    test_profile("adaptive", "random");
  else if (!strcmp(c, "fixed_burst"))
    test_profile("fixed", "burst");
  else if (!strcmp(c, "adaptive_burst"))
    test_profile("adaptive", "burst");
  else if (!strcmp(c, "window_random"))
    test_profile("window", "random");
  else if (!strcmp(c, "window_burst"))
    test_profile("window", "burst");
  else if (!strcmp(c, "dup_reorder"))
    test_dup_reorder();
  else if (!strcmp(c, "unrecoverable"))
    test_unrecoverable();
  else if (!strcmp(c, "adaptive_moves"))
    test_adaptive_moves();
  else if (!strcmp(c, "pool"))
    test_pool();
  else
    NP_TEST_FAIL_("unknown case %s", c);
  return 0;
}
