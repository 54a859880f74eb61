/*
 * np_relay_int.h - internals of the live relay shared by np_relay.c
 * (create, routes, lifecycle), np_relay_loop.c (epoll loop, batches,
 * timer), np_relay_tcp.c (TCP passthrough) and np_relay_stats.c
 * (snapshots, JSON).  Not part of the public API.
 *
 * Locking: the relay thread owns every structure below; counters, peaks,
 * timing, io and tcp stats, the expired totals, each route's `open` flag
 * and the number of open routes change under mu, and other threads read
 * them under mu.  A route slot is fully initialised before its `open`
 * flag is set, and other threads read a slot only while it is open; slots
 * never change address (below nslots they have been used at least once;
 * a slot freed by expiry is reused by a later route).
 */
#ifndef NP_RELAY_INT_H
#define NP_RELAY_INT_H

#include <pthread.h>

#include "np_relay.h"
#include "np_relay_heap.h"
#include "np_relay_pool.h"
#include "np_relay_tcp.h"

#define NP_RELAY_SOCKBUF (4 << 20)

/* Room for one UDP_SEGMENT control message (its uint16_t segment size),
 * aligned as a cmsghdr (its size_t length). */
union np_relay__gso_ctl {
  char buf[CMSG_SPACE(sizeof(uint16_t))];
  size_t align;
};

/* What an epoll event points at. */
enum np_relay_ev_kind {
  NP_RELAY_EV_UDP,        /* struct np_relay_sock                        */
  NP_RELAY_EV_TIMER,      /* the timerfd                                  */
  NP_RELAY_EV_STOP,       /* the stop eventfd                             */
  NP_RELAY_EV_TCP_LISTEN, /* the TCP listener                             */
  NP_RELAY_EV_TCP_SIDE    /* struct np_relay_tcp_side                     */
};

struct np_relay_ev {
  enum np_relay_ev_kind kind;
};

enum np_relay_sock_role {
  NP_RELAY_SOCK_FRONT,  /* a route's own client-side socket (in-process) */
  NP_RELAY_SOCK_BACK,   /* a route's server-side socket                  */
  NP_RELAY_SOCK_LISTEN  /* the shared client-side socket (standalone)    */
};

/* One UDP socket and the copies waiting for it to become writable. */
struct np_relay_sock {
  struct np_relay_ev ev;        /* kind NP_RELAY_EV_UDP                   */
  int fd;                       /* -1 when not open                       */
  enum np_relay_sock_role role;
  uint32_t route;               /* owning route (not for LISTEN)          */
  int rcvbuf, sndbuf;           /* effective sizes (getsockopt)           */
  struct np_relay_pkt *pend_head, *pend_tail; /* FIFO after EAGAIN       */
  int out_armed;                /* EPOLLOUT requested                     */
  int gso;                      /* group sends with UDP_SEGMENT (cleared
                                 * when the kernel refuses it here)      */
};

struct np_relay_route {
  uint32_t index;                      /* its slot in np_relay.routes   */
  uint32_t serial;                     /* routes opened before it: its
                                        * PRNG streams' route key        */
  int open;                            /* the slot holds a route (mu)    */
  uint64_t last_ns;                    /* last datagram, either way      */
  struct sockaddr_storage back_addr;   /* the back socket's address      */
  struct np_relay_sock front;          /* in-process only                */
  struct np_relay_sock back;           /* the server sees this socket    */
  struct sockaddr_storage front_addr;  /* where its client sends         */
  struct sockaddr_storage client;      /* learned from the first datagram */
  int client_known;                    /* client is set                  */
  double opened_s;                     /* seconds after the relay start  */
  struct np_relay_dir_state dir[NP_RELAY_DIRS];
  struct np_relay_occupancy occ;       /* both directions (capacity)     */
  uint64_t dir_bytes[NP_RELAY_DIRS];   /* per-direction occupancy, bytes */
  uint64_t dir_packets[NP_RELAY_DIRS]; /* ... and packets                */
  uint64_t peak_bytes, peak_packets;   /* route-level peaks              */
  struct np_relay_pool pool;           /* this route's queued copies     */
};

/* One TCP endpoint of a passthrough connection. */
struct np_relay_tcp_side {
  struct np_relay_ev ev;      /* kind NP_RELAY_EV_TCP_SIDE              */
  struct np_relay_tcp_conn *conn;
  unsigned which;             /* 0 client, 1 server                     */
  int fd;                     /* -1 when closed                         */
  uint32_t events;            /* epoll interest now                     */
};

struct np_relay_tcp_conn {
  int used;                            /* the slot holds a connection    */
  int connecting;                      /* server side not connected yet  */
  struct np_relay_tcp_side side[2];
  unsigned char *buf[2];               /* buf[d]: read from side d       */
  uint32_t head[2], len[2];            /* ring of NP_RELAY_TCP_BUF bytes */
  int eof[2];                          /* side d sent FIN                */
  int shut[2];                         /* SHUT_WR done towards side d    */
  uint64_t bytes;                      /* both directions                */
  uint64_t half_ns;                    /* first FIN or error seen, or 0  */
};

struct np_relay_tcp {
  struct np_relay_ev ev;               /* kind NP_RELAY_EV_TCP_LISTEN    */
  int listen_fd;                       /* -1 when off                    */
  uint32_t max_conns;                  /* slots                          */
  uint64_t max_bytes;                  /* per connection, both ways      */
  uint64_t idle_ns;                    /* half-closed bound, 0 = never   */
  struct np_relay_tcp_conn *conns;     /* max_conns slots                */
  unsigned char *bufmem;               /* 2 x NP_RELAY_TCP_BUF per slot  */
  struct np_relay_tcp_stats st;        /* under relay->mu                */
};

struct np_relay {
  struct np_relay_config cfg;
  int standalone;                      /* np_relay_listen                */
  struct sockaddr_storage server;      /* forward address               */
  struct sockaddr_storage listen_addr; /* standalone: bound address     */
  unsigned max_routes;                 /* slots in routes               */
  unsigned nopen;                      /* routes open (under mu)        */
  unsigned nslots;                     /* slots used so far (under mu)  */
  struct np_relay_route *routes;       /* max_routes slots              */
  uint32_t *free_slots;                /* standalone: slots freed by
                                        * expiry, a stack               */
  unsigned nfree;                      /* entries in free_slots         */
  uint64_t idle_ns;                    /* route expiry, 0 = never       */
  uint64_t max_memory;                 /* bound on io.queued_bytes, 0 = none */
  uint64_t next_sweep_ns;              /* when idle routes are looked for */
  uint64_t sweep_ns;                   /* ... how often                 */
  unsigned char back_ports[8192];      /* bit per port of a back socket */
  struct np_relay_counts expired[NP_RELAY_DIRS]; /* expired routes' sums
                                        * (under mu)                    */
  uint64_t expired_peak_bytes, expired_peak_packets; /* their peaks' sums */
  uint64_t expired_drops;              /* their sockets' kernel drops   */
  uint32_t *hash;                      /* standalone: source -> route+1 */
  uint32_t hash_mask;
  int socket_buffer;                   /* requested SO_RCVBUF/SNDBUF    */
  uint64_t route_packets, route_bytes; /* effective capacity per route  */
  struct np_relay_sock listen;         /* standalone                    */
  struct np_relay_tcp tcp;             /* standalone, optional          */
  int epfd, timer_fd, stop_fd;         /* epoll set, timerfd, eventfd   */
  struct np_relay_ev timer_ev, stop_ev; /* their epoll tags             */
  uint64_t armed_ns;                   /* timerfd target, 0 = disarmed  */
  int spinning;                        /* release due within the spin  */
  struct np_relay_heap heap;           /* queued copies by release time */
  uint64_t start_ns;                   /* np_relay_start               */
  /* batch buffers (relay thread) */
  unsigned char *rxmem;                /* NP_RELAY_BATCH x 64 KiB       */
  struct mmsghdr rxmsg[NP_RELAY_BATCH];           /* recvmmsg headers   */
  struct iovec rxiov[NP_RELAY_BATCH];             /* ... into rxmem     */
  struct sockaddr_storage rxaddr[NP_RELAY_BATCH]; /* ... their sources  */
  struct mmsghdr txmsg[NP_RELAY_BATCH];           /* sendmmsg headers   */
  struct iovec txiov[NP_RELAY_BATCH * NP_RELAY_CHUNKS_MAX]; /* chunks,
                                        * message after message        */
  union np_relay__gso_ctl txctl[NP_RELAY_BATCH];  /* UDP_SEGMENT cmsgs  */
  unsigned txfirst[NP_RELAY_BATCH + 1]; /* message m: txpkt[txfirst[m]
                                        * .. txfirst[m + 1])            */
  struct np_relay_pkt *txpkt[NP_RELAY_BATCH];     /* ... their copies   */
  pthread_t thread;                    /* the relay thread              */
  int started, joined, loop_rc;        /* lifecycle; loop_rc: NP_E*     */
  pthread_mutex_t mu;                  /* see the locking note above    */
  int stop_sent;                       /* np_relay_stop wrote stop_fd   */
  struct np_relay_timing timing;       /* release lateness (under mu)   */
  struct np_relay_io io;               /* socket layer counts (under mu) */
};

/* np_relay.c: open route i (standalone: for client addr).  0 or NP_E*. */
int np_relay__route_open(struct np_relay *r, unsigned i,
                         const struct sockaddr *client, struct np_errbuf *eb);
/* np_relay.c: the route of a standalone source, opening one if there is
 * room; NULL when refused (counted). */
struct np_relay_route *np_relay__route_of(struct np_relay *r,
                                          const struct sockaddr *src);
int np_relay__epoll_add(struct np_relay *r, int fd, uint32_t events,
                        struct np_relay_ev *ev);

/* np_relay.c: close idle routes and, through np_relay__tcp_sweep,
 * half-closed TCP connections past their bound; schedules the next. */
void np_relay__sweep(struct np_relay *r, uint64_t now);
/* np_relay.c: is src one of the relay's own addresses? */
int np_relay__is_own(const struct np_relay *r, const struct sockaddr *src);
/* np_relay_stats.c: a socket's kernel drops (SO_MEMINFO), 0 if unknown. */
uint64_t np_relay__sock_drops(int fd);

/* np_relay_loop.c */
void *np_relay__thread_main(void *arg);
/* Drop every queued and pending copy (counted dropped_at_stop). */
void np_relay__drop_queued(struct np_relay *r);

/* np_relay_tcp.c */
int np_relay__tcp_open(struct np_relay *r, const struct np_relay_listen_config *lc,
                       struct np_errbuf *eb);
void np_relay__tcp_accept(struct np_relay *r);
void np_relay__tcp_event(struct np_relay *r, struct np_relay_tcp_side *s,
                         uint32_t events);
void np_relay__tcp_close(struct np_relay *r);
void np_relay__tcp_sweep(struct np_relay *r, uint64_t now);

#endif /* NP_RELAY_INT_H */
