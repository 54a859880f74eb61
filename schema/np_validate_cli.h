/*
 * np_validate_cli.h - netproof-validate's command line: its option table
 * (common/np_bench_opt.h: the parser, --help, the man page's OPTIONS and
 * the completion) and the program itself, so main() is one call and the
 * documentation generator reads the same rows.
 */
#ifndef NP_VALIDATE_CLI_H
#define NP_VALIDATE_CLI_H

#include "np_bench_opt.h"

/* --schema --check-schemas --output --max-bytes (hidden) --help
 * --version, operands FILE... */
extern const struct np_bench_optset np_validate_optset;

/* The whole program: exit 0 all valid, 1 some invalid, 2 usage or
 * unreadable input, 3 run-time error. */
int np_validate_cli_main(int argc, char **argv);

#endif /* NP_VALIDATE_CLI_H */
