/*
 * np_udp_record.c - turn a config, a result and its checks into the run
 * record.  Every number goes through cJSON's typed calls; percentiles the
 * sample count cannot support are JSON null (np_hist_percentile refuses
 * them), never invented.
 */
#include "np_udp_record.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "np_identity.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_sysinfo.h"
#include "np_udp_msg.h"
#include "np_schema.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static cJSON *config_json(const struct np_udp_config *cfg,
                          const struct np_udp_result *res, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "udp");
  NUM(o, "payload", cfg->payload);
  NUM(o, "clients", cfg->clients);
  NUM(o, "window", cfg->window);
  cJSON_AddStringToObject(o, "io_model", np_udp_io_model_name(cfg->io_model));
  NUM(o, "io_threads", res->lanes);
  cJSON_AddStringToObject(o, "backend", np_udp_backend_name(cfg->backend));
  NUM(o, "work", cfg->work);
  cJSON_AddStringToObject(o, "work_unit", NP_UDP_WORK_UNIT_TEXT);
  NUM(o, "warmup_seconds", cfg->warmup);
  NUM(o, "seconds", cfg->seconds);
  NUM(o, "udp_send_buffer", cfg->send_buffer);
  NUM(o, "udp_receive_buffer", cfg->receive_buffer);
  NUM(o, "udp_server_receive_buffer", cfg->server_receive_buffer);
  cJSON_AddStringToObject(o, "address", cfg->address);
  cJSON_AddStringToObject(o, "family",
                          cfg->family == AF_INET6 ? "ipv6" : "ipv4");
  NUM(o, "seed", cfg->seed);
  cJSON *b = cJSON_AddObjectToObject(o, "batch");
  NUM(b, "server_receive", res->rx_batch_server);
  NUM(b, "client_receive", res->rx_batch_client);
  NUM(b, "client_send", res->tx_batch);
  cJSON_AddStringToObject(
      o, "drain_rule",
      "after the measurement clients stop sending; the drain is complete "
      "when every outstanding message is answered or dropped by the kernel "
      "on one of the run's sockets, else it ends when no reply came for "
      "200 ms + 2 x the largest RTT seen (cap 1 s; 100 ms after "
      "SIGINT/SIGTERM; at most 10 s); unanswered messages are lost");
  if (cfg->io_model == NP_UDP_IO_REUSEPORT)
    cJSON_AddStringToObject(
        o, "reuseport_steering",
        res->reuseport_steered
            ? "SO_ATTACH_REUSEPORT_CBPF: client id low byte mod threads; "
              "each client's server socket is on its own thread"
            : "kernel flow hash (one thread, or payload under 9 bytes)");
  cJSON_AddStringToObject(
      o, "roundtrip_rate_rule",
      "completed round trips / (measurement seconds + drain seconds)");
  if (argv) {
    cJSON *cmd = cJSON_AddArrayToObject(o, "command");
    for (int i = 0; i < argc; i++)
      cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
  }
  return o;
}

static void pct(cJSON *o, const char *key, const struct np_hist *h,
                double p) {
  int64_t v;
  if (np_hist_percentile(h, p, &v) == 0)
    NUM(o, key, (double)v / 1000.0);
  else
    cJSON_AddNullToObject(o, key);
}

static cJSON *rtt_json(const struct np_hist *h) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  uint64_t n = np_hist_count(h);
  NUM(o, "count", n);
  if (n) {
    NUM(o, "min", (double)np_hist_min(h) / 1000.0);
  } else {
    cJSON_AddNullToObject(o, "min");
  }
  pct(o, "p50", h, 50.0);
  pct(o, "p90", h, 90.0);
  pct(o, "p99", h, 99.0);
  pct(o, "p999", h, 99.9);
  if (n) {
    NUM(o, "max", (double)np_hist_max(h) / 1000.0);
    NUM(o, "mean", np_hist_mean(h) / 1000.0);
  } else {
    cJSON_AddNullToObject(o, "max");
    cJSON_AddNullToObject(o, "mean");
  }
  return o;
}

static cJSON *measurement_json(const struct np_udp_result *res) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  double wall = res->measure_seconds + res->drain_seconds;
  double cpu = res->cpu_user_seconds + res->cpu_sys_seconds;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  double cpu_pct = wall > 0 ? 100.0 * cpu / wall : 0.0;
  NUM(o, "seconds", res->measure_seconds);
  NUM(o, "drain_seconds", res->drain_seconds);
  NUM(o, "drain_bound_seconds", res->drain_bound_seconds);
  cJSON_AddBoolToObject(o, "drain_complete", res->drain_complete);
  NUM(o, "roundtrips", res->measure.received);
  NUM(o, "roundtrips_per_sec",
      wall > 0 ? (double)res->measure.received / wall : 0.0);
  cJSON_AddItemToObject(o, "rtt_us", rtt_json(res->rtt_ns));
  NUM(o, "cpu_percent", cpu_pct);
  NUM(o, "machine_cpu_percent", cores > 0 ? cpu_pct / (double)cores : 0.0);
  NUM(o, "cpu_user_seconds", res->cpu_user_seconds);
  NUM(o, "cpu_sys_seconds", res->cpu_sys_seconds);
  NUM(o, "rss_max_bytes", res->rss_max_bytes);
  return o;
}

static cJSON *counters_json(const struct np_udp_counters *c,
                            const struct np_udp_loss *l) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "sent", c->sent);
  NUM(o, "server_received", c->server_received);
  NUM(o, "server_replied", c->server_replied);
  NUM(o, "received", c->received);
  NUM(o, "lost", l->lost);
  NUM(o, "lost_request_leg", l->request_leg);
  NUM(o, "lost_at_server", l->server);
  NUM(o, "lost_reply_leg", l->reply_leg);
  NUM(o, "content_errors", c->content_errors);
  NUM(o, "sequence_errors", c->sequence_errors);
  NUM(o, "send_errors", c->send_errors);
  NUM(o, "server_send_errors", c->server_send_errors);
  NUM(o, "truncated", c->truncated);
  NUM(o, "cross_thread_requests", c->cross_thread);
  cJSON *e = cJSON_AddObjectToObject(o, "send_errnos");
  for (int i = 0; i < NP_UDP_MAX_ERRNOS; i++)
    if (c->errno_counts[i])
      NUM(e, np_errno_name(c->errnos[i]), c->errno_counts[i]);
  return o;
}

static cJSON *sockets_json(const struct np_udp_result *res,
                           const struct np_udp_loss *l) {
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  NUM(o, "kernel_drops", l->kernel_drops);
  NUM(o, "server_drops", l->server_drops);
  NUM(o, "client_drops", l->client_drops);
  cJSON_AddStringToObject(
      o, "drops_source",
      "SO_MEMINFO SK_MEMINFO_DROPS (sk_drops, the counter SO_RXQ_OVFL "
      "reports) read at measurement start and after the drain");
  cJSON *a = cJSON_AddArrayToObject(o, "list");
  for (uint32_t i = 0; i < res->nsocks; i++) {
    const struct np_udp_sock_report *s = &res->socks[i];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToArray(a, e);
    cJSON_AddStringToObject(e, "role",
                            s->role == NP_UDP_ROLE_SERVER ? "server"
                                                          : "client");
    NUM(e, "index", s->index);
    NUM(e, "thread", s->lane);
    NUM(e, "rcvbuf_requested", s->rcvbuf_requested);
    NUM(e, "rcvbuf_effective", s->rcvbuf_effective);
    NUM(e, "sndbuf_requested", s->sndbuf_requested);
    NUM(e, "sndbuf_effective", s->sndbuf_effective);
    NUM(e, "drops", s->drops_after - s->drops_before);
    if (s->rxq_ovfl_last >= 0)
      NUM(e, "rxq_ovfl_last", s->rxq_ovfl_last);
    else
      cJSON_AddNullToObject(e, "rxq_ovfl_last");
  }
  return o;
}

static cJSON *checks_json(const struct np_udp_checks *cs) {
  cJSON *a = cJSON_CreateArray();
  for (unsigned i = 0; a && i < cs->n; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToArray(a, e);
    cJSON_AddStringToObject(e, "name", cs->item[i].name);
    cJSON_AddBoolToObject(e, "passed", cs->item[i].passed);
    cJSON_AddStringToObject(e, "detail", cs->item[i].detail);
  }
  return a;
}

static cJSON *reasons_json(const struct np_udp_checks *cs, int signal) {
  cJSON *a = cJSON_CreateArray();
  if (a && signal)
    cJSON_AddItemToArray(a, cJSON_CreateString(signal == SIGINT
                                                   ? "interrupted by SIGINT"
                                                   : "interrupted by SIGTERM"));
  for (unsigned i = 0; a && i < cs->n; i++) {
    if (cs->item[i].passed)
      continue;
    char buf[300];
    snprintf(buf, sizeof buf, "%s: %s", cs->item[i].name, cs->item[i].detail);
    cJSON_AddItemToArray(a, cJSON_CreateString(buf));
  }
  return a;
}

int np_udp_record_build(const struct np_udp_config *cfg,
                        const struct np_udp_result *res,
                        const struct np_udp_loss *loss,
                        const struct np_udp_checks *checks, const char *status,
                        int argc, char **argv, cJSON **out,
                        struct np_errbuf *eb) {
  struct np_udp_loss wl;
  cJSON *doc = cJSON_CreateObject();
  if (!doc)
    goto fail_nomem;
  cJSON_AddStringToObject(doc, "schema", "netproof/run/1");
  cJSON_AddStringToObject(doc, "status", status);
  if (strcmp(status, "passed") != 0)
    cJSON_AddItemToObject(doc, "reasons", reasons_json(checks, res->signal));
  cJSON_AddItemToObject(doc, "tool", np_identity_tool_json("netproof-bench"));
  cJSON_AddItemToObject(doc, "machine", np_sysinfo_machine_json());
  cJSON_AddStringToObject(doc, "started_at", res->started_at);
  cJSON_AddItemToObject(doc, "config", config_json(cfg, res, argc, argv));
  cJSON_AddItemToObject(doc, "measurement", measurement_json(res));
  cJSON_AddItemToObject(doc, "counters", counters_json(&res->measure, loss));
  cJSON *w = cJSON_AddObjectToObject(doc, "warmup");
  NUM(w, "seconds", res->warmup_seconds);
  np_udp_loss_compute(&res->warmup, res, &wl);
  wl.lost = (int64_t)res->warmup_lost; /* outstanding when measurement began */
  cJSON_AddItemToObject(w, "counters", counters_json(&res->warmup, &wl));
  cJSON_AddItemToObject(doc, "sockets", sockets_json(res, loss));
  cJSON *k = cJSON_AddObjectToObject(doc, "kernel");
  cJSON_AddItemToObject(k, "before", np_kernel_to_json(res->kernel_before));
  cJSON_AddItemToObject(k, "after", np_kernel_to_json(res->kernel_after));
  cJSON_AddItemToObject(
      k, "delta", np_kernel_delta_json(res->kernel_before, res->kernel_after));
  cJSON_AddItemToObject(doc, "checks", checks_json(checks));
  /* any failed allocation above leaves a hole the schema will reject;
   * check the parts that are always required here */
  static const char *const need[] = {"tool", "machine", "config",
                                     "measurement", "counters", "sockets",
                                     "checks"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!cJSON_GetObjectItemCaseSensitive(doc, need[i]))
      goto fail_nomem;
  *out = doc;
  return 0;
fail_nomem:
  cJSON_Delete(doc);
  return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
}

int np_udp_record_validate(const cJSON *doc, struct np_errbuf *eb) {
  struct np_errbuf inner;
  int rc = np_schema_validate_tagged(doc, &inner);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "record: %s", inner.msg);
  return 0;
}

int np_udp_record_write(const cJSON *doc, const char *path,
                        struct np_errbuf *eb) {
  if (strcmp(path, "-") != 0)
    return np_json_write_atomic(path, doc, 1, eb);
  char *txt = np_json_print(doc, 1);
  if (!txt)
    return np_errbuf_set(eb, NP_ENOMEM, "record: cannot print");
  size_t len = strlen(txt);
  int rc = fwrite(txt, 1, len, stdout) == len && fflush(stdout) == 0
               ? 0
               : np_errbuf_set(eb, NP_EIO, "stdout: write failed");
  free(txt);
  return rc;
}
