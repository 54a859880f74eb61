/*
 * np_report_mdx.c - pages that drop into documentation sites built with
 * MDX (reference 001 is such a page): YAML front matter with the title,
 * and Markdown text in which no label or reading can open a JSX
 * expression or element.  Outside fenced code blocks and inline code
 * spans, '{' and '}' are backslash-escaped and '<' becomes "&lt;"; code
 * is left as it is (MDX does not interpret it).  The title goes into the
 * front matter as a JSON string, which YAML reads as a double-quoted
 * scalar whatever it contains.
 */
#include "np_report_mdx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int np_report_mdx_page(const char *md, size_t len, const char *title,
                       const char *comment, char **out, size_t *out_len) {
  char *buf = NULL;
  size_t blen = 0;
  FILE *f = open_memstream(&buf, &blen);
  cJSON *t = cJSON_CreateString(title ? title : "");
  char *tq = t ? cJSON_PrintUnformatted(t) : NULL;
  cJSON_Delete(t);
  if (f == NULL || tq == NULL) {
    if (f != NULL)
      fclose(f);
    free(buf);
    free(tq);
    return NP_ENOMEM;
  }
  fprintf(f, "---\ntitle: %s\n---\n\n", tq);
  free(tq);
  if (comment != NULL)
    fprintf(f, "{/* %s */}\n\n", comment);
  int fence = 0, code = 0, bol = 1;
  for (size_t i = 0; i < len; i++) {
    char ch = md[i];
    if (bol && len - i >= 3 && memcmp(md + i, "```", 3) == 0) {
      fence = !fence;
      code = 0;
      const char *nl = memchr(md + i, '\n', len - i);
      size_t n = nl ? (size_t)(nl - (md + i)) + 1 : len - i;
      fwrite(md + i, 1, n, f);
      i += n - 1;
      bol = 1;
      continue;
    }
    bol = ch == '\n';
    if (fence) {
      fputc(ch, f);
      continue;
    }
    if (ch == '`') {
      code = !code;
      fputc(ch, f);
      continue;
    }
    if (ch == '\n')
      code = 0; /* an unclosed span ends with its line */
    if (!code && (ch == '{' || ch == '}'))
      fputc('\\', f);
    if (!code && ch == '<')
      fputs("&lt;", f);
    else
      fputc(ch, f);
  }
  if (fclose(f) != 0) {
    free(buf);
    return NP_ENOMEM;
  }
  *out = buf;
  *out_len = blen;
  return 0;
}
