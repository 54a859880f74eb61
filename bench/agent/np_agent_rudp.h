/*
 * np_agent_rudp.h - the far side of `netproof-bench rudp --agent
 * HOST:PORT --token-file FILE`: the agent on the far host starts the
 * server endpoint (`rudp-serve`, and with --agent-relay a relay in front
 * of it, np_agent_udp_relay.h), the clients run here against it (role
 * CLIENT, as with --connect), and the far endpoint's own record comes
 * back into this one (docs/agent.md "rudp across hosts").
 *
 *   begin  token, session, identity, network stack and clock of the far
 *          host; rudp-serve started with the transport options of this
 *          command line (the same rows, so both ends build the same ARQ
 *          and FEC) and its seed; cfg->connect set to where it (or its
 *          relay) listens
 *   end    relay then server stopped by the agent, their records
 *          fetched, the clock measured again, the session closed
 *   fold   the far endpoint's whole-life counters and connections into
 *          the round (server_received, server_replied, its content,
 *          order and send errors, its connections' shutdown), the checks
 *          evaluated again: every check then covers both hosts
 *   record the "far" section ($defs/rudp_far)
 *
 * Ownership: begin returns an object freed with np_agent_rudp_free;
 * cfg->connect then points into it.
 */
#ifndef NP_AGENT_RUDP_H
#define NP_AGENT_RUDP_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_rudp_config.h"
#include "np_rudp_run.h"

struct np_agent_rudp;

/* Session and far server endpoint for cfg (cfg->agent, cfg->token_file
 * set; argv is the rudp command line whose transport options the far end
 * gets).  NP_EUSAGE: the token file or an option is refused (exit 2);
 * other codes: the agent is unreachable or its server did not start. */
int np_agent_rudp_begin(struct np_rudp_config *cfg, int argc, char **argv,
                        struct np_agent_rudp **out, struct np_errbuf *eb);

/* After np_rudp_run: stop the relay and the server, fetch their records,
 * measure the clock.  NP_E* when the agent fails (exit 3). */
int np_agent_rudp_end(struct np_agent_rudp *ar, struct np_errbuf *eb);

/* The far endpoint's counts into round r (see above); NP_EPARSE when its
 * record lacks them (the run then fails: nothing is assumed). */
int np_agent_rudp_fold(const struct np_agent_rudp *ar, struct np_rudp_round *r,
                       int unordered, struct np_errbuf *eb);

/* Add the "far" section to a rudp record.  NP_ENOMEM. */
int np_agent_rudp_record(const struct np_agent_rudp *ar, cJSON *doc,
                         struct np_errbuf *eb);

void np_agent_rudp_free(struct np_agent_rudp *ar); /* accepts NULL */

#endif /* NP_AGENT_RUDP_H */
