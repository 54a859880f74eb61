/*
 * np_rudp_record_fec.c - the FEC parts of the rudp record (issue 8): the
 * per-round "fec" object, the FEC knobs under config, and the per-round
 * figures the summary spreads use.  Every figure covers measurement +
 * drain, summed over the endpoints of both sides, unless named otherwise;
 * with --fec none the object is present with zeros so rounds of every
 * strategy have the same shape.
 */
#include "np_rudp_record_fec.h"

#include <math.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static struct np_fec_stats both_sides(const struct np_rudp_round *r) {
  struct np_fec_stats s = {0};
  unsigned n = 0;
  np_rudp_fec_add(&s, &r->fec_client, &n);
  np_rudp_fec_add(&s, &r->fec_server, &n);
  return s;
}

static double pct(uint64_t a, uint64_t b) {
  return b ? 100.0 * (double)a / (double)b : 0.0;
}

double np_rudp_round_recoveries_per_1000(const struct np_rudp_round *r) {
  uint64_t rec = r->fec_client.recovered + r->fec_server.recovered;
  return r->app.received ? 1000.0 * (double)rec / (double)r->app.received
                         : 0.0;
}

double np_rudp_round_unrecoverable(const struct np_rudp_round *r) {
  return (double)(r->fec_client.unrecoverable + r->fec_server.unrecoverable);
}

double np_rudp_round_retained_peak(const struct np_rudp_round *r) {
  return (double)(r->fec_client.retained_peak + r->fec_server.retained_peak);
}

double np_rudp_round_parity_mean(const struct np_rudp_round *r) {
  return both_sides(r).parity_mean;
}

double np_rudp_round_policy_changes(const struct np_rudp_round *r) {
  return (double)(r->fec_client.policy_changes +
                  r->fec_server.policy_changes);
}

double np_rudp_round_applied_loss(const struct np_rudp_round *r) {
  const struct np_relay_counts *w = &r->relay_window;
  return pct(w->lost_random + w->lost_burst + w->lost_ge, w->loss_stage);
}

double np_rudp_round_overhead(const struct np_rudp_round *r) {
  return r->app.msg_bytes
             ? ((double)r->wire_bytes / (double)r->app.msg_bytes - 1.0) * 100.0
             : 0.0;
}

static cJSON *retained_json(const struct np_rudp_round *r,
                            const struct np_fec_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON *a = cJSON_CreateArray();
  uint64_t mx = 0;
  double sum = 0;
  for (uint32_t i = 0; i < r->fec_nretained; i++) {
    uint64_t v = r->fec_retained[i];
    cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v));
    mx = v > mx ? v : mx;
    sum += (double)v;
  }
  NUM(o, "interval_ms", 100);
  cJSON_AddItemToObject(o, "samples_bytes", a);
  NUM(o, "sample_max_bytes", mx);
  NUM(o, "sample_mean_bytes",
      r->fec_nretained ? sum / (double)r->fec_nretained : 0.0);
  NUM(o, "peak_sum_bytes", s->retained_peak);
  NUM(o, "budget_bytes_sum", s->budget);
  cJSON_AddStringToObject(o, "rule",
                          "bytes kept for FEC (open send groups + incomplete "
                          "receive groups), summed over every endpoint; "
                          "samples every 100 ms from measurement start "
                          "through the drain; peak_sum_bytes is the sum of "
                          "each endpoint's own high-water mark");
  return o;
}

static cJSON *stats_or_empty(const struct np_fec_stats *s) {
  cJSON *o = np_fec_stats_to_json(s);
  return o ? o : cJSON_CreateObject();
}

cJSON *np_rudp_fec_round_json(const struct np_rudp_config *cfg,
                              const struct np_rudp_round *r) {
  struct np_fec_stats s = both_sides(r);
  uint64_t fec_bytes = s.header_bytes + s.parity_bytes + s.report_bytes;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "mode", np_rudp_fec_name(cfg->fec));
  NUM(o, "recoveries", s.recovered);
  NUM(o, "recoveries_per_1000_roundtrips",
      np_rudp_round_recoveries_per_1000(r));
  NUM(o, "recovered_into_arq",
      r->arq_client.recovered_in + r->arq_server.recovered_in);
  NUM(o, "unrecoverable_groups", s.unrecoverable);
  NUM(o, "groups_encoded", s.groups_encoded);
  NUM(o, "groups_partial", s.groups_partial);
  NUM(o, "groups_no_parity", s.groups_no_parity);
  NUM(o, "groups_bare", s.groups_bare);
  NUM(o, "groups_recovered", s.groups_recovered);
  NUM(o, "groups_final", s.groups_final);
  NUM(o, "data_shards_sent", s.data_sent);
  NUM(o, "plain_sent", s.plain_sent);
  NUM(o, "parity_sent", s.parity_sent);
  NUM(o, "header_bytes", s.header_bytes);
  NUM(o, "parity_bytes", s.parity_bytes);
  NUM(o, "report_bytes", s.report_bytes);
  NUM(o, "reports_sent", s.reports_sent);
  NUM(o, "fec_bytes_percent_of_wire", pct(fec_bytes, r->wire_bytes));
  NUM(o, "parity_max", s.parity_max);
  NUM(o, "parity_mean", s.parity_mean);
  cJSON *h = cJSON_AddArrayToObject(o, "parity_hist");
  for (unsigned m = 0; m <= NP_FEC_MAX_PARITY; m++)
    cJSON_AddItemToArray(h, cJSON_CreateNumber((double)s.parity_hist[m]));
  NUM(o, "policy_changes", s.policy_changes);
  NUM(o, "policy_parity_max", s.policy_m);
  NUM(o, "policy_loss_mean", s.policy_loss);
  NUM(o, "ratio_binds", s.ratio_binds);
  NUM(o, "budget_binds", s.budget_binds);
  NUM(o, "inbound_shard_loss_percent",
      pct(s.shards_lost, s.shards_expected));
  NUM(o, "dup_shards", s.dup_shards);
  NUM(o, "late_shards", s.late_shards);
  NUM(o, "malformed", s.malformed);
  NUM(o, "rx_evictions", s.rx_evictions);
  NUM(o, "output_errors", s.output_errors);
  if (cfg->fec == NP_RUDP_FEC_WINDOW) { /* sliding-window RLC counters */
    cJSON *w = cJSON_AddObjectToObject(o, "window");
    NUM(w, "window", s.window);
    NUM(w, "repair_per_window_max", s.repair_per_window);
    NUM(w, "repairs", s.parity_sent);
    NUM(w, "repairs_tail", s.repair_tail);
    NUM(w, "repair_percent_of_sources", pct(s.parity_sent, s.data_sent));
    NUM(w, "repairs_redundant", s.win_redundant);
    NUM(w, "equations_dropped", s.win_dropped_eq);
    NUM(w, "repairs_late", s.win_late_repair);
    NUM(w, "equations_at_start", s.win_eq_at_reset);
  }
  cJSON_AddItemToObject(o, "retained", retained_json(r, &s));
  cJSON_AddItemToObject(o, "client", stats_or_empty(&r->fec_client));
  cJSON_AddItemToObject(o, "server", stats_or_empty(&r->fec_server));
  return o;
}

cJSON *np_rudp_fec_config_json(const struct np_rudp_config *cfg) {
  const struct np_fec_config *f = &cfg->fec_cfg;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "mode", np_rudp_fec_name(cfg->fec));
  NUM(o, "group", f->group);
  NUM(o, "parity", f->parity);
  NUM(o, "wait_ms", (double)f->wait_ns / 1e6);
  NUM(o, "budget_bytes", f->budget);
  NUM(o, "ratio_percent", f->ratio_pct);
  if (cfg->fec == NP_RUDP_FEC_WINDOW)
    NUM(o, "window", f->window);
  NUM(o, "final_lag_groups", f->final_lag);
  NUM(o, "final_ms", (double)f->final_ns / 1e6);
  NUM(o, "report_ms", (double)f->report_ns / 1e6);
  cJSON *p = cJSON_AddObjectToObject(o, "policy");
  NUM(p, "min_parity", f->policy.min_m);
  NUM(p, "max_parity", f->policy.max_m);
  NUM(p, "initial_parity", f->policy.initial_m);
  NUM(p, "target", f->policy.target);
  NUM(p, "alpha", f->policy.alpha);
  NUM(p, "down_factor", f->policy.down_factor);
  return o;
}

void np_rudp_fec_header_json(cJSON *h, const struct np_rudp_config *cfg) {
  NUM(h, "fec_data_header_bytes", NP_FEC_HDR_DATA);
  if (cfg->fec == NP_RUDP_FEC_WINDOW)
    NUM(h, "fec_repair_header_bytes", NP_FEC_HDR_REPAIR);
  NUM(h, "fec_parity_header_bytes", NP_FEC_HDR_PARITY);
  NUM(h, "fec_report_bytes", NP_FEC_HDR_REPORT);
}

void np_rudp_round_summary_input(const struct np_rudp_round *r, uint32_t i,
                                 struct np_rudp_summary_input *in) {
  double wall = r->measure_seconds + r->drain_seconds;
  int64_t p99 = 0;
  int h = np_hist_percentile(r->rtt_ns, 99, &p99) == 0;
  uint64_t retx = r->arq_client.retransmits + r->arq_server.retransmits;
  *in = (struct np_rudp_summary_input){
      .round = i,
      .seed = r->seed,
      .roundtrips_per_sec = wall > 0 ? (double)r->app.received / wall : 0.0,
      .p99_ms = h ? (double)p99 / 1e6 : NAN,
      .retransmits_per_1000 =
          r->app.received ? 1000.0 * (double)retx / (double)r->app.received
                          : 0.0,
      .spurious = r->arq_client.spurious + r->arq_server.spurious,
      .retransmits = retx,
      .overhead_percent = np_rudp_round_overhead(r),
      .recoveries_per_1000 = np_rudp_round_recoveries_per_1000(r),
      .unrecoverable = np_rudp_round_unrecoverable(r),
      .cpu_percent =
          wall > 0 ? 100.0 * (r->cpu_user_seconds + r->cpu_sys_seconds) / wall
                   : 0.0,
      .failed = r->failed};
}
