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
 * Layout (in normalised page coordinates): title and subtitle on top, plot
 * viewport in the middle, legend right of the viewport, category labels,
 * axis label and caption below.
 */
#include "np_chart.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plplot.h>

#include "np_file.h"

#define CHART_W 960      /* page width, px                          */
#define CHART_H 600      /* page height, px                         */
#define MAX_SERIES 8     /* palette entries                         */
#define COL_BG 0         /* cmap0 index: white background           */
#define COL_FG 1         /* cmap0 index: black text and axes        */
#define COL_GRID 2       /* cmap0 index: light grey grid            */
#define COL_SERIES 3     /* cmap0 index of the first series colour  */
#define MAX_SVG_BYTES ((size_t)16 << 20) /* plplot's output read back  */

/* Okabe & Ito (2008) colour-blind-safe palette, most distinct first. */
static const int okabe_ito[MAX_SERIES][3] = {
    {0x00, 0x72, 0xB2}, /* blue           */
    {0xE6, 0x9F, 0x00}, /* orange         */
    {0x00, 0x9E, 0x73}, /* bluish green   */
    {0xD5, 0x5E, 0x00}, /* vermillion     */
    {0x56, 0xB4, 0xE9}, /* sky blue       */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0xF0, 0xE4, 0x42}, /* yellow         */
    {0x00, 0x00, 0x00}, /* black          */
};

/* plplot treats '#' as its text escape; double it so labels print as-is. */
static char *pl_text(const char *s) {
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

/* plmtex with '#' escaped; allocation failure only loses the label. */
static void mtex(const char *side, double disp, double pos, double just,
                 const char *text) {
  char *t = pl_text(text);
  if (t != NULL)
    plmtex(side, disp, pos, just, t);
  free(t);
}

static int svg_device_present(void) {
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

/* Axis numbers for people: thousands separators, no exponent; log axes get
 * the power of ten itself. */
static void label_fn(PLINT axis, PLFLT value, char *label, PLINT length,
                     PLPointer data) {
  const int *log_y = data;
  (void)axis;
  double v = *log_y ? pow(10, value) : value;
  double iv = round(v);
  if (fabs(v - iv) > 1e-9 * (fabs(v) + 1) || fabs(v) < 1) {
    snprintf(label, (size_t)length, "%g", v);
    return;
  }
  char digits[32], grouped[48];
  snprintf(digits, sizeof digits, "%.0f", fabs(iv));
  size_t nd = strlen(digits), k = 0;
  if (iv < 0)
    grouped[k++] = '-';
  for (size_t i = 0; i < nd; i++) {
    if (i > 0 && (nd - i) % 3 == 0)
      grouped[k++] = ',';
    grouped[k++] = digits[i];
  }
  grouped[k] = '\0';
  snprintf(label, (size_t)length, "%s", grouped);
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

/* Draw bars and error bars of every series in world coordinates where
 * category i spans [i, i+1]. */
static void draw_bars(const struct np_chart *c, double ybase) {
  const double group = 0.8, w = group / (double)c->nseries;
  for (size_t s = 0; s < c->nseries; s++) {
    const struct np_chart_series *se = &c->series[s];
    for (size_t i = 0; i < c->ncat; i++) {
      double m = se->mid[i];
      double x0 = (double)i + (1 - group) / 2 + w * (double)s;
      if (c->log_y && m == 0) {
        /* Zero has no place on a log axis: say it at the base. */
        plcol0(COL_FG);
        plptex(x0 + w / 2, ybase + 0.1, 0, 0, 0.5, "0");
        continue;
      }
      if (!isfinite(m) || (c->log_y && m <= 0))
        continue;
      double xs[4] = {x0 + w * 0.06, x0 + w * 0.06, x0 + w * 0.94,
                      x0 + w * 0.94};
      double ys[4] = {ybase, ymap(c, m), ymap(c, m), ybase};
      plcol0(COL_SERIES + (int)s);
      plfill(4, xs, ys);
      if (se->lo != NULL && se->hi != NULL && isfinite(se->lo[i]) &&
          isfinite(se->hi[i]) && (!c->log_y || se->lo[i] > 0)) {
        double xc = x0 + w / 2, lo = ymap(c, se->lo[i]),
               hi = ymap(c, se->hi[i]);
        plcol0(COL_FG);
        plwidth(1.5);
        plerry(1, &xc, &lo, &hi);
        plwidth(1.0);
      }
    }
  }
}

static void draw_legend(const struct np_chart *c) {
  int n = (int)c->nseries;
  PLINT opt[MAX_SERIES], tcol[MAX_SERIES], bcol[MAX_SERIES], pat[MAX_SERIES];
  PLFLT scale[MAX_SERIES], lw[MAX_SERIES];
  const char *text[MAX_SERIES];
  char *owned[MAX_SERIES] = {0};
  for (int i = 0; i < n; i++) {
    opt[i] = PL_LEGEND_COLOR_BOX;
    tcol[i] = COL_FG;
    bcol[i] = COL_SERIES + i;
    pat[i] = 0;
    scale[i] = 0.9;
    lw[i] = 1;
    owned[i] = pl_text(c->series[i].name);
    text[i] = owned[i] ? owned[i] : "";
  }
  PLFLT lw_out, lh_out;
  /* Outside-top places the legend's bottom on the viewport's top edge;
   * shift it down by its own height (rows of about 0.06 viewport units). */
  double lh_guess = 0.065 * n + 0.02;
  plscol0a(COL_BG, 255, 255, 255, 1.0);
  pllegend(&lw_out, &lh_out, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_RIGHT | PL_POSITION_TOP | PL_POSITION_OUTSIDE |
               PL_POSITION_VIEWPORT,
           0.02, -lh_guess, 0.05, COL_BG, COL_FG, 1, n, 1, n, opt, 0.8, 0.9, 2.0,
           0.0, tcol, text, bcol, pat, scale, lw, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL);
  for (int i = 0; i < n; i++)
    free(owned[i]);
}

/* Everything drawn on an initialised stream. */
static void draw_chart(const struct np_chart *c, const char *caption) {
  double vmin = 0, vmax = 1;
  int any = data_range(c, &vmin, &vmax);
  double ylo, yhi;
  if (c->log_y) {
    ylo = any ? floor(log10(vmin)) : 0;
    yhi = any ? log10(vmax * 1.6) : 1;
    if (yhi <= ylo)
      yhi = ylo + 1;
  } else {
    double step;
    ylo = 0;
    yhi = nice_top(any ? vmax * 1.05 : 1, &step);
  }
  pladv(0);
  /* The legend sits right of the viewport: leave it room for the longest
   * series name (about 0.011 of the page width per character). */
  size_t longest = 0;
  for (size_t i = 0; i < c->nseries; i++)
    if (c->series[i].name && strlen(c->series[i].name) > longest)
      longest = strlen(c->series[i].name);
  double right = longest > 9 ? 0.87 - 0.01 * (double)longest : 0.78;
  if (right > 0.78)
    right = 0.78;
  if (c->notes)
    plvpor(0.14, right, 0.25, 0.84);
  else
    plvpor(0.15, right, 0.20, 0.84);
  plwind(0, (double)c->ncat, ylo, yhi);
  plcol0(COL_GRID);
  plbox("", 0, 0, c->log_y ? "gl" : "g", 0, 0);
  draw_bars(c, ylo);
  plcol0(COL_FG);
  int log_y = c->log_y;
  plslabelfunc(label_fn, &log_y);
  plbox("bc", 0, 0, c->log_y ? "bcnostlv" : "bcnostv", 0, 0);
  plslabelfunc(NULL, NULL);
  /* Many categories with notes: smaller labels so neighbours never touch. */
  plschr(0, c->notes && c->ncat > 4 ? 0.8 : 1.0);
  for (size_t i = 0; i < c->ncat; i++)
    mtex("b", 1.4, ((double)i + 0.5) / (double)c->ncat, 0.5,
         c->categories[i]);
  /* Notes: a second line under each category label. */
  for (size_t i = 0; c->notes != NULL && i < c->ncat; i++)
    mtex("b", 2.9, ((double)i + 0.5) / (double)c->ncat, 0.5,
         c->notes[i] ? c->notes[i] : "");
  plschr(0, 1.0);
  mtex("b", c->notes ? 4.1 : 3.0, 0.5, 0.5, c->xlabel ? c->xlabel : "");
  mtex("l", c->notes ? 7.0 : 8.0, 0.5, 0.5, c->ylabel ? c->ylabel : "");
  plschr(0, 1.25);
  mtex("t", 3.2, 0.5, 0.5, c->title ? c->title : "");
  plschr(0, 1.0);
  mtex("t", 1.4, 0.5, 0.5, c->subtitle ? c->subtitle : "");
  plschr(0, 0.9);
  mtex("b", c->notes ? 6.0 : 5.0, 0.0, 0.0, caption);
  plschr(0, 1.0);
  draw_legend(c);
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
static int open_stream(const char *path, struct np_errbuf *eb) {
  if (!svg_device_present())
    return np_errbuf_set(eb, NP_EPLOT,
                         "plplot: the \"svg\" output device is not "
                         "installed (Debian package libplplot17)");
  plsdev("svg");
  plsfnam(path);
  plspause(0);
  char geom[32];
  snprintf(geom, sizeof geom, "%dx%d", CHART_W, CHART_H);
  plsetopt("geometry", geom);
  plscmap0n(COL_SERIES + MAX_SERIES);
  plscol0(COL_BG, 255, 255, 255);
  plscol0(COL_FG, 0, 0, 0);
  plscol0(COL_GRID, 0xDD, 0xDD, 0xDD);
  for (int i = 0; i < MAX_SERIES; i++)
    plscol0(COL_SERIES + i, okabe_ito[i][0], okabe_ito[i][1],
            okabe_ito[i][2]);
  plscolbg(255, 255, 255);
  plinit();
  plfont(1);
  plschr(0, 1.0);
  return 0;
}

int np_chart_render_svg(const struct np_chart *c, char **out, size_t *out_len,
                        struct np_errbuf *eb) {
  int rc = validate(c, eb);
  if (rc != 0)
    return rc;
  char caption_buf[160];
  const char *caption = c->caption;
  if (caption == NULL) {
    snprintf(caption_buf, sizeof caption_buf,
             "bars: median of %d runs; error bars: min/max, not confidence "
             "intervals",
             c->runs);
    caption = caption_buf;
  }
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
  rc = open_stream(path, eb);
  if (rc == 0)
    draw_chart(c, caption);
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
  char desc[1024];
  snprintf(desc, sizeof desc, "%s. %s. %s.", c->subtitle ? c->subtitle : "",
           c->ylabel ? c->ylabel : "", caption);
  rc = np_svg_add_title_desc(raw, c->title ? c->title : "chart", desc, out,
                             out_len);
  free(raw);
  if (rc != 0)
    np_errbuf_set(eb, rc, "chart: plplot's output has no <svg> element");
remove_tmp:
  unlink(path);
  return rc;
}
