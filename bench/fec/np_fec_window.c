/*
 * np_fec_window.c - window mode of the FEC endpoint (`--fec window`): the
 * sliding-window RLC codec of np_fec_win.h behind np_fec's API, and its
 * repair-rate controller.
 *
 * Send: every data datagram becomes a source symbol and leaves at once
 * with a 3-byte header (u8 0xd0, u16 ESI); at repair rate 0 it is bare
 * (0xd1: skipped by the codec, np_fec_win.h), so a clean path costs no
 * copy on either side.  Repair symbols (6-byte header,
 * np_fec.h) over the last W sources go out at the controller's rate of m
 * repairs per W sources: each source adds m to a credit, each repair costs
 * W.  A source not yet covered by any repair waits at most wait_ns: then,
 * if some credit is left, a tail repair leaves at once (the credit may go
 * negative, so the long-run rate stays m / W; a source sent while the
 * credit is negative waits for the credit).
 *
 * Rate controller: the same EWMA loss estimate p as the block policy
 * (np_fec_policy_report, fed by the peer's reports of source symbols
 * expected / never received), an EWMA b of the mean length of loss runs
 * (the report's group count carries the peer's count of runs of missing
 * ESIs in window mode), and the smallest m in
 * [ceil(min_m W / group), ceil(max_m W / group)] for which W sources and m
 * repairs lose more than m symbols with probability below the target:
 * loss events at rate p / b, each of b symbols,
 * P(Binomial(W + m, p / b) > floor(m / b)) < target (b = 1: independent
 * losses, the block policy's binomial), with the block policy's
 * hysteresis for lowering.  Before any report m = ceil(initial_m W /
 * group).
 *
 * Receive: source symbols pass straight up (header stripped) and feed the
 * decoder; repair symbols are consumed; rebuilt sources go up through
 * cb.recovered.  The decoder's counters are folded into np_fec_stats.
 */
#include "np_fec_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned win_scale(const struct np_fec *f, unsigned m_block) {
  unsigned w = f->cfg.window, g = f->cfg.group;
  unsigned m = (m_block * w + g - 1) / g;
  return m > w ? w : m;
}

static void win_recovered(void *ud, const uint8_t *buf, size_t len) {
  struct np_fec *f = ud;
  if (f->cb.recovered != NULL)
    f->cb.recovered(f->cb.ud, buf, len);
}

int np_fec__win_init(struct np_fec *f) {
  struct fec_win *w = &f->win;
  int rc = np_fec_win_enc_new(f->cfg.window, f->data_max, &w->enc);
  if (rc == 0)
    rc = np_fec_win_dec_new(f->data_max, win_recovered, f, &w->dec);
  if (rc != 0)
    return rc;
  w->rep = malloc(NP_FEC_HDR_REPAIR + np_fec_win_sym_cap(f->data_max));
  if (w->rep == NULL)
    return NP_ENOMEM;
  w->m = win_scale(f, f->cfg.policy.initial_m);
  return 0;
}

void np_fec__win_free(struct np_fec *f) {
  np_fec_win_enc_free(f->win.enc);
  np_fec_win_dec_free(f->win.dec);
  free(f->win.rep);
  memset(&f->win, 0, sizeof f->win);
}

/* One repair over the window; tells the layer above which of its
 * transmissions it protects. */
static void win_repair(struct np_fec *f, int tail) {
  struct fec_win *w = &f->win;
  struct np_fec_win_repair r;
  if (np_fec_win_enc_repair(w->enc, w->rep + NP_FEC_HDR_REPAIR, &r) != 0)
    return;
  uint8_t *d = w->rep;
  d[0] = (uint8_t)(NP_FEC_MARK | FEC_KIND_WINDOW | FEC_WIN_REPAIR);
  fec_put16(d + 1, r.fss);
  d[3] = (uint8_t)r.nss;
  fec_put16(d + 4, r.key);
  np_fec__output(f, d, NP_FEC_HDR_REPAIR + r.len);
  f->st.parity_sent++;
  f->st.parity_bytes += NP_FEC_HDR_REPAIR + r.len;
  f->st.repair_tail += tail != 0;
  unsigned n = w->unprotected, W = f->cfg.window;
  if (f->cb.on_parity != NULL && n > 0) {
    uint64_t tags[NP_FEC_WIN_MAX_W];
    for (unsigned i = 0; i < n; i++)
      tags[i] = w->tag[(w->nsrc - n + i) % W];
    f->cb.on_parity(f->cb.ud, tags, n, 1);
  }
  w->unprotected = 0;
}

int np_fec__win_send(struct np_fec *f, const uint8_t *buf, size_t len,
                     uint64_t now_ns, uint64_t tag) {
  struct fec_win *w = &f->win;
  uint16_t esi;
  int bare = w->m == 0; /* no repair will cover it: neither end copies it */
  if (bare) {
    np_fec_win_enc_skip(w->enc, &esi);
  } else {
    int rc = np_fec_win_enc_add(w->enc, buf, len, &esi);
    if (rc != 0)
      return rc;
  }
  uint8_t *d = f->tx.buf[0]; /* mtu bytes of scratch */
  d[0] = (uint8_t)(NP_FEC_MARK | FEC_KIND_WINDOW | (bare ? FEC_WIN_BARE : 0));
  fec_put16(d + 1, esi);
  memcpy(d + NP_FEC_HDR_DATA, buf, len);
  np_fec__output(f, d, NP_FEC_HDR_DATA + len);
  f->st.data_sent++;
  f->st.data_bytes += len;
  f->st.header_bytes += NP_FEC_HDR_DATA;
  unsigned W = f->cfg.window;
  w->tag[w->nsrc % W] = tag;
  w->nsrc++;
  if (w->m == 0) /* no repair is coming: nothing waits for one */
    w->unprotected = 0;
  else if (w->unprotected < W && ++w->unprotected == 1)
    w->first_unprot_ns = now_ns;
  w->credit += (int)w->m;
  while (w->credit >= (int)W) {
    win_repair(f, 0);
    w->credit -= (int)W;
  }
  return 0;
}

uint64_t np_fec__win_deadline(const struct np_fec *f) {
  const struct fec_win *w = &f->win;
  if (w->m == 0 || w->unprotected == 0 || w->credit <= 0)
    return UINT64_MAX;
  return w->first_unprot_ns + f->cfg.wait_ns;
}

void np_fec__win_timer(struct np_fec *f, uint64_t now_ns) {
  if (now_ns >= np_fec__win_deadline(f)) {
    win_repair(f, 1);
    f->win.credit -= (int)f->cfg.window;
  }
}

void np_fec__win_flush(struct np_fec *f) {
  if (f->win.m > 0 && f->win.unprotected > 0) {
    win_repair(f, 0);
    f->win.credit -= (int)f->cfg.window;
  }
}

/* Fold the decoder's new counts into st and the loss report state. */
static void win_sync(struct np_fec *f) {
  struct np_fec_win_dec_stats s, *o = &f->win.seen;
  np_fec_win_dec_get_stats(f->win.dec, &s);
  f->st.recovered += s.recovered - o->recovered;
  f->st.unrecoverable += s.lost - o->lost;
  f->st.shards_expected += s.expected - o->expected;
  f->st.shards_lost += s.missing - o->missing;
  f->st.dup_shards += s.dup - o->dup;
  f->st.late_shards += s.late_source - o->late_source;
  f->st.malformed += s.malformed - o->malformed;
  f->st.win_redundant += s.redundant - o->redundant;
  f->st.win_dropped_eq += s.dropped_eq - o->dropped_eq;
  f->st.win_late_repair += s.late_repair - o->late_repair;
  *o = s;
  f->rx.cum_expected = s.expected; /* what the loss report tells the peer */
  f->rx.cum_lost = s.missing;
  f->rx.cum_groups = s.runs;       /* window mode: loss runs (np_fec.h)  */
}

int np_fec__win_input(struct np_fec *f, const uint8_t *b, size_t len,
                      const uint8_t **out, size_t *out_len) {
  if (!(b[0] & FEC_WIN_REPAIR)) {
    if (len <= NP_FEC_HDR_DATA || len > f->cfg.mtu ||
        len - NP_FEC_HDR_DATA > f->data_max) {
      f->st.malformed++;
      return NP_EPARSE;
    }
    *out = b + NP_FEC_HDR_DATA;
    *out_len = len - NP_FEC_HDR_DATA;
    f->st.data_in++;
    if (b[0] & FEC_WIN_BARE)
      np_fec_win_dec_bare(f->win.dec, fec_get16(b + 1));
    else
      np_fec_win_dec_source(f->win.dec, fec_get16(b + 1), *out, *out_len);
    win_sync(f);
    return NP_FEC_IN_DATA;
  }
  struct np_fec_win_repair r;
  if (len <= NP_FEC_HDR_REPAIR || len > f->cfg.mtu) {
    f->st.malformed++;
    return NP_EPARSE;
  }
  r.fss = fec_get16(b + 1);
  r.nss = b[3];
  r.key = fec_get16(b + 4);
  r.len = len - NP_FEC_HDR_REPAIR;
  if (np_fec_win_dec_repair(f->win.dec, &r, b + NP_FEC_HDR_REPAIR) != 0) {
    f->st.malformed++;
    return NP_EPARSE;
  }
  f->st.parity_in++;
  win_sync(f);
  return NP_FEC_IN_PARITY;
}

/* P(Binomial(n, q) > t). */
static double binom_tail(unsigned n, double q, unsigned t) {
  if (q <= 0.0)
    return 0.0;
  if (q >= 1.0)
    return t < n ? 1.0 : 0.0;
  double term = pow(1.0 - q, n), cdf = 0.0;
  for (unsigned i = 0; i <= t && i <= n; i++) {
    cdf += term;
    term = term * (double)(n - i) / (double)(i + 1) * (q / (1.0 - q));
  }
  return cdf >= 1.0 ? 0.0 : 1.0 - cdf;
}

/* W sources and m repairs fail when the loss events among them (runs of
 * mean length b, so events at rate p / b per symbol) lose more than m
 * symbols: P(Binomial(W + m, p / b) > floor(m / b)) >= target.  b = 1
 * is the block policy's independent-loss model. */
static int win_misses(const struct np_fec *f, unsigned m, double target) {
  double b = f->win.run_len < 1.0 ? 1.0 : f->win.run_len;
  unsigned t = (unsigned)floor((double)m / b + 1e-9);
  return binom_tail(f->cfg.window + m, f->pol.p / b, t) >= target;
}

void np_fec__win_runs(struct np_fec *f, uint64_t lost, uint64_t runs) {
  if (runs == 0 || lost < runs)
    return;
  double sample = (double)lost / (double)runs;
  double w = f->cfg.policy.alpha;
  if (runs < 16)
    w *= (double)runs / 16.0;
  f->win.run_len = f->win.have_run ? f->win.run_len + w * (sample - f->win.run_len)
                                   : sample;
  f->win.have_run = 1;
}

void np_fec__win_loss(struct np_fec *f) {
  const struct np_fec_policy_config *c = &f->cfg.policy;
  unsigned lo = win_scale(f, c->min_m), hi = win_scale(f, c->max_m);
  unsigned want = hi;
  for (unsigned m = lo; m <= hi; m++) {
    if (!win_misses(f, m, c->target)) {
      want = m;
      break;
    }
  }
  unsigned m = f->win.m;
  if (want >= m) {
    m = want;
  } else {
    while (m > want && !win_misses(f, m - 1, c->target * c->down_factor))
      m--;
  }
  if (m != f->win.m) {
    f->win.m = m;
    f->win.changes++;
  }
}

void np_fec__win_stats(const struct np_fec *f, struct np_fec_stats *out) {
  out->window = f->cfg.window;
  out->repair_per_window = f->win.m;
  out->policy_changes = f->win.changes;
  out->parity_mean = 0.0;
}

void np_fec__win_reset(struct np_fec *f) {
  struct np_fec_win_dec_stats s;
  np_fec_win_dec_get_stats(f->win.dec, &s);
  f->win.changes = 0;
  f->st.win_eq_at_reset = s.eq_live; /* they may rebuild after the reset */
}
