/*
 * np_results_check_summary.c - summary.json rebuilt, never trusted: every
 * run's entry (np_results_summary_rep, made when its record was checked)
 * goes into the matrix's own builder (np_results_summary_build) with the
 * plan of suite.json, and every field of the result is compared with the
 * summary.json on file - statistics, statuses, expectations, totals,
 * rankings, exclusion reasons, and every interval, seed, outlier flag
 * and until-stable stop.  A summary written by a runner that was then
 * killed (suite status "running") describes an older state of the folder
 * and is not compared.  A summary written before the intervals existed
 * (no top-level "intervals": sets of 0.2.0 and older) states none, so the
 * rebuilt one loses them (np_results_stat_members, "bootstrap_seed")
 * before the comparison: what it does state is still checked.
 */
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"
#include "np_results_stats.h"
#include "np_results_summary.h"

/* want without what a summary of an older version does not state. */
static void strip_new_members(cJSON *want) {
  cJSON_DeleteItemFromObjectCaseSensitive(want, "intervals");
  cJSON *cf;
  cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(want,
                                                          "configurations")) {
    cJSON_DeleteItemFromObjectCaseSensitive(cf, "bootstrap_seed");
    cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(cf, "stats")) {
      for (size_t k = 0; np_results_stat_members[k] != NULL; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(st,
                                                np_results_stat_members[k]);
    }
  }
}

void np_chk__summary(struct np_results_check *c,
                     const struct np_matrix_plan *plan) {
  if (c->summary == NULL ||
      strcmp(np_json_get_string(c->suite, "status", ""), "running") == 0)
    return;
  size_t R = (size_t)plan->repetitions, n = plan->nconfigs * R;
  cJSON **entries = calloc(n ? n : 1, sizeof *entries);
  if (entries == NULL) {
    c->oom = 1;
    return;
  }
  for (size_t i = 0; i < c->nruns; i++) {
    struct np_chk_run *r = &c->runs[i];
    long k = r->plan_idx;
    if (k < 0 || r->rep < 1 || (size_t)r->rep > R || r->entry == NULL)
      continue;
    size_t at = (size_t)k * R + (size_t)(r->rep - 1);
    if (entries[at] == NULL) { /* the first of duplicated ids counts */
      entries[at] = r->entry;
      r->entry = NULL;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (entries[i] == NULL &&
        (entries[i] = np_results_summary_rep(plan->protocol, (int)(i % R) + 1,
                                             NULL, NULL, NULL)) == NULL)
      c->oom = 1;
  cJSON *want = NULL;
  struct np_errbuf eb = {{0}};
  if (c->oom) {
    for (size_t i = 0; i < n; i++)
      cJSON_Delete(entries[i]);
  } else if (np_results_summary_build(plan, entries, &want, &eb) != 0) {
    c->oom = 1;
  } else {
    if (!cJSON_HasObjectItem(c->summary, "intervals"))
      strip_new_members(want);
    np_chk__diff(c, "summary.json", "", c->summary, want,
                 "recomputing it from the records", 40);
  }
  cJSON_Delete(want);
  free(entries);
}
