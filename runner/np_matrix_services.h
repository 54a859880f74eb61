/*
 * np_matrix_services.h - the processes a suite plan starts for the
 * duration of the suite (plan "services": `netproof-bench serve`, iperf3
 * -s, sockperf server, any command), so its configurations can measure
 * them (`udp --connect`).
 *
 * Each service is started before the first repetition, in its own process
 * group, dying with the runner (PR_SET_PDEATHSIG); the runner waits until
 * its readiness check holds for the service's own process (a UDP socket
 * bound, a TCP port listening and accepting, or a UDP echo answering -
 * and every socket there held by the service or its descendants, never
 * by a process that had the port before: np_matrix_services_int.h;
 * bounded).  Before and after every repetition the runner looks again: a
 * service that ended, or whose address another process holds, or (before
 * a repetition) that does not hold it again in ready_timeout_seconds,
 * fails the suite -
 * the repetition it ended in is not counted (its record goes to kept/),
 * the rest are not run, and the matrix exits 3 naming it and its exit
 * status.  So does a service whose lifetime_seconds run out before the
 * suite ends.  At the end it is stopped (SIGTERM to its group, then
 * SIGKILL after stop_timeout_seconds).  suite.json's session records
 * each service (command, pid, exe SHA-256, ready_at, ended_at, how it
 * ended and by whom) and the self-check holds every passed repetition to
 * the window where its services were ready and alive.  Its files stay
 * with the suite under DIR/services/<name>/: service.txt (command, pid,
 * times, readiness, how it ended), output.txt (its stdout and stderr) and
 * whatever the command writes into {dir} (serve's --record).  Layout and
 * fields: docs/results-layout.md.
 */
#ifndef NP_MATRIX_SERVICES_H
#define NP_MATRIX_SERVICES_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

struct np_matrix_services;

/* Start every service of p and wait until each is ready.  binary replaces
 * "{bench}" in commands, DIR/services/<name> replaces "{dir}"; envp is the
 * children's environment, oldmask the signal mask they get.  *out owns
 * them (NULL when the plan has none), also on failure, so their records
 * are kept: the caller always ends with np_matrix_services_stop.  A
 * service that cannot be started, exits early or is not ready in time
 * (the port held by another process is named) is stopped with the others
 * and returned as NP_ECHILD / NP_ETIMEDOUT with one line in eb naming
 * it, its check and its output file. */
int np_matrix_services_start(const struct np_matrix_plan *p,
                             const char *out_dir, const char *binary,
                             char *const *envp, const sigset_t *oldmask,
                             struct np_matrix_services **out,
                             struct np_errbuf *eb);

/* 1, with one line in why, when a service ended by itself or another
 * process holds its ready address (looked up, nothing sent), now or
 * before; 0 when all still run (or s is NULL).  After every repetition. */
int np_matrix_services_lost(struct np_matrix_services *s, char *why,
                            size_t len);

/* Before a repetition: NP_ECHILD with one line when a service is lost
 * (np_matrix_services_lost), does not hold its address again within its
 * ready_timeout_seconds, or its lifetime is over (then stopped).  Accepts
 * NULL. */
int np_matrix_services_check(struct np_matrix_services *s,
                             struct np_errbuf *eb);

/* Stop every service still running, write each service.txt with how it
 * ended, add their records to session ("services"; session may be NULL),
 * free.  Accepts NULL. */
void np_matrix_services_stop(struct np_matrix_services *s, cJSON *session);

/* --dry-run: one line per service (name, command, readiness, bounds). */
void np_matrix_services_describe(const struct np_matrix_plan *p,
                                 const char *binary, FILE *out);

#endif /* NP_MATRIX_SERVICES_H */
