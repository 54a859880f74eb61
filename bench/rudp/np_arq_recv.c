/*
 * np_arq_recv.c - the receiving half of np_arq: the receive window,
 * duplicate and out-of-window accounting, in-order reassembly of whole
 * messages and the timestamp echoed in the next ack.
 *
 * Window: slots cover [dlv_nxt, dlv_nxt + rcv_wnd).  rcv_nxt (the
 * cumulative ack) runs ahead of dlv_nxt only while delivery is paused; the
 * advertised window is what is left, dlv_nxt + rcv_wnd - rcv_nxt.
 *
 * Ack repeat: an ack that reports out-of-order arrival (or a filled
 * hole) is sent once more 1 ms later unless a newer ack went out first.
 * When the application stalls behind a hole, that ack may be the only one
 * for a while; losing it would make RACK retransmit data that arrived.
 *
 * Echo: the ack carries the newest send timestamp among the data that
 * arrived new since the previous ack (or, if only duplicates arrived, the
 * latest of those), which is what the sender's Eifel test needs.
 */
#include <stdlib.h>
#include <string.h>

#include "np_arq_int.h"

static void echo_note(struct np_arq *a, uint32_t ts, int is_new) {
  if (!a->echo_fresh) {
    a->echo_ts = ts;
    a->echo_fresh = is_new;
  } else if (is_new && (int32_t)(ts - a->echo_ts) > 0) {
    a->echo_ts = ts;
  }
}

void np_arq_on_data(struct np_arq *a, uint32_t seq, uint8_t flags,
                    uint32_t ts, const uint8_t *p, size_t len) {
  a->ack_pending = 1; /* every data datagram is acknowledged at once */
  if (np_seq_lt(seq, a->rcv_nxt)) {
    a->stats.dup_fragments++;
    echo_note(a, ts, 0);
    return;
  }
  if (!np_seq_lt(seq, a->dlv_nxt + a->cfg.rcv_wnd)) {
    a->stats.out_of_window++;
    return;
  }
  struct np_arq_rslot *s = &a->rcv[seq % a->cfg.rcv_wnd];
  if (s->present) {
    a->stats.dup_fragments++;
    echo_note(a, ts, 0);
    return;
  }
  if (s->buf == NULL && (s->buf = np_arq_buf_get(a)) == NULL)
    return; /* out of memory: behave as if the datagram were lost */
  if (len)
    memcpy(s->buf, p, len);
  s->len = (uint32_t)len;
  s->flags = flags & (NP_ARQ_F_END | NP_ARQ_F_FIN);
  s->present = 1;
  a->last_rcv_seq = seq;
  if (seq != a->rcv_nxt || a->rcv_high != seq)
    a->ack_repeat_arm = 1; /* out of order or filling a hole */
  echo_note(a, ts, 1);
  if (np_seq_le(a->rcv_high, seq))
    a->rcv_high = seq + 1;
  while (a->rcv[a->rcv_nxt % a->cfg.rcv_wnd].present &&
         np_seq_lt(a->rcv_nxt, a->dlv_nxt + a->cfg.rcv_wnd) &&
         np_seq_lt(a->rcv_nxt, a->rcv_high))
    a->rcv_nxt++;
  np_arq_deliver_ready(a);
}

static int reasm_append(struct np_arq *a, const uint8_t *p, size_t len) {
  if (a->reasm_len + len > a->reasm_cap) {
    size_t ncap = a->reasm_cap ? a->reasm_cap : 4096;
    while (ncap < a->reasm_len + len)
      ncap *= 2;
    uint8_t *n = realloc(a->reasm, ncap);
    if (n == NULL)
      return NP_ENOMEM;
    a->reasm = n;
    a->reasm_cap = ncap;
  }
  memcpy(a->reasm + a->reasm_len, p, len);
  a->reasm_len += len;
  return 0;
}

void np_arq_deliver_ready(struct np_arq *a) {
  while (!a->paused && np_seq_lt(a->dlv_nxt, a->rcv_nxt) &&
         a->st != NP_ARQ_FAILED) {
    struct np_arq_rslot *s = &a->rcv[a->dlv_nxt % a->cfg.rcv_wnd];
    uint8_t *buf = s->buf;
    uint32_t len = s->len;
    uint8_t flags = s->flags;
    s->present = 0;
    s->buf = NULL;
    a->dlv_nxt++;
    if (flags & NP_ARQ_F_FIN) {
      a->peer_fin = 1;
      np_arq_buf_put(a, buf);
      np_arq_set_state(a, a->fin_acked ? NP_ARQ_CLOSED : NP_ARQ_CLOSING);
      continue;
    }
    if (!(flags & NP_ARQ_F_END)) {
      if (reasm_append(a, buf, len) != 0)
        np_arq_fail(a);
      np_arq_buf_put(a, buf);
      continue;
    }
    a->stats.msgs_delivered++;
    if (a->reasm_len == 0) {
      a->stats.msg_bytes_delivered += len;
      a->cb.deliver(a->cb.ud, buf, len);
    } else if (reasm_append(a, buf, len) == 0) {
      a->stats.msg_bytes_delivered += a->reasm_len;
      a->cb.deliver(a->cb.ud, a->reasm, a->reasm_len);
      a->reasm_len = 0;
    } else {
      np_arq_fail(a);
    }
    np_arq_buf_put(a, buf);
  }
}
