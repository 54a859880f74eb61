/*
 * np_schema_keywords.c - the leaf assertion keywords of draft 2020-12:
 * type, enum, const, numeric bounds, multipleOf, string length (code
 * points), pattern, array and object sizes, uniqueItems, required and
 * dependentRequired.  Each reports its own failure with a short reason;
 * applicators (allOf, properties, $ref, ...) live in np_schema_validate.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_schema_int.h"

void np_schema__fmt_num(char *buf, size_t n, double d) {
  if (np_schema__is_integral(d) && fabs(d) < 1e15)
    snprintf(buf, n, "%.0f", d);
  else
    snprintf(buf, n, "%.15g", d);
}

static bool check_type(struct np_vctx *v, const cJSON *kv, const cJSON *inst) {
  if (cJSON_IsString(kv)) {
    if (np_schema__type_matches(kv->valuestring, inst))
      return true;
    np_schema__report(v, "type", "expected %s, got %s", kv->valuestring,
                      np_schema__type_name(inst));
    return false;
  }
  char names[160] = "";
  size_t used = 0;
  for (const cJSON *t = kv->child; t; t = t->next) {
    if (np_schema__type_matches(t->valuestring, inst))
      return true;
    int w = snprintf(names + used, sizeof(names) - used, "%s%s",
                     used ? " or " : "", t->valuestring);
    if (w > 0 && (size_t)w < sizeof(names) - used)
      used += (size_t)w;
  }
  np_schema__report(v, "type", "expected %s, got %s", names,
                    np_schema__type_name(inst));
  return false;
}

static bool check_number(struct np_vctx *v, const char *kw, enum np_kw id,
                         double lim, double x) {
  bool ok = true;
  const char *rel = "";
  if (id == NP_KW_MINIMUM) {
    ok = x >= lim;
    rel = "less than the minimum";
  } else if (id == NP_KW_MAXIMUM) {
    ok = x <= lim;
    rel = "greater than the maximum";
  } else if (id == NP_KW_EXCLUSIVE_MINIMUM) {
    ok = x > lim;
    rel = "not greater than the exclusive minimum";
  } else if (id == NP_KW_EXCLUSIVE_MAXIMUM) {
    ok = x < lim;
    rel = "not less than the exclusive maximum";
  } else if (id == NP_KW_MULTIPLE_OF) {
    ok = np_schema__multiple_of(x, lim);
    rel = "not a multiple of";
  }
  if (!ok) {
    char a[40], b[40];
    np_schema__fmt_num(a, sizeof(a), x);
    np_schema__fmt_num(b, sizeof(b), lim);
    np_schema__report(v, kw, "%s is %s %s", a, rel, b);
  }
  return ok;
}

/* minLength/maxLength, minItems/maxItems, minProperties/maxProperties,
 * named by the unit they count. */
static bool check_count(struct np_vctx *v, const char *kw, double lim,
                        size_t have, const char *unit) {
  bool is_min = strncmp(kw, "min", 3) == 0;
  bool ok = is_min ? (double)have >= lim : (double)have <= lim;
  if (!ok)
    np_schema__report(v, kw, "has %zu %s, %s %.0f", have, unit,
                      is_min ? "fewer than" : "more than", lim);
  return ok;
}

static bool check_unique(struct np_vctx *v, const cJSON *inst) {
  int i = 0;
  for (const cJSON *x = inst->child; x; x = x->next, i++) {
    int j = i + 1;
    for (const cJSON *y = x->next; y; y = y->next, j++)
      if (np_schema__json_equal(x, y)) {
        np_schema__report(v, "uniqueItems", "items %d and %d are equal", i,
                          j);
        return false;
      }
  }
  return true;
}

static bool check_required(struct np_vctx *v, const char *kw,
                           const cJSON *names, const cJSON *inst,
                           const char *because) {
  bool ok = true;
  for (const cJSON *n = names->child; n; n = n->next) {
    if (cJSON_GetObjectItemCaseSensitive(inst, n->valuestring))
      continue;
    ok = false;
    if (because)
      np_schema__report(v, kw, "property \"%s\" requires property \"%s\"",
                        because, n->valuestring);
    else
      np_schema__report(v, kw, "missing required property \"%s\"",
                        n->valuestring);
    if (v->silent)
      break;
  }
  return ok;
}

static bool check_enum(struct np_vctx *v, const char *kw, const cJSON *kv,
                       const cJSON *inst) {
  if (NP_SCHEMA_KW(kv) == NP_KW_CONST) {
    if (np_schema__json_equal(kv, inst))
      return true;
    np_schema__report(v, kw, "value is not the required constant");
    return false;
  }
  for (const cJSON *e = kv->child; e; e = e->next)
    if (np_schema__json_equal(e, inst))
      return true;
  np_schema__report(v, kw, "value is not one of the %d allowed values",
                    cJSON_GetArraySize(kv));
  return false;
}

static bool check_pattern(struct np_vctx *v, const cJSON *kv,
                          const cJSON *inst) {
  int m = np_schema__match(v, kv, inst->valuestring);
  if (m < 0)
    return false;
  if (m == 0)
    np_schema__report(v, "pattern", "does not match \"%.80s\"",
                      kv->valuestring);
  return m == 1;
}

/* One leaf keyword, by the id the compiler gave it; a keyword that does
 * not apply to the instance's type holds. */
bool np_schema__assert(struct np_vctx *v, const cJSON *schema,
                       const cJSON *kv, const cJSON *inst) {
  (void)schema;
  const char *kw = kv->string;
  enum np_kw id = NP_SCHEMA_KW(kv);
  switch (id) {
  case NP_KW_TYPE:
    return check_type(v, kv, inst);
  case NP_KW_ENUM:
  case NP_KW_CONST:
    return check_enum(v, kw, kv, inst);
  case NP_KW_MINIMUM:
  case NP_KW_MAXIMUM:
  case NP_KW_EXCLUSIVE_MINIMUM:
  case NP_KW_EXCLUSIVE_MAXIMUM:
  case NP_KW_MULTIPLE_OF:
    return !cJSON_IsNumber(inst) ||
           check_number(v, kw, id, kv->valuedouble, inst->valuedouble);
  case NP_KW_MIN_LENGTH:
  case NP_KW_MAX_LENGTH:
    return !cJSON_IsString(inst) ||
           check_count(v, kw, kv->valuedouble,
                       np_schema__utf8_len(inst->valuestring), "characters");
  case NP_KW_PATTERN:
    return !cJSON_IsString(inst) || check_pattern(v, kv, inst);
  case NP_KW_MIN_ITEMS:
  case NP_KW_MAX_ITEMS:
    return !cJSON_IsArray(inst) ||
           check_count(v, kw, kv->valuedouble,
                       (size_t)cJSON_GetArraySize(inst), "items");
  case NP_KW_UNIQUE_ITEMS:
    return !cJSON_IsArray(inst) || !cJSON_IsTrue(kv) || check_unique(v, inst);
  case NP_KW_MIN_PROPERTIES:
  case NP_KW_MAX_PROPERTIES:
    return !cJSON_IsObject(inst) ||
           check_count(v, kw, kv->valuedouble,
                       (size_t)cJSON_GetArraySize(inst), "properties");
  case NP_KW_REQUIRED:
    return !cJSON_IsObject(inst) || check_required(v, kw, kv, inst, NULL);
  case NP_KW_DEPENDENT_REQUIRED: {
    bool ok = true;
    if (!cJSON_IsObject(inst))
      return true;
    for (const cJSON *d = kv->child; d && (ok || !v->silent); d = d->next)
      if (cJSON_GetObjectItemCaseSensitive(inst, d->string))
        ok = check_required(v, kw, d, inst, d->string) && ok;
    return ok;
  }
  default:
    return true;
  }
}
