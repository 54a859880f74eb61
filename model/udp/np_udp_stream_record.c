/*
 * np_udp_stream_record.c - the checks, the record (kind udp-stream) and
 * the summary line of a stream run (see np_udp_stream.h).  Loss is
 * sent - unique received and must equal the receiving socket's kernel
 * drops, as echo mode's request leg must equal the server socket's.
 */
#include "np_udp_stream_record.h"

#include <inttypes.h>
#include <stdio.h>

#include "np_bench_record_sections.h"
#include "np_json.h"
#include "np_udp_open.h"
#include "np_udp_record.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static int64_t lost_of(const struct np_udp_stream_counters *c) {
  return (int64_t)c->sent - (int64_t)c->unique;
}

void np_udp_stream_check_input_of(const struct np_udp_stream_result *res,
                                  struct np_udp_stream_check_input *out) {
  const struct np_udp_stream_counters *c = &res->measure;
  *out = (struct np_udp_stream_check_input){
      .sent = c->sent, .unique = c->unique, .rx_drops = res->rx_drops,
      .content_errors = c->content_errors, .truncated = c->truncated,
      .duplicates = c->duplicates, .too_late = c->too_late,
      .send_errors = c->send_errors, .gso = res->gso_segments > 0,
      .gso_accepted = res->gso_segments > 0 && res->gso_accepted,
      .gro_accepted = res->gro_accepted};
}

int np_udp_stream_check_input_json(const cJSON *d,
                                   struct np_udp_stream_check_input *out) {
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(d, "stream");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(st, "counters");
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(st, "kernel_accepted");
  if (!cJSON_IsObject(c) || !cJSON_IsObject(k))
    return -1;
#define U(o, key) ((uint64_t)np_json_get_number((o), (key), 0))
  *out = (struct np_udp_stream_check_input){
      .sent = U(c, "sent"), .unique = U(c, "unique"),
      .rx_drops = (uint64_t)np_json_get_number(
          cJSON_GetObjectItemCaseSensitive(d, "sockets"), "server_drops", 0),
      .content_errors = U(c, "content_errors"), .truncated = U(c, "truncated"),
      .duplicates = U(c, "duplicates"), .too_late = U(c, "too_late"),
      .send_errors = U(c, "send_errors"),
      .gso = U(k, "gso_segments_per_send") > 0,
      .gso_accepted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "gso")),
      .gro_accepted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "gro"))};
#undef U
  return 0;
}

void np_udp_stream_checks(const struct np_udp_stream_check_input *in,
                          struct np_udp_checks *cs) {
  int64_t lost = (int64_t)in->sent - (int64_t)in->unique;
  cs->n = cs->failed = 0;
  np_udp_checks_add(cs, "datagrams_received", in->unique > 0,
                    "%" PRIu64 " distinct datagrams received", in->unique);
  np_udp_checks_add(cs, "no_loss", lost == 0,
                    "lost %" PRId64 " of %" PRIu64 " sent (sent - distinct "
                    "received after the drain)", lost, in->sent);
  /* with UDP_GRO the kernel counts a dropped coalesced packet once,
   * whatever the segments it held (at most UDP_MAX_SEGMENTS, 64) */
  int64_t d = (int64_t)in->rx_drops;
  if (in->gro_accepted)
    np_udp_checks_add(cs, "loss_matches_receiver_drops",
                      lost >= d && lost <= 64 * d,
                      "lost %" PRId64 ", receiving socket's kernel drops %"
                      PRIu64 " (GRO: a dropped packet held 1 to 64 "
                      "datagrams)", lost, in->rx_drops);
  else
    np_udp_checks_add(cs, "loss_matches_receiver_drops", lost == d,
                      "lost %" PRId64 ", receiving socket's kernel drops %"
                      PRIu64, lost, in->rx_drops);
  np_udp_checks_add(cs, "no_content_errors",
                    in->content_errors == 0 && in->truncated == 0,
                    "%" PRIu64 " content errors, %" PRIu64 " truncated",
                    in->content_errors, in->truncated);
  np_udp_checks_add(cs, "no_duplicates",
                    in->duplicates == 0 && in->too_late == 0,
                    "%" PRIu64 " duplicates, %" PRIu64 " too late to tell",
                    in->duplicates, in->too_late);
  np_udp_checks_add(cs, "no_send_errors", in->send_errors == 0,
                    "%" PRIu64 " datagrams refused by the kernel",
                    in->send_errors);
  if (in->gso)
    np_udp_checks_add(cs, "gso_accepted", in->gso_accepted,
                      "UDP_SEGMENT %s", in->gso_accepted ? "taken"
                                                         : "refused");
}

static cJSON *counters_json(const struct np_udp_stream_counters *c) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "sent", c->sent);
  NUM(o, "send_calls", c->send_calls);
  NUM(o, "send_errors", c->send_errors);
  NUM(o, "received", c->received);
  NUM(o, "unique", c->unique);
  NUM(o, "lost", lost_of(c));
  NUM(o, "gap_lost", c->gap_lost);
  NUM(o, "duplicates", c->duplicates);
  NUM(o, "too_late", c->too_late);
  NUM(o, "out_of_order", c->out_of_order);
  NUM(o, "max_displacement", c->max_displacement);
  NUM(o, "bytes", c->bytes);
  NUM(o, "content_errors", c->content_errors);
  NUM(o, "truncated", c->truncated);
  NUM(o, "gro_receives", c->gro_receives);
  NUM(o, "gro_max_segments", c->gro_max_segments);
  NUM(o, "negative_delay", c->negative_delay);
  np_udp_record_errnos(o, c->errnos, c->errno_counts,
                       sizeof c->errnos / sizeof c->errnos[0]);
  return o;
}

static cJSON *stream_json(const struct np_udp_config *cfg,
                          const struct np_udp_stream_result *res) {
  const struct np_udp_stream_counters *c = &res->measure;
  double s = res->measure_seconds, w = s + res->drain_seconds;
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(
      o, "clock",
      "sender and receiver share one clock (one process: CLOCK_REALTIME "
      "stamped before each sendmmsg call, retries restamped, the kernel's "
      "SO_TIMESTAMPNS receive time): one-way delay is exact up to the "
      "clock's resolution unless the clock stepped (a datagram received "
      "before its send time is counted in counters.negative_delay and "
      "kept out of the delay histogram)");
  cJSON_AddStringToObject(
      o, "jitter_rule",
      "RFC 3550 6.4.1 as iperf3: J += (|D| - J) / 16 per datagram in "
      "arrival order, D = transit(i) - transit(i-1); jitter_us is J at the "
      "end, the mean over streams");
  NUM(o, "seconds", s);
  NUM(o, "drain_seconds", res->drain_seconds);
  cJSON_AddBoolToObject(o, "drain_complete", res->drain_complete);
  cJSON_AddItemToObject(o, "counters", counters_json(c));
  NUM(o, "datagrams_per_sec", w > 0 ? (double)c->unique / w : 0.0);
  NUM(o, "bitrate_bps", w > 0 ? (double)c->unique * cfg->payload * 8 / w
                              : 0.0);
  NUM(o, "sent_bitrate_bps", s > 0 ? (double)c->sent * cfg->payload * 8 / s
                                   : 0.0);
  NUM(o, "loss_percent", c->sent ? 100.0 * (double)lost_of(c) /
                                       (double)c->sent : 0.0);
  NUM(o, "jitter_us", res->jitter_us);
  cJSON_AddItemToObject(o, "transit_delta_us",
                        np_bench_record_rtt(res->transit_delta_ns));
  cJSON_AddItemToObject(o, "transit_delta_histogram",
                        np_bench_record_histogram(res->transit_delta_ns,
                                                  "transit_delta_us"));
  cJSON_AddItemToObject(o, "one_way_delay_us",
                        np_bench_record_rtt(res->delay_ns));
  cJSON_AddItemToObject(o, "one_way_delay_histogram",
                        np_bench_record_histogram(res->delay_ns,
                                                  "one_way_delay_us"));
  cJSON *k = cJSON_AddObjectToObject(o, "kernel_accepted");
  if (k) {
    NUM(k, "rcvbuf_effective", res->rcvbuf_effective);
    NUM(k, "sndbuf_effective", res->sndbuf_effective);
    NUM(k, "gso_segments_per_send", res->gso_segments);
    cJSON_AddBoolToObject(k, "gso", res->gso_segments && res->gso_accepted);
    cJSON_AddBoolToObject(k, "gro", res->gro_accepted);
  }
  double cpu = res->cpu_user_seconds + res->cpu_sys_seconds;
  NUM(o, "cpu_percent", w > 0 ? 100.0 * cpu / w : 0.0);
  NUM(o, "rss_max_bytes", res->rss_max_bytes);
  cJSON *wu = cJSON_AddObjectToObject(o, "warmup");
  if (wu) {
    NUM(wu, "seconds", res->warmup_seconds);
    cJSON_AddItemToObject(wu, "counters", counters_json(&res->warmup));
  }
  static const char *const need[] = {"counters", "transit_delta_us",
                                     "transit_delta_histogram",
                                     "one_way_delay_us",
                                     "one_way_delay_histogram",
                                     "kernel_accepted", "rss_max_bytes"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!cJSON_GetObjectItemCaseSensitive(o, need[i])) {
      cJSON_Delete(o);
      return NULL;
    }
  return o;
}

static cJSON *config_json(const struct np_udp_config *cfg, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "udp-stream");
  NUM(o, "payload", cfg->payload);
  NUM(o, "clients", cfg->clients);
  cJSON_AddStringToObject(o, "io_model", "split");
  cJSON_AddStringToObject(o, "backend", "raw");
  NUM(o, "warmup_seconds", cfg->warmup);
  NUM(o, "seconds", cfg->seconds);
  NUM(o, "udp_send_buffer", cfg->send_buffer);
  NUM(o, "udp_receive_buffer", cfg->server_receive_buffer);
  cJSON_AddStringToObject(o, "address", cfg->address);
  cJSON_AddStringToObject(o, "family",
                          cfg->family == AF_INET6 ? "ipv6" : "ipv4");
  NUM(o, "seed", cfg->seed);
  NUM(o, "bitrate", cfg->bitrate);
  NUM(o, "packet_rate", cfg->packet_rate);
  NUM(o, "gso", cfg->gso);
  cJSON_AddBoolToObject(o, "gro", cfg->gro);
  cJSON *b = cJSON_AddObjectToObject(o, "batch");
  NUM(b, "send", cfg->batch);
  NUM(b, "receive", cfg->batch);
  np_udp_open_config_json(o, cfg);
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

int np_udp_stream_record_build(const struct np_udp_config *cfg,
                               const struct np_udp_stream_result *res,
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
  struct np_bench_envelope env = {.run = &res->run,
                                  .checks = list,
                                  .nchecks = checks->n,
                                  .config = config_json(cfg, argc, argv)};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc)
    return rc;
  cJSON_AddItemToObject(doc, "stream", stream_json(cfg, res));
  cJSON *so = cJSON_AddObjectToObject(doc, "sockets");
  if (so) {
    NUM(so, "kernel_drops", res->rx_drops + res->tx_drops);
    NUM(so, "server_drops", res->rx_drops);
    NUM(so, "client_drops", res->tx_drops);
    cJSON_AddStringToObject(so, "drops_source",
                            "SO_MEMINFO SK_MEMINFO_DROPS read before the "
                            "measurement and after the drain; the receiver "
                            "is listed, senders' drops are client_drops");
    cJSON *l = cJSON_AddArrayToObject(so, "list");
    struct np_bench_socket b = {.role = "receiver",
                                .rcvbuf_requested = cfg->server_receive_buffer,
                                .rcvbuf_effective = res->rcvbuf_effective,
                                .sndbuf_requested = cfg->send_buffer,
                                .sndbuf_effective = res->sndbuf_effective,
                                .drops = res->rx_drops,
                                .rxq_ovfl_last = -1};
    cJSON_AddItemToArray(l, np_bench_record_socket(&b));
  }
  if (cfg->interval > 0)
    cJSON_AddItemToObject(doc, "intervals",
                          np_bench_interval_json(&res->intervals));
  static const char *const need[] = {"config", "stream", "sockets"};
  rc = np_bench_record_require(doc, need, sizeof need / sizeof need[0], eb);
  if (rc == 0 && cfg->interval > 0 &&
      !cJSON_GetObjectItemCaseSensitive(doc, "intervals"))
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

void np_udp_stream_summary(const struct np_udp_config *cfg,
                           const struct np_udp_stream_result *res,
                           const char *status) {
  const struct np_udp_stream_counters *c = &res->measure;
  double w = res->measure_seconds + res->drain_seconds;
  int64_t d50 = 0;
  np_hist_percentile(res->delay_ns, 50, &d50);
  fprintf(stderr,
          "netproof-bench udp: stream %" PRIu32 " B x %" PRIu32
          " streams%s%s: %.1f Mbit/s, %.0f datagrams/s, lost %" PRId64
          " of %" PRIu64 " (%.2f %%, receiver drops %" PRIu64 "), out of "
          "order %" PRIu64 ", jitter %.3f μs, one-way p50 %.1f μs: %s\n",
          cfg->payload, cfg->clients, res->gso_segments ? ", GSO" : "",
          res->gro_accepted ? ", GRO" : "",
          w > 0 ? (double)c->unique * cfg->payload * 8 / w / 1e6 : 0.0,
          w > 0 ? (double)c->unique / w : 0.0, lost_of(c), c->sent,
          c->sent > 0 ? 100.0 * (double)lost_of(c) / (double)c->sent : 0.0,
          res->rx_drops, c->out_of_order, res->jitter_us, (double)d50 / 1e3,
          status);
}
