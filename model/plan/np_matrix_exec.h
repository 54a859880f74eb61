/*
 * np_matrix_exec.h - exec plans: a suite whose protocol is "exec" runs
 * somebody else's benchmark program, one `netproof-bench exec` child per
 * repetition, from the plan's "exec" object (schema/plan.schema.json):
 *
 *   "exec": {"command": ["iperf3", "-c", "127.0.0.1", "-u",
 *                        "-b", "{bitrate}", "-l", "{length}", "-J"],
 *            "metrics": [{"name": "loss", "spec": "json:/end/sum/lost_percent",
 *                         "unit": "%", "better": "lower"}],
 *            "checks": ["loss<=50"], "env": {...}, "keep_env": [...]}
 *
 * Quoting rules.  Each element of "command" is one argument, before and
 * after substitution: a placeholder {name} is replaced by the text of the
 * configuration's value for name (a dimension, a "base" or a
 * "configurations" key that is not an exec option), inside the element,
 * and a value is never split at spaces or re-read by a shell; "{{" and
 * "}}" are literal braces.  There is no shell unless the command says so:
 * a command starting [sh|bash|dash|ksh|zsh, "-c", SCRIPT, ...] is a shell
 * script, and in it a placeholder's value is shell text, so the runner
 * refuses a value there holding anything but [A-Za-z0-9._,:+=@%/-].
 * Every placeholder needs a value and every non-option key must be a
 * placeholder of the command, or the plan is refused.
 *
 * A configuration's id is "exec" plus "-NAMEVALUE" per placeholder in
 * order of first use (plus any option a row set itself), e.g.
 * "exec-bitrate100m-length1400".  Its argv holds the exec options
 * (--timeout ..., one --metric / --check / --env / --keep-env per entry)
 * and its tail is "--" and the substituted command; the runner adds
 * --output and --keep between the two.  Summary statistics of each
 * metric are "exec.NAME" entries of summary.json's stats
 * (resultset/np_results_summary.c); exec suites are not ranked (there is
 * no common headline number).
 */
#ifndef NP_MATRIX_EXEC_H
#define NP_MATRIX_EXEC_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

/* 1 when the plan doc's protocol is "exec". */
int np_matrix_exec_is(const cJSON *doc);

/* 1 when name is a {name} placeholder of doc's exec.command. */
int np_matrix_exec_placeholder(const cJSON *doc, const char *name);

/* The exec part of one configuration from row r (base + dimensions +
 * the row's own options).  Adds the placeholders to
 * cf->options, cf->id and cf->group, the metric/check/env options to
 * cf->argv, fills cf->tail with "--" and the substituted command, and
 * sets the time estimate and the runner's bound (the exec --timeout +
 * 15 s unless the plan gives timeout_seconds).  Errors (NP_ESCHEMA, one
 * line "name: /pointer: reason"; NP_ENOMEM) leave cf to the plan. */
int np_matrix_exec_config(const cJSON *doc, const char *name,
                          const cJSON *r, struct np_matrix_config *cf,
                          double plan_timeout,
                          struct np_errbuf *eb);

#endif /* NP_MATRIX_EXEC_H */
