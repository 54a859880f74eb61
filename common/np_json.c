/*
 * np_json.c - bounded JSON loading and writing over cJSON.
 *
 * Limits are enforced before cJSON sees the text: the byte size up front,
 * the nesting depth by a pre-scan that skips string contents (cJSON's own
 * compile-time limit of 1000 is far above what evidence needs and would be
 * a stack risk for fuzzed input).  After parsing, the tree is walked once
 * to reject non-finite numbers, which JSON cannot express but strtod
 * produces for literals like 1e999.
 */
#include "np_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"

static void limits_or_default(const struct np_json_limits *lim,
                              size_t *max_bytes, int *max_depth) {
  *max_bytes = NP_JSON_DEFAULT_MAX_BYTES;
  *max_depth = NP_JSON_DEFAULT_MAX_DEPTH;
  if (lim != NULL && lim->max_bytes != 0)
    *max_bytes = lim->max_bytes;
  if (lim != NULL && lim->max_depth != 0)
    *max_depth = lim->max_depth;
}

/* Depth of [ and { outside strings; returns the offset of the first byte
 * that exceeds max_depth, or -1 when the text stays within it.  Bytes that
 * cannot change the depth are skipped in a tight loop (the common case:
 * numbers, names, whitespace). */
static long depth_scan(const char *buf, size_t len, int max_depth) {
  static const unsigned char special[256] = {
      ['"'] = 1, ['\\'] = 1, ['['] = 1, ['{'] = 1, [']'] = 1, ['}'] = 1};
  const unsigned char *b = (const unsigned char *)buf;
  int depth = 0, in_string = 0;
  for (size_t i = 0; i < len; i++) {
    while (i < len && !special[b[i]])
      i++;
    if (i >= len)
      break;
    unsigned char c = b[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = 0;
      continue;
    }
    if (c == '"') {
      in_string = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return (long)i;
    } else if (c == ']' || c == '}') {
      depth--;
    }
  }
  return -1;
}

/* 1 when a number under item is not finite (no pointer built: the
 * common case, a clean document, costs one walk and no formatting). */
static int any_nonfinite(const cJSON *item) {
  if (cJSON_IsNumber(item))
    return !isfinite(item->valuedouble);
  for (const cJSON *c = item->child; c != NULL; c = c->next)
    if ((cJSON_IsNumber(c) || c->child != NULL) && any_nonfinite(c))
      return 1;
  return 0;
}

/* Finds the first non-finite number; writes its JSON pointer into ptr. */
static int find_nonfinite(const cJSON *item, char *ptr, size_t cap) {
  if (cJSON_IsNumber(item))
    return !isfinite(item->valuedouble);
  if (!cJSON_IsArray(item) && !cJSON_IsObject(item))
    return 0;
  size_t base = strlen(ptr);
  int idx = 0;
  for (const cJSON *c = item->child; c != NULL; c = c->next, idx++) {
    if (cJSON_IsObject(item))
      snprintf(ptr + base, cap - base, "/%s", c->string ? c->string : "");
    else
      snprintf(ptr + base, cap - base, "/%d", idx);
    if (find_nonfinite(c, ptr, cap))
      return 1;
    ptr[base] = '\0';
  }
  return 0;
}

int np_json_parse(const char *buf, size_t len, const struct np_json_limits *lim,
                  cJSON **out, struct np_errbuf *eb) {
  size_t max_bytes;
  int max_depth;
  limits_or_default(lim, &max_bytes, &max_depth);
  if (buf == NULL || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "no input");
  if (len > max_bytes)
    return np_errbuf_set(eb, NP_ETOOBIG, "%zu bytes exceeds the limit of %zu",
                         len, max_bytes);
  long deep = depth_scan(buf, len, max_depth);
  if (deep >= 0)
    return np_errbuf_set(eb, NP_ETOODEEP,
                         "nesting deeper than %d at byte %ld", max_depth,
                         deep);
  const char *end = NULL;
  cJSON *doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
  if (doc == NULL) {
    size_t off = (end != NULL && end >= buf) ? (size_t)(end - buf) : 0;
    /* cJSON reports an error at the end as the last byte's offset. */
    if (off + 1 >= len)
      return np_errbuf_set(eb, NP_EPARSE,
                           "malformed JSON: unexpected end of input at byte "
                           "%zu",
                           len);
    return np_errbuf_set(eb, NP_EPARSE, "malformed JSON at byte %zu", off);
  }
  /* cJSON stops after the first value; anything but whitespace after it
   * (or an embedded NUL) is an error, as in every strict parser. */
  size_t off = (size_t)(end - buf);
  while (off < len && (buf[off] == ' ' || buf[off] == '\t' ||
                       buf[off] == '\n' || buf[off] == '\r'))
    off++;
  if (off < len) {
    cJSON_Delete(doc);
    return np_errbuf_set(eb, NP_EPARSE,
                         "malformed JSON: trailing data at byte %zu", off);
  }
  char ptr[256] = "";
  if (any_nonfinite(doc) && find_nonfinite(doc, ptr, sizeof(ptr))) {
    cJSON_Delete(doc);
    return np_errbuf_set(eb, NP_ENONFINITE,
                         "%s: number is not finite (NaN or Infinity)",
                         ptr[0] ? ptr : "/");
  }
  *out = doc;
  return 0;
}

int np_json_load_file(const char *path, const struct np_json_limits *lim,
                      cJSON **out, struct np_errbuf *eb) {
  size_t max_bytes;
  int max_depth;
  limits_or_default(lim, &max_bytes, &max_depth);
  char *buf = NULL;
  size_t len = 0;
  int rc = np_file_read_all(path, max_bytes, &buf, &len, eb);
  if (rc != 0)
    return rc;
  struct np_errbuf inner;
  rc = np_json_parse(buf, len, lim, out, &inner);
  free(buf);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "%s: %s", path, inner.msg);
  return 0;
}

char *np_json_print(const cJSON *doc, int pretty) {
  char ptr[256] = "";
  if (doc == NULL || find_nonfinite(doc, ptr, sizeof(ptr)))
    return NULL;
  char *s = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
  if (s == NULL)
    return NULL;
  size_t n = strlen(s);
  char *t = realloc(s, n + 2);
  if (t == NULL) {
    cJSON_free(s);
    return NULL;
  }
  t[n] = '\n';
  t[n + 1] = '\0';
  return t;
}

int np_json_write_atomic(const char *path, const cJSON *doc, int pretty,
                         struct np_errbuf *eb) {
  char *s = np_json_print(doc, pretty);
  if (s == NULL)
    return np_errbuf_set(eb, NP_EINVAL,
                         "%s: document holds a non-finite number or memory "
                         "ran out",
                         path);
  int rc = np_file_write_atomic(path, s, strlen(s), eb);
  free(s);
  return rc;
}

/* Does the escaped token tok[0..n) name key?  Decodes "~1" and "~0" on
 * the fly; the token was validated by the caller. */
static int token_is(const char *tok, size_t n, const char *key) {
  size_t i = 0;
  for (; i < n; i++, key++) {
    char c = tok[i];
    if (c == '~')
      c = tok[++i] == '1' ? '/' : '~';
    if (*key != c)
      return 0;
  }
  return *key == '\0';
}

/* Array index of token tok[0..n), or -1 ("-", leading zeros, non-digits,
 * more than fits an int). */
static long token_index(const char *tok, size_t n) {
  if (n == 0 || n > 9 || (n > 1 && tok[0] == '0'))
    return -1;
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (tok[i] < '0' || tok[i] > '9')
      return -1;
    v = v * 10 + (tok[i] - '0');
  }
  return v;
}

const cJSON *np_json_pointer(const cJSON *doc, const char *pointer) {
  if (doc == NULL || pointer == NULL)
    return NULL;
  const cJSON *cur = doc;
  const char *p = pointer;
  while (*p != '\0') {
    if (*p != '/')
      return NULL;
    const char *tok = ++p;
    size_t n = strcspn(tok, "/");
    for (size_t i = 0; i < n; i++)
      if (tok[i] == '~' && (i + 1 == n || (tok[i + 1] != '0' &&
                                           tok[i + 1] != '1')))
        return NULL;
    const cJSON *next = NULL;
    if (cJSON_IsObject(cur)) {
      for (const cJSON *c = cur->child; c != NULL && next == NULL;
           c = c->next)
        if (c->string != NULL && token_is(tok, n, c->string))
          next = c;
    } else if (cJSON_IsArray(cur)) {
      long idx = token_index(tok, n);
      for (const cJSON *c = cur->child; c != NULL && idx >= 0 && next == NULL;
           c = c->next, idx--)
        if (idx == 0)
          next = c;
    }
    if (next == NULL)
      return NULL;
    cur = next;
    p = tok + n;
  }
  return cur;
}

double np_json_get_number(const cJSON *obj, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

const char *np_json_get_string(const cJSON *obj, const char *key,
                               const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : dflt;
}

cJSON *np_json_add_number(cJSON *obj, const char *key, double v) {
  if (!isfinite(v))
    return cJSON_AddNullToObject(obj, key);
  return cJSON_AddNumberToObject(obj, key, v);
}
