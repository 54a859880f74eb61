/*
 * np_matrix_cli.h - `netproof-bench matrix`: its option table, argument
 * parsing and exit codes.
 */
#ifndef NP_MATRIX_CLI_H
#define NP_MATRIX_CLI_H

#include "np_bench_opt.h"
#include "np_matrix.h"

/* What the command line fills: the runner's options and where to look a
 * plan name up (np_matrix_find.h). */
struct np_matrix_cli_cfg {
  struct np_matrix_opts o; /* everything but plan_path                  */
  const char *plans_dir;   /* --plans-dir DIR, or NULL                  */
};

/* The option table of `netproof-bench matrix` (np_matrix_options.c):
 * its parser, --help, man page OPTIONS and completion. */
extern const struct np_bench_optset np_matrix_optset;

/* argv[0] is "matrix".  Exit codes: 0 every selected configuration passed
 * (or failed as its plan expected), 1 some configuration failed or passed
 * against expectation, 2 usage error or bad input (plan, output folder,
 * a folder another runner holds), 3 run-time error (any error once the
 * runner started writing the folder), 130/143 interrupted by
 * SIGINT/SIGTERM. */
int np_matrix_cli_main(int argc, char **argv);

#endif /* NP_MATRIX_CLI_H */
