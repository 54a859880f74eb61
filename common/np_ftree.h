/*
 * np_ftree.h - an in-memory set of files: relative path -> bytes.
 *
 * A results folder on disk and the payload of a bundle being verified in a
 * stream are the same thing to the self-check: np_ftree lets
 * netproof-report check a folder and netproof-archive check an archive it
 * never writes to disk.  Paths are '/'-separated, relative, without "."
 * or ".." components; iteration is in bytewise-sorted path order.
 */
#ifndef NP_FTREE_H
#define NP_FTREE_H

#include <stddef.h>

#include "np_err.h"

struct np_ftree;

int np_ftree_new(struct np_ftree **out);
void np_ftree_free(struct np_ftree *t); /* accepts NULL */

/* Copy len bytes in under path.  NP_EEXIST if path is already present,
 * NP_EINVAL for an absolute path or a "." / ".." component. */
int np_ftree_add(struct np_ftree *t, const char *path, const void *data,
                 size_t len);

/* Bytes of path (owned by t; NUL-terminated one past *len) or NULL. */
const char *np_ftree_get(const struct np_ftree *t, const char *path,
                         size_t *len);

/* Number of files, and the i-th path in sorted order (owned by t). */
size_t np_ftree_count(const struct np_ftree *t);
const char *np_ftree_path_at(const struct np_ftree *t, size_t i);

/* Load every regular file under dir (recursively; symlinks refused with
 * NP_EINVAL) with paths relative to dir.  Fails with NP_ETOOBIG when the
 * total exceeds max_total_bytes (0 = 1 GiB). */
int np_ftree_load_dir(const char *dir, size_t max_total_bytes,
                      struct np_ftree **out, struct np_errbuf *eb);

/* np_ftree_load_dir that also refuses, by its size and before reading it,
 * any one file larger than max_file_bytes (0: no such limit). */
int np_ftree_load_dir_max(const char *dir, size_t max_total_bytes,
                          size_t max_file_bytes, struct np_ftree **out,
                          struct np_errbuf *eb);

/* np_ftree_load_dir_max that reads no file: every file is listed with its
 * size (np_ftree_len_at) and no bytes (np_ftree_get gives NULL), the
 * limits applied to the sizes.  For a reader that then streams the files
 * one at a time (pack). */
int np_ftree_list_dir(const char *dir, size_t max_total_bytes,
                      size_t max_file_bytes, struct np_ftree **out,
                      struct np_errbuf *eb);

/* 1 when path is in t (loaded or listed). */
int np_ftree_has(const struct np_ftree *t, const char *path);

/* Bytes of the i-th file in sorted order (its size when listed). */
size_t np_ftree_len_at(const struct np_ftree *t, size_t i);

#endif /* NP_FTREE_H */
