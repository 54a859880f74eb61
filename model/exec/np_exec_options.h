/*
 * np_exec_options.h - the option table of `netproof-bench exec`: the
 * options before "--" (time bound, expected exit, environment, metrics,
 * checks, output bound).  Drives the parser, --help and the matrix's plan
 * checks, like every benchmark's table (common/np_bench_opt.h).
 * --env, --keep-env, --metric and --check may be given many times; each
 * occurrence adds one entry, in order.
 */
#ifndef NP_EXEC_OPTIONS_H
#define NP_EXEC_OPTIONS_H

#include "np_bench_opt.h"

extern const struct np_bench_optset np_exec_optset;

#endif /* NP_EXEC_OPTIONS_H */
