/*
 * netproof-bench - thin dispatcher over the benchmark libraries.
 * Each subcommand's logic (argument parsing included) lives in its library
 * so tests can drive it directly; this file only picks one.
 */
#include <stdio.h>
#include <string.h>

#include "np_err.h"
#include "np_exec_cli.h"
#include "np_identity.h"
#include "np_matrix_cli.h"
#include "np_rudp_cli.h"
#include "np_udp_cli.h"
#include "np_udp_serve.h"

static void usage(FILE *fp) {
  fputs("usage: netproof-bench <command> [options]\n"
        "\n"
        "commands:\n"
        "  udp       UDP echo benchmark over loopback (see udp --help);\n"
        "            udp --connect HOST:PORT measures anyone's echo server\n"
        "  serve     UDP echo server for anyone's client, bounded in time\n"
        "  rudp      reliable-UDP benchmark through the emulating relay\n"
        "  exec      any benchmark program, run once as evidence\n"
        "  matrix    run a whole suite plan, one process per repetition\n"
        "\n"
        "  --help     this text\n"
        "  --version  version, source and binary SHA-256, library versions\n"
        "\n"
        "exit codes: 0 passed, 1 a data check failed, 2 usage error,\n"
        "            3 environment or run-time error, 130/143 interrupted\n",
        fp);
}

int main(int argc, char **argv) {
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
  if (strcmp(cmd, "udp") == 0)
    return np_udp_cli_main(argc - 1, argv + 1);
  if (strcmp(cmd, "serve") == 0)
    return np_udp_serve_main(argc - 1, argv + 1);
  if (strcmp(cmd, "rudp") == 0)
    return np_rudp_cli_main(argc - 1, argv + 1);
  if (strcmp(cmd, "exec") == 0)
    return np_exec_cli_main(argc - 1, argv + 1);
  if (strcmp(cmd, "matrix") == 0)
    return np_matrix_cli_main(argc - 1, argv + 1);
  fprintf(stderr, "netproof-bench: unknown command '%s' (try --help)\n", cmd);
  return NP_EXIT_USAGE;
}
