/*
 * np_report_cli.h - the netproof-report command line (docs/report.md).
 */
#ifndef NP_REPORT_CLI_H
#define NP_REPORT_CLI_H

/* Parse argv and run; returns the process exit code (NP_EXIT_*). */
int np_report_cli(int argc, char **argv);

#endif /* NP_REPORT_CLI_H */
