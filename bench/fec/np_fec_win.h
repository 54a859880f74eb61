/*
 * np_fec_win.h - a sans-IO sliding-window random linear code over GF(2^8)
 * (RFC 8681 RLC, the Tetrys family): the codec behind `--fec window`.
 *
 * Encoder: every source symbol (one datagram, seen as [u16 len][bytes]
 * zero-padded) gets an encoding symbol id (ESI) and enters a window of
 * the last w symbols.  A repair symbol is, on request, the linear
 * combination  sum c_i * s_i  over the symbols of the window, with the
 * coefficients c_i drawn from the repair key (np_fec_rlc.h).  Its header
 * names the first source symbol (FSS ESI), the number of source symbols
 * (NSS) and the key: with them the receiver rebuilds the coefficients.
 * How often a repair is asked for is the caller's business (np_fec's
 * window mode: the adaptive controller's rate).
 *
 * Decoder: keeps the last NP_FEC_WIN_DW source symbols (by ESI, received
 * or rebuilt) and at most NP_FEC_WIN_MAX_EQ repair equations, held in
 * reduced row-echelon form (Gauss-Jordan over GF(2^8), ISA-L's gf_mul /
 * gf_inv / gf_vect_mad): a repair first loses every source symbol already
 * known, then every pivot of the held equations; what remains either is
 * empty (the repair was redundant) or becomes a new pivot row eliminated
 * from the others.  A row left with its pivot alone is a rebuilt source
 * symbol, handed up through the callback, which may free further rows.
 * The decoding window is bounded: when the newest ESI moves on, symbols
 * older than NP_FEC_WIN_DW ESIs leave; one still unknown is given up
 * (counted lost) together with every equation that involved it.
 *
 * While the caller's repair rate is 0, sources are skipped
 * (np_fec_win_enc_skip / np_fec_win_dec_bare): neither end copies them,
 * so an unimpaired path pays no copy per datagram.
 *
 * ESIs and repair keys travel as 16 bits and are extended here against
 * the newest ESI seen (a window never spans more than 2^15).
 *
 * Memory: everything is allocated by the *_new functions; add, repair,
 * source and repair input never allocate.  Not thread-safe.
 */
#ifndef NP_FEC_WIN_H
#define NP_FEC_WIN_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"
#include "np_fec_params.h" /* NP_FEC_WIN_MAX_W (model/fec) */

#define NP_FEC_WIN_DW 64u       /* decoding window, source symbols       */
#define NP_FEC_WIN_MAX_EQ 32u   /* repair equations the decoder holds    */

/* Bytes of a symbol buffer for datagrams of at most sym_max bytes:
 * 2 + sym_max rounded up to 64 (ISA-L's vector minimum). */
size_t np_fec_win_sym_cap(size_t sym_max);

/* ---- encoder ---- */

struct np_fec_win_enc;

/* What a repair symbol's header carries. */
struct np_fec_win_repair {
  uint16_t fss;   /* ESI of the first source symbol covered (mod 2^16) */
  uint16_t key;   /* repair key: seeds the coefficients                */
  unsigned nss;   /* source symbols covered, 1..w                      */
  size_t len;     /* payload bytes: 2 + longest datagram covered       */
};

/* w: window, 1..NP_FEC_WIN_MAX_W; sym_max: longest datagram.  *out owned
 * by the caller, free with np_fec_win_enc_free. */
int np_fec_win_enc_new(unsigned w, size_t sym_max,
                       struct np_fec_win_enc **out);
void np_fec_win_enc_free(struct np_fec_win_enc *e); /* accepts NULL */

/* Enter one source symbol (1..sym_max bytes, copied); *esi = its ESI
 * (mod 2^16).  NP_EMSGSIZE / NP_EINVAL on bad length. */
int np_fec_win_enc_add(struct np_fec_win_enc *e, const uint8_t *buf,
                       size_t len, uint16_t *esi);
/* A source symbol no repair will cover (the repair rate is 0): it gets
 * the next ESI, nothing is copied and the window empties, so the next
 * repair covers only sources added after it. */
void np_fec_win_enc_skip(struct np_fec_win_enc *e, uint16_t *esi);
/* Source symbols in the window now (0..w). */
unsigned np_fec_win_enc_count(const struct np_fec_win_enc *e);
/* One repair over the whole window into out (np_fec_win_sym_cap bytes;
 * the first r->len bytes are the payload).  NP_ENOENT when the window is
 * empty.  Each call uses the next repair key. */
int np_fec_win_enc_repair(struct np_fec_win_enc *e, uint8_t *out,
                          struct np_fec_win_repair *r);

/* ---- decoder ---- */

struct np_fec_win_dec;

/* A source symbol rebuilt from repair: its datagram (buf valid only
 * during the call). */
typedef void (*np_fec_win_recovered_fn)(void *ud, const uint8_t *buf,
                                        size_t len);

struct np_fec_win_dec_stats {
  uint64_t source_in;    /* source symbols taken                        */
  uint64_t repair_in;    /* repair symbols taken                        */
  uint64_t dup;          /* source symbol already known                 */
  uint64_t late_source;  /* older than the decoding window              */
  uint64_t late_repair;  /* repair reaching before the decoding window  */
  uint64_t redundant;    /* repair that reduced to nothing on arrival   */
  uint64_t emptied;      /* held equation made empty by sources that
                            arrived later (it had been useful)          */
  uint64_t malformed;    /* rebuilt symbol with an impossible length    */
  uint64_t recovered;    /* source symbols rebuilt                      */
  uint64_t dropped_eq;   /* equations given up (window moved, table full) */
  uint64_t expected;     /* ESIs that left the window                   */
  uint64_t missing;      /* ... of them never received as source        */
  uint64_t lost;         /* ... of them neither received nor rebuilt    */
  uint64_t runs;         /* maximal runs of consecutive missing ESIs    */
  unsigned eq_live;      /* gauge: equations held                       */
};

int np_fec_win_dec_new(size_t sym_max, np_fec_win_recovered_fn cb,
                       void *ud, struct np_fec_win_dec **out);
void np_fec_win_dec_free(struct np_fec_win_dec *d); /* accepts NULL */

/* A source symbol as it arrived.  May call cb (rebuilt neighbours). */
void np_fec_win_dec_source(struct np_fec_win_dec *d, uint16_t esi,
                           const uint8_t *buf, size_t len);
/* A source symbol the sender skipped (np_fec_win_enc_skip): counted as
 * received, not stored; a repair that claims to cover it is refused as
 * malformed. */
void np_fec_win_dec_bare(struct np_fec_win_dec *d, uint16_t esi);
/* A repair symbol (header fields and payload).  May call cb.  NP_EPARSE
 * when the header is impossible (nss 0 or above NP_FEC_WIN_MAX_W, len
 * beyond the symbol size). */
int np_fec_win_dec_repair(struct np_fec_win_dec *d,
                          const struct np_fec_win_repair *r,
                          const uint8_t *payload);

void np_fec_win_dec_get_stats(const struct np_fec_win_dec *d,
                              struct np_fec_win_dec_stats *out);
/* Bytes allocated by np_fec_win_dec_new / np_fec_win_enc_new. */
size_t np_fec_win_dec_bytes(const struct np_fec_win_dec *d);
size_t np_fec_win_enc_bytes(const struct np_fec_win_enc *e);

#endif /* NP_FEC_WIN_H */
