/*
 * np_chart_text.c - text measurement and wording for charts.
 *
 * plplot does not export its string-length function, and the SVG it writes
 * leaves glyph layout to the viewer anyway, so widths are estimated from
 * the DejaVu Sans advance widths (the sans-serif font librsvg and browsers
 * on Debian draw) at plplot's font size: 20 SVG units = 7.056 mm at
 * character scale 1.  The estimate errs wide, so text laid out with it
 * does not collide.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_chart.h"

/* Advance widths in 1/1000 em of the printable ASCII range 0x20..0x7e. */
static const short ascii_width[95] = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,
    318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337,
    838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295,
    295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989,
    685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615,
    352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521,
    392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838};

#define EM_MM 7.056 /* font size at character scale 1, in mm */

double np_chart_text_mm(const char *text, double scale) {
  double em = 0;
  for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
    if (*p >= 0x20 && *p < 0x7f)
      em += ascii_width[*p - 0x20];
    else if ((*p & 0xC0) != 0x80) /* first byte of a UTF-8 sequence */
      em += 700;
  }
  return em / 1000.0 * EM_MM * scale;
}

void np_chart_runs_caption(char *buf, size_t len, size_t nmin, size_t nmax,
                           const char *unit, int of_one_process) {
  const char *u = unit ? unit : "run";
  const char *proc = of_one_process ? " of one process" : "";
  if (nmax <= 1) {
    snprintf(buf, len, "bars: one %s each, no error bars", u);
    return;
  }
  if (nmin == nmax || nmin == 0)
    snprintf(buf, len,
             "bars: median of %zu %ss%s; error bars: min/max, not confidence "
             "intervals",
             nmax, u, proc);
  else
    snprintf(buf, len,
             "bars: median of %zu-%zu %ss%s; error bars: min/max, not "
             "confidence intervals",
             nmin, nmax, u, proc);
}

void np_chart_ci_caption(char *buf, size_t len, size_t nmin, size_t nmax,
                         const char *unit, int of_one_process, int exact) {
  const char *u = unit ? unit : "run";
  const char *proc = of_one_process ? " of one process" : "";
  char n[48];
  if (nmin == nmax || nmin == 0)
    snprintf(n, sizeof n, "%zu", nmax);
  else
    snprintf(n, sizeof n, "%zu-%zu", nmin, nmax);
  snprintf(buf, len,
           "bars: median of %s %ss%s; error bars: 95 %% percentile-bootstrap "
           "confidence interval of the median (%s)%s",
           n, u, proc,
           /* exact: docs/statistics.md says where it falls back to
            * resampling (more than 1,000 values, 400 for an even count) */
           exact ? "exact bootstrap distribution" : "10,000 resamples",
           nmin < 5 ? "; none for a bar of fewer than 5, too few for an "
                      "interval"
                    : "");
}

void np_chart_tick_text(char *buf, size_t len, double v) {
  static const char *const prefix[] = {"k", "M", "G", "T", "P"};
  double a = fabs(v), iv = round(v);
  if (a >= 1e6 && isfinite(a)) {
    int k = 0; /* a / 1000^(k+1) in [1, 1000), at most P */
    while (k < 4 && a >= 1e3 * pow(1e3, k + 1))
      k++;
    snprintf(buf, len, "%.3g%s", v / pow(1e3, k + 1), prefix[k]);
    return;
  }
  /* fractions only below 100,000: above, %g would print 999999.5 as
   * "1e+06"; such a tick reads as its rounded integer */
  if ((fabs(v - iv) > 1e-9 * (a + 1) && a < 1e5) || a < 1) {
    snprintf(buf, len, "%g", v);
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
  snprintf(buf, len, "%s", grouped);
}
