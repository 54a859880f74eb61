/*
 * np_agent_int.h - the agent's state, shared by its files (internal to
 * bench/agent): the loop and handshake (np_agent_server.c), the actions
 * (np_agent_actions.c), the services (np_agent_service.c) and the
 * allowlist (np_agent_allow.c).  One thread owns all of it.
 */
#ifndef NP_AGENT_INT_H
#define NP_AGENT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include <openssl/ssl.h>

#include "np_agent.h"
#include "np_agent_auth.h"
#include "np_agent_tls.h"
#include "np_agent_wire.h"
#include "np_err.h"

#define NP_AGENT_CONNS_MAX 64     /* --max-connections' ceiling          */
#define NP_AGENT_PENDING_MAX 64   /* --max-pending's ceiling             */
#define NP_AGENT_SLOTS (NP_AGENT_CONNS_MAX + NP_AGENT_PENDING_MAX)
#define NP_AGENT_SERVICES_MAX 64  /* --max-services' ceiling             */
#define NP_AGENT_FAIL_SLOTS 256   /* peers whose failures are remembered */
#define NP_AGENT_TAIL 4096        /* bytes of a service's output kept    */
#define NP_AGENT_ARGS_MAX 120     /* argv entries of a service           */

enum np_agent_conn_state {
  NP_AGENT_CONN_FREE,  /* slot unused                                  */
  NP_AGENT_CONN_TLS,   /* accepted, TLS handshake (unauthenticated)    */
  NP_AGENT_CONN_HELLO, /* TLS over the PSK done, waiting for the hello */
  NP_AGENT_CONN_READY  /* welcomed: requests                           */
};

struct np_agent_conn {
  enum np_agent_conn_state state;
  int fd;                        /* the TCP connection (non-blocking)      */
  SSL *ssl;                      /* its TLS session (owned)                */
  struct sockaddr_storage peer;  /* who                                    */
  struct sockaddr_storage local; /* the address the connection reached     */
  char peer_text[80];            /* "ADDR:PORT"                            */
  char peer_keyid[NP_AGENT_KEYID_HEX + 1]; /* the key id its PSK named    */
  struct np_agent_rx rx;         /* the message coming in                  */
  double accepted;               /* mono s                                 */
  double handshake_deadline;     /* accept + --handshake-seconds           */
  double message_started;        /* first byte of the current message
                                    (mono s), or 0                          */
  double last_active;            /* last message in or bytes taken out     */
  short want;                    /* poll events TLS waits for, besides IN  */
  int tls_begun;                 /* its first bytes were a TLS record      */
  unsigned char *out;            /* responses not yet written (owned)      */
  size_t out_at, out_len, out_cap; /* written, queued, allocated bytes     */
  char session[33];              /* id once welcomed                       */
  uint32_t messages;             /* received this session                  */
};

enum np_agent_kind {
  NP_AGENT_SERVE,      /* netproof-bench serve: a UDP echo server        */
  NP_AGENT_RELAY,      /* netproof-bench relay: the link emulator        */
  NP_AGENT_RUDP_SERVE, /* netproof-bench rudp-serve: rudp's server end   */
  NP_AGENT_KINDS
};

/* A kind's service name ("serve", "relay", "rudp-serve"), by value. */
extern const char *const np_agent__kind_names[NP_AGENT_KINDS];
/* The kind named name; NP_AGENT_KINDS when none is. */
enum np_agent_kind np_agent__kind_of(const char *name);

struct np_agent_service {
  int used;                     /* slot holds a service                    */
  char id[12];                  /* "s1", "s2", ...                         */
  enum np_agent_kind kind;      /* serve or relay                          */
  char session[33];             /* the session that owns it                */
  pid_t pid;                    /* the forked child, 0 once reaped         */
  int out_fd;                   /* its stdout+stderr pipe, or -1           */
  char tail[NP_AGENT_TAIL];     /* the last bytes it printed               */
  size_t tail_len;
  char listening[96];           /* ADDR:PORT it bound (from its line)      */
  struct sockaddr_storage addr; /* the same, parsed                        */
  double started;               /* mono s                                  */
  double lifetime;              /* its --max-seconds                       */
  int exited;                   /* reaped                                  */
  int wait_status;              /* waitpid's status once exited            */
  int stopped_by_agent;         /* the agent sent SIGTERM                  */
  int killed;                   /* ... and SIGKILL after the grace         */
  char record_path[4200];       /* its --record, in the agent's folder     */
  char stats_path[4200];        /* relay: its --stats-lines, or ""         */
  char *record;                 /* the record's text once stopped (owned)  */
  size_t record_len;
  cJSON *argv;                  /* the command it runs (owned)             */
};

/* Peers whose attempts failed (np_agent_guard.c). */
struct np_agent_failure {
  int used;                    /* slot in use                              */
  struct sockaddr_storage who; /* address (port ignored)                   */
  uint32_t count;              /* failures since first                     */
  double first, last;          /* mono s                                   */
  double locked;               /* when count reached --max-failures, or 0  */
};

struct np_agent {
  const struct np_agent_config *cfg;
  struct np_agent_token token;     /* the secret (wiped at the end)        */
  struct np_agent_tls_ctx *tls;    /* the PSK's TLS context                */
  uint64_t refusals;               /* every connection refused or cut      */
  struct np_agent_schema *schema;  /* message schema                       */
  int lfd;                         /* listening socket                     */
  int sigfd;                       /* SIGINT/SIGTERM/SIGCHLD                */
  int masked;                      /* those signals are blocked            */
  char listen_text[96];            /* bound ADDR:PORT                      */
  char started_at[32];             /* RFC 3339                             */
  double t0, deadline;             /* mono s: start, start + max-seconds   */
  int stop_signal;                 /* SIGINT/SIGTERM that ended it, or 0   */
  char folder[4096];               /* private folder of service records    */
  unsigned next_service;           /* number of the next service id        */
  struct np_agent_conn conns[NP_AGENT_SLOTS];
  struct np_agent_service services[NP_AGENT_SERVICES_MAX];
  struct np_agent_failure failures[NP_AGENT_FAIL_SLOTS];
};

/* A log line on stderr ("netproof-bench agent: ..."), unless quiet; bytes
 * outside printable ASCII (a peer's text) written as \xNN, so each call
 * is one line. */
void np_agent__log(const struct np_agent *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Seconds left of the agent's bound. */
double np_agent__remaining(const struct np_agent *a);

/* ---- one connection's I/O (np_agent_conn.c) ---- */

/* "ADDR:PORT" or "[ADDR]:PORT" of ss into buf. */
void np_agent__addr_text(const struct sockaddr_storage *ss, char *buf,
                         size_t len);

/* Close c (stopping a welcomed session's services) and free its slot. */
void np_agent__conn_close(struct np_agent *a, struct np_agent_conn *c);

/* Write what is queued, without blocking: 0 (all written, or the socket
 * is full and c->want says when to go on), or NP_EIO with the TLS
 * failure's phrase in why. */
int np_agent__conn_flush(struct np_agent_conn *c, char *why, size_t wl);

/* Queue msg for the peer.  NP_ENOSPC when the session's unwritten output
 * would pass --max-output-bytes (the peer does not read), NP_ENOMEM. */
int np_agent__conn_queue(struct np_agent *a, struct np_agent_conn *c,
                         const cJSON *m);

/* Refuse c for why and close it: counted; before the welcome a failed
 * attempt of its address; a peer past TLS (it holds the token) gets a
 * refused message with the reason, one before it nothing. */
void np_agent__conn_refuse(struct np_agent *a, struct np_agent_conn *c,
                           const char *why);

/* ---- failed attempts (np_agent_guard.c) ---- */

/* Note a failed attempt of who (its port ignored): its count since the
 * window began, or 0 when the table is full of locked-out addresses (a
 * lockout is never evicted; among unlocked entries the least recently
 * failed makes room). */
uint32_t np_agent__guard_fail(struct np_agent *a,
                              const struct sockaddr_storage *who);

/* 1 while who is locked out (--max-failures within --lockout-seconds;
 * locked for --lockout-seconds from the failure that locked it). */
int np_agent__guard_locked(struct np_agent *a,
                           const struct sockaddr_storage *who);

/* Forget who's failures (it authenticated). */
void np_agent__guard_clear(struct np_agent *a,
                           const struct sockaddr_storage *who);

/* 1 when a and b are the same host (ports ignored). */
int np_agent__same_host(const struct sockaddr_storage *a,
                        const struct sockaddr_storage *b);

/* 1 while a service of session runs (not yet exited). */
int np_agent__service_busy(const struct np_agent *a, const char *session);

/* Handle one validated request of an authenticated connection: the
 * response message (new tree; never NULL unless out of memory). */
cJSON *np_agent__action(struct np_agent *a, struct np_agent_conn *c,
                        const cJSON *req);

/* ---- services (np_agent_service.c) ---- */

/* Check and start a service for session (args of a "start" request);
 * peer is the session's address (a relay may forward there).  The new
 * service in *out.  NP_EUSAGE (outside the allowlist: the reason in eb),
 * NP_ENOSPC (too many services), NP_ESYS / NP_ETIMEDOUT (it did not come
 * up: its own line in eb). */
int np_agent__service_start(struct np_agent *a, const char *session,
                            const struct sockaddr *peer, const cJSON *args,
                            struct np_agent_service **out,
                            struct np_errbuf *eb);

/* The service id of session, or NULL (another session's is not found). */
struct np_agent_service *
np_agent__service_find(struct np_agent *a, const char *session, const char *id);

/* Stop it (SIGTERM, then SIGKILL after 5 s), reap it, read its record. */
void np_agent__service_stop(struct np_agent *a, struct np_agent_service *s);

/* Free the slot (record, argv, pipe, files); accepts an unused one.  A
 * stopped service keeps its slot until this: when its session fetched the
 * last piece of its record (np_agent_actions.c), or ended. */
void np_agent__service_release(struct np_agent *a, struct np_agent_service *s);

/* Reap exited children and read their output pipes (from the loop). */
void np_agent__service_poll(struct np_agent *a);

/* Stop and release every service of session (all when session NULL). */
void np_agent__service_stop_session(struct np_agent *a, const char *session);

/* ---- allowlist (np_agent_allow.c) ---- */

/* Where a relay of one session may send: its peer's address, or the
 * listening address of a service that session started and that still
 * runs.  The arrays belong to the caller. */
struct np_agent_targets {
  const struct sockaddr *peer;        /* the session's peer address      */
  const struct sockaddr_storage *own; /* its running services' ADDR:PORT */
  size_t nown;                        /* entries of own                  */
};

/* The argv of a service from a start request's options (plan-style
 * names and values), checked by the command's option table and the
 * agent's rules: no option naming a file, no --help, --max-seconds or
 * output options (the agent sets them), --listen on one of this host's
 * addresses with port 0 or >= 1024, the lifetime within remaining, and a
 * relay's --forward to a port >= 1024 of to->peer or to exactly one of
 * to->own, --tcp-passthrough only to one of to->own, and a relay's
 * worst-case memory - max-routes x (queue capacity + 2 x socket buffer) -
 * within max_memory (--max-service-memory-bytes).  *argv (new array
 * of strings, without the agent-set options), *listen (the --listen
 * value).  NP_EUSAGE with "options/NAME: reason" in eb. */
int np_agent__allow(enum np_agent_kind kind, const cJSON *options,
                    double lifetime, double remaining, uint64_t max_memory,
                    const struct np_agent_targets *to, cJSON **argv,
                    const char **listen, struct np_errbuf *eb);

/* 1 when addr (port ignored) is one of this host's addresses - an
 * interface's (getifaddrs) or loopback - and not a wildcard. */
int np_agent__addr_local(const struct sockaddr *addr);

/* {"address", "interface"} for every address of this host; NULL on no
 * memory. */
cJSON *np_agent__addresses_json(void);

#endif /* NP_AGENT_INT_H */
