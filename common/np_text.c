/*
 * np_text.c - UTF-8 checks and terminal-safe text (np_text.h).
 */
#include "np_text.h"

#include <stdarg.h>
#include <string.h>

size_t np_utf8_seq_len(const unsigned char *p, const unsigned char *end) {
  unsigned char c = p[0], lo = 0x80, hi = 0xBF;
  size_t n;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F; /* no UTF-16 surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F; /* nothing past U+10FFFF */
  } else {
    return 0;
  }
  if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xBF)
      return 0;
  return n;
}

size_t np_text_safe(const char *in, char *out, size_t out_len) {
  const unsigned char *p = (const unsigned char *)in;
  const unsigned char *end = p + strlen(in);
  size_t o = 0;
  while (p < end) {
    char tmp[16];
    size_t n;
    if (*p >= 0x20 && *p < 0x7f) {
      tmp[0] = (char)*p;
      n = 1;
      p++;
    } else {
      size_t u = *p >= 0x80 ? np_utf8_seq_len(p, end) : 0;
      if (u == 2 && p[0] == 0xC2 && p[1] <= 0x9F)
        u = 0; /* a C1 control: escaped byte by byte */
      if (u > 0) {
        memcpy(tmp, p, u);
        n = u;
        p += u;
      } else {
        static const char hex[] = "0123456789abcdef";
        tmp[0] = '\\';
        tmp[1] = 'x';
        tmp[2] = hex[*p >> 4];
        tmp[3] = hex[*p & 15];
        n = 4;
        p++;
      }
    }
    if (o + n + 1 > out_len)
      break;
    memcpy(out + o, tmp, n);
    o += n;
  }
  out[o] = '\0';
  return o;
}

void np_text_printf(FILE *fp, const char *fmt, ...) {
  char raw[8192], safe[4 * 8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  size_t n = strlen(raw);
  int nl = n > 0 && raw[n - 1] == '\n';
  if (nl)
    raw[n - 1] = '\0';
  np_text_safe(raw, safe, sizeof safe);
  fputs(safe, fp);
  if (nl)
    fputc('\n', fp);
}
