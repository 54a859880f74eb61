/*
 * np_chart_xy.h - line charts (x, y points per series) as SVG, on the same
 * page, palette and text layout as the bar charts (np_chart.h): latency
 * against offered load (the hockey stick, with the closed-loop capacity
 * as a vertical line), latency against percentile on HdrHistogram's
 * 1/(1-p) axis, and time series.
 *
 * Axes: linear or log10 (values <= 0 are not drawn on a log axis); with
 * x_percentile the x values are percentiles p (0 <= p < 100) placed at
 * log10(1 / (1 - p/100)) and labelled "90", "99", "99.9" ... (the axis
 * label carries the %), the axis ending just past the last tail and a
 * label that would touch its left neighbour left out.  Tick numbers are
 * np_chart_tick_text's ("100,000", "1M").  Every
 * point is also a marker, so a series of one point still shows.  A point
 * may carry a mark (np_chart_xy_mark): drawn from failed runs (a cross
 * over it) or backed by fewer than half of its runs (a ring round
 * it); the legend names each mark the chart uses (mark_name).  The
 * output is a pure function of the description.
 */
#ifndef NP_CHART_XY_H
#define NP_CHART_XY_H

#include <stddef.h>

#include "np_err.h"

#define NP_CHART_XY_MAX_SERIES 8

/* What a point stands for, when it is not a plain median of passed runs. */
enum np_chart_xy_mark {
  NP_CHART_XY_PLAIN = 0,    /* no mark                                  */
  NP_CHART_XY_FAILED = 1,   /* drawn from failed runs only: a cross      */
  NP_CHART_XY_MINORITY = 2, /* fewer than half of its runs passed: a ring */
  NP_CHART_XY_MARKS_
};

struct np_chart_xy_series {
  const char *name; /* legend text                              */
  size_t n;         /* points                                   */
  const double *x;  /* n x values (NAN = skipped)               */
  const double *y;  /* n y values (NAN = skipped)               */
  int style;        /* colour 0..7 (np_chart's palette)         */
  const enum np_chart_xy_mark *mark; /* n marks, or NULL: all plain */
};

struct np_chart_xy {
  const char *title;       /* first line                                */
  const char *subtitle;    /* conditions                                */
  const char *xlabel;      /* x axis label with unit                    */
  const char *ylabel;      /* y axis label with unit                    */
  const char *const *caption; /* NULL-terminated lines, or NULL         */
  const char *stamp;       /* NULL, or a warning above the title        */
  int log_x, log_y;        /* 1 = log10 axis                            */
  int x_percentile;        /* x values are percentiles (see the top)    */
  double vline_x;          /* a vertical marker at this x (NAN = none)  */
  const char *vline_label; /* its label                                 */
  const char *mark_name[NP_CHART_XY_MARKS_]; /* legend text of each mark
                              (index: the mark; NULL: not in the legend)  */
  size_t nseries;          /* 1 .. NP_CHART_XY_MAX_SERIES               */
  const struct np_chart_xy_series *series;
};

/* Render c; *out is a malloc'd NUL-terminated SVG (caller frees).
 * NP_EINVAL (no series, or no drawable point), NP_EPLOT, NP_EIO,
 * NP_ENOMEM. */
int np_chart_xy_svg(const struct np_chart_xy *c, char **out, size_t *out_len,
                    struct np_errbuf *eb);

#endif /* NP_CHART_XY_H */
