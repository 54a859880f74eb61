/*
 * np_arq_sender.c - what an ack means to the sender: newly acknowledged
 * fragments, RTT (RFC 6298) from the echoed timestamp, spurious
 * retransmission detection (Eifel, RFC 3522), delivery-rate samples for
 * the congestion controller, RACK loss detection (RFC 8985 section 6) with
 * an adaptive reordering window, the tail-loss probe (section 7) and RTO.
 *
 * Reordering window: reo_wnd = min(max(reo_mult x min_rtt / 4, learned),
 * srtt).  A retransmission proves spurious when the ack that first covers
 * it echoes a timestamp older than the retransmission (the original
 * arrived).  That ack's RTT sample minus min_rtt is how late the original
 * was; `learned` becomes at least 9/8 of that plus 1 ms, so the window
 * fits the path's actual reordering (5 % of packets +15 ms -> ~18 ms)
 * instead of growing in min_rtt/4 steps; lateness that would need more
 * than SRTT is ignored.  The same learning happens without any spurious
 * retransmission when a never-retransmitted fragment is acked after a
 * later one (RFC 8985's reordering detection), using its own RTT.  When
 * no lateness can be measured reo_mult grows by one instead (RFC 8985's
 * DSACK rule, at most once per SRTT, capped at cfg.reo_mult_max).  After 1,024 loss episodes without a
 * spurious retransmission both shrink by 1/8 (RFC 8985 resets after 16; a
 * slower decay keeps a persistently reordering path from re-learning).
 *
 * Head-of-line window (ordered delivery, issue 30): a hole - an unacked
 * fragment with cfg.head_dupthresh acked ones above it - holds back
 * every message behind it, so RACK gives it reo_wnd_head instead of
 * reo_wnd; it goes out cfg.head_copies times back to back (np_arq.c), so
 * a lost repair does not cost the stream another round trip; a
 * retransmitted hole gets its own timer; congestion control
 * hears of its loss only once confirmed; the rule stands down on a path
 * that mostly reorders (reo_wnd_head below, docs/rudp.md).
 */
#include "np_arq_int.h"

#define PTO_FLOOR_NS 10000000ull /* 10 ms: see docs/rudp.md */
#define REO_DECAY_EPISODES 1024u
/* The head rule keeps working while at most 3/4 of the holes it found
 * lost proved spurious (pure reordering makes that all of them), judged
 * on at least 16, the evidence halved at 64 so it follows the path.
 * Losses the full window finds in holes count as evidence too, so the
 * rule comes back when the path starts losing again. */
#define HEAD_EVIDENCE_MIN 16u
#define HEAD_EVIDENCE_MAX 64u

uint64_t np_arq__reo_wnd(const struct np_arq *a) {
  uint64_t w = a->reo_mult * a->min_rtt_ns / 4;
  if (a->reo_learned_ns > w)
    w = a->reo_learned_ns;
  if (a->srtt_ns && w > a->srtt_ns)
    w = a->srtt_ns;
  if (a->cfg.reo_wnd_max_ns && w > a->cfg.reo_wnd_max_ns)
    w = a->cfg.reo_wnd_max_ns;
  return w;
}

/* The window for a fragment an FEC group protects (np_arq_protect). */
static uint64_t reo_wnd_protected(const struct np_arq *a, uint64_t reo) {
  uint64_t p = a->cfg.reo_wnd_protected_ns;
  return p && p < reo ? p : reo;
}

/* RFC 8985's PTO is 2 x SRTT; we add the reordering window so that a
 * probe does not fire for an ack that is merely reordered, and the peer's
 * ack delay bound (RFC 9002 6.2.1). */
uint64_t np_arq__pto(const struct np_arq *a) {
  if (a->srtt_ns == 0)
    return a->rto_ns;
  uint64_t p = 2 * a->srtt_ns + np_arq__reo_wnd(a) + a->cfg.ack_delay_ns;
  return p < PTO_FLOOR_NS ? PTO_FLOOR_NS : p;
}

static void rtt_update(struct np_arq *a, uint64_t r) {
  if (a->srtt_ns == 0) {
    a->srtt_ns = r;
    a->rttvar_ns = r / 2;
  } else {
    uint64_t d = a->srtt_ns > r ? a->srtt_ns - r : r - a->srtt_ns;
    a->rttvar_ns = (3 * a->rttvar_ns + d) / 4;
    a->srtt_ns = (7 * a->srtt_ns + r) / 8;
  }
  if (a->min_rtt_ns == 0 || r < a->min_rtt_ns)
    a->min_rtt_ns = r;
  uint64_t var4 = 4 * a->rttvar_ns;
  uint64_t rto = a->srtt_ns + (var4 > 1000 ? var4 : 1000);
  if (rto < a->cfg.min_rto_ns)
    rto = a->cfg.min_rto_ns;
  if (rto > a->cfg.max_rto_ns)
    rto = a->cfg.max_rto_ns;
  a->rto_ns = rto;
  a->stats.rtt_samples++;
}

/* Widen the learned reordering window to cover late_ns; 1 if it did.
 * Lateness that would need more than SRTT (both legs reordered, a lost
 * ack) is not something a reordering window may wait for: ignored. */
static int reo_learn(struct np_arq *a, uint64_t late_ns) {
  uint64_t want = late_ns + late_ns / 8 + 1000000u;
  if (late_ns == 0 || want <= a->reo_learned_ns ||
      (a->srtt_ns && want > a->srtt_ns))
    return 0;
  a->reo_learned_ns = want;
  a->stats.reo_wnd_grows++;
  return 1;
}

static void spurious(struct np_arq *a, uint8_t why, uint64_t late_ns,
                     uint64_t now_ns) {
  a->stats.spurious++;
  if (why == RETX_HEAD) {
    a->stats.spurious_head++;
    a->head_spur++;
  }
  if (why == RETX_RACK || why == RETX_HEAD)
    a->stats.spurious_rack++;
  else if (why == RETX_TLP)
    a->stats.spurious_tlp++;
  else
    a->stats.spurious_rto++;
  a->recoveries_clean = 0;
  if (late_ns > 0) {
    (void)reo_learn(a, late_ns);
    return;
  }
  if (a->reo_mult < a->cfg.reo_mult_max &&
      (a->reo_last_grow_ns == 0 ||
       now_ns - a->reo_last_grow_ns >= a->srtt_ns)) {
    a->reo_mult++;
    a->reo_last_grow_ns = now_ns;
    a->stats.reo_wnd_grows++;
  }
}

struct ack_walk {
  uint32_t newly;
  uint64_t late_ns; /* this ack's RTT sample - min_rtt (0 = unknown)  */
  uint32_t prev_fack; /* one past the highest seq acked before this ack */
  uint32_t fack;
  struct np_arq_sfrag *latest; /* most recently sent, unambiguous       */
  int head_loss; /* a head-rule retransmission proved needed          */
};

static void ack_one(struct np_arq *a, uint32_t seq, uint32_t echo,
                    uint64_t now_ns, struct ack_walk *w) {
  struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
  if (f->state == SF_ACKED || f->state == SF_FREE)
    return;
  if (f->state == SF_INFLIGHT)
    a->pipe--;
  else if (f->state == SF_LOST)
    a->lost--;
  f->state = SF_ACKED;
  w->newly++;
  a->delivered += f->len ? f->len : 1;
  if (f->tx > 1 && (int32_t)(echo - f->ts_first_retx) < 0) {
    spurious(a, f->first_why, w->late_ns, now_ns);
    a->stats.spurious_protected += f->first_prot;
  } else if (f->tx > 1) {
    /* an earlier retransmission arrived: the latest was not needed */
    if (f->tx > 2 && (int32_t)(echo - f->ts_last) < 0)
      spurious(a, f->why, w->late_ns, now_ns);
    /* a retransmission made this ack: the original was really lost */
    if (f->first_why == RETX_HEAD)
      w->head_loss = 1;
  }
  if (np_seq_le(w->fack, seq))
    w->fack = seq + 1;
  /* RFC 8985 reordering detection: a never-retransmitted fragment acked
   * after a later one was - learn how late it was, before any spurious
   * retransmission has to teach us.  Only when this ack was made by its
   * own arrival (echo matches), so a lost ack does not pose as lateness */
  if (f->tx == 1 && np_seq_lt(seq, w->prev_fack) && echo == f->ts_last &&
      a->min_rtt_ns && now_ns - f->sent_ns > a->min_rtt_ns) {
    a->stats.reordered_seen++;
    (void)reo_learn(a, now_ns - f->sent_ns - a->min_rtt_ns);
  }
  if (f->tx > 1 && (int32_t)(echo - f->ts_last) < 0)
    return; /* an older copy arrived: its send time is unknown */
  if (f->sent_ns > a->rack_xmit_ns ||
      (f->sent_ns == a->rack_xmit_ns && np_seq_lt(a->rack_seq, seq))) {
    a->rack_xmit_ns = f->sent_ns;
    a->rack_seq = seq;
    a->rack_rtt_ns = now_ns - f->sent_ns;
  }
  if (w->latest == NULL || f->sent_ns >= w->latest->sent_ns)
    w->latest = f;
}

static void enter_recovery(struct np_arq *a, uint64_t now_ns) {
  if (a->in_recovery)
    return;
  a->in_recovery = 1;
  a->recovery_end = a->snd_nxt;
  a->cc.ops->on_loss(&a->cc, a->pipe + a->lost, now_ns);
  if (++a->recoveries_clean >= REO_DECAY_EPISODES) {
    a->recoveries_clean = 0;
    if (a->reo_mult > 1)
      a->reo_mult--;
    a->reo_learned_ns -= a->reo_learned_ns / 8;
  }
}

static void mark_lost(struct np_arq *a, struct np_arq_sfrag *f, uint8_t why) {
  if (f->state == SF_INFLIGHT) {
    a->pipe--;
    a->lost++;
  }
  f->state = SF_LOST;
  f->why = why;
}

/* The head-of-line rule's window (0: the rule is off).  In ordered
 * delivery an unacknowledged fragment below acknowledged ones is a hole
 * that holds back every message behind it, so waiting the path's whole
 * reordering delay for it costs a window of round trips, where a spurious
 * retransmission costs one fragment (docs/rudp.md).  np_arq__rack_detect
 * applies it to a hole with cfg.head_dupthresh acked fragments above. */
static uint64_t reo_wnd_head(const struct np_arq *a, uint64_t reo) {
  if (a->cfg.reo_wnd_head_ns == 0 || a->cfg.delivery != NP_ARQ_ORDERED)
    return 0;
  if (a->head_lost >= HEAD_EVIDENCE_MIN && a->head_spur * 4 > a->head_lost * 3)
    return 0; /* the path reorders far more than it loses here */
  uint64_t h = a->cfg.reo_wnd_head_ns;
  /* with an FEC layer below, never ahead of its repair */
  if (h < a->cfg.reo_wnd_protected_ns)
    h = a->cfg.reo_wnd_protected_ns;
  return h < reo ? h : reo;
}

void np_arq__head_arm(struct np_arq *a, uint64_t now_ns) {
  uint64_t h = reo_wnd_head(a, np_arq__reo_wnd(a));
  if (h == 0 || a->srtt_ns == 0)
    return;
  uint64_t due = now_ns + a->srtt_ns + h;
  if (a->reo_at == 0 || due < a->reo_at)
    a->reo_at = due;
}

void np_arq__rack_detect(struct np_arq *a, uint64_t now_ns) {
  if (a->rack_xmit_ns == 0)
    return;
  uint64_t reo = np_arq__reo_wnd(a), reo_p = reo_wnd_protected(a, reo);
  uint64_t reo_h = reo_wnd_head(a, reo);
  int holes = a->cfg.reo_wnd_head_ns && a->cfg.delivery == NP_ARQ_ORDERED;
  uint32_t above = 0; /* acked fragments above the current seq */
  if (holes)
    for (uint32_t seq = a->snd_una; np_seq_lt(seq, a->snd_nxt); seq++)
      above += a->snd[seq % a->cfg.snd_wnd].state == SF_ACKED;
  uint32_t newly_lost = 0; /* by the full window: a congestion signal */
  a->reo_at = 0;
  for (uint32_t seq = a->snd_una; np_seq_lt(seq, a->snd_nxt); seq++) {
    struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
    if (holes && f->state == SF_ACKED)
      above--;
    if (f->state != SF_INFLIGHT)
      continue;
    uint64_t w = f->prot ? reo_p : reo;
    /* a hole (counted as the rule's evidence even while it stands down) */
    int head = holes && above >= a->cfg.head_dupthresh;
    int by_head = head && reo_h && reo_h < w;
    uint64_t due;
    if (f->sent_ns < a->rack_xmit_ns ||
        (f->sent_ns == a->rack_xmit_ns && np_seq_lt(seq, a->rack_seq)))
      due = f->sent_ns + a->rack_rtt_ns + (by_head ? reo_h : w);
    else if (by_head && f->tx > 1 && a->srtt_ns)
      /* a retransmitted hole: the stream waits for it and nothing sent
       * later may be acked to expose its loss, so it gets its own
       * timer, SRTT + the head window, instead of the probe or the RTO */
      due = f->sent_ns + a->srtt_ns + reo_h;
    else
      continue;
    if (due <= now_ns) {
      mark_lost(a, f, by_head ? RETX_HEAD : RETX_RACK);
      if (head && ++a->head_lost >= HEAD_EVIDENCE_MAX) {
        a->head_lost /= 2;
        a->head_spur /= 2;
      }
      /* the head rule changes when a fragment is resent, not what the
       * congestion controller hears: it hears of that loss once the
       * retransmission's ack shows the original was really lost */
      newly_lost += !by_head;
    } else if (a->reo_at == 0 || due < a->reo_at) {
      a->reo_at = due;
    }
  }
  if (newly_lost)
    enter_recovery(a, now_ns);
}

void np_arq__on_ack(struct np_arq *a, const struct np_arq_ack *ack,
                    uint64_t now_ns, enum np_arq_input_source src) {
  if (np_seq_lt(a->snd_nxt, ack->cum))
    return; /* acknowledges data never sent: ignore */
  int stale = np_seq_lt(ack->cum, a->snd_una);
  uint32_t cum = stale ? a->snd_una : ack->cum;
  if (np_seq_lt(a->fack, a->snd_una))
    a->fack = a->snd_una;
  struct ack_walk w = {0, 0, a->fack, a->fack, NULL, 0};
  int32_t sample_us = (int32_t)(np_arq__ts(a, now_ns) - ack->echo_ts);
  if (src == NP_ARQ_IN_NETWORK && a->min_rtt_ns && sample_us > 0 &&
      (uint64_t)sample_us * 1000u > a->min_rtt_ns)
    w.late_ns = (uint64_t)sample_us * 1000u - a->min_rtt_ns;
  for (uint32_t seq = a->snd_una; np_seq_lt(seq, cum); seq++)
    ack_one(a, seq, ack->echo_ts, now_ns, &w);
  for (unsigned i = 0; i < ack->nsack; i++) {
    uint32_t s = ack->sack_start[i], e = s + ack->sack_len[i];
    if (np_seq_lt(s, cum))
      s = cum;
    if (np_seq_lt(a->snd_nxt, e))
      e = a->snd_nxt;
    for (uint32_t seq = s; np_seq_lt(seq, e); seq++)
      ack_one(a, seq, ack->echo_ts, now_ns, &w);
  }
  if (np_seq_lt(a->fack, w.fack))
    a->fack = w.fack;
  if (!stale)
    a->peer_rwnd = ack->rwnd;
  while (np_seq_lt(a->snd_una, a->snd_nxt) &&
         a->snd[a->snd_una % a->cfg.snd_wnd].state == SF_ACKED) {
    struct np_arq_sfrag *f = &a->snd[a->snd_una % a->cfg.snd_wnd];
    f->state = SF_FREE;
    np_arq__buf_put(a, f->buf); /* acknowledged: the buffer is free again */
    f->buf = NULL;
    a->snd_una++;
  }
  if (a->fin_assigned && np_seq_lt(a->fin_seq, a->snd_una) && !a->fin_acked) {
    a->fin_acked = 1;
    if (a->peer_fin)
      np_arq__set_state(a, NP_ARQ_CLOSED);
  }
  if (w.newly == 0)
    return;
  a->last_progress_ns = now_ns;
  if (a->rto_backoff) {
    a->rto_backoff = 0;
  }
  uint64_t rtt = 0;
  if (src == NP_ARQ_IN_NETWORK) {
    int32_t us = (int32_t)(np_arq__ts(a, now_ns) - ack->echo_ts);
    if (us >= 0 && us < 60000000) {
      rtt = (uint64_t)us * 1000u + 500u; /* ts truncation: mid-microsecond */
      rtt_update(a, rtt);
    }
  }
  a->rto_at = a->snd_una != a->snd_nxt ? now_ns + a->rto_ns : 0;
  a->pto_at = 0;
  a->tlp_out = 0;
  if (w.latest) {
    struct np_arq_sfrag *p = w.latest;
    struct np_arq_rate_sample rs = {0};
    rs.delivered_bytes = a->delivered - p->delivered;
    uint64_t snd_el = p->sent_ns - p->first_sent_ns;
    uint64_t ack_el = now_ns - p->delivered_ns;
    rs.interval_ns = snd_el > ack_el ? snd_el : ack_el;
    rs.rtt_ns = rtt;
    rs.newly_acked = w.newly;
    rs.app_limited = p->app_limited;
    if (p->delivered >= a->next_round_delivered) {
      a->next_round_delivered = a->delivered;
      rs.round_start = 1;
    }
    a->delivered_ns = now_ns;
    a->first_sent_ns = p->sent_ns;
    if (src == NP_ARQ_IN_NETWORK)
      a->cc.ops->on_ack(&a->cc, &rs, now_ns);
  }
  if (a->in_recovery && !np_seq_lt(a->snd_una, a->recovery_end))
    a->in_recovery = 0;
  if (w.head_loss)
    enter_recovery(a, now_ns);
  np_arq__rack_detect(a, now_ns);
}

void np_arq__fire_tlp(struct np_arq *a, uint64_t now_ns) {
  a->tlp_out = 1;
  a->pto_at = 0;
  a->stats.tlp_events++;
  if (a->q.n && a->snd_nxt - a->snd_una < a->cfg.snd_wnd &&
      np_seq_lt(a->snd_nxt, a->snd_una + a->peer_rwnd)) {
    (void)np_arq__take_new(a, now_ns);
  } else {
    for (uint32_t seq = a->snd_nxt; np_seq_lt(a->snd_una, seq);) {
      seq--;
      struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
      if (f->state == SF_INFLIGHT || f->state == SF_LOST) {
        np_arq__retransmit(a, seq, RETX_TLP, NP_ARQ_F_PROBE, now_ns);
        break;
      }
    }
  }
  if (a->st != NP_ARQ_FAILED)
    a->rto_at = now_ns + a->rto_ns;
}

void np_arq__fire_rto(struct np_arq *a, uint64_t now_ns) {
  a->rto_at = 0;
  if (a->snd_una == a->snd_nxt)
    return;
  a->stats.rto_events++;
  uint32_t before = a->pipe + a->lost;
  for (uint32_t seq = a->snd_una; np_seq_lt(seq, a->snd_nxt); seq++) {
    struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
    if (f->state == SF_INFLIGHT || f->state == SF_LOST)
      mark_lost(a, f, RETX_RTO);
  }
  a->cc.ops->on_rto(&a->cc, before, now_ns);
  a->rto_backoff++;
  a->rto_ns = a->rto_ns * 2 > a->cfg.max_rto_ns ? a->cfg.max_rto_ns
                                                 : a->rto_ns * 2;
  a->in_recovery = 1;
  a->recovery_end = a->snd_nxt;
  a->reo_at = 0;
  a->tlp_out = 1;
  a->rto_at = now_ns + a->rto_ns;
}

void np_arq__rearm(struct np_arq *a, uint64_t now_ns) {
  if (a->snd_una == a->snd_nxt) {
    a->rto_at = a->pto_at = 0;
    a->tlp_out = 0;
    return;
  }
  if (a->rto_at == 0)
    a->rto_at = now_ns + a->rto_ns;
  if (!a->tlp_out && a->pto_at == 0) {
    /* RFC 8985 7.2: the probe goes first; RTO is re-armed when it fires */
    uint64_t p = now_ns + np_arq__pto(a);
    a->pto_at = p < a->rto_at ? p : a->rto_at;
  }
}

int np_arq_datagram_tag(const uint8_t *buf, size_t len, uint64_t *tag) {
  if (len < NP_ARQ_HDR_COMMON || !(buf[0] & NP_ARQ_F_DATA))
    return NP_EINVAL;
  size_t off = NP_ARQ_HDR_COMMON;
  if (buf[0] & NP_ARQ_F_ACK)
    off += NP_ARQ_HDR_ACK + (size_t)buf[1] * NP_ARQ_HDR_SACK;
  if (len < off + NP_ARQ_HDR_DATA)
    return NP_EINVAL;
  const uint8_t *t = buf + 4, *q = buf + off;
  uint32_t ts = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
                (uint32_t)t[2] << 8 | t[3];
  uint32_t seq = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
                 (uint32_t)q[2] << 8 | q[3];
  *tag = (uint64_t)ts << 32 | seq;
  return 0;
}

/* Only marks the fragment and pulls the RACK timer in: it runs inside the
 * output callback, in the middle of a flush, so it must not send. */
void np_arq_protect(struct np_arq *a, uint64_t tag, uint64_t now_ns) {
  uint32_t seq = (uint32_t)tag, ts = (uint32_t)(tag >> 32);
  if (a->cfg.reo_wnd_protected_ns == 0 || np_seq_lt(seq, a->snd_una) ||
      !np_seq_lt(seq, a->snd_nxt))
    return;
  struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
  if (f->state != SF_INFLIGHT || f->ts_last != ts || f->prot)
    return;
  f->prot = 1;
  a->stats.protected_frags++;
  if (a->rack_xmit_ns == 0 ||
      !(f->sent_ns < a->rack_xmit_ns ||
        (f->sent_ns == a->rack_xmit_ns && np_seq_lt(seq, a->rack_seq))))
    return;
  uint64_t due =
      f->sent_ns + a->rack_rtt_ns + reo_wnd_protected(a, np_arq__reo_wnd(a));
  if (due < now_ns)
    due = now_ns;
  if (a->reo_at == 0 || due < a->reo_at)
    a->reo_at = due;
}
