/*
 * np_agent.h - `netproof-bench agent`: the daemon on the far host of a
 * cross-host run (docs/agent.md).
 *
 * It listens on one TCP address for control sessions: TLS 1.3 over a
 * pre-shared key derived from a shared token (np_agent_tls.h), inside it
 * length-prefixed JSON messages validated against
 * schema/agent.schema.json (np_agent_wire.h), the first of which binds
 * the address the client dialled; then it performs actions from a
 * fixed allowlist only: identify, time, snapshot (kernel counters and the
 * sockets of its services), start / stop / status of an echo server
 * (`serve`) or a link emulator (`relay`), and read their records.  A
 * service's options are checked by that command's own option table, its
 * address must be one of this host's (getifaddrs), its ports >= 1024, its
 * lifetime within what is left of the agent's own bound, a relay's target
 * the session's peer or one of the session's own services (never another
 * port of this host: no way into loopback-only services); the agent runs no
 * program (a service is a forked copy of this process running that
 * command's code), opens no file a peer names (records go to a private
 * folder it made) and binds nothing a peer did not get through those
 * checks.  Services belong to the session that started them and stop
 * when it ends.
 *
 * Bounds: --max-seconds (mandatory: the agent's whole life), a handshake
 * deadline, limits on unauthenticated connections (at once and per
 * address), a per-message deadline (slow senders are cut off), a message
 * count and an idle time per session, a per-session output buffer
 * (writes never block), a session and a service limit, a memory bound
 * on what a service may ask for, and a lockout of peers after repeated
 * failed attempts (np_agent_server.c says how).  An unauthenticated peer
 * hears nothing but TLS's alert; the reason goes to the agent's own log on
 * stderr, which never holds the token or the PSK.
 */
#ifndef NP_AGENT_H
#define NP_AGENT_H

#include "np_bench_opt.h"
#include "np_err.h"

struct np_agent_config {
  const char *listen;        /* --listen ADDR:PORT (port 0 = any)          */
  struct np_addr listen_addr; /* the same, parsed                          */
  const char *token_file;    /* --token-file FILE                          */
  double max_seconds;        /* --max-seconds: the agent's lifetime        */
  uint32_t max_connections;  /* --max-connections: sessions at once        */
  uint32_t max_pending;      /* --max-pending: unauthenticated at once     */
  uint32_t max_pending_per_address; /* --max-pending-per-address         */
  uint32_t max_messages;     /* --max-messages: per session                */
  uint32_t max_services;     /* --max-services: running at once            */
  double handshake_seconds;  /* --handshake-seconds: accept to welcome     */
  double message_seconds;    /* --message-seconds: first byte to last      */
  uint32_t max_failures;     /* --max-failures before a peer is locked out */
  double lockout_seconds;    /* --lockout-seconds: failures' window        */
  double session_idle_seconds; /* --session-idle-seconds                  */
  uint64_t max_output_bytes; /* --max-output-bytes: queued per session     */
  uint64_t max_service_memory_bytes; /* --max-service-memory-bytes        */
  int quiet;                 /* --quiet: no log lines on stderr            */
};

extern const struct np_bench_optset np_agent_optset;

/* Parse argv (argv[0] = "agent") into cfg.  *help = 1 for --help.
 * NP_EUSAGE with one line in eb. */
int np_agent_parse(int argc, char **argv, struct np_agent_config *cfg,
                   int *help, struct np_errbuf *eb);

/* Run the agent until --max-seconds or SIGINT/SIGTERM (its normal ends).
 * 0; NP_EUSAGE-class codes for a bad token file or listen address
 * (nothing started); other NP_E* for the environment (bind ...). */
int np_agent_run(const struct np_agent_config *cfg, struct np_errbuf *eb);

/* `netproof-bench agent ...`; the exit code (0, 2, 3). */
int np_agent_cli_main(int argc, char **argv);

#endif /* NP_AGENT_H */
