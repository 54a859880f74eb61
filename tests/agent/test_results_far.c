/*
 * test_results_far.c - the self-check's rules for two-host records
 * (resultset/np_results_far.h) on a real record of a two-namespace run
 * (data/far-record.json, made by udp --agent between two network
 * namespaces): clean as it is, and each tampering caught at its pointer -
 * a count on either host, a kernel delta, one stack claimed for both, the
 * server on another machine or build, a verdict flipped, the server's
 * life or a snapshot moved off the run, a socket of another server, the
 * server record gone, a far part on a record without --agent, a
 * --agent record without its far part (the self-check and the schema),
 * and the control channel (far.agent): required from 0.3 on, its
 * protocol, TLS suite, key id and address checked.  Then a real record of
 * udp --agent --agent-relay (data/far-relay-record.json, loss, copies and
 * reordering on the far relay): clean, valid, and each relay count, the
 * relay's record and its verdict caught when changed.
 */
#include <stdio.h>
#include <string.h>

#include "far_test_util.h"
#include "np_json.h"
#include "np_results_far.h"
#include "np_schema.h"
#include "np_test.h"
#include "np_time.h"


static cJSON *load(const char *path) {
  cJSON *d = NULL;
  struct np_errbuf eb;
  ASSERT_OK(np_json_load_file(path, NULL, &d, &eb));
  return d;
}


/* A check's passed flag. */
static void flip(cJSON *d, const char *name) {
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(d, "checks")) {
    if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name) == 0) {
      cJSON *p = cJSON_GetObjectItem(c, "passed");
      cJSON_ReplaceItemInObject(c, "passed",
                                cJSON_CreateBool(!cJSON_IsTrue(p)));
      return;
    }
  }
  NP_TEST_FAIL_("no check %s", name);
}

/* Shift an RFC 3339 timestamp by ms. */
static void shift(cJSON *d, const char *ptr, int64_t ms) {
  int64_t t;
  char buf[32];
  ASSERT_OK(np_time_parse(at(d, ptr)->valuestring, &t));
  np_time_utc_format(t + ms, buf, sizeof buf);
  set_str(d, ptr, buf);
}

/* The run schema's errors that say the far part is missing. */
static void on_schema(void *ctx, const char *pointer, const char *keyword,
                      const char *reason) {
  size_t *n = ctx;
  (void)pointer;
  (void)keyword;
  if (strcmp(reason, "missing required property \"far\"") == 0)
    (*n)++;
}

static size_t far_missing(const struct np_schema *run, const cJSON *d) {
  size_t n = 0;
  (void)np_schema_validate(run, d, on_schema, &n);
  return n;
}

typedef void (*tamper_fn)(cJSON *d);

static void t_sent(cJSON *d) { add(d, "/far/legs/sent", 1); }
static void t_server_count(cJSON *d) {
  add(d, "/far/server/record/serve/counters/received", 1);
}
static void t_delta(cJSON *d) {
  cJSON *delta = at(d, "/far/kernel/delta");
  ASSERT_TRUE(cJSON_GetArraySize(delta) > 0);
  cJSON_SetNumberValue(delta->child, delta->child->valuedouble + 1);
}
static void t_one_stack(cJSON *d) {
  set_str(d, "/far/stacks/far/netns",
          at(d, "/far/stacks/near/netns")->valuestring);
}
static void t_machine(cJSON *d) {
  set_str(d, "/far/server/record/machine/kernel_release", "0.0.0-other");
}
static void t_build(cJSON *d) {
  set_str(d, "/far/server/record/tool/binary_sha256",
          "0000000000000000000000000000000000000000000000000000000000000000");
}
static void t_verdict(cJSON *d) { flip(d, "far_legs_attributed"); }
static void t_served(cJSON *d) {
  set_str(d, "/far/server/stopped_by", "itself");
}
static void t_late_server(cJSON *d) {
  shift(d, "/far/server/record/started_at", 10000);
}
static void t_early_end(cJSON *d) {
  shift(d, "/far/server/record/ended_at", -10000);
}
static void t_snapshot(cJSON *d) { shift(d, "/far/snapshots/0/at", -3600000); }
static void t_socket(cJSON *d) {
  set_str(d, "/external/server/sockets/0/local", "10.231.0.2:1");
}
static void t_no_record(cJSON *d) {
  cJSON_ReplaceItemInObject(at(d, "/far/server"), "record",
                            cJSON_CreateNull());
}
static void t_no_agent(cJSON *d) {
  cJSON_DeleteItemFromObject(at(d, "/config"), "agent");
}
/* The channel as a 0.3 record names it (the fixture is a 0.1 record:
 * the address only, which its version allows). */
static void channel(cJSON *d, const char *version) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "address", at(d, "/config/agent")->valuestring);
  cJSON_AddStringToObject(a, "protocol", "netproof/agent/2");
  cJSON_AddStringToObject(a, "cipher", "TLS_AES_128_GCM_SHA256");
  cJSON_AddStringToObject(a, "key_id", "921645f03fa22f8b");
  cJSON_ReplaceItemInObject(at(d, "/far"), "agent", a);
  set_str(d, "/tool/version", version);
}
static void t_v03_no_channel(cJSON *d) { set_str(d, "/tool/version", "0.3.0"); }
static void t_cipher(cJSON *d) {
  channel(d, "0.3.0");
  set_str(d, "/far/agent/cipher", "TLS_NULL_WITH_NULL_NULL");
}
static void t_protocol(cJSON *d) {
  channel(d, "0.3.1");
  set_str(d, "/far/agent/protocol", "netproof/agent/1");
}
static void t_key_id(cJSON *d) {
  channel(d, "1.0.0");
  set_str(d, "/far/agent/key_id", "921645F03FA22F8B");
}
static void t_channel_address(cJSON *d) {
  channel(d, "0.3.0");
  set_str(d, "/far/agent/address", "10.9.9.9:7000");
}
static void t_hostname(cJSON *d) {
  set_str(d, "/far/stacks/near/hostname", "someone-else");
}

/* --agent-relay: the relay's share of the legs and its record. */
static void r_dropped(cJSON *d) {
  add(d, "/far/relay/record/relay/totals/c2s/lost_random", 1);
}
static void r_copies(cJSON *d) {
  add(d, "/far/legs/reply_leg/relay_duplicated", 1);
}
static void r_at_stop(cJSON *d) {
  add(d, "/far/relay/record/relay/totals/s2c/dropped_at_stop", 2);
}
static void r_in_network(cJSON *d) {
  add(d, "/far/legs/request_leg/in_network", 1);
}
static void r_no_relay(cJSON *d) {
  cJSON_DeleteItemFromObject(at(d, "/far"), "relay");
}
static void r_no_record(cJSON *d) {
  cJSON_ReplaceItemInObject(at(d, "/far/relay"), "record",
                            cJSON_CreateNull());
}
static void r_not_relay(cJSON *d) {
  set_str(d, "/far/relay/record/config/protocol", "serve");
}
static void r_forward(cJSON *d) {
  set_str(d, "/far/relay/record/config/forward", "10.231.0.2:9");
}
static void r_verdict(cJSON *d) { flip(d, "far_relay_passed"); }
static void r_stopped(cJSON *d) {
  set_str(d, "/far/relay/stopped_by", "itself");
}

static void relay_cases(const char *path) {
  cJSON *orig = load(path);
  struct seen s = {0};
  size_t n = np_results_far_check(orig, on_problem, &s);
  if (n != 0)
    NP_TEST_FAIL_("the real relay record: %zu problems at %s", n, s.ptrs);
  struct np_schema *run = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_schema_builtin("run", &run, &eb));
  ASSERT_OK(np_schema_validate(run, orig, NULL, NULL));
  /* the fixture exercises the relay: it dropped and copied both ways */
  ASSERT_GT(at(orig, "/far/legs/request_leg/relay_dropped")->valuedouble, 0);
  ASSERT_GT(at(orig, "/far/legs/request_leg/relay_duplicated")->valuedouble,
            0);
  ASSERT_GT(at(orig, "/far/legs/reply_leg/relay_dropped")->valuedouble, 0);
  ASSERT_GT(at(orig, "/far/legs/reply_leg/relay_duplicated")->valuedouble, 0);
  static const struct {
    const char *name;
    tamper_fn fn;
    const char *ptr;
  } cases[] = {
      {"relay dropped one more", r_dropped,
       "/far/legs/request_leg/relay_dropped"},
      {"relay copies", r_copies, "/far/legs/reply_leg/relay_duplicated"},
      {"dropped at the relay's stop", r_at_stop,
       "/far/legs/reply_leg/relay_dropped"},
      {"request leg's rest", r_in_network,
       "/far/legs/request_leg/in_network"},
      {"relay share without far.relay", r_no_relay,
       "/far/legs/request_leg/relay_dropped"},
      {"no relay record", r_no_record, "/far/relay/record"},
      {"not a relay record", r_not_relay,
       "/far/relay/record/config/protocol"},
      {"relay forwarding elsewhere", r_forward,
       "/far/relay/record/config/forward"},
      {"flipped relay verdict", r_verdict, "/checks"},
      {"relay not stopped by the agent", r_stopped, "/checks"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *d = cJSON_Duplicate(orig, 1);
    cases[i].fn(d);
    memset(&s, 0, sizeof s);
    n = np_results_far_check(d, on_problem, &s);
    if (n == 0 || strstr(s.ptrs, cases[i].ptr) == NULL)
      NP_TEST_FAIL_("%s: %zu problems at '%s', none at %s", cases[i].name, n,
                    s.ptrs, cases[i].ptr);
    cJSON_Delete(d);
  }
  np_schema_free(run);
  cJSON_Delete(orig);
  printf("test_results_far: the real relay record clean, %zu tamperings "
         "caught\n", sizeof cases / sizeof cases[0]);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 3);
  cJSON *orig = load(argv[1]);
  struct seen s = {0};
  size_t n = np_results_far_check(orig, on_problem, &s);
  if (n != 0)
    NP_TEST_FAIL_("the real record: %zu problems at %s", n, s.ptrs);
  static const struct {
    const char *name;
    tamper_fn fn;
    const char *ptr; /* a problem at this pointer (prefix) */
  } cases[] = {
      {"whole-run sent", t_sent, "/far/legs/sent"},
      {"server's count", t_server_count, "/far/legs/server_received"},
      {"far kernel delta", t_delta, "/far/kernel/delta/"},
      {"one stack", t_one_stack, "/checks"},
      {"server machine", t_machine, "/far/server/record/machine/"},
      {"server build", t_build, "/far/server/record/tool/binary_sha256"},
      {"flipped verdict", t_verdict, "/checks"},
      {"server not stopped by the agent", t_served, "/checks"},
      {"server started late", t_late_server, "/far/server/record/started_at"},
      {"server ended early", t_early_end, "/far/server/record/ended_at"},
      {"snapshot off the run", t_snapshot, "/far/snapshots/0/at"},
      {"another server's socket", t_socket, "/external/server/sockets/0"},
      {"no server record", t_no_record, "/far/server/record"},
      {"far part without --agent", t_no_agent, "/far"},
      {"near stack of another host", t_hostname, "/far/stacks/near/hostname"},
      {"0.3 record without its channel", t_v03_no_channel, "/far/agent"},
      {"channel cipher", t_cipher, "/far/agent/cipher"},
      {"channel protocol", t_protocol, "/far/agent/protocol"},
      {"channel key id", t_key_id, "/far/agent/key_id"},
      {"channel to another agent", t_channel_address, "/far/agent/address"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *d = cJSON_Duplicate(orig, 1);
    cases[i].fn(d);
    memset(&s, 0, sizeof s);
    n = np_results_far_check(d, on_problem, &s);
    if (n == 0 || strstr(s.ptrs, cases[i].ptr) == NULL)
      NP_TEST_FAIL_("%s: %zu problems at '%s', none at %s", cases[i].name, n,
                    s.ptrs, cases[i].ptr);
    cJSON_Delete(d);
  }
  /* a udp --agent record without its far part: caught, by the run
   * schema too (config.agent -> far required) */
  struct np_schema *run = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_schema_builtin("run", &run, &eb));
  ASSERT_EQ(far_missing(run, orig), 0);
  cJSON *d = cJSON_Duplicate(orig, 1);
  cJSON_DeleteItemFromObject(d, "far");
  memset(&s, 0, sizeof s);
  ASSERT_EQ(np_results_far_check(d, on_problem, &s), 1);
  ASSERT_STR_EQ(s.ptrs, "/far ");
  ASSERT_GT(far_missing(run, d), 0);
  /* a udp-external record without --agent needs none */
  cJSON_DeleteItemFromObject(at(d, "/config"), "agent");
  ASSERT_EQ(np_results_far_check(d, on_problem, &s), 0);
  ASSERT_EQ(far_missing(run, d), 0);
  cJSON_Delete(d);
  /* a 0.3 record with its channel is clean, and its schema holds */
  d = cJSON_Duplicate(orig, 1);
  channel(d, "0.3.0");
  memset(&s, 0, sizeof s);
  n = np_results_far_check(d, on_problem, &s);
  if (n != 0)
    NP_TEST_FAIL_("0.3 record with its channel: %zu problems at %s", n,
                  s.ptrs);
  ASSERT_EQ(far_missing(run, d), 0);
  cJSON_Delete(d);
  np_schema_free(run);
  cJSON_Delete(orig);
  relay_cases(argv[2]);
  printf("test_results_far: the real record clean, %zu tamperings caught\n",
         sizeof cases / sizeof cases[0]);
  return 0;
}
