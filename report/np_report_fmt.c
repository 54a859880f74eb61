/*
 * np_report_fmt.c - locale-free number formatting for tables and charts.
 */
#include "np_report_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void np_fmt_num(char *buf, size_t len, double v, int decimals) {
  if (!isfinite(v)) {
    snprintf(buf, len, "-");
    return;
  }
  char raw[64];
  snprintf(raw, sizeof raw, "%.*f", decimals, fabs(v));
  if (strspn(raw, "0.") == strlen(raw))
    v = 0; /* no "-0.00" */
  const char *dot = strchr(raw, '.');
  size_t nint = dot ? (size_t)(dot - raw) : strlen(raw);
  char out[96];
  size_t k = 0;
  if (v < 0)
    out[k++] = '-';
  for (size_t i = 0; i < nint; i++) {
    if (i > 0 && (nint - i) % 3 == 0)
      out[k++] = ',';
    out[k++] = raw[i];
  }
  out[k] = '\0';
  snprintf(buf, len, "%s%s", out, dot ? dot : "");
}

void np_fmt_bytes(char *buf, size_t len, double v) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
  if (!isfinite(v)) {
    snprintf(buf, len, "-");
    return;
  }
  int u = 0;
  double x = v;
  while (u < 3 && fabs(x) >= 1024) {
    x /= 1024;
    u++;
  }
  char num[64];
  int dec = (x == floor(x)) ? 0 : 2;
  np_fmt_num(num, sizeof num, x, dec);
  snprintf(buf, len, "%s %s", num, unit[u]);
}

void np_fmt_range(char *buf, size_t len, double med, double min, double max,
                  int decimals) {
  char a[64], b[64], c[64];
  np_fmt_num(a, sizeof a, med, decimals);
  if (!isfinite(min) || !isfinite(max) || min == max) {
    snprintf(buf, len, "%s", a);
    return;
  }
  np_fmt_num(b, sizeof b, min, decimals);
  np_fmt_num(c, sizeof c, max, decimals);
  snprintf(buf, len, "%s (%s-%s)", a, b, c);
}

/* Does the folder part plan_file[0..n) end in folder name dir? */
static int ends_with_dir(const char *plan_file, size_t n, const char *dir) {
  size_t d = strlen(dir);
  return n >= d && strncmp(plan_file + n - d, dir, d) == 0 &&
         (n == d || plan_file[n - d - 1] == '/');
}

int np_fmt_plan_path(char *buf, size_t len, const char *plan_file) {
  if (plan_file == NULL || plan_file[0] == '\0') {
    snprintf(buf, len, "PLAN.json");
    return 0;
  }
  const char *slash = strrchr(plan_file, '/');
  size_t n = slash ? (size_t)(slash - plan_file) : 0;
  int shipped = ends_with_dir(plan_file, n, "bench/plans") ||
                ends_with_dir(plan_file, n, "netproof/plans");
  snprintf(buf, len, "%s%s", shipped ? "bench/plans/" : "",
           slash ? slash + 1 : plan_file);
  return shipped;
}

const char *np_fmt_unit(const char *unit, double *scale) {
  static const struct {
    const char *given, *shown;
    double scale;
  } units[] = {{"us", "\xce\xbcs", 1},        {"\xc2\xb5s", "\xce\xbcs", 1},
               {"bit/s", "Mbit/s", 1e-6},  {"bits/s", "Mbit/s", 1e-6},
               {"bps", "Mbit/s", 1e-6}};
  *scale = 1;
  for (size_t i = 0; unit != NULL && i < sizeof units / sizeof *units; i++)
    if (strcmp(unit, units[i].given) == 0) {
      *scale = units[i].scale;
      return units[i].shown;
    }
  return unit != NULL ? unit : "";
}
