/*
 * np_svg.c - post-processing of plplot's SVG: accessible <title>/<desc>.
 *
 * plplot's svg driver writes neither element; SVG 1.1 wants them as the
 * first children of <svg> so that viewers and screen readers name the
 * chart.  The text is XML-escaped; nothing else in the document changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f); break;
    }
  }
}

int np_svg_add_title_desc(const char *svg, const char *title,
                          const char *desc, char **out, size_t *out_len) {
  const char *open = strstr(svg, "<svg");
  const char *end = open ? strchr(open, '>') : NULL;
  if (end == NULL)
    return NP_EPARSE;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NP_ENOMEM;
  fwrite(svg, 1, (size_t)(end + 1 - svg), f);
  fputs("\n<title>", f);
  put_escaped(f, title);
  fputs("</title>\n<desc>", f);
  put_escaped(f, desc);
  fputs("</desc>", f);
  fputs(end + 1, f);
  if (fclose(f) != 0) {
    free(buf);
    return NP_ENOMEM;
  }
  *out = buf;
  *out_len = len;
  return 0;
}
