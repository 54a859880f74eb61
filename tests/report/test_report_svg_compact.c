/*
 * test_report_svg_compact.c - hatching as SVG <pattern> fills and numbers
 * trimmed to 0.01 (issue 33: docs/performance was 90 % hatch polylines).
 *
 * A chart with every hatch (black lines, white lines on the black series,
 * the grey of an "excluded" stub) has one <defs> defining exactly the
 * patterns it uses, every hatched fill references a defined pattern, no
 * hatch line polylines and no marker colour are left, dashed lines are one
 * polyline with stroke-dasharray, no attribute number
 * has more than 2 decimals, and two renders are the same bytes.
 * np_svg_compact itself is checked on a small document, byte for byte
 * (white space between attributes shrunk, default opacities dropped, text
 * between tags kept).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_test.h"

static char *render(size_t *len) {
  static const char *const cats[] = {"64 B", "1,024 B"};
  /* styles 1..4 carry hatches 1..4 (style % 5), 7 is the black series
   * (white lines), 5 none; series "excl" draws an excluded stub */
  static const double v1[] = {10, 20}, v2[] = {12, 22}, v3[] = {14, 24},
                      v4[] = {16, 26}, v7[] = {18, 28}, v5[] = {11, 21},
                      vx[] = {NAN, 15};
  static const unsigned char mx[] = {NP_CHART_EXCLUDED, 0};
  struct np_chart_series s[] = {
      {"s1", v1, NULL, NULL, NULL, 1}, {"s2", v2, NULL, NULL, NULL, 2},
      {"s3", v3, NULL, NULL, NULL, 3}, {"s4", v4, NULL, NULL, NULL, 4},
      {"s7", v7, NULL, NULL, NULL, 7}, {"s5", v5, NULL, NULL, NULL, 5},
      {"excl", vx, NULL, NULL, mx, 0}};
  struct np_chart c = {.title = "hatches", .subtitle = "every pattern",
                       .xlabel = "payload", .ylabel = "round trips / s",
                       .runs = 3, .ncat = 2, .categories = cats,
                       .nseries = sizeof s / sizeof *s, .series = s};
  char *out = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_chart_render_svg(&c, &out, len, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("render: %d %s", rc, eb.msg);
  return out;
}

static size_t count(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
    n++;
  return n;
}

/* The id of the first fill="url(#...)" at or after p into id; its end. */
static const char *next_url(const char *p, char *id, size_t len) {
  const char *u = strstr(p, "fill=\"url(#");
  if (u == NULL)
    return NULL;
  u += 11;
  const char *e = strchr(u, ')');
  ASSERT_NOT_NULL(e);
  snprintf(id, len, "%.*s", (int)(e - u), u);
  return e;
}

static void check_chart(void) {
  size_t la, lb;
  char *a = render(&la), *b = render(&lb);
  ASSERT_EQ(la, lb);
  ASSERT_TRUE(memcmp(a, b, la) == 0);
  /* title and desc still come first, then the one <defs> */
  const char *gt = strchr(strstr(a, "<svg"), '>');
  ASSERT_TRUE(strncmp(gt + 1, "\n<title>hatches</title>", 23) == 0);
  ASSERT_EQ(count(a, "<defs>"), (size_t)1);
  /* 4 black hatches, 1 white (the black series has hatch 7 % 5 = 2), the
   * stub's grey: 6 patterns, each referenced by its bars and swatch */
  ASSERT_EQ(count(a, "<pattern "), (size_t)6);
  ASSERT_NOT_NULL(strstr(a, "stroke=\"#FFFFFF\" stroke-width=\"0.4\""));
  ASSERT_NOT_NULL(strstr(a, "stroke=\"#DDDDDD\" stroke-width=\"1\""));
  ASSERT_NOT_NULL(strstr(a, "patternTransform=\"rotate(-45)"));
  ASSERT_NOT_NULL(strstr(a, "patternTransform=\"rotate(0)"));
  size_t refs = 0;
  char id[64], def[96];
  for (const char *p = a; (p = next_url(p, id, sizeof id)) != NULL; refs++) {
    snprintf(def, sizeof def, "<pattern id=\"%s\"", id);
    if (strstr(a, def) == NULL)
      NP_TEST_FAIL_("fill references undefined pattern %s", id);
  }
  /* 5 hatched series x (2 bars + 1 swatch) + 1 stub */
  ASSERT_EQ(refs, (size_t)16);
  /* plplot's hatch lines were 0.4 wide polylines; none are left, nor any
   * marker colour */
  ASSERT_EQ(count(a, "stroke-width=\"4.000000e-01\""), (size_t)0);
  ASSERT_EQ(count(a, "\n      stroke-width=\"0.4\""), (size_t)0);
  ASSERT_EQ(count(a, "#010210"), (size_t)0);
  ASSERT_EQ(count(a, "#010218"), (size_t)0);
  ASSERT_TRUE(count(a, "<polyline") < 150);
  ASSERT_EQ(count(a, "stroke=\"#666666\" stroke-dasharray=\"2.93\""),
            (size_t)1); /* the stub's outline */
  /* numbers: at most 2 decimals inside tags */
  int in_tag = 0;
  for (const char *p = a; *p; p++) {
    if (*p == '<')
      in_tag = 1;
    else if (*p == '>')
      in_tag = 0;
    else if (in_tag && *p == '.' && p[1] >= '0' && p[1] <= '9' &&
             p[2] >= '0' && p[2] <= '9' && p[3] >= '0' && p[3] <= '9' &&
             strncmp(p - 4, "<?xml", 5) != 0)
      NP_TEST_FAIL_("more than 2 decimals: %.24s", p - 8);
  }
  ASSERT_TRUE(strstr(a, "e+00") == NULL);
  free(a);
  free(b);
}

static void check_compact(void) {
  const char *in =
      "<?xml version=\"1.0\"?>\n<svg version=\"1.1\" width=\"960pt\">\n"
      "<polyline stroke-width=\"1.000000e+00\" stroke=\"#010212\" "
      "fill=\"#010212\" fill-opacity=\"1.000000\" "
      "points=\"1.50,2.00 3.126,-0.004 \"/>\n"
      "<polyline\n  stroke-width=\"6.000000e-01\"\n  stroke=\"#000000\"\n"
      "  stroke-opacity=\"1.000000\"\n  fill=\"none\"\n"
      "  points=\"1,2  3,4 \"\n  />\n"
      "<text x=\"-0.000000\" y=\"7.500178\" font-size=\"19\" "
      "clip-path=\"url(#text-clipping0)\" fill=\"#0072B2\"\n>1.23456 a</text>\n"
      "</svg>\n";
  char *out = NULL;
  size_t len = 0;
  ASSERT_EQ(np_svg_compact(in, &out, &len), 0);
  ASSERT_EQ(len, strlen(out));
  /* the id hashes plplot's output: compute it the way the module does */
  unsigned h = 2166136261u;
  for (const char *s = in; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  char want[1024];
  snprintf(want, sizeof want,
           "<?xml version=\"1.0\"?>\n<svg version=\"1.1\" width=\"960pt\">\n"
           "<defs>\n<pattern id=\"np-%08x-2\" patternUnits=\"userSpaceOnUse\" "
           "width=\"5.66\" height=\"5.66\" patternTransform=\"rotate(45) "
           "translate(-2.83 -2.83)\"><path d=\"M0 2.83H5.66M2.83 0V5.66\" "
           "stroke=\"#000000\" stroke-width=\"0.4\"/></pattern>\n</defs>\n"
           "<polyline fill=\"url(#np-%08x-2)\" stroke=\"none\" "
           "points=\"1.5,2 3.13,0 \"/>\n"
           "<polyline stroke-width=\"0.6\" stroke=\"#000000\" fill=\"none\" "
           "points=\"1,2  3,4 \"/>\n"
           "<text x=\"0\" y=\"7.5\" font-size=\"19\" "
           "clip-path=\"url(#text-clipping0)\" fill=\"#0072B2\">1.23456 a</text>\n"
           "</svg>\n",
           h, h);
  if (strcmp(out, want) != 0)
    NP_TEST_FAIL_("compact:\n%s\nwant:\n%s", out, want);
  free(out);
  ASSERT_EQ(np_svg_compact("no svg here", &out, &len), NP_EPARSE);
}

/* Dashed lines: the unstable outline and the reference line of a ratio
 * chart are one dashed polyline each, in black, no dash marker left. */
static void check_dashes(void) {
  static const char *const cats[] = {"a", "b", "c"};
  static const double v[] = {0.9, 1.1, 1.02};
  static const unsigned char mk[] = {NP_CHART_UNSTABLE, 0, NP_CHART_UNSTABLE};
  struct np_chart_series s[] = {{"ratio", v, NULL, NULL, mk, 0}};
  struct np_chart c = {.title = "ratio", .subtitle = "s", .xlabel = "x",
                       .ylabel = "y", .runs = 3, .has_ref = 1, .ref = 1.0,
                       .ncat = 3, .categories = cats, .nseries = 1,
                       .series = s};
  char *out = NULL;
  size_t len;
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_chart_render_svg(&c, &out, &len, &eb), 0);
  /* plplot drew 2.6-wide outlines as ~100 dashes each */
  ASSERT_EQ(count(out, "stroke-width=\"2.6\""), (size_t)2);
  ASSERT_EQ(count(out, "stroke-width=\"1.6\""), (size_t)1);
  ASSERT_EQ(count(out, "stroke=\"#000000\" stroke-dasharray=\"2.93\""),
            (size_t)3);
  ASSERT_EQ(count(out, "#010310"), (size_t)0);
  ASSERT_EQ(count(out, "#010311"), (size_t)0);
  free(out);
}

int main(void) {
  check_compact();
  check_dashes();
  check_chart();
  puts("test_report_svg_compact: ok");
  return 0;
}
