/*
 * test_golden_records.c - one run record of each kind (udp, udp-external,
 * udp-stream, serve, rudp, relay, exec) built from fixed inputs through
 * the kinds' real option tables, checks and record builders, compared
 * byte for byte with tests/model/golden/<kind>.json.
 *
 * No network, no clock, no child process: each config comes from a fixed
 * argv through the kind's option table, each result is a struct filled
 * here with fixed numbers, fixed timestamps and fixed kernel snapshots
 * (np_kernel_parse_raw).  Two envelope members describe the host that
 * builds the record, not the kind, and are replaced by fixed text before
 * the comparison: "tool" (version, source) and "machine"; so is the
 * serve record's "serve.pid" (the builder's own process id).  The runner
 * session is unset.  The bytes are np_json_print(doc, 0), what
 * np_bench_output_commit_json writes.
 *
 * The proof that moving code between folders kept record bytes:
 * `test_golden_records DIR` compares, `test_golden_records DIR --write`
 * rewrites (tests/model/regen-goldens.sh).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_opt.h"
#include "np_bench_record.h"
#include "np_bench_record_sections.h"
#include "np_exec_cli.h"
#include "np_exec_record.h"
#include "np_hist.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_relay_cmd.h"
#include "np_rudp_options.h"
#include "np_rudp_record.h"
#include "np_rudp_run.h"
#include "np_test.h"
#include "np_udp_checks.h"
#include "np_udp_external.h"
#include "np_udp_late.h"
#include "np_udp_options.h"
#include "np_udp_record.h"
#include "np_udp_serve.h"
#include "np_udp_stream.h"
#include "np_udp_target.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a)[0]))

static const char *g_dir;
static int g_write;
static int g_failed;

/* Two snapshots of one source with a known delta (100 datagrams in, 99
 * out, one receive-buffer error). */
static const char *const KERNEL_BEFORE =
    "==> /proc/net/snmp <==\n"
    "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors "
    "SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
    "Udp: 1000 0 0 1000 0 0 0 0 0\n";
static const char *const KERNEL_AFTER =
    "==> /proc/net/snmp <==\n"
    "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors "
    "SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
    "Udp: 1100 0 1 1099 1 0 0 0 0\n";

/* A run as the controller leaves it: fixed times, fixed snapshots. */
static void fixed_run(struct np_bench_run *run, int signal) {
  struct np_errbuf eb = {{0}};
  memset(run, 0, sizeof *run);
  snprintf(run->started_at, sizeof run->started_at,
           "2026-01-02T03:04:05.006Z");
  snprintf(run->ended_at, sizeof run->ended_at, "2026-01-02T03:04:15.789Z");
  run->signal = signal;
  ASSERT_OK(np_kernel_parse_raw(KERNEL_BEFORE, strlen(KERNEL_BEFORE),
                                &run->kernel_before, &eb));
  ASSERT_OK(np_kernel_parse_raw(KERNEL_AFTER, strlen(KERNEL_AFTER),
                                &run->kernel_after, &eb));
}

/* A histogram of n values spread over [lo, lo + span) nanoseconds. */
static struct np_hist *fixed_hist(int64_t lo, int64_t span, unsigned n) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, 60000000000LL, 3, &h));
  for (unsigned i = 0; i < n; i++)
    ASSERT_OK(np_hist_record(h, lo + (int64_t)((i * 7919u) % n) * span / n));
  return h;
}

/* Replace the host's identity, compare with (or write) DIR/kind.json. */
static void settle(const char *kind, int rc, cJSON *doc,
                   const struct np_errbuf *eb) {
  if (rc != 0) {
    fprintf(stderr, "FAIL %s: the builder refused: %s\n", kind, eb->msg);
    g_failed = 1;
    return;
  }
  struct np_errbuf vb = {{0}};
  if (np_bench_record_validate(doc, &vb) != 0) {
    fprintf(stderr, "FAIL %s: the schema refuses it: %s\n", kind, vb.msg);
    g_failed = 1;
  }
  cJSON_ReplaceItemInObjectCaseSensitive(
      doc, "tool", cJSON_CreateString("(the tool that built it)"));
  cJSON_ReplaceItemInObjectCaseSensitive(
      doc, "machine", cJSON_CreateString("(the machine that built it)"));
  cJSON *serve = cJSON_GetObjectItemCaseSensitive(doc, "serve");
  if (cJSON_HasObjectItem(serve, "pid")) /* getpid() of the builder */
    cJSON_ReplaceItemInObjectCaseSensitive(serve, "pid",
                                           cJSON_CreateNumber(4242));
  char *txt = np_json_print(doc, 0);
  cJSON_Delete(doc);
  ASSERT_NOT_NULL(txt);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.json", g_dir, kind);
  size_t n = strlen(txt);
  if (g_write) {
    FILE *f = fopen(path, "w");
    ASSERT_NOT_NULL(f);
    ASSERT_EQ(fwrite(txt, 1, n, f), n);
    ASSERT_EQ(fputc('\n', f), '\n');
    ASSERT_OK(fclose(f));
    free(txt);
    return;
  }
  char *want = NULL;
  size_t wn = 0;
  FILE *f = fopen(path, "r");
  if (f != NULL) {
    fseek(f, 0, SEEK_END);
    wn = (size_t)ftell(f);
    rewind(f);
    want = malloc(wn + 1);
    ASSERT_NOT_NULL(want);
    ASSERT_EQ(fread(want, 1, wn, f), wn);
    fclose(f);
  }
  if (want == NULL || wn != n + 1 || memcmp(want, txt, n) != 0) {
    size_t i = 0;
    while (want && i < n && i < wn && want[i] == txt[i])
      i++;
    fprintf(stderr,
            "FAIL %s: %s differs at byte %zu (golden %zu bytes, built %zu)\n"
            "  golden: %.120s\n  built:  %.120s\n",
            kind, path, i, wn, n + 1, want ? want + i : "(missing)", txt + i);
    g_failed = 1;
  } else {
    printf("ok %s: %zu bytes\n", kind, n + 1);
  }
  free(want);
  free(txt);
}

static void parse(const struct np_bench_optset *set, int argc, char **argv,
                  void *cfg) {
  struct np_errbuf eb = {{0}};
  int help = 0;
  int rc = np_bench_opt_parse(set, argc, argv, cfg, &help, &eb);
  if (rc)
    fprintf(stderr, "%s: %s\n", argv[0], eb.msg);
  ASSERT_OK(rc);
}

/* Counters of one echo phase: n sent, n - lost answered. */
static void fixed_counters(struct np_udp_counters *c, uint64_t n,
                           uint64_t lost) {
  memset(c, 0, sizeof *c);
  c->sent = n;
  c->server_received = n - lost;
  c->server_replied = n - lost;
  c->received = n - lost;
}

/* The socket rows of a udp run: nserv servers then ncli clients. */
static void fixed_socks(struct np_udp_result *r, uint32_t nserv,
                        uint32_t ncli) {
  r->nsocks = nserv + ncli;
  r->socks = calloc(r->nsocks, sizeof *r->socks);
  ASSERT_NOT_NULL(r->socks);
  for (uint32_t i = 0; i < r->nsocks; i++) {
    struct np_udp_sock_report *s = &r->socks[i];
    s->role = i < nserv ? NP_UDP_ROLE_SERVER : NP_UDP_ROLE_CLIENT;
    s->index = i < nserv ? i : i - nserv;
    s->lane = s->index;
    s->rcvbuf_requested = 212992;
    s->rcvbuf_effective = 425984;
    s->sndbuf_requested = 212992;
    s->sndbuf_effective = 425984;
    s->drops_before = 3;
    s->drops_after = 3 + i;
    s->rxq_ovfl_last = i == 0 ? 7 : -1;
    s->received = i < nserv ? 49990 : 0;
    s->replied = s->received;
  }
}

static void fixed_udp_result(struct np_udp_result *r, int signal) {
  memset(r, 0, sizeof *r);
  fixed_counters(&r->warmup, 1000, 0);
  fixed_counters(&r->measure, 100000, 20);
  r->rtt_ns = fixed_hist(20000, 80000, 5000);
  r->warmup_seconds = 1.0;
  r->measure_seconds = 10.0;
  r->drain_seconds = 0.25;
  r->drain_bound_seconds = 1.0;
  r->drain_complete = 1;
  r->cpu_user_seconds = 3.5;
  r->cpu_sys_seconds = 6.25;
  r->rss_max_bytes = 8 << 20;
  r->lanes = 2;
  r->rx_batch_server = r->rx_batch_client = r->tx_batch = 1;
  fixed_run(&r->run, signal);
}

static void golden_udp(void) {
  char *argv[] = {"udp", "--payload", "64", "--clients", "2", "--window", "4",
                  "--seconds", "10", "--warmup", "1", "--seed", "7"};
  struct np_udp_config cfg;
  parse(&np_udp_optset, ARGC(argv), argv, &cfg);
  struct np_udp_result r;
  fixed_udp_result(&r, 0);
  fixed_socks(&r, 2, 2);
  struct np_udp_check_input in;
  struct np_udp_loss loss;
  struct np_udp_checks cs;
  np_udp_check_input_of(&r.measure, &r, &in);
  np_udp_loss_compute(&in, &loss);
  np_udp_checks_eval(&in, &loss, &cs);
  struct np_udp_late_input li;
  np_udp_late_input_of(&cfg, &r, &li);
  np_udp_late_checks(&li, &cs);
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_udp_record_build(&cfg, &r, &loss, &cs, ARGC(argv), argv, &doc,
                               NULL, &eb);
  settle("udp", rc, doc, &eb);
  np_udp_result_free(&r);
}

static void golden_udp_external(void) {
  char *argv[] = {"udp", "--connect", "127.0.0.1:9", "--payload", "256",
                  "--clients", "1", "--seconds", "10"};
  struct np_udp_config cfg;
  parse(&np_udp_optset, ARGC(argv), argv, &cfg);
  struct np_udp_result r;
  fixed_udp_result(&r, 0);
  fixed_socks(&r, 0, 1);
  /* the target as /proc showed it: local, its socket not found */
  r.target = calloc(1, sizeof *r.target);
  ASSERT_NOT_NULL(r.target);
  snprintf(r.target->text, sizeof r.target->text, "127.0.0.1:9");
  r.target->local = 1;
  snprintf(r.target->local_why, sizeof r.target->local_why, "loopback");
  snprintf(r.target->why_not, sizeof r.target->why_not,
           "no UDP socket bound to 127.0.0.1:9 in /proc/net/udp");
  struct np_udp_attrib a;
  struct np_udp_checks cs;
  np_udp_external_attrib(&r, &a);
  np_udp_external_checks(&r, &a, &cs);
  struct np_udp_late_input li;
  np_udp_late_input_of(&cfg, &r, &li);
  np_udp_late_checks(&li, &cs);
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_udp_external_record_build(&cfg, &r, &a, &cs, ARGC(argv), argv,
                                        &doc, NULL, &eb);
  settle("udp-external", rc, doc, &eb);
  np_udp_result_free(&r);
}

static void golden_serve(void) {
  char *argv[] = {"serve", "--listen", "127.0.0.1:0", "--max-seconds", "30"};
  struct np_udp_config cfg;
  parse(&np_udp_serve_optset, ARGC(argv), argv, &cfg);
  struct np_udp_result r;
  fixed_udp_result(&r, SIGTERM);
  memset(&r.warmup, 0, sizeof r.warmup);
  r.warmup_seconds = r.drain_seconds = 0;
  r.bound_port = 40001;
  fixed_socks(&r, 2, 0);
  struct np_udp_checks cs;
  np_udp_serve_checks(&r, &cs);
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_udp_serve_record_build(&cfg, &r, &cs, ARGC(argv), argv, &doc,
                                     NULL, &eb);
  settle("serve", rc, doc, &eb);
  np_udp_result_free(&r);
}

static void golden_udp_stream(void) {
  char *argv[] = {"udp", "--mode", "stream", "--backend", "raw", "--io-model",
                  "split", "--payload", "1200", "--seconds", "10"};
  struct np_udp_config cfg;
  parse(&np_udp_optset, ARGC(argv), argv, &cfg);
  struct np_udp_stream_result r;
  memset(&r, 0, sizeof r);
  r.warmup.sent = r.warmup.received = r.warmup.unique = 5000;
  r.measure.sent = 400000;
  r.measure.received = r.measure.unique = 399990;
  r.measure.bytes = 399990ull * 1200;
  r.warmup_seconds = 1.0;
  r.measure_seconds = 10.0;
  r.drain_seconds = 0.1;
  r.drain_complete = 1;
  r.jitter_us = 3.25;
  r.delay_ns = fixed_hist(5000, 40000, 4000);
  r.transit_delta_ns = fixed_hist(100, 9000, 4000);
  r.rx_drops = 10;
  r.rcvbuf_effective = r.sndbuf_effective = 425984;
  r.cpu_user_seconds = 2.0;
  r.cpu_sys_seconds = 7.5;
  r.rss_max_bytes = 6 << 20;
  fixed_run(&r.run, 0);
  struct np_udp_stream_check_input in;
  struct np_udp_checks cs;
  np_udp_stream_check_input_of(&r, &in);
  np_udp_stream_checks(&in, &cs);
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_udp_stream_record_build(&cfg, &r, &cs, ARGC(argv), argv, &doc,
                                      NULL, &eb);
  settle("udp-stream", rc, doc, &eb);
  np_udp_stream_result_free(&r);
}

static void fixed_round(struct np_rudp_round *o, uint64_t seed, double rate) {
  memset(o, 0, sizeof *o);
  o->seed = seed;
  snprintf(o->started_at, sizeof o->started_at, "2026-01-02T03:04:0%u.000Z",
           (unsigned)(5 + seed % 4));
  o->warmup_seconds = 0.5;
  o->measure_seconds = 5.0;
  o->drain_seconds = 0.05;
  o->close_seconds = 0.01;
  o->drain_complete = 1;
  o->cpu_user_seconds = 1.5;
  o->cpu_sys_seconds = 2.5;
  uint64_t n = (uint64_t)(rate * 5.0);
  o->app = (struct np_rudp_app){n, n, n, n, 0, 0, 0, n * 128};
  o->total = o->app;
  o->arq_client.datagrams_sent = n + 12;
  o->arq_client.fragments_sent = n;
  o->arq_client.retransmits = 12;
  o->arq_server.datagrams_sent = n;
  o->arq_server.fragments_sent = n;
  o->wire_bytes = n * 2 * 152;
  o->wire_datagrams = n * 2;
  o->rtt_ns = fixed_hist(30000, 90000, 3000);
  o->conns = o->conns_closed = 2;
}

static void golden_rudp(void) {
  char *argv[] = {"rudp", "--payload", "128", "--clients", "2", "--rounds",
                  "3", "--seconds", "5", "--warmup", "0.5"};
  struct np_rudp_config cfg;
  parse(&np_rudp_optset, ARGC(argv), argv, &cfg);
  struct np_rudp_result r;
  memset(&r, 0, sizeof r);
  fixed_run(&r.run, 0);
  r.nrounds = 3;
  r.rounds = calloc(3, sizeof *r.rounds);
  ASSERT_NOT_NULL(r.rounds);
  fixed_round(&r.rounds[0], 1, 20000);
  fixed_round(&r.rounds[1], 2, 22000);
  fixed_round(&r.rounds[2], 3, 21000);
  for (unsigned i = 0; i < 3; i++)
    np_rudp_round_checks(&r.rounds[i], 0);
  r.median = 2;
  r.rss_max_bytes = 12 << 20;
  r.lanes = 1;
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_rudp_record_build(&cfg, &r, ARGC(argv), argv, &doc, NULL, &eb);
  settle("rudp", rc, doc, &eb);
  np_rudp_result_free(&r);
}

static const char *const RELAY_STATS =
    "{\"schema\":\"netproof/relay-stats/1\",\"seq\":4,\"final\":true,"
    "\"totals\":{\"packets_in\":2000,\"packets_out\":1990,"
    "\"relay_errors\":0},\"routes\":[]}";

static void golden_relay(void) {
  char *argv[] = {"relay", "--listen", "127.0.0.1:0", "--forward",
                  "127.0.0.1:9", "--max-seconds", "20", "--seed", "3"};
  struct np_relay_cmd_config cfg;
  struct np_errbuf eb = {{0}};
  int help = 0;
  ASSERT_OK(np_relay_cmd_parse(ARGC(argv), argv, &cfg, &help, &eb));
  struct np_relay_cmd_result r;
  memset(&r, 0, sizeof r);
  fixed_run(&r.run, 0);
  r.signal = SIGINT;
  r.seconds = 12.5;
  snprintf(r.listen_bound, sizeof r.listen_bound, "127.0.0.1:40002");
  r.stats = cJSON_Parse(RELAY_STATS);
  ASSERT_NOT_NULL(r.stats);
  r.sockets = cJSON_CreateArray();
  struct np_bench_socket s = {"relay", 0, 0, 212992, 425984, 212992, 425984,
                              2, -1};
  cJSON_AddItemToArray(r.sockets, np_bench_record_socket(&s));
  r.socket_drops = 2;
  r.routes = 1;
  cJSON *doc = NULL;
  struct np_bench_verdict v; /* relay's builder needs one */
  int rc = np_relay_cmd_record_build(&cfg, &r, ARGC(argv), argv, &doc, &v,
                                     &eb);
  settle("relay", rc, doc, &eb);
  np_relay_cmd_result_free(&r);
}

static void golden_exec(void) {
  char *argv[] = {"exec", "--timeout", "30", "--output", "/tmp/np-golden.json",
                  "--metric", "rate=json:/end/bits_per_second", "--",
                  "/bin/true", "-x"};
  struct np_exec_config cfg;
  struct np_errbuf eb = {{0}};
  int help = 0;
  int rc = np_exec_cli_parse(ARGC(argv), argv, &cfg, &help, &eb);
  if (rc)
    fprintf(stderr, "exec: %s\n", eb.msg);
  ASSERT_OK(rc);
  struct np_exec_run_result *r = calloc(1, sizeof *r);
  ASSERT_NOT_NULL(r);
  fixed_run(&r->run, 0);
  r->res.end = NP_EXEC_EXITED;
  r->res.wall_seconds = 10.5;
  r->res.user_seconds = 1.25;
  r->res.sys_seconds = 0.5;
  r->res.max_rss_bytes = 4 << 20;
  r->res.output_drained = 1;
  snprintf(r->exe_sha256, sizeof r->exe_sha256, "%064x", 0xabcdu);
  r->exe_bytes = 39256;
  snprintf(r->cwd, sizeof r->cwd, "/tmp/np-golden-cwd");
  r->out = (struct np_exec_kept){"/tmp/np-golden.stdout", "np-golden.stdout",
                                 120, 120, 0, ""};
  snprintf(r->out.sha256, sizeof r->out.sha256, "%064x", 0x1234u);
  r->err = (struct np_exec_kept){"/tmp/np-golden.stderr", "np-golden.stderr",
                                 0, 0, 0, ""};
  snprintf(r->err.sha256, sizeof r->err.sha256, "%064x", 0x0u);
  r->metric_file[0] = -1;
  r->val[0].value = 9.5e9;
  r->val[0].fail = NP_EXEC_OK;
  r->bound_rhs[0] = NAN;
  r->nchecks = 1;
  snprintf(r->check_name[0], sizeof r->check_name[0], "exit_status");
  snprintf(r->check_detail[0], sizeof r->check_detail[0], "exited 0");
  r->checks[0] = (struct np_bench_check){r->check_name[0], 1,
                                         r->check_detail[0]};
  cJSON *doc = NULL;
  rc = np_exec_record_build(&cfg, r, ARGC(argv), argv, &doc, NULL, &eb);
  settle("exec", rc, doc, &eb);
  np_kernel_free(r->run.kernel_before);
  np_kernel_free(r->run.kernel_after);
  free(r);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_golden_records GOLDEN_DIR [--write]\n");
    return 2;
  }
  g_dir = argv[1];
  g_write = argc > 2 && strcmp(argv[2], "--write") == 0;
  unsetenv(NP_BENCH_RUNNER_ENV);
  golden_udp();
  golden_udp_external();
  golden_udp_stream();
  golden_serve();
  golden_rudp();
  golden_relay();
  golden_exec();
  return g_failed;
}
