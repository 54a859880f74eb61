/*
 * np_agent_udp.h - the far side of `netproof-bench udp --agent HOST:PORT
 * --token-file FILE`: the udp engine runs its clients here (as with
 * --connect) against a `serve` the agent on the far host starts, and this
 * module brings back that host's evidence so one record holds both
 * machines (docs/agent.md, formats.md "The far part").
 *
 *   begin   token, session, the agent's identity and network stack, its
 *           clock (offset and round trip, best of 8 samples), a serve on
 *           the agent's address with the run's backend, work and buffers;
 *           cfg's port becomes the server's - or, with --agent-relay, the
 *           port of the relay the agent starts in front of it
 *           (np_agent_udp_relay.h)
 *   hook    the controller's snapshot seam (np_bench_ctl_hooks): at each
 *           of the run's two kernel snapshots (measurement start, end of
 *           its drain) this host's snapshot, then the far host's kernel
 *           counters and the server's socket rows as the agent reads them
 *           (the first time with the processes holding them) - so the
 *           udp-external attribution knows the server socket's drops over
 *           exactly the measured window (np_udp_target remote_observed)
 *   end     the relay (if any) then the serve stopped by the agent, their
 *           own records fetched, the clock measured again, the session
 *           closed
 *   checks  two network stacks, the server served the whole run and
 *           passed its own checks, the whole run's loss split per leg and
 *           per host adds up
 *   record  the "far" section
 *
 * Ownership: begin returns an object the caller frees with
 * np_agent_udp_free; cfg->connect then points into it.
 */
#ifndef NP_AGENT_UDP_H
#define NP_AGENT_UDP_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_kernel.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_run.h"

struct np_agent_udp;

/* Session and far server for cfg (mode CLIENT, cfg->agent and
 * cfg->token_file set).  NP_EUSAGE: the token file is refused (exit 2);
 * other codes: the agent is unreachable, refuses, or its server did not
 * start (exit 3); one line in eb. */
int np_agent_udp_begin(struct np_udp_config *cfg, struct np_agent_udp **out,
                       struct np_errbuf *eb);

/* Where the hook writes the far rows: the run's result (its target is
 * created by np_udp_run before the first snapshot). */
void np_agent_udp_attach(struct np_agent_udp *au, struct np_udp_result *res);

/* The snapshot hook: this host's np_kernel_take, then the far host's.
 * A far snapshot that cannot be taken fails like a kernel snapshot (the
 * run ends, exit 3); np_agent_udp_error says why. */
int np_agent_udp_kernel_take(void *au, struct np_kernel **out);

/* Why the last hook call failed ("" when it did not). */
const char *np_agent_udp_error(const struct np_agent_udp *au);

/* After np_udp_run: stop the server, fetch its record, measure the clock,
 * end the session.  NP_E* when the agent fails (exit 3). */
int np_agent_udp_end(struct np_agent_udp *au, struct np_errbuf *eb);

/* Append the far checks to cs (which holds the udp-external ones). */
void np_agent_udp_checks(const struct np_agent_udp *au,
                         const struct np_udp_result *res,
                         struct np_udp_checks *cs);

/* Add the "far" section to a udp-external record.  NP_ENOMEM. */
int np_agent_udp_record(const struct np_agent_udp *au,
                        const struct np_udp_result *res, cJSON *doc,
                        struct np_errbuf *eb);

/* "host (stack netns:[...]) serve pid N: received R, echoed E", for the
 * summary line. */
void np_agent_udp_text(const struct np_agent_udp *au, char *buf, size_t len);

void np_agent_udp_free(struct np_agent_udp *au); /* accepts NULL */

#endif /* NP_AGENT_UDP_H */
