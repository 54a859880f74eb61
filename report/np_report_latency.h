/*
 * np_report_latency.h - issue 19's views of a udp or udp-stream set
 * (np_report_latency.c): latency under load against offered load with
 * the closed-loop capacity marked, the percentile distribution on a
 * 1/(1-p) axis, time series with a trend line.  Internal to report/.
 */
#ifndef NP_REPORT_LATENCY_H
#define NP_REPORT_LATENCY_H

#include <cjson/cJSON.h>

#include "np_results.h"

struct np_report_ctx;
struct np_chart_xy;

/* Append what s's records support to ctx (nothing for records without
 * open-loop configurations, histograms or intervals).  0 or NP_E*. */
int np_report_latency(struct np_report_ctx *ctx,
                      const struct np_results_set *s);

/* 1 when s is a udp-stream set (its records' config.protocol). */
int np_report_is_stream(const struct np_results_set *s);

/* The time series alone (rudp sets: rudp.rounds[0].intervals of each
 * configuration's first passed run).  0 or NP_E*. */
int np_report_latency_series(struct np_report_ctx *ctx,
                             const struct np_results_set *s);

/* Render line chart ch as the asset stem (ctx's prefix + stem + .svg),
 * add it to report.json's charts with its set, title, subtitle and y
 * label, and hand back that chart's "series" array for the caller's
 * points.  0 or NP_E*. */
int np_report_xy_emit(struct np_report_ctx *ctx,
                      const struct np_results_set *s,
                      const struct np_chart_xy *ch, const char *stem,
                      cJSON **series);

/* One point (x, y) of series into a line chart's report.json series
 * array, drawn from configuration c's runs listed in runs (taken over;
 * NULL: none).  Nothing on no memory. */
void np_report_xy_point(cJSON *arr, const char *series, double x, double y,
                        const struct np_results_config *c, cJSON *runs);

#endif /* NP_REPORT_LATENCY_H */
