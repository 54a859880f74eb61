/*
 * test_report_latency_caps.c - the latency views keep everything a set
 * holds (issue 19 review): a set of 72 open-loop configurations gets 72
 * points on the latency-under-load chart (it kept 64 and dropped the
 * rest), the median of a configuration of 100 runs is over all 100 (it
 * stopped at 64), and a passed run whose histogram does not decode or has
 * another layout is counted as left out in the distribution's caption and
 * subtitle instead of vanishing from a line said to merge "every passed
 * run".  The set is made here in memory and np_report_latency is called
 * on a report context of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "np_ftree.h"
#include "np_hist.h"
#include "np_hist_codec.h"
#include "np_json.h"
#include "np_report_int.h"
#include "np_report_latency.h"
#include "np_test.h"
#include "svg_text.h"

#define NOPEN 70 /* ol-000 .. ol-069, plus hh and zz-med: 72 open loop */

/* One run record: rate < 0 = closed loop; hist NULL = none. */
static void add_run(struct np_ftree *t, const char *cid, int rep, double rate,
                    double p50, cJSON *hist) {
  cJSON *d = cJSON_CreateObject(), *cfg = cJSON_AddObjectToObject(d, "config"),
        *m = cJSON_AddObjectToObject(d, "measurement");
  cJSON_AddStringToObject(d, "status", "passed");
  cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "machine"), "hostname",
                          "caps");
  cJSON_AddStringToObject(cfg, "protocol", "udp");
  if (rate >= 0)
    cJSON_AddNumberToObject(cfg, "rate", rate);
  cJSON_AddNumberToObject(m, "roundtrips_per_sec", 5000);
  cJSON *r = cJSON_AddObjectToObject(m, "rtt_us");
  cJSON_AddNumberToObject(r, "p50", p50);
  cJSON_AddNumberToObject(r, "p99", 2 * p50);
  cJSON_AddNumberToObject(r, "p999", 3 * p50);
  if (hist)
    cJSON_AddItemToObject(m, "rtt_histogram", hist);
  char path[128], *text = cJSON_PrintUnformatted(d);
  ASSERT_NOT_NULL(text);
  snprintf(path, sizeof path, "runs/%s/rep-%d.json", cid, rep);
  ASSERT_OK(np_ftree_add(t, path, text, strlen(text)));
  free(text);
  cJSON_Delete(d);
}

static cJSON *hist_json(int sigfigs, int corrupt) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, 60000000000LL, sigfigs, &h));
  for (int64_t v = 1000; v < 2000; v++)
    ASSERT_OK(np_hist_record(h, v));
  cJSON *o = np_hist_to_json(h, "ns");
  ASSERT_NOT_NULL(o);
  if (corrupt)
    cJSON_ReplaceItemInObjectCaseSensitive(o, "data",
                                           cJSON_CreateString("HISTFAAAbad"));
  np_hist_free(h);
  return o;
}

static struct np_results_set *make_set(struct np_ftree **tree) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  const char *suite = "{\"suite\":\"caps\",\"repetitions\":1}";
  ASSERT_OK(np_ftree_add(t, "suite.json", suite, strlen(suite)));
  add_run(t, "closed", 1, -1, 10, NULL);
  for (int i = 0; i < NOPEN; i++) {
    char cid[32];
    snprintf(cid, sizeof cid, "ol-%03d", i);
    add_run(t, cid, 1, 100.0 * (i + 1), i + 1, NULL);
  }
  /* zz-med: 100 runs, 40 at p50 1 and 60 at 1000: the median is 1000,
   * while the first 64 runs alone give 1 */
  for (int r = 1; r <= 100; r++)
    add_run(t, "zz-med", r, 1e6, r <= 40 ? 1 : 1000, NULL);
  /* hh: one good histogram, one of another layout, one that does not
   * decode: two passed runs left out */
  add_run(t, "hh", 1, 50, 5, hist_json(3, 0));
  add_run(t, "hh", 2, 50, 5, hist_json(2, 0));
  add_run(t, "hh", 3, 50, 5, hist_json(3, 1));
  struct np_results_set *s = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_results_load(t, "caps", &s, &eb));
  *tree = t;
  return s;
}

static const cJSON *chart(const cJSON *charts, const char *suffix) {
  const cJSON *c;
  cJSON_ArrayForEach(c, charts) {
    const char *f = np_json_get_string(c, "file", "");
    size_t n = strlen(f), k = strlen(suffix);
    if (n >= k && strcmp(f + n - k, suffix) == 0)
      return c;
  }
  NP_TEST_FAIL_("no chart *%s", suffix);
  return NULL;
}

int main(void) {
  struct np_ftree *in = NULL;
  struct np_results_set *s = make_set(&in);
  ASSERT_EQ(s->nconfigs, NOPEN + 3);
  struct np_errbuf eb = {{0}};
  struct np_results_set *sets[1] = {s};
  struct np_report_opts o = {.lang = "en"};
  char *md = NULL;
  size_t mdlen = 0;
  struct np_report_ctx ctx = {.sets = sets, .nsets = 1, .opts = &o,
                              .eb = &eb, .asset_prefix = ""};
  ASSERT_OK(np_ftree_new(&ctx.out));
  ASSERT_OK(np_report__info_init(&ctx, NULL, NULL));
  ctx.json = cJSON_CreateObject();
  ctx.jcharts = cJSON_AddArrayToObject(ctx.json, "charts");
  ctx.jtables = cJSON_AddArrayToObject(ctx.json, "tables");
  ctx.md = open_memstream(&md, &mdlen);
  ASSERT_NOT_NULL(ctx.md);
  int rc = np_report_latency(&ctx, s);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  ASSERT_EQ(fclose(ctx.md), 0);

  /* every open-loop configuration is a point: 72 x (p50, p99, p99.9) */
  const cJSON *load = chart(ctx.jcharts, "latency-load.svg"), *p;
  const cJSON *pts = cJSON_GetObjectItemCaseSensitive(load, "series");
  ASSERT_EQ(cJSON_GetArraySize(pts), 3 * (NOPEN + 2));
  int seen_med = 0;
  cJSON_ArrayForEach(p, pts) {
    if (strcmp(np_json_get_string(p, "config", ""), "zz-med") == 0 &&
        strcmp(np_json_get_string(p, "series", ""), "p50") == 0) {
      ASSERT_DBL_NEAR(np_json_get_number(p, "median", NAN), 1000, 1e-9);
      seen_med = 1;
    }
  }
  ASSERT_TRUE(seen_med);
  /* one table row per open-loop configuration */
  size_t rows = 0;
  for (const char *q = md; (q = strstr(q, " runs |\n")) != NULL; q++)
    rows++;
  ASSERT_EQ(rows, NOPEN + 2);

  /* the distribution: hh's line, two passed runs counted as left out */
  const cJSON *dist = chart(ctx.jcharts, "latency-distribution.svg");
  ASSERT_TRUE(strstr(np_json_get_string(dist, "subtitle", ""),
                     "some left out") != NULL);
  size_t len = 0;
  const char *svg = np_ftree_get(ctx.out, "assets/latency-distribution.svg",
                                 &len);
  ASSERT_NOT_NULL(svg);
  char *text = svg_all_text(svg);
  ASSERT_NOT_NULL(text);
  if (strstr(text, "2 passed runs left out") == NULL)
    NP_TEST_FAIL_("caption does not count the runs left out:\n%s", text);
  free(text);

  free(md);
  free(ctx.info);
  cJSON_Delete(ctx.json);
  np_ftree_free(ctx.out);
  np_results_free(s);
  np_ftree_free(in);
  puts("test_report_latency_caps: ok");
  return 0;
}
