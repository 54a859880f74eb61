/*
 * np_relay_pool.h - one route's preallocated packet store, so the relay
 * allocates nothing per datagram.
 *
 * A queued copy is a descriptor (struct np_relay_pkt) and a chain of
 * fixed-size chunks holding its bytes; the socket layer sends the chain
 * as an iovec, so there is no second copy and no fragmentation: any chunk
 * fits any packet.  The pool of a route is sized from the route's queue
 * capacity (bench/relay/np_relay_impair.h decides admission against it
 * first): a route holding at most P packets and B bytes needs at most
 * ceil(B / NP_RELAY_CHUNK) + P chunks, so an admitted copy always finds
 * room.  Memory is reserved once, when the route opens, and touched only
 * as the queue first grows there: free chunks and descriptors are reused
 * last-in first-out, and a bump index hands out never-used ones, so the
 * resident part stays near the route's peak queue.
 *
 * Threading: one owner (the relay thread) after np_relay_pool_init.
 */
#ifndef NP_RELAY_POOL_H
#define NP_RELAY_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define NP_RELAY_CHUNK 2048u            /* bytes per chunk                */
#define NP_RELAY_NIL UINT32_MAX         /* end of a chunk or packet chain */
/* Chunks of the largest datagram (65,535 bytes): the iovec bound. */
#define NP_RELAY_CHUNKS_MAX ((65535u + NP_RELAY_CHUNK - 1) / NP_RELAY_CHUNK)

/* One queued copy. */
struct np_relay_pkt {
  uint32_t first;  /* first chunk, NP_RELAY_NIL when len == 0        */
  uint32_t len;    /* datagram bytes                                  */
  uint32_t route;  /* route index                                     */
  uint32_t dir;    /* enum np_relay_dir                               */
  uint32_t id;     /* index of this descriptor in its pool            */
  uint32_t next;   /* free list: next descriptor id, or NP_RELAY_NIL  */
  struct np_relay_pkt *qnext; /* a socket's send queue (any route)    */
};

struct np_relay_pool {
  unsigned char *mem;        /* nchunks x NP_RELAY_CHUNK bytes          */
  uint32_t *link;            /* per chunk: next chunk (chain / free)    */
  uint32_t nchunks;          /* chunks reserved                          */
  uint32_t chunk_bump;       /* chunks never used start here             */
  uint32_t chunk_free;       /* free list head, or NP_RELAY_NIL          */
  uint32_t chunks_used;      /* chunks in queued copies now              */
  struct np_relay_pkt *pkts; /* npkts descriptors                        */
  uint32_t npkts;            /* descriptors reserved                     */
  uint32_t pkt_bump;         /* descriptors never used start here        */
  uint32_t pkt_free;         /* free list head, or NP_RELAY_NIL          */
  uint32_t pkts_used;        /* descriptors in use now                   */
};

/* Chunks a pool for packets / bytes needs (the bound above). */
uint64_t np_relay_pool_chunks_for(uint64_t packets, uint64_t bytes);

/* Reserve room for `packets` descriptors and `bytes` bytes of queued
 * copies.  0, NP_ERANGE (more than 2^31 chunks or descriptors) or
 * NP_ENOMEM.  *p is written in every case (zeroed on failure). */
int np_relay_pool_init(struct np_relay_pool *p, uint64_t packets,
                       uint64_t bytes);

/* Frees the reservation.  Accepts a zeroed or failed pool. */
void np_relay_pool_free(struct np_relay_pool *p);

/* A copy of len bytes of data for (route, dir), or NULL when the pool has
 * no descriptor or not enough chunks left (nothing taken then). */
struct np_relay_pkt *np_relay_pool_put(struct np_relay_pool *p,
                                       const void *data, size_t len,
                                       uint32_t route, uint32_t dir);

/* Give pkt's descriptor and chunks back. */
void np_relay_pool_release(struct np_relay_pool *p, struct np_relay_pkt *pkt);

/* Fill iov (at least NP_RELAY_CHUNKS_MAX entries) with pkt's bytes;
 * returns the number of entries used. */
unsigned np_relay_pool_iov(const struct np_relay_pool *p,
                           const struct np_relay_pkt *pkt, struct iovec *iov);

#endif /* NP_RELAY_POOL_H */
