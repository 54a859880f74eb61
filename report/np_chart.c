/*
 * np_chart.c - grouped min/max bar charts through plplot's "svg" device.
 *
 * plplot keeps its state in "streams"; each chart gets its own stream
 * (plmkstrm) that is ended (plend1) before returning, so no plplot state
 * survives between charts and the caller's stream is restored.  plplot
 * writes the SVG to a named file, so the chart goes to a private temporary
 * file that is read back and removed.  plplot would ask on stdin for a
 * device or a keypress only when none is set or pausing is on: the device
 * is set explicitly after checking it exists, and pausing is switched off.
 *
 * Layout, in millimetres of the 960 x 600 page (338.7 x 211.7 mm): the
 * optional stamp, the title and the (wrapped) subtitle on top; the legend
 * right of the plot, its top level with the plot's; category labels (each
 * on its own lines, shrunk to fit their slot), the axis label and the
 * (wrapped) caption below.  Every text position comes from the estimated
 * widths of np_chart_text.c, so nothing overlaps whatever the labels.
 * Text is drawn with plptex on a viewport spanning the page whose world
 * coordinates are millimetres; plptex centres text vertically on its point.
 */
#include "np_chart.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plplot.h>

#include "np_chart_int.h"
#include "np_file.h"

double np_chart__line_h(double scale) { return 1.32 * EM_MM * scale; }

/* plplot treats '#' as its text escape; double it so labels print as-is. */
char *np_chart__pl_text(const char *s) {
  size_t n = 0;
  for (const char *p = s; *p; p++)
    n += (*p == '#') ? 2 : 1;
  char *o = malloc(n + 1);
  if (o == NULL)
    return NULL;
  char *q = o;
  for (const char *p = s; *p; p++) {
    *q++ = *p;
    if (*p == '#')
      *q++ = '#';
  }
  *q = '\0';
  return o;
}

/* Text at (x, y) in the current world coordinates along (dx, dy); just 0
 * left, 0.5 centre, 1 right; allocation failure only loses the text. */
void np_chart__text_at(double x, double y, double dx, double dy, double just,
                       double scale, const char *s) {
  char *t = np_chart__pl_text(s);
  plschr(0, scale);
  if (t != NULL)
    plptex(x, y, dx, dy, just, t);
  free(t);
}

/* Greedy word wrap of s into out (appending) so no line is wider than
 * max_mm at scale; a word wider than that gets a line of its own. */
void np_chart__wrap(const char *s, double scale, double max_mm,
                    struct lines *out) {
  char line[LINE_LEN] = "";
  const char *p = s;
  while (*p && out->n < MAX_CAPTION) {
    const char *sp = strchr(p, ' ');
    size_t wl = sp ? (size_t)(sp - p) : strlen(p);
    char cand[2 * LINE_LEN + 2];
    size_t w = wl < LINE_LEN - 1 ? wl : LINE_LEN - 1;
    snprintf(cand, sizeof cand, "%s%s%.*s", line, line[0] ? " " : "", (int)w,
             p);
    if (line[0] && np_chart_text_mm(cand, scale) > max_mm) {
      memcpy(out->t[out->n++], line, strlen(line) + 1);
      memcpy(line, p, w);
      line[w] = '\0';
    } else {
      size_t cl = strlen(cand) < LINE_LEN - 1 ? strlen(cand) : LINE_LEN - 1;
      memcpy(line, cand, cl);
      line[cl] = '\0';
    }
    p += wl;
    while (*p == ' ')
      p++;
  }
  if (line[0] && out->n < MAX_CAPTION)
    snprintf(out->t[out->n++], LINE_LEN, "%s", line);
}

int np_chart__svg_device_present(void) {
  const char *menu[128], *names[128];
  const char **mp = menu, **np = names; /* plgDevs fills caller arrays */
  int n = 128;
  plgDevs(&mp, &np, &n);
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], "svg") == 0)
      return 1;
  return 0;
}

/* A "nice" tick step (1, 2, 2.5, 5 x 10^k) giving about 5 ticks up to v,
 * and the axis top: v rounded up to a whole number of steps. */
static double nice_top(double v, double *step) {
  if (!(v > 0))
    v = 1;
  double raw = v / 5, e = pow(10, floor(log10(raw)));
  const double steps[] = {1, 2, 2.5, 5, 10};
  double st = 10 * e;
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if (steps[i] * e >= raw * (1 - 1e-12)) {
      st = steps[i] * e;
      break;
    }
  *step = st;
  return ceil(v / st - 1e-9) * st;
}

/* Axis numbers for people (np_chart_tick_text); log axes get the power
 * of ten itself. */
static void label_fn(PLINT axis, PLFLT value, char *label, PLINT length,
                     PLPointer data) {
  const int *log_y = data;
  (void)axis;
  np_chart_tick_text(label, (size_t)length, *log_y ? pow(10, value) : value);
}

static unsigned mark_of(const struct np_chart_series *se, size_t i) {
  return se->marks ? se->marks[i] : 0;
}

/* A slot with no value and no mark in a category that has another bar. */
static int not_measured(const struct np_chart *c, size_t s, size_t i) {
  const struct np_chart_series *se = &c->series[s];
  if (isfinite(se->mid[i]) || mark_of(se, i) != 0)
    return 0;
  for (size_t k = 0; k < c->nseries; k++)
    if (isfinite(c->series[k].mid[i]) || mark_of(&c->series[k], i) != 0)
      return 1;
  return 0;
}

/* Data range over every drawn value (mid, lo, hi); 0 when none. */
static int data_range(const struct np_chart *c, double *vmin, double *vmax) {
  int any = 0;
  for (size_t s = 0; s < c->nseries; s++) {
    const struct np_chart_series *se = &c->series[s];
    for (size_t i = 0; i < c->ncat; i++) {
      const double v[3] = {se->mid[i], se->lo ? se->lo[i] : NAN,
                           se->hi ? se->hi[i] : NAN};
      for (int k = 0; k < 3; k++) {
        if (!isfinite(v[k]) || (c->log_y && v[k] <= 0))
          continue;
        if (!any || v[k] < *vmin)
          *vmin = v[k];
        if (!any || v[k] > *vmax)
          *vmax = v[k];
        any = 1;
      }
    }
  }
  return any;
}

static double ymap(const struct np_chart *c, double v) {
  return c->log_y ? log10(v) : v;
}

/* Fill the polygon in a style's colour and hatch, outline it thinly. */
static void styled_box(int style, int n, const double *xs, const double *ys) {
  int st = style < 0 ? 0 : style % NP_CHART_STYLES;
  plcol0(COL_SERIES + st % NCOLOURS);
  plpsty(0);
  plfill(n, xs, ys);
  int h = st % NHATCH;
  if (h > 0) { /* white lines show on black; np_svg_compact draws them */
    plcol0(COL_PAT + (h - 1) + (st % NCOLOURS == 7 ? PAT_WHITE : 0));
    plfill(n, xs, ys);
  }
  double lx[5] = {xs[0], xs[1], xs[2], xs[3], xs[0]},
         ly[5] = {ys[0], ys[1], ys[2], ys[3], ys[0]};
  plcol0(COL_FG);
  plwidth(0.6);
  plline(5, lx, ly);
  plwidth(1.0);
}

/* Geometry the bar marks need: world units per mm on both axes. */
struct plot_geom {
  double ylo, yhi;     /* world y range                      */
  double wx_mm, wy_mm; /* world units per mm (x, y)          */
  double base;         /* where bars start: ylo, or the ref  */
};

/* A vertical word in a dashed box standing on the axis (excluded,
 * missing) or alone (n/m). */
static void stub(const struct plot_geom *g, double x0, double x1,
                 const char *word, int boxed) {
  double bw_mm = (x1 - x0) / g->wx_mm;
  double sc = fmin(0.62, 0.85 * bw_mm / EM_MM);
  double len = np_chart_text_mm(word, sc) + 2.0;
  double top = g->ylo + len * g->wy_mm;
  if (boxed) {
    double xs[5] = {x0, x0, x1, x1, x0}, ys[5] = {g->ylo, top, top, g->ylo,
                                                  g->ylo};
    plcol0(COL_PAT + PAT_STUB);
    plfill(4, xs, ys);
    plcol0(COL_DASH + DASH_MUTED);
    plline(5, xs, ys);
  }
  plcol0(COL_FG);
  np_chart__text_at((x0 + x1) / 2, g->ylo + 1.0 * g->wy_mm, 0, 1, 0, sc, word);
}

/* Draw bars, error bars and marks of every series; category i spans
 * [i, i+1] in world x. */
static void draw_bars(const struct np_chart *c, const struct plot_geom *g) {
  const double group = 0.8, w = group / (double)c->nseries;
  for (size_t s = 0; s < c->nseries; s++) {
    const struct np_chart_series *se = &c->series[s];
    for (size_t i = 0; i < c->ncat; i++) {
      double m = se->mid[i];
      unsigned mk = mark_of(se, i);
      double x0 = (double)i + (1 - group) / 2 + w * (double)s;
      double bx0 = x0 + w * 0.06, bx1 = x0 + w * 0.94;
      if (mk & NP_CHART_EXCLUDED) {
        stub(g, bx0, bx1, "excluded", 1);
        continue;
      }
      if (mk & NP_CHART_MISSING) {
        stub(g, bx0, bx1, "missing", 1);
        continue;
      }
      if (not_measured(c, s, i)) {
        stub(g, bx0, bx1, "n/m", 0);
        continue;
      }
      if (c->log_y && m == 0) {
        /* Zero has no place on a log axis: say it at the base. */
        plcol0(COL_FG);
        np_chart__text_at(x0 + w / 2, g->ylo + 2.5 * g->wy_mm, 1, 0, 0.5, 0.8,
                          "0");
        continue;
      }
      if (!isfinite(m) || (c->log_y && m <= 0))
        continue;
      double xs[4] = {bx0, bx0, bx1, bx1};
      double ys[4] = {g->base, ymap(c, m), ymap(c, m), g->base};
      styled_box(se->style, 4, xs, ys);
      double lo = se->lo ? se->lo[i] : NAN, hi = se->hi ? se->hi[i] : NAN;
      int bars = isfinite(lo) && isfinite(hi) && (!c->log_y || lo > 0) &&
                 !(lo == hi && hi == m);
      if (bars) {
        double xc = x0 + w / 2, l = ymap(c, lo), h = ymap(c, hi);
        plcol0(COL_BG); /* a white halo keeps the bar visible on any fill */
        plwidth(3.2);
        plerry(1, &xc, &l, &h);
        plcol0(COL_FG);
        plwidth(1.3);
        plerry(1, &xc, &l, &h);
        plwidth(1.0);
      }
      if (mk & NP_CHART_UNSTABLE) {
        double lx[5] = {bx0, bx0, bx1, bx1, bx0},
               ly[5] = {g->base, ymap(c, m), ymap(c, m), g->base, g->base};
        plcol0(COL_DASH + DASH_FG);
        plwidth(2.6);
        plline(5, lx, ly);
        plwidth(1.0);
      }
      /* the dagger(s) well above the bar and its error bar, side by side
       * when both marks apply */
      if (mk & (NP_CHART_UNSTABLE | NP_CHART_MISSED)) {
        double top = bars ? fmax(ymap(c, m), ymap(c, hi)) : ymap(c, m);
        const char *sym = (mk & NP_CHART_UNSTABLE) && (mk & NP_CHART_MISSED)
                              ? "\xe2\x80\xa0 \xe2\x80\xa1"
                          : (mk & NP_CHART_UNSTABLE) ? "\xe2\x80\xa0"
                                                     : "\xe2\x80\xa1";
        plcol0(COL_FG);
        np_chart__text_at(x0 + w / 2, top + 4.6 * g->wy_mm, 1, 0, 0.5, 0.95,
                          sym);
      }
    }
  }
}

/* What the chart shows, as the caption's lines (before wrapping). */
static size_t caption_parts(const struct np_chart *c, const char **part,
                            char *first, size_t first_len, size_t max) {
  unsigned any = 0;
  int nm = 0;
  for (size_t s = 0; s < c->nseries; s++)
    for (size_t i = 0; i < c->ncat; i++) {
      any |= mark_of(&c->series[s], i);
      nm |= not_measured(c, s, i);
    }
  size_t n = 0;
  if (c->stamp && n < max)
    part[n++] = c->stamp;
  if (c->caption == NULL)
    np_chart_runs_caption(first, first_len, (size_t)c->runs, (size_t)c->runs,
                          "run", 0);
  else
    snprintf(first, first_len, "%s", c->caption);
  part[n++] = first;
  if (c->has_ref && c->ref_note && n < max)
    part[n++] = c->ref_note;
  if ((any & NP_CHART_UNSTABLE) && n < max)
    part[n++] = c->unstable_note
                    ? c->unstable_note
                    : "\xe2\x80\xa0 dashed outline: unstable, round trips/s "
                      "spread over 10 % across runs";
  if ((any & NP_CHART_EXCLUDED) && n < max)
    part[n++] = c->excluded_note ? c->excluded_note
                                 : "excluded: a repetition failed its checks; "
                                   "its records are kept, it is not ranked";
  if ((any & NP_CHART_MISSING) && n < max)
    part[n++] = "missing: planned but not run (the result set is incomplete)";
  if ((any & NP_CHART_MISSED) && n < max)
    part[n++] = c->missed_note
                    ? c->missed_note
                    : "\xe2\x80\xa1 interval target missed: the maximum "
                      "repetitions ran before the 95 % interval of the "
                      "median round trips/s was tight enough";
  if (nm && n < max)
    part[n++] = "n/m: not measured (no such configuration in the plan)";
  for (size_t k = 0; c->notes_extra && c->notes_extra[k] && n < max; k++)
    part[n++] = c->notes_extra[k];
  return n;
}

/* Lines of category i: its label, then the note split at ", ". */
static void category_lines(const struct np_chart *c, size_t i,
                           struct lines *l) {
  l->n = 0;
  snprintf(l->t[l->n++], LINE_LEN, "%s", c->categories[i]);
  const char *p = c->notes && c->notes[i] ? c->notes[i] : "";
  while (*p && l->n < MAX_LINES) {
    const char *e = strstr(p, ", ");
    size_t k = e ? (size_t)(e - p) : strlen(p);
    snprintf(l->t[l->n++], LINE_LEN, "%.*s", (int)k, p);
    p += k;
    if (*p)
      p += 2;
  }
}

/* The category labels under the plot: each one line and its notes'
 * lines, shrunk to fit their slot; labels that fit only below half size
 * are drawn upright instead, one line each ("c1 pool raw t2"), reading
 * upwards and ending under the axis (a compare chart's dozen
 * configurations: "reuseport" ran into its neighbours at the smallest
 * size). */
struct cat_labels {
  struct lines *cl;       /* per category: label and note lines    */
  char (*vl)[LINE_LEN];   /* per category: the upright line, or NULL */
  double csc, vsc;        /* character scale: level, upright         */
  double h;               /* height they take, mm                    */
};

static int cat_labels_layout(const struct np_chart *c, double cat_w,
                             struct cat_labels *L) {
  *L = (struct cat_labels){.cl = calloc(c->ncat, sizeof *L->cl), .csc = 1.0};
  if (L->cl == NULL)
    return NP_ENOMEM;
  size_t maxl = 1;
  for (size_t i = 0; i < c->ncat; i++) {
    category_lines(c, i, &L->cl[i]);
    maxl = L->cl[i].n > maxl ? L->cl[i].n : maxl;
    for (size_t k = 0; k < L->cl[i].n; k++)
      L->csc = fmin(L->csc, 0.92 * cat_w /
                                fmax(np_chart_text_mm(L->cl[i].t[k], 1), 1));
  }
  if (L->csc < 0.5 && (L->vl = calloc(c->ncat, sizeof *L->vl)) != NULL) {
    L->vsc = fmin(0.8, 0.8 * cat_w / np_chart__line_h(1.0));
    for (size_t i = 0; i < c->ncat; i++) {
      size_t k = 0;
      for (size_t j = 0; j < L->cl[i].n && k < LINE_LEN; j++)
        k += (size_t)snprintf(L->vl[i] + k, LINE_LEN - k, "%s%s",
                              j ? " " : "", L->cl[i].t[j]);
      L->h = fmax(L->h, np_chart_text_mm(L->vl[i], L->vsc));
    }
  }
  L->csc = fmax(L->csc, 0.5);
  if (L->vl == NULL)
    L->h = (double)maxl * np_chart__line_h(L->csc);
  return 0;
}

/* Draw them under the plot [left, left + ncat * cat_w], from yb down. */
static void cat_labels_draw(const struct np_chart *c,
                            const struct cat_labels *L, double left,
                            double cat_w, double yb) {
  for (size_t i = 0; i < c->ncat; i++) {
    double x = left + ((double)i + 0.5) * cat_w;
    if (L->vl != NULL) {
      np_chart__text_at(x, yb, 0, 1, 1.0, L->vsc, L->vl[i]);
      continue;
    }
    for (size_t k = 0; k < L->cl[i].n; k++)
      np_chart__text_at(x, yb - ((double)k + 0.5) * np_chart__line_h(L->csc), 1,
                        0, 0.5, L->csc, L->cl[i].t[k]);
  }
}

static void cat_labels_free(struct cat_labels *L) {
  free(L->cl);
  free(L->vl);
}

/* Everything drawn on an initialised stream. */
static void draw_chart(const struct np_chart *c) {
  double vmin = 0, vmax = 1;
  int any = data_range(c, &vmin, &vmax);
  double ylo, yhi;
  if (c->log_y) {
    ylo = any ? floor(log10(vmin)) : 0;
    yhi = any ? log10(vmax * 2.2) : 1;
    if (yhi <= ylo)
      yhi = ylo + 1;
  } else if (c->has_ref) {
    /* the data and the line, with a margin, on whole steps */
    double lo = any ? fmin(vmin, c->ref) : c->ref;
    double hi = any ? fmax(vmax, c->ref) : c->ref, step;
    double span = hi - lo > 0 ? hi - lo : 0.02 * fmax(fabs(c->ref), 1e-9);
    nice_top(span * 1.3, &step);
    ylo = floor((lo - 0.12 * span) / step) * step;
    yhi = ceil((hi + 0.12 * span) / step) * step;
  } else {
    double step;
    ylo = 0;
    yhi = nice_top(any ? vmax * 1.08 : 1, &step);
  }
  pladv(0);
  PLFLT sx0, sx1, sy0, sy1;
  plgspa(&sx0, &sx1, &sy0, &sy1);
  const double W = sx1 - sx0, H = sy1 - sy0, tw = W - 2 * MARGIN;

  /* top: stamp, title, subtitle */
  struct lines sub = {.n = 0};
  np_chart__wrap(c->subtitle ? c->subtitle : "", 0.95, tw, &sub);
  const char *title = c->title ? c->title : "";
  double tsc = fmin(1.25, tw / fmax(np_chart_text_mm(title, 1.0), 1));
  double top = MARGIN + (c->stamp ? np_chart__line_h(1.0) : 0) +
               np_chart__line_h(tsc) + (double)sub.n * np_chart__line_h(0.95) +
               3.0;

  /* right: legend */
  double lsc = 0.95, lmax = 0;
  for (size_t i = 0; i < c->nseries; i++)
    lmax = fmax(lmax, np_chart_text_mm(c->series[i].name, lsc));
  if (lmax > 0.26 * W) {
    lsc *= 0.26 * W / lmax;
    lmax = 0.26 * W;
  }
  const double box_w = 7.0, box_h = 4.2;
  double legend_w = 2.5 + box_w + 2.5 + lmax + 3.0;

  /* left: y tick labels and the y label */
  char tick[64];
  int log_y = c->log_y;
  label_fn(2, yhi, tick, sizeof tick, &log_y);
  double tick_w = np_chart_text_mm(tick, 0.95);
  label_fn(2, ylo, tick, sizeof tick, &log_y);
  tick_w = fmax(tick_w, np_chart_text_mm(tick, 0.95));
  for (double k = ceil(ylo); log_y && k <= yhi && k - ylo < 64; k++) {
    label_fn(2, k, tick, sizeof tick, &log_y); /* "100,000" under "1M" */
    tick_w = fmax(tick_w, np_chart_text_mm(tick, 0.95));
  }
  double left = MARGIN + np_chart__line_h(1.0) + 2.5 + tick_w + 2.0;
  double right = W - MARGIN - legend_w - 3.0;
  double cat_w = (right - left) / (double)c->ncat;

  /* bottom: category labels, x label, caption */
  struct cat_labels cl;
  if (cat_labels_layout(c, cat_w, &cl) != 0)
    return;
  const char *part[MAX_CAPTION];
  char first[320];
  size_t np = caption_parts(c, part, first, sizeof first, MAX_CAPTION);
  struct lines cap = {.n = 0};
  for (size_t k = 0; k < np; k++)
    np_chart__wrap(part[k], 0.82, tw, &cap);
  double bottom = MARGIN + (double)cap.n * np_chart__line_h(0.82) + 2.0 +
                  np_chart__line_h(1.0) + 1.5 + cl.h + 2.0;

  /* the plot */
  double ph = H - top - bottom;
  plsvpa(left, right, bottom, H - top);
  plwind(0, (double)c->ncat, ylo, yhi);
  int ref = c->has_ref && !c->log_y;
  struct plot_geom g = {.ylo = ylo, .yhi = yhi,
                        .wx_mm = (double)c->ncat / (right - left),
                        .wy_mm = (yhi - ylo) / ph,
                        .base = ref ? c->ref : ylo};
  plcol0(COL_GRID);
  plbox("", 0, 0, c->log_y ? "gl" : "g", 0, 0);
  draw_bars(c, &g);
  if (ref) {
    double rx[2] = {0, (double)c->ncat}, ry[2] = {c->ref, c->ref};
    plcol0(COL_DASH + DASH_FG);
    plwidth(1.6);
    plline(2, rx, ry);
    plwidth(1.0);
  }
  plcol0(COL_FG);
  plschr(0, 0.95);
  plslabelfunc(label_fn, &log_y);
  plbox("bc", 0, 0, c->log_y ? "bcnostlv" : "bcnostv", 0, 0);
  plslabelfunc(NULL, NULL);

  /* text and legend on the page, world = mm */
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
  np_chart__text_at(W / 2, y - np_chart__line_h(tsc) / 2, 1, 0, 0.5, tsc,
                    title);
  y -= np_chart__line_h(tsc);
  for (size_t k = 0; k < sub.n; k++, y -= np_chart__line_h(0.95))
    np_chart__text_at(W / 2, y - np_chart__line_h(0.95) / 2, 1, 0, 0.5, 0.95,
                      sub.t[k]);
  double yb = bottom - 2.0;
  cat_labels_draw(c, &cl, left, cat_w, yb);
  yb -= cl.h + 1.5;
  np_chart__text_at((left + right) / 2, yb - np_chart__line_h(1.0) / 2, 1, 0,
                    0.5, 1.0, c->xlabel ? c->xlabel : "");
  yb -= np_chart__line_h(1.0) + 2.0;
  for (size_t k = 0; k < cap.n; k++)
    np_chart__text_at(MARGIN, yb - ((double)k + 0.5) * np_chart__line_h(0.82),
                      1, 0, 0, 0.82, cap.t[k]);
  np_chart__text_at(MARGIN + np_chart__line_h(1.0) / 2, bottom + ph / 2, 0, 1,
                    0.5, 1.0, c->ylabel ? c->ylabel : "");
  /* legend: framed, top-aligned with the plot */
  double lx = right + 3.0, ly = H - top,
         step = fmax(np_chart__line_h(lsc), box_h + 2);
  double lh = (double)c->nseries * step + 2.5;
  double fx[5] = {lx, lx, lx + legend_w, lx + legend_w, lx},
         fy[5] = {ly, ly - lh, ly - lh, ly, ly};
  plcol0(COL_FG);
  plwidth(0.6);
  plline(5, fx, fy);
  for (size_t i = 0; i < c->nseries; i++) {
    double cy = ly - 1.25 - ((double)i + 0.5) * step;
    double bx[4] = {lx + 2.5, lx + 2.5, lx + 2.5 + box_w, lx + 2.5 + box_w};
    double by[4] = {cy - box_h / 2, cy + box_h / 2, cy + box_h / 2,
                    cy - box_h / 2};
    styled_box(c->series[i].style, 4, bx, by);
    plcol0(COL_FG);
    np_chart__text_at(lx + 2.5 + box_w + 2.5, cy, 1, 0, 0, lsc,
                      c->series[i].name);
  }
  plschr(0, 1.0);
  cat_labels_free(&cl);
}

static int validate(const struct np_chart *c, struct np_errbuf *eb) {
  if (c == NULL || c->ncat == 0 || c->categories == NULL ||
      c->nseries == 0 || c->nseries > MAX_SERIES || c->series == NULL)
    return np_errbuf_set(eb, NP_EINVAL,
                         "chart: need 1+ categories and 1..%d series",
                         MAX_SERIES);
  for (size_t s = 0; s < c->nseries; s++)
    if (c->series[s].mid == NULL || c->series[s].name == NULL)
      return np_errbuf_set(eb, NP_EINVAL, "chart: series %zu has no values",
                           s);
  return 0;
}

/* Set up a fresh plplot stream writing SVG to path; 0 or NP_EPLOT. */
int np_chart__open_stream(const char *path, struct np_errbuf *eb) {
  if (!np_chart__svg_device_present())
    return np_errbuf_set(eb, NP_EPLOT,
                         "plplot: the \"svg\" output device is not "
                         "installed (Debian package libplplot17)");
  plsdev("svg");
  plsfnam(path);
  plspause(0);
  char geom[32];
  snprintf(geom, sizeof geom, "%dx%d", CHART_W, CHART_H);
  plsetopt("geometry", geom);
  plscmap0n(COL_DASH + NDASH);
  plscol0(COL_BG, 255, 255, 255);
  plscol0(COL_FG, 0, 0, 0);
  plscol0(COL_GRID, 0xDD, 0xDD, 0xDD);
  plscol0(COL_MUTED, 0x66, 0x66, 0x66);
  plscol0(COL_WARN, 0xD5, 0x5E, 0x00);
  for (int i = 0; i < NCOLOURS; i++)
    plscol0(COL_SERIES + i, okabe_ito[i][0], okabe_ito[i][1],
            okabe_ito[i][2]);
  for (int k = 0; k < NPATTERN; k++)
    plscol0(COL_PAT + k, PAT_MARKER_R, PAT_MARKER_G, PAT_MARKER_B0 + k);
  for (int k = 0; k < NDASH; k++)
    plscol0(COL_DASH + k, DASH_MARKER_R, DASH_MARKER_G, DASH_MARKER_B0 + k);
  plscolbg(255, 255, 255);
  plinit();
  plfont(1);
  plschr(0, 1.0);
  return 0;
}

/* The <desc>: subtitle, axis and every caption line, one sentence each. */
static void describe(const struct np_chart *c, char *desc, size_t len) {
  const char *part[MAX_CAPTION];
  char first[320];
  size_t np = caption_parts(c, part, first, sizeof first, MAX_CAPTION);
  size_t k = (size_t)snprintf(desc, len, "%s. %s.",
                              c->subtitle ? c->subtitle : "",
                              c->ylabel ? c->ylabel : "");
  for (size_t i = 0; i < np && k < len; i++)
    k += (size_t)snprintf(desc + k, len - k, " %s.", part[i]);
}

static void draw_bar_chart(const void *arg) { draw_chart(arg); }

int np_chart_render_svg(const struct np_chart *c, char **out, size_t *out_len,
                        struct np_errbuf *eb) {
  int rc = validate(c, eb);
  if (rc != 0)
    return rc;
  char desc[2048];
  describe(c, desc, sizeof desc);
  return np_chart__render(draw_bar_chart, c, c->title ? c->title : "chart",
                          desc, out, out_len, eb);
}

int np_chart__render(void (*draw)(const void *), const void *arg,
                     const char *title, const char *desc, char **out,
                     size_t *out_len, struct np_errbuf *eb) {
  int rc;
  const char *tmpdir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/np-chart-XXXXXX.svg",
           tmpdir && tmpdir[0] ? tmpdir : "/tmp");
  int fd = mkstemps(path, 4);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno),
                         "chart: temporary file: %s", strerror(errno));
  close(fd);

  PLINT prev = 0, strm = 0;
  plgstrm(&prev);
  plmkstrm(&strm);
  if (strm < 0) {
    rc = np_errbuf_set(eb, NP_EPLOT, "plplot: no free stream");
    goto remove_tmp;
  }
  rc = np_chart__open_stream(path, eb);
  if (rc == 0)
    draw(arg);
  plend1();
  plsstrm(prev);
  if (rc != 0)
    goto remove_tmp;

  char *raw = NULL;
  size_t raw_len = 0;
  struct np_errbuf feb;
  rc = np_file_read_all(path, MAX_SVG_BYTES, &raw, &raw_len, &feb);
  if (rc != 0) {
    np_errbuf_set(eb, rc, "chart: reading plplot's SVG: %s", feb.msg);
    goto remove_tmp;
  }
  char *svg = NULL;
  size_t svg_len = 0;
  rc = np_svg_compact(raw, &svg, &svg_len);
  free(raw);
  if (rc == 0)
    rc = np_svg_add_title_desc(svg, title, desc, out, out_len);
  free(svg);
  if (rc != 0)
    np_errbuf_set(eb, rc, "chart: plplot's output has no <svg> element");
remove_tmp:
  unlink(path);
  return rc;
}
