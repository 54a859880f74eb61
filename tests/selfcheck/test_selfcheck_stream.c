/*
 * test_selfcheck_stream.c - the streaming engine's contract: a folder
 * (np_results_check_dir) and the same files as an np_ftree
 * (np_results_check_tree) give the same lines and outcome; the outcome
 * counts planned and finished repetitions; files fed out of sorted order
 * are reported; nothing is accepted after finish; an unreadable folder is
 * an error with "dir: reason", not a problem line.
 *
 * usage: test_selfcheck_stream DIR (holding the fixture-* sets)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ftree.h"
#include "np_results_selfcheck.h"
#include "np_test.h"

struct lines {
  char v[64][1024];
  size_t n;
};

static void collect(void *ctx, const char *file, const char *ptr,
                    const char *reason) {
  struct lines *l = ctx;
  if (l->n < 64)
    snprintf(l->v[l->n], sizeof l->v[0], "%s: %s: %s", file, ptr, reason);
  l->n++;
}

static void same_both_ways(const char *dir, const char *set, int want_rc,
                           size_t planned, size_t done) {
  char p[2048];
  snprintf(p, sizeof p, "%s/fixture-%s", dir, set);
  struct lines a = {.n = 0}, b = {.n = 0};
  struct np_results_outcome oa, ob;
  struct np_errbuf eb = {{0}};
  int ra = np_results_check_dir(p, "x", collect, &a, &oa, &eb);
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_load_dir(p, 0, &t, &eb));
  int rb = np_results_check_tree(t, "x", collect, &b, &ob);
  np_ftree_free(t);
  ASSERT_EQ(ra, want_rc);
  ASSERT_EQ(rb, want_rc);
  ASSERT_EQ(a.n, b.n);
  for (size_t i = 0; i < a.n && i < 64; i++)
    ASSERT_STR_EQ(a.v[i], b.v[i]);
  ASSERT_UINT_EQ(oa.reps_planned, planned);
  ASSERT_UINT_EQ(oa.reps_done, done);
  ASSERT_UINT_EQ(ob.reps_done, done);
  ASSERT_EQ(oa.incomplete, done < planned);
  ASSERT_EQ(oa.problems, 0);
  printf("%s: rc %d, %zu of %zu repetitions, note \"%s\"\n", set, ra, done,
         planned, oa.note);
}

static void order_and_finish(const char *dir) {
  char p[2048];
  snprintf(p, sizeof p, "%s/fixture-udp", dir);
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(p, 0, &t, &eb));
  struct np_results_check *c = NULL;
  struct lines l = {.n = 0};
  ASSERT_OK(np_results_check_new("", collect, &l, &c));
  /* suite.json first, then everything: out of sorted order */
  size_t len;
  const char *d = np_ftree_get(t, "suite.json", &len);
  ASSERT_OK(np_results_check_file(c, "suite.json", d, len));
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *path = np_ftree_path_at(t, i);
    if (strcmp(path, "suite.json") == 0)
      continue;
    d = np_ftree_get(t, path, &len);
    ASSERT_OK(np_results_check_file(c, path, d, len));
  }
  struct np_results_outcome o;
  ASSERT_EQ(np_results_check_finish(c, &o), NP_ECHECK);
  int found = 0;
  for (size_t i = 0; i < l.n && i < 64; i++)
    found |= strstr(l.v[i], "fed out of order or twice (after suite.json)") !=
             NULL;
  ASSERT_TRUE(found);
  ASSERT_EQ(np_results_check_file(c, "x", "", 0), NP_EINVAL);
  ASSERT_EQ(np_results_check_finish(c, &o), NP_EINVAL);
  np_results_check_free(c);
  np_results_check_free(NULL);
  np_ftree_free(t);
}

static void unreadable(const char *dir) {
  char p[2048];
  snprintf(p, sizeof p, "%s/no-such-set", dir);
  struct np_errbuf eb = {{0}};
  struct lines l = {.n = 0};
  ASSERT_EQ(np_results_check_dir(p, "x", collect, &l, NULL, &eb), NP_ENOENT);
  ASSERT_TRUE(strstr(eb.msg, "no-such-set: ") != NULL);
  ASSERT_EQ(l.n, 0);
  snprintf(p, sizeof p, "%s/corpus.txt", dir);
  ASSERT_EQ(np_results_check_dir(p, "x", collect, &l, NULL, &eb), NP_ENOTDIR);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  same_both_ways(argv[1], "udp", 0, 6, 6);
  same_both_ways(argv[1], "rudp", 0, 2, 2);
  same_both_ways(argv[1], "udp-resumed", 0, 6, 6);
  same_both_ways(argv[1], "udp-timeout", 0, 2, 2);
  same_both_ways(argv[1], "udp-interrupted", NP_EINCOMPLETE, 6, 3);
  same_both_ways(argv[1], "udp-killed", NP_EINCOMPLETE, 6, 2);
  same_both_ways(argv[1], "udp-partial", NP_EINCOMPLETE, 6, 2);
  order_and_finish(argv[1]);
  unreadable(argv[1]);
  puts("test_selfcheck_stream: ok");
  return 0;
}
