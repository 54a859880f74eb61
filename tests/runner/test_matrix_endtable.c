/*
 * test_matrix_endtable.c - the table `netproof-bench matrix` ends with
 * (runner/np_matrix_progress.c, issue 28): one row per configuration
 * of summary.json with its runs passed, status, median headline (round
 * trips/s, or an exec suite's first metric) and median p99; a configuration
 * that is not ranked shows "excluded", never its medians, and is never
 * "unstable"; plurals follow the counts; the report command to run next
 * names the results folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_matrix_int.h"
#include "np_test.h"

static const char summary_text[] =
    "{\"totals\": {\"configurations\": 4, \"passed\": 3, \"failed\": 0,"
    " \"confirmed\": 1},"
    " \"configurations\": ["
    "  {\"id\": \"udp-a\", \"status\": \"passed\", \"unstable\": true,"
    "   \"repetitions_done\": 3, \"repetitions_passed\": 3,"
    "   \"stats\": {\"roundtrips_per_sec\": {\"median\": 139328.4},"
    "              \"rtt_p99_us\": {\"median\": 205.061}}},"
    "  {\"id\": \"udp-probe\", \"status\": \"confirmed\", \"unstable\": true,"
    "   \"repetitions_done\": 3, \"repetitions_passed\": 0,"
    "   \"stats\": {\"roundtrips_per_sec\": {\"median\": 65923},"
    "              \"rtt_p99_us\": {\"median\": 16769.02}}},"
    "  {\"id\": \"exec-b\", \"status\": \"passed\","
    "   \"repetitions_done\": 1, \"repetitions_passed\": 1,"
    "   \"stats\": {\"roundtrips_per_sec\": {\"median\": null},"
    "              \"rtt_p99_us\": {\"median\": null},"
    "              \"exec.loss\": {\"median\": 0.13111}}},"
    "  {\"id\": \"udp-c\", \"status\": \"failed\","
    "   \"repetitions_done\": 1, \"repetitions_passed\": 0,"
    "   \"stats\": {\"roundtrips_per_sec\": {\"median\": 5}}}"
    " ], \"rankings\": []}";

/* The line of out that starts with prefix (after two spaces), or NULL. */
static const char *row(const char *out, const char *prefix) {
  char want[64];
  snprintf(want, sizeof want, "\n  %s ", prefix);
  const char *p = strstr(out, want);
  return p ? p + 1 : NULL;
}

static int row_has(const char *out, const char *prefix, const char *text) {
  const char *r = row(out, prefix);
  if (r == NULL)
    return 0;
  const char *end = strchr(r, '\n');
  const char *hit = strstr(r, text);
  return hit != NULL && (end == NULL || hit < end);
}

int main(void) {
  cJSON *summary = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_json_parse(summary_text, strlen(summary_text), NULL, &summary,
                          &eb));
  char *out = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&out, &len);
  ASSERT_NOT_NULL(fp);
  struct np_matrix_progress pg = {.fp = fp};
  struct np_matrix_result res = {.reps_run = 1, .reps_passed = 1,
                                 .wall = 2.0};
  np_matrix__progress_summary(&pg, "s", "complete", summary, &res, "out/s/");
  fclose(fp);
  printf("%s", out);

  ASSERT_NOT_NULL(strstr(out, ": 1 repetition run (1 passed)"));
  ASSERT_NOT_NULL(strstr(out, "\n  configuration "));
  ASSERT_TRUE(row_has(out, "udp-a", "3/3"));
  ASSERT_TRUE(row_has(out, "udp-a", "passed, unstable"));
  ASSERT_TRUE(row_has(out, "udp-a", "139,328 rt/s"));
  ASSERT_TRUE(row_has(out, "udp-a", "205.06"));
  /* the expected-to-fail probe: excluded, no medians, not "unstable" */
  ASSERT_TRUE(row_has(out, "udp-probe", "0/3"));
  ASSERT_TRUE(row_has(out, "udp-probe", "failed as expected"));
  ASSERT_TRUE(row_has(out, "udp-probe", "excluded"));
  ASSERT_TRUE(!row_has(out, "udp-probe", "unstable"));
  ASSERT_TRUE(!row_has(out, "udp-probe", "65,923"));
  ASSERT_TRUE(!row_has(out, "udp-probe", "16769"));
  /* exec: the first metric's median */
  ASSERT_TRUE(row_has(out, "exec-b", "0.131 loss"));
  ASSERT_TRUE(row_has(out, "udp-c", "excluded"));
  ASSERT_NOT_NULL(strstr(out, "  next:    netproof-report --results out/s "
                              "--output out/s-report\n"));
  free(out);

  /* more repetitions: the plural */
  out = NULL;
  fp = open_memstream(&out, &len);
  ASSERT_NOT_NULL(fp);
  pg.fp = fp;
  res.reps_run = 2;
  np_matrix__progress_summary(&pg, "s", "complete", summary, &res, "o");
  fclose(fp);
  ASSERT_NOT_NULL(strstr(out, ": 2 repetitions run"));
  free(out);
  cJSON_Delete(summary);
  puts("test_matrix_endtable: ok");
  return 0;
}
