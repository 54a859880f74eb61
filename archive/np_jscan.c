/*
 * np_jscan.c - string members of a JSON object, read without a tree
 * (np_jscan.h).  Values that are not wanted are skipped by bracket depth,
 * strings by their quotes; a wanted string with escapes is decoded by
 * cJSON (a JSON string is a JSON document), one without is copied.  Keys
 * are compared as written: a key spelled with escapes is another key.
 */
#include "np_jscan.h"

#include "np_json.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define JSCAN_MAX_DEPTH 256

struct jscan {
  const char *p;   /* next byte   */
  const char *end; /* past the text */
};

static void ws(struct jscan *s) {
  while (s->p < s->end &&
         (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

/* A string at s->p: *b and *n its bytes between the quotes, *esc set when it
 * holds a backslash.  0 or -1 (the caller's NP_EPARSE). */
static int str(struct jscan *s, const char **b, size_t *n, int *esc) {
  if (s->p >= s->end || *s->p != '"')
    return -1;
  const char *q = ++s->p;
  for (;;) { /* the next quote not escaped by an odd run of backslashes */
    q = q < s->end ? memchr(q, '"', (size_t)(s->end - q)) : NULL;
    if (q == NULL)
      return -1;
    const char *r = q;
    while (r > s->p && r[-1] == '\\')
      r--;
    if ((q - r) % 2 == 0)
      break;
    q++;
  }
  *b = s->p;
  *n = (size_t)(q - s->p);
  *esc = memchr(*b, '\\', *n) != NULL;
  s->p = q + 1;
  return 0;
}

/* Skip one value of any kind. */
static int skip_value(struct jscan *s) {
  const char *b;
  size_t n;
  int esc, depth = 0;
  if (s->p >= s->end)
    return -1;
  if (*s->p == '"')
    return str(s, &b, &n, &esc);
  if (*s->p != '{' && *s->p != '[') {
    const char *q = s->p;
    while (q < s->end && !strchr(",}] \t\r\n", *q))
      q++;
    if (q == s->p)
      return -1;
    s->p = q;
    return 0;
  }
  while (s->p < s->end) {
    char c = *s->p;
    if (!(c == '"' || c == '{' || c == '[' || c == '}' || c == ']')) {
      s->p++;
      continue;
    }
    if (c == '"') {
      if (str(s, &b, &n, &esc) != 0)
        return -1;
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > JSCAN_MAX_DEPTH)
        return -1;
    } else if (c == '}' || c == ']') {
      s->p++;
      if (--depth == 0)
        return 0;
      continue;
    }
    s->p++;
  }
  return -1;
}

/* Decode the string value b[0..n) (escaped or not) into *out. */
static int take(const char *b, size_t n, int esc, char **out) {
  if (!esc) {
    *out = strndup(b, n);
    return *out ? 0 : NP_ENOMEM;
  }
  cJSON *v = np_json_cjson_parse(b - 1, n + 2, NULL);
  if (!cJSON_IsString(v)) {
    cJSON_Delete(v);
    return NP_EPARSE;
  }
  *out = strdup(v->valuestring);
  cJSON_Delete(v);
  return *out ? 0 : NP_ENOMEM;
}

/* Index of the wanted key "prefix" + name (prefix "" or "outer/"), or -1;
 * *outer set when name is the outer part of some "name/..." key. */
static int want(const char *const *keys, size_t nkeys, const char *prefix,
                const char *name, size_t n, int *outer) {
  size_t pl = strlen(prefix);
  *outer = 0;
  for (size_t i = 0; i < nkeys; i++) {
    const char *k = keys[i];
    if (strncmp(k, prefix, pl) != 0 || strncmp(k + pl, name, n) != 0)
      continue;
    if (k[pl + n] == '\0')
      return (int)i;
    if (k[pl + n] == '/' && pl == 0)
      *outer = 1;
  }
  return -1;
}

/* Members of the object at s->p; prefix "" at the top, "outer/" one
 * level down. */
static int members(struct jscan *s, const char *const *keys, size_t nkeys,
                   char **vals, const char *prefix, int scalars) {
  if (s->p >= s->end || *s->p != '{')
    return NP_EPARSE;
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == '}') {
    s->p++;
    return 0;
  }
  for (;;) {
    const char *k, *v;
    size_t kn, vn;
    int kesc, vesc, outer, rc;
    ws(s);
    if (str(s, &k, &kn, &kesc) != 0)
      return NP_EPARSE;
    ws(s);
    if (s->p >= s->end || *s->p != ':')
      return NP_EPARSE;
    s->p++;
    ws(s);
    int i = kesc ? -1 : want(keys, nkeys, prefix, k, kn, &outer);
    if (i >= 0 && s->p < s->end && *s->p == '"') {
      if (str(s, &v, &vn, &vesc) != 0)
        return NP_EPARSE;
      if (vals[i] == NULL && (rc = take(v, vn, vesc, &vals[i])) != 0)
        return rc;
    } else if (!kesc && outer && s->p < s->end && *s->p == '{' &&
               kn < 200) {
      char sub[202];
      memcpy(sub, k, kn);
      memcpy(sub + kn, "/", 2);
      if ((rc = members(s, keys, nkeys, vals, sub, scalars)) != 0)
        return rc;
    } else {
      const char *v0 = s->p;
      if (skip_value(s) != 0)
        return NP_EPARSE;
      if (i >= 0 && scalars && vals[i] == NULL && *v0 != '{' && *v0 != '[' &&
          (vals[i] = strndup(v0, (size_t)(s->p - v0))) == NULL)
        return NP_ENOMEM;
    }
    ws(s);
    if (s->p < s->end && *s->p == ',') {
      s->p++;
      continue;
    }
    if (s->p < s->end && *s->p == '}') {
      s->p++;
      return 0;
    }
    return NP_EPARSE;
  }
}

static int scan(const char *text, size_t len, const char *const *keys,
                size_t nkeys, char **vals, int scalars) {
  struct jscan s = {text, text + len};
  for (size_t i = 0; i < nkeys; i++)
    vals[i] = NULL;
  ws(&s);
  int rc = members(&s, keys, nkeys, vals, "", scalars);
  ws(&s);
  if (rc == 0 && s.p != s.end)
    rc = NP_EPARSE;
  if (rc != 0)
    for (size_t i = 0; i < nkeys; i++) {
      free(vals[i]);
      vals[i] = NULL;
    }
  return rc;
}

int np_jscan_strings(const char *text, size_t len, const char *const *keys,
                     size_t nkeys, char **vals) {
  return scan(text, len, keys, nkeys, vals, 0);
}

int np_jscan_scalars(const char *text, size_t len, const char *const *keys,
                     size_t nkeys, char **vals) {
  return scan(text, len, keys, nkeys, vals, 1);
}
