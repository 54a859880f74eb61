/*
 * arq_sim.c - see arq_sim.h.  Packets wait in a binary heap ordered by
 * (arrival time, insertion order), so equal times keep FIFO order and a
 * run is a pure function of the seed.
 */
#include "arq_sim.h"

#include <stdlib.h>
#include <string.h>

#include "np_test.h"

static uint64_t rnd(struct sim *s) { /* splitmix64 */
  uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double rnd01(struct sim *s) { return (rnd(s) >> 11) * 0x1.0p-53; }

static int pkt_before(const struct sim_pkt *a, const struct sim_pkt *b) {
  return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static void heap_push(struct sim *s, const struct sim_pkt *p) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 1024;
    s->heap = realloc(s->heap, s->cap * sizeof *s->heap);
    ASSERT_NOT_NULL(s->heap);
  }
  size_t i = s->n++;
  s->heap[i] = *p;
  while (i > 0 && pkt_before(&s->heap[i], &s->heap[(i - 1) / 2])) {
    struct sim_pkt t = s->heap[i];
    s->heap[i] = s->heap[(i - 1) / 2];
    s->heap[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static void heap_pop(struct sim *s, struct sim_pkt *out) {
  *out = s->heap[0];
  s->heap[0] = s->heap[--s->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->n && pkt_before(&s->heap[l], &s->heap[m]))
      m = l;
    if (r < s->n && pkt_before(&s->heap[r], &s->heap[m]))
      m = r;
    if (m == i)
      break;
    struct sim_pkt t = s->heap[i];
    s->heap[i] = s->heap[m];
    s->heap[m] = t;
    i = m;
  }
}

static void enqueue(struct sim *s, int from, const uint8_t *buf, size_t len,
                    uint64_t extra) {
  struct sim_dir *d = &s->dir[from];
  struct sim_pkt p;
  p.at = s->now + d->delay_ns + extra;
  if (d->reorder > 0 && rnd01(s) < d->reorder)
    p.at += d->reorder_ns;
  p.order = s->order++;
  p.to = 1 - from;
  p.len = len;
  memcpy(p.data, buf, len);
  heap_push(s, &p);
}

void sim_inject(struct sim *s, int from, const uint8_t *buf, size_t len,
                uint64_t at) {
  struct sim_pkt p;
  ASSERT_LE(len, sizeof p.data);
  p.at = at;
  p.order = s->order++;
  p.to = 1 - from;
  p.len = len;
  memcpy(p.data, buf, len);
  heap_push(s, &p);
}

static int out_cb(void *ud, const uint8_t *buf, size_t len) {
  struct sim_side *sd = ud;
  struct sim *s = sd->s;
  struct sim_dir *d = &s->dir[sd->id];
  uint64_t idx = d->sent++;
  ASSERT_LE(len, 1500);
  if (d->dup > 0 && rnd01(s) < d->dup)
    enqueue(s, sd->id, buf, len, 1000);
  if (s->drop && s->drop(s, sd->id, buf, len, idx)) {
    d->dropped++;
    return 0;
  }
  if (d->loss > 0 && rnd01(s) < d->loss) {
    d->dropped++;
    return 0;
  }
  enqueue(s, sd->id, buf, len, 0);
  return 0;
}

size_t sim_msg_len(const struct sim *s, uint64_t n) {
  if (s->fixed_len)
    return s->fixed_len;
  static const size_t lens[] = {1000, 8, 2500, 1024, 3600, 300};
  return lens[n % 6];
}

void sim_msg_fill(uint64_t n, uint8_t *buf, size_t len) {
  for (size_t i = 0; i < len; i++)
    buf[i] = (uint8_t)(n * 131u + i * 7u + (i >> 8));
  if (len >= 8)
    memcpy(buf, &n, 8);
}

static void deliver_cb(void *ud, const uint8_t *msg, size_t len) {
  struct sim_side *sd = ud;
  struct sim *s = sd->s;
  uint64_t n = sd->delivered;
  if (sd->unordered) { /* by the number the message carries */
    ASSERT_GE(len, 8);
    memcpy(&n, msg, 8);
    ASSERT_LT(n, 65536);
    if (sd->seen[n / 8] & (1u << (n % 8)))
      sd->bad++; /* delivered twice */
    sd->seen[n / 8] |= (uint8_t)(1u << (n % 8));
    if (n != sd->delivered)
      sd->early++;
  }
  sd->last_n = n;
  sd->last_at = s->now;
  if (sd->at && n < sd->nat && sd->at[n] == 0)
    sd->at[n] = s->now;
  uint8_t want[4096];
  size_t wl = sim_msg_len(s, n);
  sim_msg_fill(n, want, wl);
  if (len != wl || memcmp(msg, want, wl) != 0)
    sd->bad++;
  sd->delivered++;
  if (sd->id == 1 && sd->echo)
    ASSERT_OK(np_arq_send(s->ep[1], msg, len));
  if (sd->id == 0) { /* a round trip completed */
    uint64_t rtt = s->now - s->msg_sent_at[n % 65536];
    if (s->rtt_us && s->rtt_n < s->rtt_cap)
      s->rtt_us[s->rtt_n] = (uint32_t)(rtt / 1000u);
    s->rtt_sum_ns += rtt;
    s->rtt_n++;
  }
}

static void state_cb(void *ud, enum np_arq_state st) {
  struct sim_side *sd = ud;
  if (st == NP_ARQ_FAILED)
    sd->failed = 1;
  if (st == NP_ARQ_CLOSED)
    sd->closed = 1;
}

void sim_init(struct sim *s, const struct np_arq_config *cfg, uint64_t seed) {
  memset(s, 0, sizeof *s);
  s->rng = seed;
  s->now = 1000 * SIM_MS;
  for (int i = 0; i < 2; i++) {
    s->side[i].s = s;
    s->side[i].id = i;
    struct np_arq_callbacks cb = {out_cb, deliver_cb, state_cb, &s->side[i]};
    struct np_errbuf eb;
    int rc = np_arq_new(cfg, &cb, s->now, &s->ep[i], &eb);
    if (rc != 0)
      NP_TEST_FAIL_("np_arq_new: %s", eb.msg);
  }
}

void sim_free(struct sim *s) {
  np_arq_free(s->ep[0]);
  np_arq_free(s->ep[1]);
  free(s->heap);
}

void sim_send(struct sim *s, uint64_t k) {
  uint8_t buf[4096];
  for (uint64_t i = 0; i < k; i++) {
    uint64_t n = s->next_msg++;
    size_t len = sim_msg_len(s, n);
    sim_msg_fill(n, buf, len);
    s->msg_sent_at[n % 65536] = s->now;
    ASSERT_OK(np_arq_send(s->ep[0], buf, len));
  }
  np_arq_flush(s->ep[0], s->now);
}

int sim_run(struct sim *s, int (*pred)(struct sim *s), uint64_t limit_ns) {
  uint64_t end = s->now + limit_ns;
  for (;;) {
    if (pred && pred(s))
      return 1;
    uint64_t t = UINT64_MAX;
    int which = -1; /* -1 packet, 0/1 timer */
    if (s->n > 0)
      t = s->heap[0].at;
    for (int i = 0; i < 2; i++) {
      uint64_t d = np_arq_deadline(s->ep[i]);
      if (d < t) {
        t = d;
        which = i;
      }
    }
    if (t == UINT64_MAX || t > end) {
      s->now = end;
      return pred ? pred(s) : 0;
    }
    if (t > s->now)
      s->now = t;
    if (which >= 0) {
      np_arq_on_timer(s->ep[which], s->now);
      continue;
    }
    struct sim_pkt p;
    heap_pop(s, &p);
    (void)np_arq_input(s->ep[p.to], p.data, p.len, s->now, NP_ARQ_IN_NETWORK);
    np_arq_flush(s->ep[p.to], s->now);
  }
}
