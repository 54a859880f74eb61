/*
 * test_report_pages.c - the performance pages of the committed fixtures
 * (quick, buffer isolation, size limits) are byte for byte the committed
 * tests/report/golden-pages/ tree, building twice gives the same bytes,
 * and the hand-written golden-pages/udp.reading.md is embedded verbatim.
 * Regenerate on purpose with tests/report/regen-goldens.sh.
 *
 * usage: test_report_pages GOLDEN_PAGES_DIR FIXTURE_DIR...
 */
#include <stdio.h>
#include <string.h>

#include "np_ftree.h"
#include "np_report.h"
#include "np_report_pages.h"
#include "np_schema.h"
#include "np_test.h"

static const char *label_of(const char *dir) {
  const char *p = strrchr(dir, '/');
  return p ? p + 1 : dir;
}

static struct np_ftree *build(int n, char **dirs, const struct np_ftree *rd) {
  struct np_results_set *sets[8] = {0};
  struct np_errbuf eb = {{0}};
  ASSERT_LE(n, 8);
  for (int i = 0; i < n; i++) {
    struct np_ftree *in = NULL;
    ASSERT_OK(np_ftree_load_dir(dirs[i], 0, &in, &eb));
    ASSERT_OK(np_results_load(in, label_of(dirs[i]), &sets[i], &eb));
    np_ftree_free(in);
  }
  struct np_ftree *out = NULL;
  struct np_report_pages_opts o = {.results_rel = NULL, .readings = rd};
  int rc = np_report_pages_build(sets, (size_t)n, &o, &out, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  for (int i = 0; i < n; i++)
    np_results_free(sets[i]);
  return out;
}

/* Every file of a is in b with the same bytes. */
static void contained(const struct np_ftree *a, const struct np_ftree *b,
                      const char *what) {
  for (size_t i = 0; i < np_ftree_count(a); i++) {
    const char *p = np_ftree_path_at(a, i);
    size_t la, lb;
    const char *da = np_ftree_get(a, p, &la), *db = np_ftree_get(b, p, &lb);
    if (db == NULL)
      NP_TEST_FAIL_("%s: %s is missing", what, p);
    if (la != lb || memcmp(da, db, la) != 0)
      NP_TEST_FAIL_("%s: %s differs (%zu vs %zu bytes); regenerate with "
                    "tests/report/regen-goldens.sh only if intended",
                    what, p, la, lb);
  }
}

int main(int argc, char **argv) {
  ASSERT_GE(argc, 3);
  struct np_ftree *gold = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(argv[1], 0, &gold, &eb));
  struct np_ftree *one = build(argc - 2, argv + 2, gold),
                  *two = build(argc - 2, argv + 2, gold);
  contained(one, two, "two builds");
  contained(two, one, "two builds");
  contained(one, gold, "golden");
  /* Golden holds the generated files plus the hand-written reading. */
  ASSERT_EQ(np_ftree_count(gold), np_ftree_count(one) + 1);
  size_t rl, pl;
  const char *reading = np_ftree_get(gold, "udp.reading.md", &rl);
  const char *page = np_ftree_get(one, "udp.md", &pl);
  ASSERT_NOT_NULL(reading);
  ASSERT_NOT_NULL(page);
  ASSERT_NOT_NULL(memmem(page, pl, reading, rl));
  const char *lim = np_ftree_get(one, "udp-limits.md", NULL);
  ASSERT_NOT_NULL(lim);
  /* the kernel-drop column's source is what the records say they read
   * (SO_MEMINFO), not SO_RXQ_OVFL (issue 14, defect 10) */
  ASSERT_NOT_NULL(strstr(lim, "Kernel socket drops: the sockets' own drop "
                              "counter (`SO_MEMINFO SK_MEMINFO_DROPS"));
  ASSERT_TRUE(strstr(lim, "socket drop counter (SO_RXQ_OVFL)") == NULL);
  /* loss in the tables is a count and a percentage of sent (issue 28) */
  ASSERT_NOT_NULL(strstr(lim, "| Lost echoes per run (count; % of sent) |"));
  ASSERT_NOT_NULL(strstr(lim, "130; 3.17 % (3.00-3.34 %) of sent"));
  /* every page's values validate against schema/report.schema.json */
  struct np_schema *sc = NULL;
  ASSERT_OK(np_schema_builtin("report", &sc, &eb));
  for (size_t i = 0; i < np_ftree_count(one); i++) {
    const char *p = np_ftree_path_at(one, i);
    if (strstr(p, "-report.json") == NULL)
      continue;
    size_t len;
    const char *d = np_ftree_get(one, p, &len);
    cJSON *doc = cJSON_ParseWithLength(d, len);
    ASSERT_NOT_NULL(doc);
    if (np_schema_validate(sc, doc, NULL, NULL) != 0)
      NP_TEST_FAIL_("%s does not validate against report.schema.json", p);
    cJSON_Delete(doc);
  }
  np_schema_free(sc);
  np_ftree_free(one);
  np_ftree_free(two);
  np_ftree_free(gold);
  puts("test_report_pages: ok");
  return 0;
}
