/*
 * np_matrix_services.h - the processes a suite plan starts for the
 * duration of the suite (plan "services": `netproof-bench serve`, iperf3
 * -s, sockperf server, any command), so its configurations can measure
 * them (`udp --connect`).
 *
 * Each service is started before the first repetition, in its own process
 * group, dying with the runner (PR_SET_PDEATHSIG); the runner waits until
 * its readiness check holds (a UDP socket bound, a TCP port accepting, or
 * a UDP echo answering; bounded), stops it at the end (SIGTERM to its
 * group, then SIGKILL after stop_timeout_seconds) and, between
 * repetitions, once its lifetime_seconds are over.  Its files stay with
 * the suite under DIR/services/<name>/: service.txt (command, pid, times,
 * readiness, how it ended), output.txt (its stdout and stderr) and
 * whatever the command writes into {dir} (serve's --record).  Layout and
 * fields: docs/results-layout.md.
 */
#ifndef NP_MATRIX_SERVICES_H
#define NP_MATRIX_SERVICES_H

#include <signal.h>
#include <stdio.h>

#include "np_err.h"
#include "np_matrix_plan.h"

struct np_matrix_services;

/* Start every service of p and wait until each is ready.  binary replaces
 * "{bench}" in commands, DIR/services/<name> replaces "{dir}"; envp is the
 * children's environment, oldmask the signal mask they get.  On success
 * *out owns them (NULL when the plan has none).  A service that cannot be
 * started, exits early or is not ready in time is stopped with the others
 * and returned as NP_ECHILD / NP_ETIMEDOUT with one line in eb naming it,
 * its check and its output file. */
int np_matrix_services_start(const struct np_matrix_plan *p,
                             const char *out_dir, const char *binary,
                             char *const *envp, const sigset_t *oldmask,
                             struct np_matrix_services **out,
                             struct np_errbuf *eb);

/* Between repetitions: stop the services whose lifetime is over, and note
 * those that ended by themselves.  Accepts NULL. */
void np_matrix_services_check(struct np_matrix_services *s);

/* Stop every service still running, write each service.txt with how it
 * ended, free.  Accepts NULL. */
void np_matrix_services_stop(struct np_matrix_services *s);

/* --dry-run: one line per service (name, command, readiness, bounds). */
void np_matrix_services_describe(const struct np_matrix_plan *p,
                                 const char *binary, FILE *out);

#endif /* NP_MATRIX_SERVICES_H */
