/*
 * np_relay_pool.c - chunk chains and descriptors with last-in first-out
 * free lists over one reservation per route (see np_relay_pool.h).
 */
#include "np_relay_pool.h"

#include <stdlib.h>
#include <string.h>

#include "np_err.h"

#define LIMIT (1u << 31)

uint64_t np_relay_pool_chunks_for(uint64_t packets, uint64_t bytes) {
  return (bytes + NP_RELAY_CHUNK - 1) / NP_RELAY_CHUNK + packets;
}

int np_relay_pool_init(struct np_relay_pool *p, uint64_t packets,
                       uint64_t bytes) {
  memset(p, 0, sizeof *p);
  uint64_t nchunks = np_relay_pool_chunks_for(packets, bytes);
  if (packets == 0 || packets > LIMIT || nchunks > LIMIT)
    return NP_ERANGE;
  /* malloc, not calloc: nothing is read before it is written, and pages
   * stay untouched until the queue first reaches them */
  p->mem = malloc((size_t)nchunks * NP_RELAY_CHUNK);
  p->link = malloc((size_t)nchunks * sizeof *p->link);
  p->pkts = malloc((size_t)packets * sizeof *p->pkts);
  if (p->mem == NULL || p->link == NULL || p->pkts == NULL) {
    np_relay_pool_free(p);
    return NP_ENOMEM;
  }
  p->nchunks = (uint32_t)nchunks;
  p->npkts = (uint32_t)packets;
  p->chunk_free = p->pkt_free = NP_RELAY_NIL;
  return 0;
}

void np_relay_pool_free(struct np_relay_pool *p) {
  free(p->mem);
  free(p->link);
  free(p->pkts);
  memset(p, 0, sizeof *p);
}

static uint32_t chunk_take(struct np_relay_pool *p) {
  uint32_t c = p->chunk_free;
  if (c != NP_RELAY_NIL)
    p->chunk_free = p->link[c];
  else
    c = p->chunk_bump++;
  p->chunks_used++;
  return c;
}

struct np_relay_pkt *np_relay_pool_put(struct np_relay_pool *p,
                                       const void *data, size_t len,
                                       uint32_t route, uint32_t dir) {
  uint32_t need = (uint32_t)((len + NP_RELAY_CHUNK - 1) / NP_RELAY_CHUNK);
  if (len > 65535u || p->pkts_used == p->npkts ||
      p->nchunks - p->chunks_used < need)
    return NULL;
  uint32_t id = p->pkt_free;
  if (id != NP_RELAY_NIL)
    p->pkt_free = p->pkts[id].next;
  else
    id = p->pkt_bump++;
  p->pkts_used++;
  struct np_relay_pkt *pkt = &p->pkts[id];
  pkt->id = id;
  pkt->len = (uint32_t)len;
  pkt->route = route;
  pkt->dir = dir;
  pkt->next = NP_RELAY_NIL;
  pkt->qnext = NULL;
  pkt->first = NP_RELAY_NIL;
  const unsigned char *src = data;
  uint32_t *tail = &pkt->first;
  for (size_t off = 0; off < len; off += NP_RELAY_CHUNK) {
    uint32_t c = chunk_take(p);
    size_t n = len - off < NP_RELAY_CHUNK ? len - off : NP_RELAY_CHUNK;
    memcpy(p->mem + (size_t)c * NP_RELAY_CHUNK, src + off, n);
    *tail = c;
    tail = &p->link[c];
  }
  *tail = NP_RELAY_NIL;
  return pkt;
}

void np_relay_pool_release(struct np_relay_pool *p, struct np_relay_pkt *pkt) {
  uint32_t c = pkt->first;
  while (c != NP_RELAY_NIL) {
    uint32_t next = p->link[c];
    p->link[c] = p->chunk_free;
    p->chunk_free = c;
    p->chunks_used--;
    c = next;
  }
  pkt->first = NP_RELAY_NIL;
  pkt->next = p->pkt_free;
  p->pkt_free = pkt->id;
  p->pkts_used--;
}

unsigned np_relay_pool_iov(const struct np_relay_pool *p,
                           const struct np_relay_pkt *pkt, struct iovec *iov) {
  unsigned n = 0;
  uint32_t left = pkt->len;
  for (uint32_t c = pkt->first; c != NP_RELAY_NIL && left > 0;
       c = p->link[c]) {
    uint32_t k = left < NP_RELAY_CHUNK ? left : NP_RELAY_CHUNK;
    iov[n].iov_base = p->mem + (size_t)c * NP_RELAY_CHUNK;
    iov[n].iov_len = k;
    n++;
    left -= k;
  }
  return n;
}
