/*
 * test_relay_options.c - profiles as in the reference, overrides in any
 * order (--profile first), bad option values (worded by the shared option
 * table: "--loss-percent -1: out of range 0..100"), and the config's JSON.
 */
#include <string.h>

#include "np_relay.h"
#include "np_test.h"

static void test_profiles(void) {
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  ASSERT_STR_EQ(cfg.profile, "none");
  ASSERT_UINT_EQ(cfg.capacity_bytes, 8u << 20);
  ASSERT_UINT_EQ(cfg.capacity_packets, 8192);
  ASSERT_UINT_EQ(cfg.seed, 42);

  ASSERT_OK(np_relay_profile_apply(&cfg, "random", NULL));
  for (int d = 0; d < NP_RELAY_DIRS; d++) {
    ASSERT_DBL_NEAR(cfg.dir[d].loss_pct, 5, 0);
    ASSERT_UINT_EQ(cfg.dir[d].delay_ns, 10000000);
    ASSERT_DBL_NEAR(cfg.dir[d].dup_pct, 1, 0);
    ASSERT_DBL_NEAR(cfg.dir[d].reorder_pct, 5, 0);
    ASSERT_UINT_EQ(cfg.dir[d].reorder_delay_ns, 15000000);
    ASSERT_EQ(cfg.dir[d].burst_m, 0);
  }
  ASSERT_OK(np_relay_profile_apply(&cfg, "burst", NULL));
  ASSERT_EQ(cfg.dir[1].burst_n, 3);
  ASSERT_EQ(cfg.dir[1].burst_m, 100);
  ASSERT_DBL_NEAR(cfg.dir[1].loss_pct, 0, 0);
  ASSERT_OK(np_relay_profile_apply(&cfg, "sustained", NULL));
  ASSERT_EQ(cfg.dir[0].burst_n, 3);
  ASSERT_DBL_NEAR(cfg.dir[0].loss_pct, 2, 0);
  struct np_errbuf eb;
  ASSERT_EQ(np_relay_profile_apply(&cfg, "wan", &eb), NP_EUSAGE);
  ASSERT_TRUE(strstr(eb.msg, "--profile") != NULL);
}

static void test_parse(void) {
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  /* --profile comes last on the command line but is applied first. */
  const char *names[] = {"--loss-percent", "--delay-ms", "--burst-loss",
                         "--seed", "--rate-bytes", "--jitter-ms",
                         "--relay-capacity-packets", "--profile"};
  const char *values[] = {"7.5", "2.5", "2/50", "44", "125000", "1",
                          "100", "random"};
  struct np_errbuf eb;
  ASSERT_OK(np_relay_options_parse(&cfg, 8, names, values, &eb));
  ASSERT_STR_EQ(cfg.profile, "random");
  ASSERT_DBL_NEAR(cfg.dir[0].loss_pct, 7.5, 0);
  ASSERT_UINT_EQ(cfg.dir[1].delay_ns, 2500000);
  ASSERT_EQ(cfg.dir[0].burst_n, 2);
  ASSERT_EQ(cfg.dir[0].burst_m, 50);
  ASSERT_UINT_EQ(cfg.seed, 44);
  ASSERT_UINT_EQ(cfg.dir[1].rate_bytes, 125000);
  ASSERT_UINT_EQ(cfg.dir[0].jitter_ns, 1000000);
  ASSERT_UINT_EQ(cfg.capacity_packets, 100);
  ASSERT_DBL_NEAR(cfg.dir[0].dup_pct, 1, 0); /* from the profile */

  /* gemodel: tc defaults r = 100 - p, 1-h = 100, 1-k = 0. */
  ASSERT_OK(np_relay_option_set(&cfg, "--ge-p", "3", &eb));
  ASSERT_EQ(cfg.dir[0].ge_enabled, 1);
  ASSERT_DBL_NEAR(cfg.dir[0].ge_r, 97, 0);
  ASSERT_DBL_NEAR(cfg.dir[0].ge_1h, 100, 0);
  ASSERT_OK(np_relay_option_set(&cfg, "ge-r", "30", &eb));
  ASSERT_OK(np_relay_option_set(&cfg, "--ge-1-h", "80", &eb));
  ASSERT_OK(np_relay_option_set(&cfg, "--ge-1-k", "0.5", &eb));
  ASSERT_DBL_NEAR(cfg.dir[1].ge_r, 30, 0);
  ASSERT_DBL_NEAR(cfg.dir[1].ge_1h, 80, 0);
  ASSERT_DBL_NEAR(cfg.dir[1].ge_1k, 0.5, 0);

  ASSERT_UINT_EQ(cfg.timer_spin_ns, 200000); /* the table's 200 us */
  ASSERT_OK(np_relay_option_set(&cfg, "--relay-spin-us", "50", &eb));
  ASSERT_UINT_EQ(cfg.timer_spin_ns, 50000);
  ASSERT_TRUE(np_relay_option_known("--reorder-delay-ms"));
  ASSERT_TRUE(np_relay_option_known("duplicate-percent"));
  ASSERT_TRUE(!np_relay_option_known("--payload"));
}

static void expect_bad(const char *name, const char *value, const char *needle) {
  struct np_relay_config cfg;
  struct np_errbuf eb;
  np_relay_config_init(&cfg);
  memset(&eb, 0, sizeof(eb));
  ASSERT_EQ(np_relay_option_set(&cfg, name, value, &eb), NP_EUSAGE);
  if (strstr(eb.msg, needle) == NULL)
    NP_TEST_FAIL_("message for %s=%s lacks '%s': %s", name, value, needle,
                  eb.msg);
}

static void test_bad(void) {
  expect_bad("--loss-percent", "101", "--loss-percent");
  expect_bad("--loss-percent", "-1", "out of range 0..100");
  expect_bad("--loss-percent", "abc", "expected a number");
  expect_bad("--loss-percent", "nan", "expected a number");
  expect_bad("--delay-ms", "", "expected a number");
  expect_bad("--burst-loss", "5/3", "N/M");
  expect_bad("--burst-loss", "3", "N/M");
  expect_bad("--burst-loss", "3/x", "N/M");
  expect_bad("--seed", "-4", "integer");
  expect_bad("--seed", "99999999999999999999999", "integer");
  expect_bad("--rate-bytes", "1e6", "integer");
  expect_bad("--profile", "lossy",
             "expected none, random, burst or sustained");
  expect_bad("--frobnicate", "1", "unknown relay option");
  expect_bad("--ge-p", "200", "--ge-p");
  expect_bad("--relay-spin-us", "20000", "out of range 0..10000");
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  ASSERT_EQ(np_relay_option_set(&cfg, "--delay-ms", NULL, NULL), NP_EUSAGE);
  cfg.dir[1].burst_n = 5;
  cfg.dir[1].burst_m = 2;
  ASSERT_EQ(np_relay_config_validate(&cfg, NULL), NP_EUSAGE);
}

static void test_json(void) {
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  ASSERT_OK(np_relay_profile_apply(&cfg, "burst", NULL));
  cJSON *j = np_relay_config_json(&cfg);
  ASSERT_NOT_NULL(j);
  ASSERT_STR_EQ(cJSON_GetObjectItem(j, "profile")->valuestring, "burst");
  cJSON *c2s = cJSON_GetObjectItem(j, "c2s");
  ASSERT_NOT_NULL(c2s);
  ASSERT_DBL_NEAR(cJSON_GetObjectItem(c2s, "burst_loss_n")->valuedouble, 3, 0);
  ASSERT_DBL_NEAR(cJSON_GetObjectItem(c2s, "delay_ms")->valuedouble, 10, 0);
  ASSERT_DBL_NEAR(cJSON_GetObjectItem(c2s, "reorder_delay_ms")->valuedouble,
                  15, 0);
  cJSON_Delete(j);
}

int main(void) {
  test_profiles();
  test_parse();
  test_bad();
  test_json();
  printf("relay options: ok\n");
  return 0;
}
