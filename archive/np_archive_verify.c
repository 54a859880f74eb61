/*
 * np_archive_verify.c - verify and list: one streaming read, then the
 * content checks, every problem through one collector
 * (np_archive_problems.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_archive_int.h"

void np_archive_limits_default(struct np_archive_limits *lim) {
  lim->max_entries = NP_ARCHIVE_DEFAULT_MAX_ENTRIES;
  lim->max_file_bytes = NP_ARCHIVE_DEFAULT_MAX_FILE_BYTES;
  lim->max_total_bytes = NP_ARCHIVE_DEFAULT_MAX_TOTAL_BYTES;
  lim->max_ratio = NP_ARCHIVE_DEFAULT_MAX_RATIO;
}

/* Read + check; on 0 or NP_ECORRUPT *keep (if non-NULL) receives the bag
 * on success only. */
int np_archive_verify_keep(const char *path,
                           const struct np_archive_limits *lim,
                           np_archive_problem_fn fn, void *ctx,
                           struct np_read_result *keep,
                           struct np_errbuf *eb) {
  struct np_archive_limits dl;
  if (lim == NULL) {
    np_archive_limits_default(&dl);
    lim = &dl;
  }
  struct np_problems p;
  struct np_read_result res;
  np_problems_init(&p, path, fn, ctx);
  int rc = np_archive_read(path, lim, &p, &res, eb);
  if (rc != 0)
    goto free_problems;
  /* Content checks need the whole stream; entry-level problems (a symlink,
   * a bad name) do not stop them, so one run reports everything. */
  if (res.complete)
    np_archive_check_bag(&res, &p);
  else if (p.count == 0) /* never valid unless read to the end */
    np_problem(&p, NULL, "archive could not be read to the end");
  rc = p.count > 0 ? NP_ECORRUPT : 0;
  if (rc != 0)
    np_errbuf_set(eb, rc, "%s: %zu problem(s)", path, p.count);
  if (rc == 0 && keep != NULL)
    *keep = res;
  else
    np_bag_free(res.bag);
free_problems:
  np_problems_free(&p);
  return rc;
}

int np_archive_verify(const char *path, const struct np_archive_limits *lim,
                      np_archive_problem_fn on_problem, void *ctx,
                      struct np_errbuf *eb) {
  return np_archive_verify_keep(path, lim, on_problem, ctx, NULL, eb);
}

int np_archive_list(const char *path, const struct np_archive_limits *lim,
                    np_archive_problem_fn on_problem, void *ctx,
                    struct np_errbuf *eb) {
  struct np_read_result res;
  int rc = np_archive_verify_keep(path, lim, on_problem, ctx, &res, eb);
  if (rc != 0)
    return rc;
  for (int w = 1; w >= 0 && rc == 0; w--) {
    struct np_bag_files f = {0};
    rc = np_bag_files_list(res.bag, w, &f);
    for (size_t i = 0; rc == 0 && i < f.n; i++)
      printf("%s  %10zu  %s/%s\n", f.v[i].sha256, f.v[i].len, res.bag->name,
             f.v[i].path);
    np_bag_files_free(&f);
  }
  np_bag_free(res.bag);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "out of memory");
  return 0;
}
