/*
 * np_json_scan.c - validating JSON tokenizer (np_json_scan.h).
 *
 * One pass, no allocation per value: an explicit stack of open containers
 * (bounded by the depth limit) holds, for each, the current array index or
 * the raw bytes of the current member name, which is all an error message
 * needs to name the value as a JSON pointer.  Inside strings, bytes that
 * need no check are skipped in a tight loop (they are all but the
 * quote, the backslash, control characters and non-ASCII bytes), one
 * table lookup a byte.
 */
#include "np_json_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_text.h"

struct frame {
  char kind;       /* '{' or '['                                   */
  int has_key;     /* object: key/keylen name the current member   */
  size_t index;    /* array: index of the current element          */
  const char *key; /* object: raw bytes of the current member name */
  size_t keylen;
};

struct scan {
  const unsigned char *b, *p, *end;
  struct frame *stack;
  int depth, max_depth;
  size_t nums; /* numbers seen so far */
  struct np_json_numtags *tags;
  struct np_json_error *err;
};

/* Byte classes, one table lookup per byte in the hot loops: STOP ends a
 * string's fast loop (quote, backslash, control characters, non-ASCII),
 * WS is JSON whitespace, DIGIT 0-9. */
enum { STOP = 1, WS = 2, DIGIT = 4 };
static const unsigned char byte_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 3, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

void np_json_numtags_free(struct np_json_numtags *t) {
  if (t == NULL)
    return;
  free(t->v);
  memset(t, 0, sizeof(*t));
}

/* The pointer of the value being read, into out (truncated with "..."
 * when it does not fit).  Name bytes are shown as written, with '~' and
 * '/' escaped as RFC 6901 says. */
static void pointer(const struct scan *s, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < s->depth; i++) {
    const struct frame *f = &s->stack[i];
    char tok[32];
    if (f->kind == '[') {
      snprintf(tok, sizeof(tok), "/%zu", f->index);
    } else if (f->has_key) {
      if (n + 1 < cap)
        out[n++] = '/';
      for (size_t k = 0; k < f->keylen && n + 3 < cap; k++) {
        char c = f->key[k];
        if (c == '~' || c == '/') {
          out[n++] = '~';
          out[n++] = c == '~' ? '0' : '1';
        } else {
          out[n++] = (char)((unsigned char)c < 0x20 ? '?' : c);
        }
      }
      out[n] = '\0';
      continue;
    } else {
      continue; /* inside a member name: the object is the place */
    }
    size_t t = strlen(tok);
    if (n + t + 1 >= cap)
      break;
    memcpy(out + n, tok, t + 1);
    n += t;
  }
  if (n + 1 >= cap && cap > 4)
    memcpy(out + cap - 4, "...", 4);
}

static int fail(struct scan *s, int code, const char *why) {
  struct np_json_error *e = s->err;
  pointer(s, e->pointer, sizeof(e->pointer));
  e->located = 1;
  e->offset = (size_t)(s->p - s->b);
  snprintf(e->reason, sizeof(e->reason), "%s (byte %zu)", why, e->offset);
  return code;
}

static int nomem(struct scan *s) {
  s->err->located = 0;
  snprintf(s->err->reason, sizeof(s->err->reason), "out of memory");
  return NP_ENOMEM;
}

static void ws(struct scan *s) {
  while (s->p < s->end && (byte_class[*s->p] & WS))
    s->p++;
}

static int hex4(const unsigned char *p, const unsigned char *end,
                unsigned *out) {
  unsigned v = 0;
  if (end - p < 4)
    return -1;
  for (int i = 0; i < 4; i++) {
    unsigned char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return -1;
  }
  *out = v;
  return 0;
}

/* A string at s->p (the opening quote). */
static int string(struct scan *s) {
  s->p++;
  for (;;) {
    while (s->p < s->end && !(byte_class[*s->p] & STOP))
      s->p++;
    if (s->p >= s->end)
      return fail(s, NP_EPARSE,
                  "malformed JSON: unexpected end of input in a string");
    unsigned char c = *s->p;
    if (c == '"') {
      s->p++;
      return 0;
    }
    if (c < 0x20)
      return fail(s, NP_EPARSE,
                  "unescaped control character in a string");
    if (c >= 0x80) {
      size_t n = np_utf8_seq_len(s->p, s->end);
      if (n == 0)
        return fail(s, NP_EPARSE, "invalid UTF-8 in a string");
      s->p += n;
      continue;
    }
    /* a backslash */
    if (s->end - s->p < 2)
      return fail(s, NP_EPARSE,
                  "malformed JSON: unexpected end of input in a string");
    unsigned char e = s->p[1];
    if (e != 'u') {
      if (!strchr("\"\\/bfnrt", e) || e == '\0')
        return fail(s, NP_EPARSE, "invalid escape in a string");
      s->p += 2;
      continue;
    }
    unsigned u, lo;
    if (hex4(s->p + 2, s->end, &u) != 0)
      return fail(s, NP_EPARSE, "invalid \\u escape in a string");
    if (u == 0)
      return fail(s, NP_EPARSE, "\\u0000 (NUL) in a string");
    if (u >= 0xDC00 && u <= 0xDFFF)
      return fail(s, NP_EPARSE, "lone UTF-16 surrogate in a string");
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (s->end - s->p < 12 || s->p[6] != '\\' || s->p[7] != 'u' ||
          hex4(s->p + 8, s->end, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
        return fail(s, NP_EPARSE, "lone UTF-16 surrogate in a string");
      s->p += 6;
    }
    s->p += 6;
  }
}

static int add_tag(struct scan *s, int flags) {
  struct np_json_numtags *t = s->tags;
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct np_json_numtag *v = realloc(t->v, cap * sizeof(*v));
    if (v == NULL)
      return nomem(s);
    t->v = v;
    t->cap = cap;
  }
  t->v[t->n].ordinal = s->nums;
  t->v[t->n].flags = flags;
  t->n++;
  return 0;
}

static int is_digit(const struct scan *s) {
  return s->p < s->end && (byte_class[*s->p] & DIGIT);
}

/* A number at s->p, RFC 8259 grammar.  Tags one written with a fraction
 * or exponent, and an integer outside I-JSON's exact range
 * [-(2^53-1), 2^53-1] (RFC 7493 2.2), which a double cannot keep. */
static int number(struct scan *s) {
  int flags = 0;
  if (*s->p == '-')
    s->p++;
  const unsigned char *d0 = s->p;
  if (!is_digit(s))
    return fail(s, NP_EPARSE, "malformed JSON: invalid number");
  if (*s->p == '0')
    s->p++;
  else
    while (is_digit(s))
      s->p++;
  size_t ndig = (size_t)(s->p - d0);
  if (s->p < s->end && *s->p == '.') {
    s->p++;
    if (!is_digit(s))
      return fail(s, NP_EPARSE, "malformed JSON: invalid number");
    while (is_digit(s))
      s->p++;
    flags |= NP_JSON_NUM_REAL_TEXT;
  }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
    s->p++;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
      s->p++;
    if (!is_digit(s))
      return fail(s, NP_EPARSE, "malformed JSON: invalid number");
    while (is_digit(s))
      s->p++;
    flags |= NP_JSON_NUM_REAL_TEXT;
  }
  if (!(flags & NP_JSON_NUM_REAL_TEXT) &&
      (ndig > 16 ||
       (ndig == 16 && memcmp(d0, "9007199254740991", 16) > 0)))
    flags |= NP_JSON_NUM_INEXACT;
  int rc = flags ? add_tag(s, flags) : 0;
  s->nums++;
  return rc;
}

static int literal(struct scan *s) {
  static const char *const words[] = {"true", "false", "null"};
  for (size_t i = 0; i < 3; i++) {
    size_t n = strlen(words[i]);
    if ((size_t)(s->end - s->p) >= n && memcmp(s->p, words[i], n) == 0) {
      s->p += n;
      return 0;
    }
  }
  return fail(s, NP_EPARSE, "malformed JSON: unexpected character");
}

static int push(struct scan *s, char kind) {
  if (s->depth >= s->max_depth) {
    char why[64];
    snprintf(why, sizeof(why), "nesting deeper than %d", s->max_depth);
    return fail(s, NP_ETOODEEP, why);
  }
  struct frame *f = &s->stack[s->depth++];
  memset(f, 0, sizeof(*f));
  f->kind = kind;
  s->p++;
  return 0;
}

/* A member name and its colon, at s->p (after whitespace). */
static int member_name(struct scan *s) {
  struct frame *f = &s->stack[s->depth - 1];
  f->has_key = 0;
  if (s->p >= s->end)
    return fail(s, NP_EPARSE, "malformed JSON: unexpected end of input");
  if (*s->p != '"')
    return fail(s, NP_EPARSE, "malformed JSON: expected a member name");
  const unsigned char *k = s->p + 1;
  int rc = string(s);
  if (rc != 0)
    return rc;
  f->key = (const char *)k;
  f->keylen = (size_t)(s->p - 1 - k);
  f->has_key = 1;
  ws(s);
  if (s->p >= s->end)
    return fail(s, NP_EPARSE, "malformed JSON: unexpected end of input");
  if (*s->p != ':')
    return fail(s, NP_EPARSE, "malformed JSON: expected ':'");
  s->p++;
  return 0;
}

/* One value at s->p; containers are opened and left for the loop. */
static int value(struct scan *s, int *opened) {
  *opened = 0;
  ws(s);
  if (s->p >= s->end)
    return fail(s, NP_EPARSE, "malformed JSON: unexpected end of input");
  switch (*s->p) {
  case '{':
  case '[': {
    char kind = (char)*s->p;
    int rc = push(s, kind);
    if (rc != 0)
      return rc;
    ws(s);
    if (s->p < s->end && *s->p == (kind == '{' ? '}' : ']')) {
      s->p++;
      s->depth--;
      return 0; /* empty: a complete value */
    }
    *opened = 1;
    return kind == '{' ? member_name(s) : 0;
  }
  case '"':
    return string(s);
  default:
    if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
      return number(s);
    return literal(s);
  }
}

static int scan_all(struct scan *s) {
  int opened, rc;
  if ((rc = value(s, &opened)) != 0)
    return rc;
  for (;;) {
    if (opened) { /* read the first element or member value */
      if ((rc = value(s, &opened)) != 0)
        return rc;
      continue;
    }
    if (s->depth == 0)
      break;
    /* after a value inside a container */
    struct frame *f = &s->stack[s->depth - 1];
    ws(s);
    if (s->p >= s->end)
      return fail(s, NP_EPARSE, "malformed JSON: unexpected end of input");
    char close = f->kind == '{' ? '}' : ']';
    if (*s->p == close) {
      s->p++;
      s->depth--;
      continue;
    }
    if (*s->p != ',')
      return fail(s, NP_EPARSE, f->kind == '{'
                                    ? "malformed JSON: expected ',' or '}'"
                                    : "malformed JSON: expected ',' or ']'");
    s->p++;
    if (f->kind == '[') {
      f->index++;
    } else {
      ws(s);
      if ((rc = member_name(s)) != 0)
        return rc;
    }
    if ((rc = value(s, &opened)) != 0)
      return rc;
  }
  ws(s);
  if (s->p < s->end)
    return fail(s, NP_EPARSE, "malformed JSON: trailing data");
  return 0;
}

int np_json_scan(const char *buf, size_t len, int max_depth,
                 struct np_json_numtags *tags, struct np_json_error *err) {
  struct scan s = {.b = (const unsigned char *)buf,
                   .p = (const unsigned char *)buf,
                   .end = (const unsigned char *)buf + len,
                   .max_depth = max_depth,
                   .tags = tags,
                   .err = err};
  s.stack = malloc((size_t)(max_depth > 0 ? max_depth : 1) *
                   sizeof(*s.stack));
  if (s.stack == NULL)
    return nomem(&s);
  int rc = scan_all(&s);
  free(s.stack);
  if (rc != 0)
    np_json_numtags_free(tags);
  return rc;
}
