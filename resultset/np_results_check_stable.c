/*
 * np_results_check_stable.c - an until_stable set stopped where its rule
 * says.  The rule (np_results_stable.h, the runner's own code) is applied
 * again to each configuration's records - the round trips/s of
 * repetitions 1, 2, ... as their summary entries state them, with the
 * configuration's seed - which gives how many repetitions the suite calls
 * for: a record past that stop was not run by the rule (an extra or a
 * re-labelled run), a missing one before it makes the set incomplete.
 * Plans with a fixed number of repetitions call for exactly that many.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"
#include "np_results_stable.h"
#include "np_results_stats.h"

/* The record's round trips/s from its summary entry (NAN: no figure). */
static double entry_rps(const struct np_chk_run *r) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(r->entry,
                                                    "roundtrips_per_sec");
  return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

void np_chk__stable(struct np_results_check *c, const struct np_matrix_plan *p,
                    const long *idx, size_t *planned) {
  size_t R = (size_t)p->repetitions;
  for (size_t ci = 0; ci < p->nconfigs; ci++)
    planned[ci] = R;
  if (!p->until_stable)
    return;
  double *rps = malloc((R ? R : 1) * sizeof *rps);
  char *have = malloc(R ? R : 1);
  if (rps == NULL || have == NULL) {
    c->oom = 1;
    goto cleanup;
  }
  for (size_t ci = 0; ci < p->nconfigs; ci++) {
    memset(have, 0, R);
    for (size_t i = 0; i < c->nruns; i++) {
      const struct np_chk_run *r = &c->runs[i];
      if (idx[i] != (long)ci || r->rep < 1 || (size_t)r->rep > R ||
          !r->have_record || have[r->rep - 1])
        continue;
      have[r->rep - 1] = 1;
      rps[r->rep - 1] = r->entry != NULL ? entry_rps(r) : NAN;
    }
    size_t n = 0;
    while (n < R && have[n])
      n++;
    struct np_results_stable_eval e;
    if (np_results_stable_eval(p, rps, n, np_results_seed_of(p->configs[ci].id),
                               &e) != 0) {
      c->oom = 1;
      goto cleanup;
    }
    planned[ci] = e.needed;
    if (!e.decided || !e.met)
      continue; /* past max_repetitions is "not planned" (the suite check) */
    for (size_t i = 0; i < c->nruns; i++) {
      const struct np_chk_run *r = &c->runs[i];
      if (idx[i] != (long)ci || r->rep <= (long)e.needed ||
          (size_t)r->rep > R || !r->have_record)
        continue;
      np_chk__problem(c, r->file, "",
                      "repetition %ld was not run by the until-stable rule: "
                      "after %zu repetitions the 95 %% interval of the median "
                      "round trips/s was within %g %% of it (half-width "
                      "%.3f %%), and the runner stops there",
                      r->rep, e.needed, p->stable_ci_percent, e.half_width_pct);
    }
  }
cleanup:
  free(rps);
  free(have);
}
