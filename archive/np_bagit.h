/*
 * np_bagit.h - BagIt (RFC 8493) tag files: bagit.txt and the SHA-256
 * manifests, written in the coreutils format ("<hex>  <path>") so
 * `sha256sum -c manifest-sha256.txt` works in the bag root.
 */
#ifndef NP_BAGIT_H
#define NP_BAGIT_H

#include "np_bag.h"

#define NP_BAGIT_TXT "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"

/* Render a manifest of files (malloc'd text, caller frees); NULL on
 * allocation failure. */
char *np_bagit_manifest(const struct np_bag_files *files);

/* 1 when a payload path can be written to a manifest unchanged: no '%',
 * '\\', control characters (RFC 8493 percent-encoding and coreutils
 * escaping would disagree on them). */
int np_bagit_path_ok(const char *path);

/* Problem callback: file is the manifest or payload path, reason a phrase. */
typedef void (*np_bagit_problem_fn)(void *ctx, const char *file,
                                    const char *reason);

/* Check manifest text (named name) against files: every line well formed,
 * no duplicate line, every listed file present with a matching SHA-256,
 * and every file of files listed.  Returns the number of problems. */
int np_bagit_check_manifest(const char *name, const char *text, size_t len,
                            const struct np_bag_files *files,
                            np_bagit_problem_fn fn, void *ctx);

#endif /* NP_BAGIT_H */
