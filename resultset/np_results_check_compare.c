/*
 * np_results_check_compare.c - a comparison on file (compare.json) is
 * re-derived, never trusted: the options it states are read back, the
 * comparison is rebuilt from the two sets' records with the command's own
 * code (np_results_compare), and the two documents are compared field by
 * field with the self-check's differ, so an edited ratio, interval,
 * p-value, Holm adjustment, verdict, list or gate is one line each.
 */
#include <stdlib.h>

#include "np_results_check_int.h"
#include "np_results_compare.h"
#include "np_schema.h"

int np_results_check_compare(const cJSON *doc, const char *file,
                             const struct np_results_set *base,
                             const struct np_results_set *new_,
                             np_results_problem_fn on_problem, void *ctx,
                             cJSON **rebuilt) {
  struct np_results_check *c = NULL;
  struct np_results_compare_opts o;
  struct np_errbuf eb = {{0}};
  cJSON *want = NULL;
  int rc = np_results_check_new("", on_problem, ctx, &c);
  if (rc != 0)
    return rc;
  if (np_schema_validate_tagged(doc, &eb) != 0)
    np_chk__problem(c, file, "", "%s", eb.msg);
  if ((rc = np_results_compare_opts_of(doc, &o, &eb)) != 0 ||
      (rc = np_results_compare(base, new_, &o, &want, &eb)) != 0) {
    if (rc != NP_ENOMEM)
      np_chk__problem(c, file, "/options", "%s", eb.msg);
    goto cleanup_check;
  }
  np_chk__diff(c, file, "", doc, want, "recomputing it from the records", 60);
  rc = c->problems ? NP_ECHECK : 0;
  if (rebuilt != NULL) {
    *rebuilt = want;
    want = NULL;
  }
cleanup_check:
  cJSON_Delete(want);
  np_results_check_free(c);
  return rc;
}
