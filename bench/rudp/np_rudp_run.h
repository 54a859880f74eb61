/*
 * np_rudp_run.h - one `netproof-bench rudp` invocation: N rounds, each a
 * fresh topology (server socket, client sockets, ARQ connections, relay
 * seeded seed + round), warm-up, measurement, drain, orderly close.
 *
 * The calling thread is the controller (bench/core/np_bench_ctl.h): the
 * rounds sleep on its signalfd and take its kernel snapshots (a failed
 * snapshot fails the run).  Results are plain data owned by struct
 * np_rudp_result (model/rudp/np_rudp_result.h; free with
 * np_rudp_result_free); the record writer turns them into JSON.
 */
#ifndef NP_RUDP_RUN_H
#define NP_RUDP_RUN_H

#include "np_bench_ctl.h"
#include "np_err.h"
#include "np_rudp_config.h"
#include "np_rudp_result.h" /* the result, plain data (model/rudp) */

/* Run every round under the controller ctl (opened by the caller, see
 * np_bench_ctl_open); a signal ends the current round and no further one
 * starts, but the first round always runs (briefly, if the signal came
 * before it).  Returns 0 when the rounds ran (checks may still have
 * failed; free with np_rudp_result_free), or a negative code for
 * environment errors (detail in eb; *res then holds nothing to free). */
int np_rudp_run(const struct np_rudp_config *cfg, struct np_bench_ctl *ctl,
                struct np_rudp_result *res, struct np_errbuf *eb);
void np_rudp_result_free(struct np_rudp_result *res); /* accepts NULL */

/* Evaluate the six checks of one round (fills r->checks, r->failed) with
 * np_rudp_checks_eval over the round's counters. */
void np_rudp_round_checks(struct np_rudp_round *r, int unordered);

#endif /* NP_RUDP_RUN_H */
