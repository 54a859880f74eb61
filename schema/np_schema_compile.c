/*
 * np_schema_compile.c - turn a draft 2020-12 schema document into a
 * struct np_schema: check every keyword (unknown ones are NP_EUNSUPPORTED,
 * never ignored), register $id resources and $anchor names, compile
 * regexes once, and resolve every $ref to the node it names.  A $ref that
 * leaves the document (remote) or names nothing is NP_EREF here, so
 * validation never meets an unresolved reference.
 *
 * Messages in eb name the schema location as "#/json/pointer".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_schema_int.h"

#define NP_SCHEMA_MAX_NEST 256 /* schema nesting while compiling */

/* How a keyword's value is checked and walked. */
enum kw_kind {
  KW_SCHEMA,      /* one subschema                                     */
  KW_SCHEMA_MAP,  /* object whose values are subschemas                */
  KW_SCHEMA_LIST, /* non-empty array of subschemas                     */
  KW_ANY,         /* any JSON value, not a schema (const, default)     */
  KW_ARRAY,       /* any array (enum, examples)                        */
  KW_TYPE,        /* type name or array of unique type names           */
  KW_COUNT,       /* non-negative integer                              */
  KW_NUMBER,      /* any number                                        */
  KW_POSITIVE,    /* number > 0                                        */
  KW_STRING,      /* annotation string                                 */
  KW_BOOL,        /* boolean                                           */
  KW_NAMES,       /* array of unique strings (required)                */
  KW_DEPREQ,      /* object of arrays of unique strings                */
  KW_PATTERN,     /* regex string                                      */
  KW_SPECIAL      /* $id, $anchor, $ref, $schema: handled by walk()    */
};

struct kw_def {
  const char *name;
  enum kw_kind kind;
  enum np_kw id; /* what validation does with it (np_schema_int.h) */
};

static const struct kw_def kw_table[] = {
    {"$schema", KW_SPECIAL, NP_KW_NONE},
    {"$id", KW_SPECIAL, NP_KW_NONE},
    {"$anchor", KW_SPECIAL, NP_KW_NONE},
    {"$ref", KW_SPECIAL, NP_KW_REF},
    {"$defs", KW_SCHEMA_MAP, NP_KW_NONE},
    {"$comment", KW_STRING, NP_KW_NONE},
    {"title", KW_STRING, NP_KW_NONE},
    {"description", KW_STRING, NP_KW_NONE},
    {"format", KW_STRING, NP_KW_NONE},
    {"default", KW_ANY, NP_KW_NONE},
    {"examples", KW_ARRAY, NP_KW_NONE},
    {"deprecated", KW_BOOL, NP_KW_NONE},
    {"readOnly", KW_BOOL, NP_KW_NONE},
    {"writeOnly", KW_BOOL, NP_KW_NONE},
    {"type", KW_TYPE, NP_KW_TYPE},
    {"enum", KW_ARRAY, NP_KW_ENUM},
    {"const", KW_ANY, NP_KW_CONST},
    {"properties", KW_SCHEMA_MAP, NP_KW_PROPERTIES},
    {"patternProperties", KW_SCHEMA_MAP, NP_KW_PATTERN_PROPERTIES},
    {"additionalProperties", KW_SCHEMA, NP_KW_ADDITIONAL_PROPERTIES},
    {"propertyNames", KW_SCHEMA, NP_KW_PROPERTY_NAMES},
    {"required", KW_NAMES, NP_KW_REQUIRED},
    {"minProperties", KW_COUNT, NP_KW_MIN_PROPERTIES},
    {"maxProperties", KW_COUNT, NP_KW_MAX_PROPERTIES},
    {"dependentRequired", KW_DEPREQ, NP_KW_DEPENDENT_REQUIRED},
    {"dependentSchemas", KW_SCHEMA_MAP, NP_KW_DEPENDENT_SCHEMAS},
    {"items", KW_SCHEMA, NP_KW_ITEMS},
    {"prefixItems", KW_SCHEMA_LIST, NP_KW_PREFIX_ITEMS},
    {"contains", KW_SCHEMA, NP_KW_CONTAINS},
    {"minContains", KW_COUNT, NP_KW_NONE},
    {"maxContains", KW_COUNT, NP_KW_NONE},
    {"minItems", KW_COUNT, NP_KW_MIN_ITEMS},
    {"maxItems", KW_COUNT, NP_KW_MAX_ITEMS},
    {"uniqueItems", KW_BOOL, NP_KW_UNIQUE_ITEMS},
    {"minimum", KW_NUMBER, NP_KW_MINIMUM},
    {"maximum", KW_NUMBER, NP_KW_MAXIMUM},
    {"exclusiveMinimum", KW_NUMBER, NP_KW_EXCLUSIVE_MINIMUM},
    {"exclusiveMaximum", KW_NUMBER, NP_KW_EXCLUSIVE_MAXIMUM},
    {"multipleOf", KW_POSITIVE, NP_KW_MULTIPLE_OF},
    {"minLength", KW_COUNT, NP_KW_MIN_LENGTH},
    {"maxLength", KW_COUNT, NP_KW_MAX_LENGTH},
    {"pattern", KW_PATTERN, NP_KW_PATTERN},
    {"allOf", KW_SCHEMA_LIST, NP_KW_ALL_OF},
    {"anyOf", KW_SCHEMA_LIST, NP_KW_ANY_OF},
    {"oneOf", KW_SCHEMA_LIST, NP_KW_ONE_OF},
    {"not", KW_SCHEMA, NP_KW_NOT},
    {"if", KW_SCHEMA, NP_KW_IF},
    {"then", KW_SCHEMA, NP_KW_NONE},
    {"else", KW_SCHEMA, NP_KW_NONE},
};

struct named_node {
  char *uri;          /* absolute-or-relative URI (anchors: uri#name) */
  const cJSON *node;
};

struct pending_ref {
  const cJSON *ref;   /* the $ref string node                         */
  char *base;         /* base URI in force where it appeared          */
  char *where;        /* schema location, for messages                */
  const cJSON *target; /* resolved schema node                        */
};

/* Growable array of fixed-size elements. */
struct vec {
  void *v;
  size_t n, cap, size;
};

struct compile_ctx {
  struct np_schema *s;
  struct np_errbuf *eb;
  struct vec resources; /* struct named_node */
  struct vec anchors;   /* struct named_node */
  struct vec refs;      /* struct pending_ref */
  char *ptr;            /* current schema location (JSON pointer)   */
  size_t ptr_len, ptr_cap;
};

static void *vec_push(struct vec *v) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    void *nv = realloc(v->v, cap * v->size);
    if (!nv)
      return NULL;
    v->v = nv;
    v->cap = cap;
  }
  void *slot = (char *)v->v + v->n * v->size;
  memset(slot, 0, v->size);
  v->n++;
  return slot;
}

static int add_aux(struct np_schema *s, const cJSON *key, int kind,
                   pcre2_code *re, const cJSON *target) {
  if (s->naux == s->capaux) {
    size_t cap = s->capaux ? s->capaux * 2 : 64;
    struct np_schema_aux *na = realloc(s->aux, cap * sizeof(*na));
    if (!na)
      return NP_ENOMEM;
    s->aux = na;
    s->capaux = cap;
  }
  s->aux[s->naux++] = (struct np_schema_aux){key, kind, re, target};
  return 0;
}

static int aux_cmp(const void *a, const void *b) {
  const struct np_schema_aux *x = a, *y = b;
  uintptr_t kx = (uintptr_t)x->key, ky = (uintptr_t)y->key;
  if (kx != ky)
    return kx < ky ? -1 : 1;
  return (x->kind > y->kind) - (x->kind < y->kind);
}

const struct np_schema_aux *np_schema__aux(const struct np_schema *s,
                                           const cJSON *key, int kind) {
  struct np_schema_aux probe = {key, kind, NULL, NULL};
  return bsearch(&probe, s->aux, s->naux, sizeof(probe), aux_cmp);
}

/* Append "/" + escaped token to the current location; returns the old
 * length to restore with ptr_pop, or SIZE_MAX on allocation failure. */
static size_t ptr_push(struct compile_ctx *c, const char *tok) {
  size_t old = c->ptr_len, need = c->ptr_len + 2 * strlen(tok) + 2;
  if (need > c->ptr_cap) {
    char *np = realloc(c->ptr, need * 2);
    if (!np)
      return SIZE_MAX;
    c->ptr = np;
    c->ptr_cap = need * 2;
  }
  c->ptr[c->ptr_len++] = '/';
  for (const char *t = tok; *t; t++) {
    if (*t == '~' || *t == '/') {
      c->ptr[c->ptr_len++] = '~';
      c->ptr[c->ptr_len++] = *t == '~' ? '0' : '1';
    } else {
      c->ptr[c->ptr_len++] = *t;
    }
  }
  c->ptr[c->ptr_len] = '\0';
  return old;
}

static void ptr_pop(struct compile_ctx *c, size_t old) {
  c->ptr_len = old;
  c->ptr[old] = '\0';
}

static int fail(struct compile_ctx *c, int code, const char *kw,
                const char *why) {
  return np_errbuf_set(c->eb, code, "#%s: %s: %s", c->ptr, kw, why);
}

static bool valid_anchor(const char *a) {
  if (!((*a >= 'A' && *a <= 'Z') || (*a >= 'a' && *a <= 'z') || *a == '_'))
    return false;
  for (a++; *a; a++)
    if (!((*a >= 'A' && *a <= 'Z') || (*a >= 'a' && *a <= 'z') ||
          (*a >= '0' && *a <= '9') || *a == '-' || *a == '_' || *a == '.'))
      return false;
  return true;
}

static bool unique_strings(const cJSON *arr) {
  for (const cJSON *x = arr->child; x; x = x->next) {
    if (!cJSON_IsString(x))
      return false;
    for (const cJSON *y = x->next; y; y = y->next)
      if (cJSON_IsString(y) && strcmp(x->valuestring, y->valuestring) == 0)
        return false;
  }
  return true;
}

static bool valid_type(const cJSON *v) {
  static const char *const names[] = {"null",   "boolean", "object", "array",
                                      "number", "string",  "integer"};
  const cJSON *one = v;
  if (cJSON_IsArray(v)) {
    if (!unique_strings(v))
      return false;
    one = v->child;
  }
  for (; one; one = cJSON_IsArray(v) ? one->next : NULL) {
    bool ok = false;
    for (size_t i = 0; cJSON_IsString(one) && i < 7; i++)
      ok = ok || strcmp(one->valuestring, names[i]) == 0;
    if (!ok)
      return false;
  }
  return true;
}

static int compile_regex(struct compile_ctx *c, const cJSON *key,
                         const char *pattern, const char *kw) {
  int errcode = 0;
  PCRE2_SIZE erroff = 0;
  /* ECMA-262 flavour: no UCP (so \d \w \s stay ASCII), $ only at the very
   * end, \uHHHH escapes; invalid UTF-8 in a subject is a non-match. */
  uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                  PCRE2_ALT_BSUX | PCRE2_NEVER_BACKSLASH_C;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                 opts, &errcode, &erroff, NULL);
  if (!re) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(errcode, msg, sizeof(msg));
    return np_errbuf_set(c->eb, NP_EPARSE, "#%s: %s: bad regex at offset %zu: %s",
                         c->ptr, kw, (size_t)erroff, (const char *)msg);
  }
  int rc = add_aux(c->s, key, NP_AUX_REGEX, re, NULL);
  if (rc != 0)
    pcre2_code_free(re);
  return rc;
}

static int walk(struct compile_ctx *c, const cJSON *node, const char *base,
                int depth);

static int walk_child(struct compile_ctx *c, const cJSON *node,
                      const char *tok1, const char *tok2, const char *base,
                      int depth) {
  size_t old = ptr_push(c, tok1);
  if (old == SIZE_MAX)
    return NP_ENOMEM;
  if (tok2 && ptr_push(c, tok2) == SIZE_MAX)
    return NP_ENOMEM;
  int rc = walk(c, node, base, depth + 1);
  if (rc == 0)
    ptr_pop(c, old);
  return rc; /* on failure the location stays for the message */
}

/* Check one keyword's value and walk its subschemas. */
static int check_keyword(struct compile_ctx *c, const cJSON *kv,
                         const struct kw_def *def, const char *base,
                         int depth) {
  const char *kw = def->name;
  char idx[24];
  int rc = 0;
  switch (def->kind) {
  case KW_SCHEMA:
    return walk_child(c, kv, kw, NULL, base, depth);
  case KW_SCHEMA_MAP:
    if (!cJSON_IsObject(kv))
      return fail(c, NP_EPARSE, kw, "must be an object");
    for (const cJSON *x = kv->child; x && rc == 0; x = x->next) {
      if (strcmp(kw, "patternProperties") == 0) {
        size_t old = ptr_push(c, kw);
        if (old == SIZE_MAX)
          return NP_ENOMEM;
        rc = compile_regex(c, x, x->string, kw);
        if (rc != 0)
          return rc;
        ptr_pop(c, old);
      }
      rc = walk_child(c, x, kw, x->string, base, depth);
    }
    return rc;
  case KW_SCHEMA_LIST:
    if (!cJSON_IsArray(kv) || cJSON_GetArraySize(kv) == 0)
      return fail(c, NP_EPARSE, kw, "must be a non-empty array");
    int i = 0;
    for (const cJSON *x = kv->child; x && rc == 0; x = x->next, i++) {
      snprintf(idx, sizeof(idx), "%d", i);
      rc = walk_child(c, x, kw, idx, base, depth);
    }
    return rc;
  case KW_ANY:
    return 0;
  case KW_ARRAY:
    return cJSON_IsArray(kv) ? 0 : fail(c, NP_EPARSE, kw, "must be an array");
  case KW_TYPE:
    return valid_type(kv) ? 0
                          : fail(c, NP_EPARSE, kw,
                                 "must be a type name or array of them");
  case KW_COUNT:
    if (!cJSON_IsNumber(kv) || !np_schema__is_integral(kv->valuedouble) ||
        kv->valuedouble < 0)
      return fail(c, NP_EPARSE, kw, "must be a non-negative integer");
    return 0;
  case KW_NUMBER:
    return cJSON_IsNumber(kv) ? 0 : fail(c, NP_EPARSE, kw, "must be a number");
  case KW_POSITIVE:
    return cJSON_IsNumber(kv) && kv->valuedouble > 0
               ? 0
               : fail(c, NP_EPARSE, kw, "must be a number above 0");
  case KW_STRING:
    return cJSON_IsString(kv) ? 0 : fail(c, NP_EPARSE, kw, "must be a string");
  case KW_BOOL:
    return cJSON_IsBool(kv) ? 0 : fail(c, NP_EPARSE, kw, "must be a boolean");
  case KW_NAMES:
    return cJSON_IsArray(kv) && unique_strings(kv)
               ? 0
               : fail(c, NP_EPARSE, kw, "must be an array of unique strings");
  case KW_DEPREQ:
    if (!cJSON_IsObject(kv))
      return fail(c, NP_EPARSE, kw, "must be an object");
    for (const cJSON *x = kv->child; x; x = x->next)
      if (!cJSON_IsArray(x) || !unique_strings(x))
        return fail(c, NP_EPARSE, kw,
                    "values must be arrays of unique strings");
    return 0;
  case KW_PATTERN:
    if (!cJSON_IsString(kv))
      return fail(c, NP_EPARSE, kw, "must be a string");
    return compile_regex(c, kv, kv->valuestring, kw);
  case KW_SPECIAL:
    return 0;
  }
  return 0;
}

static const struct kw_def *find_kw(const char *name) {
  for (size_t i = 0; i < sizeof(kw_table) / sizeof(kw_table[0]); i++)
    if (strcmp(kw_table[i].name, name) == 0)
      return &kw_table[i];
  return NULL;
}

static int add_named(struct vec *v, char *uri, const cJSON *node) {
  struct named_node *nn = vec_push(v);
  if (!nn) {
    free(uri);
    return NP_ENOMEM;
  }
  nn->uri = uri;
  nn->node = node;
  return 0;
}

/* $schema, $id and $anchor of one schema object; *newbase gets the base
 * URI in force inside it (malloc'd) when $id changes it. */
static int walk_ids(struct compile_ctx *c, const cJSON *node,
                    const char *base, char **newbase) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "$schema");
  if (v) {
    if (!cJSON_IsString(v))
      return fail(c, NP_EPARSE, "$schema", "must be a string");
    if (strcmp(v->valuestring, "https://json-schema.org/draft/2020-12/schema") &&
        strcmp(v->valuestring, "https://json-schema.org/draft/2020-12/schema#"))
      return fail(c, NP_EUNSUPPORTED, "$schema",
                  "only draft 2020-12 is supported");
  }
  v = cJSON_GetObjectItemCaseSensitive(node, "$id");
  if (v) {
    if (!cJSON_IsString(v))
      return fail(c, NP_EPARSE, "$id", "must be a string");
    char *uri = np_schema__uri_resolve(base, v->valuestring);
    if (!uri)
      return NP_ENOMEM;
    char *hash = strchr(uri, '#');
    if (hash && hash[1] != '\0') {
      free(uri);
      return fail(c, NP_EPARSE, "$id", "must not have a fragment");
    }
    if (hash)
      *hash = '\0';
    char *copy = strdup(uri);
    if (!copy) {
      free(uri);
      return NP_ENOMEM;
    }
    int rc = add_named(&c->resources, copy, node);
    if (rc != 0) {
      free(uri);
      return rc;
    }
    *newbase = uri;
    base = uri;
  }
  v = cJSON_GetObjectItemCaseSensitive(node, "$anchor");
  if (v) {
    if (!cJSON_IsString(v) || !valid_anchor(v->valuestring))
      return fail(c, NP_EPARSE, "$anchor", "must be a plain name");
    size_t n = strlen(base) + strlen(v->valuestring) + 2;
    char *name = malloc(n);
    if (!name)
      return NP_ENOMEM;
    snprintf(name, n, "%s#%s", base, v->valuestring);
    return add_named(&c->anchors, name, node);
  }
  return 0;
}

static int walk(struct compile_ctx *c, const cJSON *node, const char *base,
                int depth) {
  if (depth > NP_SCHEMA_MAX_NEST)
    return np_errbuf_set(c->eb, NP_ETOODEEP, "#%s: schema nested too deeply",
                         c->ptr);
  if (cJSON_IsBool(node))
    return add_aux(c->s, node, NP_AUX_SCHEMA, NULL, NULL);
  if (!cJSON_IsObject(node))
    return np_errbuf_set(c->eb, NP_EPARSE,
                         "#%s: a schema must be an object or a boolean",
                         c->ptr);
  int rc = add_aux(c->s, node, NP_AUX_SCHEMA, NULL, NULL);
  char *newbase = NULL;
  if (rc == 0)
    rc = walk_ids(c, node, base, &newbase);
  if (newbase)
    base = newbase;
  for (const cJSON *kv = node->child; kv && rc == 0; kv = kv->next) {
    const struct kw_def *def = find_kw(kv->string);
    if (!def) {
      rc = np_errbuf_set(c->eb, NP_EUNSUPPORTED,
                         "#%s: %s: unsupported keyword", c->ptr, kv->string);
      break;
    }
    /* kv is a node of the schema's own copy (s->doc) */
    ((cJSON *)kv)->type |= (int)def->id << NP_SCHEMA_KW_SHIFT;
    if (def->id == NP_KW_REF) {
      if (!cJSON_IsString(kv)) {
        rc = fail(c, NP_EPARSE, "$ref", "must be a string");
        break;
      }
      struct pending_ref *pr = vec_push(&c->refs);
      if (!pr) {
        rc = NP_ENOMEM;
        break;
      }
      pr->ref = kv;
      pr->base = strdup(base);
      pr->where = strdup(c->ptr);
      if (!pr->base || !pr->where)
        rc = NP_ENOMEM;
      continue;
    }
    rc = check_keyword(c, kv, def, base, depth);
  }
  free(newbase);
  return rc;
}

static const cJSON *find_named(const struct vec *v, const char *uri) {
  const struct named_node *nn = v->v;
  for (size_t i = 0; i < v->n; i++)
    if (strcmp(nn[i].uri, uri) == 0)
      return nn[i].node;
  return NULL;
}

/* Resolve one $ref to its target schema node. */
static int resolve_ref(struct compile_ctx *c, struct pending_ref *pr) {
  const char *ref = pr->ref->valuestring;
  char *uri = np_schema__uri_resolve(pr->base, ref);
  if (!uri)
    return NP_ENOMEM;
  char *frag = strchr(uri, '#');
  if (frag)
    *frag++ = '\0';
  const cJSON *target = find_named(&c->resources, uri);
  const char *why = "names no schema in this document "
                    "(remote references are not supported)";
  if (target && frag && *frag) {
    char *dec = np_schema__pct_decode(frag);
    if (!dec) {
      target = NULL;
      why = "has a bad percent-escape";
    } else if (dec[0] == '/') {
      target = np_json_pointer(target, dec);
    } else {
      size_t ul = strlen(uri), dl = strlen(dec);
      char *name = malloc(ul + dl + 2);
      if (!name) {
        free(dec);
        free(uri);
        return NP_ENOMEM;
      }
      memcpy(name, uri, ul);
      name[ul] = '#';
      memcpy(name + ul + 1, dec, dl + 1);
      target = find_named(&c->anchors, name);
      free(name);
    }
    free(dec);
  }
  free(uri);
  if (target && !np_schema__aux(c->s, target, NP_AUX_SCHEMA)) {
    target = NULL;
    why = "does not point to a schema";
  }
  if (!target)
    return np_errbuf_set(c->eb, NP_EREF, "#%s: $ref: \"%s\" %s", pr->where,
                         ref, why);
  pr->target = target;
  return 0;
}

static void ctx_free(struct compile_ctx *c) {
  struct named_node *nn = c->resources.v;
  for (size_t i = 0; i < c->resources.n; i++)
    free(nn[i].uri);
  nn = c->anchors.v;
  for (size_t i = 0; i < c->anchors.n; i++)
    free(nn[i].uri);
  struct pending_ref *pr = c->refs.v;
  for (size_t i = 0; i < c->refs.n; i++) {
    free(pr[i].base);
    free(pr[i].where);
  }
  free(c->resources.v);
  free(c->anchors.v);
  free(c->refs.v);
  free(c->ptr);
}

int np_schema_compile(const cJSON *doc, struct np_schema **out,
                      struct np_errbuf *eb) {
  if (!doc || !out)
    return np_errbuf_set(eb, NP_EINVAL, "np_schema_compile: NULL argument");
  struct np_schema *s = calloc(1, sizeof(*s));
  struct compile_ctx c = {.s = s, .eb = eb};
  c.resources.size = c.anchors.size = sizeof(struct named_node);
  c.refs.size = sizeof(struct pending_ref);
  c.ptr = calloc(1, 64);
  c.ptr_cap = 64;
  int rc = NP_ENOMEM;
  if (!s || !c.ptr)
    goto fail;
  s->doc = cJSON_Duplicate(doc, 1);
  if (!s->doc)
    goto fail;
  char *root = strdup("");
  if (!root || (rc = add_named(&c.resources, root, s->doc)) != 0)
    goto fail;
  rc = walk(&c, s->doc, "", 0);
  if (rc != 0)
    goto fail;
  qsort(s->aux, s->naux, sizeof(*s->aux), aux_cmp);
  /* Resolve all first (lookups need the sorted table), then add. */
  struct pending_ref *pr = c.refs.v;
  for (size_t i = 0; i < c.refs.n && rc == 0; i++)
    rc = resolve_ref(&c, &pr[i]);
  for (size_t i = 0; i < c.refs.n && rc == 0; i++)
    rc = add_aux(s, pr[i].ref, NP_AUX_REF, NULL, pr[i].target);
  if (rc != 0)
    goto fail;
  qsort(s->aux, s->naux, sizeof(*s->aux), aux_cmp);
  ctx_free(&c);
  *out = s;
  return 0;
fail:
  if (rc == NP_ENOMEM)
    np_errbuf_set(eb, rc, "schema: out of memory");
  ctx_free(&c);
  np_schema_free(s);
  return rc;
}

void np_schema_free(struct np_schema *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->naux; i++)
    pcre2_code_free(s->aux[i].re);
  free(s->aux);
  cJSON_Delete(s->doc);
  free(s);
}
