/*
 * np_fec_rs.c - ISA-L Reed-Solomon encode and cached decode (see header).
 */
#include "np_fec_rs.h"

#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#define RS_TBL_BYTES(k, rows) (32u * (k) * (rows))

struct rs_cache_entry {
  uint32_t key;   /* k << 20 | used-rows mask << 8 | missing-data mask;
                     0 = empty slot (k >= 1 so a real key is never 0)   */
  uint64_t stamp; /* last use, for LRU                                   */
  uint8_t tbls[RS_TBL_BYTES(NP_FEC_RS_MAX_K, NP_FEC_RS_MAX_K)];
};

struct np_fec_rs {
  /* Full generator for k data and MAX_M parity rows, per k (1..MAX_K). */
  uint8_t gen[NP_FEC_RS_MAX_K + 1][NP_FEC_RS_MAX_N * NP_FEC_RS_MAX_K];
  /* Encode tables per (k, m). */
  uint8_t enc[NP_FEC_RS_MAX_K + 1][NP_FEC_RS_MAX_M + 1]
             [RS_TBL_BYTES(NP_FEC_RS_MAX_K, NP_FEC_RS_MAX_M)];
  struct rs_cache_entry *cache;
  unsigned ncache;
  uint64_t clock;
  struct np_fec_rs_stats st;
};

int np_fec_rs_new(unsigned cache_entries, struct np_fec_rs **out) {
  if (out == NULL)
    return NP_EINVAL;
  if (cache_entries == 0)
    cache_entries = 32;
  struct np_fec_rs *rs = calloc(1, sizeof *rs);
  if (rs == NULL)
    return NP_ENOMEM;
  rs->cache = calloc(cache_entries, sizeof *rs->cache);
  if (rs->cache == NULL) {
    free(rs);
    return NP_ENOMEM;
  }
  rs->ncache = cache_entries;
  for (unsigned k = 1; k <= NP_FEC_RS_MAX_K; k++) {
    gf_gen_cauchy1_matrix(rs->gen[k], (int)(k + NP_FEC_RS_MAX_M), (int)k);
    for (unsigned m = 1; m <= NP_FEC_RS_MAX_M; m++)
      ec_init_tables((int)k, (int)m, &rs->gen[k][k * k], rs->enc[k][m]);
  }
  *out = rs;
  return 0;
}

void np_fec_rs_free(struct np_fec_rs *rs) {
  if (rs == NULL)
    return;
  free(rs->cache);
  free(rs);
}

int np_fec_rs_encode(struct np_fec_rs *rs, unsigned k, unsigned m, size_t len,
                     uint8_t *const *data, uint8_t *const *parity) {
  if (rs == NULL || k < 1 || k > NP_FEC_RS_MAX_K || m > NP_FEC_RS_MAX_M ||
      len > (size_t)INT32_MAX)
    return NP_EINVAL;
  if (m == 0 || len == 0)
    return 0;
  ec_encode_data((int)len, (int)k, (int)m, rs->enc[k][m],
                 (unsigned char **)data, (unsigned char **)parity);
  return 0;
}

/* Find or build decode tables for the pattern; NULL if singular (cannot
 * happen for a Cauchy generator, checked anyway). */
static const uint8_t *rs_decode_tables(struct np_fec_rs *rs, unsigned k,
                                       const unsigned *rows, uint32_t used,
                                       const unsigned *miss, unsigned nmiss,
                                       uint32_t miss_mask) {
  uint32_t key = (uint32_t)k << 20 | used << 8 | miss_mask;
  struct rs_cache_entry *victim = &rs->cache[0];
  rs->clock++;
  for (unsigned i = 0; i < rs->ncache; i++) {
    struct rs_cache_entry *e = &rs->cache[i];
    if (e->key == key) {
      e->stamp = rs->clock;
      rs->st.cache_hits++;
      return e->tbls;
    }
    if (e->stamp < victim->stamp)
      victim = e;
  }
  rs->st.cache_misses++;
  if (victim->key != 0)
    rs->st.evictions++;
  uint8_t b[NP_FEC_RS_MAX_K * NP_FEC_RS_MAX_K];
  uint8_t inv[NP_FEC_RS_MAX_K * NP_FEC_RS_MAX_K];
  uint8_t dec[NP_FEC_RS_MAX_K * NP_FEC_RS_MAX_K];
  for (unsigned r = 0; r < k; r++)
    memcpy(&b[r * k], &rs->gen[k][rows[r] * k], k);
  if (gf_invert_matrix(b, inv, (int)k) != 0) {
    victim->key = 0;
    return NULL;
  }
  /* Row miss[j] of the inverse maps the surviving shards to data shard
   * miss[j]. */
  for (unsigned j = 0; j < nmiss; j++)
    memcpy(&dec[j * k], &inv[miss[j] * k], k);
  ec_init_tables((int)k, (int)nmiss, dec, victim->tbls);
  victim->key = key;
  victim->stamp = rs->clock;
  return victim->tbls;
}

int np_fec_rs_decode(struct np_fec_rs *rs, unsigned k, unsigned m, size_t len,
                     uint8_t *const *shards, uint8_t *const *out) {
  if (rs == NULL || k < 1 || k > NP_FEC_RS_MAX_K || m > NP_FEC_RS_MAX_M ||
      len > (size_t)INT32_MAX || shards == NULL || out == NULL)
    return NP_EINVAL;
  unsigned rows[NP_FEC_RS_MAX_K], miss[NP_FEC_RS_MAX_K];
  uint8_t *src[NP_FEC_RS_MAX_K], *dst[NP_FEC_RS_MAX_K];
  unsigned nrows = 0, nmiss = 0;
  uint32_t used = 0, miss_mask = 0;
  for (unsigned i = 0; i < k; i++) {
    if (shards[i] == NULL) {
      if (out[i] == NULL)
        return NP_EINVAL;
      miss[nmiss] = i;
      dst[nmiss++] = out[i];
      miss_mask |= 1u << i;
    }
  }
  if (nmiss == 0)
    return 0;
  /* Surviving rows: present data first, then parity rows in order. */
  for (unsigned i = 0; i < k + m && nrows < k; i++) {
    if (shards[i] != NULL) {
      rows[nrows] = i;
      src[nrows++] = shards[i];
      used |= 1u << i;
    }
  }
  if (nrows < k)
    return NP_ECHECK;
  const uint8_t *tbls =
      rs_decode_tables(rs, k, rows, used, miss, nmiss, miss_mask);
  if (tbls == NULL)
    return NP_ECHECK;
  if (len > 0)
    ec_encode_data((int)len, (int)k, (int)nmiss, (unsigned char *)tbls, src,
                   dst);
  return 0;
}

void np_fec_rs_get_stats(const struct np_fec_rs *rs,
                         struct np_fec_rs_stats *out) {
  if (rs != NULL && out != NULL)
    *out = rs->st;
}

size_t np_fec_rs_bytes(const struct np_fec_rs *rs) {
  return rs == NULL ? 0 : sizeof *rs + rs->ncache * sizeof *rs->cache;
}
