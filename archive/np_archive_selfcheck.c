/*
 * np_archive_selfcheck.c - every suite in a bundle is checked exactly as
 * `netproof-report --self-check` checks a folder, fed file by file as the
 * tar streams past (np_archive_int.h: np_archive_sc_*).
 *
 * This is the one place that knows how resultset/ takes its input: today
 * the suite's files are gathered in an np_ftree and checked when the
 * stream leaves the suite's folder, so a suite costs its own size in
 * memory until it is finished.
 */
#include "np_archive_int.h"

#include <stdlib.h>
#include <string.h>

struct np_archive_sc {
  char *label;              /* "<top>/data/<suite>" for problem lines */
  np_results_problem_fn fn; /* where problems go                      */
  void *ctx;                /* fn's context                           */
  struct np_ftree *tree;    /* the suite's files so far               */
};

int np_archive_sc_new(const char *label, np_results_problem_fn fn, void *ctx,
                      struct np_archive_sc **out) {
  struct np_archive_sc *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->label = strdup(label)) == NULL ||
      np_ftree_new(&s->tree) != 0) {
    np_archive_sc_free(s);
    return NP_ENOMEM;
  }
  s->fn = fn;
  s->ctx = ctx;
  *out = s;
  return 0;
}

int np_archive_sc_file(struct np_archive_sc *s, const char *path,
                       const char *data, size_t len) {
  int rc = np_ftree_add(s->tree, path, data, len);
  return rc == NP_EEXIST ? 0 : rc; /* duplicates are the reader's report */
}

int np_archive_sc_finish(struct np_archive_sc *s) {
  int rc = np_results_self_check(s->tree, s->label, s->fn, s->ctx);
  np_archive_sc_free(s);
  return rc;
}

int np_archive_sc_validates(const char *path) {
  size_t n = strlen(path);
  return strcmp(path, "suite.json") == 0 ||
         strcmp(path, "summary.json") == 0 ||
         (strncmp(path, "runs/", 5) == 0 && n > 5 &&
          strcmp(path + n - 5, ".json") == 0);
}

void np_archive_sc_free(struct np_archive_sc *s) {
  if (s == NULL)
    return;
  np_ftree_free(s->tree);
  free(s->label);
  free(s);
}
