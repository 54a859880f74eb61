/*
 * np_bench_summary.c - the one-object summary of a run record (see
 * np_bench_summary.h): one table of (key, record pointer), read from the
 * record the benchmark has just built and validated, so the summary can
 * never say something the record does not; two derived figures (a loss
 * as a percentage, exec's metrics by name) are computed from it.  The
 * summary's schema is schema/run-summary.schema.json.
 */
#include "np_bench_summary.h"

#include <stddef.h>
#include <stdio.h>

#include "np_json.h"

/* The summary's fields, in order, and where the record keeps each. */
static const struct {
  const char *key;
  const char *pointer;
} fields[] = {
    {"status", "/status"},
    {"protocol", "/config/protocol"},
    {"payload", "/config/payload"},
    {"clients", "/config/clients"},
    {"window", "/config/window"},
    {"io_model", "/config/io_model"},
    {"io_threads", "/config/io_threads"},
    {"backend", "/config/backend"},
    {"fec", "/config/fec"},
    {"cc", "/config/cc"},
    {"profile", "/config/relay/profile"},
    {"address", "/config/address"},
    {"warmup_seconds", "/config/warmup_seconds"},
    {"seconds", "/config/seconds"},
    {"rounds", "/config/rounds"},
    {"started_at", "/started_at"},
    {"ended_at", "/ended_at"},
    {"roundtrips", "/measurement/roundtrips"},
    {"roundtrips_per_sec", "/measurement/roundtrips_per_sec"},
    {"rtt_p50_us", "/measurement/rtt_us/p50"},
    {"rtt_p99_us", "/measurement/rtt_us/p99"},
    {"rtt_max_us", "/measurement/rtt_us/max"},
    {"cpu_percent", "/measurement/cpu_percent"},
    {"machine_cpu_percent", "/measurement/machine_cpu_percent"},
    {"rss_max_bytes", "/measurement/rss_max_bytes"},
    {"sent", "/counters/sent"},
    {"received", "/counters/received"},
    {"lost", "/counters/lost"},
    {"content_errors", "/counters/content_errors"},
    {"sequence_errors", "/counters/sequence_errors"},
    {"kernel_drops", "/sockets/kernel_drops"},
    {"rate", "/config/rate"},
    {"offered_per_sec", "/open_loop/offered_per_sec"},
    {"service_p99_us", "/open_loop/service_us/p99"},
    {"dropped_by_client", "/open_loop/dropped_by_client"},
    {"sender_behind", "/open_loop/sender_behind"},
    {"bitrate_bps", "/stream/bitrate_bps"},
    {"datagrams_per_sec", "/stream/datagrams_per_sec"},
    {"stream_lost", "/stream/counters/lost"},
    {"loss_percent", "/stream/loss_percent"},
    {"jitter_us", "/stream/jitter_us"},
    {"one_way_p50_us", "/stream/one_way_delay_us/p50"},
    {"median_round", "/rudp/median_round"},
    {"retransmits_per_1000_roundtrips",
     "/rudp/summary/retransmits_per_1000_roundtrips/median"},
    {"recoveries_per_1000_roundtrips",
     "/rudp/summary/recoveries_per_1000_roundtrips/median"},
    {"network_overhead_percent",
     "/rudp/summary/network_overhead_percent/median"},
    /* relay: its routes, both directions' counts, TCP */
    {"listen", "/config/listen_bound"},
    {"forward", "/config/forward"},
    {"uptime_seconds", "/relay/uptime_seconds"},
    {"routes", "/relay/routes_count"},
    {"c2s_received", "/relay/totals/c2s/received"},
    {"c2s_forwarded", "/relay/totals/c2s/forwarded"},
    {"s2c_received", "/relay/totals/s2c/received"},
    {"s2c_forwarded", "/relay/totals/s2c/forwarded"},
    {"relay_overflow", "/relay/totals/overflow"},
    {"relay_errors", "/relay/totals/relay_errors"},
    {"tcp_connections", "/relay/tcp/accepted"},
    {"tcp_bytes_c2s", "/relay/tcp/bytes_c2s"},
    {"tcp_bytes_s2c", "/relay/tcp/bytes_s2c"},
    /* serve: what it received and echoed */
    {"listening", "/serve/listening"},
    {"served_seconds", "/serve/seconds"},
    {"received", "/serve/counters/received"},
    {"echoed", "/serve/counters/echoed"},
    {"send_errors", "/serve/counters/send_errors"},
    {"truncated", "/serve/counters/truncated"},
    {"cpu_percent", "/serve/cpu_percent"},
    {"rss_max_bytes", "/serve/rss_max_bytes"},
    /* exec: how the program ended and what it cost (metrics: below) */
    {"program", "/exec/program/given"},
    {"outcome", "/exec/outcome/kind"},
    {"exit_code", "/exec/outcome/exit_code"},
    {"wall_seconds", "/exec/wall_seconds"},
    {"user_seconds", "/exec/rusage/user_seconds"},
    {"sys_seconds", "/exec/rusage/sys_seconds"},
    {"rss_max_bytes", "/exec/rusage/max_rss_bytes"},
    {"source_sha256", "/tool/source_sha256"},
};

static double num_at(const cJSON *record, const char *pointer) {
  return cJSON_GetNumberValue(np_json_pointer(record, pointer));
}

/* A count and its percentage, everywhere a run loses something: the echo
 * client's lost of sent, the relay's emulated loss per direction. */
static void add_losses(cJSON *o, const cJSON *record) {
  const cJSON *lost = cJSON_GetObjectItemCaseSensitive(o, "lost");
  const cJSON *sent = cJSON_GetObjectItemCaseSensitive(o, "sent");
  if (cJSON_IsNumber(lost) && cJSON_IsNumber(sent))
    cJSON_AddNumberToObject(o, "lost_percent",
                            sent->valuedouble > 0
                                ? 100.0 * lost->valuedouble / sent->valuedouble
                                : 0);
  static const char *const dirs[] = {"c2s", "s2c"};
  for (size_t d = 0; d < 2; d++) {
    char p[96], key[32];
    snprintf(p, sizeof p, "/relay/totals/%s/observed/total_loss_rate",
             dirs[d]);
    if (!cJSON_IsNumber(np_json_pointer(record, p)))
      continue;
    double n = 0;
    static const char *const kinds[] = {"lost_burst", "lost_ge",
                                        "lost_random"};
    for (size_t k = 0; k < 3; k++) {
      char q[96];
      snprintf(q, sizeof q, "/relay/totals/%s/%s", dirs[d], kinds[k]);
      n += num_at(record, q);
    }
    snprintf(key, sizeof key, "%s_lost", dirs[d]);
    cJSON_AddNumberToObject(o, key, n);
    snprintf(key, sizeof key, "%s_lost_percent", dirs[d]);
    cJSON_AddNumberToObject(o, key, 100.0 * num_at(record, p));
  }
}

/* exec: "metrics": {NAME: value, or null when the metric failed}. */
static void add_metrics(cJSON *o, const cJSON *record) {
  const cJSON *ms = np_json_pointer(record, "/exec/metrics"), *m;
  if (!cJSON_IsArray(ms))
    return;
  cJSON *out = cJSON_AddObjectToObject(o, "metrics");
  cJSON_ArrayForEach(m, ms) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
    const char *name = np_json_get_string(m, "name", NULL);
    if (out != NULL && name != NULL)
      cJSON_AddItemToObject(out, name, cJSON_IsNumber(v)
                                           ? cJSON_CreateNumber(v->valuedouble)
                                           : cJSON_CreateNull());
  }
}

cJSON *np_bench_summary_of(const cJSON *record) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "schema", "netproof/run-summary/1");
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    const cJSON *v = np_json_pointer(record, fields[i].pointer);
    if (v != NULL && !cJSON_IsObject(v) && !cJSON_IsArray(v) &&
        !cJSON_HasObjectItem(o, fields[i].key)) /* one kind's key each */
      cJSON_AddItemToObject(o, fields[i].key, cJSON_Duplicate(v, 0));
  }
  add_losses(o, record);
  add_metrics(o, record);
  cJSON *failed = cJSON_AddArrayToObject(o, "failed_checks");
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(record, "checks")) {
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "passed")))
      cJSON_AddItemToArray(
          failed, cJSON_CreateString(np_json_get_string(ch, "name", "?")));
  }
  return failed ? o : (cJSON_Delete(o), NULL);
}
