/*
 * np_arq_recv.c - the receiving half of np_arq: the receive window,
 * duplicate and out-of-window accounting, reassembly and delivery of
 * whole messages (in order, or as soon as complete), when to acknowledge,
 * and the timestamp echoed in the next ack.
 *
 * Window: slots cover [dlv_nxt, dlv_nxt + rcv_wnd).  rcv_nxt (the
 * cumulative ack) runs ahead of dlv_nxt only while delivery is paused; the
 * advertised window is what is left, dlv_nxt + rcv_wnd - rcv_nxt.
 *
 * Delivery.  Ordered (the default): fragments are consumed from dlv_nxt
 * up to rcv_nxt, appended to the reassembly buffer, and a message leaves
 * at its END fragment.  Unordered (cfg.delivery, SCTP's U bit / QUIC's
 * independent streams): the same in-order consumption runs at the head,
 * and in addition a message whose fragments [BEGIN .. END] have all
 * arrived beyond a hole is delivered at once; its slots stay `present`
 * (acks and duplicate detection still see them) but are `done` and give
 * their buffers back, and the head skips them when it gets there.  A
 * message longer than the receive window therefore still arrives (the
 * head streams it), and the FIN is only taken in order, after everything.
 *
 * Acks (RFC 5681 4.2, RFC 9000 13.2): every data datagram is acknowledged
 * by the earliest of (1) the next datagram this end sends (the ack block
 * rides on data for free), (2) the flush after the ack_every-th (2) data
 * datagram since the last ack, (3) the flush after an arrival that is out
 * of order, fills a hole, is a duplicate, lies beyond the window, asks
 * with PROBE or carries the FIN, and (4) ack_delay_ns (1 ms) after the
 * first datagram not yet acknowledged, on the timer.  That bound holds
 * for every arrival: no ack is held longer than ack_delay_ns, plus the
 * caller's timer granularity.  ack_every = 1 acknowledges every datagram
 * at the next flush (the behaviour before issue 20).
 *
 * Ack repeat: an ack that reports out-of-order arrival (or a filled
 * hole) is sent once more 1 ms later unless a newer ack went out first.
 * When the application stalls behind a hole, that ack may be the only one
 * for a while; losing it would make RACK retransmit data that arrived.
 *
 * Echo: the ack carries the newest send timestamp among the data that
 * arrived new since the previous ack (or, if only duplicates arrived, the
 * latest of those), which is what the sender's Eifel test needs; with
 * delayed acks the newest datagram is the one that triggered the ack, so
 * its RTT sample carries no delay (a timer-driven ack adds at most
 * ack_delay_ns).
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

/* One more data datagram to acknowledge; urgent: at the next flush. */
static void ack_note(struct np_arq *a, int urgent, uint64_t now_ns) {
  a->ack_pending = 1;
  a->ack_count++;
  if (urgent || a->ack_count >= a->cfg.ack_every || a->cfg.ack_delay_ns == 0)
    a->ack_now = 1;
  else if (a->ack_at == 0)
    a->ack_at = now_ns + a->cfg.ack_delay_ns;
}

static int reasm_fit(struct np_arq *a, size_t need) {
  if (need <= a->reasm_cap)
    return 0;
  size_t ncap = a->reasm_cap ? a->reasm_cap : 4096;
  while (ncap < need)
    ncap *= 2;
  uint8_t *n = realloc(a->reasm, ncap); /* grows to the largest message */
  if (n == NULL)
    return NP_ENOMEM;
  a->reasm = n;
  a->reasm_cap = ncap;
  return 0;
}

static int reasm_append(struct np_arq *a, const uint8_t *p, size_t len) {
  if (reasm_fit(a, a->reasm_len + len) != 0)
    return NP_ENOMEM;
  memcpy(a->reasm + a->reasm_len, p, len);
  a->reasm_len += len;
  return 0;
}

/* Unordered: deliver the message holding seq if all of it is here and it
 * lies beyond the head (the head delivers what it reaches itself). */
static void deliver_complete(struct np_arq *a, uint32_t seq) {
  uint32_t w = a->cfg.rcv_wnd, b = seq, e = seq;
  struct np_arq_rslot *s = &a->rcv[seq % w];
  if (!s->present || s->done || (s->flags & NP_ARQ_F_FIN) ||
      np_seq_lt(seq, a->dlv_nxt))
    return;
  while (!(a->rcv[b % w].flags & NP_ARQ_F_BEGIN)) {
    if (b == a->dlv_nxt)
      return; /* the message began before the head: the head's */
    b--;
    if (!a->rcv[b % w].present || a->rcv[b % w].done)
      return;
  }
  if (b == a->dlv_nxt)
    return;
  while (!(a->rcv[e % w].flags & NP_ARQ_F_END)) {
    e++;
    if (!np_seq_lt(e, a->rcv_high) || !a->rcv[e % w].present)
      return;
  }
  /* whole: one fragment goes up from its slot, more are joined after
   * whatever the head has half-assembled, which stays as it was */
  size_t base = a->reasm_len, total = 0;
  for (uint32_t q = b; np_seq_le(q, e); q++)
    total += a->rcv[q % w].len;
  const uint8_t *msg = a->rcv[b % w].buf;
  if (b != e) {
    if (reasm_fit(a, base + total) != 0) {
      np_arq__fail(a);
      return;
    }
    for (uint32_t q = b, off = 0; np_seq_le(q, e); q++) {
      struct np_arq_rslot *r = &a->rcv[q % w];
      memcpy(a->reasm + base + off, r->buf, r->len);
      off += r->len;
    }
    msg = a->reasm + base;
  }
  a->stats.msgs_delivered++;
  a->stats.msgs_delivered_early++;
  a->stats.msg_bytes_delivered += total;
  a->cb.deliver(a->cb.ud, msg, total);
  for (uint32_t q = b; np_seq_le(q, e); q++) {
    struct np_arq_rslot *r = &a->rcv[q % w];
    np_arq__buf_put(a, r->buf);
    r->buf = NULL;
    r->done = 1;
  }
}

static void deliver_head(struct np_arq *a);

void np_arq__on_data(struct np_arq *a, uint32_t seq, uint8_t flags, uint32_t ts,
                     const uint8_t *p, size_t len, uint64_t now_ns) {
  if (np_seq_lt(seq, a->rcv_nxt)) {
    a->stats.dup_fragments++;
    echo_note(a, ts, 0);
    ack_note(a, 1, now_ns);
    return;
  }
  if (!np_seq_lt(seq, a->dlv_nxt + a->cfg.rcv_wnd)) {
    a->stats.out_of_window++;
    ack_note(a, 1, now_ns);
    return;
  }
  struct np_arq_rslot *s = &a->rcv[seq % a->cfg.rcv_wnd];
  if (s->present) {
    a->stats.dup_fragments++;
    echo_note(a, ts, 0);
    ack_note(a, 1, now_ns);
    return;
  }
  if ((s->buf = np_arq__buf_get(a)) == NULL) {
    ack_note(a, 1, now_ns);
    return; /* cannot happen (the pool covers the window): as if lost */
  }
  if (len)
    memcpy(s->buf, p, len);
  s->len = (uint32_t)len;
  s->flags = flags & (NP_ARQ_F_BEGIN | NP_ARQ_F_END | NP_ARQ_F_FIN);
  s->present = 1;
  s->done = 0;
  a->last_rcv_seq = seq;
  int disorder = seq != a->rcv_nxt || a->rcv_high != seq;
  if (disorder)
    a->ack_repeat_arm = 1; /* out of order or filling a hole */
  ack_note(a, disorder || (flags & NP_ARQ_F_FIN), now_ns);
  echo_note(a, ts, 1);
  if (np_seq_le(a->rcv_high, seq))
    a->rcv_high = seq + 1;
  while (a->rcv[a->rcv_nxt % a->cfg.rcv_wnd].present &&
         np_seq_lt(a->rcv_nxt, a->dlv_nxt + a->cfg.rcv_wnd) &&
         np_seq_lt(a->rcv_nxt, a->rcv_high))
    a->rcv_nxt++;
  deliver_head(a);
  if (a->cfg.delivery == NP_ARQ_UNORDERED && !a->paused &&
      a->st != NP_ARQ_FAILED)
    deliver_complete(a, seq);
}

/* In order from the head; done slots (delivered early) are skipped. */
static void deliver_head(struct np_arq *a) {
  while (!a->paused && np_seq_lt(a->dlv_nxt, a->rcv_nxt) &&
         a->st != NP_ARQ_FAILED) {
    struct np_arq_rslot *s = &a->rcv[a->dlv_nxt % a->cfg.rcv_wnd];
    uint8_t *buf = s->buf;
    uint32_t len = s->len;
    uint8_t flags = s->flags, done = s->done;
    s->present = 0;
    s->done = 0;
    s->buf = NULL;
    a->dlv_nxt++;
    if (done)
      continue;
    if (flags & NP_ARQ_F_FIN) {
      a->peer_fin = 1;
      np_arq__buf_put(a, buf);
      np_arq__set_state(a, a->fin_acked ? NP_ARQ_CLOSED : NP_ARQ_CLOSING);
      continue;
    }
    if (!(flags & NP_ARQ_F_END)) {
      if (reasm_append(a, buf, len) != 0)
        np_arq__fail(a);
      np_arq__buf_put(a, buf);
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
      np_arq__fail(a);
    }
    np_arq__buf_put(a, buf);
  }
}

/* After a pause: the head, then every complete message beyond it. */
void np_arq__deliver_ready(struct np_arq *a) {
  deliver_head(a);
  if (a->cfg.delivery != NP_ARQ_UNORDERED || a->paused)
    return;
  for (uint32_t seq = a->rcv_nxt; np_seq_lt(seq, a->rcv_high) &&
                                  a->st != NP_ARQ_FAILED; seq++) {
    const struct np_arq_rslot *s = &a->rcv[seq % a->cfg.rcv_wnd];
    if (s->present && !s->done && (s->flags & NP_ARQ_F_BEGIN))
      deliver_complete(a, seq);
  }
}
