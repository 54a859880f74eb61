/*
 * np_bench_commands.c - the netproof-bench command table and the option
 * table of netproof-bench itself (see np_bench_commands.h).  Linked into
 * netproof-bench and into the documentation generator, which is why it is
 * a file of its own and not part of main.c.
 */
#include "np_bench_commands.h"

#include <stdio.h>
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
     np_matrix_cli_main, &np_matrix_optset},
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

/* netproof-bench's own options: asked for instead of a command. */
static const struct np_bench_opt top_opts[] = {
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the commands and exit", .flags = NP_BENCH_OPT_HELP},
    {.name = "version", .type = NP_BENCH_OPT_FLAG,
     .help = "print the version, the source and binary SHA-256, the "
             "compiler and the run-time library versions, and exit",
     .flags = NP_BENCH_OPT_VERSION},
};

static const struct np_bench_opt_section top_sections[] = {
    {NULL, top_opts, sizeof top_opts / sizeof top_opts[0], 0},
};

const struct np_bench_optset np_bench_top_optset = {
    .program = "netproof-bench",
    .command = "",
    .operands = "<command> [command options]",
    .summary = "UDP and reliable-UDP benchmarks that write checkable "
               "evidence.\n",
    .doc = "README.md",
    .exits = "exit codes: 0 passed, 1 a data check failed, 2 usage error,\n"
             "            3 environment or run-time error, 130/143 "
             "interrupted\n",
    .sections = top_sections,
    .nsections = sizeof top_sections / sizeof top_sections[0],
    .cfg_size = sizeof(int), /* the options store nothing: an int stands
                                 in for the configuration             */
};

void np_bench_usage(FILE *fp) {
  const struct np_bench_optset *s = &np_bench_top_optset;
  fprintf(fp, "usage: %s %s\n       %s --help | --version\n%s\n"
              "commands:\n",
          s->program, s->operands, s->program, s->summary);
  for (size_t i = 0; i < np_bench_ncommands; i++)
    fprintf(fp, "  %-9s %s\n", np_bench_commands[i].name,
            np_bench_commands[i].summary);
  fputs("\noptions:\n", fp);
  np_bench_opt_help_rows(s, fp);
  fprintf(fp, "\n%s <command> --help lists a command's options;\n"
              "man %s-<command> describes it.\n\n%s",
          s->program, s->program, s->exits);
}
