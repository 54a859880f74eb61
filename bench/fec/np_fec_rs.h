/*
 * np_fec_rs.h - systematic Reed-Solomon over GF(2^8) on ISA-L, sized for
 * FEC groups of at most NP_FEC_RS_MAX_K data and NP_FEC_RS_MAX_M parity
 * shards.
 *
 * The generator is ISA-L's Cauchy matrix (gf_gen_cauchy1_matrix): identity
 * on top, parity row i (i >= k) holds 1/(i xor j).  A parity row depends
 * only on its index and k, not on m, so a receiver that knows k can decode
 * with whatever parity rows arrived; any k of the k+m rows are invertible.
 * Encode tables for every (k, m) are built once at creation.  Decoding
 * inverts the k x k matrix of the first k surviving rows and keeps the
 * expanded decode tables in a small LRU cache keyed by (k, rows used,
 * rows missing), so a repeated erasure pattern costs no inversion.
 *
 * All memory is allocated in np_fec_rs_new; encode and decode never
 * allocate.  Not thread-safe (the cache mutates).
 */
#ifndef NP_FEC_RS_H
#define NP_FEC_RS_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"

#define NP_FEC_RS_MAX_K 8u
#define NP_FEC_RS_MAX_M 4u
#define NP_FEC_RS_MAX_N (NP_FEC_RS_MAX_K + NP_FEC_RS_MAX_M)

struct np_fec_rs;

/* cache_entries: decode-table cache size (0 -> 32).  *out owned by the
 * caller, free with np_fec_rs_free. */
int np_fec_rs_new(unsigned cache_entries, struct np_fec_rs **out);
void np_fec_rs_free(struct np_fec_rs *rs); /* accepts NULL */

/* parity[0..m-1] (each len bytes) = encode of data[0..k-1] (each len
 * bytes).  NP_EINVAL when k or m is out of range. */
int np_fec_rs_encode(struct np_fec_rs *rs, unsigned k, unsigned m, size_t len,
                     uint8_t *const *data, uint8_t *const *parity);

/* Rebuild missing data shards.  shards[0..k+m-1]: shard i (data for
 * i < k, parity row i for i >= k) or NULL when absent; all present shards
 * are len bytes.  For every data index i < k with shards[i] == NULL, the
 * rebuilt bytes go to out[i] (caller-provided, len bytes).  Returns 0,
 * NP_ECHECK when fewer than k shards are present, NP_EINVAL on bad
 * arguments. */
int np_fec_rs_decode(struct np_fec_rs *rs, unsigned k, unsigned m, size_t len,
                     uint8_t *const *shards, uint8_t *const *out);

/* Bytes allocated by np_fec_rs_new (tables and cache). */
size_t np_fec_rs_bytes(const struct np_fec_rs *rs);

struct np_fec_rs_stats {
  uint64_t cache_hits;   /* decode tables found in the cache            */
  uint64_t cache_misses; /* matrix inverted and tables built             */
  uint64_t evictions;    /* least-recently-used cache entries replaced   */
};
void np_fec_rs_get_stats(const struct np_fec_rs *rs,
                         struct np_fec_rs_stats *out);

#endif /* NP_FEC_RS_H */
