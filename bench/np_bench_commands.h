/*
 * np_bench_commands.h - the subcommands of netproof-bench, one row each:
 * its name, a one-line summary, its entry point and its option table.
 * bench/main.c dispatches over the table and lists it in its usage; the
 * build's documentation generator (tools/docgen/np_docgen.c) writes each row's man
 * page and the bash completion from the same rows and option tables.  So
 * a new command is one row here: dispatch, usage line, man page and
 * completion follow from it (tests/install checks every command listed by
 * `netproof-bench --help` has its page).
 */
#ifndef NP_BENCH_COMMANDS_H
#define NP_BENCH_COMMANDS_H

#include <stddef.h>

#include "np_bench_opt.h"

struct np_bench_command {
  const char *name;                   /* "udp": argv[1] of netproof-bench */
  const char *summary;                /* one line, lower case, no period  */
  int (*main)(int argc, char **argv); /* called with argv[0] == name      */
  const struct np_bench_optset *opts; /* its option table, or NULL when it
                                         parses by hand (matrix): then its
                                         man page is written by hand and
                                         tested against its --help       */
};

/* The commands in the order usage lists them. */
extern const struct np_bench_command np_bench_commands[];
extern const size_t np_bench_ncommands;

/* The row named name, or NULL. */
const struct np_bench_command *np_bench_command_find(const char *name);

#endif /* NP_BENCH_COMMANDS_H */
