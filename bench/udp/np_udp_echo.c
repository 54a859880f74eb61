/*
 * np_udp_echo.c - what happens to each datagram: the server echoes (after
 * --work units of CPU work), the client checks the reply, records its RTT
 * and sends the next message to keep `window` outstanding.  Also the lane's
 * reaction to phase changes.  Runs only on lane threads; nothing here
 * allocates.
 *
 * With --rate the client sends on a schedule instead (np_udp_open.c) and
 * the latency of a reply counts from when its message was due.
 *
 * Counter attribution: client counters follow the lane's own view of the
 * phase (seen_phase), so a client's sends and replies land in the same set;
 * the server reads the global phase, which the controller publishes before
 * any client can send a message of the new phase.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "np_udp_engine.h"
#include "np_udp_msg.h"

int64_t np_udp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void publish(struct np_udp_lane *l) {
  atomic_store_explicit(&l->outstanding_pub, l->outstanding,
                        memory_order_release);
}

void np_udp_server_on_recv(void *ctx, const struct np_udp_rx *rx, unsigned n) {
  struct np_udp_server *sv = ctx;
  struct np_udp_lane *l = sv->lane;
  const struct np_udp_engine *eng = l->eng;
  int ph = atomic_load_explicit(&((struct np_udp_engine *)eng)->phase,
                                memory_order_acquire);
  struct np_udp_counters *c = &l->ctr[NP_UDP_SET(ph)];
  uint32_t work = eng->cfg->work;
  for (unsigned i = 0; i < n; i++) {
    if (rx[i].truncated)
      c->truncated++;
    if (rx[i].len >= 12) { /* whose request, and is it on our thread? */
      uint32_t id;
      memcpy(&id, rx[i].data + 8, sizeof id);
      id = le32toh(id);
      if (id < eng->nclients && eng->clients[id].lane != l)
        c->cross_thread++;
    }
    if (work)
      l->work_digest ^= np_udp_work(rx[i].data, rx[i].len, work);
    sv->tx[i].data = rx[i].data;
    sv->tx[i].len = rx[i].len;
    sv->tx[i].to = rx[i].from;
    sv->tx[i].tolen = rx[i].fromlen;
  }
  c->server_received += n;
  unsigned done = 0;
  while (done < n) {
    unsigned ns = 0;
    int errnum = 0;
    int rc = eng->tp->send_batch(sv->sock, sv->tx + done, n - done, &ns,
                                 &errnum);
    c->server_replied += ns;
    done += ns;
    if (rc) {
      c->server_send_errors++;
      np_udp_counters_note_errno(c, errnum, 1);
      done++; /* that echo is dropped; its loss shows on the reply leg */
    }
  }
}

/* Send messages until `window` are outstanding (batched). */
static void client_fill(struct np_udp_client *cl) {
  struct np_udp_lane *l = cl->lane;
  const struct np_udp_engine *eng = l->eng;
  const struct np_udp_config *cfg = eng->cfg;
  struct np_udp_counters *c = &l->ctr[NP_UDP_SET(l->seen_phase)];
  while (cl->outstanding < cfg->window) {
    unsigned k = cfg->window - cl->outstanding;
    if (k > eng->tx_batch)
      k = eng->tx_batch;
    int64_t now = np_udp_now_ns();
    for (unsigned i = 0; i < k; i++) {
      uint8_t *buf = cl->txbufs + (size_t)i * cfg->payload;
      np_udp_msg_build(&cl->gen, buf, cl->next_seq + i, (uint64_t)now);
      cl->tx[i].data = buf;
      cl->tx[i].len = cfg->payload;
      cl->tx[i].to = NULL;
      cl->tx[i].tolen = 0;
    }
    unsigned done = 0, failed = 0;
    while (done < k) {
      unsigned ns = 0;
      int errnum = 0;
      int rc = eng->tp->send_batch(cl->sock, cl->tx + done, k - done, &ns,
                                   &errnum);
      for (unsigned i = done; i < done + ns; i++) {
        uint64_t seq = cl->next_seq + i;
        struct np_udp_slot *s = &cl->ring[seq % cl->ring_len];
        /* A live slot here holds a message sent `ring_len` sequences ago.
         * --connect: its reply timeout has not passed yet; given up now
         * (expired), so a reply that still comes is late
         * (np_udp_timeout.c).  In process: it gives up its slot but stays
         * counted in `outstanding`: a lost message is not replaced, so
         * the window shrinks by one for good, as in the reference
         * benchmark. */
        if (s->live && cfg->mode == NP_UDP_MODE_CLIENT) {
          c->expired++;
          np_udp_give_up(cl, s, 0);
          cl->outstanding--;
        }
        s->seq = seq;
        s->ts = now;
        s->intended = now;
        s->live = 1;
        cl->outstanding++;
      }
      c->sent += ns;
      done += ns;
      if (rc) {
        c->send_errors++;
        np_udp_counters_note_errno(c, errnum, 1);
        done++;
        failed++;
      }
    }
    cl->next_seq += k;
    np_udp_timeout_sent(l, now);
    if (failed)
      break; /* retry on the next reply rather than spin on a full socket */
  }
}

void np_udp_client_on_recv(void *ctx, const struct np_udp_rx *rx, unsigned n) {
  struct np_udp_client *cl = ctx;
  struct np_udp_lane *l = cl->lane;
  const struct np_udp_config *cfg = l->eng->cfg;
  int set = NP_UDP_SET(l->seen_phase);
  struct np_udp_counters *c = &l->ctr[set];
  unsigned bits = np_udp_msg_seq_bits(cfg->payload);
  uint32_t before = cl->outstanding;
  int64_t now = np_udp_now_ns();
  int64_t maxrtt = 0;
  for (unsigned i = 0; i < n; i++) {
    if (rx[i].truncated)
      c->truncated++;
    if (rx[i].len == 0) {
      c->sequence_errors++;
      c->stale++;
      continue;
    }
    uint64_t wire = np_udp_msg_wire_seq(rx[i].data, rx[i].len);
    uint64_t seq = np_udp_msg_expand_seq(cl->next_seq - 1, wire, bits);
    struct np_udp_slot *s = &cl->ring[seq % cl->ring_len];
    if (!s->live || s->seq != seq) {
      if (cl->answered && cl->answered[seq & cl->answered_mask] == seq + 1) {
        c->sequence_errors++;
        c->duplicates++;
      } else if (!np_udp_late_reply(cl, seq, &rx[i], now)) {
        c->sequence_errors++; /* nothing we know of */
        c->stale++;
      }
      continue;
    }
    s->live = 0;
    cl->outstanding--;
    c->received++;
    if (cl->answered)
      cl->answered[seq & cl->answered_mask] = seq + 1;
    if (seq + 1 < cl->highest) {
      c->sequence_errors++; /* answered, but after a later message */
      c->reordered++;
    } else {
      cl->highest = seq + 1;
    }
    if (rx[i].truncated || rx[i].len != cfg->payload) {
      c->content_errors++;
      c->wrong_length++;
    } else if (!np_udp_msg_verify(&cl->gen, rx[i].data, rx[i].len, seq,
                                  (uint64_t)s->ts)) {
      c->content_errors++;
      c->corrupted++;
    }
    int64_t rtt = now - s->intended; /* open loop: corrected (see np_udp_open.c) */
    np_udp_timeout_note_rtt(l, now - s->ts);
    if (set == 1) {
      np_hist_record(l->hist, rtt);
      if (l->service)
        np_hist_record(l->service, now - s->ts);
      if (l->iv_hist)
        np_hist_record(l->iv_hist, rtt);
    }
    if (rtt > maxrtt)
      maxrtt = rtt;
  }
  l->outstanding -= before - cl->outstanding;
  if (cfg->rate <= 0 && l->seen_phase >= NP_UDP_PH_WARMUP &&
      l->seen_phase <= NP_UDP_PH_DRAIN)
    np_udp_timeout_reap_client(cl, now); /* frees timed-out slots */
  if (cfg->rate > 0) {
    np_udp_open_send_due(l); /* sends on its schedule, not on replies */
  } else if (l->seen_phase == NP_UDP_PH_WARMUP ||
             l->seen_phase == NP_UDP_PH_MEASURE) {
    before = cl->outstanding;
    client_fill(cl);
    l->outstanding += cl->outstanding - before;
  }
  if (maxrtt > atomic_load_explicit(&l->max_rtt_pub, memory_order_relaxed))
    atomic_store_explicit(&l->max_rtt_pub, maxrtt, memory_order_relaxed);
  publish(l);
}

/* Forget every outstanding message (the previous phase's losses). */
static void lane_reset_clients(struct np_udp_lane *l) {
  for (uint32_t i = 0; i < l->nclients; i++) {
    struct np_udp_client *cl = l->clients[i];
    l->warmup_lost += cl->outstanding;
    for (uint32_t w = 0; w < cl->ring_len; w++)
      cl->ring[w].live = 0;
    cl->outstanding = 0;
    np_udp_timeout_forget_held(cl);
  }
  l->outstanding = 0;
}

static void lane_start_sending(struct np_udp_lane *l) {
  if (l->eng->cfg->rate > 0) {
    np_udp_open_start(l);
    return;
  }
  for (uint32_t i = 0; i < l->nclients; i++) {
    struct np_udp_client *cl = l->clients[i];
    uint32_t before = cl->outstanding;
    client_fill(cl);
    l->outstanding += cl->outstanding - before;
  }
}

/* Closed loop: give up the messages past their reply timeout and, in a
 * sending phase, send new ones in their slots. */
static void lane_reap(struct np_udp_lane *l) {
  np_udp_timeout_reap(l, np_udp_now_ns());
  if (l->seen_phase != NP_UDP_PH_WARMUP && l->seen_phase != NP_UDP_PH_MEASURE)
    return;
  for (uint32_t i = 0; i < l->nclients; i++) {
    struct np_udp_client *cl = l->clients[i];
    if (cl->outstanding >= l->eng->cfg->window)
      continue;
    uint32_t before = cl->outstanding;
    client_fill(cl);
    l->outstanding += cl->outstanding - before;
  }
}

void np_udp_lane_on_wake(void *ctx) {
  struct np_udp_lane *l = ctx;
  int target = atomic_load_explicit(&l->eng->phase, memory_order_acquire);
  /* step through every phase we have not yet seen, in order */
  while (l->seen_phase < target) {
    l->seen_phase++;
    switch (l->seen_phase) {
    case NP_UDP_PH_WARMUP:
      if (target == NP_UDP_PH_WARMUP) /* not when the phase was skipped */
        lane_start_sending(l);
      break;
    case NP_UDP_PH_MEASURE:
      lane_reset_clients(l);
      np_udp_timeout_measure_start(l);
      if (target == NP_UDP_PH_MEASURE)
        lane_start_sending(l);
      break;
    case NP_UDP_PH_STOP:
      l->eng->tp->loop_stop(l->loop);
      break;
    default: /* drains: clients stop refilling (see client_on_recv) */
      break;
    }
  }
  if (l->eng->cfg->rate > 0 && l->nclients)
    np_udp_open_send_due(l); /* the pacer's wake-up, or a phase change */
  else if (l->nclients && l->seen_phase >= NP_UDP_PH_WARMUP &&
           l->seen_phase <= NP_UDP_PH_DRAIN)
    lane_reap(l); /* the pacer's wake-up at a reply deadline */
  if (l->iv_hist)
    np_udp_interval_on_wake(l);
  publish(l);
  atomic_store_explicit(&l->ack_phase, l->seen_phase, memory_order_release);
}
