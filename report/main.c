/*
 * main.c - netproof-report: argument parsing over np_report (see
 * docs/report.md).  Exit codes: 0 done / clean, 1 self-check problems,
 * 2 usage error or unreadable input, 3 run-time error (plotting, writing).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "np_report_cli.h"

int main(int argc, char **argv) {
  /* a closed reader (| head -1) is EPIPE on a write, not death */
  signal(SIGPIPE, SIG_IGN);
  /* plplot must never wait for a keypress or a device name. */
  if (freopen("/dev/null", "r", stdin) == NULL)
    fclose(stdin);
  return np_report_cli(argc, argv);
}
