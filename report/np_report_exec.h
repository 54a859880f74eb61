/*
 * np_report_exec.h - the exec part of a report: a result set of
 * `netproof-bench exec` runs (any benchmark program) gets what ran, one
 * chart per metric its plan declares (name, unit, label, which way is
 * better) by the plan's dimensions, and a table of every metric per
 * configuration with its bounds (np_report_exec.c).  Internal to report/.
 */
#ifndef NP_REPORT_EXEC_H
#define NP_REPORT_EXEC_H

#include "np_results.h"

struct np_report_ctx;

/* The whole section of exec set s into ctx (index.md, report.json,
 * assets).  0, NP_ENOMEM, or the chart renderer's code. */
int np_report_exec(struct np_report_ctx *ctx, const struct np_results_set *s);

#endif /* NP_REPORT_EXEC_H */
