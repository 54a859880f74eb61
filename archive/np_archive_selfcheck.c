/*
 * np_archive_selfcheck.c - the seam to netproof-report's self-check.
 * When np_report is part of the build (NP_ARCHIVE_HAVE_REPORT), every suite
 * in a bundle is checked exactly as `netproof-report` checks a folder.
 */
#include "np_archive_int.h"

#ifdef NP_ARCHIVE_HAVE_REPORT
#include "np_report_selfcheck.h"

static void selfcheck_cb(void *ctx, const char *file, const char *pointer,
                         const char *reason) {
  struct np_problems *p = ctx;
  if (pointer != NULL && pointer[0] != '\0')
    np_problem(p, file, "%s: %s", pointer, reason);
  else
    np_problem(p, file, "%s", reason);
}

int np_archive_selfcheck_suite(const struct np_ftree *t, const char *label,
                               struct np_problems *p) {
  int rc = np_report_self_check_tree(t, label, selfcheck_cb, p);
  if (rc != 0 && rc != NP_ECHECK)
    np_problem(p, label, "self-check could not run: %s", np_strerror(rc));
  return 1;
}
#else
int np_archive_selfcheck_suite(const struct np_ftree *t, const char *label,
                               struct np_problems *p) {
  (void)t;
  (void)label;
  (void)p;
  return 0;
}
#endif
