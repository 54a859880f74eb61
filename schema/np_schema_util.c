/*
 * np_schema_util.c - small pure helpers for the validator: RFC 3986
 * reference resolution (for $id / $ref), percent-decoding, JSON equality,
 * UTF-8 code point counting and number predicates.  JSON pointers are
 * common/np_json.h's np_json_pointer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_schema_int.h"

/* A URI split into its five RFC 3986 components (slices of the source). */
struct np_uri {
  const char *scheme, *auth, *path, *query, *frag;
  size_t scheme_len, auth_len, path_len, query_len, frag_len;
  bool has_scheme, has_auth, has_query, has_frag;
};

static void uri_split(const char *s, struct np_uri *u) {
  memset(u, 0, sizeof(*u));
  const char *p = s;
  /* scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
  if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
    const char *q = p;
    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
           (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.')
      q++;
    if (*q == ':') {
      u->has_scheme = true;
      u->scheme = p;
      u->scheme_len = (size_t)(q - p);
      p = q + 1;
    }
  }
  if (p[0] == '/' && p[1] == '/') {
    p += 2;
    u->has_auth = true;
    u->auth = p;
    u->auth_len = strcspn(p, "/?#");
    p += u->auth_len;
  }
  u->path = p;
  u->path_len = strcspn(p, "?#");
  p += u->path_len;
  if (*p == '?') {
    p++;
    u->has_query = true;
    u->query = p;
    u->query_len = strcspn(p, "#");
    p += u->query_len;
  }
  if (*p == '#') {
    u->has_frag = true;
    u->frag = p + 1;
    u->frag_len = strlen(p + 1);
  }
}

/* RFC 3986 5.2.4 over a NUL-terminated mutable buffer, result into out
 * (at least strlen(in)+1 bytes). */
static void remove_dots(char *in, char *out) {
  size_t o = 0;
  while (*in) {
    if (strncmp(in, "../", 3) == 0) {
      in += 3;
    } else if (strncmp(in, "./", 2) == 0) {
      in += 2;
    } else if (strncmp(in, "/./", 3) == 0) {
      in += 2;
    } else if (strcmp(in, "/.") == 0) {
      in += 1;
      *in = '/';
    } else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
      if (in[3] == '\0') {
        in += 2;
        *in = '/';
      } else {
        in += 3;
      }
      while (o > 0 && out[o - 1] != '/')
        o--;
      if (o > 0)
        o--;
    } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
      in += strlen(in);
    } else {
      size_t n = (*in == '/') ? 1 : 0;
      n += strcspn(in + n, "/");
      memcpy(out + o, in, n);
      o += n;
      in += n;
    }
  }
  out[o] = '\0';
}

static void put(char *dst, size_t *o, const char *src, size_t n) {
  memcpy(dst + *o, src, n);
  *o += n;
}

char *np_schema__uri_resolve(const char *base, const char *ref) {
  struct np_uri b, r;
  uri_split(base, &b);
  uri_split(ref, &r);
  size_t cap = strlen(base) + strlen(ref) + 16;
  char *out = malloc(cap);
  char *path = malloc(cap);
  char *clean = malloc(cap);
  if (!out || !path || !clean)
    goto fail;

  const struct np_uri *s = r.has_scheme ? &r : &b;     /* scheme from */
  const struct np_uri *a = (r.has_scheme || r.has_auth) ? &r : &b;
  const struct np_uri *q = &r;                         /* query from  */
  size_t pl = 0;
  if (r.has_scheme || r.has_auth || (r.path_len > 0 && r.path[0] == '/')) {
    put(path, &pl, r.path, r.path_len);
  } else if (r.path_len == 0) {
    put(path, &pl, b.path, b.path_len);
    if (!r.has_query)
      q = &b;
  } else if (b.has_auth && b.path_len == 0) {
    put(path, &pl, "/", 1);
    put(path, &pl, r.path, r.path_len);
  } else {
    size_t keep = b.path_len;
    while (keep > 0 && b.path[keep - 1] != '/')
      keep--;
    put(path, &pl, b.path, keep);
    put(path, &pl, r.path, r.path_len);
  }
  path[pl] = '\0';
  remove_dots(path, clean);

  size_t o = 0;
  if (s->has_scheme) {
    put(out, &o, s->scheme, s->scheme_len);
    put(out, &o, ":", 1);
  }
  if (a->has_auth) {
    put(out, &o, "//", 2);
    put(out, &o, a->auth, a->auth_len);
  }
  put(out, &o, clean, strlen(clean));
  if (q->has_query) {
    put(out, &o, "?", 1);
    put(out, &o, q->query, q->query_len);
  }
  if (r.has_frag) {
    put(out, &o, "#", 1);
    put(out, &o, r.frag, r.frag_len);
  }
  out[o] = '\0';
  free(path);
  free(clean);
  return out;
fail:
  free(out);
  free(path);
  free(clean);
  return NULL;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

char *np_schema__pct_decode(const char *src) {
  char *out = malloc(strlen(src) + 1);
  if (!out)
    return NULL;
  size_t o = 0;
  for (const char *p = src; *p; p++) {
    if (*p != '%') {
      out[o++] = *p;
      continue;
    }
    int hi = hexval(p[1]);
    int lo = hi < 0 ? -1 : hexval(p[2]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
      free(out);
      return NULL;
    }
    out[o++] = (char)(hi * 16 + lo);
    p += 2;
  }
  out[o] = '\0';
  return out;
}

bool np_schema__json_equal(const cJSON *a, const cJSON *b) {
  if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
    return a->valuedouble == b->valuedouble;
  if ((a->type & 0xFF) != (b->type & 0xFF))
    return false;
  if (cJSON_IsString(a))
    return strcmp(a->valuestring, b->valuestring) == 0;
  if (cJSON_IsArray(a)) {
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
      if (!np_schema__json_equal(x, y))
        return false;
    return x == NULL && y == NULL;
  }
  if (cJSON_IsObject(a)) {
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
      return false;
    for (const cJSON *x = a->child; x; x = x->next) {
      const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
      if (!y || !np_schema__json_equal(x, y))
        return false;
    }
    return true;
  }
  return true; /* null, true, false: same type is equal */
}

size_t np_schema__utf8_len(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80)
      n++;
  return n;
}

bool np_schema__is_integral(double d) {
  return isfinite(d) && floor(d) == d;
}

bool np_schema__type_matches(const char *name, const cJSON *inst) {
  /* "integer" is exact: not 1.0 or 1e3 as written (np_json_parse tags
   * those), not beyond +-(2^53-1) where a double no longer holds every
   * integer.  Stricter than 2020-12's "zero fractional part" on purpose:
   * a reader must see the same integer whatever its JSON library. */
  if (strcmp(name, "integer") == 0)
    return np_json_is_exact_integer(inst);
  if (strcmp(name, "number") == 0)
    return cJSON_IsNumber(inst);
  if (strcmp(name, "string") == 0)
    return cJSON_IsString(inst);
  if (strcmp(name, "object") == 0)
    return cJSON_IsObject(inst);
  if (strcmp(name, "array") == 0)
    return cJSON_IsArray(inst);
  if (strcmp(name, "boolean") == 0)
    return cJSON_IsBool(inst);
  if (strcmp(name, "null") == 0)
    return cJSON_IsNull(inst);
  return false;
}

const char *np_schema__type_name(const cJSON *inst) {
  if (cJSON_IsNumber(inst))
  {
    if (np_json_is_exact_integer(inst))
      return "integer";
    if (inst->type & NP_JSON_NUM_INEXACT)
      return "an integer beyond 2^53-1 (not exact in a double)";
    if (np_schema__is_integral(inst->valuedouble))
      return "number written with a fraction or exponent";
    return "number";
  }
  if (cJSON_IsString(inst))
    return "string";
  if (cJSON_IsObject(inst))
    return "object";
  if (cJSON_IsArray(inst))
    return "array";
  if (cJSON_IsBool(inst))
    return "boolean";
  if (cJSON_IsNull(inst))
    return "null";
  return "invalid";
}

bool np_schema__multiple_of(double inst, double m) {
  /* Exact when both are integers within double's exact range. */
  if (np_schema__is_integral(inst) && np_schema__is_integral(m) &&
      fabs(inst) < 9007199254740992.0 && fabs(m) < 9007199254740992.0)
    return fmod(inst, m) == 0.0;
  double q = inst / m;
  if (!isfinite(q))
    return false;
  /* Decimal multipleOf values (0.01) are inexact in binary: allow a
   * relative error of a few ulps-worth in the quotient. */
  return fabs(q - nearbyint(q)) <= 1e-9 * fmax(1.0, fabs(q)) * 1e-3;
}
