/*
 * np_udp_timeout.c - when the client stops waiting for a reply, and what a
 * reply that still comes is.
 *
 * A message is given up when its reply timeout passes (--connect's closed
 * loop) or when its ring slot is needed for a new message before that
 * ("expired"; --connect's closed loop: the ring holds 4 windows, at least
 * 256, so only a path that holds a reply back that many round trips does
 * it; open loop: --max-outstanding sends later).  A given-up message is
 * kept in the client's `gone` table (seq, send time, counter set); a reply
 * to it is *late*: counted as late with how late it was (reply time from
 * its intended send), its bytes checked like any reply, never counted as
 * received, lost or stale.  `lost` is what never came back by the end of
 * the drain: sent - received - late.  A late reply whose entry was
 * overwritten by a later give-up (a table's size of sequences later) is
 * stale.
 *
 * The reply timeout (--connect's closed loop only; open loop keeps its
 * accounting, the in-process benchmark the reference's window):
 * --reply-timeout-ms when given, else derived per lane from the RTTs seen
 * so far (warm-up included):
 *     clamp(8 x p99, 200 ms, 1 s)  with 100 or more RTTs (re-derived at
 *                                  100, each power of two, then every
 *                                  1,024 replies)
 *     clamp(8 x max, 200 ms, 1 s)  with fewer
 *     1 s                          before the first reply
 * (8 x max over the first 1,024 RTTs let one 125 ms outlier of a loaded
 * machine set a 1 s timeout for the rest of a run.)
 * The 200 ms floor is above the scheduling stalls of a loaded machine
 * (50 ms failed a loopback run on a 2-core machine running five other
 * builds: 32 replies came 105 ms after their send).  A message is never
 * given up while datagrams wait in its client's socket: a stalled loop
 * reads them first.
 * When it fires the message's slot sends a new message at once (in a
 * sending phase), so loss on the path costs the timeout per lost message,
 * not the slot for the rest of the run.  The time slots spent waiting on
 * messages that then timed out is counted (timeout_wait_ns) so the record
 * can say when the timeout, not the server, set the rate.
 *
 * The lane's pacer thread (np_udp_pacer.c) wakes the loop at the earliest
 * pending deadline, published in next_due_pub; replies only make deadlines
 * later, so the published one is never late, at worst early.
 * Lane threads only, except the two set-up functions; nothing here
 * allocates after set-up.
 */
#include <linux/sockios.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "np_udp_engine.h"

#define TO_MIN_NS 200000000LL   /* 200 ms: the derived timeout's floor  */
#define TO_MAX_NS 1000000000LL  /* 1 s: its ceiling, and the first one  */
#define TO_FACTOR 8             /* x p99 (or x max while few RTTs)      */
#define TO_P99_FROM 100         /* RTTs before p99 replaces the max     */
#define TO_EVERY 1024           /* replies between derivations (p99)    */
#define QUEUED_RECHECK_NS 1000000 /* replies queued: look again in 1 ms */

/* The reply timeout is --connect's (and --agent's) closed loop: the
 * in-process benchmark keeps the reference's window, where a message the
 * kernel dropped is not replaced (tests/bench/test_udp_overflow.c). */
static int closed_loop(const struct np_udp_lane *l) {
  return l->eng->cfg->rate <= 0 && l->eng->cfg->mode == NP_UDP_MODE_CLIENT;
}

static void note_in_force(struct np_udp_lane *l) {
  if (l->seen_phase != NP_UDP_PH_MEASURE && l->seen_phase != NP_UDP_PH_DRAIN)
    return;
  if (l->to_min_ns == 0 || l->timeout_ns < l->to_min_ns)
    l->to_min_ns = l->timeout_ns;
  if (l->timeout_ns > l->to_max_ns)
    l->to_max_ns = l->timeout_ns;
}

int np_udp_timeout_lane_init(struct np_udp_lane *l) {
  const struct np_udp_config *cfg = l->eng->cfg;
  l->timeout_ns = cfg->reply_timeout_ms > 0
                      ? (int64_t)(cfg->reply_timeout_ms * 1e6)
                      : TO_MAX_NS;
  return np_hist_new(1, 60000000000LL, 3, &l->to_hist);
}

/* Entries of a client's gone table: a power of two holding the given-up
 * messages of several rings (--connect: a path can hold replies back). */
int np_udp_timeout_alloc(struct np_udp_engine *eng, struct np_udp_client *cl) {
  uint64_t n = eng->cfg->mode == NP_UDP_MODE_CLIENT ? 1024 : 64;
  while (n < 4 * (uint64_t)cl->ring_len)
    n *= 2;
  cl->gone = calloc(n, sizeof *cl->gone);
  cl->gone_mask = n - 1;
  return cl->gone ? 0 : NP_ENOMEM;
}

void np_udp_timeout_measure_start(struct np_udp_lane *l) {
  l->to_min_ns = l->to_max_ns = 0;
  note_in_force(l);
}

void np_udp_give_up(struct np_udp_client *cl, struct np_udp_slot *s,
                    int held) {
  struct np_udp_gone *e = &cl->gone[s->seq & cl->gone_mask];
  *e = (struct np_udp_gone){.seq1 = s->seq + 1,
                            .ts = s->ts,
                            .intended = s->intended,
                            .set = NP_UDP_SET(cl->lane->seen_phase),
                            .held = held};
  s->live = 0;
}

int np_udp_late_reply(struct np_udp_client *cl, uint64_t seq,
                      const struct np_udp_rx *rx, int64_t now) {
  struct np_udp_gone *e = &cl->gone[seq & cl->gone_mask];
  if (e->seq1 != seq + 1)
    return 0;
  struct np_udp_lane *l = cl->lane;
  struct np_udp_counters *c = &l->ctr[e->set];
  c->late++;
  if (now - e->intended > c->late_max_ns)
    c->late_max_ns = now - e->intended;
  if (rx->truncated || rx->len != l->eng->cfg->payload) {
    c->content_errors++;
    c->wrong_length++;
  } else if (!np_udp_msg_verify(&cl->gen, rx->data, rx->len, seq,
                                (uint64_t)e->ts)) {
    c->content_errors++;
    c->corrupted++;
  }
  if (e->held && l->outstanding > 0)
    l->outstanding--; /* open loop: it was still in the drain's count */
  if (cl->answered)
    cl->answered[seq & cl->answered_mask] = seq + 1;
  e->seq1 = 0;
  return 1;
}

void np_udp_timeout_forget_held(struct np_udp_client *cl) {
  for (uint64_t i = 0; i <= cl->gone_mask; i++)
    cl->gone[i].held = 0;
  cl->oldest = cl->next_seq;
}

void np_udp_timeout_note_rtt(struct np_udp_lane *l, int64_t rtt) {
  if (!closed_loop(l) || l->eng->cfg->reply_timeout_ms > 0)
    return;
  np_hist_record(l->to_hist, rtt);
  uint64_t n = np_hist_count(l->to_hist);
  int64_t base = 0;
  if (n < TO_P99_FROM) {
    base = np_hist_max(l->to_hist);
  } else if (n == TO_P99_FROM || ++l->to_fresh >= TO_EVERY ||
             (n < TO_EVERY && (n & (n - 1)) == 0)) {
    l->to_fresh = 0; /* at 100, then each power of two, then every 1,024 */
    if (np_hist_percentile(l->to_hist, 99, &base) != 0)
      base = np_hist_max(l->to_hist);
  } else {
    return;
  }
  int64_t t = TO_FACTOR * base;
  t = t < TO_MIN_NS ? TO_MIN_NS : t > TO_MAX_NS ? TO_MAX_NS : t;
  if (t < l->timeout_ns) /* a deadline published with the longer one is
                            late now: have the pacer wake the loop */
    atomic_store_explicit(&l->next_due_pub, 0, memory_order_release);
  l->timeout_ns = t;
  note_in_force(l);
}

/* 1 when a datagram waits in cl's socket (SIOCINQ: the next one's size):
 * its reply may be among them. */
static int replies_queued(const struct np_udp_client *cl) {
  int n = 0;
  int fd = cl->lane->eng->tp->sock_fd(cl->sock);
  return ioctl(fd, SIOCINQ, &n) == 0 && n > 0;
}

/* Give up cl's messages past the timeout t; the earliest deadline still
 * pending goes into *next. */
static void reap_client(struct np_udp_client *cl, int64_t now, int64_t t,
                        int64_t *next) {
  struct np_udp_lane *l = cl->lane;
  struct np_udp_counters *c = &l->ctr[NP_UDP_SET(l->seen_phase)];
  int looked = 0;
  while (cl->oldest < cl->next_seq) {
    struct np_udp_slot *s = &cl->ring[cl->oldest % cl->ring_len];
    if (!s->live || s->seq != cl->oldest) { /* answered or given up */
      cl->oldest++;
      continue;
    }
    if (now - s->ts < t) {
      if (s->ts + t < *next)
        *next = s->ts + t;
      return;
    }
    if (!looked && (looked = 1) && replies_queued(cl)) {
      /* the loop was held up, not the reply: read them first */
      if (now + QUEUED_RECHECK_NS < *next)
        *next = now + QUEUED_RECHECK_NS;
      return;
    }
    c->timed_out++;
    c->timeout_wait_ns += now - s->ts;
    np_udp_give_up(cl, s, 0);
    cl->outstanding--;
    l->outstanding--;
    cl->oldest++;
  }
}

void np_udp_timeout_reap_client(struct np_udp_client *cl, int64_t now) {
  int64_t next = INT64_MAX;
  if (closed_loop(cl->lane))
    reap_client(cl, now, cl->lane->timeout_ns, &next);
}

int64_t np_udp_timeout_reap(struct np_udp_lane *l, int64_t now) {
  int64_t next = INT64_MAX;
  if (!closed_loop(l))
    return next;
  for (uint32_t i = 0; i < l->nclients; i++)
    reap_client(l->clients[i], now, l->timeout_ns, &next);
  atomic_store_explicit(&l->next_due_pub, next, memory_order_release);
  return next;
}

void np_udp_timeout_sent(struct np_udp_lane *l, int64_t now) {
  if (!closed_loop(l))
    return;
  int64_t dl = now + l->timeout_ns;
  if (dl < atomic_load_explicit(&l->next_due_pub, memory_order_relaxed))
    atomic_store_explicit(&l->next_due_pub, dl, memory_order_release);
}
