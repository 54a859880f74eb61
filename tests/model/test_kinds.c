/*
 * test_kinds.c - the registry of record kinds (model/np_kind.h): one row
 * per kind in id order, protocols unique and found again, unknown ones
 * not found, which plan writes which kind, and each parser through the
 * kind's option table (the self-check's one config_argv path).
 */
#include <string.h>

#include "np_kind.h"
#include "np_rudp_config.h"
#include "np_test.h"
#include "np_udp_config.h"

static void test_rows(void) {
  static const char *const want[NP_KIND_N] = {
      "udp", "udp-external", "udp-stream", "serve", "rudp", "relay", "exec",
      "rudp-serve"};
  for (int i = 0; i < NP_KIND_N; i++) {
    const struct np_kind *k = np_kind_at((enum np_kind_id)i);
    ASSERT_NOT_NULL(k);
    ASSERT_EQ(k->id, i);
    ASSERT_STR_EQ(k->protocol, want[i]);
    ASSERT_TRUE(np_kind_find(want[i]) == k);
    ASSERT_NOT_NULL(k->command);
    ASSERT_TRUE((k->parse == NULL) == (k->cfg_size == 0));
    ASSERT_TRUE(k->parse == NULL || k->options != NULL);
    /* the report names another program's server, or what ran here */
    ASSERT_TRUE(!(k->external_server && k->in_process));
  }
  ASSERT_TRUE(np_kind_at(NP_KIND_N) == NULL);
  ASSERT_TRUE(np_kind_find("udp-extern") == NULL);
  ASSERT_TRUE(np_kind_find("") == NULL);
  ASSERT_TRUE(np_kind_find(NULL) == NULL);
  ASSERT_EQ(np_kind_find("rudp")->summary, NP_KIND_SUMMARY_ROUNDS);
  ASSERT_EQ(np_kind_find("exec")->summary, NP_KIND_SUMMARY_EXEC);
  ASSERT_EQ(np_kind_find("udp")->summary, NP_KIND_SUMMARY_ECHO);
  ASSERT_TRUE(np_kind_find("udp")->loopback && np_kind_find("rudp")->loopback);
  ASSERT_TRUE(!np_kind_find("udp-external")->loopback);
  ASSERT_TRUE(!np_kind_find("exec")->loopback);
}

static void test_plans(void) {
  /* a udp plan's children write udp, udp-external and udp-stream */
  ASSERT_TRUE(np_kind_in_plan(np_kind_find("udp"), "udp"));
  ASSERT_TRUE(np_kind_in_plan(np_kind_find("udp-external"), "udp"));
  ASSERT_TRUE(np_kind_in_plan(np_kind_find("udp-stream"), "udp"));
  ASSERT_TRUE(!np_kind_in_plan(np_kind_find("rudp"), "udp"));
  ASSERT_TRUE(!np_kind_in_plan(np_kind_find("udp"), "rudp"));
  ASSERT_TRUE(!np_kind_in_plan(np_kind_find("udp"), "udp-stream"));
  ASSERT_TRUE(np_kind_in_plan(np_kind_find("exec"), "exec"));
  ASSERT_TRUE(!np_kind_in_plan(NULL, "udp"));
  ASSERT_TRUE(!np_kind_in_plan(np_kind_find("udp"), NULL));
}

static void test_parse(void) {
  struct np_errbuf eb = {{0}};
  int help = 0;
  struct np_udp_config u;
  char *uv[] = {"udp", "--payload", "200", "--connect", "127.0.0.1:9"};
  const struct np_kind *k = np_kind_find("udp-external");
  ASSERT_EQ(k->cfg_size, sizeof u);
  ASSERT_OK(k->parse(5, uv, &u, &help, &eb));
  ASSERT_EQ(u.payload, 200);
  ASSERT_EQ(u.mode, NP_UDP_MODE_CLIENT);
  char *bad[] = {"udp", "--payload", "0"};
  ASSERT_EQ(k->parse(3, bad, &u, &help, &eb), NP_EUSAGE);
  ASSERT_TRUE(strstr(eb.msg, "--payload") != NULL);
  struct np_rudp_config r;
  char *rv[] = {"rudp", "--rounds", "2"};
  k = np_kind_find("rudp");
  ASSERT_EQ(k->cfg_size, sizeof r);
  ASSERT_OK(k->parse(3, rv, &r, &help, &eb));
  ASSERT_EQ(r.rounds, 2);
}

int main(void) {
  test_rows();
  test_plans();
  test_parse();
  return 0;
}
