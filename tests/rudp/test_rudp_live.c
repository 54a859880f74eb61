/*
 * test_rudp_live.c - `netproof-bench rudp` in-process over real loopback
 * sockets and the relay: one short run per profile with content and order
 * checks, a rate-limited link with each congestion controller, the pool
 * IO model, bad options, and the record against the schemas.
 *
 * Usage: test_rudp_live CASE [SCHEMA_DIR]   (one ctest entry per case)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_json.h"
#include "np_rudp_cli.h"
#include "np_test.h"
#ifdef NP_RUDP_TEST_SCHEMA
#include "np_schema.h"
#endif

static const char *g_schema_dir = ".";

static int run(const char *const *args, int n) {
  char *argv[64];
  ASSERT_LT(n, 63);
  argv[0] = (char *)"rudp";
  for (int i = 0; i < n; i++)
    argv[i + 1] = (char *)args[i];
  argv[n + 1] = NULL;
  return np_rudp_cli_main(n + 1, argv);
}

static cJSON *load(const char *path) {
  cJSON *doc = NULL;
  struct np_errbuf eb;
  if (np_json_load_file(path, NULL, &doc, &eb) != 0)
    NP_TEST_FAIL_("%s", eb.msg);
  return doc;
}

static const cJSON *get(const cJSON *o, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  const cJSON *cur = o;
  for (char *tok = strtok(buf, "/"); tok && cur; tok = strtok(NULL, "/")) {
    if (cJSON_IsArray(cur))
      cur = cJSON_GetArrayItem(cur, atoi(tok));
    else
      cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
  }
  if (cur == NULL)
    NP_TEST_FAIL_("record has no %s", path);
  return cur;
}

static double num(const cJSON *o, const char *path) {
  const cJSON *v = get(o, path);
  ASSERT_TRUE(cJSON_IsNumber(v));
  return v->valuedouble;
}

static void check_passed(const cJSON *doc, const char *name) {
  const cJSON *checks = get(doc, "checks");
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name) == 0) {
      if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "passed")))
        NP_TEST_FAIL_("check %s failed: %s", name,
                      cJSON_GetObjectItem(c, "detail")->valuestring);
      return;
    }
  }
  NP_TEST_FAIL_("no check %s", name);
}

#ifdef NP_RUDP_TEST_SCHEMA
static void on_err(void *ctx, const char *ptr, const char *kw,
                   const char *reason) {
  (void)ctx;
  fprintf(stderr, "schema: %s: %s: %s\n", ptr, kw, reason);
}
#endif

/* The record minus "rudp" against the run schema, "rudp" against the
 * part schema (until the lead merges it into run.schema.json). */
static void validate(const cJSON *doc) {
#ifdef NP_RUDP_TEST_SCHEMA
  struct np_errbuf eb;
  struct np_schema *run_s = NULL, *part_s = NULL;
  char path[512];
  snprintf(path, sizeof path, "%s/rudp-part.schema.json", g_schema_dir);
  ASSERT_OK(np_schema_builtin("run", &run_s, &eb));
  if (np_schema_load_file(path, &part_s, &eb) != 0)
    NP_TEST_FAIL_("%s", eb.msg);
  cJSON *copy = cJSON_Duplicate(doc, 1);
  cJSON *part = cJSON_DetachItemFromObjectCaseSensitive(copy, "rudp");
  ASSERT_NOT_NULL(part);
  ASSERT_OK(np_schema_validate(run_s, copy, on_err, NULL));
  ASSERT_OK(np_schema_validate(part_s, part, on_err, NULL));
  cJSON_Delete(part);
  cJSON_Delete(copy);
  np_schema_free(run_s);
  np_schema_free(part_s);
#else
  (void)doc;
#endif
}

static void tmp_path(char *buf, size_t len, const char *tag) {
  snprintf(buf, len, "/tmp/np_rudp_test_%d_%s.json", (int)getpid(), tag);
}

static void test_profile(const char *profile) {
  char out[128];
  tmp_path(out, sizeof out, profile);
  const char *args[] = {"--profile", profile, "--seconds", "0.5", "--warmup",
                        "0.2", "--rounds", "1", "--clients", "2",
                        "--window", "8", "--payload", "3000", "--quiet",
                        "--output", out};
  ASSERT_EQ(run(args, (int)(sizeof args / sizeof args[0])), 0);
  cJSON *doc = load(out);
  ASSERT_STR_EQ(get(doc, "status")->valuestring, "passed");
  check_passed(doc, "content");
  check_passed(doc, "order");
  check_passed(doc, "send_completion");
  check_passed(doc, "shutdown");
  ASSERT_GT(num(doc, "measurement/roundtrips"), 20);
  ASSERT_EQ(num(doc, "counters/lost"), 0);
  ASSERT_EQ(num(doc, "rudp/header/fragment_max_bytes"), 1162);
  if (strcmp(profile, "none") != 0) {
    ASSERT_GT(num(doc, "rudp/rounds/0/relay/c2s/delayed"), 0);
    ASSERT_GT(num(doc, "rudp/rounds/0/measurement/rtt_us/min"), 20000);
  }
  if (strcmp(profile, "random") == 0)
    ASSERT_GT(num(doc, "rudp/rounds/0/arq/retransmits"), 0);
  validate(doc);
  cJSON_Delete(doc);
  unlink(out);
}

/* 1 MB/s per route and direction, 5 ms delay, 64-packet route capacity,
 * 4 KiB messages with 32 in flight per client: 128 fragments would
 * overflow the route; a congestion controller must keep the queue short
 * yet keep the link busy. */
static void test_rate(const char *cc, double *util, double *overflow_frac) {
  char out[128];
  tmp_path(out, sizeof out, cc);
  const char *args[] = {"--profile", "none", "--rate-bytes", "1000000",
                        "--delay-ms", "5", "--relay-capacity-packets", "64",
                        "--payload", "4096", "--window", "32", "--clients",
                        "2", "--cc", cc, "--seconds", "1.5", "--warmup",
                        "1", "--rounds", "1", "--quiet", "--output", out};
  int rc = run(args, (int)(sizeof args / sizeof args[0]));
  ASSERT_TRUE(rc == 0 || rc == 1); /* overflow fails the record's check */
  cJSON *doc = load(out);
  check_passed(doc, "content");
  check_passed(doc, "order");
  double wall = num(doc, "measurement/seconds") +
                num(doc, "measurement/drain_seconds");
  double bytes = num(doc, "rudp/rounds/0/arq/udp_payload_bytes_sent");
  /* both directions, both routes: capacity 2 x 2 x 1 MB/s */
  *util = bytes / (wall * 4.0 * 1e6);
  /* persistent = during the measurement, after warm-up's probing */
  *overflow_frac = num(doc, "rudp/rounds/0/relay/window/overflow") /
                   num(doc, "rudp/rounds/0/relay/window/received");
  fprintf(stderr, "cc %s: link utilisation %.2f, overflow %.4f, p99 %.1f ms\n",
          cc, *util, *overflow_frac,
          num(doc, "measurement/rtt_us/p99") / 1000.0);
  cJSON_Delete(doc);
  unlink(out);
}

static void test_rate_each_cc(void) {
  double u_bbr, o_bbr, u_reno, o_reno, u_none, o_none;
  test_rate("bbr", &u_bbr, &o_bbr);
  test_rate("newreno", &u_reno, &o_reno);
  test_rate("none", &u_none, &o_none);
  ASSERT_TRUE(u_bbr > 0.6 && u_reno > 0.6);
  ASSERT_TRUE(o_bbr < 0.01);  /* BBR keeps ~1 BDP queued: no overflow  */
  ASSERT_TRUE(o_reno < 0.05); /* NewReno overflows only when probing  */
  ASSERT_TRUE(o_none > o_bbr); /* without cc the route overflows      */
}

static void test_pool(void) {
  char out[128];
  tmp_path(out, sizeof out, "pool");
  const char *args[] = {"--profile", "none", "--io-model", "pool",
                        "--io-threads", "2", "--clients", "4", "--seconds",
                        "0.5", "--warmup", "0.2", "--rounds", "2", "--quiet",
                        "--output", out};
  ASSERT_EQ(run(args, (int)(sizeof args / sizeof args[0])), 0);
  cJSON *doc = load(out);
  ASSERT_EQ(num(doc, "config/io_threads"), 2);
  ASSERT_EQ(cJSON_GetArraySize(get(doc, "rudp/rounds")), 2);
  ASSERT_EQ(num(doc, "rudp/rounds/1/seed"), 43);
  validate(doc);
  cJSON_Delete(doc);
  unlink(out);
}

static void test_bad_options(void) {
  static const char *const bad[][4] = {
      {"--fec", "fixed", NULL},        {"--fec", "adaptive", NULL},
      {"--fec", "maybe", NULL},        {"--cc", "cubic", NULL},
      {"--payload", "0", NULL},        {"--clients", "0", NULL},
      {"--window", "x", NULL},         {"--io-threads", "2", NULL},
      {"--io-model", "split", NULL},   {"--loss-percent", "200", NULL},
      {"--profile", "lossy", NULL},    {"--seconds", "0", NULL},
      {"--bogus", "1", NULL},          {"--rounds", "0", NULL},
      {"--mtu", "20", NULL},           {"--seconds", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int n = bad[i][1] ? 2 : 1;
    ASSERT_EQ(run(bad[i], n), 2);
  }
  const char *help[] = {"--help"};
  ASSERT_EQ(run(help, 1), 0);
}

int main(int argc, char **argv) {
  ASSERT_GE(argc, 2);
  if (argc > 2)
    g_schema_dir = argv[2];
  const char *c = argv[1];
  if (!strcmp(c, "none") || !strcmp(c, "random") || !strcmp(c, "burst") ||
      !strcmp(c, "sustained"))
    test_profile(c);
  else if (!strcmp(c, "rate"))
    test_rate_each_cc();
  else if (!strcmp(c, "pool"))
    test_pool();
  else if (!strcmp(c, "bad_options"))
    test_bad_options();
  else
    NP_TEST_FAIL_("unknown case %s", c);
  return 0;
}
