/*
 * np_udp_record.c - turn a config, a result and its checks into the run
 * record: the shared envelope, then the udp sections.  Every number goes
 * through cJSON's typed calls; percentiles the sample count cannot support
 * are JSON null (np_bench_record_rtt), never invented.
 */
#include "np_udp_record.h"

#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>

#include "np_bench_record_sections.h"
#include "np_json.h"
#include "np_udp_msg.h"
#include "np_udp_late.h"
#include "np_udp_open.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

/* The IORING_SETUP_* flag names (the kernel's UAPI header: the record
 * builder links no liburing). */
void np_udp_uring_setup_names(unsigned mask, char *buf, size_t len) {
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
               {IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"},
               {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
               {IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"},
               {IORING_SETUP_R_DISABLED, "R_DISABLED"},
               {IORING_SETUP_CQSIZE, "CQSIZE"}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((mask & names[i].bit) && used < len) {
      int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                       names[i].name);
      used += w > 0 ? (size_t)w : 0;
    }
}

/* IORING_SETUP_* names of mask as a JSON array. */
static void add_setup(cJSON *o, const char *key, unsigned mask) {
  char buf[160], *save = NULL;
  cJSON *a = cJSON_AddArrayToObject(o, key);
  np_udp_uring_setup_names(mask, buf, sizeof buf);
  for (char *t = strtok_r(buf, ", ", &save); t && a;
       t = strtok_r(NULL, ", ", &save))
    cJSON_AddItemToArray(a, cJSON_CreateString(t));
}

/* The uring backend's set-up as the kernel took it. */
static void uring_json(cJSON *cfg, const struct np_udp_loop_info *li) {
  cJSON *u = cJSON_AddObjectToObject(cfg, "uring");
  if (!u)
    return;
  add_setup(u, "setup_requested", li->setup_requested);
  add_setup(u, "setup_accepted", li->setup_accepted);
  cJSON_AddBoolToObject(u, "registered_files", li->registered_files);
  cJSON_AddBoolToObject(u, "registered_buffers", li->registered_buffers);
  cJSON_AddBoolToObject(u, "buffer_ring", li->buffer_ring);
  NUM(u, "ring_entries", li->ring_entries);
  NUM(u, "buffers", li->buffers);
  NUM(u, "sync_sends", li->sync_sends);
}

cJSON *np_udp_config_json(const struct np_udp_config *cfg,
                          const struct np_udp_layout *res, int argc,
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
  np_udp_open_config_json(o, cfg);
  np_udp_late_config_json(o, cfg);
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
        res->steered
            ? "SO_ATTACH_REUSEPORT_CBPF: client id low byte mod threads; "
              "each client's server socket is on its own thread"
            : "kernel flow hash (one thread, or payload under 9 bytes)");
  if (cfg->io_model == NP_UDP_IO_CONNECTED)
    cJSON_AddStringToObject(
        o, "server_sockets",
        "one unconnected SO_REUSEPORT socket per thread and one per client, "
        "connected to it, on the same port, in the client's thread");
  cJSON_AddStringToObject(
      o, "roundtrip_rate_rule",
      "completed round trips / (measurement seconds + drain seconds)");
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

/* --count-syscalls: the lanes' system calls and context switches over
 * measurement + drain, and per completed round trip. */
static cJSON *syscalls_json(const struct np_udp_result *res) {
  const struct np_udp_syscount *a = &res->sys_before, *b = &res->sys_after;
  double rt = (double)res->measure.received;
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddStringToObject(
      o, "source",
      "syscalls: counted by the transport at each call site of the lane "
      "threads (they make no others; clock_gettime is in the vDSO), null "
      "for uv (libuv makes its own); context switches: "
      "voluntary_ctxt_switches and nonvoluntary_ctxt_switches of "
      "/proc/self/task/TID/status, every thread but the controller; both "
      "over measurement + drain");
  if (a->syscalls >= 0 && b->syscalls >= a->syscalls) {
    NUM(o, "syscalls", b->syscalls - a->syscalls);
    if (rt > 0)
      NUM(o, "syscalls_per_roundtrip", (double)(b->syscalls - a->syscalls) / rt);
    else
      cJSON_AddNullToObject(o, "syscalls_per_roundtrip");
  } else {
    cJSON_AddNullToObject(o, "syscalls");
    cJSON_AddNullToObject(o, "syscalls_per_roundtrip");
  }
  uint64_t vol = b->voluntary - a->voluntary;
  uint64_t inv = b->involuntary - a->involuntary;
  NUM(o, "context_switches_voluntary", vol);
  NUM(o, "context_switches_involuntary", inv);
  if (rt > 0)
    NUM(o, "context_switches_per_roundtrip", (double)(vol + inv) / rt);
  else
    cJSON_AddNullToObject(o, "context_switches_per_roundtrip");
  return o;
}

static cJSON *counters_json(const struct np_udp_counters *c,
                            const struct np_udp_loss *l, int late) {
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
  if (late)
    NUM(o, "late", c->late);
  np_udp_record_errnos(o, c->errnos, c->errno_counts, NP_UDP_MAX_ERRNOS);
  return o;
}

void np_udp_record_errnos(cJSON *o, const int *errnos,
                          const uint64_t *counts, size_t n) {
  cJSON *e = cJSON_AddObjectToObject(o, "send_errnos");
  for (size_t i = 0; e && i < n; i++)
    if (counts[i])
      NUM(e, np_errno_name(errnos[i]), counts[i]);
}

cJSON *np_udp_record_socket(const struct np_udp_sock_report *s,
                            const char *role) {
  struct np_bench_socket b = {.role = role,
                              .index = s->index,
                              .thread = s->lane,
                              .rcvbuf_requested = s->rcvbuf_requested,
                              .rcvbuf_effective = s->rcvbuf_effective,
                              .sndbuf_requested = s->sndbuf_requested,
                              .sndbuf_effective = s->sndbuf_effective,
                              .drops = s->drops_after - s->drops_before,
                              .rxq_ovfl_last = s->rxq_ovfl_last};
  return np_bench_record_socket(&b);
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
      "reports) read at measurement start and after the drain; each "
      "socket's drops_source says whether SO_RXQ_OVFL cmsgs were also read");
  cJSON *a = cJSON_AddArrayToObject(o, "list");
  for (uint32_t i = 0; i < res->nsocks; i++) {
    const struct np_udp_sock_report *s = &res->socks[i];
    cJSON *e = np_udp_record_socket(
        s, s->role == NP_UDP_ROLE_SERVER ? "server" : "client");
    if (e)
      cJSON_AddStringToObject(e, "drops_source",
                              s->rxq_ovfl_last >= 0
                                  ? "SO_MEMINFO, SO_RXQ_OVFL cmsg cross-check"
                                  : "SO_MEMINFO");
    cJSON_AddItemToArray(a, e);
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

int np_udp_record_build(const struct np_udp_config *cfg,
                        const struct np_udp_result *res,
                        const struct np_udp_loss *loss,
                        const struct np_udp_checks *checks, int argc,
                        char **argv, cJSON **out, struct np_bench_verdict *v,
                        struct np_errbuf *eb) {
  struct np_bench_check list[NP_UDP_MAX_CHECKS];
  struct np_bench_verdict verdict;
  /* what ran, as the run reports it */
  struct np_udp_layout lay = {.lanes = res->lanes,
                              .rx_batch_server = res->rx_batch_server,
                              .rx_batch_client = res->rx_batch_client,
                              .tx_batch = res->tx_batch,
                              .steered = res->reuseport_steered};
  struct np_udp_loss wl;
  cJSON *doc = NULL;
  for (unsigned i = 0; i < checks->n; i++)
    list[i] = (struct np_bench_check){checks->item[i].name,
                                      checks->item[i].passed,
                                      checks->item[i].detail};
  cJSON *config = np_udp_config_json(cfg, &lay, argc, argv);
  /* the uring set-up the kernel accepted is the run's, not the command's */
  if (config && cfg->backend == NP_UDP_BACKEND_URING)
    uring_json(config, &res->transport);
  struct np_bench_envelope env = {.run = &res->run,
                                  .checks = list,
                                  .nchecks = checks->n,
                                  .config = config};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc)
    return rc;
  cJSON_AddItemToObject(doc, "measurement", measurement_json(res));
  int late = np_udp_late_applies(cfg); /* counters.late: 0.3.0 on */
  cJSON_AddItemToObject(doc, "counters",
                        counters_json(&res->measure, loss, late));
  cJSON *w = cJSON_AddObjectToObject(doc, "warmup");
  NUM(w, "seconds", res->warmup_seconds);
  struct np_udp_check_input win;
  np_udp_check_input_of(&res->warmup, res, &win);
  np_udp_loss_compute(&win, &wl);
  /* outstanding when measurement began, and given up unanswered */
  wl.lost = (int64_t)(res->warmup_lost + res->warmup.timed_out +
                      res->warmup.expired - res->warmup.late);
  cJSON_AddItemToObject(w, "counters", counters_json(&res->warmup, &wl, late));
  cJSON_AddItemToObject(doc, "sockets", sockets_json(res, loss));
  if (cfg->rate > 0 && !cJSON_AddItemToObject(doc, "open_loop",
                                              np_udp_open_json(cfg, res)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  struct np_udp_late_input li;
  np_udp_late_input_of(cfg, res, &li);
  if (li.known &&
      !cJSON_AddItemToObject(doc, "timeouts", np_udp_late_json(&li)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  if (cfg->interval > 0 &&
      !cJSON_AddItemToObject(doc, "intervals",
                             np_bench_interval_json(&res->intervals)))
    rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  if (cfg->count_syscalls)
    cJSON_AddItemToObject(doc, "syscalls", syscalls_json(res));
  /* a failed allocation above leaves a hole: name it as such */
  static const char *const need[] = {"config", "measurement", "counters",
                                     "warmup", "sockets"};
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
