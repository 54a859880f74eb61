/*
 * np_matrix_cli.h - `netproof-bench matrix` argument parsing and exit codes.
 */
#ifndef NP_MATRIX_CLI_H
#define NP_MATRIX_CLI_H

/* argv[0] is "matrix".  Exit codes: 0 every selected configuration passed
 * (or failed as its plan expected), 1 some configuration failed or passed
 * against expectation, 2 usage error or bad input (plan, output folder,
 * a folder another runner holds), 3 run-time error (any error once the
 * runner started writing the folder), 130/143 interrupted by
 * SIGINT/SIGTERM. */
int np_matrix_cli_main(int argc, char **argv);

#endif /* NP_MATRIX_CLI_H */
