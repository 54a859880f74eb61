/*
 * test_results_selfcheck.c - the self-check passes the committed fixture and
 * rejects each kind of tampering, applied to an in-memory copy of it:
 * broken JSON, NaN, negative count, non-monotone percentiles, server leg
 * mismatch, lost != sent - received, rate not count over duration, mixed
 * builds, missing evidence file, missing repetition, summary value that
 * does not match the runs (median, min, max), repetition or configuration
 * status that contradicts the runs, a failed configuration ranked, a
 * repetition missing from a complete suite, missing summary.json, wrong
 * schema tag.
 *
 * usage: test_results_selfcheck FIXTURE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_ftree.h"
#include "np_results_selfcheck.h"
#include "np_test.h"

#define RUN "runs/udp-p1024-c16-w1-single-uv/rep-2.json"

struct seen {
  char lines[64][768];
  size_t n;
};

static void collect(void *ctx, const char *file, const char *ptr,
                    const char *reason) {
  struct seen *s = ctx;
  if (s->n < 64)
    snprintf(s->lines[s->n], sizeof s->lines[0], "%s: %s: %s", file, ptr,
             reason);
  s->n++;
}

/* Copy of t without `drop`, with the first `from` in `file` replaced by
 * `to` (all may be NULL). */
static struct np_ftree *tampered(const struct np_ftree *t, const char *drop,
                                 const char *file, const char *from,
                                 const char *to) {
  struct np_ftree *o = NULL;
  ASSERT_OK(np_ftree_new(&o));
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t len;
    const char *d = np_ftree_get(t, p, &len);
    if (drop && strcmp(p, drop) == 0)
      continue;
    if (file && strcmp(p, file) == 0) {
      const char *at = strstr(d, from);
      if (at == NULL)
        NP_TEST_FAIL_("%s: \"%s\" not found", p, from);
      size_t pre = (size_t)(at - d), nl = len - strlen(from) + strlen(to);
      char *buf = malloc(nl + 1);
      ASSERT_NOT_NULL(buf);
      memcpy(buf, d, pre);
      memcpy(buf + pre, to, strlen(to));
      memcpy(buf + pre + strlen(to), at + strlen(from),
             len - pre - strlen(from));
      ASSERT_OK(np_ftree_add(o, p, buf, nl));
      free(buf);
    } else {
      ASSERT_OK(np_ftree_add(o, p, d, len));
    }
  }
  return o;
}

/* Run the check on a tampered copy; expect a problem line holding want. */
static void expect(const struct np_ftree *t, const char *kind, const char *drop,
                   const char *file, const char *from, const char *to,
                   const char *want) {
  struct np_ftree *x = tampered(t, drop, file, from, to);
  struct seen s = {0};
  int rc = np_results_self_check(x, "fx", collect, &s);
  int found = 0;
  for (size_t i = 0; i < s.n && i < 64; i++)
    found |= strstr(s.lines[i], want) != NULL;
  if (rc != NP_ECHECK || !found) {
    for (size_t i = 0; i < s.n && i < 64; i++)
      fprintf(stderr, "  %s\n", s.lines[i]);
    NP_TEST_FAIL_("tampering \"%s\": rc %d, wanted a line with \"%s\"", kind,
                  rc, want);
  }
  printf("ok: %s -> %s\n", kind, s.lines[0]);
  np_ftree_free(x);
}

/* Copy of t with files copied under new names: pairs from[i] -> to[i]. */
static struct np_ftree *with_copies(const struct np_ftree *t,
                                    const char *const *from,
                                    const char *const *to, size_t n) {
  struct np_ftree *o = tampered(t, NULL, NULL, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    size_t len;
    const char *d = np_ftree_get(t, from[i], &len);
    ASSERT_NOT_NULL(d);
    ASSERT_OK(np_ftree_add(o, to[i], d, len));
  }
  return o;
}

static void expect_tree(struct np_ftree *x, const char *kind,
                        const char *want) {
  struct seen s = {0};
  int rc = np_results_self_check(x, "fx", collect, &s);
  int found = 0;
  for (size_t i = 0; i < s.n && i < 64; i++)
    found |= strstr(s.lines[i], want) != NULL;
  if (rc != NP_ECHECK || !found) {
    for (size_t i = 0; i < s.n && i < 64; i++)
      fprintf(stderr, "  %s\n", s.lines[i]);
    NP_TEST_FAIL_("tampering \"%s\": rc %d, wanted a line with \"%s\"", kind,
                  rc, want);
  }
  for (size_t i = 0; i < s.n && i < 64; i++)
    if (strstr(s.lines[i], want) != NULL)
      printf("ok: %s -> %s\n", kind, s.lines[i]);
  np_ftree_free(x);
}

#define DIR_ "runs/udp-p1024-c16-w1-single-uv/"
static void identity_kinds(const struct np_ftree *t) {
  static const char *const sfx[] = {".json", ".stderr.txt", ".cmd.txt",
                                    ".kernel-before.txt", ".kernel-after.txt"};
  char from[5][128], to[5][128];
  const char *f[5], *d[5];
  for (int i = 0; i < 5; i++) {
    snprintf(from[i], sizeof from[i], DIR_ "rep-1%s", sfx[i]);
    f[i] = from[i];
    d[i] = to[i];
  }
  /* rep-01 and rep-1 both claim repetition 1. */
  for (int i = 0; i < 5; i++)
    snprintf(to[i], sizeof to[i], DIR_ "rep-01%s", sfx[i]);
  expect_tree(with_copies(t, f, d, 5), "duplicated run id",
              "duplicated run id udp-p1024-c16-w1-single-uv/rep-1");
  /* A repetition the plan (3 repetitions) never asked for. */
  for (int i = 0; i < 5; i++)
    snprintf(to[i], sizeof to[i], DIR_ "rep-4%s", sfx[i]);
  expect_tree(with_copies(t, f, d, 5), "unplanned repetition",
              "repetition 4 was not planned");
  /* The same record stored as rep-1 and rep-4 is one run twice. */
  expect_tree(with_copies(t, f, d, 5), "record stored twice",
              "one run recorded twice");
  /* A record moved into another configuration's folder. */
  snprintf(to[0], sizeof to[0], "runs/udp-p1024-c16-w1-split-uv/rep-2.json");
  snprintf(from[0], sizeof from[0], DIR_ "rep-2.json");
  struct np_ftree *x = tampered(t, to[0], NULL, NULL, NULL);
  size_t len;
  const char *rec = np_ftree_get(t, from[0], &len);
  ASSERT_OK(np_ftree_add(x, to[0], rec, len));
  expect_tree(x, "record in another configuration's folder",
              "is not in the folder's configuration id");
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(argv[1], 0, &t, &eb));
  struct seen s = {0};
  int rc = np_results_self_check(t, "fx", collect, &s);
  for (size_t i = 0; i < s.n && i < 64; i++)
    fprintf(stderr, "unexpected: %s\n", s.lines[i]);
  ASSERT_EQ(rc, 0);

  expect(t, "broken JSON", NULL, RUN, "{", "[", "fx/" RUN ": : ");
  expect(t, "NaN", NULL, RUN,
         "\"cpu_percent\": ", "\"cpu_percent\": NaN, \"x\": ", "fx/" RUN);
  expect(t, "negative count", NULL, RUN, "\"content_errors\": 0",
         "\"content_errors\": -1", "/counters/content_errors: negative count");
  expect(t, "percentiles", NULL, RUN, "\"p50\": ", "\"p50\": 999999",
         "percentiles not monotone");
  expect(t, "server legs", NULL, RUN,
         "\"server_replied\": ", "\"server_replied\": 1", "server_received");
  expect(t, "lost", NULL, RUN, "\"lost\": 0", "\"lost\": 5", "/counters/lost");
  expect(t, "rate", NULL, RUN,
         "\"roundtrips_per_sec\": ", "\"roundtrips_per_sec\": 1",
         "within 0.5 %");
  expect(t, "mixed builds", NULL, RUN, "\"source_sha256\": \"",
         "\"source_sha256\": \"0", "mixed builds");
  expect(t, "missing kernel snapshot",
         "runs/udp-p1024-c16-w1-single-uv/rep-2.kernel-before.txt", NULL, NULL,
         NULL, "rep-2.kernel-before.txt: : missing");
  expect(t, "missing stderr",
         "runs/udp-p1024-c16-w1-single-uv/rep-1.stderr.txt", NULL, NULL, NULL,
         "rep-1.stderr.txt: : missing");
  expect(t, "missing repetition", RUN, NULL, NULL, NULL,
         "fx/" RUN ": : missing");
  expect(t, "summary value", NULL, "summary.json",
         "\"median\": ", "\"median\": 1", "does not match the runs");
  expect(t, "missing summary", "summary.json", NULL, NULL, NULL,
         "fx/summary.json: : missing");
  expect(t, "schema tag", NULL, RUN, "netproof/run/1", "netproof/run/9",
         "/schema: expected");
  expect(t, "unlisted configuration", NULL, "summary.json",
         "\"id\": \"udp-p1024-c16-w1-single-uv\"", "\"id\": \"udp-x\"",
         "is not in summary.json");
  expect(t, "Infinity", NULL, RUN,
         "\"cpu_percent\": ", "\"cpu_percent\": Infinity, \"x\": ", "fx/" RUN);
  expect(t, "field the schema forbids", NULL, RUN,
         "\"status\": ", "\"bogus\": 1, \"status\": ", "schema:");
  expect(t, "missing cmd", "runs/udp-p1024-c16-w1-single-uv/rep-3.cmd.txt",
         NULL, NULL, NULL, "rep-3.cmd.txt: : missing");
  expect(t, "missing kernel-after",
         "runs/udp-p1024-c16-w1-single-uv/rep-3.kernel-after.txt", NULL, NULL,
         NULL, "rep-3.kernel-after.txt: : missing");
  expect(t, "payload contradicts folder", NULL, RUN, "\"payload\": 1024",
         "\"payload\": 2048", "/config/payload: 2048, but the folder");
  expect(t, "summary repetitions", NULL, "summary.json", "\"repetitions\": [",
         "\"repetitions\": [{\"n\": 9, \"status\": "
         "\"missing\"}, ",
         "the plan has 3");
  expect(t, "summary min", NULL, "summary.json", "\"min\": 75082", "\"min\": 1",
         "does not match the runs' min");
  expect(t, "repetition status", NULL, "summary.json",
         "\"n\": 2,\n\t\t\t\t\t\"status\": \"passed\"",
         "\"n\": 2,\n\t\t\t\t\t\"status\": \"failed\"",
         "but runs/udp-p1024-c16-w1-single-uv/rep-2.json says \"passed\"");
  expect(t, "configuration status", NULL, "summary.json",
         "],\n\t\t\t\"status\": \"passed\"",
         "],\n\t\t\t\"status\": \"confirmed\"",
         "/configurations/0/status: \"confirmed\", but its runs make it");
  expect(t, "failed configuration ranked", NULL, RUN, "\"status\": \"passed\"",
         "\"status\": \"failed\"",
         "ranks udp-p1024-c16-w1-single-uv although only 2 of 3");
  expect(t, "missing run in a complete suite", RUN, "summary.json",
         "\"n\": 2,\n\t\t\t\t\t\"status\": \"passed\"",
         "\"n\": 2,\n\t\t\t\t\t\"status\": \"missing\"",
         "missing, but suite.json says the suite is complete");
  identity_kinds(t);
  np_ftree_free(t);
  puts("test_results_selfcheck: ok");
  return 0;
}
