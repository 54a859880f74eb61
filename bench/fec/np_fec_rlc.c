/*
 * np_fec_rlc.c - TinyMT32 (RFC 8682) and the RLC coding-coefficient
 * generator (RFC 8681 section 3.6), described in np_fec_rlc.h.
 */
#include "np_fec_rlc.h"

#define TMT_MAT1 0x8f7011eeu
#define TMT_MAT2 0xfc78ff1fu
#define TMT_TMAT 0x3793fdffu
#define TMT_SH0 1
#define TMT_SH1 10
#define TMT_SH8 8
#define TMT_MASK 0x7fffffffu

static void tmt_next_state(struct np_tinymt32 *s) {
  uint32_t x, y = s->status[3];
  x = (s->status[0] & TMT_MASK) ^ s->status[1] ^ s->status[2];
  x ^= x << TMT_SH0;
  y ^= (y >> TMT_SH0) ^ x;
  s->status[0] = s->status[1];
  s->status[1] = s->status[2];
  s->status[2] = x ^ (y << TMT_SH1);
  s->status[3] = y;
  uint32_t sel = (uint32_t)0 - (y & 1u); /* all ones when y is odd */
  s->status[1] ^= sel & TMT_MAT1;
  s->status[2] ^= sel & TMT_MAT2;
}

static uint32_t tmt_temper(const struct np_tinymt32 *s) {
  uint32_t t0 = s->status[3];
  uint32_t t1 = s->status[0] + (s->status[2] >> TMT_SH8);
  t0 ^= t1;
  t0 ^= ((uint32_t)0 - (t1 & 1u)) & TMT_TMAT;
  return t0;
}

void np_tinymt32_init(struct np_tinymt32 *s, uint32_t seed) {
  s->status[0] = seed;
  s->status[1] = TMT_MAT1;
  s->status[2] = TMT_MAT2;
  s->status[3] = TMT_TMAT;
  for (unsigned i = 1; i < 8; i++) {
    uint32_t prev = s->status[(i - 1) & 3];
    s->status[i & 3] ^= i + 1812433253u * (prev ^ (prev >> 30));
  }
  /* period certification: the all-zero state never occurs */
  if ((s->status[0] & TMT_MASK) == 0 && s->status[1] == 0 &&
      s->status[2] == 0 && s->status[3] == 0) {
    s->status[0] = 'T';
    s->status[1] = 'I';
    s->status[2] = 'N';
    s->status[3] = 'Y';
  }
  for (unsigned i = 0; i < 8; i++)
    tmt_next_state(s);
}

uint32_t np_tinymt32_next(struct np_tinymt32 *s) {
  tmt_next_state(s);
  return tmt_temper(s);
}

void np_fec_rlc_coefs(uint16_t repair_key, uint8_t *cc, unsigned n,
                      unsigned dt) {
  struct np_tinymt32 s;
  np_tinymt32_init(&s, repair_key);
  for (unsigned i = 0; i < n; i++) {
    if ((np_tinymt32_next(&s) & 0xfu) > dt) {
      cc[i] = 0;
      continue;
    }
    do
      cc[i] = (uint8_t)(np_tinymt32_next(&s) & 0xffu);
    while (cc[i] == 0);
  }
}
