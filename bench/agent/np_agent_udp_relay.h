/*
 * np_agent_udp_relay.h - `udp --agent HOST:PORT --agent-relay LIST`: the
 * agent also starts `netproof-bench relay` on its host, listening on the
 * same address as its serve and forwarding to that serve, with the relay
 * options of LIST ("loss-percent=5,delay-ms=20,burst-loss=3/100"); the
 * clients send through it.  Its own record comes back into the udp
 * record's far part (far.relay), so every count the client reports can be
 * held against the far relay's and the far server's for the same run
 * (tests/truth/truth_agent.py).
 *
 * LIST is NAME=VALUE (or NAME alone, a flag) separated by commas; the
 * agent's allowlist decides what a relay may be asked (the relay's own
 * option table and the agent's rules: no file, no listen or forward but
 * the ones set here, its memory bound); its refusal comes back as one
 * line, "agent HOST:PORT: options/NAME: reason", exit 2.
 *
 * Ownership: np_agent_udp_relay_start fills *r; np_agent_udp_relay_clear
 * frees what it holds (accepts a zeroed one).
 */
#ifndef NP_AGENT_UDP_RELAY_H
#define NP_AGENT_UDP_RELAY_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_addr.h"
#include "np_agent_client.h"
#include "np_agent_relay_args.h" /* the LIST parser (model/core) */
#include "np_bench_opt.h"
#include "np_err.h"

struct np_agent_udp_relay {
  char service_id[12]; /* the agent's id of it                   */
  char listening[96];  /* where the clients send (ADDR:PORT)     */
  struct np_addr at;   /* the same, parsed                       */
  cJSON *start;        /* the start result (command, pid, ...)   */
  cJSON *stop;         /* the stop result                        */
  cJSON *record;       /* the relay's own record, NULL until end */
};

/* What the relay did to each leg over its whole life (its record's
 * relay.totals): dropped = lost_burst + lost_ge + lost_random + overflow +
 * dropped_at_stop, duplicated = the copies it made. */
struct np_agent_udp_relay_legs {
  int64_t request_dropped, request_duplicated; /* c2s */
  int64_t reply_dropped, reply_duplicated;     /* s2c */
  int known;                                   /* the record has them */
};

/* Start it through the session c. */
int np_agent_udp_relay_start(struct np_agent_client *c, const char *list,
                             const char *listen, const char *forward,
                             double lifetime, struct np_agent_udp_relay *r,
                             struct np_errbuf *eb);

/* Stop it and fetch its record. */
int np_agent_udp_relay_stop(struct np_agent_client *c,
                            struct np_agent_udp_relay *r,
                            struct np_errbuf *eb);

/* The legs out of a relay record (see the struct). */
void np_agent_udp_relay_legs_of(const cJSON *record,
                                struct np_agent_udp_relay_legs *l);

/* Its far.relay section: the far_server shape (service_id, command, pid,
 * listening, stopped_by, exit_code, seconds, record).  NULL on no
 * memory. */
cJSON *np_agent_udp_relay_json(const struct np_agent_udp_relay *r);

/* One far service as the record's far part shows it (far.server,
 * far.relay): its id, command, pid, listening address, how it stopped,
 * its seconds and its record (null when none); NULL on allocation
 * failure. */
cJSON *np_agent_far_service_json(const char *service_id, const cJSON *start,
                                 const cJSON *stop, const char *listening,
                                 const cJSON *record);

/* ---- what udp --agent and rudp --agent share (np_agent_udp.c,
 * np_agent_rudp.c) ---- */

#define NP_AGENT_CALL_SECONDS 10.0 /* one action's deadline (a stop waits
                                      5 s)                                */
#define NP_AGENT_CLOCK_SAMPLES 8   /* time actions per clock measurement */

/* One far run's session and services: the session, the agent's
 * identity and ours, the clock at both ends, the server it started (and
 * the relay before it).  Zeroed before np_agent_far_open; cleared with
 * np_agent_far_clear. */
struct np_agent_far {
  struct np_agent_client *client;
  cJSON *identify;                /* the agent's identify result          */
  cJSON *near_stack;              /* this process's network stack         */
  struct np_agent_clock clock[2]; /* at open and at end                   */
  char service_id[12];            /* the server's id                      */
  char listening[96];             /* the server's ADDR:PORT               */
  struct np_addr at;              /* the same, parsed                     */
  cJSON *start, *stop, *record;   /* its start and stop results, record   */
  struct np_agent_udp_relay relay; /* the relay before it, if has_relay   */
  int has_relay;
};

/* Load token_file, open the session to agent (purpose "udp", "rudp"),
 * identify it, measure the clock, take our network stack.  NP_EUSAGE for
 * a refused token file; the client's codes otherwise. */
int np_agent_far_open(struct np_agent_far *f, const char *agent,
                      const char *token_file, const char *purpose,
                      struct np_errbuf *eb);

/* Start the server with args (a "start" request's, consumed): its id,
 * listening address (parsed; NP_EPARSE when it has none) and start
 * result. */
int np_agent_far_start(struct np_agent_far *f, cJSON *args,
                       struct np_errbuf *eb);

/* The end of a far run: the relay (has_relay) stopped first - nothing
 * reaches the server after it - then the server, whose record is kept
 * even when stopping the relay failed (that error is returned); its stop
 * result, its record (NULL when it wrote none), the clock again. */
int np_agent_far_end(struct np_agent_far *f, struct np_errbuf *eb);

/* The far part's identity fields into out: agent (the channel, with the
 * address dialled), session, tool, machine, stacks (near, the agent's)
 * and clock (start, end, rule).  NP_ENOMEM when one is missing. */
int np_agent_far_head(cJSON *out, const struct np_agent_far *f,
                      const char *agent);

/* Close the session (the agent stops what is left) and free what f
 * holds; accepts a zeroed f. */
void np_agent_far_clear(struct np_agent_far *f);

/* "relay pid N: dropped D, copied C (requests) / ... (replies)". */
void np_agent_udp_relay_text(const struct np_agent_udp_relay *r, char *buf,
                             size_t len);

void np_agent_udp_relay_clear(struct np_agent_udp_relay *r);

#endif /* NP_AGENT_UDP_RELAY_H */
