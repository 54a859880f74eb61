/*
 * np_agent_cli.c - `netproof-bench agent`: parse through the option table,
 * run the daemon, map the outcome to an exit code (see np_agent.h).
 */
#include <stdio.h>

#include "np_agent.h"

#define PROG "netproof-bench agent"

int np_agent_cli_main(int argc, char **argv) {
  struct np_agent_config cfg;
  struct np_errbuf eb = {{0}};
  int help = 0;
  int rc = np_agent_parse(argc, argv, &cfg, &help, &eb);
  if (help) {
    np_bench_opt_help(&np_agent_optset, stdout);
    return NP_EXIT_OK;
  }
  if (rc != 0) {
    fprintf(stderr, PROG ": %s (try --help)\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  rc = np_agent_run(&cfg, &eb);
  if (rc == 0)
    return NP_EXIT_OK;
  fprintf(stderr, PROG ": %s\n", eb.msg[0] ? eb.msg : np_strerror(rc));
  /* a refused token file or address is the user's input (NP_EUSAGE); the
   * rest is the environment */
  return rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
}
