/*
 * np_report_chartb.h - the one bar-chart builder of the report: a list of
 * bars (one per configuration: category x series, its value and marks)
 * becomes an np_chart, its SVG file and its report.json entry.
 *
 * The udp (np_report_charts.c), reliable-UDP (np_report_rudp.c) and exec
 * (np_report_exec.c) charts differ only in how a configuration maps to a
 * category, a series and a value; each fills np_report_cbar rows and
 * describes the chart once in np_report_cchart.  The builder interns the
 * categories (first appearance) and series (first appearance, or by rank),
 * gathers the exclusion reasons, the run counts of the caption, the
 * interval or min/max error bars, renders and records the chart.
 */
#ifndef NP_REPORT_CHARTB_H
#define NP_REPORT_CHARTB_H

#include <stddef.h>

#include "np_report_int.h"

/* One bar: a configuration's value in one category and series.  Strings
 * are borrowed for the duration of np_report_chartb_emit. */
struct np_report_cbar {
  const char *key;     /* category key: bars of equal keys share a slot  */
  const char *label;   /* axis text of the category                       */
  const char *note;    /* lines under the label ("" = none)               */
  const char *jcat;    /* report.json "category" of the bar               */
  const char *series;  /* legend text (picks the style)                   */
  const char *jseries; /* report.json "series"; NULL = series             */
  int rank;            /* series order when >= 0 (else first appearance)  */
  const struct np_results_config *cfg; /* the configuration of the bar    */
  unsigned char mark;  /* NP_CHART_* bits; EXCLUDED / MISSING: no value   */
  double med, mn, mx;  /* median, min, max of the n values (scaled)       */
  double clo, chi;     /* 95 % interval of the median or NAN              */
  size_t n;            /* values behind the bar (0: none)                 */
};

/* What report.json holds beside the chart's common members. */
enum np_report_cjson {
  NP_CJ_CAPTION = 1, /* "caption" of the chart                          */
  NP_CJ_NOTE = 2,    /* "note" of a bar whose category has one          */
  NP_CJ_MARKS = 4,   /* "missing" and "unstable" of every bar           */
  NP_CJ_MISSED = 8   /* "target_missed" of a bar that missed its target */
};

/* The chart: texts, caption unit, axis and which report.json members. */
struct np_report_cchart {
  const char *title, *subtitle, *xlabel, *ylabel;
  const char *stem;        /* file stem (the set's slug prefixes it)       */
  const char *unit;        /* "run" or "round" in the caption              */
  int of_one_process;      /* rounds of a single run                       */
  int log_y;               /* logarithmic y axis                           */
  int unstable_note;       /* state the spread limit across `unit`s        */
  int needs_nonzero;       /* no chart when no bar is above zero           */
  const char *metric;      /* report.json "metric" or NULL                 */
  unsigned json;           /* enum np_report_cjson bits                    */
};

/* Most categories (and series) a chart holds; bars of further categories
 * are dropped (the tables hold every configuration). */
#define NP_REPORT_CB_MAX_CAT 64

/* Render and record the chart of bars b[0..nb).  No chart (0) when the
 * bars make more series than a chart tells apart (np_chart's limit), no
 * category, or needs_nonzero finds no value above zero.  Errors:
 * NP_ENOMEM, np_chart_render_svg's and np_report_add_chart's. */
int np_report_chartb_emit(struct np_report_ctx *ctx,
                          const struct np_results_set *s,
                          const struct np_report_cchart *ch,
                          const struct np_report_cbar *b, size_t nb);

#endif
