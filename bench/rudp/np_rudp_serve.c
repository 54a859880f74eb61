/*
 * np_rudp_serve.c - `netproof-bench rudp-serve` (see np_rudp_serve.h):
 * the server endpoint's run on the shared controller, its checks, its
 * record and its summary line.  The option table is np_rudp_options.c's
 * (np_rudp_serve_optset: the transport rows of `rudp` itself).
 */
#include "np_rudp_serve.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_bench_record_sections.h"
#include "np_bench_summary.h"
#include "np_json.h"
#include "np_rudp_endpoint.h"
#include "np_rudp_options.h"
#include "np_rudp_record.h"

#define PROG "netproof-bench rudp-serve"
#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))
#define NCHECKS 4

struct serve_ctx {
  struct np_rudp_config cfg;
  struct np_rudp_result res; /* one round: the server's whole life */
  char listening[96];        /* ADDR:PORT bound                     */
  struct np_rudp_check checks[NCHECKS];
  int failed;
};

static void set_phase(struct np_rudp_ctl *ctl, struct np_rudp_net *net,
                      int phase) {
  atomic_store(&ctl->phase, phase);
  np_rudp_net_wake(net);
}

/* Bind, announce, serve until a signal or --max-seconds, collect. */
static int serve_round(struct serve_ctx *x, struct np_bench_ctl *w,
                       struct np_rudp_round *r, struct np_errbuf *eb) {
  const struct np_rudp_config *cfg = &x->cfg;
  struct np_rudp_ctl ctl;
  struct np_rudp_net *net = NULL;
  struct sockaddr_storage bound;
  memset(&ctl, 0, sizeof ctl);
  r->seed = cfg->seed;
  np_time_utc_now(r->started_at, sizeof r->started_at);
  int rc = np_rudp_net_bind(cfg, &ctl, cfg->seed, NULL, &net, &bound, eb);
  if (rc == 0)
    rc = np_rudp_net_start(net, NULL, eb);
  if (rc) {
    np_rudp_net_free(net);
    return rc;
  }
  np_addr_sa_format((const struct sockaddr *)&bound, x->listening,
                    sizeof x->listening);
  if (!cfg->quiet) /* the agent waits for this line (np_agent_service.c) */
    fprintf(stderr, PROG ": listening on %s (%" PRIu32 " connections)\n",
            x->listening, cfg->clients);
  struct np_bench_cpu cpu0, cpu;
  np_bench_cpu_now(&cpu0);
  set_phase(&ctl, net, NP_RUDP_MEASURE);
  r->measure_seconds = np_bench_ctl_sleep(w, cfg->max_seconds);
  np_bench_cpu_since(&cpu0, &cpu);
  r->cpu_user_seconds = cpu.user_seconds;
  r->cpu_sys_seconds = cpu.sys_seconds;
  set_phase(&ctl, net, NP_RUDP_CLOSE);
  set_phase(&ctl, net, NP_RUDP_STOP);
  rc = np_rudp_net_join(net, r);
  np_rudp_net_free(net);
  r->drain_complete = 1; /* a server has nothing outstanding of its own */
  return rc ? np_errbuf_set(eb, rc, "rudp-serve: collecting results failed")
            : 0;
}

/* The server's own invariants over its whole life. */
static void serve_checks(struct serve_ctx *x) {
  const struct np_rudp_round *r = &x->res.rounds[0];
  const struct np_rudp_app *t = &r->total;
  int f = 0;
  f |= np_rudp_check_set(&x->checks[0], "content", t->content_errors == 0,
                         "%" PRIu64 " requests with wrong bytes",
                         t->content_errors);
  f |= np_rudp_check_set(&x->checks[1], "order", t->sequence_errors == 0,
                         "%" PRIu64
                         " requests out of order, twice or never sent",
                         t->sequence_errors);
  f |= np_rudp_check_set(
      &x->checks[2], "echoed_every_request",
      t->server_replied == t->server_received && t->send_errors == 0,
      "received %" PRIu64 ", echoed %" PRIu64 ", send errors %" PRIu64,
      t->server_received, t->server_replied, t->send_errors);
  f |= np_rudp_check_set(
      &x->checks[3], "shutdown",
      r->conns_closed == r->conns && r->conns_unacked == 0,
      "%" PRIu32 " of %" PRIu32 " connections closed in order, %" PRIu32
      " failed, %" PRIu32 " with unacknowledged data",
      r->conns_closed, r->conns, r->conns_failed, r->conns_unacked);
  x->failed = f;
}

static int kind_run(void *ctxp, struct np_bench_ctl *w, struct np_errbuf *eb) {
  struct serve_ctx *x = ctxp;
  struct np_rudp_result *res = &x->res;
  int rc;
  memset(res, 0, sizeof *res);
  np_bench_ctl_start(w, &res->run);
  res->lanes = 1;
  if ((res->rounds = calloc(1, sizeof *res->rounds)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "rudp-serve: out of memory");
    goto out;
  }
  if ((rc = np_bench_ctl_snapshot(w, &res->run, NP_BENCH_SNAP_BEFORE, eb)))
    goto out;
  if ((rc = serve_round(x, w, &res->rounds[0], eb)) != 0)
    goto out;
  res->nrounds = 1;
  if ((rc = np_bench_ctl_snapshot(w, &res->run, NP_BENCH_SNAP_AFTER, eb)))
    goto out;
  res->rss_max_bytes = (uint64_t)np_bench_rss_max_bytes();
  serve_checks(x);
out:
  np_bench_ctl_finish(w, &res->run);
  if (rc) {
    res->nrounds = res->rounds ? 1 : 0;
    np_rudp_result_free(res);
  }
  return rc;
}

static cJSON *counters_json(const struct np_rudp_app *a) {
  cJSON *o = cJSON_CreateObject();
  NUM(o, "received", a->server_received);
  NUM(o, "echoed", a->server_replied);
  NUM(o, "content_errors", a->content_errors);
  NUM(o, "sequence_errors", a->sequence_errors);
  NUM(o, "send_errors", a->send_errors);
  NUM(o, "message_bytes", a->msg_bytes);
  return o;
}

static cJSON *arq_json(const struct np_arq_stats *s,
                       const struct np_rudp_round *r) {
  cJSON *o = cJSON_CreateObject();
  NUM(o, "datagrams_sent", r->wire_datagrams);
  NUM(o, "udp_payload_bytes_sent", r->wire_bytes);
  NUM(o, "arq_datagrams_sent", s->datagrams_sent);
  NUM(o, "fragments_sent", s->fragments_sent);
  NUM(o, "retransmits", s->retransmits);
  NUM(o, "spurious_retransmits", s->spurious);
  NUM(o, "rto_events", s->rto_events);
  NUM(o, "pure_acks_sent", s->pure_acks_sent);
  return o;
}

/* The record's rudp_serve part ($defs/rudp_serve). */
static cJSON *serve_json(const struct serve_ctx *x) {
  const struct np_rudp_round *r = &x->res.rounds[0];
  int sig = x->res.run.signal;
  cJSON *o = cJSON_CreateObject(), *c;
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "listening", x->listening);
  NUM(o, "pid", getpid());
  cJSON_AddStringToObject(o, "stopped_by",
                          sig == SIGINT    ? "SIGINT"
                          : sig == SIGTERM ? "SIGTERM"
                                           : "max-seconds");
  NUM(o, "seconds", r->measure_seconds);
  NUM(o, "cpu_user_seconds", r->cpu_user_seconds);
  NUM(o, "cpu_sys_seconds", r->cpu_sys_seconds);
  NUM(o, "rss_max_bytes", x->res.rss_max_bytes);
  cJSON_AddItemToObject(o, "counters", counters_json(&r->total));
  c = cJSON_AddObjectToObject(o, "connections");
  NUM(c, "total", r->conns);
  NUM(c, "closed", r->conns_closed);
  NUM(c, "failed", r->conns_failed);
  NUM(c, "unacknowledged", r->conns_unacked);
  cJSON_AddItemToObject(o, "arq", arq_json(&r->arq_total, r));
  cJSON *io = cJSON_AddObjectToObject(o, "io");
  NUM(io, "recv_datagrams", r->io_total.recv_datagrams);
  NUM(io, "send_datagrams", r->io_total.send_datagrams);
  NUM(io, "send_refused", r->io_total.send_failed);
  NUM(io, "truncated", r->io_total.truncated);
  NUM(o, "foreign_datagrams", r->foreign);
  NUM(o, "socket_send_errors", r->socket_send_errors);
  cJSON_AddStringToObject(
      o, "rule",
      "the server endpoint's whole life: requests delivered by its ARQ "
      "connections (conv 1..clients, each pinned to the first address it "
      "came from), checked against the seed and echoed; io counts the "
      "server socket's datagrams (recvmmsg/sendmmsg), ARQ and FEC alike; "
      "foreign datagrams name no connection of it, or come from another "
      "address");
  return o;
}

static cJSON *sockets_json(const struct np_rudp_round *r) {
  cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();
  uint64_t drops = 0;
  for (uint32_t i = 0; i < r->nsocks; i++) {
    const struct np_rudp_sockrep *s = &r->socks[i];
    struct np_bench_socket b = {.role = "server",
                                .rcvbuf_requested = s->rcvbuf_requested,
                                .rcvbuf_effective = s->rcvbuf_effective,
                                .sndbuf_requested = s->sndbuf_requested,
                                .sndbuf_effective = s->sndbuf_effective,
                                .drops = s->drops,
                                .rxq_ovfl_last = -1};
    cJSON_AddItemToArray(a, np_bench_record_socket(&b));
    drops += s->drops;
  }
  NUM(o, "kernel_drops", drops);
  NUM(o, "server_drops", drops);
  cJSON_AddStringToObject(o, "drops_source",
                          "SO_MEMINFO SK_MEMINFO_DROPS of the server "
                          "socket, its whole life");
  cJSON_AddItemToObject(o, "list", a);
  return o;
}

/* config: rudp's own (one description of the transport), protocol
 * rudp-serve, with where it listened and its bound instead of the
 * clients' timing and relay. */
static cJSON *config_json(const struct serve_ctx *x, int argc, char **argv) {
  static const char *const drop[] = {
      "warmup_seconds", "seconds",   "rounds",  "relay", "roundtrip_rate_rule",
      "rtt_rule",       "seed_rule", "address", "family"};
  cJSON *o = np_rudp_config_json(&x->cfg, 1, NULL, argc, argv);
  if (o == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
    cJSON_DeleteItemFromObjectCaseSensitive(o, drop[i]);
  cJSON_ReplaceItemInObjectCaseSensitive(o, "protocol",
                                         cJSON_CreateString("rudp-serve"));
  cJSON_AddStringToObject(o, "listen", x->cfg.listen);
  NUM(o, "max_seconds", x->cfg.max_seconds);
  return o;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **out,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct serve_ctx *x = ctxp;
  struct np_bench_check list[NCHECKS];
  for (unsigned i = 0; i < NCHECKS; i++)
    list[i] = (struct np_bench_check){x->checks[i].name, x->checks[i].passed,
                                      x->checks[i].detail};
  struct np_bench_run run = x->res.run;
  run.signal = 0; /* the stopping signal is the planned end */
  struct np_bench_envelope env = {.run = &run,
                                  .checks = list,
                                  .nchecks = NCHECKS,
                                  .config = config_json(x, argc, argv)};
  cJSON *doc = NULL;
  int rc = np_bench_record_new(&env, &doc, v, eb);
  if (rc)
    return rc;
  cJSON_AddItemToObject(doc, "sockets", sockets_json(&x->res.rounds[0]));
  cJSON_AddItemToObject(doc, "rudp_serve", serve_json(x));
  static const char *const need[] = {"config", "sockets", "rudp_serve"};
  if ((rc = np_bench_record_require(doc, need, 3, eb)) != 0) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  return 0;
}

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct serve_ctx *x = ctxp;
  const struct np_rudp_round *r = &x->res.rounds[0];
  fprintf(stderr,
          PROG ": served %.1f s, %" PRIu64 " requests received, %" PRIu64
               " echoed, %" PRIu32 " of %" PRIu32 " connections closed: %s\n",
          r->measure_seconds, r->total.server_received, r->total.server_replied,
          r->conns_closed, r->conns, np_bench_status_name(st));
  for (unsigned i = 0; i < NCHECKS; i++)
    if (!x->checks[i].passed)
      fprintf(stderr, PROG ": check %s failed: %s\n", x->checks[i].name,
              x->checks[i].detail);
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct serve_ctx *x = ctxp;
  int rc = np_bench_opt_parse(&np_rudp_serve_optset, argc, argv, &x->cfg,
                              &cli->help, eb);
  cli->output = x->cfg.output;
  cli->output_opt = "--record";
  cli->quiet = x->cfg.quiet;
  cli->summary_json = x->cfg.summary == NP_BENCH_SUMMARY_JSON;
  return rc;
}

static void usage(FILE *fp) { np_bench_opt_help(&np_rudp_serve_optset, fp); }

static void kind_free(void *ctxp) {
  np_rudp_result_free(&((struct serve_ctx *)ctxp)->res);
}

const struct np_bench_kind np_rudp_serve_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct serve_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_rudp_serve_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_rudp_serve_kind, argc, argv, NULL);
}
