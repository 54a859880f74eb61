/*
 * np_archive_selfcheck.c - every suite in a bundle is checked exactly as
 * `netproof-report --self-check` checks a folder, its problems reported
 * through the bundle's problem collector.
 */
#include "np_archive_int.h"

#include "np_results_selfcheck.h"

static void selfcheck_cb(void *ctx, const char *file, const char *pointer,
                         const char *reason) {
  struct np_problems *p = ctx;
  if (pointer != NULL && pointer[0] != '\0')
    np_problem(p, file, "%s: %s", pointer, reason);
  else
    np_problem(p, file, "%s", reason);
}

void np_archive_selfcheck_suite(const struct np_ftree *t, const char *label,
                                struct np_problems *p) {
  /* an incomplete set's "incomplete: N of M repetitions" note comes
   * through the callback like a problem (np_results_self_check) */
  int rc = np_results_self_check(t, label, selfcheck_cb, p);
  if (rc != 0 && rc != NP_ECHECK && rc != NP_EINCOMPLETE)
    np_problem(p, label, "self-check could not run: %s", np_strerror(rc));
}
