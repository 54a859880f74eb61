/*
 * np_rng.c - xoshiro256** with splitmix64 seeding (see np_rng.h).
 * Reference: https://prng.di.unimi.it/xoshiro256starstar.c
 */
#include "np_rng.h"

/* 128-bit product for Lemire's bounded draw (a GCC/Clang extension). */
__extension__ typedef unsigned __int128 np_u128;

uint64_t np_rng_splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void np_rng_seed(struct np_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = np_rng_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t np_rng_next(struct np_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double np_rng_unit(struct np_rng *r) {
  return (double)(np_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t np_rng_below(struct np_rng *r, uint64_t n) {
  np_u128 m = (np_u128)np_rng_next(r) * n;
  uint64_t low = (uint64_t)m;
  if (low < n) {
    uint64_t threshold = -n % n;
    while (low < threshold) {
      m = (np_u128)np_rng_next(r) * n;
      low = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}
