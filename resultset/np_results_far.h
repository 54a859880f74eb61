/*
 * np_results_far.h - the self-check's rules for two-host records (udp
 * --agent: a udp-external record with a "far" part), independent of the
 * engine that walks the set: the engine hands each record to
 * np_results_far_check with a callback, one call per problem.
 *
 * What it re-derives from the record alone:
 *   - a udp --agent record (udp-external with config.agent) has its far
 *     part (the agent's client writes it or no record at all);
 *   - two machine identities: machine (this host) and far.machine (the
 *     agent's), each tied to its network stack (hostname), and the
 *     far_two_stacks verdict from the two stacks (same boot id and network
 *     namespace = one stack);
 *   - the far kernel delta as after - before for every counter it names;
 *   - the embedded server record: a serve record, listening where the
 *     target was, on the far machine (identity fields) and by the far
 *     tool (hashes); far_server_served_run and far_server_passed verdicts
 *     from it;
 *   - the whole run's legs from both hosts' counters (this record's
 *     warm-up and measurement, the server record's counters and sockets),
 *     and the far_legs_attributed verdict;
 *   - the server socket the attribution used is the server's;
 *   - the clocks: the server's life, mapped through the measured offsets,
 *     encloses this run, and so do the far snapshots, within half the
 *     largest round trip plus the timestamps' millisecond.
 *
 * A rudp --agent record (config.protocol rudp with config.agent, far part
 * $defs/rudp_far) has its far part too, and from it: the control channel
 * as above; the embedded rudp-serve record of the far machine and build,
 * listening where far.server says, with this run's transport (payload,
 * clients, window, seed, fec, cc, delivery), stopped by the agent after
 * the run, its status its checks'; the round's server_received and
 * server_replied its received and echoed, the round's connections this
 * run's clients plus its connections (errors and failures at least its);
 * with far.relay, the relay's record forwarding to the endpoint, and what
 * it forwarded = what the endpoint's socket read + dropped; the clocks.
 */
#ifndef NP_RESULTS_FAR_H
#define NP_RESULTS_FAR_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* One problem at JSON pointer ptr of the record; reason valid only
 * during the call. */
typedef void (*np_results_far_fn)(void *ctx, const char *ptr,
                                  const char *reason);

/* Check record d; returns the number of problems reported (0 for records
 * without a far part that need none: any but udp-external with
 * config.agent). */
size_t np_results_far_check(const cJSON *d, np_results_far_fn fn, void *ctx);

#endif /* NP_RESULTS_FAR_H */
