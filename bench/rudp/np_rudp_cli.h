/*
 * np_rudp_cli.h - `netproof-bench rudp`: parse options, run the benchmark
 * rounds through the relay, write the record.  argv[0] is "rudp".
 * Returns a process exit code (NP_EXIT_*, or 130/143 on SIGINT/SIGTERM).
 */
#ifndef NP_RUDP_CLI_H
#define NP_RUDP_CLI_H

#include "np_bench_ctl_main.h"

/* The rudp kind of the shared flow (tests drive it with a controller
 * seam: np_bench_ctl_main(&np_rudp_bench_kind, argc, argv, &hooks)). */
extern const struct np_bench_kind np_rudp_bench_kind;

/* np_bench_ctl_main(&np_rudp_bench_kind, argc, argv, NULL). */
int np_rudp_cli_main(int argc, char **argv);

#endif /* NP_RUDP_CLI_H */
