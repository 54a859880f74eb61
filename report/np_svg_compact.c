/*
 * np_svg_compact.c - plplot's SVG made small: hatching as <pattern> fills,
 * dashes as stroke-dasharray, numbers with the precision the pixel grid
 * needs.
 *
 * plplot hatches a region by computing every hatch line and writing each as
 * its own <polyline> (issue 33: ~1,444 per chart, 90 % of docs/performance).
 * The charts instead fill a hatched region once in a marker colour
 * (np_chart_int.h: one per pattern, no palette colour is one); here each such
 * fill is rewritten to fill="url(#id)" of a <pattern> drawing the same lines
 * (angle, gap, width, colour), defined once in a <defs> after <svg ...>.  The
 * ids carry an FNV-1a hash of plplot's output, so two charts inlined in one
 * HTML page never share an id, and a chart rendered twice is the same bytes.
 *
 * Dashed lines likewise: plplot writes a polyline per dash; a line drawn
 * in a dash marker colour gets its ink and stroke-dasharray instead.
 *
 * plplot also prints "1.000000e+00" widths, "1.000000" opacities and
 * 6-decimal text positions; every decimal number inside an attribute value is
 * reprinted rounded to 0.01 (of a 960 x 600 px page) without trailing zeros,
 * the white space plplot puts between attributes shrinks to one space and
 * attributes that only restate their initial value are dropped.
 * Parsing and printing are by hand (integers only), so the output does not
 * depend on the locale.  Text between tags is copied unchanged.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_chart_int.h"

/* The fill attribute plplot writes for pattern k's marker colour. */
static void marker_attr(int k, char *buf, size_t len) {
  snprintf(buf, len, "fill=\"#%02X%02X%02X\"", PAT_MARKER_R, PAT_MARKER_G,
           PAT_MARKER_B0 + k);
}

/* Which pattern's marker the tag [p, e) is filled with, or -1. */
static int tag_pattern(const char *p, const char *e) {
  char attr[32];
  for (int k = 0; k < NPATTERN; k++) {
    marker_attr(k, attr, sizeof attr);
    size_t n = strlen(attr);
    for (const char *q = p; q + n <= e; q++)
      if (memcmp(q, attr, n) == 0)
        return k;
  }
  return -1;
}

/* A number rounded to hundredths: "-0" and trailing zeros dropped. */
static void put_hundredths(FILE *f, double v) {
  long long h = llround(v * 100);
  if (h < 0) {
    fputc('-', f);
    h = -h;
  }
  long long ip = h / 100, fr = h % 100;
  fprintf(f, "%lld", ip);
  if (fr % 10 == 0 && fr != 0)
    fprintf(f, ".%lld", fr / 10);
  else if (fr != 0)
    fprintf(f, ".%02lld", fr);
}

/* Parse a decimal number [-]digits[.digits][e[+-]digits] at p; its length,
 * 0 when there is none or it has no '.' or exponent (kept as written). */
static size_t decimal_at(const char *p, const char *e, double *v) {
  const char *q = p;
  int neg = 0, frac = 0, dot = 0, ex = 0, exneg = 0, digits = 0;
  double m = 0;
  if (q < e && *q == '-') {
    neg = 1;
    q++;
  }
  for (; q < e && (*q >= '0' && *q <= '9'); q++, digits++)
    m = m * 10 + (*q - '0');
  if (q < e && *q == '.') {
    dot = 1;
    for (q++; q < e && (*q >= '0' && *q <= '9'); q++, digits++, frac++)
      m = m * 10 + (*q - '0');
  }
  if (digits == 0)
    return 0;
  if (q + 1 < e && (*q == 'e' || *q == 'E')) {
    const char *r = q + 1;
    if (*r == '+' || *r == '-')
      exneg = *r++ == '-';
    if (r < e && *r >= '0' && *r <= '9') {
      dot = 1;
      for (; r < e && *r >= '0' && *r <= '9' && ex < 400; r++)
        ex = ex * 10 + (*r - '0');
      q = r;
    }
  }
  if (!dot)
    return 0;
  *v = (neg ? -m : m) * pow(10, (exneg ? -ex : ex) - frac);
  return (size_t)(q - p);
}

static int word_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '#';
}

/* Attributes plplot writes with their initial value (none is inherited
 * from a parent: plplot's <g>s set only transform and clip-path). */
static const char *const defaults[] = {
    "stroke-opacity=\"1.000000\"", "fill-opacity=\"1.000000\"",
    "fill-rule=\"nonzero\""};

/* The length of a default attribute at [p, e), 0 when there is none. */
static size_t default_at(const char *p, const char *e) {
  for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
    size_t n = strlen(defaults[i]);
    if ((size_t)(e - p) >= n && memcmp(p, defaults[i], n) == 0)
      return n;
  }
  return 0;
}

/* The tag (or part of one) [p, e): outside values, a run of white space
 * becomes one space (none before '>' or "/>"), attributes with their
 * initial value are dropped; inside values, every decimal number is
 * trimmed. */
static void put_tag(FILE *f, const char *p, const char *e) {
  int quoted = 0;
  const char *q = p;
  while (q < e) {
    double v;
    size_t n = 0;
    if (!quoted && (*q == ' ' || *q == '\n' || *q == '\t')) {
      const char *r = q;
      while (r < e && (*r == ' ' || *r == '\n' || *r == '\t'))
        r++;
      size_t d;
      while ((d = default_at(r, e)) > 0) {
        r += d;
        while (r < e && (*r == ' ' || *r == '\n' || *r == '\t'))
          r++;
      }
      if (r == e || (*r != '>' && *r != '/'))
        fputc(' ', f);
      q = r;
      continue;
    }
    if (*q == '"')
      quoted = !quoted;
    else if (quoted && (q == p || !word_char(q[-1])) &&
             (n = decimal_at(q, e, &v)) > 0 &&
             (q + n == e || !word_char(q[n]))) {
      put_hundredths(f, v);
      q += n;
      continue;
    }
    fputc(*q++, f);
  }
}

/* Pattern k's definition; ids are "np-HASH-k". */
static void put_pattern(FILE *f, uint32_t hash, int k) {
  double g = np_chart_pattern[k].gap;
  fprintf(f, "<pattern id=\"np-%08x-%d\" patternUnits=\"userSpaceOnUse\" "
             "width=\"", (unsigned)hash, k);
  put_hundredths(f, g);
  fputs("\" height=\"", f);
  put_hundredths(f, g);
  /* the tile's line(s) run through its middle; the translation puts them on
   * the multiples of the gap, where plplot's hatch lines were */
  fprintf(f, "\" patternTransform=\"rotate(%d) translate(",
          np_chart_pattern[k].angle);
  put_hundredths(f, np_chart_pattern[k].cross ? -g / 2 : 0);
  fputc(' ', f);
  put_hundredths(f, -g / 2);
  fputs(")\"><path d=\"M0 ", f);
  put_hundredths(f, g / 2);
  fputc('H', f);
  put_hundredths(f, g);
  if (np_chart_pattern[k].cross) {
    fputc('M', f);
    put_hundredths(f, g / 2);
    fputs(" 0V", f);
    put_hundredths(f, g);
  }
  fprintf(f, "\" stroke=\"%s\" stroke-width=\"", np_chart_pattern[k].ink);
  put_hundredths(f, np_chart_pattern[k].width);
  fputs("\"/></pattern>\n", f);
}

/* A polyline filled with pattern k: only its points, the pattern fill and
 * no stroke (plplot strokes fills in their colour; the marker must not
 * show). */
static void put_pattern_fill(FILE *f, const char *p, const char *e,
                             uint32_t hash, int k) {
  const char *pts = NULL;
  for (const char *q = p; q + 8 <= e; q++)
    if (memcmp(q, "points=\"", 8) == 0) {
      pts = q;
      break;
    }
  const char *pe = pts ? memchr(pts + 8, '"', (size_t)(e - pts - 8)) : NULL;
  fprintf(f, "<polyline fill=\"url(#np-%08x-%d)\" stroke=\"none\" ",
          (unsigned)hash, k);
  if (pe != NULL)
    put_tag(f, pts, pe + 1);
  fputs("/>", f);
}

/* Which dash's marker the tag [p, e) is stroked with, or -1. */
static int tag_dash(const char *p, const char *e) {
  char attr[32];
  for (int k = 0; k < NDASH; k++) {
    snprintf(attr, sizeof attr, "stroke=\"#%02X%02X%02X\"", DASH_MARKER_R,
             DASH_MARKER_G, DASH_MARKER_B0 + k);
    size_t n = strlen(attr);
    for (const char *q = p; q + n <= e; q++)
      if (memcmp(q, attr, n) == 0)
        return k;
  }
  return -1;
}

/* A polyline stroked with dash k's marker: its ink, dashed. */
static void put_dashed(FILE *f, const char *p, const char *e, int k) {
  const char *s = strstr(p, "stroke=\"#");
  put_tag(f, p, s); /* tag_dash found it before e */
  fprintf(f, "stroke=\"%s\" stroke-dasharray=\"", np_chart_dash_ink[k]);
  put_hundredths(f, DASH_LEN);
  fputc('"', f);
  put_tag(f, s + 16, e);
}

static uint32_t fnv1a(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

int np_svg_compact(const char *svg, char **out, size_t *out_len) {
  const char *open = strstr(svg, "<svg");
  const char *end = open ? strchr(open, '>') : NULL;
  if (end == NULL)
    return NP_EPARSE;
  uint32_t hash = fnv1a(svg);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NP_ENOMEM;
  fwrite(svg, 1, (size_t)(end + 1 - svg), f);
  int used[NPATTERN] = {0}, any = 0;
  for (int k = 0; k < NPATTERN; k++) {
    char attr[32];
    marker_attr(k, attr, sizeof attr);
    any |= used[k] = strstr(end + 1, attr) != NULL;
  }
  if (any) {
    fputs("\n<defs>\n", f);
    for (int k = 0; k < NPATTERN; k++)
      if (used[k])
        put_pattern(f, hash, k);
    fputs("</defs>", f);
  }
  const char *p = end + 1;
  while (*p) {
    const char *lt = strchr(p, '<');
    if (lt == NULL) {
      fputs(p, f);
      break;
    }
    fwrite(p, 1, (size_t)(lt - p), f);
    const char *gt = strchr(lt, '>');
    if (gt == NULL) {
      fputs(lt, f);
      break;
    }
    int line = strncmp(lt, "<polyline", 9) == 0;
    int k = line ? tag_pattern(lt, gt) : -1, d = line ? tag_dash(lt, gt) : -1;
    if (k >= 0)
      put_pattern_fill(f, lt, gt, hash, k);
    else if (d >= 0)
      put_dashed(f, lt, gt + 1, d);
    else
      put_tag(f, lt, gt + 1);
    p = gt + 1;
  }
  if (fclose(f) != 0) {
    free(buf);
    return NP_ENOMEM;
  }
  *out = buf;
  *out_len = len;
  return 0;
}
