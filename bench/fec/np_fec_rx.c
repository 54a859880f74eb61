/*
 * np_fec_rx.c - the FEC decoder: data shards pass straight through and are
 * kept until their group is complete or final; when a group holds k of its
 * k + m shards with data missing, the missing datagrams are rebuilt and
 * handed up through cb.recovered.
 *
 * Groups live in a direct-mapped table (slot = gid mod rx_slots) and keep
 * their shards in a preallocated pool of mtu-sized buffers; shards of a
 * bare group (NP_FEC_F_BARE: no parity will follow) are only counted.  A group is
 * final (accounted, buffers released, later shards ignored as late) when
 *   - a group final_lag ids newer has been seen, or
 *   - final_ns has passed since its first shard, or
 *   - it is evicted early: its slot is needed by a newer group, the
 *     buffer pool is empty, or the byte budget needs room.
 * A final group is unrecoverable when one of its data shards is known to
 * be missing and was not rebuilt: rows below k once a parity shard told
 * k, otherwise rows below the highest data row seen (a lost tail with
 * every parity lost is invisible here; the ARQ repairs it regardless).
 * Final groups also give the inbound shard loss that is reported to the
 * peer's adaptive policy.
 */
#include "np_fec_int.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *rx_ptr(const struct np_fec *f, int16_t idx) {
  return f->rx.pool + (size_t)idx * f->cfg.mtu;
}

int np_fec__rx_init(struct np_fec *f, uint64_t now_ns) {
  struct fec_rx *rx = &f->rx;
  rx->slots = calloc(f->cfg.rx_slots, sizeof *rx->slots);
  rx->pool = malloc((size_t)f->cfg.rx_buffers * f->cfg.mtu);
  rx->free_stack = malloc((size_t)f->cfg.rx_buffers * sizeof(int16_t));
  if (rx->slots == NULL || rx->pool == NULL || rx->free_stack == NULL)
    return NP_ENOMEM;
  for (unsigned i = 0; i < NP_FEC_MAX_GROUP; i++) {
    rx->out[i] = malloc(f->cfg.mtu);
    if (rx->out[i] == NULL)
      return NP_ENOMEM;
  }
  rx->mask = f->cfg.rx_slots - 1;
  for (unsigned s = 0; s < f->cfg.rx_slots; s++)
    for (unsigned i = 0; i < NP_FEC_RS_MAX_N; i++)
      rx->slots[s].buf[i] = -1;
  for (unsigned i = 0; i < f->cfg.rx_buffers; i++)
    rx->free_stack[i] = (int16_t)(f->cfg.rx_buffers - 1 - i);
  rx->nfree = f->cfg.rx_buffers;
  rx->next_report_ns = now_ns + f->cfg.report_ns;
  return 0;
}

void np_fec__rx_free(struct np_fec *f) {
  struct fec_rx *rx = &f->rx;
  free(rx->slots);
  free(rx->pool);
  free(rx->free_stack);
  for (unsigned i = 0; i < NP_FEC_MAX_GROUP; i++)
    free(rx->out[i]);
  memset(rx, 0, sizeof *rx);
}

static void slot_release(struct np_fec *f, struct fec_rx_slot *s) {
  for (unsigned i = 0; i < NP_FEC_RS_MAX_N; i++) {
    if (s->buf[i] >= 0) {
      f->rx.free_stack[f->rx.nfree++] = s->buf[i];
      f->rx.retained -= s->blen[i];
      s->buf[i] = -1;
      s->blen[i] = 0;
    }
  }
}

static void slot_finalize(struct np_fec *f, struct fec_rx_slot *s,
                          int evicted) {
  if (s->state != SLOT_ACTIVE && s->state != SLOT_DONE)
    return;
  unsigned n = s->k ? (unsigned)s->k + s->m : s->max_idx;
  unsigned ndata = s->k ? s->k : s->max_idx;
  uint32_t rows = (1u << n) - 1u, data = (1u << ndata) - 1u;
  unsigned got = (unsigned)__builtin_popcount(s->have & rows);
  f->rx.cum_expected += n;
  f->rx.cum_lost += n - got;
  f->st.shards_expected += n;
  f->st.shards_lost += n - got;
  if (s->k) { /* parity told the group's size: burst-aware counts */
    f->rx.cum_groups++;
    for (unsigned i = 0; i <= NP_FEC_MAX_PARITY && n - got > i; i++)
      f->rx.cum_over[i]++;
  }
  if (data & ~(uint32_t)(s->have | s->rebuilt))
    f->st.unrecoverable++;
  if (evicted)
    f->st.rx_evictions++;
  f->st.groups_final++;
  slot_release(f, s);
  s->state = SLOT_FINAL;
  f->rx.nlive--;
}

/* s is FREE or FINAL (never live) here. */
static void slot_init(struct fec_rx *rx, struct fec_rx_slot *s, uint16_t gid,
                      uint64_t now_ns) {
  rx->nlive++;
  memset(s, 0, sizeof *s);
  for (unsigned i = 0; i < NP_FEC_RS_MAX_N; i++)
    s->buf[i] = -1;
  s->state = SLOT_ACTIVE;
  s->gid = gid;
  s->first_ns = now_ns;
}

/* Finalise every open group at least final_lag ids older than newest. */
static void rx_sweep_lag(struct np_fec *f) {
  for (unsigned i = 0; i <= f->rx.mask; i++) {
    struct fec_rx_slot *s = &f->rx.slots[i];
    if ((s->state == SLOT_ACTIVE || s->state == SLOT_DONE) &&
        (int16_t)(f->rx.newest - s->gid) >= (int)f->cfg.final_lag)
      slot_finalize(f, s, 0);
  }
}

/* The group's slot, or NULL when the shard is late (group already final
 * or older than anything kept). */
static struct fec_rx_slot *rx_lookup(struct np_fec *f, uint16_t gid,
                                     uint64_t now_ns) {
  struct fec_rx *rx = &f->rx;
  if (rx->have_newest &&
      (int16_t)(rx->newest - gid) >= (int)f->cfg.final_lag)
    return NULL;
  struct fec_rx_slot *s = &rx->slots[gid & rx->mask];
  if (s->state == SLOT_FREE) {
    slot_init(rx, s, gid, now_ns);
  } else if (s->gid == gid) {
    if (s->state == SLOT_FINAL)
      return NULL;
  } else {
    if ((int16_t)(gid - s->gid) < 0)
      return NULL;
    slot_finalize(f, s, 1);
    slot_init(rx, s, gid, now_ns);
  }
  if (!rx->have_newest || (int16_t)(gid - rx->newest) > 0) {
    rx->newest = gid;
    rx->have_newest = 1;
    rx_sweep_lag(f);
  }
  return s;
}

/* Finalise the oldest group holding buffers, other than keep. */
static int rx_evict_oldest(struct np_fec *f, const struct fec_rx_slot *keep) {
  struct fec_rx_slot *victim = NULL;
  int best = -1;
  for (unsigned i = 0; i <= f->rx.mask; i++) {
    struct fec_rx_slot *s = &f->rx.slots[i];
    if (s == keep || s->state != SLOT_ACTIVE)
      continue;
    int held = 0;
    for (unsigned r = 0; r < NP_FEC_RS_MAX_N && !held; r++)
      held = s->buf[r] >= 0;
    int age = (int16_t)(f->rx.newest - s->gid);
    if (held && age > best) {
      best = age;
      victim = s;
    }
  }
  if (victim == NULL)
    return 0;
  slot_finalize(f, victim, 1);
  return 1;
}

/* A pool buffer for `need` bytes of row `row` in s, or NULL when neither
 * the budget nor the pool can make room (the shard then only passes). */
static uint8_t *rx_reserve(struct np_fec *f, struct fec_rx_slot *s,
                           unsigned row, size_t need) {
  if (fec_retained(f) + need > f->cfg.budget) {
    f->st.budget_binds++;
    while (fec_retained(f) + need > f->cfg.budget)
      if (!rx_evict_oldest(f, s))
        return NULL;
  }
  while (f->rx.nfree == 0)
    if (!rx_evict_oldest(f, s))
      return NULL;
  int16_t idx = f->rx.free_stack[--f->rx.nfree];
  s->buf[row] = idx;
  s->blen[row] = (uint16_t)need;
  f->rx.retained += need;
  np_fec__note_retained(f);
  return rx_ptr(f, idx);
}

/* Rebuild missing data when possible; release buffers once all data is
 * present.  Calls cb.recovered. */
static void rx_try_decode(struct np_fec *f, struct fec_rx_slot *s) {
  if (s->state != SLOT_ACTIVE || s->k == 0)
    return;
  unsigned k = s->k, m = s->m, L = s->L;
  uint32_t missing = ((1u << k) - 1u) & ~(uint32_t)s->have;
  if (missing == 0) {
    s->state = SLOT_DONE;
    slot_release(f, s);
    return;
  }
  uint8_t *shards[NP_FEC_RS_MAX_N] = {0}, *outs[NP_FEC_RS_MAX_N] = {0};
  unsigned stored = 0, j = 0;
  for (unsigned i = 0; i < k + m; i++)
    if (s->buf[i] >= 0)
      stored++;
  if (stored < k)
    return;
  for (unsigned i = 0; i < k + m; i++) {
    if (s->buf[i] >= 0) {
      shards[i] = rx_ptr(f, s->buf[i]);
      if (i < k)
        memset(shards[i] + s->blen[i], 0, L - s->blen[i]);
    } else if (i < k) {
      outs[i] = f->rx.out[j++];
    }
  }
  if (np_fec_rs_decode(f->rs, k, m, L, shards, outs) != 0)
    return;
  s->state = SLOT_DONE;
  s->rebuilt = (uint16_t)missing;
  slot_release(f, s);
  f->st.groups_recovered++;
  for (unsigned i = 0; i < k; i++) {
    /* A row that arrived but found no buffer (budget or pool full) is
     * rebuilt too, to complete the decode, but it was already passed up
     * when it arrived: hand up only the rows that were really missing. */
    if (outs[i] == NULL || !(missing & (1u << i)))
      continue;
    unsigned len = fec_get16(outs[i]);
    if (len == 0 || len + 2u > L) {
      f->st.malformed++; /* parity did not match the data it claims */
      s->rebuilt &= (uint16_t)~(1u << i);
      continue;
    }
    f->st.recovered++;
    if (f->cb.recovered != NULL)
      f->cb.recovered(f->cb.ud, outs[i] + 2, len);
  }
}

static int rx_data(struct np_fec *f, const uint8_t *b, size_t len,
                   uint64_t now_ns, const uint8_t **out, size_t *out_len) {
  unsigned row = b[0] & FEC_INDEX_MASK;
  if (len <= NP_FEC_HDR_DATA || row >= NP_FEC_MAX_GROUP ||
      len > f->cfg.mtu) {
    f->st.malformed++;
    return NP_EPARSE;
  }
  const uint8_t *p = b + NP_FEC_HDR_DATA;
  size_t plen = len - NP_FEC_HDR_DATA;
  *out = p;
  *out_len = plen;
  f->st.data_in++;
  struct fec_rx_slot *s = rx_lookup(f, fec_get16(b + 1), now_ns);
  if (s == NULL) {
    f->st.late_shards++;
    return NP_FEC_IN_DATA;
  }
  uint16_t bit = (uint16_t)(1u << row);
  if ((s->k && row >= s->k) || (s->L && plen + 2u > s->L)) {
    f->st.malformed++; /* disagrees with the group's parity: pass only */
    return NP_FEC_IN_DATA;
  }
  if (s->have & bit) {
    f->st.dup_shards++;
    return NP_FEC_IN_DATA;
  }
  if (s->rebuilt & bit)
    f->st.dup_shards++; /* the original after its rebuilt copy */
  s->have |= bit;
  if (row + 1u > s->max_idx)
    s->max_idx = (uint8_t)(row + 1u);
  if (s->state != SLOT_ACTIVE || (b[0] & NP_FEC_F_BARE))
    return NP_FEC_IN_DATA; /* bare: no parity will come, keep nothing */
  uint8_t *d = rx_reserve(f, s, row, plen + 2u);
  if (d != NULL) {
    fec_put16(d, (uint16_t)plen);
    memcpy(d + 2, p, plen);
    rx_try_decode(f, s);
  }
  return NP_FEC_IN_DATA;
}

/* Parity header facts must agree with what the group already holds. */
static int rx_parity_fits(const struct fec_rx_slot *s, unsigned k,
                          unsigned m, unsigned L) {
  if (s->k != 0)
    return s->k == k && s->m == m && s->L == L;
  if (s->max_idx > k)
    return 0;
  for (unsigned i = 0; i < k; i++)
    if (s->buf[i] >= 0 && s->blen[i] > L)
      return 0;
  return 1;
}

static int rx_parity(struct np_fec *f, const uint8_t *b, size_t len,
                     uint64_t now_ns) {
  unsigned row = b[0] & FEC_INDEX_MASK;
  unsigned k = len > NP_FEC_HDR_PARITY ? b[3] >> 4 : 0;
  unsigned m = len > NP_FEC_HDR_PARITY ? b[3] & 0x0fu : 0;
  size_t L = len > NP_FEC_HDR_PARITY ? len - NP_FEC_HDR_PARITY : 0;
  if (k < 1 || k > NP_FEC_MAX_GROUP || m < 1 || m > NP_FEC_MAX_PARITY ||
      row < k || row >= k + m || L < 3 || len > f->cfg.mtu) {
    f->st.malformed++;
    return NP_EPARSE;
  }
  f->st.parity_in++;
  struct fec_rx_slot *s = rx_lookup(f, fec_get16(b + 1), now_ns);
  if (s == NULL) {
    f->st.late_shards++;
    return NP_FEC_IN_PARITY;
  }
  if (!rx_parity_fits(s, k, m, (unsigned)L)) {
    f->st.malformed++;
    return NP_FEC_IN_PARITY;
  }
  s->k = (uint8_t)k;
  s->m = (uint8_t)m;
  s->L = (uint16_t)L;
  uint16_t bit = (uint16_t)(1u << row);
  if (s->have & bit) {
    f->st.dup_shards++;
    return NP_FEC_IN_PARITY;
  }
  s->have |= bit;
  if (s->state != SLOT_ACTIVE)
    return NP_FEC_IN_PARITY;
  /* Learning k may already complete the group; otherwise keep parity. */
  uint32_t missing = ((1u << k) - 1u) & ~(uint32_t)s->have;
  if (missing != 0) {
    uint8_t *d = rx_reserve(f, s, row, L);
    if (d != NULL)
      memcpy(d, b + NP_FEC_HDR_PARITY, L);
  }
  rx_try_decode(f, s);
  return NP_FEC_IN_PARITY;
}

static int rx_report(struct np_fec *f, const uint8_t *b, size_t len) {
  if (len != NP_FEC_HDR_REPORT) {
    f->st.malformed++;
    return NP_EPARSE;
  }
  struct fec_rx *rx = &f->rx;
  uint32_t exp = fec_get32(b + 1), lost = fec_get32(b + 5);
  uint32_t dexp = exp, dlost = lost;
  if (rx->have_peer) {
    dexp = exp - rx->peer_expected;
    dlost = lost - rx->peer_lost;
    if ((int32_t)dexp <= 0)
      return NP_FEC_IN_REPORT; /* stale or duplicate */
  }
  uint16_t groups = fec_get16(b + 9);
  uint64_t dover[NP_FEC_MAX_PARITY + 1];
  uint16_t dgroups = (uint16_t)(groups - rx->peer_groups);
  for (unsigned i = 0; i <= NP_FEC_MAX_PARITY; i++) {
    uint16_t o = fec_get16(b + 11 + 2 * i);
    dover[i] = rx->have_peer ? (uint16_t)(o - rx->peer_over[i]) : o;
    rx->peer_over[i] = o;
  }
  if (!rx->have_peer)
    dgroups = groups;
  rx->have_peer = 1;
  rx->peer_expected = exp;
  rx->peer_lost = lost;
  rx->peer_groups = groups;
  if (f->cfg.mode == NP_FEC_WINDOW) /* groups = the peer's loss runs */
    np_fec__win_runs(f, dlost, dgroups);
  np_fec_loss_report(f, dexp, dlost);
  if (f->cfg.mode != NP_FEC_WINDOW)
    (void)np_fec_policy_groups(&f->pol, dgroups, dover);
  return NP_FEC_IN_REPORT;
}

int np_fec__rx_input(struct np_fec *f, const uint8_t *buf, size_t len,
                     uint64_t now_ns, const uint8_t **out, size_t *out_len) {
  if (len == 0 || !(buf[0] & NP_FEC_MARK)) {
    f->st.plain_in++;
    *out = buf;
    *out_len = len;
    return NP_FEC_IN_PLAIN;
  }
  switch (buf[0] & FEC_KIND_MASK) {
  case FEC_KIND_DATA:
    return rx_data(f, buf, len, now_ns, out, out_len);
  case FEC_KIND_PARITY:
    return rx_parity(f, buf, len, now_ns);
  case FEC_KIND_REPORT:
    return rx_report(f, buf, len);
  case FEC_KIND_WINDOW:
    if (f->cfg.mode == NP_FEC_WINDOW)
      return np_fec__win_input(f, buf, len, out, out_len);
    f->st.malformed++;
    return NP_EPARSE;
  default:
    f->st.malformed++;
    return NP_EPARSE;
  }
}

static int rx_report_due(const struct np_fec *f) {
  return f->cfg.report_ns != 0 && f->rx.cum_expected != f->rx.reported_expected;
}

void np_fec__rx_timer(struct np_fec *f, uint64_t now_ns) {
  struct fec_rx *rx = &f->rx;
  for (unsigned i = 0; rx->nlive && i <= rx->mask; i++) {
    struct fec_rx_slot *s = &rx->slots[i];
    if ((s->state == SLOT_ACTIVE || s->state == SLOT_DONE) &&
        now_ns >= s->first_ns + f->cfg.final_ns)
      slot_finalize(f, s, 0);
  }
  if (f->cfg.report_ns == 0 || now_ns < rx->next_report_ns)
    return;
  /* A report every tick at high rates; at low rates once it covers a
   * full-weight sample (64 shards) or 10 ticks passed, so sparse traffic
   * does not pay 21 B per 50 ms for reports that barely move the EWMA. */
  if (rx_report_due(f) &&
      (rx->cum_expected - rx->reported_expected >=
           f->cfg.policy.full_weight ||
       now_ns - rx->reported_ns >= 10 * f->cfg.report_ns)) {
    rx->reported_ns = now_ns;
    uint8_t d[NP_FEC_HDR_REPORT];
    d[0] = (uint8_t)(NP_FEC_MARK | FEC_KIND_REPORT);
    fec_put32(d + 1, (uint32_t)rx->cum_expected);
    fec_put32(d + 5, (uint32_t)rx->cum_lost);
    fec_put16(d + 9, (uint16_t)rx->cum_groups);
    for (unsigned i = 0; i <= NP_FEC_MAX_PARITY; i++)
      fec_put16(d + 11 + 2 * i, (uint16_t)rx->cum_over[i]);
    rx->reported_expected = rx->cum_expected;
    f->st.reports_sent++;
    f->st.report_bytes += sizeof d;
    np_fec__output(f, d, sizeof d);
  }
  rx->next_report_ns = now_ns + f->cfg.report_ns;
}

/* With reports on, finality by time is checked on the report tick (every
 * report_ns while groups are open or a report is due): a group becomes
 * final between final_ns and final_ns + report_ns after its first shard,
 * and sparse traffic costs one wake-up per tick instead of one per group.
 * Without reports, the exact earliest finality time. */
uint64_t np_fec__rx_deadline(const struct np_fec *f) {
  uint64_t t = UINT64_MAX;
  if (f->cfg.report_ns != 0)
    return f->rx.nlive || rx_report_due(f) ? f->rx.next_report_ns : t;
  for (unsigned i = 0; f->rx.nlive && i <= f->rx.mask; i++) {
    const struct fec_rx_slot *s = &f->rx.slots[i];
    if ((s->state == SLOT_ACTIVE || s->state == SLOT_DONE) &&
        s->first_ns + f->cfg.final_ns < t)
      t = s->first_ns + f->cfg.final_ns;
  }
  if (rx_report_due(f) && f->rx.next_report_ns < t)
    t = f->rx.next_report_ns;
  return t;
}
