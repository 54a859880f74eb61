/*
 * np_relay_heap.h - binary min-heap of queued copies keyed by release time
 * (ns), ties broken by insertion order so equal release times stay FIFO.
 * The heap owns nothing: entries point at packets the relay frees.  The
 * live relay reserves room for every packet its routes may queue, so its
 * pushes never allocate.
 */
#ifndef NP_RELAY_HEAP_H
#define NP_RELAY_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct np_relay_heap_entry {
  uint64_t release_ns;
  uint64_t seq; /* insertion order, for FIFO among equal release times */
  void *pkt;
};

struct np_relay_heap {
  struct np_relay_heap_entry *v;
  size_t len, cap;
  uint64_t next_seq;
};

void np_relay_heap_init(struct np_relay_heap *h);
void np_relay_heap_free(struct np_relay_heap *h); /* frees the array only */
/* Grow the array to hold at least cap entries (never shrinks), so pushes
 * up to cap allocate nothing.  0 or NP_ENOMEM. */
int np_relay_heap_reserve(struct np_relay_heap *h, size_t cap);
/* 0 or NP_ENOMEM (grows by doubling past the reservation). */
int np_relay_heap_push(struct np_relay_heap *h, uint64_t release_ns, void *pkt);
/* The earliest entry, or NULL when empty (valid until the next push/pop). */
const struct np_relay_heap_entry *np_relay_heap_top(const struct np_relay_heap *h);
/* Remove the earliest entry into *out; 0, or NP_EAGAIN when empty. */
int np_relay_heap_pop(struct np_relay_heap *h, struct np_relay_heap_entry *out);

#endif /* NP_RELAY_HEAP_H */
