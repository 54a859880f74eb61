/*
 * np_fec_tx.c - the FEC encoder: data datagrams leave at once with a
 * 3-byte header and are kept in the open group; the group closes when
 * full or when its wait expires, and its parity goes out.
 *
 * The parity count of a group is decided when it closes: the fixed count
 * or the adaptive policy's choice, lowered until the parity bytes
 * (m x L, L = 2 + longest datagram) are at most ratio_pct % of the data
 * shard bytes (sum of 2 + length): a group of one datagram, or one padded
 * heavily, gets less parity or none (counted as a ratio bind).
 *
 * A group that opens while the policy wants no parity (adaptive m = 0, or
 * fixed parity 0) is bare: its datagrams carry NP_FEC_F_BARE, the encoder
 * keeps no copy (retained 0) and the decoder stores none, while the
 * header still lets the peer count losses for its reports.  A policy
 * change takes effect from the next group.
 */
#include "np_fec_int.h"

#include <stdlib.h>
#include <string.h>

int np_fec__tx_init(struct np_fec *f) {
  struct fec_tx *tx = &f->tx;
  for (unsigned i = 0; i < NP_FEC_MAX_GROUP; i++) {
    tx->buf[i] = malloc(f->cfg.mtu);
    if (tx->buf[i] == NULL)
      return NP_ENOMEM;
  }
  for (unsigned i = 0; i < NP_FEC_MAX_PARITY; i++) {
    tx->par[i] = malloc(f->cfg.mtu);
    if (tx->par[i] == NULL)
      return NP_ENOMEM;
  }
  return 0;
}

void np_fec__tx_free(struct np_fec *f) {
  for (unsigned i = 0; i < NP_FEC_MAX_GROUP; i++) {
    free(f->tx.buf[i]);
    f->tx.buf[i] = NULL;
  }
  for (unsigned i = 0; i < NP_FEC_MAX_PARITY; i++) {
    free(f->tx.par[i]);
    f->tx.par[i] = NULL;
  }
}

/* Parity wanted before the caps (a bare group wants none). */
static unsigned tx_requested_m(const struct np_fec *f) {
  if (f->tx.open && f->tx.bare)
    return 0;
  return f->cfg.mode == NP_FEC_ADAPTIVE ? f->pol.m : f->cfg.parity;
}

/* The open group's parity count after the ratio cap; *L = shard length. */
static unsigned tx_capped_m(const struct np_fec *f, size_t *L_out) {
  const struct fec_tx *tx = &f->tx;
  size_t L = 0, data_shard_bytes = 0;
  for (unsigned i = 0; i < tx->k; i++) {
    size_t s = 2u + tx->len[i];
    data_shard_bytes += s;
    if (s > L)
      L = s;
  }
  unsigned m = tx_requested_m(f);
  while (m > 0 && (uint64_t)m * L * 100u >
                      (uint64_t)f->cfg.ratio_pct * data_shard_bytes)
    m--;
  *L_out = L;
  return m;
}

/* The wait timer only matters when closing now would send parity: a group
 * that would close with m = 0 (a single datagram under the ratio cap, or
 * adaptive m = 0) is closed lazily by the next send or timer instead, so
 * sparse traffic costs no extra wake-up per datagram. */
uint64_t np_fec__tx_deadline(const struct np_fec *f) {
  size_t L;
  if (!f->tx.open || tx_capped_m(f, &L) == 0)
    return UINT64_MAX;
  return f->tx.opened_ns + f->cfg.wait_ns;
}

void np_fec__tx_close(struct np_fec *f, uint64_t now_ns, int by_timer) {
  struct fec_tx *tx = &f->tx;
  (void)now_ns;
  if (!tx->open)
    return;
  unsigned k = tx->k;
  size_t L;
  unsigned want = tx_requested_m(f), m = tx_capped_m(f, &L);
  if (m < want)
    f->st.ratio_binds++;
  if (m > 0) {
    /* Pad each shard [u16 len][datagram] with zeros to L. */
    uint8_t *data[NP_FEC_MAX_GROUP], *par[NP_FEC_MAX_PARITY];
    for (unsigned i = 0; i < k; i++) {
      data[i] = tx->buf[i] + 1;
      memset(data[i] + 2 + tx->len[i], 0, L - 2 - tx->len[i]);
    }
    for (unsigned p = 0; p < m; p++)
      par[p] = tx->par[p] + NP_FEC_HDR_PARITY;
    (void)np_fec_rs_encode(f->rs, k, m, L, data, par); /* k, m in range */
    for (unsigned p = 0; p < m; p++) {
      uint8_t *d = tx->par[p];
      d[0] = (uint8_t)(NP_FEC_MARK | FEC_KIND_PARITY | (k + p));
      fec_put16(d + 1, tx->gid);
      d[3] = (uint8_t)(k << 4 | m);
      np_fec__output(f, d, NP_FEC_HDR_PARITY + L);
      f->st.parity_sent++;
      f->st.parity_bytes += NP_FEC_HDR_PARITY + L;
    }
    if (f->cb.on_parity != NULL)
      f->cb.on_parity(f->cb.ud, tx->tag, k, m);
  } else {
    f->st.groups_no_parity++;
    f->st.groups_bare += tx->bare;
  }
  f->st.groups_encoded++;
  if (by_timer && k < f->cfg.group)
    f->st.groups_partial++;
  f->st.parity_hist[m]++;
  if (m > f->st.parity_max)
    f->st.parity_max = m;
  f->parity_sum += m;
  np_fec_policy_group(&f->pol, k);
  tx->open = 0;
  tx->k = 0;
  tx->retained = 0;
}

int np_fec_send(struct np_fec *f, const uint8_t *buf, size_t len,
                uint64_t now_ns) {
  return np_fec_send_tagged(f, buf, len, now_ns, 0);
}

int np_fec_send_tagged(struct np_fec *f, const uint8_t *buf, size_t len,
                       uint64_t now_ns, uint64_t tag) {
  if (f == NULL || buf == NULL || len == 0)
    return NP_EINVAL;
  if (len > f->data_max)
    return NP_EMSGSIZE;
  if (buf[0] & NP_FEC_MARK)
    return NP_EINVAL;
  struct fec_tx *tx = &f->tx;
  if (f->cfg.mode == NP_FEC_WINDOW)
    return np_fec__win_send(f, buf, len, now_ns, tag);
  if (f->cfg.mode == NP_FEC_NONE)
    goto send_plain;
  /* A late timer must not let a group grow past its wait. */
  if (tx->open && now_ns >= tx->opened_ns + f->cfg.wait_ns)
    np_fec__tx_close(f, now_ns, 1);
  /* a bare group keeps nothing: no budget to respect */
  int bare = tx->open ? tx->bare
                      : (f->cfg.mode == NP_FEC_ADAPTIVE ? f->pol.m
                                                        : f->cfg.parity) == 0;
  size_t need = bare ? 0 : 2u + len;
  if (need && fec_retained(f) + need > f->cfg.budget) {
    f->st.budget_binds++;
    np_fec__tx_close(f, now_ns, 0);
    if (fec_retained(f) + need > f->cfg.budget)
      goto send_plain;
  }
  if (!tx->open) {
    tx->open = 1;
    tx->gid = tx->next_gid++;
    tx->k = 0;
    tx->opened_ns = now_ns;
    tx->bare = bare;
  }
  unsigned i = tx->k;
  uint8_t *b = tx->buf[i];
  b[0] = (uint8_t)(NP_FEC_MARK | FEC_KIND_DATA | (tx->bare ? NP_FEC_F_BARE : 0) |
                   i);
  fec_put16(b + 1, tx->gid);
  memcpy(b + NP_FEC_HDR_DATA, buf, len);
  tx->len[i] = (uint16_t)len;
  tx->tag[i] = tag;
  tx->k++;
  tx->retained += need;
  if (need)
    np_fec__note_retained(f);
  f->st.data_sent++;
  f->st.data_bytes += len;
  f->st.header_bytes += NP_FEC_HDR_DATA;
  np_fec__output(f, b, NP_FEC_HDR_DATA + len);
  /* Now turn the wire header into the shard's length prefix. */
  fec_put16(b + 1, (uint16_t)len);
  if (tx->k >= f->cfg.group)
    np_fec__tx_close(f, now_ns, 0);
  return 0;

send_plain:
  f->st.plain_sent++;
  np_fec__output(f, buf, len);
  return 0;
}
