/*
 * np_rudp_record.c - results to JSON through cJSON's typed calls: the
 * shared envelope (model/core/np_bench_record.h), then the rudp sections.
 * Percentiles the sample count cannot support are null
 * (np_bench_record_rtt), never invented.
 */
#include "np_rudp_record.h"

#include <stdio.h>
#include <string.h>

#include "np_bench_record_sections.h"
#include "np_bench_intervals.h"
#include "np_json.h"
#include "np_rudp_record_fec.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static const char *const RATE_RULE =
    "completed round trips from measurement start through the drain / "
    "(measurement seconds + drain seconds)";
static const char *const RTT_RULE =
    "request queued by the client to its echo delivered to the client (in "
    "order, or as soon as complete with --delivery unordered): includes "
    "emulated delay, congestion control, ARQ retransmission and, in order, "
    "head-of-line waiting";
static const char *const IO_RULE =
    "recvmmsg/sendmmsg calls of the endpoint sockets (clients and server, "
    "every lane; the relay's own are not counted), measurement + drain";
static const char *const OVERHEAD_RULE =
    "(UDP payload bytes sent by all endpoints / application message bytes "
    "in both directions - 1) x 100, over measurement + drain; the payload "
    "bytes are counted at the socket, so ARQ headers, acks, FEC headers, "
    "parity and loss reports are all in; no IP/UDP headers, relay "
    "forwarding not counted";

static double wall_s(const struct np_rudp_round *r) {
  return r->measure_seconds + r->drain_seconds;
}

static double rate(const struct np_rudp_round *r) {
  return wall_s(r) > 0 ? (double)r->app.received / wall_s(r) : 0.0;
}

static double per_1000(uint64_t n, uint64_t rt) {
  return rt ? 1000.0 * (double)n / (double)rt : 0.0;
}

/* The run schema's measurement object for one round. */
static cJSON *measurement_json(const struct np_rudp_round *r,
                               uint64_t rss_max) {
  struct np_bench_measurement m = {
      .seconds = r->measure_seconds,
      .drain_seconds = r->drain_seconds,
      .drain_bound_seconds = -1, /* not in rudp records */
      .drain_complete = r->drain_complete,
      .roundtrips = r->app.received,
      .rtt_ns = r->rtt_ns,
      .cpu = {r->cpu_user_seconds, r->cpu_sys_seconds},
      .rss_max_bytes = (int64_t)rss_max};
  return np_bench_record_measurement(&m);
}

static cJSON *counters_json(const struct np_rudp_app *a) {
  cJSON *o = cJSON_CreateObject();
  NUM(o, "sent", a->sent);
  NUM(o, "server_received", a->server_received);
  NUM(o, "server_replied", a->server_replied);
  NUM(o, "received", a->received);
  NUM(o, "lost", (double)a->sent - (double)a->received);
  NUM(o, "content_errors", a->content_errors);
  NUM(o, "sequence_errors", a->sequence_errors);
  NUM(o, "send_errors", a->send_errors);
  return o;
}

/* Spurious share of all retransmissions, whole round, both sides. */
static double f_spur(const struct np_rudp_round *r) {
  uint64_t n = r->arq_total.retransmits;
  return n ? 100.0 * (double)r->arq_total.spurious / (double)n : 0.0;
}

static cJSON *arq_json(const struct np_rudp_round *r) {
  struct np_arq_stats s = r->arq_client;
  np_rudp_arq_add_delta(&s, &r->arq_server, &(struct np_arq_stats){0});
  uint64_t rt = r->app.received;
  cJSON *o = cJSON_CreateObject();
  NUM(o, "datagrams_sent", r->wire_datagrams);
  NUM(o, "udp_payload_bytes_sent", r->wire_bytes);
  NUM(o, "arq_datagrams_sent", s.datagrams_sent);
  NUM(o, "arq_bytes_sent", s.bytes_sent);
  NUM(o, "app_message_bytes", r->app.msg_bytes);
  NUM(o, "network_overhead_percent", np_rudp_round_overhead(r));
  NUM(o, "fragments_sent", s.fragments_sent);
  NUM(o, "retransmits", s.retransmits);
  NUM(o, "retransmits_per_1000_roundtrips", per_1000(s.retransmits, rt));
  NUM(o, "retransmits_rack", s.retx_rack);
  NUM(o, "retransmits_tlp", s.retx_tlp);
  NUM(o, "retransmits_rto", s.retx_rto);
  NUM(o, "spurious_retransmits", s.spurious);
  /* A retransmission sent before the window can be found spurious inside
   * it, so the window's own counts can give more than 100 %: the share is
   * taken over the whole round (both sides), where every spurious one was
   * also sent. */
  NUM(o, "retransmits_round", r->arq_total.retransmits);
  NUM(o, "spurious_retransmits_round", r->arq_total.spurious);
  NUM(o, "spurious_percent_of_retransmits", f_spur(r));
  NUM(o, "spurious_rack", s.spurious_rack);
  NUM(o, "spurious_tlp", s.spurious_tlp);
  NUM(o, "spurious_rto", s.spurious_rto);
  NUM(o, "spurious_fec_protected", s.spurious_protected);
  NUM(o, "retransmits_head", s.retx_head);
  NUM(o, "spurious_head", s.spurious_head);
  NUM(o, "rto_events", s.rto_events);
  NUM(o, "tlp_events", s.tlp_events);
  NUM(o, "pure_acks_sent", s.pure_acks_sent);
  NUM(o, "acks_piggybacked", s.acks_piggybacked);
  NUM(o, "acks_delayed", s.acks_delayed);
  NUM(o, "ack_repeats", s.ack_repeats);
  NUM(o, "messages_delivered_early", s.msgs_delivered_early);
  NUM(o, "fec_protected_fragments", s.protected_frags);
  NUM(o, "duplicate_fragments", s.dup_fragments);
  NUM(o, "out_of_window", s.out_of_window);
  NUM(o, "malformed", s.malformed);
  NUM(o, "recovered_by_fec", s.recovered_in);
  NUM(o, "rtt_samples", s.rtt_samples);
  NUM(o, "reorder_window_grows", s.reo_wnd_grows);
  NUM(o, "reordering_seen", s.reordered_seen);
  NUM(o, "srtt_max_us", s.srtt_ns / 1000.0);
  NUM(o, "min_rtt_us", s.min_rtt_ns / 1000.0);
  NUM(o, "reorder_window_max_us", s.reo_wnd_ns / 1000.0);
  NUM(o, "cwnd_max", s.cwnd == UINT32_MAX ? 0 : s.cwnd);
  NUM(o, "socket_send_errors", r->socket_send_errors);
  NUM(o, "foreign_datagrams", r->foreign);
  return o;
}

static cJSON *relay_dir_json(const struct np_relay_counts *c) {
  cJSON *o = cJSON_CreateObject();
  NUM(o, "received", c->received);
  NUM(o, "duplicated", c->duplicated);
  NUM(o, "lost_random", c->lost_random);
  NUM(o, "lost_burst", c->lost_burst);
  NUM(o, "lost_ge", c->lost_ge);
  NUM(o, "overflow", c->overflow);
  NUM(o, "delayed", c->delayed);
  NUM(o, "reordered", c->reordered);
  NUM(o, "rate_paced", c->rate_paced);
  NUM(o, "forwarded", c->forwarded);
  NUM(o, "dropped_at_stop", c->dropped_at_stop);
  NUM(o, "loss_stage", c->loss_stage);
  NUM(o, "applied_loss_percent",
      c->loss_stage ? 100.0 * (double)(c->lost_random + c->lost_burst +
                                       c->lost_ge) / (double)c->loss_stage
                    : 0.0);
  NUM(o, "errors", np_relay_counts_errors(c));
  return o;
}

static double per_call(uint64_t n, uint64_t calls) {
  return calls ? (double)n / (double)calls : 0.0;
}

static double io_per_rt(const struct np_rudp_round *r) {
  return r->app.received
             ? (double)(r->io.recv_calls + r->io.send_calls) /
                   (double)r->app.received
             : 0.0;
}

static cJSON *io_json(const struct np_rudp_config *cfg,
                      const struct np_rudp_round *r) {
  const struct np_rudp_io_stats *io = &r->io;
  cJSON *o = cJSON_CreateObject();
  NUM(o, "batch", cfg->batch);
  NUM(o, "recv_syscalls", io->recv_calls);
  NUM(o, "recv_datagrams", io->recv_datagrams);
  NUM(o, "recv_empty_syscalls", io->recv_empty);
  NUM(o, "send_syscalls", io->send_calls);
  NUM(o, "send_datagrams", io->send_datagrams);
  NUM(o, "send_refused", io->send_failed);
  NUM(o, "truncated", io->truncated);
  NUM(o, "datagrams_per_recv_syscall",
      per_call(io->recv_datagrams, io->recv_calls));
  NUM(o, "datagrams_per_send_syscall",
      per_call(io->send_datagrams, io->send_calls));
  NUM(o, "syscalls_per_roundtrip", io_per_rt(r));
  cJSON_AddStringToObject(o, "rule", IO_RULE);
  return o;
}

/* The envelope's view of checks (pointers into c). */
static void bench_checks(const struct np_rudp_check *c,
                         struct np_bench_check out[NP_RUDP_CHECKS]) {
  for (unsigned i = 0; i < NP_RUDP_CHECKS; i++)
    out[i] = (struct np_bench_check){c[i].name, c[i].passed, c[i].detail};
}

static cJSON *round_json(const struct np_rudp_config *cfg,
                         const struct np_rudp_round *r, uint32_t i,
                         uint64_t rss) {
  cJSON *o = cJSON_CreateObject();
  NUM(o, "round", i);
  NUM(o, "seed", r->seed);
  cJSON_AddStringToObject(o, "started_at", r->started_at);
  cJSON_AddStringToObject(o, "status", r->failed ? "failed" : "passed");
  NUM(o, "warmup_seconds", r->warmup_seconds);
  NUM(o, "close_seconds", r->close_seconds);
  cJSON_AddItemToObject(o, "measurement", measurement_json(r, rss));
  if (cfg->interval > 0)
    cJSON_AddItemToObject(o, "intervals",
                          np_bench_interval_json(&r->intervals));
  cJSON_AddItemToObject(o, "counters", counters_json(&r->total));
  cJSON_AddItemToObject(o, "counters_window", counters_json(&r->app));
  cJSON_AddItemToObject(o, "arq", arq_json(r));
  cJSON_AddItemToObject(o, "io", io_json(cfg, r));
  cJSON *c = cJSON_AddObjectToObject(o, "connections");
  NUM(c, "total", r->conns);
  NUM(c, "closed", r->conns_closed);
  NUM(c, "failed", r->conns_failed);
  NUM(c, "unacknowledged", r->conns_unacked);
  cJSON *rl = cJSON_AddObjectToObject(o, "relay");
  cJSON_AddItemToObject(rl, "c2s", relay_dir_json(&r->relay_dir[0]));
  cJSON_AddItemToObject(rl, "s2c", relay_dir_json(&r->relay_dir[1]));
  cJSON *rw = cJSON_AddObjectToObject(rl, "window");
  const struct np_relay_counts *wc = &r->relay_window;
  NUM(rw, "received", wc->received);
  NUM(rw, "duplicated", wc->duplicated);
  NUM(rw, "lost", wc->lost_random + wc->lost_burst + wc->lost_ge);
  NUM(rw, "overflow", wc->overflow);
  NUM(rw, "reordered", wc->reordered);
  NUM(rw, "forwarded", wc->forwarded);
  NUM(rw, "loss_stage", wc->loss_stage);
  NUM(rw, "applied_loss_percent", np_rudp_round_applied_loss(r));
  NUM(rl, "route_peak_bytes_sum", r->relay_peak_bytes_sum);
  NUM(rl, "route_peak_packets_sum", r->relay_peak_packets_sum);
  NUM(rl, "errors", r->relay_errors);
  NUM(rl, "overflow", r->relay_overflow);
  cJSON_AddStringToObject(rl, "scope",
                          r->relay_scope ? r->relay_scope
                                         : "whole round: warm-up, "
                                           "measurement, drain, close");
  if (r->relay_stats)
    cJSON_AddItemReferenceToObject(rl, "stats", r->relay_stats);
  cJSON_AddItemToObject(o, "fec", np_rudp_fec_round_json(cfg, r));
  struct np_bench_check bc[NP_RUDP_CHECKS];
  bench_checks(r->checks, bc);
  cJSON_AddItemToObject(o, "checks", np_bench_record_checks(bc, NP_RUDP_CHECKS));
  return o;
}

/* {"median", "min", "max"} of one per-round value */
static cJSON *spread(const struct np_rudp_result *res,
                     double (*f)(const struct np_rudp_round *)) {
  cJSON *o = cJSON_CreateObject();
  double lo = 0, hi = 0;
  for (uint32_t i = 0; i < res->nrounds; i++) {
    double v = f(&res->rounds[i]);
    if (i == 0 || v < lo)
      lo = v;
    if (i == 0 || v > hi)
      hi = v;
  }
  NUM(o, "median", res->nrounds ? f(&res->rounds[res->median]) : 0.0);
  NUM(o, "min", lo);
  NUM(o, "max", hi);
  return o;
}

static double f_p99(const struct np_rudp_round *r) {
  int64_t v = 0;
  return np_hist_percentile(r->rtt_ns, 99, &v) == 0 ? v / 1000.0 : 0.0;
}
static double f_cpu(const struct np_rudp_round *r) {
  return wall_s(r) > 0
             ? 100.0 * (r->cpu_user_seconds + r->cpu_sys_seconds) / wall_s(r)
             : 0.0;
}
static double f_retx(const struct np_rudp_round *r) {
  return per_1000(r->arq_client.retransmits + r->arq_server.retransmits,
                  r->app.received);
}
static double f_p50(const struct np_rudp_round *r) {
  int64_t v = 0;
  return np_hist_percentile(r->rtt_ns, 50, &v) == 0 ? v / 1000.0 : 0.0;
}
static double f_cpu_rt(const struct np_rudp_round *r) {
  double cpu = r->cpu_user_seconds + r->cpu_sys_seconds;
  return r->app.received ? 1e6 * cpu / (double)r->app.received : 0.0;
}
static double f_relay_peak(const struct np_rudp_round *r) {
  return (double)r->relay_peak_bytes_sum;
}

cJSON *np_rudp_part_json(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "fec", np_rudp_fec_name(cfg->fec));
  cJSON_AddStringToObject(o, "cc", np_arq_cc_name(cfg->arq.cc));
  cJSON_AddStringToObject(o, "delivery",
                          np_arq_delivery_name(cfg->arq.delivery));
  cJSON *h = cJSON_AddObjectToObject(o, "header");
  NUM(h, "common_bytes", NP_ARQ_HDR_COMMON);
  NUM(h, "ack_bytes", NP_ARQ_HDR_ACK);
  NUM(h, "sack_range_bytes", NP_ARQ_HDR_SACK);
  NUM(h, "max_sack_ranges", NP_ARQ_MAX_SACK);
  NUM(h, "max_sack_ranges_pure_ack", NP_ARQ_MAX_SACK_ACK);
  NUM(h, "data_bytes", NP_ARQ_HDR_DATA);
  NUM(h, "begin_flag", NP_ARQ_F_BEGIN);
  NUM(h, "data_only_bytes", NP_ARQ_HDR_COMMON + NP_ARQ_HDR_DATA);
  NUM(h, "max_bytes", NP_ARQ_HDR_MAX);
  NUM(h, "fec_reserve_bytes", cfg->arq.reserve);
  NUM(h, "fragment_max_bytes", np_arq_frag_max(&cfg->arq));
  np_rudp_fec_header_json(h, cfg);
  NUM(o, "median_round", res->median);
  cJSON_AddStringToObject(o, "median_rule",
                          "the round with the median round trips/s (lower "
                          "middle for an even count); min/max over all "
                          "rounds");
  cJSON_AddStringToObject(o, "overhead_rule", OVERHEAD_RULE);
  cJSON *s = cJSON_AddObjectToObject(o, "summary");
  cJSON_AddItemToObject(s, "roundtrips_per_sec", spread(res, rate));
  cJSON_AddItemToObject(s, "rtt_p99_us", spread(res, f_p99));
  cJSON_AddItemToObject(s, "cpu_percent", spread(res, f_cpu));
  cJSON_AddItemToObject(s, "retransmits_per_1000_roundtrips",
                        spread(res, f_retx));
  cJSON_AddItemToObject(s, "spurious_percent_of_retransmits",
                        spread(res, f_spur));
  cJSON_AddItemToObject(s, "network_overhead_percent",
                        spread(res, np_rudp_round_overhead));
  cJSON_AddItemToObject(s, "rtt_p50_us", spread(res, f_p50));
  cJSON_AddItemToObject(s, "cpu_us_per_roundtrip", spread(res, f_cpu_rt));
  cJSON_AddItemToObject(s, "recoveries_per_1000_roundtrips",
                        spread(res, np_rudp_round_recoveries_per_1000));
  cJSON_AddItemToObject(s, "unrecoverable_groups",
                        spread(res, np_rudp_round_unrecoverable));
  cJSON_AddItemToObject(s, "fec_retained_peak_bytes",
                        spread(res, np_rudp_round_retained_peak));
  cJSON_AddItemToObject(s, "relay_route_peak_bytes_sum",
                        spread(res, f_relay_peak));
  cJSON_AddItemToObject(s, "parity_mean",
                        spread(res, np_rudp_round_parity_mean));
  cJSON_AddItemToObject(s, "policy_changes",
                        spread(res, np_rudp_round_policy_changes));
  cJSON_AddItemToObject(s, "applied_loss_percent",
                        spread(res, np_rudp_round_applied_loss));
  cJSON_AddItemToObject(s, "syscalls_per_roundtrip", spread(res, io_per_rt));
  cJSON *a = cJSON_AddArrayToObject(o, "rounds");
  for (uint32_t i = 0; i < res->nrounds; i++)
    cJSON_AddItemToArray(a, round_json(cfg, &res->rounds[i], i,
                                       res->rss_max_bytes));
  return o;
}

/* The in-process relay's configuration, or the external relay's as its
 * stats line of the first round says (ext_stats), with where it was
 * reached. */
static cJSON *relay_config_json(const struct np_rudp_config *cfg,
                                const cJSON *ext_stats) {
  if (cfg->relay_ext == NULL)
    return np_relay_config_json(&cfg->relay);
  cJSON *o = cJSON_Duplicate(cJSON_GetObjectItem(ext_stats, "config"), 1);
  if (o == NULL)
    o = cJSON_CreateObject();
  cJSON *x = cJSON_AddObjectToObject(o, "external");
  cJSON_AddStringToObject(x, "relay", cfg->relay_ext);
  cJSON_AddStringToObject(x, "stats_lines", cfg->relay_stats);
  return o;
}

cJSON *np_rudp_config_json(const struct np_rudp_config *cfg, uint32_t lanes,
                           const cJSON *ext_stats, int argc, char **argv) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "protocol", "rudp");
  NUM(o, "payload", cfg->payload);
  NUM(o, "clients", cfg->clients);
  NUM(o, "window", cfg->window);
  cJSON_AddStringToObject(o, "io_model", np_rudp_io_model_name(cfg->io_model));
  NUM(o, "io_threads", lanes);
  NUM(o, "warmup_seconds", cfg->warmup);
  NUM(o, "seconds", cfg->seconds);
  NUM(o, "rounds", cfg->rounds);
  if (cfg->interval > 0)
    NUM(o, "interval", cfg->interval);
  NUM(o, "udp_send_buffer", cfg->socket_buffer);
  NUM(o, "udp_receive_buffer", cfg->socket_buffer);
  cJSON_AddStringToObject(o, "address", "127.0.0.1");
  cJSON_AddStringToObject(o, "family", "ipv4");
  NUM(o, "seed", cfg->seed);
  /* the far server endpoint: as given (with --agent, far.server says
   * where the agent's listened) */
  if (cfg->agent)
    cJSON_AddStringToObject(o, "agent", cfg->agent);
  else if (cfg->connect)
    cJSON_AddStringToObject(o, "connect", cfg->connect);
  cJSON_AddStringToObject(o, "fec", np_rudp_fec_name(cfg->fec));
  cJSON_AddStringToObject(o, "cc", np_arq_cc_name(cfg->arq.cc));
  cJSON_AddStringToObject(o, "delivery",
                          np_arq_delivery_name(cfg->arq.delivery));
  NUM(o, "syscall_batch", cfg->batch);
  cJSON_AddItemToObject(o, "fec_params", np_rudp_fec_config_json(cfg));
  cJSON *q = cJSON_AddObjectToObject(o, "arq");
  NUM(q, "mtu", cfg->arq.mtu);
  NUM(q, "send_window", cfg->arq.snd_wnd);
  NUM(q, "receive_window", cfg->arq.rcv_wnd);
  NUM(q, "initial_cwnd", cfg->arq.init_cwnd);
  NUM(q, "min_rto_ms", cfg->arq.min_rto_ns / 1e6);
  NUM(q, "reorder_window_max_ms", cfg->arq.reo_wnd_max_ns / 1e6);
  NUM(q, "reorder_window_protected_ms", cfg->arq.reo_wnd_protected_ns / 1e6);
  NUM(q, "reorder_window_head_ms", cfg->arq.reo_wnd_head_ns / 1e6);
  NUM(q, "head_dupthresh", cfg->arq.head_dupthresh);
  NUM(q, "head_copies", cfg->arq.head_copies);
  NUM(q, "ack_every", cfg->arq.ack_every);
  NUM(q, "ack_delay_ms", cfg->arq.ack_delay_ns / 1e6);
  NUM(q, "max_rto_ms", cfg->arq.max_rto_ns / 1e6);
  NUM(q, "dead_timeout_ms", cfg->arq.dead_timeout_ns / 1e6);
  cJSON_AddItemToObject(o, "relay", relay_config_json(cfg, ext_stats));
  cJSON_AddStringToObject(o, "roundtrip_rate_rule", RATE_RULE);
  cJSON_AddStringToObject(o, "rtt_rule", RTT_RULE);
  cJSON_AddStringToObject(o, "seed_rule",
                          cfg->relay_ext
                              ? "round i uses seed + i for the message "
                                "contents; the external relay draws from "
                                "its own seed (relay.seed)"
                              : "round i uses seed + i for the relay's "
                                "random streams and the message contents");
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

static cJSON *sockets_json(const struct np_rudp_round *r) {
  cJSON *o = cJSON_CreateObject();
  uint64_t drops = 0;
  cJSON *a = cJSON_CreateArray();
  for (uint32_t i = 0; i < r->nsocks; i++) {
    const struct np_rudp_sockrep *s = &r->socks[i];
    struct np_bench_socket b = {.role = s->server ? "server" : "client",
                                .index = s->index,
                                .thread = s->lane,
                                .rcvbuf_requested = s->rcvbuf_requested,
                                .rcvbuf_effective = s->rcvbuf_effective,
                                .sndbuf_requested = s->sndbuf_requested,
                                .sndbuf_effective = s->sndbuf_effective,
                                .drops = s->drops,
                                .rxq_ovfl_last = -1}; /* libuv: not read */
    cJSON_AddItemToArray(a, np_bench_record_socket(&b));
    drops += s->drops;
  }
  NUM(o, "kernel_drops", drops);
  cJSON_AddStringToObject(o, "drops_source",
                          "SO_MEMINFO SK_MEMINFO_DROPS of the endpoint "
                          "sockets of the median round, whole round");
  cJSON_AddItemToObject(o, "list", a);
  return o;
}

/* "round i: name: detail" for every check that failed in a round. */
static cJSON *reasons_json(const struct np_rudp_result *res) {
  cJSON *why = cJSON_CreateArray();
  for (uint32_t i = 0; why && i < res->nrounds; i++)
    for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
      if (!res->rounds[i].checks[k].passed) {
        char buf[300];
        np_rudp_reason_text(i, &res->rounds[i].checks[k], buf, sizeof buf);
        cJSON_AddItemToArray(why, cJSON_CreateString(buf));
      }
  return why;
}

int np_rudp_record_build(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res, int argc,
                         char **argv, cJSON **out, struct np_bench_verdict *v,
                         struct np_errbuf *eb) {
  struct np_bench_verdict verdict;
  cJSON *doc = NULL;
  if (res->nrounds == 0)
    return np_errbuf_set(eb, NP_EINVAL, "record: no round ran");
  /* a check passes when it passed in every round */
  struct np_rudp_check all[NP_RUDP_CHECKS];
  const struct np_rudp_check *per[NP_RUDP_MAX_ROUNDS];
  for (uint32_t i = 0; i < res->nrounds && i < NP_RUDP_MAX_ROUNDS; i++)
    per[i] = res->rounds[i].checks;
  np_rudp_checks_aggregate(per, res->nrounds, all);
  struct np_bench_check list[NP_RUDP_CHECKS];
  bench_checks(all, list);
  struct np_bench_envelope env = {.run = &res->run,
                                  .checks = list,
                                  .nchecks = NP_RUDP_CHECKS,
                                  .config = np_rudp_config_json(cfg, res->lanes, res->nrounds ? res->rounds[0].relay_stats : NULL, argc,
                                                           argv),
                                  .reasons = reasons_json(res)};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc)
    return rc;
  const struct np_rudp_round *med = &res->rounds[res->median];
  cJSON_AddItemToObject(doc, "measurement",
                        measurement_json(med, res->rss_max_bytes));
  /* whole rounds (warm-up through close), so lost = never answered */
  struct np_rudp_app sum = {0};
  for (uint32_t i = 0; i < res->nrounds; i++)
    np_rudp_app_add(&sum, &res->rounds[i].total);
  cJSON_AddItemToObject(doc, "counters", counters_json(&sum));
  cJSON_AddItemToObject(doc, "sockets", sockets_json(med));
  cJSON_AddItemToObject(doc, "rudp", np_rudp_part_json(cfg, res));
  static const char *const need[] = {"config", "measurement", "counters",
                                     "sockets", "rudp"};
  if ((rc = np_bench_record_require(doc, need, sizeof need / sizeof need[0],
                                    eb)) != 0) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  if (v)
    *v = verdict;
  return 0;
}
