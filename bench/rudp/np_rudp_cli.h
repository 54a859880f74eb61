/*
 * np_rudp_cli.h - `netproof-bench rudp`: parse options, run the benchmark
 * rounds through the relay, write the record.  argv[0] is "rudp".
 * Returns a process exit code (NP_EXIT_*, or 130/143 on SIGINT/SIGTERM).
 */
#ifndef NP_RUDP_CLI_H
#define NP_RUDP_CLI_H

int np_rudp_cli_main(int argc, char **argv);

#endif /* NP_RUDP_CLI_H */
