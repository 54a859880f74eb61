/*
 * np_udp_cli.h - `netproof-bench udp`: options -> struct np_udp_config ->
 * run -> checks -> record.  bench/main.c calls np_udp_cli_main with
 * argv[0] == "udp".
 *
 * Exit codes: 0 every check passed; 1 a data check failed (the record is
 * still written, status "failed"); 2 usage error; 3 environment or
 * run-time error; 130/143 interrupted by SIGINT/SIGTERM (record written
 * with status "interrupted").
 */
#ifndef NP_UDP_CLI_H
#define NP_UDP_CLI_H

#include "np_bench_ctl_main.h"
#include "np_err.h"
#include "np_udp_config.h"

/* Parse argv[1..argc) into cfg with the udp option table (np_udp_optset:
 * defaults first, then the options, then the cross-field rules).  Returns
 * 0, or NP_EUSAGE with one line in eb.  *help is set to 1 when --help was
 * given. */
int np_udp_cli_parse(int argc, char **argv, struct np_udp_config *cfg,
                     int *help, struct np_errbuf *eb);

/* The udp kind of the shared flow (tests drive it with a controller
 * seam: np_bench_ctl_main(&np_udp_bench_kind, argc, argv, &hooks)). */
extern const struct np_bench_kind np_udp_bench_kind;

/* np_bench_ctl_main(&np_udp_bench_kind, argc, argv, NULL). */
int np_udp_cli_main(int argc, char **argv);

#endif /* NP_UDP_CLI_H */
