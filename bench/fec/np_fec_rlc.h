/*
 * np_fec_rlc.h - coding coefficients of the sliding-window random linear
 * code (RFC 8681, "Sliding Window Random Linear Code (RLC) Forward Erasure
 * Correction (FEC) Schemes for FECFRAME"), m = 8 (GF(2^8)).
 *
 * The coefficients of a repair symbol come from its 16-bit repair key
 * through TinyMT32 (RFC 8682, parameter set mat1 0x8f7011ee, mat2
 * 0xfc78ff1f, tmat 0x3793fdff) exactly as RFC 8681 section 3.6's
 * generate_coding_coefficients() does: seed = repair key, then per source
 * symbol one 4-bit draw against the density threshold dt and, when the
 * coefficient is non-zero, 8-bit draws until one is non-zero.  The RFC's
 * generator was chosen over a simpler PRNG so that sender and receiver
 * agree by specification (the RFC's test vector is in the unit test), not
 * by sharing this file; it costs ~20 ns per coefficient.
 *
 * No allocation, no state outside the caller's struct.
 */
#ifndef NP_FEC_RLC_H
#define NP_FEC_RLC_H

#include <stdint.h>

struct np_tinymt32 {
  uint32_t status[4];
};

/* tinymt32_init of RFC 8682 with the RFC's parameter set. */
void np_tinymt32_init(struct np_tinymt32 *s, uint32_t seed);
/* tinymt32_generate_uint32 of RFC 8682. */
uint32_t np_tinymt32_next(struct np_tinymt32 *s);

#define NP_FEC_RLC_DT_DENSE 15u /* every coefficient non-zero           */

/* cc[0..n-1] = coefficients of the repair symbol with this key over n
 * source symbols; dt in [0, 15] (15: dense).  Zero coefficients appear
 * only when dt < 15. */
void np_fec_rlc_coefs(uint16_t repair_key, uint8_t *cc, unsigned n,
                      unsigned dt);

#endif /* NP_FEC_RLC_H */
