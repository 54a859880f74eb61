/*
 * np_chart_xy.c - line charts through plplot's "svg" device (see
 * np_chart_xy.h), drawn in the frame np_chart.c renders bar charts in
 * (np_chart_int.h: page, palette, text helpers, temporary file).
 *
 * Layout in millimetres of the page: stamp, title and wrapped subtitle on
 * top, the legend right of the plot (a short line and marker per series),
 * the x label and wrapped caption below.  Ranges are padded by 5 % on a
 * linear axis and a tenth of a decade on a log one; a log axis shows
 * whole decades.
 */
#include "np_chart_xy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "np_chart.h"
#include "np_chart_int.h"

static double map(double v, int log_axis) {
  if (!isfinite(v) || (log_axis && v <= 0))
    return NAN;
  return log_axis ? log10(v) : v;
}

static double xmap(const struct np_chart_xy *c, double v) {
  if (c->x_percentile)
    return isfinite(v) && v >= 0 && v < 100 ? log10(1.0 / (1.0 - v / 100.0))
                                             : NAN;
  return map(v, c->log_x);
}

/* Ranges of the mapped values; 0 when no point is drawable. */
static int ranges(const struct np_chart_xy *c, double r[4]) {
  int any = 0;
  for (size_t s = 0; s < c->nseries; s++)
    for (size_t i = 0; i < c->series[s].n; i++) {
      double x = xmap(c, c->series[s].x[i]);
      double y = map(c->series[s].y[i], c->log_y);
      if (!isfinite(x) || !isfinite(y))
        continue;
      if (!any || x < r[0])
        r[0] = x;
      if (!any || x > r[1])
        r[1] = x;
      if (!any || y < r[2])
        r[2] = y;
      if (!any || y > r[3])
        r[3] = y;
      any = 1;
    }
  double vx = xmap(c, c->vline_x);
  if (any && isfinite(vx)) {
    r[0] = fmin(r[0], vx);
    r[1] = fmax(r[1], vx);
  }
  return any;
}

static void pad(double *lo, double *hi, int log_axis, int from_zero) {
  if (log_axis) {
    *lo = floor(*lo - 0.1);
    *hi = ceil(*hi + 0.1);
    if (*hi <= *lo)
      *hi = *lo + 1;
    return;
  }
  double span = *hi - *lo;
  if (span <= 0)
    span = fabs(*hi) > 0 ? fabs(*hi) : 1;
  if (from_zero && *lo >= 0)
    *lo = 0;
  else
    *lo -= 0.05 * span;
  *hi += 0.05 * span;
}

/* Tick labels: log axes show 10^k as plain numbers (np_chart_tick_text),
 * the percentile axis p (in %: the axis label says so) for
 * 1 / (1 - p) = 10^k, each label only where
 * it does not touch the one left of it (the labels grow longer to the
 * right: "99.999%", "99.9999%"). */
struct axes {
  int log_x, log_y, x_percentile; /* how each axis maps               */
  unsigned long skip;             /* percentile decades left unlabelled */
};

static void percentile_text(char *label, size_t length, double value) {
  double p = 100.0 * (1.0 - pow(10.0, -value));
  int digits = (int)lround(value) - 2; /* 90, 99, 99.9, 99.99 ... */
  snprintf(label, length, "%.*f", digits > 0 ? digits : 0, p);
}

static void label_fn(PLINT axis, PLFLT value, char *label, PLINT length,
                     PLPointer data) {
  const struct axes *a = data;
  if (axis == PL_X_AXIS && a->x_percentile) {
    long k = lround(value);
    if (k >= 0 && k < 64 && (a->skip >> k & 1))
      label[0] = '\0';
    else
      percentile_text(label, (size_t)length, value);
    return;
  }
  int lg = axis == PL_X_AXIS ? a->log_x : a->log_y;
  np_chart_tick_text(label, (size_t)length, lg ? pow(10.0, value) : value);
}

/* Decades of the percentile axis [x0, x1] (world) over w mm whose label
 * would touch the label drawn left of it. */
static unsigned long percentile_skip(double x0, double x1, double w) {
  unsigned long skip = 0;
  double last = -1e9, per = w / (x1 - x0);
  char t[32];
  for (long k = (long)ceil(x0); k <= (long)floor(x1) && k < 64; k++) {
    percentile_text(t, sizeof t, (double)k);
    double half = np_chart_text_mm(t, 0.95) / 2, at = ((double)k - x0) * per;
    if (at - half < last + 2.0)
      skip |= 1ul << k;
    else
      last = at + half;
  }
  return skip;
}

/* Width in mm of the widest y tick label of the range [y0, y1]. */
static double ytick_mm(const struct axes *a, double y0, double y1) {
  char t[64];
  double w = 0;
  if (a->log_y) { /* every decade: "100,000" is wider than "1M" */
    for (double k = floor(y0); k <= ceil(y1) && k - floor(y0) < 64; k++) {
      np_chart_tick_text(t, sizeof t, pow(10.0, k));
      w = fmax(w, np_chart_text_mm(t, 0.95));
    }
    return w;
  }
  double ends[2] = {y0, y1}; /* linear: the widest is at an end */
  for (int i = 0; i < 2; i++) {
    np_chart_tick_text(t, sizeof t, ends[i]);
    w = fmax(w, np_chart_text_mm(t, 0.95));
  }
  return w;
}

/* A point's mark (np_chart_xy_mark) at world (x, y), drawn as lines so
 * it centres on the point: a red cross over a point drawn from failed
 * runs, a ring round one most of whose runs failed; sx, sy are world
 * units per mm.  Leaves colour and width changed. */
static void mark_at(double x, double y, enum np_chart_xy_mark m, double sx,
                    double sy) {
  const double R = 2.8; /* mm */
  plwidth(1.4);
  plcol0(COL_FG);
  if (m == NP_CHART_XY_FAILED) {
    double ax[2] = {x - R * sx, x + R * sx}, ay[2] = {y - R * sy, y + R * sy};
    double by[2] = {y + R * sy, y - R * sy};
    plline(2, ax, ay);
    plline(2, ax, by);
    return;
  }
  enum { NSEG = 24 };
  double cx[NSEG + 1], cy[NSEG + 1];
  for (int k = 0; k <= NSEG; k++) {
    double t = 2 * M_PI * k / NSEG;
    cx[k] = x + R * sx * cos(t);
    cy[k] = y + R * sy * sin(t);
  }
  plline(NSEG + 1, cx, cy);
}

/* The legend box at (lx, ly), top left, legend_w wide: one row per
 * series (its line and point), then one per mark that has a name. */
static void draw_legend(const struct np_chart_xy *c, double lx, double ly,
                        double legend_w) {
  double step = np_chart__line_h(0.9) + 1.0;
  size_t nmarks = 0;
  for (int m = 1; m < NP_CHART_XY_MARKS_; m++)
    nmarks += c->mark_name[m] != NULL;
  double lh = (double)(c->nseries + nmarks) * step + 2.5;
  double fx[5] = {lx, lx, lx + legend_w, lx + legend_w, lx},
         fy[5] = {ly, ly - lh, ly - lh, ly, ly};
  plcol0(COL_FG);
  plline(5, fx, fy);
  for (size_t s = 0; s < c->nseries; s++) {
    double cy = ly - 1.25 - ((double)s + 0.5) * step;
    double xs[2] = {lx + 2.5, lx + 10.5}, ys[2] = {cy, cy}, mx = lx + 6.5;
    plcol0(COL_SERIES + (c->series[s].style < 0 ? 0 : c->series[s].style) %
                            NCOLOURS);
    plwidth(1.6);
    plline(2, xs, ys);
    plpoin(1, &mx, &cy, 17);
    plwidth(0.6);
    plcol0(COL_FG);
    np_chart__text_at(lx + 13.0, cy, 1, 0, 0, 0.9, c->series[s].name);
  }
  for (int m = 1, row = (int)c->nseries; m < NP_CHART_XY_MARKS_; m++) {
    if (c->mark_name[m] == NULL)
      continue;
    double cy = ly - 1.25 - ((double)row++ + 0.5) * step, mx = lx + 6.5;
    mark_at(mx, cy, (enum np_chart_xy_mark)m, 1, 1);
    plwidth(0.6);
    plcol0(COL_FG);
    np_chart__text_at(lx + 13.0, cy, 1, 0, 0, 0.9, c->mark_name[m]);
  }
}

static void draw(const void *arg) {
  const struct np_chart_xy *c = arg;
  double r[4] = {0, 1, 0, 1};
  pladv(0);
  PLFLT sx0, sx1, sy0, sy1;
  plgspa(&sx0, &sx1, &sy0, &sy1);
  const double W = sx1 - sx0, H = sy1 - sy0;
  ranges(c, r);
  double xtop = r[1];
  pad(&r[0], &r[1], c->log_x || c->x_percentile, 0);
  if (c->x_percentile && r[0] < 0)
    r[0] = 0;
  /* the percentile axis ends a fifth of a decade past the last tail
   * (not at an empty decade whose label only crowds the last one's) */
  if (c->x_percentile && r[1] > xtop + 0.2)
    r[1] = xtop + 0.2;
  pad(&r[2], &r[3], c->log_y, 1);

  /* legend width from the names */
  double legend_w = 0;
  for (size_t s = 0; s < c->nseries; s++)
    legend_w = fmax(legend_w, np_chart_text_mm(c->series[s].name, 0.9));
  for (int m = 1; m < NP_CHART_XY_MARKS_; m++)
    if (c->mark_name[m] != NULL)
      legend_w = fmax(legend_w, np_chart_text_mm(c->mark_name[m], 0.9));
  legend_w += 16.0;
  struct axes ax = {c->log_x, c->log_y, c->x_percentile, 0};
  double left =
      MARGIN + np_chart__line_h(1.0) + 2.5 + ytick_mm(&ax, r[2], r[3]) + 2.0;
  double right = W - MARGIN - legend_w - 4.0;
  if (c->x_percentile)
    ax.skip = percentile_skip(r[0], r[1], right - left);
  double tw = W - 2 * MARGIN;
  struct lines sub = {.n = 0}, cap = {.n = 0};
  if (c->subtitle)
    np_chart__wrap(c->subtitle, 0.95, tw, &sub);
  for (size_t k = 0; c->caption && c->caption[k]; k++)
    np_chart__wrap(c->caption[k], 0.82, tw, &cap);
  double top = MARGIN + (c->stamp ? np_chart__line_h(1.0) : 0) +
               np_chart__line_h(1.2) + (double)sub.n * np_chart__line_h(0.95) +
               4.0;
  double bottom = MARGIN + (double)cap.n * np_chart__line_h(0.82) + 2.0 +
                  np_chart__line_h(1.0) + np_chart__line_h(0.95) + 4.0;

  plsvpa(left, right, bottom, H - top);
  plwind(r[0], r[1], r[2], r[3]);
  int xl = c->log_x || c->x_percentile;
  plcol0(COL_GRID);
  plbox(xl ? "gl" : "g", xl ? 1 : 0, 0, c->log_y ? "gl" : "g",
        c->log_y ? 1 : 0, 0);
  if (isfinite(xmap(c, c->vline_x))) {
    double vx = xmap(c, c->vline_x);
    double xs[2] = {vx, vx}, ys[2] = {r[2], r[3]};
    plcol0(COL_DASH + DASH_MUTED);
    plwidth(1.0);
    plline(2, xs, ys);
    plcol0(COL_MUTED);
    if (c->vline_label)
      np_chart__text_at(vx, r[3] - 0.04 * (r[3] - r[2]), 1, 0, 1.02, 0.8,
                        c->vline_label);
  }
  for (size_t s = 0; s < c->nseries; s++) {
    const struct np_chart_xy_series *se = &c->series[s];
    plcol0(COL_SERIES + (se->style < 0 ? 0 : se->style) % NCOLOURS);
    plwidth(1.6);
    double px[2], py[2];
    int have = 0;
    for (size_t i = 0; i < se->n; i++) {
      double x = xmap(c, se->x[i]), y = map(se->y[i], c->log_y);
      if (!isfinite(x) || !isfinite(y)) {
        have = 0; /* a gap: no line across a missing point */
        continue;
      }
      px[1] = x;
      py[1] = y;
      if (have)
        plline(2, px, py);
      plpoin(1, &px[1], &py[1], 17);
      if (se->mark != NULL && se->mark[i] != NP_CHART_XY_PLAIN) {
        mark_at(px[1], py[1], se->mark[i], (r[1] - r[0]) / (right - left),
                (r[3] - r[2]) / (H - top - bottom));
        plcol0(COL_SERIES + (se->style < 0 ? 0 : se->style) % NCOLOURS);
        plwidth(1.6);
      }
      px[0] = x;
      py[0] = y;
      have = 1;
    }
  }
  plwidth(0.6);
  plcol0(COL_FG);
  plschr(0, 0.95);
  plslabelfunc(label_fn, &ax);
  plbox(xl ? "bcnstlo" : "bcnsto", xl ? 1 : 0, 0,
        c->log_y ? "bcnstlvo" : "bcnstvo", c->log_y ? 1 : 0, 0);
  plslabelfunc(NULL, NULL);

  /* page text, world = mm */
  plsvpa(0, W, 0, H);
  plwind(0, W, 0, H);
  double y = H - MARGIN;
  if (c->stamp) {
    plcol0(COL_WARN);
    np_chart__text_at(W / 2, y - np_chart__line_h(1.0) / 2, 1, 0, 0.5, 1.0,
                      c->stamp);
    y -= np_chart__line_h(1.0);
  }
  plcol0(COL_FG);
  np_chart__text_at(W / 2, y - np_chart__line_h(1.2) / 2, 1, 0, 0.5, 1.2,
                    c->title ? c->title : "");
  y -= np_chart__line_h(1.2);
  for (size_t k = 0; k < sub.n; k++, y -= np_chart__line_h(0.95))
    np_chart__text_at(W / 2, y - np_chart__line_h(0.95) / 2, 1, 0, 0.5, 0.95,
                      sub.t[k]);
  double yb = bottom - np_chart__line_h(0.95) - 2.0;
  np_chart__text_at((left + right) / 2, yb - np_chart__line_h(1.0) / 2, 1, 0,
                    0.5, 1.0, c->xlabel ? c->xlabel : "");
  yb -= np_chart__line_h(1.0) + 2.0;
  for (size_t k = 0; k < cap.n; k++)
    np_chart__text_at(MARGIN, yb - ((double)k + 0.5) * np_chart__line_h(0.82),
                      1, 0, 0, 0.82, cap.t[k]);
  double ph = H - top - bottom;
  np_chart__text_at(MARGIN + np_chart__line_h(1.0) / 2, bottom + ph / 2, 0, 1,
                    0.5, 1.0, c->ylabel ? c->ylabel : "");
  draw_legend(c, right + 4.0, H - top, legend_w);
  plschr(0, 1.0);
}

int np_chart_xy_svg(const struct np_chart_xy *c, char **out, size_t *out_len,
                    struct np_errbuf *eb) {
  double r[4];
  if (c == NULL || c->nseries == 0 || c->nseries > NP_CHART_XY_MAX_SERIES ||
      c->series == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "chart: need 1..%d series",
                         NP_CHART_XY_MAX_SERIES);
  for (size_t s = 0; s < c->nseries; s++)
    if (c->series[s].name == NULL ||
        (c->series[s].n && (!c->series[s].x || !c->series[s].y)))
      return np_errbuf_set(eb, NP_EINVAL, "chart: series %zu has no points",
                           s);
  if (!ranges(c, r))
    return np_errbuf_set(eb, NP_EINVAL, "chart: no point can be drawn");
  char desc[2048];
  size_t k = (size_t)snprintf(desc, sizeof desc, "%s. %s against %s.",
                              c->subtitle ? c->subtitle : "",
                              c->ylabel ? c->ylabel : "y",
                              c->xlabel ? c->xlabel : "x");
  for (size_t i = 0; c->caption && c->caption[i] && k < sizeof desc; i++)
    k += (size_t)snprintf(desc + k, sizeof desc - k, " %s.", c->caption[i]);
  return np_chart__render(draw, c, c->title ? c->title : "chart", desc, out,
                          out_len, eb);
}
