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
#include <stdio.h>

#include "np_bench_opt.h"

struct np_bench_command {
  const char *name;                   /* "udp": argv[1] of netproof-bench */
  const char *summary;                /* one line, lower case, no period  */
  int (*main)(int argc, char **argv); /* called with argv[0] == name      */
  const struct np_bench_optset *opts; /* its option table: parser, --help,
                                         man page OPTIONS, completion    */
};

/* The commands in the order usage lists them. */
extern const struct np_bench_command np_bench_commands[];
extern const size_t np_bench_ncommands;

/* The row named name, or NULL. */
const struct np_bench_command *np_bench_command_find(const char *name);

/* The options of netproof-bench itself, before any command (--help, -h,
 * --version): its man page's OPTIONS and completion come from them. */
extern const struct np_bench_optset np_bench_top_optset;

/* `netproof-bench --help`: the usage lines, the commands of the table
 * with their summaries, the options of np_bench_top_optset, exit codes. */
void np_bench_usage(FILE *fp);

#endif /* NP_BENCH_COMMANDS_H */
