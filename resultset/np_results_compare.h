/*
 * np_results_compare.h - two result sets compared configuration by
 * configuration ("netproof/compare/1", schema/compare.schema.json): the
 * pure part of `netproof-report compare BASE NEW`, shared by the command
 * (which renders it) and the check of a comparison on file (which
 * rebuilds it from the records and compares, np_results_check_compare).
 *
 * Configurations are matched by id - NEW's ids after an optional
 * substring replacement (map_from -> map_to), both sides after optional
 * fnmatch filters - and those present in one set only are listed.  A
 * configuration is compared when every run of it passed in both sets and
 * neither expects it to fail; the others are listed with the reason.
 * Per metric and configuration (common/np_stats.h; docs/statistics.md):
 *   - the medians and their ratio NEW / BASE, with a 95 % percentile
 *     bootstrap interval (10,000 resamples of each side independently,
 *     values sorted first, seed np_results_seed_of(BASE id)), none below 5
 *     runs a side;
 *   - the two-sided Mann-Whitney U test of NEW against BASE;
 *   - Holm's correction across the compared configurations of the metric;
 *   - the verdict: a change counts only when the Holm-adjusted p < alpha
 *     AND |ratio - 1| > threshold; its direction by the metric's better
 *     side ("faster" / "slower", "less CPU" / "more CPU"), else "no
 *     significant change".  A change for the worse is a regression;
 *   - "inconclusive (N runs a side cannot detect a change at alpha = A
 *     ...; need >= M a side)" instead when the configuration's p_floor -
 *     Holm over the family's smallest exact U-test p-values
 *     (np_stats_mw_min_p) - is not below alpha: no ordering of its runs
 *     could have shown a change (3 + 3 runs: 0.1).
 * The gate fails on a regression, on a configuration that passed in BASE
 * and has failed runs in NEW, on a BASE configuration missing from NEW
 * (after the filters), and when nothing was compared; gate_reasons says
 * which.  Otherwise it is "inconclusive" when any verdict is
 * (gate_inconclusive: one line per metric), else "pass".
 * The document names the sets by label only (no paths, no clock), so it
 * is a pure function of the two sets and the options.
 */
#ifndef NP_RESULTS_COMPARE_H
#define NP_RESULTS_COMPARE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_results.h"
#include "np_results_selfcheck.h"

#define NP_COMPARE_ALPHA 0.05
#define NP_COMPARE_THRESHOLD 0.02
#define NP_COMPARE_MAX_METRICS 8

struct np_results_compare_opts {
  double alpha;            /* significance level after Holm (0.05)        */
  double threshold;        /* noise threshold, a fraction (0.02 = 2 %)    */
  const char *base_only;   /* fnmatch glob on BASE ids, or NULL           */
  const char *new_only;    /* fnmatch glob on NEW ids (before the map)    */
  const char *map_from;    /* in NEW ids, this substring ... (or NULL)    */
  const char *map_to;      /* ... is replaced by this one before matching */
  const char *metrics[NP_COMPARE_MAX_METRICS]; /* names; nmetrics 0 = the
                              defaults (roundtrips_per_sec, rtt_p99_us)   */
  size_t nmetrics;
  const char *base_label;  /* display names of the sets                   */
  const char *new_label;
};

/* The metrics compare knows, in order: name, label, unit, which side is
 * better, the two verdict words.  NULL past the last. */
struct np_results_compare_metric {
  const char *name;            /* "roundtrips_per_sec"                   */
  enum np_results_metric m;    /* where the value lives in a record      */
  const char *label;           /* "round trips/s"                        */
  int higher_is_better;
  const char *better, *worse;  /* "faster", "slower"                     */
};
const struct np_results_compare_metric *np_results_compare_metric_at(size_t i);
const struct np_results_compare_metric *
np_results_compare_metric_find(const char *name);

/* The defaults of o (alpha, threshold, no filters, default metrics). */
void np_results_compare_opts_init(struct np_results_compare_opts *o);

/* Read the options a comparison document states (its "options") into o;
 * the strings point into doc.  NP_EPARSE with the field in eb. */
int np_results_compare_opts_of(const cJSON *doc,
                               struct np_results_compare_opts *o,
                               struct np_errbuf *eb);

/* Compare NEW with BASE into a new document *out (caller frees).
 * NP_EINVAL (an unknown metric, a bad alpha or threshold: one line in
 * eb), NP_ENOMEM. */
int np_results_compare(const struct np_results_set *base,
                       const struct np_results_set *new_,
                       const struct np_results_compare_opts *o, cJSON **out,
                       struct np_errbuf *eb);

/* The check of a comparison on file: doc (read from `file`, the name its
 * problems carry) is validated against its schema and rebuilt from base
 * and new with the options it states, and every field that differs is
 * one problem "file: /pointer: <have>, but recomputing it from the
 * records gives <want>" - ratios, intervals, p-values, Holm, verdicts,
 * the lists and the gate (np_results_check_compare.c).  *rebuilt (may be
 * NULL) receives the rebuilt document, for the files rendered from it.
 * Returns 0 clean, NP_ECHECK, or NP_EPARSE / NP_EINVAL (options it states
 * cannot be used: reported) / NP_ENOMEM. */
int np_results_check_compare(const cJSON *doc, const char *file,
                             const struct np_results_set *base,
                             const struct np_results_set *new_,
                             np_results_problem_fn on_problem, void *ctx,
                             cJSON **rebuilt);

#endif /* NP_RESULTS_COMPARE_H */
