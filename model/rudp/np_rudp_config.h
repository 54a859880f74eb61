/*
 * np_rudp_config.h - everything `netproof-bench rudp` was asked to do.
 *
 * Filled by np_rudp_config_parse (the CLI, through the option table in
 * np_rudp_options.c) or by tests, then handed read-only to the run
 * (np_rudp_run.c) and the record (np_rudp_record.c).  Relay options
 * (--profile, --loss-percent, ...) are the relay's own table rows, stored
 * into cfg.relay; --seed is ours and seeds the relay per round (seed,
 * seed + 1, ...).  The functions below are defined in np_rudp_config.c.
 */
#ifndef NP_RUDP_CONFIG_H
#define NP_RUDP_CONFIG_H

#include <stdint.h>
#include <sys/socket.h>

#include "np_arq_config.h"
#include "np_err.h"
#include "np_fec_params.h"
#include "np_relay_config.h"

#define NP_RUDP_MAX_CLIENTS 256u
#define NP_RUDP_MAX_LANES 16u
#define NP_RUDP_MAX_ROUNDS 100u
#define NP_RUDP_MAX_PAYLOAD (1u << 20) /* 1 MiB messages */
#define NP_RUDP_MAX_BATCH 64u          /* datagrams per mmsg syscall */

enum np_rudp_io_model {
  NP_RUDP_IO_SINGLE, /* one loop thread: server and every client          */
  NP_RUDP_IO_POOL    /* io_threads loops: server on the first, clients
                        round-robin over all of them                      */
};

enum np_rudp_fec {
  NP_RUDP_FEC_NONE,
  NP_RUDP_FEC_FIXED,
  NP_RUDP_FEC_ADAPTIVE,
  NP_RUDP_FEC_WINDOW /* sliding-window RLC (bench/fec/np_fec_win.h) */
};

/* Which endpoints this process runs (docs/agent.md "rudp across hosts"). */
enum np_rudp_role {
  NP_RUDP_ROLE_BOTH,   /* `rudp`: clients and the server, a relay between */
  NP_RUDP_ROLE_CLIENT, /* `rudp --connect` / `--agent`: the clients only,
                          against a far server endpoint (or a relay in
                          front of it)                                     */
  NP_RUDP_ROLE_SERVER  /* `rudp-serve`: the server endpoint only          */
};

struct np_rudp_config {
  uint32_t payload;     /* application message bytes                    */
  uint32_t clients;     /* client connections                           */
  uint32_t window;      /* outstanding messages per client              */
  enum np_rudp_io_model io_model;
  uint32_t io_threads;  /* loops (pool)                                 */
  enum np_rudp_fec fec; /* none | fixed | adaptive                       */
  struct np_fec_config fec_cfg; /* group, parity, wait, budget, policy;
                                   mode mirrors fec                      */
  struct np_arq_config arq; /* cc, mtu, windows, RTO bounds, delivery,
                               ack coalescing                            */
  int reo_fec_auto;     /* --reo-wnd-fec-ms auto: fec wait + 3 ms        */
  int reo_auto;         /* --reo-wnd-max-ms auto: no global cap
                           (arq.reo_wnd_max_ns 0); with FEC,
                           arq.reo_wnd_protected_ns = fec wait + 3 ms    */
  double warmup;        /* seconds per round                            */
  double seconds;       /* measured seconds per round                   */
  double interval;      /* --interval: time-series slice, s (0 = off)   */
  int live_rate;        /* not an option: the live line on a terminal
                           samples round trips each second (set from
                           np_bench_ctl.live before the run; kept out of
                           the record)                                  */
  uint32_t rounds;      /* measurement rounds, seeds seed, seed+1, ...  */
  uint64_t seed;
  int socket_buffer;    /* SO_RCVBUF/SO_SNDBUF for endpoint sockets     */
  uint32_t batch;       /* datagrams per recvmmsg / sendmmsg (--batch)  */
  struct np_relay_config relay; /* profile and impairments              */
  const char *relay_ext;  /* --relay ADDR:PORT: an external relay process
                             (netproof-bench relay) instead of the
                             in-process one, or NULL (not owned)          */
  struct sockaddr_storage relay_addr; /* --relay parsed                   */
  const char *relay_stats; /* --relay-stats FILE: that relay's
                              --stats-lines (not owned)                  */
  enum np_rudp_role role; /* derived: --connect / --agent -> CLIENT,
                             rudp-serve -> SERVER                         */
  const char *connect;  /* --connect ADDR:PORT: a server endpoint (a
                           `rudp-serve`, or a relay before one) instead of
                           our own; with --agent, set from the agent's
                           answer (not owned)                            */
  struct sockaddr_storage connect_addr; /* the same, parsed               */
  const char *agent;    /* --agent HOST:PORT: the far host's agent starts
                           the server endpoint (not owned)              */
  const char *token_file; /* --token-file FILE: the agent's token          */
  const char *agent_relay; /* --agent-relay LIST: the agent also starts a
                              relay in front of it, with LIST's options  */
  /* rudp-serve only */
  const char *listen;   /* --listen ADDR:PORT                           */
  struct sockaddr_storage listen_addr; /* the same, parsed               */
  double max_seconds;   /* --max-seconds: the server's whole life        */
  const char *output;   /* record path, "-" = stdout (not owned)        */
  int summary;          /* --summary: enum np_bench_summary_kind        */
  int quiet;
};

/* Every option's default from the option table, derived fields set. */
void np_rudp_config_defaults(struct np_rudp_config *cfg);

/* Parse argv (argv[0] = "rudp") with np_rudp_optset.  *help = 1 for
 * --help.  NP_EUSAGE with one line in eb ("--window 0: out of range
 * 1..4096").  With --fec fixed|adaptive the ARQ's reserve becomes
 * NP_FEC_RESERVE so every data datagram fits an FEC group. */
int np_rudp_config_parse(int argc, char **argv, struct np_rudp_config *cfg,
                         int *help, struct np_errbuf *eb);

/* Names by enum value, NULL-terminated (the option table's choices). */
extern const char *const np_rudp_io_model_names[];
extern const char *const np_rudp_fec_names[];

const char *np_rudp_io_model_name(enum np_rudp_io_model m);
const char *np_rudp_fec_name(enum np_rudp_fec f);
uint32_t np_rudp_config_lanes(const struct np_rudp_config *cfg);

#endif /* NP_RUDP_CONFIG_H */
