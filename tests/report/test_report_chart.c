/*
 * test_report_chart.c - the plplot chart module: SVG with <title>/<desc>
 * first, identical bytes for identical input, colours from the Okabe-Ito
 * palette chosen by the series' style (not its position), white
 * background, NP_EINVAL for a bad description; every mark drawn and
 * explained in the caption (unstable, excluded, missing, n/m); one run
 * means no error bars and says so; no two texts of a crowded chart
 * overlap and the legend sits below the subtitle (issue 14, defects 2-5
 * and 7).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_chart_xy.h"
#include "np_test.h"
#include "svg_text.h"

static char *render_chart(const struct np_chart *c, size_t *len) {
  char *out = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_chart_render_svg(c, &out, len, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("render: %d %s", rc, eb.msg);
  return out;
}

static char *render(int log_y, size_t *len) {
  static const char *const cats[] = {"single", "split", "pool/2"};
  static const double m[] = {92515, 86611, NAN}, lo[] = {90000, 85000, NAN},
                      hi[] = {93000, 88000, NAN};
  static const double m2[] = {80000, 1, 100000};
  struct np_chart_series s[] = {{"uv", m, lo, hi, NULL, 0},
                                {"raw <&>", m2, NULL, NULL, NULL, 1}};
  struct np_chart c = {.title = "Round trips & more", .subtitle = "payload 1,024 B #1",
                       .xlabel = "IO model", .ylabel = "round trips / s",
                       .runs = 3, .log_y = log_y, .ncat = 3,
                       .categories = cats, .nseries = 2, .series = s};
  return render_chart(&c, len);
}

/* Every mark appears on the chart and its caption explains it. */
static void check_marks(void) {
  static const char *const cats[] = {"64 B", "1,024 B", "16,384 B"};
  static const double a[] = {100, NAN, NAN}, b[] = {120, 130, 140},
                      c3[] = {90, 95, NAN};
  static const unsigned char ma[] = {0, NP_CHART_EXCLUDED, NP_CHART_MISSING},
                             mb[] = {NP_CHART_UNSTABLE, 0, 0};
  struct np_chart_series s[] = {{"window 1", a, NULL, NULL, ma, 2},
                                {"window 16", b, NULL, NULL, mb, 3},
                                {"window 64", c3, NULL, NULL, NULL, 4}};
  struct np_chart c = {.title = "marks", .subtitle = "conditions",
                       .xlabel = "payload", .ylabel = "p99 RTT / \xce\xbcs",
                       .runs = 3, .excluded_note = "excluded: no_loss failed",
                       .stamp = "SELF-CHECK FAILED: not evidence", .ncat = 3,
                       .categories = cats, .nseries = 3, .series = s};
  size_t len;
  char *svg = render_chart(&c, &len);
  char *txt = svg_all_text(svg);
  ASSERT_NOT_NULL(txt);
  ASSERT_NOT_NULL(strstr(txt, "excluded\n"));      /* the stub          */
  ASSERT_NOT_NULL(strstr(txt, "missing\n"));
  ASSERT_NOT_NULL(strstr(txt, "n/m\n"));           /* window 64 at 16 KiB */
  ASSERT_NOT_NULL(strstr(txt, "\xe2\x80\xa0\n"));  /* the dagger        */
  ASSERT_NOT_NULL(strstr(txt, "excluded: no_loss failed"));
  ASSERT_NOT_NULL(strstr(txt, "\xe2\x80\xa0 dashed outline: unstable"));
  ASSERT_NOT_NULL(strstr(txt, "missing: planned but not run"));
  ASSERT_NOT_NULL(strstr(txt, "n/m: not measured"));
  ASSERT_NOT_NULL(strstr(txt, "SELF-CHECK FAILED: not evidence"));
  ASSERT_NOT_NULL(strstr(txt, "p99 RTT / \xce\xbcs"));
  free(txt);
  free(svg);
}

/* One run per bar: no error bars, and the caption says "one run". */
static void check_one_run(void) {
  static const char *const cats[] = {"single"};
  static const double m[] = {123905}, m2[] = {311514};
  struct np_chart_series s[] = {{"uv", m, m, m, NULL, 0},
                                {"raw", m2, m2, m2, NULL, 1}};
  struct np_chart c = {.title = "one", .subtitle = "60 s", .xlabel = "x",
                       .ylabel = "y", .runs = 1, .ncat = 1,
                       .categories = cats, .nseries = 2, .series = s};
  size_t len;
  char *svg = render_chart(&c, &len);
  char *txt = svg_all_text(svg);
  ASSERT_NOT_NULL(strstr(txt, "bars: one run each, no error bars"));
  ASSERT_TRUE(strstr(txt, "1 runs") == NULL);
  ASSERT_TRUE(strstr(txt, "min/max") == NULL);
  free(txt);
  free(svg);
  char cap[200];
  np_chart_runs_caption(cap, sizeof cap, 3, 3, "round", 1);
  ASSERT_STR_EQ(cap, "bars: median of 3 rounds of one process; error bars: "
                     "min/max, not confidence intervals");
  np_chart_runs_caption(cap, sizeof cap, 1, 3, "run", 0);
  ASSERT_NOT_NULL(strstr(cap, "median of 1-3 runs"));
}

/* The colour follows the style, not the position: a chart whose only
 * series has style 2 draws it bluish green, and nothing in blue. */
static void check_style(void) {
  static const char *const cats[] = {"random", "burst"};
  static const double m[] = {10, 20};
  struct np_chart_series s[] = {{"adaptive FEC", m, NULL, NULL, NULL, 2}};
  struct np_chart c = {.title = "style", .subtitle = "s", .xlabel = "x",
                       .ylabel = "y", .runs = 3, .ncat = 2,
                       .categories = cats, .nseries = 1, .series = s};
  size_t len;
  char *svg = render_chart(&c, &len);
  ASSERT_NOT_NULL(strstr(svg, "fill=\"#009E73\""));
  ASSERT_TRUE(strstr(svg, "fill=\"#0072B2\"") == NULL);
  free(svg);
}

/* Text boxes in page units from the estimated widths. */
static int overlap(const struct svg_text *a, const struct svg_text *b) {
  double wa = np_chart_text_mm(a->s, a->size / 20) * 2.8346,
         wb = np_chart_text_mm(b->s, b->size / 20) * 2.8346;
  double a0 = a->x - (a->anchor == 1 ? wa / 2 : a->anchor == 2 ? wa : 0),
         b0 = b->x - (b->anchor == 1 ? wb / 2 : b->anchor == 2 ? wb : 0);
  int xo = a0 < b0 + wb - 0.5 && b0 < a0 + wa - 0.5;
  int yo = fabs(a->y - b->y) < (a->size + b->size) / 2 * 0.9;
  return xo && yo;
}

/* A crowded chart (the payload x window RUDP chart of issue 14: six
 * categories with two note lines, long legend names, a long subtitle):
 * no two horizontal texts overlap ("16,384 B w116,384 B w64" ran
 * together), and the legend starts below the subtitle. */
static void check_layout(void) {
  static const char *const cats[] = {"random", "random", "random",
                                     "random", "random", "random"};
  static const char *const notes[] = {
      "64 B, window 1",      "64 B, window 64",     "4,096 B, window 1",
      "4,096 B, window 64",  "16,384 B, window 1",  "16,384 B, window 64"};
  static const double a[] = {143, 668, 81, 1753, 51, 501},
                      b[] = {144, 724, 159, 4322, 148, 1206},
                      c3[] = {142, 723, 158, 5205, 157, 1412};
  struct np_chart_series s[] = {{"ARQ only", a, NULL, NULL, NULL, 0},
                                {"fixed FEC", b, NULL, NULL, NULL, 1},
                                {"adaptive FEC", c3, NULL, NULL, NULL, 2}};
  struct np_chart c = {
      .title = "Reliable UDP round trips/s by strategy and condition",
      .subtitle = "4 clients, single, bbr, rounds 3 x 3 s, 127.0.0.1, set "
                  "vm-20261130-rudp-payload-window-with-a-long-label, "
                  "machine a-rather-long-host-name.example.org",
      .xlabel = "network condition: relay profile, payload, window",
      .ylabel = "round trips / s", .runs = 3, .ncat = 6,
      .categories = cats, .notes = notes, .nseries = 3, .series = s};
  size_t len;
  char *svg = render_chart(&c, &len);
  struct svg_text *t = calloc(SVG_MAX_TEXTS, sizeof *t);
  ASSERT_NOT_NULL(t);
  size_t n = svg_texts(svg, t, SVG_MAX_TEXTS);
  ASSERT_GT(n, 20);
  double sub_bottom = 0, legend_top = 1e9;
  for (size_t i = 0; i < n; i++) {
    if (strstr(t[i].s, "a-rather-long-host") ||
        strstr(t[i].s, "with-a-long-label"))
      sub_bottom = fmax(sub_bottom, t[i].y + t[i].size / 2);
    if (strcmp(t[i].s, "ARQ only") == 0)
      legend_top = t[i].y - t[i].size / 2;
    for (size_t j = i + 1; j < n; j++)
      if (t[i].horizontal && t[j].horizontal && overlap(&t[i], &t[j]))
        NP_TEST_FAIL_("texts overlap: \"%s\" at (%.0f, %.0f) and \"%s\" at "
                      "(%.0f, %.0f)",
                      t[i].s, t[i].x, t[i].y, t[j].s, t[j].x, t[j].y);
  }
  ASSERT_TRUE(sub_bottom > 0);
  ASSERT_TRUE(legend_top > sub_bottom);
  free(t);
  free(svg);
}

/* Axis numbers for people (issue 28): SI prefixes from a million on, no
 * exponent ("1e+06") on any axis; separators below a million. */
static void check_tick_text(void) {
  char t[64];
  static const struct {
    double v;
    const char *want;
  } cases[] = {{1e6, "1M"},        {1e7, "10M"},     {2.5e6, "2.5M"},
               {1.2e9, "1.2G"},    {100000, "100,000"}, {20000, "20,000"},
               {0.5, "0.5"},       {0, "0"},         {-1500, "-1,500"},
               {3e15, "3P"},      {999999.5, "1,000,000"}, {150000.25, "150,000"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    np_chart_tick_text(t, sizeof t, cases[i].v);
    ASSERT_STR_EQ(t, cases[i].want);
  }
}

/* Texts of svg that overlap (horizontal pairs), or a horizontal text that
 * reaches into the vertical y label; fails naming both. */
static void check_no_overlap(const char *svg, const char *ylabel) {
  struct svg_text *t = calloc(SVG_MAX_TEXTS, sizeof *t);
  ASSERT_NOT_NULL(t);
  size_t n = svg_texts(svg, t, SVG_MAX_TEXTS);
  ASSERT_GT(n, 10);
  const struct svg_text *yl = NULL;
  for (size_t i = 0; i < n; i++)
    if (!t[i].horizontal && strcmp(t[i].s, ylabel) == 0)
      yl = &t[i];
  ASSERT_NOT_NULL(yl);
  for (size_t i = 0; i < n; i++) {
    if (!t[i].horizontal)
      continue;
    ASSERT_TRUE(strstr(t[i].s, "e+") == NULL);
    double w = np_chart_text_mm(t[i].s, t[i].size / 20) * 2.8346;
    double x0 = t[i].x - (t[i].anchor == 1 ? w / 2 : t[i].anchor == 2 ? w : 0);
    if (fabs(t[i].y - yl->y) < 200 && x0 < yl->x + yl->size / 2 &&
        x0 + w > yl->x - yl->size / 2)
      NP_TEST_FAIL_("\"%s\" at (%.0f, %.0f) runs into the y label at x %.0f",
                    t[i].s, t[i].x, t[i].y, yl->x);
    for (size_t j = i + 1; j < n; j++)
      if (t[j].horizontal && overlap(&t[i], &t[j]))
        NP_TEST_FAIL_("texts overlap: \"%s\" at (%.0f, %.0f) and \"%s\" at "
                      "(%.0f, %.0f)",
                      t[i].s, t[i].x, t[i].y, t[j].s, t[j].x, t[j].y);
  }
  free(t);
}

/* The latency-percentile chart of issue 28: tail labels to 99.9999 % did
 * run together ("99.999%99.9999%"), the log y axis printed "1e+06" and
 * its widest label ("100000", not the top one) ran into the y label. */
static void check_xy_axes(void) {
  static const double px[] = {0, 90, 99, 99.9, 99.99, 99.999},
                      py[] = {12, 220, 3300, 42000, 310000, 840000};
  struct np_chart_xy_series se[] = {{"udp-p1024-c16-w1-single-raw", 6, px, py, 0, NULL}};
  struct np_chart_xy c = {.title = "Latency against percentile",
                          .subtitle = "suite s, set s, machine vm",
                          .xlabel = "percentile / %",
                          .ylabel = "latency / \xce\xbcs (log)",
                          .log_y = 1, .x_percentile = 1, .vline_x = NAN,
                          .nseries = 1, .series = se};
  char *svg = NULL;
  size_t len = 0;
  struct np_errbuf eb = {{0}};
  int rc = np_chart_xy_svg(&c, &svg, &len, &eb);
  ASSERT_EQ(rc, 0);
  char *txt = svg_all_text(svg);
  ASSERT_NOT_NULL(strstr(txt, "\n1M\n"));
  ASSERT_NOT_NULL(strstr(txt, "\n100,000\n"));
  ASSERT_NOT_NULL(strstr(txt, "\n99.99\n"));
  ASSERT_NOT_NULL(strstr(txt, "\n99.999\n")); /* the last tail labelled */
  ASSERT_TRUE(strstr(txt, "\n99.9999\n") == NULL); /* no empty decade */
  check_no_overlap(svg, "latency / \xce\xbcs (log)");
  free(txt);
  free(svg);
  /* a bar chart's log axis: the same numbers */
  static const char *const cats[] = {"8,192 B", "65,507 B"};
  static const double m[] = {650, 2400000};
  struct np_chart_series s[] = {{"window 64", m, NULL, NULL, NULL, 4}};
  struct np_chart b = {.title = "lost", .subtitle = "s", .xlabel = "payload",
                       .ylabel = "lost echoes per run (log)", .runs = 1,
                       .log_y = 1, .ncat = 2, .categories = cats,
                       .nseries = 1, .series = s};
  svg = render_chart(&b, &len);
  txt = svg_all_text(svg);
  ASSERT_NOT_NULL(strstr(txt, "\n1M\n"));
  check_no_overlap(svg, "lost echoes per run (log)");
  free(txt);
  free(svg);
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

/* Issue 33: points of failed runs and of a minority of passed runs were
 * drawn like any other.  Marked points get a cross or a ring each (lines:
 * more paths than the same chart unmarked) and the legend names the two
 * marks; without marks the chart is the unmarked one. */
static void check_xy_marks(void) {
  static const double px[] = {1000, 2000, 3000, 4000},
                      py[] = {100, 120, 5000, 40000};
  static const enum np_chart_xy_mark mk[] = {
      NP_CHART_XY_PLAIN, NP_CHART_XY_PLAIN, NP_CHART_XY_MINORITY,
      NP_CHART_XY_FAILED};
  struct np_chart_xy_series se[] = {{"p50", 4, px, py, 0, NULL}};
  struct np_chart_xy c = {.title = "load", .subtitle = "s",
                          .xlabel = "offered", .ylabel = "latency (log)",
                          .log_y = 1, .vline_x = NAN, .nseries = 1,
                          .series = se};
  char *plain = NULL, *marked = NULL;
  size_t lp = 0, lm = 0;
  ASSERT_EQ(np_chart_xy_svg(&c, &plain, &lp, NULL), 0);
  se[0].mark = mk;
  c.mark_name[NP_CHART_XY_FAILED] = "failed runs";
  c.mark_name[NP_CHART_XY_MINORITY] = "< half passed";
  ASSERT_EQ(np_chart_xy_svg(&c, &marked, &lm, NULL), 0);
  char *txt = svg_all_text(marked);
  ASSERT_NOT_NULL(strstr(txt, "failed runs"));
  ASSERT_NOT_NULL(strstr(txt, "half passed"));
  /* two points and two legend rows: a cross is two lines, a ring one */
  ASSERT_GE(count_of(marked, "<polyline"), count_of(plain, "<polyline") + 6);
  check_no_overlap(marked, "latency (log)");
  free(txt);
  txt = svg_all_text(plain);
  ASSERT_TRUE(strstr(txt, "failed runs") == NULL);
  free(txt);
  free(plain);
  free(marked);
}

/* A dozen categories of three to four short lines (a compare chart's
 * configurations) beside a wide legend: at the smallest size "reuseport"
 * still ran into its neighbours; such labels are drawn upright, one line
 * each, and nothing overlaps. */
static void check_upright(void) {
  static const char *const cats[12] = {"c1", "c1", "c1", "c1", "c1", "c1",
                                       "c16", "c16", "c16", "c16", "c16",
                                       "c16"};
  static const char *const notes[12] = {
      "pool, raw, t2",      "pool, uv, t2",      "reuseport, raw, t2",
      "reuseport, uv, t2",  "single, raw",       "single, uv",
      "split, raw",         "split, uv",         "pool, raw, t2",
      "pool, uv, t2",       "reuseport, raw, t2", "reuseport, uv, t2"};
  static const double a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  struct np_chart_series s[] = {
      {"vm-20261130-udp-io-models", a, NULL, NULL, NULL, 0},
      {"vm-20261202-udp-io-models", a, NULL, NULL, NULL, 1}};
  struct np_chart c = {.title = "p99 RTT / \xce\xbcs: medians, base and new",
                       .subtitle = "s", .xlabel = "configuration",
                       .ylabel = "p99 RTT / \xce\xbcs", .runs = 3,
                       .ncat = 12, .categories = cats, .notes = notes,
                       .nseries = 2, .series = s};
  size_t len;
  char *svg = render_chart(&c, &len);
  struct svg_text *t = calloc(SVG_MAX_TEXTS, sizeof *t);
  ASSERT_NOT_NULL(t);
  size_t n = svg_texts(svg, t, SVG_MAX_TEXTS), upright = 0;
  for (size_t i = 0; i < n; i++)
    upright += !t[i].horizontal && strcmp(t[i].s, "c16 reuseport uv t2") == 0;
  ASSERT_EQ(upright, 1);
  free(t);
  check_no_overlap(svg, "p99 RTT / \xce\xbcs");
  free(svg);
}

/* The interval caption names the method the set's intervals came from
 * (summary.json intervals.ci_method): resampled or exact. */
static void check_ci_caption(void) {
  char c[256];
  np_chart_ci_caption(c, sizeof c, 5, 5, "run", 0, 0);
  ASSERT_NOT_NULL(strstr(c, "(10,000 resamples)"));
  np_chart_ci_caption(c, sizeof c, 5, 5, "run", 0, 1);
  ASSERT_NOT_NULL(strstr(c, "(exact bootstrap distribution)"));
  ASSERT_TRUE(strstr(c, "resamples") == NULL);
  np_chart_ci_caption(c, sizeof c, 3, 7, "run", 1, 1);
  ASSERT_NOT_NULL(strstr(c, "none for a bar of fewer than 5"));
}

int main(void) {
  check_ci_caption();
  size_t la, lb;
  char *a = render(0, &la), *b = render(0, &lb);
  ASSERT_EQ(la, lb);
  ASSERT_TRUE(memcmp(a, b, la) == 0);
  const char *svg = strstr(a, "<svg");
  ASSERT_NOT_NULL(svg);
  const char *gt = strchr(svg, '>');
  ASSERT_TRUE(strncmp(gt + 1, "\n<title>Round trips &amp; more</title>\n<desc>", 45) == 0);
  ASSERT_NOT_NULL(strstr(a, "not confidence intervals"));
  ASSERT_NOT_NULL(strstr(a, "#0072B2")); /* Okabe-Ito blue   */
  ASSERT_NOT_NULL(strstr(a, "#E69F00")); /* Okabe-Ito orange */
  ASSERT_NOT_NULL(strstr(a, "fill=\"#FFFFFF\""));
  free(a);
  free(b);
  a = render(1, &la);
  ASSERT_NOT_NULL(strstr(a, "<title>"));
  free(a);
  check_marks();
  check_one_run();
  check_style();
  check_layout();
  check_tick_text();
  check_xy_axes();
  check_xy_marks();
  check_upright();

  struct np_chart bad = {.ncat = 0};
  char *out = NULL;
  size_t len;
  ASSERT_EQ(np_chart_render_svg(&bad, &out, &len, NULL), NP_EINVAL);
  ASSERT_TRUE(out == NULL);
  char *o2 = NULL;
  ASSERT_EQ(np_svg_add_title_desc("no svg here", "t", "d", &o2, &len),
            NP_EPARSE);
  puts("test_report_chart: ok");
  return 0;
}
