/*
 * np_gzsrc.h - the gzip layer under the bundle reader.
 *
 * We inflate ourselves (ISA-L igzip, 2-3x zlib's speed) and hand libarchive
 * plain tar, so that every
 * byte of the file passes through code that enforces the limits as it
 * decompresses (a bomb is stopped after at most one 1 MiB block past the
 * limit), and so that after the tar end marker the rest of the gzip stream
 * can be drained and checked: CRC and length trailer, nothing but zeros
 * after the tar (np_gzsrc_tail_zero covers what libarchive read ahead but
 * did not consume), one gzip member, nothing after it.  Every byte read
 * from the file is hashed on the way, for the signature's bundle digest.
 */
#ifndef NP_GZSRC_H
#define NP_GZSRC_H

#include <stddef.h>
#include <stdint.h>

#include "np_sha256.h"

struct inflate_state;

#define NP_GZSRC_IN (256u * 1024u)
#define NP_GZSRC_OUT (1024u * 1024u)

enum np_gzsrc_state {
  NP_GZSRC_OK = 0,     /* no error so far                       */
  NP_GZSRC_IOERR,      /* read(2) failed: errnum                 */
  NP_GZSRC_NOTGZIP,    /* does not start with a gzip header      */
  NP_GZSRC_CORRUPT,    /* inflate error or truncated stream      */
  NP_GZSRC_LIMIT,      /* ratio or size limit exceeded           */
};

struct np_gzsrc {
  int fd;
  struct inflate_state *st; /* ISA-L state (large: heap)          */
  int eof_in;            /* read(2) returned 0                      */
  int member_end;        /* inflate returned Z_STREAM_END           */
  int started;           /* first input byte seen                   */
  uint64_t comp;         /* bytes read from the file                */
  uint64_t uncomp;       /* bytes produced                          */
  uint64_t max_uncomp;   /* limit on uncomp                         */
  uint64_t max_ratio;    /* limit on uncomp/comp past 1 MiB         */
  enum np_gzsrc_state state;
  int errnum;            /* for NP_GZSRC_IOERR                      */
  char msg[200];         /* for every other error                   */
  unsigned char *in;     /* NP_GZSRC_IN bytes                       */
  unsigned char *out;    /* NP_GZSRC_OUT bytes: the latest output   */
  unsigned char *prev;   /* NP_GZSRC_OUT bytes: the output before it,
                            still intact (the buffers alternate), so
                            bytes a reader was handed but did not
                            consume can be checked afterwards        */
  size_t out_len, prev_len; /* bytes held in out and prev           */
  struct np_sha256 *hash; /* SHA-256 of every byte read from fd     */
};

/* fd stays the caller's.  NP_ENOMEM or 0.  The gzip stream must be one
 * member that ends the file: a second member or any byte after the first
 * is NP_GZSRC_CORRUPT. */
int np_gzsrc_init(struct np_gzsrc *g, int fd, uint64_t max_uncomp,
                  uint64_t max_ratio);
void np_gzsrc_free(struct np_gzsrc *g);

/* Produce up to NP_GZSRC_OUT bytes into g->out; returns the count, 0 at
 * the clean end of the gzip stream, -1 on error (g->state says which). */
long np_gzsrc_read(struct np_gzsrc *g);

/* The last n bytes produced so far (they span at most g->out and
 * g->prev): 1 when every one is zero, 0 when one is not, -1 when n is
 * more than the two buffers hold. */
int np_gzsrc_tail_zero(const struct np_gzsrc *g, uint64_t n);

/* Once np_gzsrc_read has returned 0 (the whole file was read and was one
 * sound gzip member): the SHA-256 of the file's bytes.  0, or NP_EINVAL
 * before that point (hex ""), NP_ENOMEM / NP_ECRYPTO. */
int np_gzsrc_sha256(struct np_gzsrc *g, char hex[NP_SHA256_HEX_SIZE]);

#endif /* NP_GZSRC_H */
