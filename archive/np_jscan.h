/*
 * np_jscan.h - read a few string members of a JSON object without
 * building a tree.
 *
 * evidence.json needs four strings from every run record (status,
 * started_at, tool.source_sha256, tool.binary_sha256); the self-check
 * parses and validates each record anyway.  Scanning past everything else
 * costs a fraction of a cJSON parse (no allocation per value, no number
 * conversion), which matters when a bundle holds thousands of records.
 * Pack and verify both take a record's facts through this scanner, so
 * they agree on them even for a malformed record (which the self-check
 * refuses in any case).
 */
#ifndef NP_JSCAN_H
#define NP_JSCAN_H

#include <stddef.h>

#include "np_err.h"

/* keys[i] names a member of the top-level object ("status") or of an
 * object-valued member ("tool/source_sha256").  vals[i] receives the
 * first such member's string value, decoded and malloc'd (caller frees),
 * or NULL when absent or not a string.  Returns 0, NP_EPARSE (text is not
 * a well-formed object; every vals[i] NULL) or NP_ENOMEM. */
int np_jscan_strings(const char *text, size_t len, const char *const *keys,
                     size_t nkeys, char **vals);

/* np_jscan_strings that also takes a number, true, false or null member:
 * vals[i] is then its text as written ("1700000000"). */
int np_jscan_scalars(const char *text, size_t len, const char *const *keys,
                     size_t nkeys, char **vals);

#endif /* NP_JSCAN_H */
