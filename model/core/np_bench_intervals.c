/*
 * np_bench_intervals.c - the --interval series' bound, memory and record
 * part (see np_bench_intervals.h); the sampling is bench/core's.
 */
#include "np_bench_intervals.h"

#include <math.h>
#include <stdlib.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

int np_bench_interval_check(double every, double seconds,
                            struct np_errbuf *eb) {
  if (every > 0 && ceil(seconds / every - 1e-9) > NP_BENCH_IV_MAX)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--interval %g: %g s of measurement would make "
                         "more than %d intervals", every, seconds,
                         NP_BENCH_IV_MAX);
  return 0;
}

int np_bench_interval_init(struct np_bench_intervals *iv, double every,
                           double seconds, const char *prog,
                           const char *lost_rule, int quiet) {
  *iv = (struct np_bench_intervals){.every = every, .prog = prog,
                                    .lost_rule = lost_rule, .quiet = quiet};
  if (every <= 0)
    return 0;
  double n = ceil(seconds / every - 1e-9) + 1;
  iv->cap = n > NP_BENCH_IV_MAX ? NP_BENCH_IV_MAX : (size_t)n;
  iv->pts = calloc(iv->cap, sizeof *iv->pts);
  return iv->pts ? 0 : NP_ENOMEM;
}

void np_bench_interval_free(struct np_bench_intervals *iv) {
  if (iv == NULL)
    return;
  free(iv->pts);
  iv->pts = NULL;
  iv->n = iv->cap = 0;
}

cJSON *np_bench_interval_json(const struct np_bench_intervals *iv) {
  if (iv == NULL || iv->every <= 0)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "every_seconds", iv->every);
  NUM(o, "missed", iv->missed);
  cJSON_AddStringToObject(o, "lost_rule", iv->lost_rule);
  cJSON *a = cJSON_AddArrayToObject(o, "points");
  for (size_t i = 0; a && i < iv->n; i++) {
    const struct np_bench_iv_point *p = &iv->pts[i];
    cJSON *e = cJSON_CreateObject();
    if (e == NULL || !cJSON_AddItemToArray(a, e)) {
      cJSON_Delete(e);
      cJSON_Delete(o);
      return NULL;
    }
    NUM(e, "t", p->t);
    NUM(e, "seconds", p->seconds);
    NUM(e, "ops", p->ops);
    NUM(e, "ops_per_sec", p->seconds > 0 ? (double)p->ops / p->seconds : 0);
    NUM(e, "bytes", p->bytes);
    NUM(e, "lost", p->lost);
    NUM(e, "latency_count", p->lat_count);
    if (p->p50_ns >= 0)
      NUM(e, "p50_us", (double)p->p50_ns / 1e3);
    else
      cJSON_AddNullToObject(e, "p50_us");
    if (p->p99_ns >= 0)
      NUM(e, "p99_us", (double)p->p99_ns / 1e3);
    else
      cJSON_AddNullToObject(e, "p99_us");
    NUM(e, "cpu_percent", p->cpu_percent);
    NUM(e, "rss_bytes", p->rss_bytes);
    if (!cJSON_GetObjectItemCaseSensitive(e, "rss_bytes")) {
      cJSON_Delete(o);
      return NULL;
    }
  }
  if (a == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
