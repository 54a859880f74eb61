/*
 * np_json.c - bounded JSON loading and writing over cJSON.
 *
 * Limits and byte-level rules are enforced before cJSON sees the text: the
 * byte size up front, then the validating tokenizer of np_json_scan.c
 * (UTF-8, control characters, grammar, and the nesting depth: cJSON's own
 * compile-time limit of 1000 is far above what evidence needs and would be
 * a stack risk for fuzzed input).  Why two passes rather than one parser
 * of our own: cJSON stays the one builder of trees, and the scan is a
 * fraction of its cost (no allocation per value).  After parsing, the tree
 * is walked once to take the scan's number tags, to reject non-finite
 * numbers (strtod turns 1e999 into inf) and duplicate member names, which
 * are compared decoded, as every reader sees them.
 */
#include "np_json.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"
#include "np_json_scan.h"

static void limits_or_default(const struct np_json_limits *lim,
                              size_t *max_bytes, int *max_depth) {
  *max_bytes = NP_JSON_DEFAULT_MAX_BYTES;
  *max_depth = NP_JSON_DEFAULT_MAX_DEPTH;
  if (lim != NULL && lim->max_bytes != 0)
    *max_bytes = lim->max_bytes;
  if (lim != NULL && lim->max_depth != 0)
    *max_depth = lim->max_depth;
}

/* The path from the root to the value being checked: one link per level,
 * on the C stack, turned into a JSON pointer only when a check fails. */
struct chain {
  const struct chain *up; /* NULL at the root                     */
  const cJSON *item;      /* the value at this level              */
  int idx;                /* its index when the parent is an array */
};

/* Append the pointer of c to out[*n..cap).  Names are escaped per RFC 6901
 * and control characters (C0, DEL, C1) shown as \xNN bytes, the form the
 * agent's logs use, so a pointer is safe to print on a terminal. */
static void chain_pointer(const struct chain *c, char *out, size_t cap,
                          size_t *n) {
  if (c == NULL || c->up == NULL)
    return;
  chain_pointer(c->up, out, cap, n);
  char tmp[16];
  if (*n + 1 >= cap)
    return;
  if (cJSON_IsArray(c->up->item)) {
    snprintf(tmp, sizeof(tmp), "/%d", c->idx);
    size_t t = strlen(tmp);
    if (*n + t < cap) {
      memcpy(out + *n, tmp, t + 1);
      *n += t;
    }
    return;
  }
  out[(*n)++] = '/';
  for (const char *k = c->item->string ? c->item->string : ""; *k; k++) {
    unsigned char ch = (unsigned char)*k, nx = (unsigned char)k[1];
    if (ch == '~' || ch == '/')
      snprintf(tmp, sizeof(tmp), "~%c", ch == '~' ? '0' : '1');
    else if (ch < 0x20 || ch == 0x7f)
      snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
    else if (ch == 0xc2 && nx >= 0x80 && nx <= 0x9f) { /* C1 controls */
      snprintf(tmp, sizeof(tmp), "\\xc2\\x%02x", nx);
      k++;
    } else
      snprintf(tmp, sizeof(tmp), "%c", ch);
    size_t t = strlen(tmp);
    if (*n + t >= cap)
      break;
    memcpy(out + *n, tmp, t + 1);
    *n += t;
  }
  out[*n] = '\0';
}

struct walk {
  const struct np_json_numtags *tags; /* from the byte scan            */
  size_t next_tag;                    /* first tag not yet applied     */
  size_t nums;                        /* numbers visited               */
  struct np_json_error *err;
};

static int walk_fail(const struct chain *c, int code, const char *why,
                     struct np_json_error *err) {
  size_t n = 0;
  err->pointer[0] = '\0';
  chain_pointer(c, err->pointer, sizeof(err->pointer), &n);
  err->located = 1;
  err->offset = 0;
  snprintf(err->reason, sizeof(err->reason), "%s", why);
  return code;
}

static int unlocated(struct np_json_error *err, int code, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));
static int unlocated(struct np_json_error *err, int code, const char *fmt,
                     ...) {
  va_list ap;
  va_start(ap, fmt);
  err->located = 0;
  err->pointer[0] = '\0';
  err->offset = 0;
  vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
  va_end(ap);
  return code;
}

/* A member name's FNV-1a hash: names are compared by hash first, by
 * bytes only when two hashes agree. */
static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

struct slot {
  uint64_t hash;      /* 0: empty (a hash of 0 is stored as 1) */
  const cJSON *item;
};

#define DUP_PAIRWISE 8 /* up to this many members: compared pairwise   */
#define DUP_STACK 64   /* hash slots on the stack (objects up to 32)   */

/* The first member of obj (in document order) whose name repeats an
 * earlier one, or NULL.  Small objects pairwise; larger ones through an
 * open-addressing set of name hashes, one pass, bytes compared only when
 * two hashes agree. */
static int find_duplicate(const cJSON *obj, const cJSON **dup) {
  size_t n = 0;
  *dup = NULL;
  for (const cJSON *c = obj->child; c != NULL; c = c->next)
    n++;
  if (n <= DUP_PAIRWISE) {
    for (const cJSON *c = obj->child; c != NULL; c = c->next)
      for (const cJSON *d = obj->child; d != c; d = d->next)
        if (c->string[0] == d->string[0] && strcmp(c->string, d->string) == 0) {
          *dup = c;
          return 0;
        }
    return 0;
  }
  size_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  struct slot stack[DUP_STACK];
  struct slot *t = cap <= DUP_STACK ? stack : malloc(cap * sizeof(*t));
  if (t == NULL)
    return NP_ENOMEM;
  memset(t, 0, cap * sizeof(*t));
  for (const cJSON *c = obj->child; c != NULL && *dup == NULL; c = c->next) {
    uint64_t h = name_hash(c->string);
    h = h ? h : 1;
    size_t i = (size_t)h & (cap - 1);
    for (; t[i].hash != 0; i = (i + 1) & (cap - 1))
      if (t[i].hash == h && strcmp(t[i].item->string, c->string) == 0) {
        *dup = c;
        break;
      }
    t[i].hash = h;
    t[i].item = c;
  }
  if (t != stack)
    free(t);
  return 0;
}

/* One walk over the tree: tags from the byte scan onto the numbers they
 * belong to (both in document order), non-finite numbers, duplicate
 * member names.  Recursion is bounded by the depth limit. */
static int walk(cJSON *item, const struct chain *at, struct walk *w) {
  if (cJSON_IsNumber(item)) {
    if (!isfinite(item->valuedouble))
      return walk_fail(at, NP_ENONFINITE,
                       "number is not finite (NaN or Infinity)", w->err);
    if (w->next_tag < w->tags->n &&
        w->tags->v[w->next_tag].ordinal == w->nums)
      item->type |= w->tags->v[w->next_tag++].flags;
    w->nums++;
    return 0;
  }
  if (cJSON_IsObject(item) && item->child != NULL) {
    const cJSON *dup;
    if (find_duplicate(item, &dup) != 0)
      return unlocated(w->err, NP_ENOMEM, "out of memory");
    if (dup != NULL) {
      struct chain c = {at, dup, 0};
      return walk_fail(&c, NP_EPARSE, "duplicate member name", w->err);
    }
  }
  int idx = 0;
  for (cJSON *c = item->child; c != NULL; c = c->next, idx++) {
    struct chain link = {at, c, idx};
    int rc = walk(c, &link, w);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* cJSON writes a process-wide error position (global_error) on every
 * parse, so two threads parsing at once race on it (netproof-archive
 * checks on a second thread while the first reads): every cJSON parse of
 * the project goes through this one lock.  The only mutable static here,
 * guarding the library's own. */
static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

cJSON *np_json_cjson_parse(const char *buf, size_t len, const char **end) {
  pthread_mutex_lock(&cjson_parse_lock);
  cJSON *doc = cJSON_ParseWithLengthOpts(buf, len, end, 0);
  pthread_mutex_unlock(&cjson_parse_lock);
  return doc;
}

int np_json_is_exact_integer(const cJSON *n) {
  return cJSON_IsNumber(n) &&
         !(n->type & (NP_JSON_NUM_REAL_TEXT | NP_JSON_NUM_INEXACT)) &&
         isfinite(n->valuedouble) && floor(n->valuedouble) == n->valuedouble;
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

int np_json_parse_at(const char *buf, size_t len,
                     const struct np_json_limits *lim, cJSON **out,
                     struct np_json_error *err) {
  size_t max_bytes;
  int max_depth;
  limits_or_default(lim, &max_bytes, &max_depth);
  if (buf == NULL || out == NULL)
    return unlocated(err, NP_EINVAL, "no input");
  if (len > max_bytes)
    return unlocated(err, NP_ETOOBIG, "%zu bytes exceeds the limit of %zu",
                     len, max_bytes);
  struct np_json_numtags tags = {0};
  int rc = np_json_scan(buf, len, max_depth, &tags, err);
  if (rc != 0)
    return rc;
  const char *end = NULL;
  cJSON *doc = np_json_cjson_parse(buf, len, &end);
  if (doc == NULL) {
    /* The scan accepted the grammar; only memory or a cJSON limit remain. */
    np_json_numtags_free(&tags);
    size_t off = (end != NULL && end >= buf) ? (size_t)(end - buf) : 0;
    return unlocated(err, NP_EPARSE, "malformed JSON at byte %zu", off);
  }
  struct walk w = {.tags = &tags, .err = err};
  struct chain root = {NULL, doc, 0};
  rc = walk(doc, &root, &w);
  np_json_numtags_free(&tags);
  if (rc != 0) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  return 0;
}

int np_json_parse(const char *buf, size_t len, const struct np_json_limits *lim,
                  cJSON **out, struct np_errbuf *eb) {
  struct np_json_error err;
  int rc = np_json_parse_at(buf, len, lim, out, &err);
  if (rc == 0)
    return 0;
  if (!err.located)
    return np_errbuf_set(eb, rc, "%s", err.reason);
  return np_errbuf_set(eb, rc, "%s: %s", err.pointer[0] ? err.pointer : "/",
                       err.reason);
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
