/*
 * np_chart.h - grouped bar charts with min/max error bars, as SVG.
 *
 * One chart = categories along the x axis (IO models, payloads, ...) and one
 * bar per series in each category (backends, windows, ...).  Bars show the
 * median of the repetitions, error bars their min and max.  Rendering goes
 * through plplot's native "svg" device into a temporary file that is read
 * back, then <title> and <desc> are inserted after the <svg> element so
 * screen readers and file browsers can name the chart.  The output is a
 * pure function of the chart description (no dates, no paths).
 *
 * Look: white background, Okabe-Ito colour-blind-safe palette, text at
 * least 12 px, conditions in the subtitle, and a caption line that says what
 * bars and error bars mean.
 */
#ifndef NP_CHART_H
#define NP_CHART_H

#include <stddef.h>

#include "np_err.h"

/* One series: ncat values each (NAN = no bar in that category). */
struct np_chart_series {
  const char *name;    /* legend text                          */
  const double *mid;   /* bar height (median)                  */
  const double *lo;    /* error-bar low (min); NULL = no bars  */
  const double *hi;    /* error-bar high (max); NULL = no bars */
};

struct np_chart {
  const char *title;     /* first line, e.g. "UDP round trips/s by IO model" */
  const char *subtitle;  /* conditions: payload, clients, window, machine    */
  const char *xlabel;    /* x axis label                                     */
  const char *ylabel;    /* y axis label with unit                           */
  const char *caption;   /* bottom line; NULL = the min/max caption with runs*/
  int runs;              /* N in "median of N runs"                          */
  int log_y;             /* 1 = logarithmic y axis (values <= 0 not drawn)   */
  size_t ncat;           /* number of categories                             */
  const char *const *categories; /* ncat labels                              */
  const char *const *notes; /* NULL or ncat second lines under the category
                              * labels (e.g. "budget 16 MiB / rcvbuf 8 MiB") */
  size_t nseries;        /* number of series (1..8)                          */
  const struct np_chart_series *series;
};

/* Render c as an SVG document.  On success *out is a malloc'd,
 * NUL-terminated SVG (caller frees) and *out_len its length.  Errors:
 * NP_EINVAL (bad description), NP_EPLOT (plplot or its svg device missing
 * or failing, detail in eb), NP_EIO, NP_ENOMEM. */
int np_chart_render_svg(const struct np_chart *c, char **out, size_t *out_len,
                        struct np_errbuf *eb);

/* Insert <title>title</title><desc>desc</desc> right after the opening
 * <svg ...> tag of svg (XML-escaped).  *out is malloc'd.  NP_EPARSE when
 * svg has no <svg element. */
int np_svg_add_title_desc(const char *svg, const char *title,
                          const char *desc, char **out, size_t *out_len);

#endif /* NP_CHART_H */
