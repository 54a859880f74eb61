/*
 * np_rng.h - the project's one pseudo-random generator: xoshiro256**
 * (Blackman and Vigna, 2018) seeded with splitmix64.
 *
 * Deterministic by construction: the same seed gives the same stream on
 * every machine, so anything drawn from it (relay impairments, bootstrap
 * resamples) can be recomputed exactly from the seed a record carries.
 * Not for secrets (keys, nonces and tokens come from getrandom/OpenSSL).
 */
#ifndef NP_RNG_H
#define NP_RNG_H

#include <stdint.h>

struct np_rng {
  uint64_t s[4]; /* xoshiro256** state; never all zero */
};

/* One splitmix64 step: advances *x and returns the next output. */
uint64_t np_rng_splitmix64(uint64_t *x);

/* State = four successive splitmix64 outputs starting from seed. */
void np_rng_seed(struct np_rng *r, uint64_t seed);

uint64_t np_rng_next(struct np_rng *r);

/* Uniform double in [0, 1) with 53 random bits. */
double np_rng_unit(struct np_rng *r);

/* Uniform integer in [0, n) without modulo bias (Lemire's method);
 * n must be > 0. */
uint64_t np_rng_below(struct np_rng *r, uint64_t n);

#endif /* NP_RNG_H */
