/*
 * np_udp_serve.h - `netproof-bench serve`: the udp engine's server alone,
 * a long-running echo server with the same backends for anyone's client.
 *
 * It only reads datagrams, echoes each one verbatim and counts; it reads
 * no control channel.  It stops on SIGINT/SIGTERM (its normal end) or at
 * --max-seconds (mandatory bound, default 600 s), then writes its record
 * (config.protocol "serve", schema $defs/serve) to --record: counters per
 * socket, kernel snapshots, machine, identity.  Options: one table
 * (np_udp_serve_optset), sharing the udp rows it has in common
 * (np_udp_rows.h).  Exit codes as every benchmark, except that the signal
 * that stops it is not an interruption: 0 when its checks pass.
 */
#ifndef NP_UDP_SERVE_H
#define NP_UDP_SERVE_H

#include <cjson/cJSON.h>

#include "np_bench_ctl_main.h"
#include "np_bench_opt.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_run.h"

extern const struct np_bench_optset np_udp_serve_optset;
extern const struct np_bench_kind np_udp_serve_kind;

/* The serve checks: every datagram echoed, no send errors, none cut, no
 * drops on the server sockets. */
void np_udp_serve_checks(const struct np_udp_result *res,
                         struct np_udp_checks *out);

/* The whole record; the signal that stopped the server is recorded as
 * serve.stopped_by, not as an interruption.  v may be NULL. */
int np_udp_serve_record_build(const struct np_udp_config *cfg,
                              const struct np_udp_result *res,
                              const struct np_udp_checks *checks, int argc,
                              char **argv, cJSON **out,
                              struct np_bench_verdict *v, struct np_errbuf *eb);

/* np_bench_ctl_main(&np_udp_serve_kind, argc, argv, NULL); argv[0] is
 * "serve". */
int np_udp_serve_main(int argc, char **argv);

#endif /* NP_UDP_SERVE_H */
