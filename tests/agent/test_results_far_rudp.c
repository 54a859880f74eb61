/*
 * test_results_far_rudp.c - the self-check's rules for rudp --agent
 * records (resultset/np_results_far.h) on a real record of a
 * two-namespace run (data/far-rudp-relay-record.json: rudp --agent
 * --agent-relay loss-percent=3,duplicate-percent=2,delay-ms=2 between two
 * network namespaces): clean as it is and valid against the run schema,
 * and each tampering caught at its pointer - the round's server counts
 * against the far endpoint's record (either side changed), its
 * connections, an error the far side saw hidden, the endpoint's record of
 * another kind, transport, machine or build, stopped early, its status
 * against its checks, the far relay's forwarded count against the
 * endpoint's socket, the channel's address, the server's life off the
 * run, and the far part removed from a --agent record (the self-check
 * and the schema).
 */
#include <stdio.h>
#include <string.h>

#include "far_test_util.h"
#include "np_json.h"
#include "np_results_far.h"
#include "np_schema.h"
#include "np_test.h"
#include "np_time.h"



#define REC "/far/server/record"
#define ROUND "/rudp/rounds/0"

static void t_near_count(cJSON *d) {
  add(d, ROUND "/counters/server_received", 1);
}
static void t_far_count(cJSON *d) {
  add(d, REC "/rudp_serve/counters/echoed", -1);
}
static void t_conns(cJSON *d) {
  add(d, REC "/rudp_serve/connections/total", 1);
}
static void t_hidden_error(cJSON *d) {
  add(d, REC "/rudp_serve/counters/content_errors", 1);
}
static void t_kind(cJSON *d) { set_str(d, REC "/config/protocol", "serve"); }
static void t_transport(cJSON *d) { add(d, REC "/config/window", 1); }
static void t_seed(cJSON *d) { add(d, REC "/config/seed", 1); }
static void t_machine(cJSON *d) {
  set_str(d, REC "/machine/kernel_release", "0.0.0-other");
}
static void t_build(cJSON *d) {
  set_str(d, REC "/tool/binary_sha256",
          "0000000000000000000000000000000000000000000000000000000000000000");
}
static void t_stopped(cJSON *d) {
  set_str(d, REC "/rudp_serve/stopped_by", "max-seconds");
}
static void t_status(cJSON *d) { set_str(d, REC "/status", "failed"); }
static void t_forwarded(cJSON *d) {
  add(d, "/far/relay/record/relay/totals/c2s/forwarded", 1);
}
static void t_endpoint_read(cJSON *d) {
  add(d, REC "/rudp_serve/io/recv_datagrams", -1);
}
static void t_listening(cJSON *d) {
  set_str(d, REC "/rudp_serve/listening", "10.0.0.9:9");
}
static void t_address(cJSON *d) {
  set_str(d, "/far/agent/address", "1.2.3.4:5");
}
static void t_late_server(cJSON *d) {
  int64_t t;
  char buf[32];
  ASSERT_OK(np_time_parse(at(d, REC "/started_at")->valuestring, &t));
  np_time_utc_format(t + 10000, buf, sizeof buf);
  set_str(d, REC "/started_at", buf);
}

static const struct {
  const char *name;
  void (*fn)(cJSON *);
  const char *ptr; /* where the problem must be reported */
} cases[] = {
    {"round's server count", t_near_count, ROUND "/counters/server_received"},
    {"far endpoint's count", t_far_count, ROUND "/counters/server_replied"},
    {"far connections", t_conns, ROUND "/connections/total"},
    {"far error hidden", t_hidden_error, ROUND "/counters/content_errors"},
    {"not a rudp-serve record", t_kind, REC "/config/protocol"},
    {"another transport", t_transport, REC "/config/window"},
    {"another seed", t_seed, REC "/config/seed"},
    {"another machine", t_machine, REC "/machine/kernel_release"},
    {"another build", t_build, REC "/tool/binary_sha256"},
    {"stopped early", t_stopped, "/far/server/stopped_by"},
    {"status against checks", t_status, REC "/status"},
    {"relay forwarded more", t_forwarded,
     "/far/relay/record/relay/totals/c2s/forwarded"},
    {"endpoint read less", t_endpoint_read,
     "/far/relay/record/relay/totals/c2s/forwarded"},
    {"listening elsewhere", t_listening, REC "/rudp_serve/listening"},
    {"another agent", t_address, "/far/agent/address"},
    {"server started late", t_late_server, REC "/started_at"},
};

static void on_schema(void *ctx, const char *pointer, const char *keyword,
                      const char *reason) {
  size_t *n = ctx;
  (void)pointer;
  (void)keyword;
  (void)reason;
  (*n)++;
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  cJSON *orig = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_json_load_file(argv[1], NULL, &orig, &eb));
  struct seen s;
  memset(&s, 0, sizeof s);
  size_t n = np_results_far_check(orig, on_problem, &s);
  if (n != 0)
    NP_TEST_FAIL_("the real record: %zu problems at %s", n, s.ptrs);
  struct np_schema *run = NULL;
  ASSERT_OK(np_schema_builtin("run", &run, &eb));
  size_t errs = 0;
  (void)np_schema_validate(run, orig, on_schema, &errs);
  ASSERT_EQ(errs, 0);
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
  /* a rudp --agent record without its far part: caught by both */
  cJSON *d = cJSON_Duplicate(orig, 1);
  cJSON_DeleteItemFromObject(d, "far");
  memset(&s, 0, sizeof s);
  ASSERT_EQ(np_results_far_check(d, on_problem, &s), 1);
  ASSERT_STR_EQ(s.ptrs, "/far ");
  errs = 0;
  (void)np_schema_validate(run, d, on_schema, &errs);
  ASSERT_GT(errs, 0);
  cJSON_Delete(d);
  np_schema_free(run);
  cJSON_Delete(orig);
  printf("test_results_far_rudp: the real record clean, %zu tamperings "
         "caught\n",
         sizeof cases / sizeof cases[0]);
  return 0;
}
