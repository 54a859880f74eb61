/*
 * np_archive_cli.h - netproof-archive's command line: one option table
 * for every command (common/np_bench_opt.h: the parser, --help, the man
 * page's OPTIONS and the completion) and the program, so main() is one
 * call and the documentation generator reads the same rows.
 */
#ifndef NP_ARCHIVE_CLI_H
#define NP_ARCHIVE_CLI_H

#include "np_bench_opt.h"

/* --output (-o, --out) --key --pubkey --sig -C --name --allow-incomplete
 * --zlib, the limits, --help (-h) --version; operands COMMAND ARGS... */
extern const struct np_bench_optset np_archive_optset;

/* The whole program (exit codes in np_archive_cli.c's header). */
int np_archive_cli_main(int argc, char **argv);

#endif /* NP_ARCHIVE_CLI_H */
