/*
 * np_bench_record.h - the run-record envelope ("netproof/run/1",
 * schema/run.schema.json) every benchmark kind writes.
 *
 * The envelope is what every record has whatever the kind: "schema",
 * "status" (derived by np_bench_status_of and nowhere else), "reasons",
 * "tool", "machine", "started_at" / "ended_at" (common/np_time.h),
 * "runner" {"session"} when NETPROOF_RUNNER_SESSION holds a valid session
 * id, the kind's "config", "kernel" {before, after, delta} and "checks".
 * The kind then adds its own sections (measurement, counters, sockets,
 * ...) to the returned document, the document is validated against the
 * shipped schema, and committed through the output opened before the run
 * (np_bench_output.h).
 */
#ifndef NP_BENCH_RECORD_H
#define NP_BENCH_RECORD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_bench_run.h"
#include "np_err.h"

enum np_bench_status {
  NP_BENCH_PASSED,     /* every check passed, no signal      */
  NP_BENCH_FAILED,     /* a check failed                     */
  NP_BENCH_INTERRUPTED /* SIGINT or SIGTERM ended the run    */
};

/* One invariant as the envelope sees it (strings not owned). */
struct np_bench_check {
  const char *name;   /* [a-z0-9_]+                          */
  int passed;         /* 1 = held                            */
  const char *detail; /* the numbers compared                */
};

/* The outcome the CLI acts on. */
struct np_bench_verdict {
  enum np_bench_status status; /* the record's status               */
  int exit_code;               /* 0, 1, or 128 + signal             */
};

/* The one rule: interrupted if a signal ended the run, else failed if any
 * check failed, else passed. */
enum np_bench_status np_bench_status_of(const struct np_bench_check *checks,
                                        unsigned n, int signal);

/* The record's reasons[]: the signal's reason first ("interrupted by
 * SIGINT" / "interrupted by SIGTERM", when signal is not 0), then the
 * kind's own reasons (kind, consumed; may be NULL) or else one
 * "name: detail" per failed check.  NULL on no memory. */
cJSON *np_bench_record_reasons(const struct np_bench_check *checks,
                               unsigned nchecks, int signal, cJSON *kind);

/* The reason text of a signal that ended a run. */
const char *np_bench_signal_reason(int signal);

/* "passed", "failed", "interrupted". */
const char *np_bench_status_name(enum np_bench_status s);

/* NP_EXIT_OK, NP_EXIT_FAIL, or 128 + signal for interrupted. */
int np_bench_exit_code(enum np_bench_status s, int signal);

/* The environment variable a matrix runner sets for each child, and its
 * form: exactly 32 lowercase hexadecimal characters.  Anything else is
 * ignored (no "runner" in the record). */
#define NP_BENCH_RUNNER_ENV "NETPROOF_RUNNER_SESSION"
int np_bench_runner_session_ok(const char *s);

/* What the envelope is built from. */
struct np_bench_envelope {
  const struct np_bench_run *run;      /* times, signal, kernel snapshots */
  const struct np_bench_check *checks; /* every invariant of the run      */
  unsigned nchecks;                    /* entries in checks               */
  cJSON *config;                       /* the kind's "config"; consumed   */
  cJSON *reasons;                      /* check failures in the kind's
                                          words (array of strings), or
                                          NULL for one "name: detail" per
                                          failed check; consumed          */
};

/* Build the envelope.  On success *out owns the new document and *v says
 * its status and exit code; env->config and env->reasons are consumed
 * whatever the outcome.  NP_ENOMEM, or NP_EINVAL when a snapshot is
 * missing. */
int np_bench_record_new(struct np_bench_envelope *env, cJSON **out,
                        struct np_bench_verdict *v, struct np_errbuf *eb);

/* A "checks" array ([{name, passed, detail}]); also for a kind's own
 * nested checks (rudp rounds).  NULL on no memory. */
cJSON *np_bench_record_checks(const struct np_bench_check *c, unsigned n);

/* config.command: the argument vector, starting at the subcommand.  NULL
 * on no memory. */
cJSON *np_bench_record_command(int argc, char **argv);

/* NP_ENOMEM ("record: out of memory") unless doc has every key - the way
 * a kind confirms its sections were all allocated. */
int np_bench_record_require(const cJSON *doc, const char *const *keys,
                            size_t n, struct np_errbuf *eb);

/* Validate against the shipped run schema (np_schema_validate_tagged):
 * 0, or NP_ESCHEMA with "record: /pointer: keyword: reason" in eb. */
int np_bench_record_validate(const cJSON *doc, struct np_errbuf *eb);

#endif /* NP_BENCH_RECORD_H */
