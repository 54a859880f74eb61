/*
 * np_json_scan.h - the strict byte-level pass of np_json_parse.
 *
 * Internal to np_json.c (and its unit test): a validating tokenizer over
 * the raw bytes, run before cJSON builds a tree, because what it refuses
 * is invisible in cJSON's tree: invalid UTF-8 and unescaped control
 * characters (cJSON copies both through), "\u0000" (cJSON truncates the
 * string there, so "a\u0000b" and "a" would read as one name), lone
 * surrogates, nesting past the depth limit (checked before cJSON recurses)
 * and how each number was written (cJSON keeps only the double).  It
 * checks the whole JSON grammar (RFC 8259), so every refusal, syntax
 * errors included, comes with the JSON pointer of the value it is in.
 * Duplicate member names are checked on the tree instead (np_json.c),
 * where names are decoded ("a" and "\u0061" are one name).
 *
 * Not archive/np_jscan.c: that scanner pulls a few strings out of records
 * that the self-check parses strictly anyway, skipping everything else by
 * bracket depth without validating it; a validating pass is another job,
 * and it must hold for every program, so it lives here in common/.
 */
#ifndef NP_JSON_SCAN_H
#define NP_JSON_SCAN_H

#include <stddef.h>

#include "np_err.h"

/* How a number was written, for the numbers that are not plain exact
 * integers; the tags of one document in document order. */
struct np_json_numtag {
  size_t ordinal; /* 0-based index among the document's numbers */
  int flags;      /* NP_JSON_NUM_REAL_TEXT | NP_JSON_NUM_INEXACT (np_json.h) */
};

struct np_json_numtags {
  struct np_json_numtag *v; /* malloc'd; free with np_json_numtags_free */
  size_t n, cap;
};

void np_json_numtags_free(struct np_json_numtags *t);

struct np_json_error;

/* Scan len bytes of buf.  0, or NP_EPARSE / NP_ETOODEEP with the pointer
 * and "reason (byte N)" in *err, or NP_ENOMEM.  On success *tags (zeroed
 * by the caller) lists the tagged numbers; on failure it is freed. */
int np_json_scan(const char *buf, size_t len, int max_depth,
                 struct np_json_numtags *tags, struct np_json_error *err);

#endif /* NP_JSON_SCAN_H */
