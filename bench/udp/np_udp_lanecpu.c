/*
 * np_udp_lanecpu.c - per-lane thread CPU over the measured window (see
 * np_udp_lanecpu.h).
 */
#include "np_udp_lanecpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "np_busy.h"
#include "np_err.h"
#include "np_json.h"
#include "np_udp_engine.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

/* the lane thread's CPU clock in ns, or -1 */
static int64_t lane_clock_ns(const struct np_udp_lane *l) {
  clockid_t id;
  struct timespec ts;
  if (!l->thread_started || pthread_getcpuclockid(l->thread, &id) != 0 ||
      clock_gettime(id, &ts) != 0)
    return -1;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int np_udp_lanecpu_snap(struct np_udp_lanecpu *lc,
                        const struct np_udp_engine *eng, int at) {
  if (at == 0) {
    lc->n = eng->nlanes;
    lc->start_ns = calloc(lc->n ? lc->n : 1, sizeof *lc->start_ns);
    lc->used_ns = calloc(lc->n ? lc->n : 1, sizeof *lc->used_ns);
    if (!lc->start_ns || !lc->used_ns) {
      np_udp_lanecpu_free(lc);
      return NP_ENOMEM;
    }
  }
  for (uint32_t i = 0; i < lc->n && i < eng->nlanes; i++) {
    int64_t t = lane_clock_ns(&eng->lanes[i]);
    if (at == 0)
      lc->start_ns[i] = t;
    else
      lc->used_ns[i] = t < 0 || lc->start_ns[i] < 0 ? -1
                                                    : t - lc->start_ns[i];
  }
  return 0;
}

int np_udp_lanecpu_saturated(const struct np_udp_lanecpu *lc,
                             double window_seconds, double *busiest) {
  double best = 0;
  for (uint32_t i = 0; i < lc->n; i++) {
    if (lc->used_ns[i] < 0)
      continue;
    double f = np_busy_fraction((double)lc->used_ns[i] / 1e9, window_seconds);
    if (f > best)
      best = f;
  }
  if (busiest)
    *busiest = best;
  return np_busy_saturated(best);
}

cJSON *np_udp_lanecpu_json(const struct np_udp_lanecpu *lc,
                           double window_seconds) {
  cJSON *o = cJSON_CreateObject();
  cJSON *lanes = o ? cJSON_AddArrayToObject(o, "lane_cpu_seconds") : NULL;
  if (!lanes) {
    cJSON_Delete(o);
    return NULL;
  }
  for (uint32_t i = 0; i < lc->n; i++) {
    cJSON *v = lc->used_ns[i] < 0
                   ? cJSON_CreateNull()
                   : cJSON_CreateNumber((double)lc->used_ns[i] / 1e9);
    if (!cJSON_AddItemToArray(lanes, v)) {
      cJSON_Delete(v);
      cJSON_Delete(o);
      return NULL;
    }
  }
  double busiest;
  int sat = np_udp_lanecpu_saturated(lc, window_seconds, &busiest);
  NUM(o, "window_seconds", window_seconds);
  NUM(o, "busiest_fraction", busiest);
  cJSON_AddBoolToObject(o, "client_saturated", sat);
  if (!cJSON_AddStringToObject(o, "rule", NP_BUSY_RULE)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

void np_udp_lanecpu_free(struct np_udp_lanecpu *lc) {
  if (!lc)
    return;
  free(lc->start_ns);
  free(lc->used_ns);
  lc->start_ns = lc->used_ns = NULL;
  lc->n = 0;
}
