/*
 * np_gzsrc.c - bounded gzip decompression from a file descriptor
 * (see np_gzsrc.h).  A bundle is exactly one gzip member: gzip(1) would
 * accept concatenated members, but then the bytes a signature covers and
 * the bytes another tool extracts could differ, so a second member is
 * corrupt, like anything else after the first.
 */
#include "np_gzsrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>

int np_gzsrc_init(struct np_gzsrc *g, int fd, uint64_t max_uncomp,
                  uint64_t max_ratio) {
  memset(g, 0, sizeof(*g));
  g->fd = fd;
  g->max_uncomp = max_uncomp;
  g->max_ratio = max_ratio;
  g->in = malloc(NP_GZSRC_IN);
  g->out = malloc(NP_GZSRC_OUT);
  g->prev = malloc(NP_GZSRC_OUT);
  g->st = malloc(sizeof(*g->st));
  if (g->in == NULL || g->out == NULL || g->prev == NULL || g->st == NULL ||
      np_sha256_new(&g->hash) != 0) {
    np_gzsrc_free(g);
    return -2; /* NP_ENOMEM; np_err.h not needed here */
  }
  isal_inflate_init(g->st);
  g->st->crc_flag = ISAL_GZIP; /* parse the gzip header, check the trailer */
  return 0;
}

void np_gzsrc_free(struct np_gzsrc *g) {
  free(g->st);
  g->st = NULL;
  free(g->in);
  free(g->out);
  free(g->prev);
  g->in = g->out = g->prev = NULL;
  np_sha256_free(g->hash);
  g->hash = NULL;
}

static long gz_fail(struct np_gzsrc *g, enum np_gzsrc_state st,
                    const char *msg) {
  g->state = st;
  snprintf(g->msg, sizeof(g->msg), "%s", msg);
  return -1;
}

/* Refill the input buffer; 0 ok (possibly eof_in), -1 on read error. */
static int gz_fill(struct np_gzsrc *g) {
  ssize_t n;
  do
    n = read(g->fd, g->in, NP_GZSRC_IN);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    g->state = NP_GZSRC_IOERR;
    g->errnum = errno;
    return -1;
  }
  if (n == 0)
    g->eof_in = 1;
  if (!g->started && n > 0) {
    g->started = 1;
    if (n < 3 || g->in[0] != 0x1f || g->in[1] != 0x8b || g->in[2] != 8)
    {
      gz_fail(g, NP_GZSRC_NOTGZIP,
              "not gzip-compressed (only gzip + tar is accepted)");
      return -1;
    }
  }
  g->st->next_in = g->in;
  g->st->avail_in = (uint32_t)n;
  g->comp += (uint64_t)n;
  if (n > 0 && np_sha256_update(g->hash, g->in, (size_t)n) != 0) {
    gz_fail(g, NP_GZSRC_IOERR, "SHA-256 failed");
    g->errnum = ENOMEM;
    return -1;
  }
  return 0;
}

static const char *gz_reason(int ir) {
  switch (ir) {
  case ISAL_INCORRECT_CHECKSUM:
    return "corrupt gzip stream (CRC or length mismatch)";
  case ISAL_INVALID_WRAPPER:
  case ISAL_UNSUPPORTED_METHOD:
    return "corrupt gzip stream (bad gzip header)";
  default:
    return "corrupt gzip stream (invalid deflate data)";
  }
}

long np_gzsrc_read(struct np_gzsrc *g) {
  struct inflate_state *st = g->st;
  if (g->state != NP_GZSRC_OK)
    return -1;
  /* alternate the buffers: the previous output stays intact */
  unsigned char *t = g->prev;
  g->prev = g->out;
  g->out = t;
  g->prev_len = g->out_len;
  g->out_len = 0;
  st->next_out = g->out;
  st->avail_out = NP_GZSRC_OUT;
  while (st->avail_out == NP_GZSRC_OUT) {
    if (st->avail_in == 0 && !g->eof_in && gz_fill(g) != 0)
      return -1;
    if (g->member_end) {
      if (st->avail_in == 0 && g->eof_in)
        return 0;
      if (st->avail_in == 0)
        continue; /* refill: the file may still end here */
      const uint8_t *ni = st->next_in;
      if (ni[0] == 0x1f && (st->avail_in < 2 || ni[1] == 0x8b))
        return gz_fail(g, NP_GZSRC_CORRUPT,
                       "a second gzip member after the first (a bundle is "
                       "one gzip member)");
      return gz_fail(g, NP_GZSRC_CORRUPT,
                     "data after the end of the gzip stream");
    }
    if (st->avail_in == 0 && g->eof_in)
      return gz_fail(g, g->started ? NP_GZSRC_CORRUPT : NP_GZSRC_NOTGZIP,
                     g->started ? "truncated gzip stream" : "empty file");
    int ir = isal_inflate(st);
    if (ir < 0)
      return gz_fail(g, NP_GZSRC_CORRUPT, gz_reason(ir));
    if (st->block_state == ISAL_BLOCK_FINISH)
      g->member_end = 1;
  }
  long n = (long)(NP_GZSRC_OUT - st->avail_out);
  g->out_len = (size_t)n;
  g->uncomp += (uint64_t)n;
  if (g->uncomp > g->max_uncomp) {
    char m[160];
    snprintf(m, sizeof(m),
             "decompresses to more than %llu bytes (raise --max-bytes)",
             (unsigned long long)g->max_uncomp);
    return gz_fail(g, NP_GZSRC_LIMIT, m);
  }
  uint64_t used = g->comp - st->avail_in; /* compressed bytes consumed */
  if (g->uncomp > (1u << 20) && g->uncomp / (used ? used : 1) > g->max_ratio) {
    char m[160];
    snprintf(m, sizeof(m),
             "decompression ratio above %llu:1 after %llu bytes "
             "(decompression bomb?; raise --max-ratio)",
             (unsigned long long)g->max_ratio,
             (unsigned long long)g->uncomp);
    return gz_fail(g, NP_GZSRC_LIMIT, m);
  }
  return n;
}

static int all_zero(const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != 0)
      return 0;
  return 1;
}

int np_gzsrc_tail_zero(const struct np_gzsrc *g, uint64_t n) {
  if (n > (uint64_t)g->out_len + g->prev_len)
    return -1;
  size_t in_out = n < g->out_len ? (size_t)n : g->out_len;
  size_t in_prev = (size_t)n - in_out;
  return all_zero(g->out + g->out_len - in_out, in_out) &&
         all_zero(g->prev + g->prev_len - in_prev, in_prev);
}

int np_gzsrc_sha256(struct np_gzsrc *g, char hex[NP_SHA256_HEX_SIZE]) {
  hex[0] = '\0';
  if (g->state != NP_GZSRC_OK || !g->member_end || !g->eof_in ||
      g->hash == NULL)
    return NP_EINVAL;
  int rc = np_sha256_final(g->hash, hex);
  np_sha256_free(g->hash);
  g->hash = NULL;
  return rc;
}
