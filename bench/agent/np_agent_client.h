/*
 * np_agent_client.h - the client end of the control channel: connect to a
 * `netproof-bench agent`, TLS 1.3 over the token's PSK (np_agent_tls.h),
 * a hello naming the address dialled and a welcome naming the address
 * reached (they must agree), then call actions one at a time.  Used by
 * `udp --agent` (np_agent_udp.h) and by the tests.
 *
 * Every call has a deadline; nothing blocks unbounded.  An agent that
 * refuses the handshake (another token, locked out) or does not hold the
 * PSK is NP_EACCES; a 0.2 agent (netproof/agent/1) is NP_EUNSUPPORTED naming
 * both versions.  Once the channel fails - a TLS record that does not
 * authenticate (altered, replayed, reordered, dropped), a message that
 * does not validate, a deadline - the client is broken: every later call
 * fails at once, so nothing after a forged byte is used.  Errors of an
 * action come back with the agent's code (NP_EUSAGE for a config outside
 * its allowlist, ...) and its one line in eb, prefixed "agent HOST:PORT: ".
 *
 * Ownership: np_agent_client_open returns a client the caller closes with
 * np_agent_client_close (which ends the session: the agent stops every
 * service the session started).  Results are new trees the caller frees.
 */
#ifndef NP_AGENT_CLIENT_H
#define NP_AGENT_CLIENT_H

#include <stdint.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "np_agent_auth.h"
#include "np_err.h"

/* "10.0.0.2:7000" or "[fd00::2]:7000" (literal address, port 1..65535)
 * into *ss / *len.  NP_EUSAGE with "OPTION 'TEXT': reason" in eb. */
int np_agent_hostport(const char *option, const char *text,
                      struct sockaddr_storage *ss, socklen_t *len,
                      struct np_errbuf *eb);

struct np_agent_client;

/* Connect to agent (ADDR:PORT) within timeout seconds and authenticate
 * with tok; purpose goes into the session parameters ("udp").  On
 * success *out is the session.  NP_EUSAGE (address), NP_ECONNREFUSED,
 * NP_ETIMEDOUT, NP_EACCES (refused or the agent's proof is wrong),
 * NP_EIO, NP_ENOMEM. */
int np_agent_client_open(const char *agent, const struct np_agent_token *tok,
                         const char *purpose, double timeout,
                         struct np_agent_client **out, struct np_errbuf *eb);

/* Call action with args (consumed; NULL = {}) and wait up to timeout
 * seconds for its response; *result (new tree) on success. */
int np_agent_client_call(struct np_agent_client *c, const char *action,
                         cJSON *args, double timeout, cJSON **result,
                         struct np_errbuf *eb);

/* The record of the session's service_id (after its stop), fetched in
 * pieces by the "record" action and parsed: *doc is a new tree the caller
 * frees, NULL when the service wrote none.  NP_EPARSE for pieces that do
 * not make one JSON document; the call's codes otherwise. */
int np_agent_client_record(struct np_agent_client *c, const char *service_id,
                           double timeout, cJSON **doc, struct np_errbuf *eb);

/* The session id the agent named in its welcome (32 hex). */
const char *np_agent_client_session(const struct np_agent_client *c);

/* The agent's address as given to open. */
const char *np_agent_client_agent(const struct np_agent_client *c);

/* What the channel is, for the record (far.agent). */
struct np_agent_channel {
  char protocol[24]; /* "netproof/agent/2"                  */
  char cipher[48];   /* the TLS 1.3 suite, e.g. TLS_AES_128_GCM_SHA256 */
  char key_id[17];   /* the token's key id (np_agent_tls.h) */
};

const struct np_agent_channel *
np_agent_client_channel(const struct np_agent_client *c);

/* {"protocol", "cipher", "key_id"}; NULL on no memory. */
cJSON *np_agent_channel_json(const struct np_agent_channel *ch);

/* The offset of the agent's clock, by the "time" action: of n samples
 * (t0 = our CLOCK_REALTIME before the request, a = the agent's in its
 * answer, t1 = ours after it) the one of least round trip, offset = a -
 * (t0 + t1) / 2, rtt = t1 - t0; its error is at most rtt / 2. */
struct np_agent_clock {
  int64_t offset_ns;   /* agent clock - ours, best sample            */
  int64_t rtt_ns;      /* that sample's round trip                   */
  int64_t rtt_max_ns;  /* the largest round trip of the n            */
  int samples;         /* n                                          */
  char at[32];         /* our time of the best sample (RFC 3339 ms)  */
};

int np_agent_client_clock(struct np_agent_client *c, int n,
                          struct np_agent_clock *out, struct np_errbuf *eb);

/* {"offset_us", "rtt_us", "rtt_max_us", "samples", "at"}; NULL on no
 * memory. */
cJSON *np_agent_clock_json(const struct np_agent_clock *k);

/* This process's network stack: {"boot_id" (/proc/sys/kernel/random/
 * boot_id), "netns" (readlink /proc/self/ns/net), "hostname"}; values the
 * system does not show are null.  Two ends with the same boot id and
 * network namespace share one stack: not two hosts.  NULL on no memory
 * (np_agent_stack.c). */
cJSON *np_agent_stack_json(void);

/* Close the connection (the agent then stops the session's services).
 * Accepts NULL. */
void np_agent_client_close(struct np_agent_client *c);

#endif /* NP_AGENT_CLIENT_H */
