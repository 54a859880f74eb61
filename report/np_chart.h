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
 * A chart says everything a reader needs without the page around it:
 *   - each series has one style (np_chart_style: an Okabe-Ito colour and a
 *     hatch, so greyscale print still tells series apart) chosen by the
 *     caller from the series *name*, never from its position;
 *   - a bar marked NP_CHART_UNSTABLE gets a dashed outline and a dagger;
 *     NP_CHART_EXCLUDED draws an "excluded" stub (a repetition failed:
 *     measured, kept, not ranked); NP_CHART_MISSING a "missing" stub
 *     (planned, not run); an empty slot of a category another series has is
 *     labelled "n/m" (not measured: not in the plan);
 *   - bars of one run have no error bars and the caption says so;
 *   - a ratio chart draws a reference line (has_ref: 1.0, "no change")
 *     and grows each bar from it, so 0.97 and 1.03 read apart;
 *   - the caption lines explain every mark that appears, then the caller's
 *     notes; a stamp (e.g. "SELF-CHECK FAILED") is drawn above the title and
 *     starts the caption.
 * Layout is computed in millimetres from estimated text widths, so the
 * legend sits beside the plot below the subtitle, long subtitles and
 * captions wrap, and category labels shrink or wrap instead of touching.
 */
#ifndef NP_CHART_H
#define NP_CHART_H

#include <stddef.h>

#include "np_err.h"

/* Marks of one bar (bits of np_chart_series.marks[i]). */
enum np_chart_mark {
  NP_CHART_UNSTABLE = 1, /* value drawn, dashed outline + dagger          */
  NP_CHART_EXCLUDED = 2, /* no value: a repetition failed                 */
  NP_CHART_MISSING = 4,  /* no value: planned but not run (incomplete)    */
  NP_CHART_MISSED = 8    /* value drawn, double dagger: an until-stable
                          * configuration that reached its maximum
                          * repetitions without the interval target       */
};

/* Number of distinct styles before colour and hatch repeat together. */
#define NP_CHART_STYLES 40

/* One series: ncat values each (NAN = no bar in that category). */
struct np_chart_series {
  const char *name;            /* legend text                             */
  const double *mid;           /* bar height (median)                     */
  const double *lo;            /* error-bar low (min); NULL = none        */
  const double *hi;            /* error-bar high (max); NULL = none; a
                                * NAN lo/hi or lo == hi == mid draws none */
  const unsigned char *marks;  /* NULL or ncat enum np_chart_mark bits    */
  int style;                   /* 0..NP_CHART_STYLES-1, fixed by name     */
};

struct np_chart {
  const char *title;     /* first line, e.g. "UDP round trips/s by IO model" */
  const char *subtitle;  /* conditions: payload, clients, window, machine    */
  const char *xlabel;    /* x axis label                                     */
  const char *ylabel;    /* y axis label with unit                           */
  const char *caption;   /* first caption line (what bars and error bars
                          * are); NULL = np_chart_runs_caption(runs, runs)   */
  int runs;              /* N in the default caption                         */
  const char *unstable_note; /* why a bar is marked unstable; NULL = spread
                              * of round trips/s above 10 % across runs      */
  const char *excluded_note; /* why bars are excluded (failed checks)        */
  const char *missed_note;   /* what the double dagger says; NULL = default */
  const char *const *notes_extra; /* NULL-terminated caption lines or NULL  */
  const char *stamp;     /* NULL, or a warning drawn above the title         */
  int log_y;             /* 1 = logarithmic y axis (values <= 0 not drawn)   */
  int has_ref;           /* 1: a dashed line at ref, bars grow from it up or
                          * down, the y axis spans the data and ref only
                          * (a ratio chart: ref 1.0); linear axes only       */
  double ref;            /* the reference value                              */
  const char *ref_note;  /* caption line saying what the line is             */
  size_t ncat;           /* number of categories                             */
  const char *const *categories; /* ncat labels                              */
  const char *const *notes; /* NULL or ncat second lines under the category
                              * labels (", " starts another line)           */
  size_t nseries;        /* number of series (1..8)                          */
  const struct np_chart_series *series;
};

/* Render c as an SVG document.  On success *out is a malloc'd,
 * NUL-terminated SVG (caller frees) and *out_len its length.  Errors:
 * NP_EINVAL (bad description), NP_EPLOT (plplot or its svg device missing
 * or failing, detail in eb), NP_EIO, NP_ENOMEM. */
int np_chart_render_svg(const struct np_chart *c, char **out, size_t *out_len,
                        struct np_errbuf *eb);

/* The first caption line for bars of nmin..nmax values of `unit`
 * ("run", "round"): "bars: one run each, no error bars", "bars: median of 3
 * runs; error bars: min/max, not confidence intervals", "... of 1-3 runs".
 * of_one_process adds "of one process" (rounds of a single run). */
void np_chart_runs_caption(char *buf, size_t len, size_t nmin, size_t nmax,
                           const char *unit, int of_one_process);

/* The same for error bars that are 95 % percentile-bootstrap intervals
 * of the median ("... error bars: 95 % percentile-bootstrap confidence
 * interval of the median (10,000 resamples)"; exact: the set's intervals
 * come from the bootstrap distribution computed exactly, summary.json's
 * intervals.ci_method), saying that bars of fewer than 5 values have none
 * when nmin < 5. */
void np_chart_ci_caption(char *buf, size_t len, size_t nmin, size_t nmax,
                         const char *unit, int of_one_process, int exact);

/* An axis number for people (every chart's ticks): whole numbers below
 * a million with thousands separators ("20,000"), a million and more with
 * an SI prefix ("1M", "2.5M", "1.2G"; never "1e+06"), fractions as %g
 * ("0.5"). */
void np_chart_tick_text(char *buf, size_t len, double v);

/* Estimated width in mm of text at a plplot character scale (DejaVu Sans
 * advance widths; what the SVG viewers here draw). */
double np_chart_text_mm(const char *text, double scale);

/* Insert <title>title</title><desc>desc</desc> right after the opening
 * <svg ...> tag of svg (XML-escaped).  *out is malloc'd.  NP_EPARSE when
 * svg has no <svg element. */
int np_svg_add_title_desc(const char *svg, const char *title,
                          const char *desc, char **out, size_t *out_len);

/* plplot's SVG made compact: a fill in a pattern marker colour
 * (np_chart_int.h) becomes a fill referencing that <pattern>, defined once
 * in a <defs> right after <svg ...> with ids unique to this document's
 * content (charts are inlined together in HTML); a line in a dash marker
 * colour gets its ink and a stroke-dasharray; every decimal number in
 * an attribute is printed with at most 2 decimals (0.01 px), trailing
 * zeros dropped ("1.000000e+00" -> "1").  Byte-deterministic and
 * locale-independent.  *out is malloc'd.  NP_EPARSE when svg has no <svg
 * element, NP_ENOMEM. */
int np_svg_compact(const char *svg, char **out, size_t *out_len);

#endif /* NP_CHART_H */
