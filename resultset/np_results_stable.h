/*
 * np_results_stable.h - the stopping rule of `matrix --until-stable` (plan
 * "until_stable"), one function for the runner that applies it, the
 * summary that states where each configuration stopped, and the
 * self-check that proves the runner stopped where the rule says.
 *
 * Rule (netperf's -I / -i, with a bootstrap interval): a configuration
 * runs min_repetitions; after each later repetition k the 95 % interval of
 * the median round trips/s over repetitions 1..k (np_results_median_ci,
 * the configuration's seed) is tested, and the configuration stops at the
 * first k >= min_repetitions whose half-width ((hi - lo) / 2) is within
 * ci_percent % of that median, or at max_repetitions ("target missed").
 * Repetitions without a round-trips figure (a crashed child) give no
 * value; the interval needs 5 values.  The runner goes round by round -
 * repetition n of every configuration still running, in plan order, then
 * n + 1 - so drift over time does not pile onto one configuration.
 */
#ifndef NP_RESULTS_STABLE_H
#define NP_RESULTS_STABLE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_matrix_plan.h"

/* Where the rule stands after the repetitions it was shown. */
struct np_results_stable_eval {
  int decided;           /* 1: the rule stops at `needed`                  */
  size_t needed;         /* decided: the repetitions it runs; else the max */
  int met;               /* decided with the half-width within the target  */
  double half_width_pct; /* at `needed` (decided) or at the last repetition
                            tested; NAN when none was tested              */
};

/* Apply the rule of plan p (p->until_stable) to rps[0..n): the round
 * trips/s of repetitions 1..n, consecutive (NAN: that repetition has no
 * figure), with the configuration's seed.  0 or NP_ENOMEM. */
int np_results_stable_eval(const struct np_matrix_plan *p, const double *rps,
                           size_t n, uint64_t seed,
                           struct np_results_stable_eval *out);

/* summary.json's top-level "until_stable" of p: {ci_percent,
 * min_repetitions, max_repetitions}. */
cJSON *np_results_stable_plan_json(const struct np_matrix_plan *p);

/* A configuration's "until_stable": the target, its bounds,
 * repetitions_needed (null when not decided), met, half_width_percent. */
cJSON *np_results_stable_json(const struct np_matrix_plan *p,
                              const struct np_results_stable_eval *e);

#endif /* NP_RESULTS_STABLE_H */
