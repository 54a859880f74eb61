/*
 * test_report_chart.c - the plplot chart module: SVG with <title>/<desc>
 * first, identical bytes for identical input, colours from the Okabe-Ito
 * palette, white background, and NP_EINVAL for a bad description.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_test.h"

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
  char *out = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_chart_render_svg(&c, &out, len, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("render: %d %s", rc, eb.msg);
  return out;
}

int main(void) {
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
