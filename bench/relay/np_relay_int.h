/*
 * np_relay_int.h - internals of the live relay shared by np_relay.c
 * (loop, sockets, timer) and np_relay_stats.c (snapshots, JSON).
 * Not part of the public API.
 */
#ifndef NP_RELAY_INT_H
#define NP_RELAY_INT_H

#include <uv.h>

#include "np_relay.h"
#include "np_relay_heap.h"

/* One queued copy; freed by whoever sends or drops it. */
struct np_relay_pkt {
  uint32_t route;
  uint32_t dir;
  uint32_t len;
  unsigned char data[];
};

struct np_relay_route {
  struct np_relay *relay;
  uint32_t index;
  uv_udp_t front;                      /* the client talks to this socket */
  uv_udp_t back;                       /* the server sees this socket     */
  int front_init, back_init;           /* handles to close                */
  struct sockaddr_storage front_addr;  /* bound address of front          */
  struct sockaddr_storage client;      /* learned from the first datagram */
  int client_known;
  /* Written by the relay thread under relay->mu; other threads read only
   * dir[d].counts and the peaks, under relay->mu. */
  struct np_relay_dir_state dir[NP_RELAY_DIRS];
  struct np_relay_occupancy occ;       /* both directions (capacity)      */
  uint64_t dir_bytes[NP_RELAY_DIRS];   /* per-direction occupancy         */
  uint64_t dir_packets[NP_RELAY_DIRS];
  uint64_t peak_bytes, peak_packets;   /* route-level peaks               */
};

struct np_relay {
  struct np_relay_config cfg;
  struct sockaddr_storage server;
  unsigned nroutes;
  struct np_relay_route *routes;       /* nroutes entries                 */
  uv_loop_t loop;
  int loop_init;
  uv_async_t stop_async;
  int async_init;
  uv_poll_t timer_poll;                /* watches timer_fd                */
  int poll_init;
  int timer_fd;                        /* timerfd, CLOCK_MONOTONIC        */
  uint64_t armed_ns;                   /* timerfd target, 0 = disarmed    */
  uv_idle_t spin;                      /* active while spinning to a release */
  int spin_init;
  struct np_relay_heap heap;
  unsigned char rbuf[NP_RELAY_MAX_DATAGRAM];
  uv_thread_t thread;
  int started, joined, loop_rc;
  uv_mutex_t mu;                       /* guards counts, peaks, timing, stop_sent */
  int stop_sent;
  struct np_relay_timing timing;
};

#endif /* NP_RELAY_INT_H */
