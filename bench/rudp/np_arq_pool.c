/*
 * np_arq_pool.c - np_arq's memory: fragment buffers cut from slabs and the
 * send queue, so that sending a message and delivering one allocate
 * nothing (issue 20; tests/rudp/test_arq_noalloc.c counts).
 *
 * np_arq_new reserves snd_wnd + rcv_wnd + queue_frags buffers of frag_max
 * bytes: enough for every send slot, every receive slot and queue_frags
 * fragments waiting for a sequence number.  np_arq_send cuts a message
 * into fragments right away, straight into pool buffers (one copy), and
 * the send slot later takes the buffer over without another copy; it goes
 * back to the pool when the fragment is acknowledged.  Only a queue deeper
 * than any before grows the reserve (a new slab and a larger ring, both
 * doubling), so a workload that repeats allocates nothing once it has
 * been through its deepest queue.  Slabs are malloc'd, not touched: the
 * free list is LIFO, so only buffers that were really used become
 * resident.
 */
#include <stdlib.h>
#include <string.h>

#include "np_arq_int.h"

static int slab_add(struct np_arq *a, size_t n) {
  struct np_arq_pool *p = &a->pool;
  if (n == 0)
    return 0;
  if (p->nslabs == p->cap_slabs) {
    size_t ncap = p->cap_slabs ? 2 * p->cap_slabs : 4;
    uint8_t **ns = realloc(p->slabs, ncap * sizeof *ns);
    if (ns == NULL)
      return NP_ENOMEM;
    p->slabs = ns;
    p->cap_slabs = ncap;
  }
  uint8_t **nf = realloc(p->free, (p->total + n) * sizeof *nf);
  if (nf == NULL)
    return NP_ENOMEM;
  p->free = nf;
  uint8_t *slab = malloc(n * a->frag_max);
  if (slab == NULL)
    return NP_ENOMEM;
  p->slabs[p->nslabs++] = slab;
  p->total += n;
  /* pushed last-first, so buffers leave the stack in address order */
  for (size_t i = n; i-- > 0;)
    p->free[p->nfree++] = slab + i * a->frag_max;
  return 0;
}

static uint32_t pow2_at_least(size_t n) {
  uint32_t c = 16;
  while (c < n)
    c *= 2;
  return c;
}

/* A ring of at least n entries, the queue kept in order. */
static int ring_fit(struct np_arq_queue *q, size_t n) {
  if (n <= q->cap)
    return 0;
  uint32_t ncap = pow2_at_least(n);
  struct np_arq_qfrag *r = malloc(ncap * sizeof *r);
  if (r == NULL)
    return NP_ENOMEM;
  for (uint32_t i = 0; i < q->n; i++)
    r[i] = q->ring[(q->head + i) & (q->cap - 1)];
  free(q->ring);
  q->ring = r;
  q->cap = ncap;
  q->head = 0;
  return 0;
}

int np_arq__pool_init(struct np_arq *a, size_t nbufs) {
  a->q.allowance = nbufs - a->cfg.snd_wnd - a->cfg.rcv_wnd;
  int rc = slab_add(a, nbufs);
  if (rc == 0)
    rc = ring_fit(&a->q, a->q.allowance);
  return rc;
}

void np_arq__pool_free(struct np_arq *a) {
  for (size_t i = 0; i < a->pool.nslabs; i++)
    free(a->pool.slabs[i]);
  free(a->pool.slabs);
  free(a->pool.free);
  free(a->q.ring);
  memset(&a->pool, 0, sizeof a->pool);
}

uint8_t *np_arq__buf_get(struct np_arq *a) {
  return a->pool.nfree > 0 ? a->pool.free[--a->pool.nfree] : NULL;
}

void np_arq__buf_put(struct np_arq *a, uint8_t *buf) {
  if (buf != NULL && a->pool.nfree < a->pool.total)
    a->pool.free[a->pool.nfree++] = buf;
}

int np_arq__queue_push(struct np_arq *a, const uint8_t *msg, size_t len,
                       int fin) {
  struct np_arq_queue *q = &a->q;
  size_t nfrag = len ? (len + a->frag_max - 1) / a->frag_max : 1;
  if (q->n + nfrag > q->allowance) { /* deeper than ever: grow, doubling */
    size_t want = 2 * q->allowance;
    if (want < q->n + nfrag)
      want = q->n + nfrag;
    int rc = ring_fit(q, want);
    if (rc == 0)
      rc = slab_add(a, want - q->allowance);
    if (rc != 0)
      return rc;
    q->allowance = want;
  } else if (ring_fit(q, q->n + nfrag) != 0) {
    return NP_ENOMEM;
  }
  size_t off = 0;
  for (size_t i = 0; i < nfrag; i++) {
    struct np_arq_qfrag *e = &q->ring[(q->head + q->n) & (q->cap - 1)];
    size_t n = len - off < a->frag_max ? len - off : a->frag_max;
    e->buf = np_arq__buf_get(a); /* the reserve covers it */
    if (n)
      memcpy(e->buf, msg + off, n);
    e->len = (uint32_t)n;
    e->flags = fin ? NP_ARQ_F_FIN
                   : (uint8_t)((i == 0 ? NP_ARQ_F_BEGIN : 0) |
                               (i + 1 == nfrag ? NP_ARQ_F_END : 0));
    off += n;
    q->n++;
  }
  q->bytes += len;
  return 0;
}

struct np_arq_qfrag np_arq__queue_pop(struct np_arq *a) {
  struct np_arq_queue *q = &a->q;
  struct np_arq_qfrag e = q->ring[q->head];
  q->head = (q->head + 1) & (q->cap - 1);
  q->n--;
  q->bytes -= e.len;
  return e;
}
