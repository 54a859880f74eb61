/*
 * np_sha256.h - SHA-256 of buffers, files and streams through OpenSSL EVP.
 *
 * Digests are handed out as 64 lowercase hex characters plus NUL.
 */
#ifndef NP_SHA256_H
#define NP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"

#define NP_SHA256_HEX_SIZE 65 /* 64 hex digits + NUL */

/* Streaming context; opaque, allocated by np_sha256_new. */
struct np_sha256;

int np_sha256_new(struct np_sha256 **out);
int np_sha256_update(struct np_sha256 *s, const void *buf, size_t len);
/* Finish and write the hex digest; the context may then be freed only. */
int np_sha256_final(struct np_sha256 *s, char hex[NP_SHA256_HEX_SIZE]);
void np_sha256_free(struct np_sha256 *s); /* accepts NULL */

int np_sha256_buf(const void *buf, size_t len, char hex[NP_SHA256_HEX_SIZE]);

/* Hash a file in 64 KiB chunks (bounded memory).  *size_out (may be NULL)
 * receives the byte count. */
int np_sha256_file(const char *path, char hex[NP_SHA256_HEX_SIZE],
                   uint64_t *size_out, struct np_errbuf *eb);

#endif /* NP_SHA256_H */
