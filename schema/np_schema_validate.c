/*
 * np_schema_validate.c - evaluation of a compiled schema against an
 * instance: the applicator keywords ($ref, allOf/anyOf/oneOf/not,
 * if/then/else, properties & co., items & co., contains,
 * dependentSchemas) and the instance-location bookkeeping.
 *
 * Errors under an applicator whose outcome only matters as a whole
 * (anyOf, oneOf, not, if, contains) are not reported individually: the
 * applicator reports one summary error instead, so every printed error is
 * a real reason the document fails.  Evaluation depth and step count are
 * capped: a $ref cycle on one instance location stops with NP_ETOODEEP.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_schema_int.h"

#define NP_SCHEMA_REGEX_MATCH_LIMIT 1000000u
#define NP_SCHEMA_REGEX_DEPTH_LIMIT 10000u

/* The current location as a JSON pointer (RFC 6901) into buf. */
static void ptr_text(const struct np_vctx *v, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < v->nseg && o + 1 < len; i++) {
    buf[o++] = '/';
    if (v->seg[i].key == NULL) {
      int n = snprintf(buf + o, len - o, "%d", v->seg[i].index);
      o += n > 0 ? (size_t)n : 0;
      continue;
    }
    for (const char *k = v->seg[i].key; *k && o + 3 < len; k++) {
      if (*k == '~' || *k == '/') {
        buf[o++] = '~';
        buf[o++] = *k == '~' ? '0' : '1';
      } else {
        buf[o++] = *k;
      }
    }
  }
  buf[o < len ? o : len - 1] = '\0';
}

void np_schema__report(struct np_vctx *v, const char *keyword,
                       const char *fmt, ...) {
  if (v->silent || v->fatal || !v->on_error)
    return;
  char reason[256], ptr[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  ptr_text(v, ptr, sizeof ptr);
  v->on_error(v->ctx, ptr, keyword, reason);
}

void np_schema__fatal(struct np_vctx *v, int code, const char *keyword,
                      const char *why) {
  if (v->fatal)
    return;
  if (v->on_error) {
    char ptr[1024];
    ptr_text(v, ptr, sizeof ptr);
    v->on_error(v->ctx, ptr, keyword, why);
  }
  v->fatal = code;
}

int np_schema__match(struct np_vctx *v, const cJSON *key,
                     const char *subject) {
  const struct np_schema_aux *a = np_schema__aux(v->s, key, NP_AUX_REGEX);
  if (!a) {
    np_schema__fatal(v, NP_EINVAL, "pattern", "regex was not compiled");
    return NP_EINVAL;
  }
  int rc = pcre2_match(a->re, (PCRE2_SPTR)subject, strlen(subject), 0, 0,
                       v->md, v->mc);
  if (rc >= 0)
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH)
    return 0;
  np_schema__fatal(v, NP_ERANGE, "pattern",
                   "regex match exceeded its backtracking limit");
  return NP_ERANGE;
}

static size_t ptr_push(struct np_vctx *v, const char *key, int index) {
  if (v->nseg == v->capseg) {
    size_t cap = v->capseg ? 2 * v->capseg : 32;
    struct np_vseg *n = realloc(v->seg, cap * sizeof *n);
    if (!n) {
      np_schema__fatal(v, NP_ENOMEM, "schema", "out of memory");
      return (size_t)-1;
    }
    v->seg = n;
    v->capseg = cap;
  }
  v->seg[v->nseg] = (struct np_vseg){key, index};
  return v->nseg++;
}

size_t np_schema__ptr_key(struct np_vctx *v, const char *key) {
  return ptr_push(v, key, 0);
}

size_t np_schema__ptr_index(struct np_vctx *v, int index) {
  return ptr_push(v, NULL, index);
}

void np_schema__ptr_pop(struct np_vctx *v, size_t old) {
  if (old == (size_t)-1)
    return;
  v->nseg = old;
}

/* Evaluate a subschema at a child location (key, or index when key is
 * NULL). */
static bool eval_at(struct np_vctx *v, const cJSON *schema, const cJSON *inst,
                    const char *key, int index, int depth) {
  size_t old = key ? np_schema__ptr_key(v, key) : np_schema__ptr_index(v, index);
  if (old == (size_t)-1)
    return false;
  bool ok = np_schema__eval(v, schema, inst, depth + 1);
  np_schema__ptr_pop(v, old);
  return ok;
}

/* Evaluate without reporting; the caller reports a summary. */
static bool eval_quiet(struct np_vctx *v, const cJSON *schema,
                       const cJSON *inst, int depth) {
  v->silent++;
  bool ok = np_schema__eval(v, schema, inst, depth + 1);
  v->silent--;
  return ok;
}

static bool apply_combinator(struct np_vctx *v, const cJSON *kv,
                             const cJSON *inst, int depth) {
  const char *kw = kv->string;
  enum np_kw id = NP_SCHEMA_KW(kv);
  int n = cJSON_GetArraySize(kv), matched = 0;
  bool ok = true;
  if (id == NP_KW_ALL_OF) {
    for (const cJSON *x = kv->child; x && (ok || !v->silent); x = x->next)
      ok = np_schema__eval(v, x, inst, depth + 1) && ok;
    return ok;
  }
  bool one = id == NP_KW_ONE_OF;
  for (const cJSON *x = kv->child; x && !v->fatal; x = x->next) {
    if (eval_quiet(v, x, inst, depth))
      matched++;
    if ((one && matched > 1) || (!one && matched > 0))
      break;
  }
  if (v->fatal)
    return false;
  if (!one && matched == 0)
    np_schema__report(v, kw, "matches none of the %d alternatives", n);
  else if (one && matched == 0)
    np_schema__report(v, kw, "matches none of the %d alternatives", n);
  else if (one && matched > 1)
    np_schema__report(v, kw, "matches more than one of the %d alternatives",
                      n);
  return one ? matched == 1 : matched > 0;
}

static bool apply_object(struct np_vctx *v, const cJSON *schema,
                         const cJSON *kv, const cJSON *inst, int depth) {
  const char *kw = kv->string;
  enum np_kw id = NP_SCHEMA_KW(kv);
  bool ok = true;
  if (id == NP_KW_PROPERTIES) {
    for (const cJSON *p = kv->child; p && (ok || !v->silent); p = p->next) {
      const cJSON *iv = cJSON_GetObjectItemCaseSensitive(inst, p->string);
      if (iv)
        ok = eval_at(v, p, iv, p->string, 0, depth) && ok;
    }
    return ok;
  }
  if (id == NP_KW_DEPENDENT_SCHEMAS) {
    for (const cJSON *p = kv->child; p && (ok || !v->silent); p = p->next)
      if (cJSON_GetObjectItemCaseSensitive(inst, p->string))
        ok = np_schema__eval(v, p, inst, depth + 1) && ok;
    return ok;
  }
  const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
  const cJSON *pats =
      cJSON_GetObjectItemCaseSensitive(schema, "patternProperties");
  for (const cJSON *m = inst->child; m && (ok || !v->silent) && !v->fatal;
       m = m->next) {
    if (id == NP_KW_PROPERTY_NAMES) {
      cJSON name = {0};
      name.type = cJSON_String;
      name.valuestring = m->string;
      ok = eval_at(v, kv, &name, m->string, 0, depth) && ok;
      continue;
    }
    bool by_pattern = false;
    for (const cJSON *p = pats ? pats->child : NULL; p; p = p->next) {
      int r = np_schema__match(v, p, m->string);
      if (r < 0)
        return false;
      by_pattern = by_pattern || r == 1;
      if (r == 1 && id == NP_KW_PATTERN_PROPERTIES)
        ok = eval_at(v, p, m, m->string, 0, depth) && ok;
    }
    if (id != NP_KW_ADDITIONAL_PROPERTIES || by_pattern ||
        (props && cJSON_GetObjectItemCaseSensitive(props, m->string)))
      continue;
    if (cJSON_IsFalse(kv)) {
      size_t old = np_schema__ptr_key(v, m->string);
      np_schema__report(v, kw, "property is not allowed");
      np_schema__ptr_pop(v, old);
      ok = false;
    } else {
      ok = eval_at(v, kv, m, m->string, 0, depth) && ok;
    }
  }
  return ok;
}

static bool apply_contains(struct np_vctx *v, const cJSON *schema,
                           const cJSON *kv, const cJSON *inst, int depth) {
  const cJSON *mn = cJSON_GetObjectItemCaseSensitive(schema, "minContains");
  const cJSON *mx = cJSON_GetObjectItemCaseSensitive(schema, "maxContains");
  double lo = mn ? mn->valuedouble : 1.0;
  int count = 0;
  for (const cJSON *x = inst->child; x && !v->fatal; x = x->next)
    if (eval_quiet(v, kv, x, depth))
      count++;
  if (v->fatal)
    return false;
  if ((double)count < lo) {
    np_schema__report(v, mn ? "minContains" : "contains",
                      "%d items match \"contains\", at least %.0f needed",
                      count, lo);
    return false;
  }
  if (mx && (double)count > mx->valuedouble) {
    np_schema__report(v, "maxContains",
                      "%d items match \"contains\", at most %.0f allowed",
                      count, mx->valuedouble);
    return false;
  }
  return true;
}

static bool apply_array(struct np_vctx *v, const cJSON *schema,
                        const cJSON *kv, const cJSON *inst, int depth) {
  const char *kw = kv->string;
  enum np_kw id = NP_SCHEMA_KW(kv);
  bool ok = true;
  if (id == NP_KW_CONTAINS)
    return apply_contains(v, schema, kv, inst, depth);
  if (id == NP_KW_PREFIX_ITEMS) {
    const cJSON *x = inst->child;
    int i = 0;
    for (const cJSON *p = kv->child; p && x && (ok || !v->silent);
         p = p->next, x = x->next, i++)
      ok = eval_at(v, p, x, NULL, i, depth) && ok;
    return ok;
  }
  /* items: the elements after prefixItems */
  const cJSON *pre = cJSON_GetObjectItemCaseSensitive(schema, "prefixItems");
  int i = 0, start = pre ? cJSON_GetArraySize(pre) : 0;
  for (const cJSON *x = inst->child; x && (ok || !v->silent) && !v->fatal;
       x = x->next, i++) {
    if (i < start)
      continue;
    if (cJSON_IsFalse(kv)) {
      size_t old = np_schema__ptr_index(v, i);
      np_schema__report(v, kw, "no item is allowed at this position");
      np_schema__ptr_pop(v, old);
      ok = false;
    } else {
      ok = eval_at(v, kv, x, NULL, i, depth) && ok;
    }
  }
  return ok;
}

/* One keyword, by the id the compiler gave it (no name comparisons). */
static bool apply_keyword(struct np_vctx *v, const cJSON *schema,
                          const cJSON *kv, const cJSON *inst, int depth) {
  switch (NP_SCHEMA_KW(kv)) {
  case NP_KW_NONE:
    return true;
  case NP_KW_REF: {
    const struct np_schema_aux *a = np_schema__aux(v->s, kv, NP_AUX_REF);
    return a && np_schema__eval(v, a->target, inst, depth + 1);
  }
  case NP_KW_ALL_OF:
  case NP_KW_ANY_OF:
  case NP_KW_ONE_OF:
    return apply_combinator(v, kv, inst, depth);
  case NP_KW_NOT:
    if (!eval_quiet(v, kv, inst, depth))
      return !v->fatal;
    np_schema__report(v, kv->string, "matches a schema it must not match");
    return false;
  case NP_KW_IF: {
    bool cond = eval_quiet(v, kv, inst, depth);
    const cJSON *branch =
        cJSON_GetObjectItemCaseSensitive(schema, cond ? "then" : "else");
    if (v->fatal)
      return false;
    return branch ? np_schema__eval(v, branch, inst, depth + 1) : true;
  }
  case NP_KW_PROPERTIES:
  case NP_KW_PATTERN_PROPERTIES:
  case NP_KW_ADDITIONAL_PROPERTIES:
  case NP_KW_PROPERTY_NAMES:
  case NP_KW_DEPENDENT_SCHEMAS:
    return cJSON_IsObject(inst) ? apply_object(v, schema, kv, inst, depth)
                                : true;
  case NP_KW_ITEMS:
  case NP_KW_PREFIX_ITEMS:
  case NP_KW_CONTAINS:
    return cJSON_IsArray(inst) ? apply_array(v, schema, kv, inst, depth)
                               : true;
  default:
    return np_schema__assert(v, schema, kv, inst);
  }
}

bool np_schema__eval(struct np_vctx *v, const cJSON *schema,
                     const cJSON *inst, int depth) {
  if (v->fatal)
    return false;
  if (depth > NP_SCHEMA_MAX_DEPTH) {
    np_schema__fatal(v, NP_ETOODEEP, "$ref",
                     "schema evaluation too deep (a $ref cycle?)");
    return false;
  }
  if (++v->steps > NP_SCHEMA_MAX_STEPS) {
    np_schema__fatal(v, NP_ERANGE, "schema",
                     "evaluation step limit exceeded");
    return false;
  }
  if (cJSON_IsTrue(schema))
    return true;
  if (cJSON_IsFalse(schema)) {
    np_schema__report(v, "false", "no value is allowed here");
    return false;
  }
  bool ok = true;
  for (const cJSON *kv = schema->child; kv && !v->fatal; kv = kv->next) {
    ok = apply_keyword(v, schema, kv, inst, depth) && ok;
    if (!ok && v->silent)
      break;
  }
  return ok && !v->fatal;
}

int np_schema_validate(const struct np_schema *s, const cJSON *instance,
                       np_schema_error_fn on_error, void *ctx) {
  if (!s || !instance)
    return NP_EINVAL;
  struct np_vctx v = {.s = s, .on_error = on_error, .ctx = ctx};
  int rc = NP_ENOMEM;
  v.md = pcre2_match_data_create(1, NULL);
  v.mc = pcre2_match_context_create(NULL);
  if (!v.md || !v.mc)
    goto cleanup;
  pcre2_set_match_limit(v.mc, NP_SCHEMA_REGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(v.mc, NP_SCHEMA_REGEX_DEPTH_LIMIT);
  bool ok = np_schema__eval(&v, s->doc, instance, 0);
  rc = v.fatal ? v.fatal : ok ? 0 : NP_ESCHEMA;
cleanup:
  pcre2_match_context_free(v.mc);
  pcre2_match_data_free(v.md);
  free(v.seg);
  return rc;
}
