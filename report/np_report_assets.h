/*
 * np_report_assets.h - helpers every part of a report shares
 * (np_report_assets.c; internal to report/, not a public interface).
 *
 * Ordering: configurations in the plan's order (the pages, the rudp views)
 * or by their dimension values (the charts and tables of one set).  Both
 * return a malloc'd array of pointers into the set (NULL on allocation
 * failure) that the caller frees; the pointers die with the set.
 */
#ifndef NP_REPORT_ASSETS_H
#define NP_REPORT_ASSETS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_results.h"

struct np_report_ctx;

/* Configurations in plan order (summary.json's order; configurations it
 * does not list follow in id order). */
const struct np_results_config **
np_report_plan_order(const struct np_results_set *s);

/* Configurations of s ordered by their dimension values. */
const struct np_results_config **
np_report_sorted_configs(const struct np_results_set *s);

/* Array of the run ids of c (passed runs only when passed_only); a new
 * cJSON array the caller adds to a document, NULL when memory ran out. */
cJSON *np_report_run_ids(const struct np_results_config *c, int passed_only);

/* Register a rendered chart: add svg to ctx->out as assets/<stem>.svg
 * (prefixed), link it from ctx->md, return its report.json entry. */
int np_report_add_chart(struct np_report_ctx *ctx, const char *stem,
                        const char *svg, size_t len, const char *alt,
                        cJSON **entry);

#endif /* NP_REPORT_ASSETS_H */
