/*
 * np_schema.h - JSON Schema (draft 2020-12) validation over cJSON.
 *
 * Supported keywords: type, enum, const, properties, required,
 * additionalProperties, patternProperties (PCRE2, UTF), propertyNames, items,
 * prefixItems, contains (+ minContains/maxContains), minItems/maxItems,
 * uniqueItems, minimum/maximum/exclusiveMinimum/exclusiveMaximum,
 * multipleOf, minLength/maxLength (code points), pattern,
 * minProperties/maxProperties, allOf/anyOf/oneOf/not, if/then/else,
 * dependentRequired, dependentSchemas, $ref (local $defs, JSON pointers,
 * $anchor, $id within one document), boolean schemas, and the annotations
 * $schema, $id, $defs, $comment, title, description, default, examples,
 * deprecated, readOnly, writeOnly, format (annotation only).
 * Anything else is NP_EUNSUPPORTED at compile time, never ignored.
 *
 * Shipped schemas (schema/<name>.schema.json) are embedded in the library at
 * build time, so programs validate without the source tree: a document whose
 * top-level "schema" field is "netproof/<name>/1" is checked against
 * <name>.schema.json.
 */
#ifndef NP_SCHEMA_H
#define NP_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"

struct np_schema; /* a compiled schema; immutable after creation */

/* Compile a schema from a parsed document; the schema keeps its own copy.
 * NP_EUNSUPPORTED (unknown keyword, with pointer in eb), NP_EREF (a $ref
 * that does not resolve), NP_EPARSE (bad regex or malformed keyword). */
int np_schema_compile(const cJSON *doc, struct np_schema **out,
                      struct np_errbuf *eb);

/* np_json_load_file + np_schema_compile. */
int np_schema_load_file(const char *path, struct np_schema **out,
                        struct np_errbuf *eb);

/* A shipped schema by name ("run", "summary", "plan", ...) or by document
 * tag ("netproof/run/1").  NP_ENOENT if there is none. */
int np_schema_builtin(const char *name_or_tag, struct np_schema **out,
                      struct np_errbuf *eb);

void np_schema_free(struct np_schema *s); /* accepts NULL */

/* Called once per validation error: pointer is the JSON pointer into the
 * instance ("" for the root), keyword the failing keyword, reason a short
 * phrase. */
typedef void (*np_schema_error_fn)(void *ctx, const char *pointer,
                                   const char *keyword, const char *reason);

/* 0 when instance is valid; NP_ESCHEMA when not (every error reported
 * through on_error, which may be NULL); other codes for internal failure. */
int np_schema_validate(const struct np_schema *s, const cJSON *instance,
                       np_schema_error_fn on_error, void *ctx);

/* Convenience: validate against the shipped schema named by the document's
 * own "schema" field; the first error goes into eb as "pointer: keyword:
 * reason". */
int np_schema_validate_tagged(const cJSON *instance, struct np_errbuf *eb);

#endif /* NP_SCHEMA_H */
