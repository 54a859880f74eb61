/*
 * np_json.h - JSON helpers over cJSON: bounded loading, atomic writing.
 *
 * Loading is strict, for every reader of untrusted JSON: one text has one
 * meaning, whichever parser reads it.  Before cJSON parses anything, the
 * byte size is checked and a validating tokenizer (np_json_scan.h) refuses
 * invalid UTF-8, unescaped control characters, "\u0000", lone surrogates,
 * nesting past the depth limit and any syntax error; on the tree, duplicate
 * member names (cJSON keeps the first, Python and jq the last) and numbers
 * that are not finite (cJSON turns "1e999" into inf) are refused.  Every
 * refusal names the value by its JSON pointer.  Numbers keep a trace of how
 * they were written (NP_JSON_NUM_* below) so that the schema validator can
 * refuse 1.0 or 1e3 where an integer is required.  Files are read and written through np_file.h
 * (bounded reads, atomic writes).  cJSON keeps object keys in insertion
 * order and prints doubles with %.15g falling back to %.17g, which
 * round-trips.
 */
#ifndef NP_JSON_H
#define NP_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"

#define NP_JSON_DEFAULT_MAX_BYTES ((size_t)64 << 20) /* 64 MiB */
#define NP_JSON_DEFAULT_MAX_DEPTH 64

/* Bits np_json_parse sets in a number node's type (cJSON uses the low 10
 * bits and masks with 0xFF to tell types, so these ride along; cJSON_Duplicate
 * keeps them).  Nodes built in memory have neither.  A node whose value is
 * later changed keeps its bits: clear them when that matters. */
#define NP_JSON_NUM_REAL_TEXT (1 << 12) /* written with a fraction/exponent */
#define NP_JSON_NUM_INEXACT (1 << 13)   /* integer beyond +-(2^53-1)       */

/* 1 when n is a number that is an exact integer as written: integral,
 * written without fraction or exponent, within +-(2^53-1). */
int np_json_is_exact_integer(const cJSON *n);

struct np_json_limits {
  size_t max_bytes; /* 0 = NP_JSON_DEFAULT_MAX_BYTES */
  int max_depth;    /* 0 = NP_JSON_DEFAULT_MAX_DEPTH  */
};

/* Parse len bytes of buf (need not be NUL-terminated).  On success *out owns
 * a new tree (free with cJSON_Delete).  Errors: NP_ETOOBIG, NP_ETOODEEP,
 * NP_EPARSE (eb: "/pointer: reason (byte N)" for syntax errors, bad UTF-8,
 * control characters; "/pointer: duplicate member name" for a name that
 * repeats), NP_ENONFINITE, NP_ENOMEM.
 * lim may be NULL for defaults. */
int np_json_parse(const char *buf, size_t len, const struct np_json_limits *lim,
                  cJSON **out, struct np_errbuf *eb);

/* Where and why np_json_parse_at refused a text. */
struct np_json_error {
  int located;       /* pointer names the value (else: size, memory)    */
  char pointer[256]; /* RFC 6901, "" for the root; safe to print (control
                        characters shown as \xNN)                       */
  char reason[256];  /* "duplicate member name", "... (byte N)"         */
  size_t offset;     /* byte of a byte-level refusal (0 for tree ones)  */
};

/* np_json_parse with the refusal split into its place and its reason, for
 * callers that report "file: pointer: reason" themselves.  err may not be
 * NULL. */
int np_json_parse_at(const char *buf, size_t len,
                     const struct np_json_limits *lim, cJSON **out,
                     struct np_json_error *err);

/* cJSON_ParseWithLengthOpts(buf, len, end, 0) - no validation, no limits:
 * np_json_parse is the reader of untrusted text - under the lock that
 * makes cJSON's parse safe from two threads (it writes a global error
 * position).  Every direct use of cJSON's parser goes through here. */
cJSON *np_json_cjson_parse(const char *buf, size_t len, const char **end);

/* Read and parse a file ("-" is not accepted).  eb messages start with the
 * path.  Additional errors: NP_ENOENT, NP_EACCES, NP_EISDIR, NP_EIO. */
int np_json_load_file(const char *path, const struct np_json_limits *lim,
                      cJSON **out, struct np_errbuf *eb);

/* Print doc (pretty when pretty != 0) with a trailing newline.  Returns a
 * malloc'd string the caller frees, or NULL on allocation failure or when
 * doc holds a non-finite number. */
char *np_json_print(const cJSON *doc, int pretty);

/* np_json_print + np_file_write_atomic (np_file.h). */
int np_json_write_atomic(const char *path, const cJSON *doc, int pretty,
                         struct np_errbuf *eb);

/* The value at an RFC 6901 JSON pointer in doc, or NULL when it does not
 * resolve.  "" is doc itself; each "/token" steps into an object member
 * (token with "~1" decoded to '/' and "~0" to '~', in that order) or an
 * array element (token "0" or a decimal without leading zeros).  NULL for
 * a pointer that does not start with '/', a '~' not followed by 0 or 1, an
 * index that is absent, "-" or malformed, or a step into a scalar.  The
 * result points into doc.  Allocates nothing. */
const cJSON *np_json_pointer(const cJSON *doc, const char *pointer);

/* Small typed accessors used across modules (NULL/absent-safe). */
double np_json_get_number(const cJSON *obj, const char *key, double dflt);
const char *np_json_get_string(const cJSON *obj, const char *key,
                               const char *dflt);

/* Add a number that must be finite; adds JSON null when it is not. */
cJSON *np_json_add_number(cJSON *obj, const char *key, double v);

#endif /* NP_JSON_H */
