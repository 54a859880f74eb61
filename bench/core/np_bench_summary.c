/*
 * np_bench_summary.c - the one-object summary of a run record (see
 * np_bench_summary.h): one table of (key, record pointer), read from the
 * record the benchmark has just built and validated, so the summary can
 * never say something the record does not.
 */
#include "np_bench_summary.h"

#include <stddef.h>

#include "np_json.h"

const char *const np_bench_summary_choices[] = {"text", "json", NULL};

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
    {"source_sha256", "/tool/source_sha256"},
};

cJSON *np_bench_summary_of(const cJSON *record) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "schema", "netproof/run-summary/1");
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    const cJSON *v = np_json_pointer(record, fields[i].pointer);
    if (v != NULL && !cJSON_IsObject(v) && !cJSON_IsArray(v))
      cJSON_AddItemToObject(o, fields[i].key, cJSON_Duplicate(v, 0));
  }
  cJSON *failed = cJSON_AddArrayToObject(o, "failed_checks");
  const cJSON *ch;
  cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(record, "checks")) {
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "passed")))
      cJSON_AddItemToArray(
          failed, cJSON_CreateString(np_json_get_string(ch, "name", "?")));
  }
  return failed ? o : (cJSON_Delete(o), NULL);
}
