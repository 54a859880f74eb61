/*
 * np_udp_config.h - everything `netproof-bench udp` was asked to do.
 *
 * Filled by the option table's parser (np_udp_options.c) or by tests, then
 * handed read-only to the engine (np_udp_run.c) and the record writer
 * (np_udp_record.c).  No run-time state lives here.  The functions below
 * are defined in np_udp_config.c.
 */
#ifndef NP_UDP_CONFIG_H
#define NP_UDP_CONFIG_H

#include <stdint.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_err.h"

/* Largest UDP payloads: 65,535 - 20 (IPv4 header) - 8 (UDP header) and
 * 65,535 - 8 (the IPv6 payload length excludes its 40-byte header). */
#define NP_UDP_MAX_PAYLOAD_V4 65507u
#define NP_UDP_MAX_PAYLOAD_V6 65527u

enum np_udp_io_model {
  NP_UDP_IO_SINGLE,    /* one loop, one thread: server and all clients      */
  NP_UDP_IO_SPLIT,     /* server loop in one thread, clients in another      */
  NP_UDP_IO_POOL,      /* io_threads loops; server on the first; clients
                          spread round-robin over all of them                */
  NP_UDP_IO_REUSEPORT, /* io_threads loops, each with its own SO_REUSEPORT
                          server socket and its share of the clients         */
  NP_UDP_IO_CONNECTED  /* io_threads loops; the server keeps one socket per
                          client, connected to it, on the shared port (one
                          SO_REUSEPORT group), in the client's loop          */
};

/* Which ends of the echo this process runs. */
enum np_udp_mode {
  NP_UDP_MODE_LOOPBACK, /* `udp`: server and clients in one process        */
  NP_UDP_MODE_CLIENT,   /* `udp --connect`: clients against anyone's server */
  NP_UDP_MODE_SERVER    /* `serve`: the server alone, for anyone's client  */
};

enum np_udp_backend {
  NP_UDP_BACKEND_UV, /* libuv: UV_UDP_RECVMMSG + uv_udp_try_send */
  NP_UDP_BACKEND_RAW,  /* epoll + recv/send, mmsg for batches, no libuv */
  NP_UDP_BACKEND_URING /* io_uring (liburing): batched submission       */
};

/* What travels: echoes (round trips) or one-way streams. */
enum np_udp_traffic {
  NP_UDP_TRAFFIC_ECHO,  /* the echo benchmark                            */
  NP_UDP_TRAFFIC_STREAM /* --mode stream: one-way (np_udp_stream.h)      */
};

/* Open loop (--rate): how send times are spaced. */
enum np_udp_arrivals {
  NP_UDP_ARRIVALS_CONSTANT, /* every client every clients/rate seconds   */
  NP_UDP_ARRIVALS_POISSON   /* exponential gaps of that mean per client  */
};

struct np_udp_config {
  uint32_t payload;             /* datagram payload bytes                    */
  uint32_t clients;             /* client sockets                            */
  uint32_t window;              /* outstanding messages per client           */
  enum np_udp_io_model io_model;
  uint32_t io_threads;          /* loops/threads (pool, reuseport)           */
  enum np_udp_backend backend;
  uint32_t work;                /* work units per echo on the server         */
  double warmup;                /* warm-up seconds (0 = none)                */
  double seconds;               /* measurement seconds                       */
  int send_buffer;              /* SO_SNDBUF requested for every socket      */
  int receive_buffer;           /* SO_RCVBUF requested for client sockets    */
  int server_receive_buffer;    /* SO_RCVBUF requested for server sockets    */
  int server_receive_buffer_set;/* 1 when --udp-server-receive-buffer given  */
  char address[64];             /* literal IPv4 or IPv6 address: loopback's,
                                   --connect's target or --listen's          */
  int family;                   /* AF_INET or AF_INET6 (from address)        */
  enum np_udp_mode mode;        /* both ends, client only or server only     */
  const char *connect;          /* --connect HOST:PORT as given, or NULL;
                                   with --agent the far server's ADDR:PORT   */
  const char *agent;            /* --agent HOST:PORT as given, or NULL       */
  const char *token_file;       /* --token-file FILE (with --agent)          */
  const char *agent_relay;      /* --agent-relay LIST (with --agent), or NULL */
  const char *listen;           /* serve --listen ADDR:PORT as given, or NULL */
  uint16_t port;                /* --connect's port / --listen's (0 = any)   */
  double max_seconds;           /* serve: the upper bound of its lifetime    */
  uint64_t seed;                /* payload generator seed                    */
  double rate;                  /* --rate: messages/s over all clients on a
                                   fixed schedule (open loop); 0 = closed
                                   loop (--window per client)               */
  enum np_udp_arrivals arrivals;/* open loop: constant or Poisson spacing    */
  uint32_t max_outstanding;     /* open loop: in flight per client at most   */
  double reply_timeout_ms;      /* --reply-timeout-ms: closed loop's reply
                                   timeout, 0 = derived from the RTT       */
  double interval;              /* --interval: time-series slice, s (0 off)  */
  enum np_udp_traffic traffic;  /* --mode echo | stream                      */
  double bitrate;               /* stream: payload bits/s (0 = unlimited)    */
  double packet_rate;           /* stream: datagrams/s (0 = from --bitrate)  */
  uint32_t gso;                 /* stream: bytes per UDP_SEGMENT send, 0 off */
  uint32_t gro;                 /* stream: 1 = UDP_GRO on the receiver       */
  uint32_t batch;               /* stream: sendmmsg/recvmmsg vlen            */
  const char *output;           /* record path, "-" = stdout (not owned)     */
  int summary;                  /* --summary: enum np_bench_summary_kind     */
  int quiet;                    /* 1 = no human summary on stderr            */
  int count_syscalls;           /* 1 = syscalls and context switches per
                                   round trip into the record               */
};

/* The reference defaults (see docs/udp-benchmark.md): every option's
 * default from the option table (np_udp_options.c), derived fields set. */
void np_udp_config_defaults(struct np_udp_config *cfg);

/* address, family and port from a (an ADDR:PORT the option table parsed:
 * --connect, --agent, serve's --listen). */
void np_udp_config_peer(struct np_udp_config *cfg, const struct np_addr *a);

/* Messages a client keeps track of: --window closed loop, else
 * --max-outstanding. */
uint32_t np_udp_config_inflight(const struct np_udp_config *cfg);

/* Threads the model uses: single 1, split 2, pool/reuseport/connected
 * io_threads. */
uint32_t np_udp_config_lanes(const struct np_udp_config *cfg);

/* What a configuration makes the run set up: threads, server sockets,
 * batch sizes, reuseport steering.  One rule for the run (np_udp_run.c)
 * and for a self-check re-deriving a record's config from its command. */
struct np_udp_layout {
  uint32_t lanes;           /* threads (np_udp_config_lanes)               */
  uint32_t servers;         /* server sockets: one per lane for reuseport,
                               none for --connect (the target serves)     */
  uint32_t clients;         /* client sockets: none for serve             */
  uint32_t rx_batch_server; /* datagrams per server receive call           */
  uint32_t rx_batch_client; /* ... per client receive call                 */
  uint32_t tx_batch;        /* ... per client send call                    */
  int steered;              /* reuseport cBPF steering by client id (the
                               loopback benchmark only)                   */
};

void np_udp_layout_of(const struct np_udp_config *cfg,
                      struct np_udp_layout *out);

/* Names by enum value, NULL-terminated (the option table's choices). */
extern const char *const np_udp_io_model_names[];
extern const char *const np_udp_backend_names[];
extern const char *const np_udp_arrivals_names[];
extern const char *const np_udp_traffic_names[];

const char *np_udp_io_model_name(enum np_udp_io_model m);
const char *np_udp_backend_name(enum np_udp_backend b);

#endif /* NP_UDP_CONFIG_H */
