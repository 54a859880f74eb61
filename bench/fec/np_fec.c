/*
 * np_fec.c - FEC endpoint lifecycle, timers and counters (the
 * configuration's defaults and mode names: np_fec_config.c).
 * The encoder lives in np_fec_tx.c, the decoder in np_fec_rx.c, the JSON
 * view of the counters in np_fec_json.c.
 */
#include "np_fec_int.h"

#include <stdlib.h>
#include <string.h>

uint32_t np_fec_data_max(const struct np_fec_config *cfg) {
  uint32_t r = np_fec_reserve(cfg->mode);
  return cfg->mtu > r ? cfg->mtu - r : 0;
}

static int fec_check_config(const struct np_fec_config *c,
                            struct np_errbuf *eb) {
  if (c->mode != NP_FEC_NONE && c->mode != NP_FEC_FIXED &&
      c->mode != NP_FEC_ADAPTIVE && c->mode != NP_FEC_WINDOW)
    return np_errbuf_set(eb, NP_EINVAL, "fec: unknown mode %d", (int)c->mode);
  if (c->mtu < 64 || c->mtu > 65507)
    return np_errbuf_set(eb, NP_EINVAL, "fec: mtu %u not in [64, 65507]",
                         (unsigned)c->mtu);
  if (c->group < 1 || c->group > NP_FEC_MAX_GROUP)
    return np_errbuf_set(eb, NP_EINVAL, "fec: --fec-group %u not in [1, %u]",
                         c->group, NP_FEC_MAX_GROUP);
  if (c->parity > NP_FEC_MAX_PARITY)
    return np_errbuf_set(eb, NP_EINVAL, "fec: --fec-parity %u not in [0, %u]",
                         c->parity, NP_FEC_MAX_PARITY);
  if (c->mode == NP_FEC_WINDOW &&
      (c->window < 1 || c->window > NP_FEC_WIN_MAX_W))
    return np_errbuf_set(eb, NP_EINVAL, "fec: --fec-window %u not in [1, %u]",
                         c->window, NP_FEC_WIN_MAX_W);
  if (c->wait_ns == 0 || c->wait_ns > 1000000000ull)
    return np_errbuf_set(eb, NP_EINVAL,
                         "fec: --fec-wait-ms must be in (0, 1000] ms");
  if (c->ratio_pct < 1 || c->ratio_pct > 400)
    return np_errbuf_set(eb, NP_EINVAL, "fec: parity ratio %u%% not in [1, 400]",
                         c->ratio_pct);
  if (c->rx_slots < 2 || c->rx_slots > 4096 ||
      (c->rx_slots & (c->rx_slots - 1)) != 0)
    return np_errbuf_set(eb, NP_EINVAL,
                         "fec: rx_slots %u must be a power of 2 in [2, 4096]",
                         c->rx_slots);
  if (c->rx_buffers < NP_FEC_RS_MAX_N || c->rx_buffers > 32767)
    return np_errbuf_set(eb, NP_EINVAL, "fec: rx_buffers %u not in [%u, 32767]",
                         c->rx_buffers, NP_FEC_RS_MAX_N);
  if (c->final_lag < 1 || c->final_lag >= c->rx_slots ||
      c->final_lag > 16384)
    return np_errbuf_set(eb, NP_EINVAL,
                         "fec: final_lag %u must be in [1, rx_slots)",
                         c->final_lag);
  if (c->final_ns == 0)
    return np_errbuf_set(eb, NP_EINVAL, "fec: final_ns must be > 0");
  if (c->budget < 2u * c->mtu)
    return np_errbuf_set(eb, NP_EINVAL,
                         "fec: budget %zu B below two datagrams (%u B)",
                         c->budget, 2u * c->mtu);
  struct np_fec_policy pol;
  if (np_fec_policy_init(&pol, &c->policy) != 0)
    return np_errbuf_set(eb, NP_EINVAL, "fec: invalid adaptive policy");
  return 0;
}

int np_fec_new(const struct np_fec_config *cfg,
               const struct np_fec_callbacks *cb, uint64_t now_ns,
               struct np_fec **out, struct np_errbuf *eb) {
  if (cfg == NULL || cb == NULL || cb->output == NULL || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "fec: missing config or output");
  int rc = fec_check_config(cfg, eb);
  if (rc != 0)
    return rc;
  struct np_fec *f = calloc(1, sizeof *f);
  if (f == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "fec: out of memory");
  f->cfg = *cfg;
  f->cb = *cb;
  f->data_max = np_fec_data_max(cfg);
  (void)np_fec_policy_init(&f->pol, &cfg->policy); /* checked above */
  f->pol.cfg.k_nominal = cfg->group;
  f->pol.k = cfg->group;
  rc = np_fec_rs_new(cfg->cache_entries, &f->rs);
  if (rc != 0)
    goto fail_free_f;
  rc = np_fec__tx_init(f);
  if (rc != 0)
    goto fail_free_rs;
  rc = np_fec__rx_init(f, now_ns);
  if (rc != 0)
    goto fail_free_tx;
  if (cfg->mode == NP_FEC_WINDOW) {
    rc = np_fec__win_init(f);
    if (rc != 0)
      goto fail_free_win;
  }
  f->st.budget = cfg->budget;
  f->st.prealloc_bytes =
      sizeof *f + (size_t)(NP_FEC_MAX_GROUP + NP_FEC_MAX_PARITY) * cfg->mtu +
      (size_t)cfg->rx_slots * sizeof(struct fec_rx_slot) +
      (size_t)cfg->rx_buffers * (cfg->mtu + sizeof(int16_t)) +
      (size_t)NP_FEC_MAX_GROUP * cfg->mtu + np_fec_rs_bytes(f->rs);
  if (cfg->mode == NP_FEC_WINDOW)
    f->st.prealloc_bytes += np_fec_win_enc_bytes(f->win.enc) +
                            np_fec_win_dec_bytes(f->win.dec) +
                            NP_FEC_HDR_REPAIR +
                            np_fec_win_sym_cap(f->data_max);
  *out = f;
  return 0;

fail_free_win:
  np_fec__win_free(f);
  np_fec__rx_free(f);
fail_free_tx:
  np_fec__tx_free(f);
fail_free_rs:
  np_fec_rs_free(f->rs);
fail_free_f:
  free(f);
  return np_errbuf_set(eb, rc, "fec: out of memory");
}

void np_fec_free(struct np_fec *f) {
  if (f == NULL)
    return;
  np_fec__win_free(f);
  np_fec__rx_free(f);
  np_fec__tx_free(f);
  np_fec_rs_free(f->rs);
  free(f);
}

void np_fec__note_retained(struct np_fec *f) {
  uint64_t r = fec_retained(f);
  if (r > f->st.retained_peak)
    f->st.retained_peak = r;
}

void np_fec__output(struct np_fec *f, const uint8_t *buf, size_t len) {
  if (f->cb.output(f->cb.ud, buf, len) < 0)
    f->st.output_errors++;
}

uint64_t np_fec_deadline(const struct np_fec *f) {
  uint64_t t = np_fec__tx_deadline(f), r = np_fec__rx_deadline(f);
  if (f->cfg.mode == NP_FEC_WINDOW)
    t = np_fec__win_deadline(f);
  return t < r ? t : r;
}

void np_fec_on_timer(struct np_fec *f, uint64_t now_ns) {
  if (f == NULL || f->in_call)
    return;
  f->in_call = 1;
  if (f->tx.open && now_ns >= f->tx.opened_ns + f->cfg.wait_ns)
    np_fec__tx_close(f, now_ns, 1);
  if (f->cfg.mode == NP_FEC_WINDOW)
    np_fec__win_timer(f, now_ns);
  np_fec__rx_timer(f, now_ns);
  f->in_call = 0;
}

void np_fec_flush(struct np_fec *f, uint64_t now_ns) {
  if (f != NULL && f->cfg.mode == NP_FEC_WINDOW)
    np_fec__win_flush(f);
  else if (f != NULL && f->tx.open)
    np_fec__tx_close(f, now_ns, 0);
}

int np_fec_input(struct np_fec *f, const uint8_t *buf, size_t len,
                 uint64_t now_ns, const uint8_t **out, size_t *out_len) {
  if (f == NULL || buf == NULL || out == NULL || out_len == NULL ||
      f->in_call)
    return NP_EINVAL;
  f->in_call = 1;
  int rc = np_fec__rx_input(f, buf, len, now_ns, out, out_len);
  f->in_call = 0;
  return rc;
}

void np_fec_loss_report(struct np_fec *f, uint64_t sent, uint64_t lost) {
  if (f == NULL)
    return;
  f->st.reports_in++;
  np_fec_policy_report(&f->pol, sent, lost);
  if (f->cfg.mode == NP_FEC_WINDOW)
    np_fec__win_loss(f);
}

void np_fec_get_stats(const struct np_fec *f, struct np_fec_stats *out) {
  if (f == NULL || out == NULL)
    return;
  *out = f->st;
  out->parity_mean = f->st.groups_encoded
                         ? (double)f->parity_sum / (double)f->st.groups_encoded
                         : 0.0;
  out->policy_m = f->cfg.mode == NP_FEC_ADAPTIVE ? f->pol.m
                  : f->cfg.mode == NP_FEC_FIXED  ? f->cfg.parity
                                                 : 0;
  out->policy_loss = f->pol.p;
  out->policy_changes = f->pol.changes;
  out->retained_bytes = fec_retained(f);
  struct np_fec_rs_stats rs;
  np_fec_rs_get_stats(f->rs, &rs);
  out->cache_hits = rs.cache_hits - f->rs_base.cache_hits;
  out->cache_misses = rs.cache_misses - f->rs_base.cache_misses;
  if (f->cfg.mode == NP_FEC_WINDOW)
    np_fec__win_stats(f, out);
}

void np_fec_reset_counters(struct np_fec *f) {
  if (f == NULL)
    return;
  struct np_fec_stats keep = f->st;
  memset(&f->st, 0, sizeof f->st);
  f->st.budget = keep.budget;
  f->st.prealloc_bytes = keep.prealloc_bytes;
  f->st.retained_peak = fec_retained(f);
  f->parity_sum = 0;
  f->pol.changes = 0;
  if (f->cfg.mode == NP_FEC_WINDOW)
    np_fec__win_reset(f);
  np_fec_rs_get_stats(f->rs, &f->rs_base);
}
