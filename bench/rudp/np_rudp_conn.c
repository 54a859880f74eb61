/*
 * np_rudp_conn.c - one connection of `netproof-bench rudp`: the echo
 * application and the datagram path between its np_arq, its optional
 * np_fec and the socket.
 *
 * Message k of client c is `payload` bytes: a 12-byte header (c as u32,
 * k as u64, little-endian, when payload >= 12) followed by a pattern
 * derived from (seed, c, k, offset).  The server checks every request's
 * order and content before echoing it; the client checks every echo.
 * Ordered delivery: message k must be the next one.  Unordered delivery
 * (--delivery unordered, payload >= 12): the header's k must be one not
 * yet received and, at the client, one that was sent; each endpoint keeps
 * a bitmap of the numbers received from recv_low (the lowest missing) on,
 * over a ring larger than any span of numbers that can be in flight
 * (window + twice both ARQ windows, doubled), so every message is checked
 * exactly once against the bytes its number stands for.
 *
 * FEC (--fec fixed|adaptive, docs/fec.md): ARQ data datagrams (first
 * transmissions and retransmissions) go out through np_fec_send, pure
 * acks straight to the socket; every received datagram goes through
 * np_fec_input first, and rebuilt data re-enters the ARQ as
 * NP_ARQ_IN_RECOVERED (no RTT sample, no congestion signal; the ARQ acks
 * it, so only what FEC could not rebuild is retransmitted).
 */
#include <stdlib.h>
#include <string.h>

#include "np_fec.h"
#include "np_rudp_endpoint_int.h"

/* ---- message content --------------------------------------------------- */

static void msg_fill(uint8_t *buf, uint32_t len, uint64_t seed, uint32_t c,
                     uint64_t k) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)c << 48) ^ k;
  uint8_t b = (uint8_t)(x ^ x >> 17 ^ x >> 31);
  for (uint32_t i = 0; i < len; i++)
    buf[i] = (uint8_t)(b + i * 7u + (i >> 8));
  if (len >= 12) {
    memcpy(buf, &c, 4);
    memcpy(buf + 4, &k, 8);
  }
}

/* 0 ok, 1 content error, 2 order error: another k than the next one
 * (ordered), or a k received already, out of the ring or never sent
 * (unordered).  *k_out: the message's number when 0 or 1. */
static int msg_check(const struct conn *cn, const uint8_t *m, size_t len,
                     uint64_t *k_out) {
  const struct np_rudp_net *n = cn->lane->net;
  uint32_t want = n->cfg->payload;
  uint64_t k = cn->recv_low;
  if (len >= 12 && len == want) {
    uint64_t got;
    memcpy(&got, m + 4, 8);
    if (cn->seen == NULL && got != k)
      return 2;
    if (cn->seen != NULL) {
      if (got < cn->recv_low || got - cn->recv_low >= cn->ring ||
          (!cn->is_server && got >= cn->next_send) ||
          (cn->seen[(got % cn->ring) / 8] & (1u << (got % 8))))
        return 2;
      k = got;
    }
  } else if (cn->seen != NULL) {
    return 1; /* no header to name it: cannot be any message */
  }
  *k_out = k;
  if (len != want)
    return 1;
  msg_fill(cn->lane->scratch, want, n->seed, cn->client, k);
  return memcmp(m, cn->lane->scratch, want) != 0;
}

/* Message k is in: advance recv_low over everything received. */
static void mark_received(struct conn *c, uint64_t k) {
  if (c->seen == NULL) {
    c->recv_low = k + 1;
    return;
  }
  c->seen[(k % c->ring) / 8] |= (uint8_t)(1u << (k % 8));
  while (c->seen[(c->recv_low % c->ring) / 8] & (1u << (c->recv_low % 8))) {
    c->seen[(c->recv_low % c->ring) / 8] &=
        (uint8_t) ~(1u << (c->recv_low % 8));
    c->recv_low++;
  }
}

int np_rudp__conn_app_init(struct conn *c, const struct np_rudp_config *cfg) {
  uint64_t span = cfg->window;
  if (cfg->arq.delivery == NP_ARQ_UNORDERED)
    span = 2 * (cfg->window + 2 * ((uint64_t)cfg->arq.snd_wnd +
                                   cfg->arq.rcv_wnd));
  c->ring = 8;
  while (c->ring < span)
    c->ring *= 2;
  if (cfg->arq.delivery == NP_ARQ_UNORDERED &&
      (c->seen = calloc(c->ring / 8, 1)) == NULL)
    return NP_ENOMEM;
  if (!c->is_server &&
      (c->sent_at = calloc(c->ring, sizeof *c->sent_at)) == NULL)
    return NP_ENOMEM;
  return 0;
}

void np_rudp__conn_app_free(struct conn *c) {
  free(c->seen);
  free(c->sent_at);
  c->seen = NULL;
  c->sent_at = NULL;
}

int np_rudp__conn_drained(const struct conn *c) {
  return c->recv_low == c->next_send;
}

/* ---- the application ------------------------------------------------- */

void np_rudp__client_send(struct conn *c) {
  const struct np_rudp_config *cfg = c->lane->net->cfg;
  uint64_t k = c->next_send;
  msg_fill(c->lane->msgbuf, cfg->payload, c->lane->net->seed, c->client, k);
  if (np_arq_send(c->arq, c->lane->msgbuf, cfg->payload) != 0) {
    c->app.send_errors++;
    return;
  }
  c->sent_at[k % c->ring] = np_rudp__now_ns();
  c->next_send++;
  c->app.sent++;
  c->app.msg_bytes += cfg->payload;
  c->dirty = 1;
}

void np_rudp__note_drained(struct conn *c) {
  if (!c->drained_noted && np_rudp__conn_drained(c) &&
      c->lane->phase_seen >= NP_RUDP_DRAIN) {
    c->drained_noted = 1;
    atomic_fetch_add(&c->lane->net->ctl->drained, 1);
  }
}

void np_rudp__on_deliver(void *ud, const uint8_t *msg, size_t len) {
  struct conn *c = ud;
  struct lane *l = c->lane;
  uint64_t k = 0;
  int bad = msg_check(c, msg, len, &k);
  if (bad == 2)
    c->app.sequence_errors++; /* nothing marked: no number to trust */
  else if (bad)
    c->app.content_errors++;
  if (bad != 2)
    mark_received(c, k);
  if (c->is_server) {
    c->app.server_received++;
    if (np_arq_send(c->arq, msg, len) == 0) {
      c->app.server_replied++;
      c->app.msg_bytes += len;
    } else {
      c->app.send_errors++;
    }
    c->dirty = 1;
    return;
  }
  c->app.received++;
  if (c->measuring && bad != 2) {
    int64_t rtt = (int64_t)(np_rudp__now_ns() - c->sent_at[k % c->ring]);
    (void)np_hist_record(l->rtt, rtt);
    if (l->iv_hist) { /* --interval's slice */
      (void)np_hist_record(l->iv_hist, rtt);
      l->iv_received++;
    }
  }
  if (l->phase_seen < NP_RUDP_DRAIN)
    np_rudp__client_send(c);
  np_rudp__note_drained(c);
}

void np_rudp__on_state(void *ud, enum np_arq_state st) {
  struct conn *c = ud;
  if ((st == NP_ARQ_CLOSED || st == NP_ARQ_FAILED) && !c->done_noted) {
    c->done_noted = 1;
    atomic_fetch_add(&c->lane->net->ctl->done, 1);
  }
}

/* Put one datagram on the socket (the FEC layer's output, and the ARQ's
 * when there is no FEC or for pure acks). */
int np_rudp__sock_send(void *ud, const uint8_t *buf, size_t len) {
  struct conn *c = ud;
  struct lane *l = c->lane;
  int r;
  c->wire_bytes += len;
  c->wire_dgrams++;
  if (c->is_server) {
    if (!c->peer_set)
      return NP_EAGAIN;
    socklen_t alen = c->peer.ss_family == AF_INET6
                         ? sizeof(struct sockaddr_in6)
                         : sizeof(struct sockaddr_in);
    r = np_rudp_txq_put(&l->server_txq, buf, len,
                        (const struct sockaddr *)&c->peer, alen, &l->io);
  } else {
    r = np_rudp_txq_put(&c->txq, buf, len, NULL, 0, &l->io);
  }
  if (r < 0) {
    l->send_errors++;
    return NP_EIO;
  }
  return 0;
}

/* The ARQ's output: data through the FEC layer (tagged, so the layer can
 * tell which transmissions its parity covers), everything else plain. */
int np_rudp__on_arq_output(void *ud, const uint8_t *buf, size_t len) {
  struct conn *c = ud;
  uint64_t tag = 0;
  if (c->fec != NULL && (buf[0] & NP_ARQ_F_DATA)) {
    (void)np_arq_datagram_tag(buf, len, &tag);
    return np_fec_send_tagged(c->fec, buf, len, np_rudp__now_ns(), tag);
  }
  return np_rudp__sock_send(ud, buf, len);
}

/* The FEC layer sent parity over k of our data datagrams: RACK may give
 * them the short window (np_arq_protect). */
void np_rudp__on_fec_parity(void *ud, const uint64_t *tags, unsigned k,
                            unsigned m) {
  struct conn *c = ud;
  uint64_t now = np_rudp__now_ns();
  (void)m;
  for (unsigned i = 0; i < k; i++)
    np_arq_protect(c->arq, tags[i], now);
}

/* A data datagram the FEC layer rebuilt from parity. */
void np_rudp__on_fec_recovered(void *ud, const uint8_t *buf, size_t len) {
  struct conn *c = ud;
  (void)np_arq_input(c->arq, buf, len, np_rudp__now_ns(), NP_ARQ_IN_RECOVERED);
  c->dirty = 1;
}

void np_rudp__conn_input(struct conn *c, const uint8_t *p, size_t len) {
  uint64_t now = np_rudp__now_ns();
  int kind = NP_FEC_IN_PLAIN;
  if (c->fec != NULL) /* may rebuild data (np_rudp__on_fec_recovered) */
    kind = np_fec_input(c->fec, p, len, now, &p, &len);
  if (kind == NP_FEC_IN_DATA || kind == NP_FEC_IN_PLAIN)
    (void)np_arq_input(c->arq, p, len, now, NP_ARQ_IN_NETWORK);
  c->dirty = 1;
  /* the peer's FIN may also have come back rebuilt from parity */
  if (c->is_server && np_arq_peer_closed(c->arq) && !c->close_called) {
    c->close_called = 1; /* the client closed: drain and close our side */
    np_arq_close(c->arq, np_rudp__now_ns());
  }
}
