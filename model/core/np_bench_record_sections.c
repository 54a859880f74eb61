/*
 * np_bench_record_sections.c - the measurement section and socket entries
 * shared by every kind (see np_bench_record_sections.h).
 */
#include "np_bench_record_sections.h"

#include <unistd.h>

#include "np_hist_codec.h"
#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

cJSON *np_bench_record_rtt(const struct np_hist *h) {
  return np_hist_summary_json(h, 1000.0);
}

cJSON *np_bench_record_histogram(const struct np_hist *h,
                                 const char *summarizes) {
  cJSON *o = np_hist_to_json(h, "ns");
  if (o && summarizes &&
      !cJSON_AddStringToObject(o, "summarizes", summarizes)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *np_bench_record_measurement(const struct np_bench_measurement *m) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  double wall = m->seconds + m->drain_seconds;
  double cpu = m->cpu.user_seconds + m->cpu.sys_seconds;
  double pct = wall > 0 ? 100.0 * cpu / wall : 0.0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  NUM(o, "seconds", m->seconds);
  NUM(o, "drain_seconds", m->drain_seconds);
  if (m->drain_bound_seconds >= 0)
    NUM(o, "drain_bound_seconds", m->drain_bound_seconds);
  cJSON_AddBoolToObject(o, "drain_complete", m->drain_complete);
  NUM(o, "roundtrips", m->roundtrips);
  NUM(o, "roundtrips_per_sec", wall > 0 ? (double)m->roundtrips / wall : 0.0);
  cJSON *rtt = np_bench_record_rtt(m->rtt_ns);
  if (!cJSON_AddItemToObject(o, "rtt_us", rtt)) {
    cJSON_Delete(rtt);
    cJSON_Delete(o);
    return NULL;
  }
  cJSON *hist = np_bench_record_histogram(m->rtt_ns, "rtt_us");
  if (!cJSON_AddItemToObject(o, "rtt_histogram", hist)) {
    cJSON_Delete(hist);
    cJSON_Delete(o);
    return NULL;
  }
  NUM(o, "cpu_percent", pct);
  NUM(o, "machine_cpu_percent", cores > 0 ? pct / (double)cores : 0.0);
  NUM(o, "cpu_user_seconds", m->cpu.user_seconds);
  NUM(o, "cpu_sys_seconds", m->cpu.sys_seconds);
  NUM(o, "rss_max_bytes", m->rss_max_bytes);
  if (!cJSON_GetObjectItemCaseSensitive(o, "rss_max_bytes")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *np_bench_record_socket(const struct np_bench_socket *s) {
  cJSON *e = cJSON_CreateObject();
  if (e == NULL)
    return NULL;
  cJSON_AddStringToObject(e, "role", s->role);
  NUM(e, "index", s->index);
  NUM(e, "thread", s->thread);
  NUM(e, "rcvbuf_requested", s->rcvbuf_requested);
  NUM(e, "rcvbuf_effective", s->rcvbuf_effective);
  NUM(e, "sndbuf_requested", s->sndbuf_requested);
  NUM(e, "sndbuf_effective", s->sndbuf_effective);
  NUM(e, "drops", s->drops);
  if (s->rxq_ovfl_last >= 0)
    NUM(e, "rxq_ovfl_last", s->rxq_ovfl_last);
  else
    cJSON_AddNullToObject(e, "rxq_ovfl_last");
  if (!cJSON_GetObjectItemCaseSensitive(e, "rxq_ovfl_last")) {
    cJSON_Delete(e);
    return NULL;
  }
  return e;
}
