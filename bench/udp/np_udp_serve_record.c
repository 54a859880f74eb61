/*
 * np_udp_serve_record.c - the checks and the record of `netproof-bench
 * serve` (config.protocol "serve"): the shared envelope, the standard
 * sockets section, and "serve" with the totals and per-socket counters
 * (schema $defs/serve).  The signal that stops a server is its planned end:
 * the envelope gets no signal (so the status follows the checks) and
 * serve.stopped_by names it.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "np_bench_record_sections.h"
#include "np_json.h"
#include "np_udp_msg.h"
#include "np_udp_record.h"
#include "np_udp_serve.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static uint64_t sock_drops(const struct np_udp_result *res) {
  uint64_t d = 0;
  for (uint32_t i = 0; i < res->nsocks; i++)
    d += res->socks[i].drops_after - res->socks[i].drops_before;
  return d;
}

void np_udp_serve_checks(const struct np_udp_result *res,
                         struct np_udp_checks *cs) {
  const struct np_udp_counters *c = &res->measure;
  uint64_t drops = sock_drops(res);
  cs->n = cs->failed = 0;
  np_udp_checks_add(cs, "echoed_every_datagram",
                    c->server_received == c->server_replied,
                    "received %" PRIu64 ", echoed %" PRIu64, c->server_received,
                    c->server_replied);
  np_udp_checks_add(cs, "no_send_errors", c->server_send_errors == 0,
                    "%" PRIu64 " echo sends refused", c->server_send_errors);
  np_udp_checks_add(cs, "no_truncated", c->truncated == 0,
                    "%" PRIu64 " datagrams larger than the receive buffer",
                    c->truncated);
  np_udp_checks_add(cs, "no_socket_drops", drops == 0,
                    "%" PRIu64 " datagrams dropped by the server socket(s) "
                    "(receive buffer full: SO_MEMINFO drops)",
                    drops);
}

static cJSON *config_json(const struct np_udp_config *cfg,
                          const struct np_udp_result *res, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "serve");
  cJSON_AddStringToObject(o, "listen", cfg->listen);
  cJSON_AddStringToObject(o, "address", cfg->address);
  NUM(o, "port", res->bound_port);
  cJSON_AddStringToObject(o, "family",
                          cfg->family == AF_INET6 ? "ipv6" : "ipv4");
  cJSON_AddStringToObject(o, "io_model", np_udp_io_model_name(cfg->io_model));
  NUM(o, "io_threads", res->lanes);
  cJSON_AddStringToObject(o, "backend", np_udp_backend_name(cfg->backend));
  NUM(o, "work", cfg->work);
  cJSON_AddStringToObject(o, "work_unit", NP_UDP_WORK_UNIT_TEXT);
  NUM(o, "max_seconds", cfg->max_seconds);
  NUM(o, "udp_send_buffer", cfg->send_buffer);
  NUM(o, "udp_receive_buffer", cfg->receive_buffer);
  cJSON *b = cJSON_AddObjectToObject(o, "batch");
  NUM(b, "server_receive", res->rx_batch_server);
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

static cJSON *sockets_json(const struct np_udp_result *res) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  uint64_t d = sock_drops(res);
  NUM(o, "kernel_drops", d);
  NUM(o, "server_drops", d);
  cJSON_AddStringToObject(
      o, "drops_source",
      "SO_MEMINFO SK_MEMINFO_DROPS (sk_drops) of each server socket, read "
      "when serving began and after the loops stopped");
  cJSON *l = cJSON_AddArrayToObject(o, "list");
  for (uint32_t i = 0; l && i < res->nsocks; i++) {
    cJSON_AddItemToArray(l, np_udp_record_socket(&res->socks[i], "server"));
  }
  return o;
}

static cJSON *serve_json(const struct np_udp_config *cfg,
                         const struct np_udp_result *res) {
  const struct np_udp_counters *c = &res->measure;
  cJSON *o = cJSON_CreateObject();
  char where[96];
  if (!o)
    return NULL;
  snprintf(where, sizeof where, "%s%s%s:%u", cfg->family == AF_INET6 ? "[" : "",
           cfg->address, cfg->family == AF_INET6 ? "]" : "",
           (unsigned)res->bound_port);
  cJSON_AddStringToObject(o, "listening", where);
  NUM(o, "pid", getpid());
  int sig = res->run.signal;
  cJSON_AddStringToObject(o, "stopped_by",
                          sig == SIGINT    ? "SIGINT"
                          : sig == SIGTERM ? "SIGTERM"
                                           : "max-seconds");
  NUM(o, "seconds", res->measure_seconds);
  double wall = res->measure_seconds;
  double cpu = res->cpu_user_seconds + res->cpu_sys_seconds;
  NUM(o, "cpu_percent", wall > 0 ? 100.0 * cpu / wall : 0.0);
  NUM(o, "cpu_user_seconds", res->cpu_user_seconds);
  NUM(o, "cpu_sys_seconds", res->cpu_sys_seconds);
  NUM(o, "rss_max_bytes", res->rss_max_bytes);
  cJSON *t = cJSON_AddObjectToObject(o, "counters");
  NUM(t, "received", c->server_received);
  NUM(t, "echoed", c->server_replied);
  NUM(t, "send_errors", c->server_send_errors);
  NUM(t, "truncated", c->truncated);
  np_udp_record_errnos(t, c->errnos, c->errno_counts, NP_UDP_MAX_ERRNOS);
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(t, "send_errnos");
  cJSON *l = cJSON_AddArrayToObject(o, "sockets");
  for (uint32_t i = 0; l && i < res->nsocks; i++) {
    const struct np_udp_sock_report *s = &res->socks[i];
    cJSON *so = cJSON_CreateObject();
    if (!so || !cJSON_AddItemToArray(l, so)) {
      cJSON_Delete(so);
      break;
    }
    NUM(so, "index", s->index);
    NUM(so, "thread", s->lane);
    NUM(so, "received", s->received);
    NUM(so, "echoed", s->replied);
    NUM(so, "send_errors", s->send_errors);
    NUM(so, "truncated", s->truncated);
    NUM(so, "drops", s->drops_after - s->drops_before);
  }
  cJSON_AddStringToObject(
      o, "rule",
      "every datagram read is echoed verbatim to its sender; nothing else is "
      "read; counters cover the whole time served");
  if (!cJSON_GetObjectItemCaseSensitive(o, "rule") || !e ||
      cJSON_GetArraySize(l) != (int)res->nsocks) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int np_udp_serve_record_build(const struct np_udp_config *cfg,
                              const struct np_udp_result *res,
                              const struct np_udp_checks *checks, int argc,
                              char **argv, cJSON **out,
                              struct np_bench_verdict *v,
                              struct np_errbuf *eb) {
  struct np_bench_check list[NP_UDP_MAX_CHECKS];
  struct np_bench_verdict verdict;
  cJSON *doc = NULL;
  for (unsigned i = 0; i < checks->n; i++)
    list[i] = (struct np_bench_check){
        checks->item[i].name, checks->item[i].passed, checks->item[i].detail};
  /* the stopping signal is the planned end, not an interruption */
  struct np_bench_run run = res->run;
  run.signal = 0;
  struct np_bench_envelope env = {.run = &run,
                                  .checks = list,
                                  .nchecks = checks->n,
                                  .config = config_json(cfg, res, argc, argv)};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc)
    return rc;
  cJSON_AddItemToObject(doc, "sockets", sockets_json(res));
  cJSON_AddItemToObject(doc, "serve", serve_json(cfg, res));
  static const char *const need[] = {"config", "sockets", "serve"};
  rc = np_bench_record_require(doc, need, sizeof need / sizeof need[0], eb);
  if (rc) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  if (v)
    *v = verdict;
  return 0;
}
