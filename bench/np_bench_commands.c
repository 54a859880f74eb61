/*
 * np_bench_commands.c - the netproof-bench command table (see
 * np_bench_commands.h).  Linked into netproof-bench and into the
 * documentation generator, which is why it is a file of its own and not
 * part of main.c.
 */
#include "np_bench_commands.h"

#include <string.h>

#include "np_agent.h"
#include "np_exec_cli.h"
#include "np_exec_options.h"
#include "np_matrix_cli.h"
#include "np_relay_cmd.h"
#include "np_rudp_cli.h"
#include "np_rudp_options.h"
#include "np_rudp_serve.h"
#include "np_udp_cli.h"
#include "np_udp_options.h"
#include "np_udp_serve.h"

const struct np_bench_command np_bench_commands[] = {
    {"udp", "UDP echo benchmark over loopback, or against anyone's echo server",
     np_udp_cli_main, &np_udp_optset},
    {"serve", "UDP echo server for anyone's client, bounded in time",
     np_udp_serve_main, &np_udp_serve_optset},
    {"rudp", "reliable-UDP benchmark through the emulating relay",
     np_rudp_cli_main, &np_rudp_optset},
    {"rudp-serve", "the reliable-UDP server endpoint alone, bounded in time",
     np_rudp_serve_main, &np_rudp_serve_optset},
    {"relay", "the link emulator as a standalone process, any transport",
     np_relay_cli_main, &np_relay_cmd_optset},
    {"exec", "any benchmark program, run once as evidence", np_exec_cli_main,
     &np_exec_optset},
    {"matrix", "run a whole suite plan, one process per repetition",
     np_matrix_cli_main, NULL},
    {"agent", "the far host's authenticated control daemon, bounded in time",
     np_agent_cli_main, &np_agent_optset},
};

const size_t np_bench_ncommands =
    sizeof np_bench_commands / sizeof np_bench_commands[0];

const struct np_bench_command *np_bench_command_find(const char *name) {
  for (size_t i = 0; i < np_bench_ncommands; i++)
    if (strcmp(np_bench_commands[i].name, name) == 0)
      return &np_bench_commands[i];
  return NULL;
}
