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

/* The set's --interval-metric series (np_report_exec_series.c): a chart
 * per series and configuration and a table per series; nothing when the
 * plan declares none.  cfg in plan order.  0 or NP_E*. */
int np_report_exec_series(struct np_report_ctx *ctx,
                          const struct np_results_set *s,
                          const struct np_results_config **cfg, size_t ncfg);

#endif /* NP_REPORT_EXEC_H */
