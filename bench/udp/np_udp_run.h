/*
 * np_udp_run.h - run one UDP echo benchmark and return what happened.
 *
 * np_udp_run() opens the sockets, runs the phases (warm-up, warm-up drain,
 * measurement, drain) on the IO model's threads and fills a result
 * (model/udp/np_udp_result.h) that np_udp_checks and np_udp_record turn
 * into checks and the run record.
 * The calling thread is the controller (bench/core/np_bench_ctl.h): it
 * already blocks SIGINT/SIGTERM and reads them through the controller's
 * signalfd, so no handler and no global state is needed; a signal ends the
 * current phase and is reported in result->run.signal.
 */
#ifndef NP_UDP_RUN_H
#define NP_UDP_RUN_H

#include <stdint.h>

#include "np_bench_ctl.h"
#include "np_err.h"
#include "np_udp_config.h"
#include "np_udp_result.h" /* the result, plain data (model/udp) */

/* Record one refused send under its errno (first NP_UDP_MAX_ERRNOS kinds;
 * further kinds are folded into the last slot). */
void np_udp_counters_note_errno(struct np_udp_counters *c, int errnum,
                                uint64_t n);
void np_udp_counters_add(struct np_udp_counters *dst,
                         const struct np_udp_counters *src);

/* Run the benchmark under the controller ctl (opened by the caller, see
 * np_bench_ctl_open).  cfg->mode picks the ends: both (loopback); the
 * clients alone against cfg->address:port, whose socket and process are
 * observed through /proc (res->target); or the server alone bound to
 * cfg->address:port, serving until a signal or cfg->max_seconds (one
 * measured phase, no warm-up, no drain).  On success *res is filled (free with
 * np_udp_result_free) - also for runs whose data checks will fail.
 * Returns NP_E* for environment failures (sockets, threads, memory, a
 * kernel snapshot); *res then holds nothing to free. */
int np_udp_run(const struct np_udp_config *cfg, struct np_bench_ctl *ctl,
               struct np_udp_result *res, struct np_errbuf *eb);

void np_udp_result_free(struct np_udp_result *res); /* accepts NULL */

#endif /* NP_UDP_RUN_H */
