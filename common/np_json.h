/*
 * np_json.h - JSON helpers over cJSON: bounded loading, atomic writing.
 *
 * Loading enforces a byte-size limit and a nesting-depth limit before cJSON
 * parses anything, and rejects numbers that are not finite (cJSON turns
 * "1e999" into inf).  Files are read and written through np_file.h
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

struct np_json_limits {
  size_t max_bytes; /* 0 = NP_JSON_DEFAULT_MAX_BYTES */
  int max_depth;    /* 0 = NP_JSON_DEFAULT_MAX_DEPTH  */
};

/* Parse len bytes of buf (need not be NUL-terminated).  On success *out owns
 * a new tree (free with cJSON_Delete).  Errors: NP_ETOOBIG, NP_ETOODEEP,
 * NP_EPARSE (with byte offset in eb), NP_ENONFINITE, NP_ENOMEM.
 * lim may be NULL for defaults. */
int np_json_parse(const char *buf, size_t len, const struct np_json_limits *lim,
                  cJSON **out, struct np_errbuf *eb);

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
