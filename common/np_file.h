/*
 * np_file.h - whole-file reads and crash-safe writes.
 *
 * Every file netproof writes goes through np_file_write_atomic: a
 * temporary file in the target's own folder, fsync'd, renamed over the
 * target, then the folder fsync'd, so a reader (or a machine that lost
 * power) sees either the old file or the complete new one, never a part.
 * Reads are bounded: the caller names the largest file it accepts, and a
 * file that grows while it is read is caught.  Messages in eb start with
 * the path.
 */
#ifndef NP_FILE_H
#define NP_FILE_H

#include <stddef.h>

#include "np_err.h"

/* Read a whole regular file into a malloc'd, NUL-terminated buffer of at
 * most max_bytes (0 = no limit beyond memory).  *out (caller frees) and
 * *out_len (excluding the NUL) are written on success only.  Errors:
 * NP_ENOENT, NP_EACCES, NP_EISDIR, NP_EIO (not a regular file, read
 * error), NP_ETOOBIG, NP_ENOMEM, or the errno of a failed fstat. */
int np_file_read_all(const char *path, size_t max_bytes, char **out,
                     size_t *out_len, struct np_errbuf *eb);

/* Write len bytes to path atomically: temp file in the same folder, fsync,
 * rename, fsync of the folder.  On failure the temp file is removed and any
 * existing file at path is untouched. */
int np_file_write_atomic(const char *path, const void *buf, size_t len,
                         struct np_errbuf *eb);

/* fsync the folder that holds path (after a rename into it, so the new
 * name survives a crash).  eb gets "path: fsync of folder: reason". */
int np_file_fsync_parent(const char *path, struct np_errbuf *eb);

/* An output folder the program may create: 0 when path is a folder
 * already, or its parent folder exists (so only path's last component
 * would be made).  NP_EUSAGE with "OPT PATH: folder PARENT does not
 * exist" (or "... is not a folder") otherwise, so a typo never creates a
 * whole tree; opt names the option in the message ("--output"). */
int np_file_check_out_dir(const char *opt, const char *path,
                          struct np_errbuf *eb);

#endif /* NP_FILE_H */
