/*
 * np_exec_record.h - the run record of `netproof-bench exec`: the shared
 * envelope with config {protocol "exec", timeout_seconds, expect_exit,
 * output_limit_bytes, command} and the "exec" section (schema
 * $defs/exec, docs/formats.md): program identity, argv, cwd, environment,
 * outcome, wall time, rusage of the process tree, the kept stdout, stderr
 * and source files with their SHA-256, every metric and every bound.
 */
#ifndef NP_EXEC_RECORD_H
#define NP_EXEC_RECORD_H

#include <cjson/cJSON.h>

#include "np_bench_record.h"
#include "np_exec_config.h"
#include "np_exec_run.h"

/* The whole record into *out (caller deletes); *v (may be NULL) gets its
 * status and exit code.  argv/argc: the command line, from the
 * subcommand.  NP_ENOMEM, NP_EINVAL (a snapshot missing). */
int np_exec_record_build(const struct np_exec_config *cfg,
                         const struct np_exec_run_result *r, int argc,
                         char **argv, cJSON **out, struct np_bench_verdict *v,
                         struct np_errbuf *eb);

#endif /* NP_EXEC_RECORD_H */
