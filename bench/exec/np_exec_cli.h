/*
 * np_exec_cli.h - `netproof-bench exec [options] -- PROGRAM [ARGS...]`:
 * any benchmark program run once as evidence (docs/guides/any-benchmark.md).
 * bench/main.c calls np_exec_cli_main with argv[0] == "exec".
 *
 * Exit codes: 0 every check passed; 1 a check failed (the program timed
 * out, exited unexpectedly or by a signal, its output was cut, a metric is
 * missing or out of bounds; the record is still written, status "failed");
 * 2 usage error (nothing run, nothing written); 3 environment error;
 * 130/143 interrupted (the program is killed, the record written with
 * status "interrupted").
 */
#ifndef NP_EXEC_CLI_H
#define NP_EXEC_CLI_H

#include "np_bench_ctl_main.h"
#include "np_err.h"
#include "np_exec_config.h"

/* Parse argv (argv[0] = "exec") into cfg: the options before "--" with
 * the exec option table, then PROGRAM [ARGS...] (np_exec_config_program).
 * *help = 1 for --help.  0, or NP_EUSAGE with one line in eb. */
int np_exec_cli_parse(int argc, char **argv, struct np_exec_config *cfg,
                      int *help, struct np_errbuf *eb);

/* The exec kind of the shared flow. */
extern const struct np_bench_kind np_exec_bench_kind;

/* np_bench_ctl_main(&np_exec_bench_kind, argc, argv, NULL). */
int np_exec_cli_main(int argc, char **argv);

#endif /* NP_EXEC_CLI_H */
