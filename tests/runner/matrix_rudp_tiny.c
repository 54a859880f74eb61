/*
 * matrix_rudp_tiny.c - a real reliable-UDP matrix: two configurations
 * (ARQ only and adaptive FEC, random profile, 0.2 s warm-up + 0.3 s, one
 * round) run by `netproof-bench matrix` spawning `netproof-bench rudp`.
 * Records, suite.json and summary.json validate; the summary carries the
 * rudp statistics on the "rounds" basis, each repetition's rounds, and
 * one ranking group holding both strategies.
 * argv[1]: netproof-bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_schema.h"
#include "np_test.h"

static const char plan_text[] =
    "{\"schema\": \"netproof/plan/1\", \"suite\": \"rudp-tiny\",\n"
    " \"protocol\": \"rudp\", \"repetitions\": 1, \"timeout_seconds\": 20,\n"
    " \"base\": {\"payload\": 1024, \"clients\": 4, \"window\": 16,\n"
    "          \"profile\": \"random\", \"warmup\": 0.2, \"seconds\": 0.3,\n"
    "          \"rounds\": 1},\n"
    " \"dimensions\": {\"fec\": [\"none\", \"adaptive\"]}}\n";

static const char *const ids[] = {
    "rudp-p1024-c4-w16-single-fecnone-bbr-random",
    "rudp-p1024-c4-w16-single-fecadaptive-bbr-random"};

static cJSON *load_valid(const char *path) {
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_json_load_file(path, NULL, &doc, &eb));
  int rc = np_schema_validate_tagged(doc, &eb);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", path, eb.msg);
  ASSERT_OK(rc);
  return doc;
}

static double stat_of(const cJSON *c, const char *metric, const char *what) {
  const cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "stats"), metric);
  ASSERT_NOT_NULL(s);
  return np_json_get_number(s, what, -1);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], plan[512], out[512], err[512], p[1024];
  mx_tmpdir(tmp, sizeof tmp);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  snprintf(out, sizeof out, "%s/out", tmp);
  snprintf(err, sizeof err, "%s/stderr.txt", tmp);
  mx_write(plan, plan_text);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (freopen(err, "w", stderr) == NULL)
      _exit(99);
    execl(argv[1], argv[1], "matrix", plan, "--output", out, (char *)NULL);
    _exit(98);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  char *text = mx_read(err);
  fprintf(stderr, "%s", text);
  free(text);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 0);
  for (size_t i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s/runs/%s/rep-1.json", out, ids[i]);
    cJSON *rec = load_valid(p);
    ASSERT_STR_EQ(np_json_get_string(rec, "status", ""), "passed");
    ASSERT_NOT_NULL(cJSON_GetObjectItem(rec, "rudp"));
    cJSON_Delete(rec);
    char stem[700];
    snprintf(stem, sizeof stem, "%s/runs/%s/rep-1", out, ids[i]);
    ASSERT_TRUE(mx_snapshot(out, stem, 1, p, sizeof p));
  }
  ASSERT_EQ(mx_count(out, ".tmp"), 0);
  snprintf(p, sizeof p, "%s/suite.json", out);
  cJSON_Delete(load_valid(p));
  snprintf(p, sizeof p, "%s/summary.json", out);
  cJSON *sum = load_valid(p);
  ASSERT_EQ(np_json_get_number(cJSON_GetObjectItem(sum, "totals"), "passed",
                               -1), 2);
  const cJSON *c;
  size_t k = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(sum, "configurations")) {
    ASSERT_STR_EQ(np_json_get_string(c, "id", ""), ids[k++]);
    ASSERT_STR_EQ(np_json_get_string(c, "stats_basis", ""), "rounds");
    static const char *const m[] = {
        "roundtrips_per_sec", "rtt_p99_us", "cpu_percent",
        "network_overhead_percent", "retransmits_per_1000_roundtrips",
        "recoveries_per_1000_roundtrips", "fec_retained_peak_bytes",
        "relay_route_peak_bytes_sum", "rss_max_bytes"};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
      ASSERT_EQ(stat_of(c, m[i], "n"), 1);
      ASSERT_GE(stat_of(c, m[i], "median"), 0);
    }
    ASSERT_GT(stat_of(c, "roundtrips_per_sec", "median"), 0);
    ASSERT_GT(stat_of(c, "network_overhead_percent", "median"), 0);
    /* one round: median = min = max = the round's own value */
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "repetitions"),
                                          0);
    const cJSON *r0 = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "rudp"), "rounds"), 0);
    ASSERT_NOT_NULL(r0);
    ASSERT_DBL_NEAR(np_json_get_number(r0, "roundtrips_per_sec", -1),
                    stat_of(c, "roundtrips_per_sec", "max"), 1e-9);
    int fec = strstr(ids[k - 1], "fecadaptive") != NULL;
    printf("%s: %.0f round trips/s, overhead %.1f %%, recoveries %.1f/1000, "
           "retained peak %.0f B\n", ids[k - 1],
           stat_of(c, "roundtrips_per_sec", "median"),
           stat_of(c, "network_overhead_percent", "median"),
           stat_of(c, "recoveries_per_1000_roundtrips", "median"),
           stat_of(c, "fec_retained_peak_bytes", "median"));
    if (!fec)
      ASSERT_EQ(stat_of(c, "fec_retained_peak_bytes", "median"), 0);
  }
  ASSERT_EQ(k, 2);
  /* one comparable group (only fec differs), both strategies ranked */
  const cJSON *rk = cJSON_GetObjectItem(sum, "rankings");
  ASSERT_EQ(cJSON_GetArraySize(rk), 1);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(rk, 0),
                                                   "ranked")), 2);
  cJSON_Delete(sum);
  mx_rm_rf(tmp);
  return 0;
}
