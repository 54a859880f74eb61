/*
 * np_archive_selfcheck.c - every suite in a bundle is checked exactly as
 * `netproof-report --self-check` checks a folder, fed file by file as the
 * tar streams past (np_archive_int.h: np_archive_sc_*).
 *
 * This is the one place that knows how resultset/ takes its input: its
 * streaming check (np_results_check_*), which keeps one repetition's files
 * and a compact summary per run, so a suite costs no more memory than its
 * largest repetition plus its run count, whatever its size.
 */
#include "np_archive_int.h"

#include <stdlib.h>
#include <string.h>

struct np_archive_sc {
  struct np_results_check *c; /* resultset's streaming check */
};

int np_archive_sc_new(const char *label, np_results_problem_fn fn, void *ctx,
                      struct np_archive_sc **out) {
  struct np_archive_sc *s = calloc(1, sizeof(*s));
  if (s == NULL || np_results_check_new(label, fn, ctx, &s->c) != 0) {
    free(s);
    return NP_ENOMEM;
  }
  *out = s;
  return 0;
}

int np_archive_sc_file(struct np_archive_sc *s, const char *path,
                       const char *data, size_t len) {
  return np_results_check_file(s->c, path, data, len);
}

int np_archive_sc_finish(struct np_archive_sc *s,
                         struct np_results_outcome *out) {
  int rc = np_results_check_finish(s->c, out);
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
  np_results_check_free(s->c);
  free(s);
}
