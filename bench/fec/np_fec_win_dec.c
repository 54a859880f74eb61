/*
 * np_fec_win_dec.c - the sliding-window RLC decoder (np_fec_win.h):
 * source symbols of the decoding window by ESI, and repair equations kept
 * in reduced row-echelon form.
 *
 * Invariants (W = NP_FEC_WIN_DW, ESIs of the window: [hi - W + 1, hi]):
 *  - a coefficient column is a ring position (ESI mod W); every held
 *    equation has zero coefficients on positions outside the window and
 *    on every known (received or rebuilt) source symbol;
 *  - an equation with a pivot has coefficient 1 there, and no other
 *    equation has a non-zero coefficient on that pivot.
 * So a pivot row whose only non-zero coefficient is its pivot *is* the
 * source symbol; the payloads are [u16 len][datagram] combinations, so
 * the rebuilt symbol carries its own length.
 */
#include "np_fec_win.h"

#include <isa-l/erasure_code.h>
#include <stdlib.h>
#include <string.h>

#include "np_fec_rlc.h"

#define DW NP_FEC_WIN_DW
#define DMASK (NP_FEC_WIN_DW - 1u)
#define NEQ NP_FEC_WIN_MAX_EQ

enum { SYM_UNKNOWN, SYM_RECEIVED, SYM_REBUILT, SYM_BARE };

struct win_eq {
  uint8_t used;
  uint8_t has_pivot;
  uint8_t pivot;           /* ring position of the pivot                  */
  uint8_t coef[DW];        /* by ring position                            */
  uint8_t *pay;            /* cap bytes                                   */
};

struct np_fec_win_dec {
  size_t sym_max, cap;
  np_fec_win_recovered_fn cb;
  void *ud;
  int have;                /* an ESI was seen                             */
  uint64_t hi;             /* newest ESI (extended)                       */
  uint64_t base;           /* first ESI seen: accounting starts there     */
  int prev_missing;        /* the ESI that left before was missing        */
  uint8_t *sym;            /* DW x cap                                    */
  uint64_t sym_esi[DW];
  uint8_t sym_state[DW];
  int8_t piv[DW];          /* equation index pivoting on the position     */
  struct win_eq eq[NEQ];
  uint8_t *pool;           /* NEQ x cap payloads                          */
  uint8_t tbl[32];
  struct np_fec_win_dec_stats st;
};

static uint8_t *sym_at(struct np_fec_win_dec *d, unsigned pos) {
  return d->sym + (size_t)pos * d->cap;
}

int np_fec_win_dec_new(size_t sym_max, np_fec_win_recovered_fn cb,
                       void *ud, struct np_fec_win_dec **out) {
  if (sym_max < 1 || sym_max > 65535 || out == NULL)
    return NP_EINVAL;
  struct np_fec_win_dec *d = calloc(1, sizeof *d);
  if (d == NULL)
    return NP_ENOMEM;
  d->sym_max = sym_max;
  d->cap = np_fec_win_sym_cap(sym_max);
  d->cb = cb;
  d->ud = ud;
  d->sym = calloc(DW, d->cap);
  d->pool = calloc(NEQ, d->cap);
  if (d->sym == NULL || d->pool == NULL) {
    np_fec_win_dec_free(d);
    return NP_ENOMEM;
  }
  for (unsigned i = 0; i < DW; i++)
    d->piv[i] = -1;
  for (unsigned i = 0; i < NEQ; i++)
    d->eq[i].pay = d->pool + (size_t)i * d->cap;
  *out = d;
  return 0;
}

void np_fec_win_dec_free(struct np_fec_win_dec *d) {
  if (d == NULL)
    return;
  free(d->sym);
  free(d->pool);
  free(d);
}

size_t np_fec_win_dec_bytes(const struct np_fec_win_dec *d) {
  return sizeof *d + (size_t)(DW + NEQ) * d->cap;
}

/* dst += c * src over payload bytes. */
static void pay_mad(struct np_fec_win_dec *d, uint8_t *dst, uint8_t *src,
                    uint8_t c) {
  gf_vect_mul_init(c, d->tbl);
  gf_vect_mad((int)d->cap, 1, 0, d->tbl, src, dst);
}

/* row dst += c * row src (coefficients and payload). */
static void row_axpy(struct np_fec_win_dec *d, struct win_eq *dst,
                     const struct win_eq *src, uint8_t c) {
  for (unsigned p = 0; p < DW; p++)
    if (src->coef[p])
      dst->coef[p] ^= gf_mul(c, src->coef[p]);
  pay_mad(d, dst->pay, src->pay, c);
}

static void eq_free(struct np_fec_win_dec *d, struct win_eq *e) {
  if (e->has_pivot)
    d->piv[e->pivot] = -1;
  e->used = 0;
  e->has_pivot = 0;
}

static unsigned eq_nonzero(const struct win_eq *e) {
  unsigned n = 0;
  for (unsigned p = 0; p < DW; p++)
    n += e->coef[p] != 0;
  return n;
}

/* Ring positions in ESI order, oldest first. */
static unsigned window_pos(const struct np_fec_win_dec *d, unsigned i) {
  return (unsigned)((d->hi - (DW - 1) + i) & DMASK);
}

/* Give e (used, no pivot) its place: reduce by the pivots, pick the
 * oldest unknown as pivot, clear that column elsewhere. */
static void eq_insert(struct np_fec_win_dec *d, unsigned ei, int arrival) {
  struct win_eq *e = &d->eq[ei];
  for (unsigned p = 0; p < DW; p++) {
    int q = d->piv[p];
    if (e->coef[p] && q >= 0 && (unsigned)q != ei)
      row_axpy(d, e, &d->eq[q], e->coef[p]);
  }
  int pos = -1;
  for (unsigned i = 0; i < DW && pos < 0; i++)
    if (e->coef[window_pos(d, i)])
      pos = (int)window_pos(d, i);
  if (pos < 0) { /* a new repair that adds nothing, or an equation the
                    sources that arrived since have made empty */
    if (arrival)
      d->st.redundant++;
    else
      d->st.emptied++;
    eq_free(d, e);
    return;
  }
  uint8_t inv = gf_inv(e->coef[pos]);
  if (inv != 1) {
    for (unsigned p = 0; p < DW; p++)
      if (e->coef[p])
        e->coef[p] = gf_mul(inv, e->coef[p]);
    /* scale the payload through a free scratch: 0 + inv * pay */
    uint8_t *old = e->pay, *scratch = NULL;
    for (unsigned i = 0; i < NEQ && scratch == NULL; i++)
      if (!d->eq[i].used)
        scratch = d->eq[i].pay;
    if (scratch == NULL) { /* every row used: scale in place, bytewise */
      for (size_t b = 0; b < d->cap; b++)
        old[b] = gf_mul(inv, old[b]);
    } else {
      memset(scratch, 0, d->cap);
      pay_mad(d, scratch, old, inv);
      for (unsigned i = 0; i < NEQ; i++)
        if (!d->eq[i].used && d->eq[i].pay == scratch)
          d->eq[i].pay = old;
      e->pay = scratch;
    }
  }
  e->has_pivot = 1;
  e->pivot = (uint8_t)pos;
  d->piv[pos] = (int8_t)ei;
  for (unsigned i = 0; i < NEQ; i++) {
    struct win_eq *r = &d->eq[i];
    if (i != ei && r->used && r->coef[pos])
      row_axpy(d, r, e, r->coef[pos]);
  }
}

/* Source symbol at pos is known now: take it out of every equation;
 * rows that pivoted on it are re-inserted. */
static void eliminate_known(struct np_fec_win_dec *d, unsigned pos) {
  unsigned redo[NEQ], nredo = 0;
  uint8_t *s = sym_at(d, pos);
  for (unsigned i = 0; i < NEQ; i++) {
    struct win_eq *e = &d->eq[i];
    if (!e->used || !e->coef[pos])
      continue;
    pay_mad(d, e->pay, s, e->coef[pos]);
    e->coef[pos] = 0;
    if (e->has_pivot && e->pivot == pos) {
      d->piv[pos] = -1;
      e->has_pivot = 0;
      redo[nredo++] = i;
    }
  }
  for (unsigned i = 0; i < nredo; i++)
    if (d->eq[redo[i]].used)
      eq_insert(d, redo[i], 0);
}

/* Hand up every row reduced to its pivot, until none is. */
static void solve(struct np_fec_win_dec *d) {
  int progress = 1;
  while (progress) {
    progress = 0;
    for (unsigned i = 0; i < NEQ; i++) {
      struct win_eq *e = &d->eq[i];
      if (!e->used || !e->has_pivot || eq_nonzero(e) != 1)
        continue;
      unsigned pos = e->pivot;
      size_t len = (size_t)e->pay[0] << 8 | e->pay[1];
      eq_free(d, e);
      progress = 1;
      if (len == 0 || len > d->sym_max) {
        d->st.malformed++;
        continue;
      }
      uint8_t *s = sym_at(d, pos);
      memcpy(s, e->pay, d->cap);
      memset(s + 2 + len, 0, d->cap - 2 - len);
      d->sym_state[pos] = SYM_REBUILT;
      d->sym_esi[pos] = d->hi - ((d->hi - pos) & DMASK);
      d->st.recovered++;
      if (d->cb != NULL)
        d->cb(d->ud, s + 2, len);
      eliminate_known(d, pos);
    }
  }
}

/* The ESI at position leaves the window: account it, drop what used it. */
static void leave(struct np_fec_win_dec *d, uint64_t esi) {
  unsigned pos = (unsigned)(esi & DMASK);
  if (esi >= d->base) {
    int known = d->sym_esi[pos] == esi && d->sym_state[pos] != SYM_UNKNOWN;
    int missing = !known || (d->sym_state[pos] != SYM_RECEIVED &&
                             d->sym_state[pos] != SYM_BARE);
    d->st.expected++;
    d->st.missing += missing;
    d->st.runs += missing && !d->prev_missing;
    d->prev_missing = missing;
    if (!known)
      d->st.lost++;
  }
  for (unsigned i = 0; i < NEQ; i++) {
    struct win_eq *e = &d->eq[i];
    if (e->used && e->coef[pos]) {
      d->st.dropped_eq++;
      eq_free(d, e);
    }
  }
  d->sym_state[pos] = SYM_UNKNOWN;
}

/* Move the newest ESI to new_hi (> hi). */
static void slide(struct np_fec_win_dec *d, uint64_t new_hi) {
  uint64_t gap = new_hi - d->hi;
  uint64_t first = d->hi + 1 - DW; /* oldest ESI now in the window */
  if (gap > DW) { /* everything leaves; ESIs never held: all lost */
    for (unsigned i = 0; i < DW; i++)
      leave(d, first + i);
    uint64_t never = gap - DW, from = first + DW;
    if (from < d->base)
      never = from + never > d->base ? from + never - d->base : 0;
    d->st.expected += never;
    d->st.missing += never;
    d->st.lost += never;
    if (never > 0) {
      d->st.runs += !d->prev_missing;
      d->prev_missing = 1;
    }
  } else {
    for (uint64_t i = 0; i < gap; i++)
      leave(d, first + i);
  }
  d->hi = new_hi;
}

/* Extend a 16-bit ESI against the newest one. */
static uint64_t extend(const struct np_fec_win_dec *d, uint16_t v) {
  return d->hi + (uint64_t)(int64_t)(int16_t)(uint16_t)(v - (uint16_t)d->hi);
}

static void start(struct np_fec_win_dec *d, uint16_t v) {
  d->have = 1;
  d->hi = ((uint64_t)1 << 32) + v;
  d->base = d->hi;
}

/* The window position of a source symbol that just arrived, or -1 when
 * it is late or already known (counted). */
static int source_pos(struct np_fec_win_dec *d, uint16_t v, uint64_t *esi_out) {
  if (!d->have)
    start(d, v);
  uint64_t esi = extend(d, v);
  d->st.source_in++;
  if (esi > d->hi)
    slide(d, esi);
  if (esi + DW <= d->hi) {
    d->st.late_source++;
    return -1;
  }
  if (esi < d->base)
    d->base = esi; /* reordered ahead of the first one seen */
  *esi_out = esi;
  return (int)(esi & DMASK);
}

void np_fec_win_dec_bare(struct np_fec_win_dec *d, uint16_t v) {
  uint64_t esi;
  int p = d == NULL ? -1 : source_pos(d, v, &esi);
  if (p < 0)
    return;
  unsigned pos = (unsigned)p;
  if (d->sym_state[pos] != SYM_UNKNOWN && d->sym_esi[pos] == esi) {
    d->st.dup++;
    return;
  }
  d->sym_state[pos] = SYM_BARE;
  d->sym_esi[pos] = esi;
}

void np_fec_win_dec_source(struct np_fec_win_dec *d, uint16_t v,
                           const uint8_t *buf, size_t len) {
  if (d == NULL || buf == NULL || len == 0 || len > d->sym_max)
    return;
  uint64_t esi;
  int p = source_pos(d, v, &esi);
  if (p < 0)
    return;
  unsigned pos = (unsigned)p;
  if (d->sym_state[pos] != SYM_UNKNOWN && d->sym_esi[pos] == esi) {
    /* the original after its rebuilt copy (reordered) arrived after all:
     * the channel did not lose it (a bare slot stays bare: no data) */
    if (d->sym_state[pos] == SYM_REBUILT)
      d->sym_state[pos] = SYM_RECEIVED;
    d->st.dup++;
    return;
  }
  uint8_t *s = sym_at(d, pos);
  s[0] = (uint8_t)(len >> 8);
  s[1] = (uint8_t)len;
  memcpy(s + 2, buf, len);
  memset(s + 2 + len, 0, d->cap - 2 - len);
  d->sym_state[pos] = SYM_RECEIVED;
  d->sym_esi[pos] = esi;
  eliminate_known(d, pos);
  solve(d);
}

/* A free equation row; the one with the oldest pivot is given up when
 * the table is full. */
static unsigned eq_take(struct np_fec_win_dec *d) {
  for (unsigned i = 0; i < NEQ; i++)
    if (!d->eq[i].used)
      return i;
  for (unsigned w = 0; w < DW; w++) {
    int q = d->piv[window_pos(d, w)];
    if (q >= 0) {
      d->st.dropped_eq++;
      eq_free(d, &d->eq[q]);
      return (unsigned)q;
    }
  }
  d->st.dropped_eq++; /* unreachable: a used row always has a pivot */
  eq_free(d, &d->eq[0]);
  return 0;
}

int np_fec_win_dec_repair(struct np_fec_win_dec *d,
                          const struct np_fec_win_repair *r,
                          const uint8_t *payload) {
  if (d == NULL || r == NULL || payload == NULL)
    return NP_EINVAL;
  if (r->nss < 1 || r->nss > NP_FEC_WIN_MAX_W || r->len < 3 ||
      r->len > 2 + d->sym_max)
    return NP_EPARSE;
  if (!d->have)
    start(d, r->fss);
  uint64_t fss = extend(d, r->fss), last = fss + r->nss - 1;
  d->st.repair_in++;
  if (last > d->hi)
    slide(d, last);
  if (fss + DW <= d->hi) {
    d->st.late_repair++;
    return 0;
  }
  if (fss < d->base)
    d->base = fss;
  for (unsigned i = 0; i < r->nss; i++) { /* a bare source: not ours to use */
    uint64_t esi = fss + i;
    unsigned pos = (unsigned)(esi & DMASK);
    if (d->sym_state[pos] == SYM_BARE && d->sym_esi[pos] == esi) {
      d->st.malformed++;
      return 0;
    }
  }
  unsigned ei = eq_take(d);
  struct win_eq *e = &d->eq[ei];
  uint8_t cc[NP_FEC_WIN_MAX_W];
  np_fec_rlc_coefs(r->key, cc, r->nss, NP_FEC_RLC_DT_DENSE);
  memset(e->coef, 0, sizeof e->coef);
  memcpy(e->pay, payload, r->len);
  memset(e->pay + r->len, 0, d->cap - r->len);
  e->used = 1;
  e->has_pivot = 0;
  for (unsigned i = 0; i < r->nss; i++) {
    uint64_t esi = fss + i;
    unsigned pos = (unsigned)(esi & DMASK);
    if (d->sym_state[pos] != SYM_UNKNOWN && d->sym_esi[pos] == esi)
      pay_mad(d, e->pay, sym_at(d, pos), cc[i]); /* known: subtract */
    else
      e->coef[pos] = cc[i];
  }
  eq_insert(d, ei, 1);
  solve(d);
  return 0;
}

void np_fec_win_dec_get_stats(const struct np_fec_win_dec *d,
                              struct np_fec_win_dec_stats *out) {
  if (d == NULL || out == NULL)
    return;
  *out = d->st;
  unsigned n = 0;
  for (unsigned i = 0; i < NEQ; i++)
    n += d->eq[i].used;
  out->eq_live = n;
}
