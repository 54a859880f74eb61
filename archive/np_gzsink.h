/*
 * np_gzsink.h - gzip compression of the bundle being packed (ISA-L igzip,
 * level 1: several times zlib's speed, which is what lets pack reach its
 * throughput target).  The gzip header is ISA-L's generic one: no name,
 * mtime 0, so the output depends on the input bytes only (for a given
 * ISA-L version and CPU code path; pack --zlib is the portable fallback).
 */
#ifndef NP_GZSINK_H
#define NP_GZSINK_H

#include <stddef.h>

struct np_gzsink;

/* Compress into fd (stays the caller's).  NP_ENOMEM or 0. */
int np_gzsink_new(int fd, struct np_gzsink **out);
/* Buffer and compress len bytes; NP_EIO (errno kept) on a failed write. */
int np_gzsink_write(struct np_gzsink *g, const void *buf, size_t len);
/* Finish the stream (trailer) and write everything out. */
int np_gzsink_finish(struct np_gzsink *g);
void np_gzsink_free(struct np_gzsink *g); /* accepts NULL */

#endif /* NP_GZSINK_H */
