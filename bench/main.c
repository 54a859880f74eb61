/*
 * netproof-bench - thin dispatcher over the benchmark libraries.
 * Each subcommand's logic (argument parsing included) lives in its library
 * so tests can drive it directly; this file only picks one from the
 * command table (np_bench_commands.c), which also lists them in the usage.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "np_bench_commands.h"
#include "np_err.h"
#include "np_identity.h"
#include "np_opt.h"

static void usage(FILE *fp) {
  fputs("usage: netproof-bench <command> [options]\n"
        "\n"
        "commands:\n",
        fp);
  for (size_t i = 0; i < np_bench_ncommands; i++)
    fprintf(fp, "  %-9s %s\n", np_bench_commands[i].name,
            np_bench_commands[i].summary);
  fputs("\n"
        "  --help     this text\n"
        "  --version  version, source and binary SHA-256, library versions\n"
        "\n"
        "netproof-bench <command> --help lists a command's options;\n"
        "man netproof-bench-<command> describes it.\n"
        "\n"
        "exit codes: 0 passed, 1 a data check failed, 2 usage error,\n"
        "            3 environment or run-time error, 130/143 interrupted\n",
        fp);
}

int main(int argc, char **argv) {
  /* A reader that goes away (| head -1) must not kill a run half-way: a
   * write to it fails with EPIPE instead, and stderr's failures are not
   * an error (the run, its record and the suite still finish).  Children
   * get SIGPIPE back before exec (np_exec_spawn.c, np_matrix_rep.c ...). */
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    usage(stderr);
    return NP_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    usage(stdout);
    return NP_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    np_identity_print_version(stdout, "netproof-bench");
    return NP_EXIT_OK;
  }
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
