/*
 * np_arq.c - np_arq lifecycle, datagram parsing and building, the flush
 * (what to send now) and the timer entry point.  Ack handling and loss
 * recovery live in np_arq_sender.c, reassembly and the ack policy in
 * np_arq_recv.c, buffers and the send queue in np_arq_pool.c.
 */
#include <stdlib.h>
#include <string.h>

#include "np_arq_int.h"

#define ACK_REPEAT_NS 1000000ull /* see np_arq_recv.c */

uint32_t np_arq__ts(const struct np_arq *a, uint64_t now_ns) {
  return (uint32_t)((now_ns - a->epoch_ns) / 1000u);
}

void np_arq__set_state(struct np_arq *a, enum np_arq_state st) {
  if (a->st == st || a->st == NP_ARQ_FAILED)
    return;
  a->st = st;
  if (a->cb.state)
    a->cb.state(a->cb.ud, st);
}

void np_arq__fail(struct np_arq *a) {
  np_arq__set_state(a, NP_ARQ_FAILED);
  a->rto_at = a->pto_at = a->reo_at = a->persist_at = 0;
}

int np_arq_new(const struct np_arq_config *cfg, const struct np_arq_callbacks *cb,
               uint64_t now_ns, struct np_arq **out, struct np_errbuf *eb) {
  if (cfg->mtu > 65507 || np_arq_frag_max(cfg) < 16)
    return np_errbuf_set(eb, NP_EINVAL, "mtu %u with reserve %u leaves no "
                         "room for fragments", cfg->mtu, cfg->reserve);
  if (cfg->snd_wnd < 2 || cfg->snd_wnd > 32768 || cfg->rcv_wnd < 2 ||
      cfg->rcv_wnd > 32768)
    return np_errbuf_set(eb, NP_EINVAL, "windows must be 2..32768 fragments");
  if (cb == NULL || cb->output == NULL || cb->deliver == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "output and deliver callbacks needed");
  if (cfg->min_rto_ns == 0 || cfg->max_rto_ns < cfg->min_rto_ns)
    return np_errbuf_set(eb, NP_EINVAL, "bad RTO bounds");
  if (cfg->delivery != NP_ARQ_ORDERED && cfg->delivery != NP_ARQ_UNORDERED)
    return np_errbuf_set(eb, NP_EINVAL, "unknown delivery mode %d",
                         (int)cfg->delivery);
  if (cfg->ack_every < 1 || cfg->ack_every > 64 || cfg->queue_frags > 1u << 20)
    return np_errbuf_set(eb, NP_EINVAL, "ack_every must be 1..64 and "
                         "queue_frags at most 2^20");
  if (cfg->head_dupthresh < 1 || cfg->head_dupthresh > 16 ||
      cfg->head_copies < 1 || cfg->head_copies > 2)
    return np_errbuf_set(eb, NP_EINVAL, "head_dupthresh must be 1..16 and "
                         "head_copies 1..2");
  struct np_arq *a = calloc(1, sizeof *a);
  if (a == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "arq: out of memory");
  a->cfg = *cfg;
  a->frag_max = np_arq_frag_max(cfg);
  a->snd = calloc(cfg->snd_wnd, sizeof *a->snd);
  a->rcv = calloc(cfg->rcv_wnd, sizeof *a->rcv);
  size_t nbufs = (size_t)cfg->snd_wnd + cfg->rcv_wnd +
                 (cfg->queue_frags ? cfg->queue_frags : cfg->snd_wnd);
  if (a->snd == NULL || a->rcv == NULL || np_arq__pool_init(a, nbufs) != 0) {
    np_arq_free(a);
    return np_errbuf_set(eb, NP_ENOMEM, "arq: out of memory");
  }
  if (a->cfg.reo_mult_max == 0)
    a->cfg.reo_mult_max = 1;
  a->cb = *cb;
  a->epoch_ns = now_ns;
  a->st = NP_ARQ_OPEN;
  a->rto_ns = cfg->initial_rto_ns ? cfg->initial_rto_ns : cfg->min_rto_ns;
  a->reo_mult = 1;
  a->peer_rwnd = cfg->rcv_wnd; /* assume a symmetric peer until told */
  a->last_progress_ns = now_ns;
  a->delivered_ns = now_ns;
  np_arq_cc_init(&a->cc, cfg->cc, cfg->init_cwnd ? cfg->init_cwnd : 32,
                 a->frag_max);
  *out = a;
  return 0;
}

/* Every buffer lives in the pool's slabs: nothing to free one by one. */
void np_arq_free(struct np_arq *a) {
  if (a == NULL)
    return;
  np_arq__pool_free(a);
  free(a->reasm);
  free(a->snd);
  free(a->rcv);
  free(a);
}

int np_arq_send(struct np_arq *a, const uint8_t *msg, size_t len) {
  if (a->st == NP_ARQ_FAILED || a->close_requested)
    return NP_EINVAL;
  if (a->q.bytes + len > a->cfg.max_queue_bytes)
    return NP_EAGAIN;
  int rc = np_arq__queue_push(a, msg, len, 0);
  if (rc == 0) {
    a->stats.msgs_sent++;
    a->stats.msg_bytes_sent += len;
  }
  return rc;
}

void np_arq_close(struct np_arq *a, uint64_t now_ns) {
  if (a->close_requested || a->st == NP_ARQ_FAILED)
    return;
  if (np_arq__queue_push(a, NULL, 0, 1) != 0) {
    np_arq__fail(a);
    return;
  }
  a->close_requested = 1;
  np_arq__set_state(a, NP_ARQ_CLOSING);
  np_arq_flush(a, now_ns);
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}
static void wr16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

int np_arq_input(struct np_arq *a, const uint8_t *buf, size_t len,
                 uint64_t now_ns, enum np_arq_input_source src) {
  if (a->st == NP_ARQ_FAILED)
    return 0;
  if (len < NP_ARQ_HDR_COMMON)
    goto malformed;
  uint8_t flags = buf[0];
  unsigned nsack = buf[1];
  if ((flags & ~NP_ARQ_F_KNOWN) || (flags & NP_ARQ_F_FEC) ||
      nsack > NP_ARQ_MAX_SACK_ACK || rd16(buf + 2) != a->cfg.conv)
    goto malformed;
  uint32_t ts = rd32(buf + 4);
  size_t off = NP_ARQ_HDR_COMMON;
  struct np_arq_ack ack;
  if (flags & NP_ARQ_F_ACK) {
    if (len < off + NP_ARQ_HDR_ACK + nsack * NP_ARQ_HDR_SACK)
      goto malformed;
    ack.cum = rd32(buf + off);
    ack.echo_ts = rd32(buf + off + 4);
    ack.rwnd = rd16(buf + off + 8);
    ack.nsack = nsack;
    off += NP_ARQ_HDR_ACK;
    for (unsigned i = 0; i < nsack; i++, off += NP_ARQ_HDR_SACK) {
      ack.sack_start[i] = ack.cum + rd16(buf + off);
      ack.sack_len[i] = rd16(buf + off + 2);
    }
  } else if (nsack) {
    goto malformed;
  }
  if ((flags & NP_ARQ_F_DATA) && len < off + NP_ARQ_HDR_DATA)
    goto malformed;
  if ((flags & NP_ARQ_F_DATA) && len - off - NP_ARQ_HDR_DATA > a->frag_max)
    goto malformed;
  a->stats.datagrams_recv++;
  a->stats.bytes_recv += len;
  if (src == NP_ARQ_IN_RECOVERED)
    a->stats.recovered_in++;
  if (flags & NP_ARQ_F_ACK) {
    np_arq__on_ack(a, &ack, now_ns, src);
    np_arq__rearm(a, now_ns);
  }
  if (a->st == NP_ARQ_FAILED)
    return 0;
  if (flags & NP_ARQ_F_DATA)
    np_arq__on_data(a, rd32(buf + off), flags, ts, buf + off + NP_ARQ_HDR_DATA,
                    len - off - NP_ARQ_HDR_DATA, now_ns);
  if (flags & NP_ARQ_F_PROBE)
    a->ack_pending = a->ack_now = 1;
  return 0;
malformed:
  a->stats.malformed++;
  return NP_EPARSE;
}

/* Build and send one datagram: optional fragment f (seq) plus the ack
 * block when one is pending.  Returns the output's result. */
static int emit(struct np_arq *a, struct np_arq_sfrag *f, uint32_t seq,
                uint8_t extra, uint64_t now_ns) {
  uint8_t pkt[65536];
  unsigned nsack = 0;
  int truncated = 0;
  uint8_t flags = extra;
  size_t off = NP_ARQ_HDR_COMMON;
  if (a->ack_pending || f == NULL) {
    flags |= NP_ARQ_F_ACK;
    off += np_arq__build_ack(a, pkt + off,
                             f ? NP_ARQ_MAX_SACK : NP_ARQ_MAX_SACK_ACK, &nsack,
                             &truncated);
    if (f && a->ack_pending)
      a->stats.acks_piggybacked++;
    a->ack_pending = a->ack_now = 0;
    a->ack_count = 0;
    a->ack_at = 0;
    a->echo_fresh = 0;
    a->ack_repeat_at = a->ack_repeat_arm ? now_ns + ACK_REPEAT_NS : 0;
    a->ack_repeat_arm = 0;
  }
  if (f) {
    flags |= NP_ARQ_F_DATA | f->flags;
    wr32(pkt + off, seq);
    off += NP_ARQ_HDR_DATA;
    if (f->len)
      memcpy(pkt + off, f->buf, f->len);
    off += f->len;
  }
  pkt[0] = flags;
  pkt[1] = (uint8_t)nsack;
  wr16(pkt + 2, a->cfg.conv);
  uint32_t ts = np_arq__ts(a, now_ns);
  wr32(pkt + 4, ts);
  if (f)
    f->ts_last = ts;
  a->stats.datagrams_sent++;
  a->stats.bytes_sent += off;
  if (f == NULL)
    a->stats.pure_acks_sent++;
  int rc = a->cb.output(a->cb.ud, pkt, off);
  if (truncated) /* more holes than a data datagram reports: full ack */
    (void)emit(a, NULL, 0, 0, now_ns);
  return rc;
}

/* np_arq__build_ack needs the writers too; keep them in one place. */
size_t np_arq__build_ack(struct np_arq *a, uint8_t *p, unsigned max,
                         unsigned *nsack, int *truncated) {
  uint32_t free_slots = a->dlv_nxt + a->cfg.rcv_wnd - a->rcv_nxt;
  wr32(p, a->rcv_nxt);
  wr32(p + 4, a->echo_ts);
  wr16(p + 8, (uint16_t)(free_slots > 65535 ? 65535 : free_slots));
  size_t off = NP_ARQ_HDR_ACK;
  unsigned n = 0;
  /* RFC 2018 4: the block holding the most recently received fragment
   * goes first, so a sender hears of new arrivals even when there are more
   * holes than blocks; the rest follow in ascending order. */
  uint32_t w = a->cfg.rcv_wnd, skip_s = 0, skip_e = 0;
  uint32_t last = a->last_rcv_seq;
  if (np_seq_lt(a->rcv_nxt, last) && np_seq_lt(last, a->rcv_high) &&
      a->rcv[last % w].present) {
    skip_s = skip_e = last;
    while (np_seq_lt(a->rcv_nxt, skip_s) && a->rcv[(skip_s - 1) % w].present)
      skip_s--;
    while (np_seq_lt(skip_e, a->rcv_high) && a->rcv[skip_e % w].present)
      skip_e++;
    wr16(p + off, (uint16_t)(skip_s - a->rcv_nxt));
    wr16(p + off + 2, (uint16_t)(skip_e - skip_s));
    off += NP_ARQ_HDR_SACK;
    n++;
  }
  uint32_t seq = a->rcv_nxt;
  *truncated = 0;
  while (np_seq_lt(seq, a->rcv_high)) {
    if (!a->rcv[seq % w].present) {
      seq++;
      continue;
    }
    uint32_t start = seq;
    while (np_seq_lt(seq, a->rcv_high) && a->rcv[seq % w].present)
      seq++;
    if (start == skip_s && skip_e != skip_s)
      continue; /* already reported first */
    if (n == max) {
      *truncated = 1;
      break;
    }
    wr16(p + off, (uint16_t)(start - a->rcv_nxt));
    wr16(p + off + 2, (uint16_t)(seq - start));
    off += NP_ARQ_HDR_SACK;
    n++;
  }
  *nsack = n;
  return off;
}

static void transmit(struct np_arq *a, struct np_arq_sfrag *f, uint32_t seq,
                     uint8_t extra, uint64_t now_ns) {
  if (a->pipe == 0) {
    a->first_sent_ns = now_ns;
    a->delivered_ns = now_ns;
  }
  f->delivered = a->delivered;
  f->delivered_ns = a->delivered_ns;
  f->first_sent_ns = a->first_sent_ns;
  f->sent_ns = now_ns;
  f->tx++;
  if (f->state == SF_LOST)
    a->lost--;
  if (f->state != SF_INFLIGHT)
    a->pipe++;
  f->state = SF_INFLIGHT;
  f->prot = 0; /* this copy is in no FEC group with parity yet */
  (void)emit(a, f, seq, extra, now_ns); /* a failed send is a lost packet */
}

void np_arq__retransmit(struct np_arq *a, uint32_t seq, uint8_t why,
                        uint8_t extra, uint64_t now_ns) {
  struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
  a->stats.retransmits++;
  if (why == RETX_HEAD)
    a->stats.retx_head++;
  if (why == RETX_RACK || why == RETX_HEAD)
    a->stats.retx_rack++;
  else if (why == RETX_TLP)
    a->stats.retx_tlp++;
  else
    a->stats.retx_rto++;
  uint32_t ts = np_arq__ts(a, now_ns);
  if (f->tx == 1) {
    f->ts_first_retx = ts;
    f->first_why = why;
    f->first_prot = f->prot;
  }
  if (f->tx >= a->cfg.max_retries) {
    np_arq__fail(a);
    return;
  }
  transmit(a, f, seq, extra, now_ns);
  if (why != RETX_HEAD)
    return;
  /* the stream waits for this fragment: a second copy right behind it
   * makes a lost repair cost one datagram instead of another round trip
   * for every message queued behind the head (docs/rudp.md); with an FEC
   * layer below (a protected window configured) the repair's loss is the
   * FEC's to rebuild, and most head repairs there prove spurious anyway */
  if (a->cfg.head_copies > 1 && a->cfg.reo_wnd_protected_ns == 0) {
    a->stats.retransmits++; /* a copy is a retransmitted datagram too */
    a->stats.retx_rack++;
    a->stats.retx_head++;
    (void)emit(a, f, seq, extra, now_ns);
  }
  np_arq__head_arm(a, now_ns);
}

/* Give the oldest queued fragment the next seq and send it: its pool
 * buffer moves into the send slot (no copy). */
int np_arq__take_new(struct np_arq *a, uint64_t now_ns) {
  if (a->q.n == 0)
    return 0;
  struct np_arq_sfrag *f = &a->snd[a->snd_nxt % a->cfg.snd_wnd];
  struct np_arq_qfrag q = np_arq__queue_pop(a);
  np_arq__buf_put(a, f->buf); /* NULL unless a slot was never released */
  f->buf = q.buf;
  f->len = q.len;
  f->flags = q.flags;
  if (q.flags & NP_ARQ_F_FIN) {
    a->fin_assigned = 1;
    a->fin_seq = a->snd_nxt;
  }
  f->tx = 0;
  f->prot = 0;
  f->state = SF_FREE;
  f->app_limited = a->q.n == 0;
  uint32_t seq = a->snd_nxt++;
  a->stats.fragments_sent++;
  transmit(a, f, seq, 0, now_ns);
  if (!a->tlp_out) /* RFC 8985 7.2: PTO restarts with each new data send */
    a->pto_at = 0;
  return 1;
}

void np_arq_flush(struct np_arq *a, uint64_t now_ns) {
  if (a->st == NP_ARQ_FAILED)
    return;
  int sent = 0;
  for (uint32_t seq = a->snd_una; a->lost > 0 && np_seq_lt(seq, a->snd_nxt);
       seq++) {
    if (a->pipe >= a->cc.cwnd)
      break;
    struct np_arq_sfrag *f = &a->snd[seq % a->cfg.snd_wnd];
    if (f->state == SF_LOST) {
      np_arq__retransmit(a, seq, f->why, 0, now_ns);
      if (a->st == NP_ARQ_FAILED)
        return;
      sent = 1;
    }
  }
  while (a->q.n && a->pipe < a->cc.cwnd &&
         a->snd_nxt - a->snd_una < a->cfg.snd_wnd &&
         np_seq_lt(a->snd_nxt, a->snd_una + a->peer_rwnd)) {
    if (!np_arq__take_new(a, now_ns))
      break;
    sent = 1;
  }
  if (a->ack_now && !sent)
    (void)emit(a, NULL, 0, 0, now_ns);
  /* flow control: peer window closed with data waiting -> persist probe */
  if (a->q.n && a->snd_una == a->snd_nxt && a->peer_rwnd == 0) {
    if (a->persist_at == 0)
      a->persist_at = now_ns + a->rto_ns;
  } else {
    a->persist_at = 0;
  }
  np_arq__rearm(a, now_ns);
}

uint64_t np_arq_deadline(const struct np_arq *a) {
  if (a->st == NP_ARQ_FAILED)
    return UINT64_MAX;
  uint64_t d = UINT64_MAX;
  const uint64_t t[] = {a->rto_at, a->tlp_out ? 0 : a->pto_at, a->reo_at,
                        a->persist_at, a->ack_repeat_at, a->ack_at};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (t[i] && t[i] < d)
      d = t[i];
  if (a->snd_una != a->snd_nxt) {
    uint64_t dead = a->last_progress_ns + a->cfg.dead_timeout_ns;
    if (dead < d)
      d = dead;
  }
  return d;
}

void np_arq_on_timer(struct np_arq *a, uint64_t now_ns) {
  if (a->st == NP_ARQ_FAILED)
    return;
  if (a->snd_una != a->snd_nxt &&
      now_ns >= a->last_progress_ns + a->cfg.dead_timeout_ns) {
    np_arq__fail(a);
    return;
  }
  if (a->reo_at && now_ns >= a->reo_at) {
    a->reo_at = 0;
    np_arq__rack_detect(a, now_ns);
  }
  if (a->pto_at && !a->tlp_out && now_ns >= a->pto_at)
    np_arq__fire_tlp(a, now_ns);
  else if (a->rto_at && now_ns >= a->rto_at)
    np_arq__fire_rto(a, now_ns);
  if (a->st == NP_ARQ_FAILED)
    return;
  if (a->ack_repeat_at && now_ns >= a->ack_repeat_at) {
    a->stats.ack_repeats++;
    (void)emit(a, NULL, 0, 0, now_ns);
  }
  if (a->ack_at && now_ns >= a->ack_at) { /* the delayed ack is due */
    a->stats.acks_delayed++;
    a->ack_now = 1;
  }
  if (a->persist_at && now_ns >= a->persist_at) {
    a->persist_at = now_ns + a->rto_ns;
    (void)emit(a, NULL, 0, NP_ARQ_F_PROBE, now_ns);
  }
  np_arq_flush(a, now_ns);
}

enum np_arq_state np_arq_get_state(const struct np_arq *a) { return a->st; }

int np_arq_all_acked(const struct np_arq *a) {
  return a->q.n == 0 && a->snd_una == a->snd_nxt &&
         (!a->close_requested || a->fin_acked);
}

int np_arq_peer_closed(const struct np_arq *a) { return a->peer_fin; }

void np_arq_pause_delivery(struct np_arq *a, int paused, uint64_t now_ns) {
  a->paused = paused;
  if (!paused) {
    np_arq__deliver_ready(a);
    a->ack_pending = a->ack_now = 1; /* window update */
    np_arq_flush(a, now_ns);
  }
}

void np_arq_get_stats(const struct np_arq *a, struct np_arq_stats *out) {
  *out = a->stats;
  out->srtt_ns = a->srtt_ns;
  out->rttvar_ns = a->rttvar_ns;
  out->min_rtt_ns = a->min_rtt_ns;
  out->rto_ns = a->rto_ns;
  out->reo_wnd_ns = np_arq__reo_wnd(a);
  out->cwnd = a->cc.cwnd;
  out->inflight = a->pipe;
  out->unacked = a->snd_nxt - a->snd_una;
  out->peer_rwnd = a->peer_rwnd;
  out->btlbw_bps = np_arq_cc_btlbw(&a->cc);
}

void np_arq_reset_counters(struct np_arq *a) {
  memset(&a->stats, 0, sizeof a->stats);
}
