/*
 * np_fec_win_enc.c - the sliding-window RLC encoder (np_fec_win.h): a ring
 * of the last w source symbols and repair symbols computed over it.
 */
#include "np_fec_win.h"

#include <isa-l/erasure_code.h>
#include <stdlib.h>
#include <string.h>

#include "np_fec_rlc.h"

struct np_fec_win_enc {
  unsigned w;          /* window size                                   */
  size_t sym_max;      /* longest datagram                              */
  size_t cap;          /* bytes per symbol buffer                       */
  uint8_t *ring;       /* w x cap: [u16 len][datagram][zeros]           */
  uint16_t *len;       /* w: 2 + datagram length                        */
  uint64_t next_esi;   /* ESI of the next source symbol (the wire carries
                          its low 16 bits; 64 bits so that slot = ESI % w
                          never jumps at a wrap for a w not a power of 2) */
  unsigned count;      /* symbols in the window                         */
  uint16_t next_key;   /* repair key of the next repair                 */
  uint8_t tbl[32];     /* gf_vect_mad table scratch                     */
};

size_t np_fec_win_sym_cap(size_t sym_max) {
  size_t n = 2 + sym_max;
  n = (n + 63) / 64 * 64;
  return n < 64 ? 64 : n;
}

int np_fec_win_enc_new(unsigned w, size_t sym_max,
                       struct np_fec_win_enc **out) {
  if (w < 1 || w > NP_FEC_WIN_MAX_W || sym_max < 1 || sym_max > 65535 ||
      out == NULL)
    return NP_EINVAL;
  struct np_fec_win_enc *e = calloc(1, sizeof *e);
  if (e == NULL)
    return NP_ENOMEM;
  e->w = w;
  e->sym_max = sym_max;
  e->cap = np_fec_win_sym_cap(sym_max);
  e->ring = calloc(w, e->cap);
  e->len = calloc(w, sizeof *e->len);
  if (e->ring == NULL || e->len == NULL) {
    np_fec_win_enc_free(e);
    return NP_ENOMEM;
  }
  *out = e;
  return 0;
}

void np_fec_win_enc_free(struct np_fec_win_enc *e) {
  if (e == NULL)
    return;
  free(e->ring);
  free(e->len);
  free(e);
}

size_t np_fec_win_enc_bytes(const struct np_fec_win_enc *e) {
  return sizeof *e + (size_t)e->w * (e->cap + sizeof *e->len);
}

int np_fec_win_enc_add(struct np_fec_win_enc *e, const uint8_t *buf,
                       size_t len, uint16_t *esi) {
  if (e == NULL || buf == NULL || len == 0)
    return NP_EINVAL;
  if (len > e->sym_max)
    return NP_EMSGSIZE;
  unsigned slot = (unsigned)(e->next_esi % e->w);
  uint8_t *s = e->ring + (size_t)slot * e->cap;
  s[0] = (uint8_t)(len >> 8);
  s[1] = (uint8_t)len;
  memcpy(s + 2, buf, len);
  memset(s + 2 + len, 0, e->cap - 2 - len);
  e->len[slot] = (uint16_t)(2 + len);
  if (esi != NULL)
    *esi = (uint16_t)e->next_esi;
  e->next_esi++;
  if (e->count < e->w)
    e->count++;
  return 0;
}

void np_fec_win_enc_skip(struct np_fec_win_enc *e, uint16_t *esi) {
  if (e == NULL)
    return;
  if (esi != NULL)
    *esi = (uint16_t)e->next_esi;
  e->next_esi++;
  e->count = 0;
}

unsigned np_fec_win_enc_count(const struct np_fec_win_enc *e) {
  return e == NULL ? 0 : e->count;
}

int np_fec_win_enc_repair(struct np_fec_win_enc *e, uint8_t *out,
                          struct np_fec_win_repair *r) {
  if (e == NULL || out == NULL || r == NULL)
    return NP_EINVAL;
  if (e->count == 0)
    return NP_ENOENT;
  uint8_t cc[NP_FEC_WIN_MAX_W];
  uint64_t fss = e->next_esi - e->count;
  uint16_t key = e->next_key++;
  np_fec_rlc_coefs(key, cc, e->count, NP_FEC_RLC_DT_DENSE);
  size_t L = 0;
  for (unsigned i = 0; i < e->count; i++) {
    unsigned slot = (unsigned)((fss + i) % e->w);
    if (e->len[slot] > L)
      L = e->len[slot];
  }
  size_t P = np_fec_win_sym_cap(L - 2); /* vector length, zeros past L */
  memset(out, 0, P);
  for (unsigned i = 0; i < e->count; i++) {
    uint8_t *s = e->ring + (size_t)((fss + i) % e->w) * e->cap;
    gf_vect_mul_init(cc[i], e->tbl);
    gf_vect_mad((int)P, 1, 0, e->tbl, s, out);
  }
  r->fss = (uint16_t)fss;
  r->key = key;
  r->nss = e->count;
  r->len = L;
  return 0;
}
