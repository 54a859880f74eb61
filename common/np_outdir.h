/*
 * np_outdir.h - write files only where told: under one output
 * folder, never through a symbolic link.
 *
 * The folder is opened once with O_DIRECTORY | O_NOFOLLOW and everything
 * below it is reached relative to that descriptor (mkdirat, openat with
 * O_NOFOLLOW, renameat), one component at a time, so a symlink planted
 * anywhere under it (OUT/assets -> /elsewhere, OUT/index.md -> ~/.bashrc)
 * is refused instead of followed, and a path cannot be swapped for a link
 * between a check and the write.  Each file is written to a temporary name
 * beside it, fsync'd and renamed over the old one (atomic, as
 * np_file_write_atomic), then the folder is fsync'd.
 */
#ifndef NP_OUTDIR_H
#define NP_OUTDIR_H

#include <stddef.h>

#include "np_err.h"

struct np_outdir;

/* Open dir for writing, creating it (and missing folders above it, 0755)
 * when absent.  dir itself being a symbolic link is refused: NP_EINVAL
 * with "dir: a symbolic link ..." in eb; NP_ENOTDIR, I/O codes.  Free
 * with np_outdir_close. */
int np_outdir_open(const char *dir, struct np_outdir **out,
                          struct np_errbuf *eb);

/* Write len bytes as rel ('/'-separated, no "." / ".." / empty
 * components), creating its folders.  Refused with NP_EINVAL when a
 * component of rel or the file itself is a symbolic link, or a folder
 * component is not a folder. */
int np_outdir_write(struct np_outdir *o, const char *rel,
                           const void *data, size_t len,
                           struct np_errbuf *eb);

void np_outdir_close(struct np_outdir *o); /* accepts NULL */

#endif /* NP_OUTDIR_H */
