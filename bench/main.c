/*
 * netproof-bench - thin dispatcher over the benchmark libraries.
 * Each subcommand's logic (argument parsing included) lives in its library
 * so tests can drive it directly; this file only picks one from the
 * command table (np_bench_commands.c), which also lists them in the usage,
 * and parses netproof-bench's own options (--help, --version) through
 * their table there (np_bench_top_optset).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "np_bench_commands.h"
#include "np_err.h"
#include "np_identity.h"
#include "np_opt.h"

/* argv[1] starts with '-': netproof-bench's own option (its table), or a
 * usage error.  Returns the exit code. */
static int top_option(char **argv) {
  struct np_errbuf eb = {{0}};
  int help = 0, first = 2;
  int cfg = 0; /* the options store nothing (np_bench_top_optset) */
  if (np_bench_opt_parse_operands(&np_bench_top_optset, 2, argv, &cfg, &help,
                                  &first, &eb) != 0) {
    fprintf(stderr, "netproof-bench: %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  if (help == 1) {
    np_bench_usage(stdout);
    return NP_EXIT_OK;
  }
  if (help == 2) {
    np_identity_print_version(stdout, "netproof-bench");
    return NP_EXIT_OK;
  }
  return -1; /* "-" or "--": neither an option nor a command */
}

int main(int argc, char **argv) {
  /* A reader that goes away (| head -1) must not kill a run half-way: a
   * write to it fails with EPIPE instead, and stderr's failures are not
   * an error (the run, its record and the suite still finish).  Children
   * get SIGPIPE back before exec (np_exec_spawn.c, np_matrix_rep.c ...). */
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    np_bench_usage(stderr);
    return NP_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  int st = cmd[0] == '-' ? top_option(argv) : -1;
  if (st >= 0)
    return st;
  const struct np_bench_command *c = np_bench_command_find(cmd);
  if (c != NULL)
    return c->main(argc - 1, argv + 1);
  const char *names[64];
  size_t n = 0;
  for (size_t i = 0; i < np_bench_ncommands && n < 64; i++)
    names[n++] = np_bench_commands[i].name;
  struct np_errbuf eb = {{0}};
  np_opt_unknown(&eb, cmd[0] == '-' ? "option" : "command", cmd, names, n);
  fprintf(stderr, "netproof-bench: %s\n", eb.msg);
  return NP_EXIT_USAGE;
}
