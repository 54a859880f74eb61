/*
 * np_relay_stats.c - snapshots of the relay's counters and their JSON form
 * for the run record: what was configured, what was actually applied,
 * per route and direction, and how precisely the timer released copies.
 */
#include "np_relay_int.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

int np_relay_route_counts(const struct np_relay *r, unsigned route,
                          unsigned dir, struct np_relay_counts *out) {
  if (r == NULL || route >= r->nroutes || dir >= NP_RELAY_DIRS)
    return NP_EINVAL;
  uv_mutex_t *mu = (uv_mutex_t *)&r->mu;
  uv_mutex_lock(mu);
  *out = r->routes[route].dir[dir].counts;
  uv_mutex_unlock(mu);
  return 0;
}

int np_relay_route_peak(const struct np_relay *r, unsigned route,
                        uint64_t *peak_bytes, uint64_t *peak_packets) {
  if (r == NULL || route >= r->nroutes)
    return NP_EINVAL;
  uv_mutex_t *mu = (uv_mutex_t *)&r->mu;
  uv_mutex_lock(mu);
  *peak_bytes = r->routes[route].peak_bytes;
  *peak_packets = r->routes[route].peak_packets;
  uv_mutex_unlock(mu);
  return 0;
}

int np_relay_timing_get(const struct np_relay *r, struct np_relay_timing *out) {
  if (r == NULL)
    return NP_EINVAL;
  uv_mutex_t *mu = (uv_mutex_t *)&r->mu;
  uv_mutex_lock(mu);
  *out = r->timing;
  uv_mutex_unlock(mu);
  return 0;
}

void np_relay_counts_add(struct np_relay_counts *acc,
                         const struct np_relay_counts *c) {
  /* Every field is a uint64_t counter or a peak; peaks are summed too. */
  uint64_t *a = (uint64_t *)acc;
  const uint64_t *b = (const uint64_t *)c;
  for (size_t i = 0; i < sizeof(*acc) / sizeof(uint64_t); i++)
    a[i] += b[i];
}

uint64_t np_relay_counts_errors(const struct np_relay_counts *c) {
  return c->recv_errors + c->send_errors + c->truncated;
}

static double ratio(uint64_t num, uint64_t den) {
  return den ? (double)num / (double)den : 0.0;
}

static cJSON *counts_json(const struct np_relay_counts *c) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
#define F(name) cJSON_AddNumberToObject(o, #name, (double)c->name)
  F(received);
  F(received_bytes);
  F(duplicated);
  F(loss_stage);
  F(lost_burst);
  F(lost_ge);
  F(lost_random);
  F(overflow);
  F(queued);
  F(delayed);
  F(reordered);
  F(rate_paced);
  F(forwarded);
  F(forwarded_bytes);
  F(dropped_at_stop);
  F(peak_queue_bytes);
  F(peak_queue_packets);
  F(recv_errors);
  F(send_errors);
  F(truncated);
  F(foreign);
  F(send_deferred);
#undef F
  cJSON_AddNumberToObject(o, "relay_errors", (double)np_relay_counts_errors(c));
  /* Observed rates, each over the packets that model could act on. */
  cJSON *obs = cJSON_AddObjectToObject(o, "observed");
  if (obs == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  uint64_t after_burst = c->loss_stage - c->lost_burst;
  uint64_t after_ge = after_burst - c->lost_ge;
  cJSON_AddNumberToObject(obs, "duplicate_rate", ratio(c->duplicated, c->received));
  cJSON_AddNumberToObject(obs, "burst_loss_rate", ratio(c->lost_burst, c->loss_stage));
  cJSON_AddNumberToObject(obs, "ge_loss_rate", ratio(c->lost_ge, after_burst));
  cJSON_AddNumberToObject(obs, "random_loss_rate", ratio(c->lost_random, after_ge));
  cJSON_AddNumberToObject(obs, "total_loss_rate",
                          ratio(c->lost_burst + c->lost_ge + c->lost_random,
                                c->loss_stage));
  cJSON_AddNumberToObject(obs, "reorder_rate", ratio(c->reordered, c->queued));
  return o;
}

static cJSON *timing_json(const struct np_relay_timing *t) {
  static const char *const names[8] = {"lt_10us",  "lt_20us",  "lt_50us",
                                       "lt_100us", "lt_200us", "lt_500us",
                                       "lt_1ms",   "ge_1ms"};
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "mechanism",
                          "binary min-heap + timerfd (CLOCK_MONOTONIC, "
                          "absolute) watched by uv_poll");
  cJSON_AddNumberToObject(o, "releases", (double)t->releases);
  cJSON_AddNumberToObject(o, "timer_wakeups", (double)t->timer_wakeups);
  cJSON_AddNumberToObject(o, "late_mean_ns",
                          t->releases ? (double)t->late_sum_ns / (double)t->releases : 0.0);
  cJSON_AddNumberToObject(o, "late_max_ns", (double)t->late_max_ns);
  cJSON_AddNumberToObject(o, "late_over_100us", (double)t->late_over_100us);
  cJSON *h = cJSON_AddObjectToObject(o, "late_histogram");
  if (h == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  for (int i = 0; i < 8; i++)
    cJSON_AddNumberToObject(h, names[i], (double)t->late_hist[i]);
  return o;
}

/* Adds child to parent under key; on NULL child returns -1. */
static int add(cJSON *parent, const char *key, cJSON *child) {
  if (child == NULL)
    return -1;
  cJSON_AddItemToObject(parent, key, child);
  return 0;
}

cJSON *np_relay_stats_json(const struct np_relay *r) {
  static const char *const dname[NP_RELAY_DIRS] = {"c2s", "s2c"};
  if (r == NULL)
    return NULL;
  struct np_relay_counts *snap = calloc((size_t)r->nroutes * NP_RELAY_DIRS,
                                        sizeof(*snap));
  uint64_t *peaks = calloc((size_t)r->nroutes * 2, sizeof(*peaks));
  cJSON *o = cJSON_CreateObject();
  cJSON *routes = NULL, *totals = NULL;
  struct np_relay_timing timing;
  if (snap == NULL || peaks == NULL || o == NULL)
    goto fail;

  uv_mutex_t *mu = (uv_mutex_t *)&r->mu;
  uv_mutex_lock(mu);
  for (unsigned i = 0; i < r->nroutes; i++) {
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      snap[i * NP_RELAY_DIRS + d] = r->routes[i].dir[d].counts;
    peaks[i * 2] = r->routes[i].peak_bytes;
    peaks[i * 2 + 1] = r->routes[i].peak_packets;
  }
  timing = r->timing;
  uv_mutex_unlock(mu);

  if (add(o, "config", np_relay_config_json(&r->cfg)) != 0)
    goto fail;
  cJSON_AddStringToObject(o, "topology",
                          "one route per client: front socket (client side) "
                          "and back socket (server side), loopback port 0");
  cJSON_AddStringToObject(o, "streams",
                          "xoshiro256** per (route, direction, impairment); "
                          "state = splitmix64 outputs from seed ^ (key * "
                          "0xD1B54A32D192ED03), key = ((route*2+dir)*8+stream)+1");
  cJSON_AddStringToObject(o, "order",
                          "duplicate, loss (burst, gemodel, random), queue "
                          "limit, delay+jitter, rate, reorder extra delay");
  cJSON_AddNumberToObject(o, "routes_count", r->nroutes);
  if (add(o, "timer", timing_json(&timing)) != 0)
    goto fail;

  routes = cJSON_AddArrayToObject(o, "routes");
  if (routes == NULL)
    goto fail;
  struct np_relay_counts tot[NP_RELAY_DIRS];
  memset(tot, 0, sizeof(tot));
  uint64_t peak_bytes_sum = 0, peak_packets_sum = 0;
  for (unsigned i = 0; i < r->nroutes; i++) {
    cJSON *ro = cJSON_CreateObject();
    if (ro == NULL)
      goto fail;
    cJSON_AddItemToArray(routes, ro);
    cJSON_AddNumberToObject(ro, "route", i);
    cJSON_AddNumberToObject(ro, "port",
                            r->routes[i].front_addr.ss_family == AF_INET6
                                ? ntohs(((const struct sockaddr_in6 *)&r->routes[i].front_addr)->sin6_port)
                                : ntohs(((const struct sockaddr_in *)&r->routes[i].front_addr)->sin_port));
    cJSON_AddNumberToObject(ro, "peak_queue_bytes", (double)peaks[i * 2]);
    cJSON_AddNumberToObject(ro, "peak_queue_packets", (double)peaks[i * 2 + 1]);
    peak_bytes_sum += peaks[i * 2];
    peak_packets_sum += peaks[i * 2 + 1];
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      const struct np_relay_counts *c = &snap[i * NP_RELAY_DIRS + d];
      np_relay_counts_add(&tot[d], c);
      if (add(ro, dname[d], counts_json(c)) != 0)
        goto fail;
    }
  }
  totals = cJSON_AddObjectToObject(o, "totals");
  if (totals == NULL)
    goto fail;
  cJSON_AddNumberToObject(totals, "peak_queue_bytes_sum", (double)peak_bytes_sum);
  cJSON_AddNumberToObject(totals, "peak_queue_packets_sum", (double)peak_packets_sum);
  cJSON_AddNumberToObject(totals, "overflow",
                          (double)(tot[0].overflow + tot[1].overflow));
  cJSON_AddNumberToObject(totals, "relay_errors",
                          (double)(np_relay_counts_errors(&tot[0]) +
                                   np_relay_counts_errors(&tot[1])));
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
    if (add(totals, dname[d], counts_json(&tot[d])) != 0)
      goto fail;
  free(snap);
  free(peaks);
  return o;

fail:
  cJSON_Delete(o);
  free(snap);
  free(peaks);
  return NULL;
}
