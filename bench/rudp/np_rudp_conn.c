/*
 * np_rudp_conn.c - one connection of `netproof-bench rudp`: the echo
 * application and the datagram path between its np_arq, its optional
 * np_fec and the socket.
 *
 * Message k of client c is `payload` bytes: a 12-byte header (c as u32,
 * k as u64, little-endian, when payload >= 12) followed by a pattern
 * derived from (seed, c, k, offset).  The server checks every request's
 * order and content before echoing it; the client checks every echo.
 *
 * FEC (--fec fixed|adaptive, docs/fec.md): ARQ data datagrams (first
 * transmissions and retransmissions) go out through np_fec_send, pure
 * acks straight to the socket; every received datagram goes through
 * np_fec_input first, and rebuilt data re-enters the ARQ as
 * NP_ARQ_IN_RECOVERED (no RTT sample, no congestion signal; the ARQ acks
 * it, so only what FEC could not rebuild is retransmitted).
 */
#include <string.h>

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

/* 0 ok, 1 content error, 2 order error (header names another k) */
static int msg_check(struct lane *l, const uint8_t *m, size_t len, uint32_t c,
                     uint64_t k) {
  uint32_t want = l->net->cfg->payload;
  if (len >= 12 && len == want) {
    uint64_t got;
    memcpy(&got, m + 4, 8);
    if (got != k)
      return 2;
  }
  if (len != want)
    return 1;
  msg_fill(l->scratch, want, l->net->seed, c, k);
  return memcmp(m, l->scratch, want) != 0;
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
  c->sent_at[k % cfg->window] = np_rudp__now_ns();
  c->next_send++;
  c->app.sent++;
  c->app.msg_bytes += cfg->payload;
  c->dirty = 1;
}

void np_rudp__note_drained(struct conn *c) {
  if (!c->drained_noted && c->next_recv == c->next_send &&
      c->lane->phase_seen >= NP_RUDP_DRAIN) {
    c->drained_noted = 1;
    atomic_fetch_add(&c->lane->net->ctl->drained, 1);
  }
}

void np_rudp__on_deliver(void *ud, const uint8_t *msg, size_t len) {
  struct conn *c = ud;
  struct lane *l = c->lane;
  int bad = msg_check(l, msg, len, c->client, c->next_recv);
  if (bad == 2)
    c->app.sequence_errors++;
  else if (bad)
    c->app.content_errors++;
  c->next_recv++;
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
  uint64_t k = c->next_recv - 1;
  c->app.received++;
  if (c->measuring)
    (void)np_hist_record(l->rtt, (int64_t)(np_rudp__now_ns() -
                                           c->sent_at[k % l->net->cfg->window]));
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
  uv_buf_t b = uv_buf_init((char *)buf, (unsigned)len);
  int r;
  c->wire_bytes += len;
  c->wire_dgrams++;
  if (c->is_server) {
    if (!c->peer_set)
      return NP_EAGAIN;
    r = uv_udp_try_send(&c->lane->server, &b, 1,
                        (const struct sockaddr *)&c->peer);
  } else {
    r = uv_udp_try_send(&c->sock, &b, 1, NULL);
  }
  if (r < 0) {
    c->lane->send_errors++;
    return NP_EIO;
  }
  return 0;
}

/* The ARQ's output: data through the FEC layer, everything else plain. */
int np_rudp__on_arq_output(void *ud, const uint8_t *buf, size_t len) {
  struct conn *c = ud;
  if (c->fec != NULL && (buf[0] & NP_ARQ_F_DATA))
    return np_fec_send(c->fec, buf, len, np_rudp__now_ns());
  return np_rudp__sock_send(ud, buf, len);
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
