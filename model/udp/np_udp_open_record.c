/*
 * np_udp_open_record.c - the record, checks and summary of open loop
 * (see np_udp_open.h).  In open loop measurement.rtt_us counts from each
 * message's intended send time (corrected for coordinated omission);
 * open_loop.service_us from its actual send, as a closed loop would
 * measure it, so the two can be compared; open_loop.send_lag_us is how
 * late the sender was.  Each comes with its whole histogram.
 */
#include "np_udp_open.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "np_bench_record_sections.h"
#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

int np_udp_open_behind(const struct np_udp_result *res) {
  return res->measure.late_sends * 100 > res->measure.sent;
}

void np_udp_open_config_json(cJSON *o, const struct np_udp_config *cfg) {
  if (cfg->interval > 0)
    NUM(o, "interval", cfg->interval);
  if (cfg->rate <= 0)
    return;
  NUM(o, "rate", cfg->rate);
  cJSON_AddStringToObject(o, "arrivals", np_udp_arrivals_names[cfg->arrivals]);
  NUM(o, "max_outstanding", cfg->max_outstanding);
}

cJSON *np_udp_open_json(const struct np_udp_config *cfg,
                        const struct np_udp_result *res) {
  const struct np_udp_counters *c = &res->measure;
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "rate", cfg->rate);
  cJSON_AddStringToObject(o, "arrivals",
                          np_udp_arrivals_names[cfg->arrivals]);
  NUM(o, "max_outstanding", cfg->max_outstanding);
  cJSON_AddStringToObject(
      o, "latency_rule",
      "measurement.rtt_us counts from each message's intended send time "
      "(corrected for coordinated omission); service_us from its actual "
      "send");
  NUM(o, "scheduled", c->scheduled);
  NUM(o, "sent", c->sent);
  NUM(o, "dropped_by_client", c->dropped_by_client);
  NUM(o, "send_errors", c->send_errors);
  NUM(o, "expired", c->expired);
  NUM(o, "late_sends", c->late_sends);
  NUM(o, "late_bound_us", NP_UDP_LATE_NS / 1000);
  cJSON_AddBoolToObject(o, "sender_behind", np_udp_open_behind(res));
  cJSON_AddStringToObject(o, "behind_rule", NP_UDP_BEHIND_RULE);
  double s = res->measure_seconds;
  NUM(o, "offered_per_sec", s > 0 ? (double)c->scheduled / s : 0.0);
  NUM(o, "sent_per_sec", s > 0 ? (double)c->sent / s : 0.0);
  cJSON_AddItemToObject(o, "service_us", np_bench_record_rtt(res->service_ns));
  cJSON_AddItemToObject(
      o, "service_histogram",
      np_bench_record_histogram(res->service_ns, "service_us"));
  cJSON_AddItemToObject(o, "send_lag_us",
                        np_bench_record_rtt(res->send_lag_ns));
  cJSON_AddItemToObject(
      o, "send_lag_histogram",
      np_bench_record_histogram(res->send_lag_ns, "send_lag_us"));
  /* a failed allocation above leaves a member out */
  static const char *const need[] = {"service_us", "service_histogram",
                                     "send_lag_us", "send_lag_histogram"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!cJSON_GetObjectItemCaseSensitive(o, need[i])) {
      cJSON_Delete(o);
      return NULL;
    }
  return o;
}

void np_udp_open_input_of(const struct np_udp_config *cfg,
                          const struct np_udp_result *res,
                          struct np_udp_open_input *out) {
  const struct np_udp_counters *c = &res->measure;
  int64_t v;
  *out = (struct np_udp_open_input){
      .rate = cfg->rate,
      .arrivals = np_udp_arrivals_names[cfg->arrivals],
      .scheduled = c->scheduled,
      .sent = c->sent,
      .dropped_by_client = c->dropped_by_client,
      .send_errors = c->send_errors,
      .late_sends = c->late_sends,
      .sender_behind = np_udp_open_behind(res),
      .service_p99_us = NAN,
      .send_lag_max_us = NAN};
  /* as the record's summaries compute them (ns / 1000) */
  if (np_hist_percentile(res->service_ns, 99, &v) == 0)
    out->service_p99_us = (double)v / 1000.0;
  if (np_hist_count(res->send_lag_ns))
    out->send_lag_max_us = (double)np_hist_max(res->send_lag_ns) / 1000.0;
}

static double num_or_nan(const cJSON *o, const char *ptr) {
  const cJSON *v = np_json_pointer(o, ptr);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int np_udp_open_input_json(const cJSON *d, struct np_udp_open_input *out) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(d, "open_loop");
  if (!cJSON_IsObject(o))
    return -1;
  *out = (struct np_udp_open_input){
      .rate = np_json_get_number(o, "rate", 0),
      .arrivals = np_json_get_string(o, "arrivals", "?"),
      .scheduled = (uint64_t)np_json_get_number(o, "scheduled", 0),
      .sent = (uint64_t)np_json_get_number(o, "sent", 0),
      .dropped_by_client = (uint64_t)np_json_get_number(o, "dropped_by_client",
                                                        0),
      .send_errors = (uint64_t)np_json_get_number(o, "send_errors", 0),
      .late_sends = (uint64_t)np_json_get_number(o, "late_sends", 0),
      .sender_behind =
          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sender_behind")),
      .service_p99_us = num_or_nan(o, "/service_us/p99"),
      .send_lag_max_us = num_or_nan(o, "/send_lag_us/max")};
  return 0;
}

void np_udp_open_checks(const struct np_udp_open_input *in,
                        struct np_udp_checks *cs) {
  np_udp_checks_add(
      cs, "open_loop_accounted",
      in->scheduled == in->sent + in->dropped_by_client + in->send_errors,
      "scheduled %" PRIu64 " = sent %" PRIu64 " + dropped by client %" PRIu64
      " + refused %" PRIu64, in->scheduled, in->sent, in->dropped_by_client,
      in->send_errors);
  np_udp_checks_add(cs, "no_client_drops", in->dropped_by_client == 0,
                    "%" PRIu64 " messages came due while --max-outstanding "
                    "were in flight and were not sent", in->dropped_by_client);
}

void np_udp_open_summary(const struct np_udp_open_input *in, char *buf,
                         size_t len) {
  char tsvc[32] = "n/a";
  if (isfinite(in->service_p99_us))
    snprintf(tsvc, sizeof tsvc, "%.2f", in->service_p99_us);
  snprintf(buf, len,
           "; open loop %.0f/s %s: p99 service %s us, dropped by client %"
           PRIu64 ", late sends %" PRIu64 " (max lag %.2f ms)%s",
           in->rate, in->arrivals, tsvc, in->dropped_by_client,
           in->late_sends,
           isfinite(in->send_lag_max_us) ? in->send_lag_max_us / 1000.0 : 0.0,
           in->sender_behind ? ", SENDER FELL BEHIND" : "");
}
