/*
 * np_relay.h - a netem-faithful UDP relay, in-process or standalone.
 *
 * The relay sits between clients and a server, runs its own epoll loop on
 * its own thread and emulates a lossy, slow link with the decision core of
 * np_relay_impair.h.  Topology: one ROUTE per client, each with its own
 * back socket towards the server, so the server sees one distinct source
 * address per client and answers there.  Two ways in:
 *
 *   np_relay_create (in-process, `netproof-bench rudp`): nroutes routes,
 *   each with its own front socket on a loopback port; client i sends to
 *   np_relay_route_addr(i), the first datagram there names the client.
 *
 *     client i --> [front_i]  relay  [back_i] --> server
 *
 *   np_relay_listen (standalone, `netproof-bench relay`): one listen
 *   socket; a datagram from a new source address opens a route (its back
 *   socket is created then), up to max_routes open at once; past that,
 *   datagrams of new sources are refused and counted.  A route with no
 *   datagram in either direction for route_idle_seconds (and nothing
 *   queued) expires like a NAT binding: its socket and pool are freed, its
 *   counters folded into the relay's "expired" totals, its slot reused.
 *   A datagram whose source is the relay itself - the forward address,
 *   the listen address or one of its back sockets - is dropped and
 *   counted (refused_loop): forwarding it would feed the relay its own
 *   output for ever.  Optionally TCP on the same port is passed through
 *   unimpaired (np_relay_tcp.h).
 *
 *     client k --> [listen]  relay  [back_k] --> server
 *
 * Hot path: no allocation per datagram.  Each route's queue lives in a
 * pool reserved when the route opens (np_relay_pool.h), sized from the
 * capacity options; the release heap is reserved for every open route's
 * capacity.  The standalone relay also bounds the pool memory queued
 * copies take over all routes together (max_memory_bytes, whole chunks
 * of NP_RELAY_CHUNK bytes): a copy that would pass it is dropped as
 * overflow of its route and counted (io.memory_overflow).  Datagrams are read with recvmmsg and copies sent with
 * sendmmsg, in batches of what is already there (see np_relay_loop.c).
 *
 * Lifecycle: create or listen (binds; addresses known on return) ->
 * np_relay_start (spawns the thread) -> traffic -> np_relay_stop (returns
 * at once) -> np_relay_join -> statistics -> np_relay_destroy.
 * Statistics may be read at any time from any thread (mutex-protected).
 */
#ifndef NP_RELAY_H
#define NP_RELAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "np_addr.h"
#include "np_bench_opt.h"
#include "np_err.h"
#include "np_relay_config.h" /* configuration and options (model/relay) */
#include "np_relay_impair.h"
#include "np_relay_tcp.h"

#define NP_RELAY_MAX_ROUTES 4096u
#define NP_RELAY_MAX_DATAGRAM 65536u
/* What a capacity of 0 ("no limit") means per route: the pool still needs
 * a size, and copies beyond it are tail-dropped as overflow. */
#define NP_RELAY_CAP_BYTES_MAX (64ull << 20)
#define NP_RELAY_CAP_PACKETS_MAX 65536ull

/* ---- the live relay (np_relay.c, np_relay_loop.c) ---- */

struct np_relay;

/* In-process relay with nroutes routes (1..NP_RELAY_MAX_ROUTES) towards
 * server (AF_INET or AF_INET6; the front sockets bind the loopback address
 * of the same family, port 0).  *out is written on success only; the caller
 * owns it and frees it with np_relay_destroy. */
int np_relay_create(const struct np_relay_config *cfg,
                    const struct sockaddr *server, unsigned nroutes,
                    struct np_relay **out, struct np_errbuf *eb);

/* What a standalone relay listens on and forwards to. */
struct np_relay_listen_config {
  struct sockaddr_storage listen;  /* UDP (and TCP) address clients use  */
  struct sockaddr_storage forward; /* the server, same family            */
  uint32_t max_routes;             /* 1..NP_RELAY_MAX_ROUTES              */
  int socket_buffer;               /* SO_RCVBUF/SO_SNDBUF asked for       */
  int tcp_passthrough;             /* accept TCP on listen, forward it    */
  uint32_t tcp_max_connections;    /* at once; later ones are refused     */
  uint64_t tcp_max_bytes;          /* per connection, both directions     */
  double route_idle_seconds;       /* a route idle this long expires;
                                    * 0 = never                          */
  uint64_t max_memory_bytes;       /* pool memory of the copies queued
                                    * over all routes (whole chunks); 0 =
                                    * only the per-route capacity         */
  double tcp_idle_seconds;         /* a half-closed connection not done
                                    * this long after the first FIN is
                                    * closed; 0 = never                  */
};

/* Standalone relay: binds the listen socket (and the TCP listener), no
 * route yet.  NP_EADDRINUSE etc. with "relay: bind 127.0.0.1:5201: ..." in
 * eb.  *out on success only. */
int np_relay_listen(const struct np_relay_config *cfg,
                    const struct np_relay_listen_config *lc,
                    struct np_relay **out, struct np_errbuf *eb);

/* The address clients of route must send to: the route's front socket
 * (in-process) or the listen socket (standalone; any route index below
 * the bound).  Written on success. */
int np_relay_route_addr(const struct np_relay *r, unsigned route,
                        struct sockaddr_storage *out);

/* The bound listen address (standalone only; port 0 resolved). */
int np_relay_listen_addr(const struct np_relay *r,
                         struct sockaddr_storage *out);

/* The client address a route learned (NP_ENOENT before its first
 * datagram). */
int np_relay_route_client(const struct np_relay *r, unsigned route,
                          struct sockaddr_storage *out);

/* Start the relay thread.  Once only. */
int np_relay_start(struct np_relay *r, struct np_errbuf *eb);

/* Ask the loop to stop (thread-safe, idempotent, returns immediately).
 * Packets still queued are counted as dropped_at_stop. */
void np_relay_stop(struct np_relay *r);

/* Wait for the thread to end.  Returns 0, or NP_ELOOP if the loop failed. */
int np_relay_join(struct np_relay *r);

/* Stops and joins if needed, then frees.  Accepts NULL. */
void np_relay_destroy(struct np_relay *r);

/* Routes open now (in-process: nroutes). */
unsigned np_relay_route_count(const struct np_relay *r);

/* Snapshot of one route's counters for dir (written on success; NP_EINVAL
 * for a slot that holds no open route: standalone, a route that expired
 * is summed in the statistics' "expired" object instead). */
int np_relay_route_counts(const struct np_relay *r, unsigned route,
                          unsigned dir, struct np_relay_counts *out);

/* Route-level peaks (both directions together, as the capacity applies). */
int np_relay_route_peak(const struct np_relay *r, unsigned route,
                        uint64_t *peak_bytes, uint64_t *peak_packets);

/* Timer precision: release lateness (actual send - scheduled release). */
struct np_relay_timing {
  uint64_t releases;      /* copies released from the timer heap       */
  uint64_t late_sum_ns;   /* sum of lateness, for the mean             */
  uint64_t late_max_ns;
  uint64_t late_over_100us; /* releases later than 100 us              */
  uint64_t late_hist[8];  /* < 10, 20, 50, 100, 200, 500, 1000 us, more */
  uint64_t timer_wakeups; /* timerfd expirations handled               */
};
int np_relay_timing_get(const struct np_relay *r, struct np_relay_timing *out);

/* The socket layer's own counts (relay-wide). */
struct np_relay_io {
  uint64_t recv_calls;      /* recvmmsg calls that returned datagrams    */
  uint64_t recv_datagrams;  /* datagrams they returned                   */
  uint64_t send_calls;      /* sendmmsg calls                            */
  uint64_t send_datagrams;  /* datagrams they sent                       */
  uint64_t recv_errors;     /* the listen socket's receive errors        */
  uint64_t routes_refused;  /* datagrams of new sources past max_routes  */
  uint64_t routes_opened;   /* routes opened since the start             */
  uint64_t routes_expired;  /* ... closed after route_idle_seconds idle  */
  uint64_t refused_loop;    /* datagrams from the relay's own addresses  */
  uint64_t memory_overflow; /* copies dropped at max_memory_bytes (also
                               counted as their route's overflow)       */
  uint64_t queued_bytes;    /* datagram bytes queued over all routes now */
  uint64_t queued_memory;   /* pool memory they take (whole chunks): what
                               max_memory_bytes bounds                  */
  uint64_t queued_memory_peak; /* ... at most at once                    */
  uint64_t route_errors;    /* a new route could not be opened           */
  uint64_t pool_full;       /* admitted copies the pool could not hold
                               (never, by the pool's sizing; a check)   */
  uint64_t gso_sends;       /* messages of sendmmsg that carried several
                               datagrams (UDP_SEGMENT)                  */
  uint64_t gso_datagrams;   /* datagrams they carried (in send_datagrams) */
  uint64_t gso_refused;     /* sockets that stopped grouping after a
                               grouped message failed with an error the
                               kernel gives for UDP_SEGMENT (EIO, EINVAL,
                               EMSGSIZE, ...): one datagram per message */
  uint64_t thread_cpu_ns;   /* CPU time of the relay thread, as it last
                               read it (every 256 loop turns, and when
                               its loop ends: exact after np_relay_join) */
};
int np_relay_io_get(const struct np_relay *r, struct np_relay_io *out);

/* TCP passthrough counts (zero when off). */
int np_relay_tcp_get(const struct np_relay *r, struct np_relay_tcp_stats *out);

/* Everything a record needs: schema tag "netproof/relay-stats/1"
 * (schema/relay-stats.schema.json), config, topology, stream derivation,
 * pool and batch sizes, timer mechanism and lateness, per-route (client
 * address, peaks) per-direction counters, totals and observed rates, the
 * socket layer's counts, and TCP passthrough when enabled.  New cJSON
 * object (caller deletes; may add fields) or NULL. */
cJSON *np_relay_stats_json(const struct np_relay *r);

/* The relay's sockets as record entries (role "relay"): the listen
 * socket or front sockets, then back sockets, with their buffers and
 * kernel drops (SO_MEMINFO).  New cJSON array or NULL; *drops (may be
 * NULL) gets the sum of drops. */
cJSON *np_relay_sockets_json(const struct np_relay *r, uint64_t *drops);

/* Counters of dir summed over routes; peaks summed (the reference's "sum
 * of per-route peaks"). */
void np_relay_counts_add(struct np_relay_counts *acc,
                         const struct np_relay_counts *c);

/* Monotonic clock used for every release time (CLOCK_MONOTONIC, ns). */
uint64_t np_relay_now_ns(void);

/* Addresses are common/np_addr.h's (ADDR:PORT text, format, equal). */

#endif /* NP_RELAY_H */
