/*
 * np_udp_external_record.c - the "udp-external" run record: the shared
 * envelope (model/core/np_bench_record.h), then the client side's
 * measurement, counters, warm-up and sockets in the udp shapes, and the
 * "external" section: the target, the server as /proc showed it, the
 * replies by kind and the loss attribution (schema $defs/udp_external).
 */
#include <string.h>

#include "np_bench_record_sections.h"
#include "np_json.h"
#include "np_udp_lanecpu.h"
#include "np_udp_late.h"
#include "np_udp_open.h"
#include "np_udp_record.h"
#include "np_udp_external.h"
#include "np_udp_target.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static cJSON *config_json(const struct np_udp_config *cfg,
                          const struct np_udp_result *res, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "udp-external");
  /* --agent: the target's port is the far server's (external.target), so
   * config keeps what the command said */
  if (cfg->agent)
    cJSON_AddStringToObject(o, "agent", cfg->agent);
  else
    cJSON_AddStringToObject(o, "connect", cfg->connect);
  if (cfg->agent) {
    NUM(o, "work", cfg->work);
    NUM(o, "udp_server_receive_buffer", cfg->server_receive_buffer);
  }
  NUM(o, "payload", cfg->payload);
  NUM(o, "clients", cfg->clients);
  NUM(o, "window", cfg->window);
  cJSON_AddStringToObject(o, "io_model", np_udp_io_model_name(cfg->io_model));
  NUM(o, "io_threads", res->lanes);
  cJSON_AddStringToObject(o, "backend", np_udp_backend_name(cfg->backend));
  NUM(o, "warmup_seconds", cfg->warmup);
  NUM(o, "seconds", cfg->seconds);
  NUM(o, "udp_send_buffer", cfg->send_buffer);
  NUM(o, "udp_receive_buffer", cfg->receive_buffer);
  cJSON_AddStringToObject(o, "address", cfg->address);
  cJSON_AddStringToObject(o, "family",
                          cfg->family == AF_INET6 ? "ipv6" : "ipv4");
  NUM(o, "seed", cfg->seed);
  np_udp_open_config_json(o, cfg);
  np_udp_late_config_json(o, cfg);
  cJSON *b = cJSON_AddObjectToObject(o, "batch");
  NUM(b, "client_receive", res->rx_batch_client);
  NUM(b, "client_send", res->tx_batch);
  cJSON_AddStringToObject(
      o, "drain_rule",
      "after the measurement clients stop sending; the drain is complete "
      "when every outstanding message is answered or dropped by the kernel "
      "on one of our client sockets, else it ends when no reply came for "
      "200 ms + 2 x the largest RTT seen (cap 1 s; 100 ms after "
      "SIGINT/SIGTERM; at most 10 s); unanswered messages are lost");
  cJSON_AddStringToObject(
      o, "roundtrip_rate_rule",
      "completed round trips / (measurement seconds + drain seconds)");
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

static cJSON *counters_json(const struct np_udp_counters *c, int64_t lost) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "sent", c->sent);
  NUM(o, "received", c->received);
  NUM(o, "lost", lost);
  NUM(o, "content_errors", c->content_errors);
  NUM(o, "sequence_errors", c->sequence_errors);
  NUM(o, "send_errors", c->send_errors);
  NUM(o, "truncated", c->truncated);
  NUM(o, "late", c->late);
  np_udp_record_errnos(o, c->errnos, c->errno_counts, NP_UDP_MAX_ERRNOS);
  return o;
}

static cJSON *sockets_json(const struct np_udp_result *res,
                           const struct np_udp_attrib *a) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "kernel_drops", a->client_socket);
  NUM(o, "client_drops", a->client_socket);
  cJSON_AddStringToObject(
      o, "drops_source",
      "our client sockets only: SO_MEMINFO SK_MEMINFO_DROPS read at "
      "measurement start and after the drain (the server's socket is in "
      "external.server)");
  cJSON *l = cJSON_AddArrayToObject(o, "list");
  for (uint32_t i = 0; l && i < res->nsocks; i++) {
    cJSON_AddItemToArray(l, np_udp_record_socket(&res->socks[i], "client"));
  }
  return o;
}

static cJSON *attribution_json(const struct np_udp_attrib *a,
                               const struct np_udp_target *t) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "lost", a->lost);
  NUM(o, "client_socket", a->client_socket);
  if (a->server_known) {
    NUM(o, "server_socket", a->server_socket);
    NUM(o, "in_between", a->in_between);
  } else {
    cJSON_AddNullToObject(o, "server_socket");
    cJSON_AddNullToObject(o, "in_between");
  }
  NUM(o, "not_attributed", a->not_attributed);
  cJSON *p = cJSON_AddObjectToObject(o, "possible");
  cJSON_AddBoolToObject(p, "client_socket", 1);
  cJSON_AddBoolToObject(p, "server_socket", a->server_known);
  cJSON_AddBoolToObject(p, "in_between", a->server_known);
  if (t->why_not[0])
    cJSON_AddStringToObject(o, "why_not", t->why_not);
  else
    cJSON_AddNullToObject(o, "why_not");
  cJSON_AddStringToObject(
      o, "rule",
      "client_socket = drops of our client sockets (SO_MEMINFO); "
      "server_socket = drops of the target's socket(s) in /proc/net/udp(6) "
      "between the measurement's start and the end of its drain; in_between "
      "= lost - client_socket - server_socket (between our client sockets "
      "and the server socket, dropped by neither: on the path or in the "
      "server process, which only the server's own counters tell apart); "
      "without the server socket, not_attributed = lost - client_socket. "
      "The server socket's drops count every sender's datagrams");
  if (!cJSON_GetObjectItemCaseSensitive(o, "rule") ||
      cJSON_GetArraySize(p) != 3) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *replies_json(const struct np_udp_counters *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "duplicates", c->duplicates);
  NUM(o, "reordered", c->reordered);
  NUM(o, "stale", c->stale);
  NUM(o, "wrong_length", c->wrong_length);
  NUM(o, "corrupted", c->corrupted);
  if (!cJSON_GetObjectItemCaseSensitive(o, "corrupted")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *external_json(const struct np_udp_config *cfg,
                            const struct np_udp_result *res,
                            const struct np_udp_attrib *a) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddItemToObject(o, "target", np_udp_target_json(res->target, cfg));
  cJSON_AddItemToObject(o, "server", np_udp_target_server_json(res->target));
  cJSON_AddItemToObject(o, "replies", replies_json(&res->measure));
  cJSON_AddItemToObject(o, "attribution", attribution_json(a, res->target));
  cJSON_AddItemToObject(o, "client_cpu",
                        np_udp_lanecpu_json(&res->lanecpu,
                                            res->measure_seconds));
  if (cJSON_GetArraySize(o) != 5) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *measurement_json(const struct np_udp_result *res) {
  struct np_bench_measurement m = {
      .seconds = res->measure_seconds,
      .drain_seconds = res->drain_seconds,
      .drain_bound_seconds = res->drain_bound_seconds,
      .drain_complete = res->drain_complete,
      .roundtrips = res->measure.received,
      .rtt_ns = res->rtt_ns,
      .cpu = {res->cpu_user_seconds, res->cpu_sys_seconds},
      .rss_max_bytes = res->rss_max_bytes};
  return np_bench_record_measurement(&m);
}

int np_udp_external_record_build(const struct np_udp_config *cfg,
                                 const struct np_udp_result *res,
                                 const struct np_udp_attrib *a,
                                 const struct np_udp_checks *checks, int argc,
                                 char **argv, cJSON **out,
                                 struct np_bench_verdict *v,
                                 struct np_errbuf *eb) {
  struct np_bench_check list[NP_UDP_MAX_CHECKS];
  struct np_bench_verdict verdict;
  cJSON *doc = NULL;
  if (res->target == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "record: no target observed");
  for (unsigned i = 0; i < checks->n; i++)
    list[i] = (struct np_bench_check){
        checks->item[i].name, checks->item[i].passed, checks->item[i].detail};
  struct np_bench_envelope env = {.run = &res->run,
                                  .checks = list,
                                  .nchecks = checks->n,
                                  .config = config_json(cfg, res, argc, argv)};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc)
    return rc;
  cJSON_AddItemToObject(doc, "measurement", measurement_json(res));
  cJSON_AddItemToObject(doc, "counters", counters_json(&res->measure, a->lost));
  cJSON *w = cJSON_AddObjectToObject(doc, "warmup");
  NUM(w, "seconds", res->warmup_seconds);
  cJSON_AddItemToObject(
      w, "counters",
      counters_json(&res->warmup,
                    (int64_t)(res->warmup_lost + res->warmup.timed_out +
                              res->warmup.expired - res->warmup.late)));
  cJSON_AddItemToObject(doc, "sockets", sockets_json(res, a));
  cJSON_AddItemToObject(doc, "external", external_json(cfg, res, a));
  if (cfg->rate > 0 && !cJSON_AddItemToObject(doc, "open_loop",
                                              np_udp_open_json(cfg, res)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  struct np_udp_late_input li;
  np_udp_late_input_of(cfg, res, &li);
  if (!cJSON_AddItemToObject(doc, "timeouts", np_udp_late_json(&li)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  if (cfg->interval > 0 &&
      !cJSON_AddItemToObject(doc, "intervals",
                             np_bench_interval_json(&res->intervals)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  static const char *const need[] = {"config", "measurement", "counters",
                                     "warmup", "sockets",     "external"};
  if (rc == 0)
    rc = np_bench_record_require(doc, need, sizeof need / sizeof need[0], eb);
  if (rc == 0 && !cJSON_GetObjectItemCaseSensitive(w, "counters"))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  if (rc) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  if (v)
    *v = verdict;
  return 0;
}
