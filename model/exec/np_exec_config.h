/*
 * np_exec_config.h - everything `netproof-bench exec` was asked to do.
 *
 * Filled by the option table (np_exec_options.c) from the options before
 * "--", and by np_exec_config_program() from PROGRAM [ARGS...] after it.
 * Strings point into argv (not owned); the parsed metric and bound specs
 * live in the struct.  No run-time state lives here.
 */
#ifndef NP_EXEC_CONFIG_H
#define NP_EXEC_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "np_err.h"
#include "np_exec_metric.h"
#include "np_exec_series.h"

#define NP_EXEC_MAX_METRICS 32 /* --metric options per run               */
#define NP_EXEC_MAX_BOUNDS 32  /* --check options per run                */
#define NP_EXEC_MAX_ENV 64     /* --env plus --keep-env options per run  */

/* The environment every program starts from; --keep-env and --env add to
 * it or replace its values.  Nothing else of netproof-bench's own
 * environment reaches the program. */
#define NP_EXEC_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

struct np_exec_config {
  double timeout;                 /* --timeout: the time bound, seconds    */
  uint32_t expect_exit;           /* --expect-exit: the wanted exit code   */
  uint64_t output_limit;          /* --output-limit: bytes kept per stream */
  const char *cwd;                /* --cwd: working directory, or NULL     */
  const char *env[NP_EXEC_MAX_ENV];      /* --env NAME=VALUE, in order     */
  unsigned nenv;                         /* entries in env                 */
  const char *keep_env[NP_EXEC_MAX_ENV]; /* --keep-env NAME, in order      */
  unsigned nkeep_env;                    /* entries in keep_env            */
  struct np_exec_metric_spec metric[NP_EXEC_MAX_METRICS]; /* --metric      */
  unsigned nmetric;                      /* entries in metric              */
  struct np_exec_bound bound[NP_EXEC_MAX_BOUNDS]; /* --check               */
  unsigned nbound;                       /* entries in bound               */
  double interval;                /* --interval: series interval, s; 0 off */
  struct np_exec_metric_spec series[NP_EXEC_MAX_SERIES]; /* --interval-metric */
  unsigned nseries;                      /* entries in series              */
  const char *keep;               /* --keep: prefix of the kept files      */
  int allow_leftovers;            /* --allow-leftovers: they do not fail   */
  int record_env_values;          /* --record-env-values: --keep-env values
                                   * go into the record too               */
  const char *output;             /* --output: record path, "-" = stdout   */
  int summary;                    /* --summary: enum np_bench_summary_kind */
  int quiet;                      /* --quiet: no summary on stderr         */
  /* after "--" (np_exec_config_program) */
  char *const *prog_argv;         /* PROGRAM [ARGS...], NULL-terminated    */
  int prog_argc;                  /* entries in prog_argv                  */
  char path[PATH_MAX];            /* PROGRAM resolved to an absolute path  */
  char keep_prefix[PATH_MAX];     /* --keep, or --output less ".json", or
                                     "" (neither: the CLI makes a folder) */
};

/* Split argv (argv[0] = "exec") at the first "--": *nopts = the entries
 * before it (options, argv[0] included).  NP_EUSAGE when there is no "--"
 * or nothing after it. */
int np_exec_config_split(int argc, char **argv, int *nopts,
                         struct np_errbuf *eb);

/* Take PROGRAM [ARGS...] (argv[0..argc), argc >= 1) into cfg: resolve
 * PROGRAM (a name without '/' through the program's PATH: --env PATH,
 * else --keep-env PATH, else NP_EXEC_DEFAULT_PATH) to an absolute path of
 * an executable regular file, and derive the kept files' prefix.
 * NP_EUSAGE with one line: "PROGRAM 'x': not found in PATH (...)", "...:
 * not executable".  Without --keep and with --output -, keep_prefix is
 * left "" (the caller picks a temporary folder). */
int np_exec_config_program(struct np_exec_config *cfg, int argc,
                           char *const *argv, struct np_errbuf *eb);

/* The PATH the program gets (see above); points into cfg or the
 * environment, or is NP_EXEC_DEFAULT_PATH. */
const char *np_exec_config_path_var(const struct np_exec_config *cfg);

/* The metric named name, or NULL. */
const struct np_exec_metric_spec *
np_exec_config_metric(const struct np_exec_config *cfg, const char *name);

#endif /* NP_EXEC_CONFIG_H */
