/*
 * np_relay_heap.c - array-backed binary min-heap (sift-up on push,
 * sift-down on pop), O(log n) per operation; an explicit reservation, or
 * amortised doubling growth past it.
 */
#include "np_relay_heap.h"

#include <stdlib.h>

#include "np_err.h"

void np_relay_heap_init(struct np_relay_heap *h) {
  h->v = NULL;
  h->len = h->cap = 0;
  h->next_seq = 0;
}

void np_relay_heap_free(struct np_relay_heap *h) {
  free(h->v);
  np_relay_heap_init(h);
}

static int before(const struct np_relay_heap_entry *a,
                  const struct np_relay_heap_entry *b) {
  return a->release_ns < b->release_ns ||
         (a->release_ns == b->release_ns && a->seq < b->seq);
}

int np_relay_heap_reserve(struct np_relay_heap *h, size_t cap) {
  if (cap <= h->cap)
    return 0;
  struct np_relay_heap_entry *nv = realloc(h->v, cap * sizeof(*nv));
  if (nv == NULL)
    return NP_ENOMEM;
  h->v = nv;
  h->cap = cap;
  return 0;
}

int np_relay_heap_push(struct np_relay_heap *h, uint64_t release_ns,
                       void *pkt) {
  if (h->len == h->cap &&
      np_relay_heap_reserve(h, h->cap ? h->cap * 2 : 256) != 0)
    return NP_ENOMEM;
  struct np_relay_heap_entry e = {release_ns, h->next_seq++, pkt};
  size_t i = h->len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(&e, &h->v[parent]))
      break;
    h->v[i] = h->v[parent];
    i = parent;
  }
  h->v[i] = e;
  return 0;
}

const struct np_relay_heap_entry *np_relay_heap_top(const struct np_relay_heap *h) {
  return h->len ? &h->v[0] : NULL;
}

int np_relay_heap_pop(struct np_relay_heap *h, struct np_relay_heap_entry *out) {
  if (h->len == 0)
    return NP_EAGAIN;
  *out = h->v[0];
  struct np_relay_heap_entry last = h->v[--h->len];
  size_t i = 0, n = h->len;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && before(&h->v[c + 1], &h->v[c]))
      c++;
    if (!before(&h->v[c], &last))
      break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (n > 0)
    h->v[i] = last;
  return 0;
}
