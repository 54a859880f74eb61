/*
 * np_schema_int.h - internals shared by the np_schema_*.c files.
 *
 * A compiled schema is the caller's document duplicated once (the schema
 * owns the copy) plus a side table keyed by cJSON node address: every node
 * that is a schema, every compiled regex (pattern, patternProperties keys)
 * and every $ref's resolved target.  Validation interprets the cJSON tree
 * directly and consults the side table, so nothing is resolved twice and a
 * compiled schema is immutable (safe to share between threads).
 */
#ifndef NP_SCHEMA_INT_H
#define NP_SCHEMA_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "np_schema.h"

/* Cap on nested schema evaluations for one instance (a $ref loop on the
 * same instance location hits this instead of the stack). */
#define NP_SCHEMA_MAX_DEPTH 512
/* Cap on schema evaluations per validate call (bounds pathological
 * anyOf/oneOf nesting, e.g. from fuzzed input). */
#define NP_SCHEMA_MAX_STEPS 5000000UL

enum np_schema_aux_kind {
  NP_AUX_SCHEMA = 1, /* key is a schema node (object or boolean)     */
  NP_AUX_REGEX = 2,  /* key is a pattern string / patternProperties item */
  NP_AUX_REF = 3     /* key is a $ref string node; target resolved    */
};

/* What a keyword does at validation, decided once by the compiler (its
 * table in np_schema_compile.c) and kept in the keyword node's type above
 * cJSON's bits (cJSON tests types with & 0xFF; np_json.h uses bits 12-13
 * of numbers), so evaluation dispatches without comparing names.
 * NP_KW_NONE: nothing to evaluate (annotations, $id/$defs/$schema, and
 * then/else/minContains/maxContains, which their siblings read). */
enum np_kw {
  NP_KW_NONE = 0,
  NP_KW_REF,
  NP_KW_ALL_OF,
  NP_KW_ANY_OF,
  NP_KW_ONE_OF,
  NP_KW_NOT,
  NP_KW_IF,
  NP_KW_PROPERTIES,
  NP_KW_PATTERN_PROPERTIES,
  NP_KW_ADDITIONAL_PROPERTIES,
  NP_KW_PROPERTY_NAMES,
  NP_KW_DEPENDENT_SCHEMAS,
  NP_KW_ITEMS,
  NP_KW_PREFIX_ITEMS,
  NP_KW_CONTAINS,
  NP_KW_TYPE,
  NP_KW_ENUM,
  NP_KW_CONST,
  NP_KW_MINIMUM,
  NP_KW_MAXIMUM,
  NP_KW_EXCLUSIVE_MINIMUM,
  NP_KW_EXCLUSIVE_MAXIMUM,
  NP_KW_MULTIPLE_OF,
  NP_KW_MIN_LENGTH,
  NP_KW_MAX_LENGTH,
  NP_KW_PATTERN,
  NP_KW_MIN_ITEMS,
  NP_KW_MAX_ITEMS,
  NP_KW_UNIQUE_ITEMS,
  NP_KW_MIN_PROPERTIES,
  NP_KW_MAX_PROPERTIES,
  NP_KW_REQUIRED,
  NP_KW_DEPENDENT_REQUIRED
};
#define NP_SCHEMA_KW_SHIFT 16
#define NP_SCHEMA_KW(kv) ((enum np_kw)(((kv)->type >> NP_SCHEMA_KW_SHIFT) & 0xFF))

struct np_schema_aux {
  const cJSON *key;      /* node in the schema's own copy              */
  int kind;              /* enum np_schema_aux_kind                    */
  pcre2_code *re;        /* NP_AUX_REGEX: compiled pattern (owned)     */
  const cJSON *target;   /* NP_AUX_REF: schema node the $ref names     */
};

struct np_schema {
  cJSON *doc;                 /* owned copy of the schema document     */
  struct np_schema_aux *aux;  /* sorted by key address                  */
  size_t naux;                /* entries used                           */
  size_t capaux;              /* entries allocated                      */
};

/* Side-table lookup; NULL when key has no entry of that kind. */
const struct np_schema_aux *np_schema__aux(const struct np_schema *s,
                                           const cJSON *key, int kind);

/* RFC 3986 reference resolution of ref against base (both may be relative;
 * an empty base yields ref with dot segments removed).  Returns a malloc'd
 * string or NULL on allocation failure. */
char *np_schema__uri_resolve(const char *base, const char *ref);

/* Percent-decode src into a malloc'd string; NULL on a bad escape. */
char *np_schema__pct_decode(const char *src);

/* JSON equality: numbers by value (1 == 1.0), objects ignoring key order. */
bool np_schema__json_equal(const cJSON *a, const cJSON *b);

/* Number of Unicode code points in a UTF-8 string. */
size_t np_schema__utf8_len(const char *s);

/* Is d a mathematically integral, finite number? */
bool np_schema__is_integral(double d);

/* Does the JSON type name (e.g. "integer") accept the instance? */
bool np_schema__type_matches(const char *name, const cJSON *inst);

/* Name of the instance's JSON type, for messages. */
const char *np_schema__type_name(const cJSON *inst);

/* Is inst a multiple of m (m > 0)? */
bool np_schema__multiple_of(double inst, double m);

/* State of one np_schema_validate call. */
/* One step of the instance location: an object key (borrowed from the
 * instance, which outlives the validation) or, with key NULL, an index. */
struct np_vseg {
  const char *key;
  int index;
};

struct np_vctx {
  const struct np_schema *s;
  np_schema_error_fn on_error; /* may be NULL                           */
  void *ctx;                   /* passed back to on_error               */
  int silent;      /* > 0 inside anyOf/oneOf/not/if/contains: no reports,
                    * stop at the first failure                         */
  int fatal;       /* NP_E* once evaluation must stop (limits, memory)  */
  unsigned long steps;         /* schema evaluations so far             */
  struct np_vseg *seg;         /* instance location: its segments, kept
                                  as borrowed keys / indices and written
                                  out as a JSON pointer only when an
                                  error is reported                     */
  size_t nseg, capseg;
  pcre2_match_data *md;        /* reused for every regex match          */
  pcre2_match_context *mc;     /* match/depth limits                    */
};

/* Evaluate schema against inst at the current location. */
bool np_schema__eval(struct np_vctx *v, const cJSON *schema,
                     const cJSON *inst, int depth);

/* One leaf assertion keyword (type, enum, minimum, required, ...): true
 * when it holds or the keyword is not an assertion of this kind. */
bool np_schema__assert(struct np_vctx *v, const cJSON *schema,
                       const cJSON *kv, const cJSON *inst);

/* Report an error at the current location (no-op while silent). */
void np_schema__report(struct np_vctx *v, const char *keyword,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stop evaluation with code, reporting why even while silent. */
void np_schema__fatal(struct np_vctx *v, int code, const char *keyword,
                      const char *why);

/* 1 when the regex compiled for key matches subject, 0 when not, and a
 * negative NP_E* (also set as fatal) when matching itself failed. */
int np_schema__match(struct np_vctx *v, const cJSON *key,
                     const char *subject);

/* Instance location: append a key or index; returns the depth to restore
 * with np_schema__ptr_pop, or (size_t)-1 (fatal set) without memory. */
size_t np_schema__ptr_key(struct np_vctx *v, const char *key);
size_t np_schema__ptr_index(struct np_vctx *v, int index);
void np_schema__ptr_pop(struct np_vctx *v, size_t old);

/* Short rendering of a number for messages. */
void np_schema__fmt_num(char *buf, size_t n, double d);

/* Shipped schemas, generated at configure time from the shipped schema files
 * (np_schema_embedded.c in the build tree); ends with a NULL name. */
struct np_schema_embedded {
  const char *name;          /* "run" for run.schema.json */
  const unsigned char *text; /* file contents, NUL-terminated */
  size_t len;                /* bytes, without the NUL */
};
extern const struct np_schema_embedded np_schema__embedded[];

#endif /* NP_SCHEMA_INT_H */
