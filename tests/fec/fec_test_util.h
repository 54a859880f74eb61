/*
 * fec_test_util.h - helpers for the FEC tests: a capture of everything an
 * endpoint outputs and of what it recovers, and a seeded generator of
 * ARQ-like datagrams (byte 0 never carries the FEC mark).
 */
#ifndef FEC_TEST_UTIL_H
#define FEC_TEST_UTIL_H

#include <stdint.h>
#include <string.h>

#include "np_fec.h"
#include "np_test.h"

#define CAP_MAX 256
#define CAP_MTU 1500

struct cap {
  uint8_t buf[CAP_MAX][CAP_MTU]; /* output datagrams, in order           */
  size_t len[CAP_MAX];
  size_t n;
  uint8_t rec[CAP_MAX][CAP_MTU]; /* recovered datagrams, in order        */
  size_t rec_len[CAP_MAX];
  size_t nrec;
};

static inline int cap_output(void *ud, const uint8_t *b, size_t len) {
  struct cap *c = ud;
  ASSERT_LT(c->n, CAP_MAX);
  ASSERT_LE(len, CAP_MTU);
  memcpy(c->buf[c->n], b, len);
  c->len[c->n++] = len;
  return 0;
}

static inline void cap_recovered(void *ud, const uint8_t *b, size_t len) {
  struct cap *c = ud;
  ASSERT_LT(c->nrec, CAP_MAX);
  memcpy(c->rec[c->nrec], b, len);
  c->rec_len[c->nrec++] = len;
}

static inline uint64_t rng_next(uint64_t *s) {
  /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A datagram of len bytes; byte 0 is an ARQ-like flags byte (0x01). */
static inline void make_datagram(uint64_t *seed, uint8_t *d, size_t len) {
  for (size_t i = 0; i < len; i++)
    d[i] = (uint8_t)rng_next(seed);
  d[0] = 0x01;
}

static inline struct np_fec *fec_make(const struct np_fec_config *cfg,
                                      struct cap *c) {
  struct np_fec_callbacks cb = {cap_output, cap_recovered, c, NULL};
  struct np_fec *f = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_fec_new(cfg, &cb, 0, &f, &eb);
  if (rc != 0)
    fprintf(stderr, "np_fec_new: %s\n", eb.msg);
  ASSERT_OK(rc);
  return f;
}

#endif /* FEC_TEST_UTIL_H */
