/*
 * np_report_cli.h - the netproof-report command line (docs/report.md).
 */
#ifndef NP_REPORT_CLI_H
#define NP_REPORT_CLI_H

#include "np_bench_opt.h"

/* The option table of the report itself (merge and compare have their
 * own): --results --label --output --format --link-runs --pages-format
 * --title --lang --plans --force --error-bars --self-check --pages
 * --help (-h) --version.  It drives the parser, --help, the man page's
 * OPTIONS and the completion. */
extern const struct np_bench_optset np_report_optset;

/* Parse argv and run; returns the process exit code (NP_EXIT_*). */
int np_report_cli(int argc, char **argv);

#endif /* NP_REPORT_CLI_H */
