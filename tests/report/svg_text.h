/*
 * svg_text.h - read back the text of a chart plplot wrote (tests only).
 *
 * plplot's svg driver writes every string as one <text> element with a
 * transform matrix, a font size and its characters as &#xNN; entities.
 * svg_texts() returns each element's decoded UTF-8 text, its anchor point
 * in page units (y grows downwards, as a viewer draws it), its font size,
 * whether it is horizontal and its text-anchor; svg_all_text() the text of
 * the whole chart, one element per line, for strstr().
 */
#ifndef SVG_TEXT_H
#define SVG_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_MAX_TEXTS 512

struct svg_text {
  char s[256];     /* decoded UTF-8                                */
  double x, y;     /* anchor point, page units, y downwards        */
  double size;     /* font-size                                    */
  int horizontal;  /* 1 = reads left to right                      */
  int anchor;      /* 0 start, 1 middle, 2 end                     */
};

static void svg_put_utf8(char *out, size_t *k, size_t len, unsigned cp) {
  unsigned char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (unsigned char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (unsigned char)(0xC0 | (cp >> 6));
    b[1] = (unsigned char)(0x80 | (cp & 0x3F));
    n = 2;
  } else {
    b[0] = (unsigned char)(0xE0 | (cp >> 12));
    b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp & 0x3F));
    n = 3;
  }
  for (size_t i = 0; i < n && *k + 1 < len; i++)
    out[(*k)++] = (char)b[i];
  out[*k] = '\0';
}

/* Decode the character data between p and end (entities and plain). */
static void svg_decode(const char *p, const char *end, char *out,
                       size_t len) {
  size_t k = 0;
  out[0] = '\0';
  while (p < end) {
    if (strncmp(p, "&#x", 3) == 0) {
      char *e;
      unsigned cp = (unsigned)strtoul(p + 3, &e, 16);
      svg_put_utf8(out, &k, len, cp);
      p = *e == ';' ? e + 1 : e;
    } else if (strncmp(p, "&amp;", 5) == 0) {
      svg_put_utf8(out, &k, len, '&');
      p += 5;
    } else if (strncmp(p, "&lt;", 4) == 0) {
      svg_put_utf8(out, &k, len, '<');
      p += 4;
    } else {
      svg_put_utf8(out, &k, len, (unsigned char)*p);
      p++;
    }
  }
}

static size_t svg_texts(const char *svg, struct svg_text *t, size_t max) {
  size_t n = 0;
  for (const char *p = strstr(svg, "<text"); p && n < max;
       p = strstr(p + 5, "<text")) {
    const char *tr = strstr(p, "transform=\"matrix(");
    const char *fs = strstr(p, "font-size=\"");
    const char *an = strstr(p, "text-anchor=\"");
    const char *ts = strstr(p, "<tspan");
    const char *te = ts ? strstr(ts, "</tspan>") : NULL;
    if (!tr || !fs || !an || !ts || !te)
      break;
    double m[6] = {0};
    sscanf(tr + 18, "%lf %lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3],
           &m[4], &m[5]);
    t[n].x = m[4];
    t[n].y = 600 - m[5];
    t[n].size = atof(fs + 11);
    t[n].horizontal = m[0] > 0.5;
    t[n].anchor = strncmp(an + 13, "middle", 6) == 0 ? 1
                  : strncmp(an + 13, "end", 3) == 0  ? 2
                                                     : 0;
    const char *gt = strchr(ts, '>');
    svg_decode(gt + 1, te, t[n].s, sizeof t[n].s);
    n++;
  }
  return n;
}

/* Every text of the chart (and its <desc>), one per line; malloc'd. */
static char *svg_all_text(const char *svg) {
  struct svg_text *t = calloc(SVG_MAX_TEXTS, sizeof *t);
  size_t n = t ? svg_texts(svg, t, SVG_MAX_TEXTS) : 0, cap = 64 + strlen(svg);
  char *out = malloc(cap), *o = out;
  if (out == NULL) {
    free(t);
    return NULL;
  }
  *o = '\0';
  const char *d = strstr(svg, "<desc>"), *de = d ? strstr(d, "</desc>") : NULL;
  if (d && de) {
    svg_decode(d + 6, de, o, cap);
    o += strlen(o);
    *o++ = '\n';
    *o = '\0';
  }
  for (size_t i = 0; i < n; i++)
    o += snprintf(o, cap - (size_t)(o - out), "%s\n", t[i].s);
  free(t);
  return out;
}

#endif /* SVG_TEXT_H */
