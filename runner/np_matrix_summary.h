/*
 * np_matrix_summary.h - summary.json of a suite folder: read suite.json's
 * plan copy and runs/<id>/rep-<n>.{json,kernel-before.txt,kernel-after.txt}
 * and hand them to the one summary implementation
 * (resultset/np_results_summary.h, shared with the self-check, which
 * documents what is computed and the status rules).
 */
#ifndef NP_MATRIX_SUMMARY_H
#define NP_MATRIX_SUMMARY_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

/* Summarize the suite in dir.  On success *out owns a new document (free
 * with cJSON_Delete).  Errors: NP_ENOENT / NP_EPARSE (suite.json missing or
 * broken), NP_ESCHEMA (its plan no longer expands), NP_ENOMEM. */
int np_matrix_summarize(const char *dir, cJSON **out, struct np_errbuf *eb);

/* The interval method of the set in dir (enum np_results_ci_method): the
 * one its summary.json states when it has one (a resumed set keeps its
 * method), else the one new sets get (NP_RESULTS_CI_NEW). */
int np_matrix_ci_method(const char *dir);

/* Round trips/s of repetition n of cf in dir as summary.json takes it (its
 * entry's roundtrips_per_sec; NAN when the record has no figure), for the
 * until-stable rule.  1 when rep-n.json holds a record, 0 when it does not
 * (then *rps is NAN), NP_ENOMEM. */
int np_matrix_summary_rps(const char *dir, const struct np_matrix_plan *p,
                          const struct np_matrix_config *cf, int n,
                          double *rps);

#endif /* NP_MATRIX_SUMMARY_H */
