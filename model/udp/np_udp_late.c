/*
 * np_udp_late.c - the record section, checks and summary part of given-up
 * messages and late replies (see np_udp_late.h).  Pure: the benchmark and
 * the self-check call the same functions on the same numbers.
 */
#include "np_udp_late.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

int np_udp_late_applies(const struct np_udp_config *cfg) {
  return cfg->mode == NP_UDP_MODE_CLIENT || cfg->rate > 0;
}

void np_udp_late_input_of(const struct np_udp_config *cfg,
                          const struct np_udp_result *res,
                          struct np_udp_late_input *out) {
  const struct np_udp_counters *c = &res->measure;
  int closed = cfg->rate <= 0 && cfg->mode == NP_UDP_MODE_CLIENT;
  *out = (struct np_udp_late_input){
      .known = np_udp_late_applies(cfg),
      .closed_loop = closed,
      .sent = c->sent,
      .received = c->received,
      .late = c->late,
      .timed_out = c->timed_out,
      .expired = c->expired,
      .late_max_us = c->late ? (double)c->late_max_ns / 1e3 : NAN,
      .timeout_min_ms = closed && res->timeout_min_ns
                            ? (double)res->timeout_min_ns / 1e6
                            : NAN,
      .timeout_max_ms = closed && res->timeout_max_ns
                            ? (double)res->timeout_max_ns / 1e6
                            : NAN,
      .waiting_seconds = (double)c->timeout_wait_ns / 1e9,
      .slot_seconds = closed ? (double)cfg->clients * cfg->window *
                                   (res->measure_seconds + res->drain_seconds)
                             : 0.0};
}

/* A record's count (finite, >= 0, below 2^64) or 0. */
static uint64_t count(double v) {
  return isfinite(v) && v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : 0;
}

static double num_or_nan(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

void np_udp_late_input_json(const cJSON *d, struct np_udp_late_input *out) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "timeouts");
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(d, "counters");
  *out = (struct np_udp_late_input){.known = cJSON_IsObject(t)};
  if (!out->known)
    return;
  out->closed_loop =
      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "closed_loop"));
  out->sent = count(np_json_get_number(cn, "sent", 0));
  out->received = count(np_json_get_number(cn, "received", 0));
  out->late = count(np_json_get_number(cn, "late", 0));
  out->timed_out = count(np_json_get_number(t, "timed_out", 0));
  out->expired = count(np_json_get_number(t, "expired", 0));
  out->late_max_us = num_or_nan(t, "late_max_us");
  const cJSON *rt = cJSON_GetObjectItemCaseSensitive(t, "reply_timeout_ms");
  out->timeout_min_ms = num_or_nan(rt, "min");
  out->timeout_max_ms = num_or_nan(rt, "max");
  out->waiting_seconds = np_json_get_number(t, "waiting_seconds", 0);
  out->slot_seconds = np_json_get_number(t, "slot_seconds", 0);
}

double np_udp_late_waiting_fraction(const struct np_udp_late_input *in) {
  return in->slot_seconds > 0 ? in->waiting_seconds / in->slot_seconds : 0.0;
}

void np_udp_late_config_json(cJSON *o, const struct np_udp_config *cfg) {
  if (cfg->rate > 0 || cfg->mode != NP_UDP_MODE_CLIENT)
    return;
  NUM(o, "reply_timeout_ms", cfg->reply_timeout_ms);
}

cJSON *np_udp_late_json(const struct np_udp_late_input *in) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddBoolToObject(o, "closed_loop", in->closed_loop);
  cJSON_AddStringToObject(o, "rule", NP_UDP_REPLY_TIMEOUT_RULE);
  if (in->closed_loop && !isnan(in->timeout_min_ms)) {
    cJSON *r = cJSON_AddObjectToObject(o, "reply_timeout_ms");
    NUM(r, "min", in->timeout_min_ms);
    NUM(r, "max", in->timeout_max_ms);
  } else {
    cJSON_AddNullToObject(o, "reply_timeout_ms");
  }
  NUM(o, "timed_out", in->timed_out);
  NUM(o, "expired", in->expired);
  NUM(o, "late", in->late);
  if (isnan(in->late_max_us))
    cJSON_AddNullToObject(o, "late_max_us");
  else
    NUM(o, "late_max_us", in->late_max_us);
  NUM(o, "waiting_seconds", in->waiting_seconds);
  NUM(o, "slot_seconds", in->slot_seconds);
  NUM(o, "waiting_fraction", np_udp_late_waiting_fraction(in));
  cJSON_AddStringToObject(o, "dominant_rule", NP_UDP_DOMINANT_RULE);
  if (!cJSON_GetObjectItemCaseSensitive(o, "dominant_rule")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static double lost_percent(const struct np_udp_late_input *in) {
  int64_t lost = (int64_t)in->sent - (int64_t)in->received - (int64_t)in->late;
  return in->sent ? 100.0 * (double)lost / (double)in->sent : 0.0;
}

void np_udp_late_checks(const struct np_udp_late_input *in,
                        struct np_udp_checks *cs) {
  if (!in->known)
    return;
  char latest[64] = "";
  if (in->late && !isnan(in->late_max_us))
    snprintf(latest, sizeof latest, "; the latest came %.1f ms after its send",
             in->late_max_us / 1e3);
  np_udp_checks_add(cs, "no_late_replies", in->late == 0,
                    "%" PRIu64 " replies came after the client gave up on "
                    "their message (%" PRIu64 " timed out, %" PRIu64
                    " whose slot was needed): counted late, not lost%s",
                    in->late, in->timed_out, in->expired, latest);
  if (!in->closed_loop)
    return;
  double f = np_udp_late_waiting_fraction(in);
  np_udp_checks_add(cs, "timeouts_not_dominant",
                    f <= NP_UDP_DOMINANT_FRACTION,
                    "%.1f %% of the slot time was spent waiting on %" PRIu64
                    " reply timeouts (at most 20 %%); lost %.2f %% of %" PRIu64
                    " sent%s",
                    100.0 * f, in->timed_out, lost_percent(in), in->sent,
                    f > NP_UDP_DOMINANT_FRACTION
                        ? ": the rate measures the timeout, not the server"
                        : "");
}

void np_udp_late_summary(const struct np_udp_late_input *in, char *buf,
                         size_t len) {
  if (!in->known || in->late == 0) {
    snprintf(buf, len, "%s", "");
    return;
  }
  snprintf(buf, len, ", late %" PRIu64 " (latest %.1f ms after its send)",
           in->late, isnan(in->late_max_us) ? 0.0 : in->late_max_us / 1e3);
}
