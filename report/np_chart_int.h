/*
 * np_chart_int.h - what the chart renderers share (internal to report/):
 * the page, palette and text layout of np_chart.c, its text helpers, and
 * the render-to-SVG frame (a private plplot stream writing a temporary
 * file read back with <title> and <desc> added).  np_chart.c draws bar
 * charts on it, np_chart_xy.c line charts.
 */
#ifndef NP_CHART_INT_H
#define NP_CHART_INT_H

#include <stddef.h>

#include "np_err.h"

#define CHART_W 960      /* page width, px                          */
#define CHART_H 600      /* page height, px                         */
#define MAX_SERIES 8     /* series per chart                        */
#define NCOLOURS 8       /* palette entries                         */
#define NHATCH 5         /* hatches of a style (0 = none)           */
#define COL_BG 0         /* cmap0 index: white background           */
#define COL_FG 1         /* cmap0 index: black text and axes        */
#define COL_GRID 2       /* cmap0 index: light grey grid            */
#define COL_MUTED 3      /* cmap0 index: grey of marks              */
#define COL_WARN 4       /* cmap0 index: the stamp (vermillion)     */
#define COL_SERIES 5     /* cmap0 index of the first series colour  */
#define MAX_SVG_BYTES ((size_t)16 << 20) /* plplot's output read back  */
#define EM_MM 7.056      /* font size at character scale 1, mm      */
#define MARGIN 4.0       /* page margin, mm                         */
#define MAX_LINES 6      /* lines of one category label or caption  */
#define LINE_LEN 160     /* bytes of one laid-out line              */
#define MAX_CAPTION 12   /* caption lines                           */

/* Okabe & Ito (2008) colour-blind-safe palette, most distinct first. */
static const int okabe_ito[NCOLOURS][3] = {
    {0x00, 0x72, 0xB2}, /* blue           */
    {0xE6, 0x9F, 0x00}, /* orange         */
    {0x00, 0x9E, 0x73}, /* bluish green   */
    {0xD5, 0x5E, 0x00}, /* vermillion     */
    {0x56, 0xB4, 0xE9}, /* sky blue       */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0xF0, 0xE4, 0x42}, /* yellow         */
    {0x00, 0x00, 0x00}, /* black          */
};

/* Hatch fills, drawn as SVG <pattern>s rather than plplot's per-line
 * hatching (issue 33: 1,444 polylines per chart).  A chart fills the
 * region in the pattern's marker colour (cmap0 COL_PAT + k, an RGB no
 * palette entry has: PAT_MARKER_R/G, blue PAT_MARKER_B0 + k) and
 * np_svg_compact rewrites that fill to reference pattern k.  Lines run at
 * angle degrees counter-clockwise from the x axis (y up, as plplot draws),
 * gap px apart (2 mm on plplot's svg page: plpat's 2000 um), cross adds
 * the perpendicular lines.  Entries 0..3 are hatches 1..4 in black, 4..7
 * the same in white (on the black series), 8 the grey of a stub. */
#define NPATTERN 9
#define COL_PAT (COL_SERIES + NCOLOURS) /* cmap0 index of pattern 0's marker */
#define PAT_MARKER_R 0x01
#define PAT_MARKER_G 0x02
#define PAT_MARKER_B0 0x10
#define PAT_WHITE 4 /* offset of the white-line patterns              */
#define PAT_STUB 8  /* the light grey hatch of an excluded/missing stub */
static const struct {
  int angle;       /* degrees                                   */
  int cross;       /* 1: also the lines at angle + 90           */
  double gap;      /* distance between lines, px                */
  double width;    /* stroke width, px                          */
  const char *ink; /* stroke colour                             */
} np_chart_pattern[NPATTERN] = {
    {45, 0, 5.66, 0.4, "#000000"},  {-45, 0, 5.66, 0.4, "#000000"},
    {45, 1, 5.66, 0.4, "#000000"},  {0, 0, 5.66, 0.4, "#000000"},
    {45, 0, 5.66, 0.4, "#FFFFFF"},  {-45, 0, 5.66, 0.4, "#FFFFFF"},
    {45, 1, 5.66, 0.4, "#FFFFFF"},  {0, 0, 5.66, 0.4, "#FFFFFF"},
    {45, 0, 2.83, 1.0, "#DDDDDD"},
};

/* Dashed lines, drawn as one SVG polyline with stroke-dasharray rather than
 * plplot's polyline per dash (pllsty 2: 2.93 px on, 2.93 px off, carried
 * round corners as SVG does).  A chart draws the line solid in the dash's
 * marker colour (cmap0 COL_DASH + k: DASH_MARKER_R/G, blue DASH_MARKER_B0
 * + k) and np_svg_compact gives it its ink and dash pattern. */
#define NDASH 2
#define COL_DASH (COL_PAT + NPATTERN) /* cmap0 index of dash 0's marker */
#define DASH_MARKER_R 0x01
#define DASH_MARKER_G 0x03
#define DASH_MARKER_B0 0x10
#define DASH_LEN 2.93 /* px of one dash and of one gap                  */
#define DASH_FG 0     /* black: unstable outline, reference line      */
#define DASH_MUTED 1  /* grey: stub outline, marker line of xy charts */
static const char *const np_chart_dash_ink[NDASH] = {"#000000", "#666666"};

/* Lines of text laid out for drawing. */
struct lines {
  char t[MAX_CAPTION][LINE_LEN];
  size_t n;
};

double np_chart__line_h(double scale);
/* plplot's '#' escape doubled; malloc'd */
char *np_chart__pl_text(const char *s);
/* text at (x, y) in world coordinates along (dx, dy); just 0, 0.5, 1 */
void np_chart__text_at(double x, double y, double dx, double dy, double just,
                       double scale, const char *s);
/* greedy word wrap of s into out (appending), lines at most max_mm wide */
void np_chart__wrap(const char *s, double scale, double max_mm,
                    struct lines *out);
int np_chart__svg_device_present(void);
/* a fresh plplot stream on the svg device writing path, palette set */
int np_chart__open_stream(const char *path, struct np_errbuf *eb);

/* Render: a fresh stream, draw(arg), the SVG read back with title and desc
 * inserted into *out (malloc'd).  NP_EPLOT, NP_EIO, NP_ENOMEM. */
int np_chart__render(void (*draw)(const void *), const void *arg,
                     const char *title, const char *desc, char **out,
                     size_t *out_len, struct np_errbuf *eb);

#endif /* NP_CHART_INT_H */
