/*
 * np_agent_relay_args.h - the LIST of `--agent-relay LIST` (udp and rudp
 * with --agent): relay options as NAME=VALUE (or NAME alone, a flag)
 * separated by commas, turned into the agent's "start" request for a
 * relay.  Pure (no session, no socket): the option tables' setter checks
 * the list's form at parse time, in the benchmark and in the plan and
 * self-check code alike; the agent's allowlist judges the options
 * themselves (bench/agent/np_agent_udp_relay.h starts the relay).
 */
#ifndef NP_AGENT_RELAY_ARGS_H
#define NP_AGENT_RELAY_ARGS_H

#include <cjson/cJSON.h>

#include "np_bench_opt.h"
#include "np_err.h"

/* The relay options of list into a start request for a relay listening on
 * listen and forwarding to forward, for lifetime seconds.  NP_EUSAGE
 * naming --agent-relay for a malformed list or one that sets listen or
 * forward. */
int np_agent_udp_relay_args(const char *list, const char *listen,
                            const char *forward, double lifetime,
                            cJSON **args, struct np_errbuf *eb);

/* The option-table setter of --agent-relay LIST (udp's and rudp's rows):
 * the list's form checked by np_agent_udp_relay_args, then stored; the
 * agent's allowlist judges the options themselves. */
int np_agent_udp_relay_opt_set(void *sec, const struct np_bench_opt *o,
                               const struct np_bench_val *v,
                               struct np_errbuf *eb);

#endif /* NP_AGENT_RELAY_ARGS_H */
