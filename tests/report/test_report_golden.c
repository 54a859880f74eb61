/*
 * test_report_golden.c - the report of the committed fixture is byte for
 * byte the committed golden tree (index.md, report.json, assets/ charts),
 * and building it twice gives the same bytes.  Regenerate the goldens only
 * on purpose with tests/report/regen-goldens.sh.
 *
 * usage: test_report_golden FIXTURE_DIR GOLDEN_DIR
 */
#include <stdio.h>
#include <string.h>

#include "np_ftree.h"
#include "np_report.h"
#include "np_test.h"

static struct np_ftree *build(const char *fixture) {
  struct np_ftree *in = NULL, *out = NULL;
  struct np_results_set *s = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(fixture, 0, &in, &eb));
  ASSERT_OK(np_results_load(in, "fixture", &s, &eb));
  struct np_report_opts o = {.title = NULL, .lang = "en"};
  struct np_results_set *sets[1] = {s};
  int rc = np_report_build(sets, 1, &o, &out, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  np_results_free(s);
  np_ftree_free(in);
  return out;
}

static void same_trees(const struct np_ftree *a, const struct np_ftree *b,
                       const char *what) {
  size_t n = np_ftree_count(a) > np_ftree_count(b) ? np_ftree_count(a)
                                                    : np_ftree_count(b);
  for (size_t i = 0; i < n; i++) {
    const char *pa = np_ftree_path_at(a, i), *pb = np_ftree_path_at(b, i);
    if (pa == NULL || pb == NULL || strcmp(pa, pb) != 0)
      NP_TEST_FAIL_("%s: file lists differ at %zu: %s vs %s", what, i,
                    pa ? pa : "(none)", pb ? pb : "(none)");
    size_t la, lb;
    const char *da = np_ftree_get(a, pa, &la), *db = np_ftree_get(b, pb, &lb);
    if (la != lb || memcmp(da, db, la) != 0)
      NP_TEST_FAIL_("%s: %s differs (%zu vs %zu bytes); regenerate with "
                    "tests/report/regen-goldens.sh only if intended",
                    what, pa, la, lb);
  }
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 3);
  struct np_ftree *one = build(argv[1]), *two = build(argv[1]), *gold = NULL;
  struct np_errbuf eb = {{0}};
  same_trees(one, two, "two builds");
  ASSERT_OK(np_ftree_load_dir(argv[2], 0, &gold, &eb));
  same_trees(one, gold, "golden");
  ASSERT_GT(np_ftree_count(one), 3);
  np_ftree_free(one);
  np_ftree_free(two);
  np_ftree_free(gold);
  puts("test_report_golden: ok");
  return 0;
}
