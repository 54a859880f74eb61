/*
 * np_exec_options.c - the option table of `netproof-bench exec` and the
 * rules a table cannot express (see np_exec_options.h).  The repeatable
 * options have setters that append; metric and bound texts are parsed as
 * they are stored, so a bad one is refused with its own message before
 * anything runs, by the command and by a plan alike.
 */
#include "np_exec_options.h"

#include <string.h>

#include "np_exec_config.h"

#define CFG struct np_exec_config

/* NAME=VALUE with a name of [A-Za-z_][A-Za-z0-9_]*. */
static int env_name_len(const char *s) {
  size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                       "0123456789_");
  return n > 0 && !(s[0] >= '0' && s[0] <= '9') ? (int)n : 0;
}

static int set_env(void *sec, const struct np_bench_opt *o,
                   const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  int n = env_name_len(v->text);
  if (n == 0 || v->text[n] != '=')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s '%s': expected NAME=VALUE with NAME of "
                         "[A-Za-z_][A-Za-z0-9_]*",
                         o->name, v->text);
  if (cfg->nenv + cfg->nkeep_env >= NP_EXEC_MAX_ENV)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: more than %d variables",
                         o->name, NP_EXEC_MAX_ENV);
  cfg->env[cfg->nenv++] = v->text;
  return 0;
}

static int set_keep_env(void *sec, const struct np_bench_opt *o,
                        const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  int n = env_name_len(v->text);
  if (n == 0 || v->text[n] != '\0')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s '%s': expected a variable name "
                         "[A-Za-z_][A-Za-z0-9_]*",
                         o->name, v->text);
  if (cfg->nenv + cfg->nkeep_env >= NP_EXEC_MAX_ENV)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: more than %d variables",
                         o->name, NP_EXEC_MAX_ENV);
  cfg->keep_env[cfg->nkeep_env++] = v->text;
  return 0;
}

static int set_metric(void *sec, const struct np_bench_opt *o,
                      const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  if (cfg->nmetric >= NP_EXEC_MAX_METRICS)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: more than %d metrics",
                         o->name, NP_EXEC_MAX_METRICS);
  struct np_exec_metric_spec *m = &cfg->metric[cfg->nmetric];
  int rc = np_exec_metric_parse(v->text, m, eb);
  if (rc != 0)
    return rc;
  for (unsigned i = 0; i < cfg->nmetric; i++)
    if (strcmp(cfg->metric[i].name, m->name) == 0)
      return np_errbuf_set(eb, NP_EUSAGE, "--%s '%s': metric %s given twice",
                           o->name, v->text, m->name);
  cfg->nmetric++;
  return 0;
}

/* NAME=regex:PATTERN[:unit], matched on each line of stdout. */
static int set_series(void *sec, const struct np_bench_opt *o,
                      const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  if (cfg->nseries >= NP_EXEC_MAX_SERIES)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: more than %d series",
                         o->name, NP_EXEC_MAX_SERIES);
  struct np_exec_metric_spec *m = &cfg->series[cfg->nseries];
  int rc = np_exec_metric_parse(v->text, m, eb);
  if (rc != 0)
    return rc;
  if (m->source != NP_EXEC_SOURCE_STDOUT || m->kind != NP_EXEC_KIND_REGEX)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s '%s': only NAME=regex:PATTERN[:unit], matched "
                         "on each line of stdout as the program prints it",
                         o->name, v->text);
  for (unsigned i = 0; i < cfg->nseries; i++)
    if (strcmp(cfg->series[i].name, m->name) == 0)
      return np_errbuf_set(eb, NP_EUSAGE, "--%s '%s': series %s given twice",
                           o->name, v->text, m->name);
  cfg->nseries++;
  return 0;
}

static int set_bound(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  if (cfg->nbound >= NP_EXEC_MAX_BOUNDS)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: more than %d checks", o->name,
                         NP_EXEC_MAX_BOUNDS);
  int rc = np_exec_bound_parse(v->text, &cfg->bound[cfg->nbound], eb);
  if (rc == 0)
    cfg->nbound++;
  return rc;
}

static const struct np_bench_opt exec_opts[] = {
    {.name = "timeout", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 86400, .unit = "s",
     .help = "time bound (required): at it the program's process group is "
             "killed and the run fails",
     NP_BENCH_AT(CFG, timeout), .tag = "to"},
    {.name = "expect-exit", .type = NP_BENCH_OPT_UINT, .umin = 0, .umax = 255,
     .dflt = "0", .help = "exit code that counts as success",
     NP_BENCH_AT(CFG, expect_exit), .tag = "x"},
    {.name = "metric", .type = NP_BENCH_OPT_STR, .metavar = "NAME=SPEC",
     .help = "a number from the output: json:/pointer, regex:PATTERN, "
             "file:PATH:json:/pointer, each [:unit]; repeatable",
     .set = set_metric, .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "check", .type = NP_BENCH_OPT_STR, .metavar = "NAME<=VALUE",
     .help = "a bound on a metric (<= >= < > ==; VALUE or "
             "kernel:COUNTER); repeatable",
     .set = set_bound, .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "interval", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 3600,
     .unit = "s", .dflt = "0",
     .help = "time series: --interval-metric values every S seconds "
             "(record and stderr; 0 = off)",
     NP_BENCH_AT(CFG, interval), .tag = "iv"},
    {.name = "interval-metric", .type = NP_BENCH_OPT_STR,
     .metavar = "NAME=regex:PATTERN",
     .help = "a number from each line of stdout as it is printed (one "
             "capture group, [:unit]), a sample at the time the line was "
             "read; repeatable, needs --interval",
     .set = set_series, .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "env", .type = NP_BENCH_OPT_STR, .metavar = "NAME=VALUE",
     .help = "set a variable in the program's environment; repeatable",
     .set = set_env, .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "keep-env", .type = NP_BENCH_OPT_STR, .metavar = "NAME",
     .help = "pass one of our variables on to the program; repeatable; the "
             "record names it, its value only with --record-env-values",
     .set = set_keep_env, .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "record-env-values", .type = NP_BENCH_OPT_FLAG,
     .help = "write the values of --keep-env variables into the record "
             "too (they may be secrets; records and bundles are shared)",
     NP_BENCH_AT(CFG, record_env_values), .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "allow-leftovers", .type = NP_BENCH_OPT_FLAG,
     .help = "processes the program leaves running are still ended and "
             "listed, but do not fail the run",
     NP_BENCH_AT(CFG, allow_leftovers), .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "output-limit", .type = NP_BENCH_OPT_SIZE, .umin = 1024,
     .umax = 64u << 20, .dflt = "1048576",
     .help = "bytes of stdout and of stderr kept (each); beyond it the "
             "output is counted, not kept, and the run fails",
     NP_BENCH_AT(CFG, output_limit), .tag = "ol"},
    {.name = "cwd", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "working directory of the program (default: ours)",
     NP_BENCH_AT(CFG, cwd), .set = np_bench_opt_set_path,
     .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "keep", .type = NP_BENCH_OPT_STR, .metavar = "PREFIX",
     .help = "kept output: PREFIX.stdout.txt, PREFIX.stderr.txt, "
             "PREFIX.file-1.txt ... (default: --output without .json; "
             "with --output -, DIR/run in a new folder under $TMPDIR that "
             "the summary names)",
     NP_BENCH_AT(CFG, keep), .set = np_bench_opt_set_path,
     .flags = NP_BENCH_OPT_NOPLAN},
    NP_BENCH_OPT_RUNNER_ROWS(CFG),
};

static const struct np_bench_opt_section exec_sections[] = {
    {NULL, exec_opts, sizeof exec_opts / sizeof exec_opts[0], 0},
};

static void exec_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

static int exec_validate(void *p, const struct np_bench_given *g,
                         struct np_errbuf *eb) {
  CFG *cfg = p;
  /* the bound is mandatory: no default can know how long a program of
   * ours or anybody's should take */
  if (!np_bench_opt_given(&np_exec_optset, g, "timeout"))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--timeout: required (the program's time bound, "
                         "seconds)");
  if (cfg->nseries > 0 && !(cfg->interval > 0))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--interval-metric: needs --interval S (S > 0)");
  if (cfg->interval > 0 && cfg->nseries == 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--interval %g: needs at least one --interval-metric "
                         "NAME=regex:PATTERN",
                         cfg->interval);
  for (unsigned i = 0; i < cfg->nbound; i++)
    if (np_exec_config_metric(cfg, cfg->bound[i].metric) == NULL)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--check %s...: no --metric named %s",
                           cfg->bound[i].metric, cfg->bound[i].metric);
  return 0;
}

const struct np_bench_optset np_exec_optset = {
    .command = "exec",
    .operands = "-- PROGRAM [ARGS...]",
    .summary = "Run PROGRAM once, with stdin closed, a controlled "
               "environment and a time bound,\nand write its run record: "
               "the executable's SHA-256, arguments, environment,\nexit "
               "status, wall time, CPU and memory of the whole process "
               "tree, kernel\ncounters before and after, its stdout and "
               "stderr kept beside the record,\nand the metrics taken "
               "from its output.  The program's environment is\nPATH="
               NP_EXEC_DEFAULT_PATH ", HOME (ours, or /) and LC_ALL=C, "
               "plus --keep-env\nand --env; nothing else.  No shell is "
               "involved unless PROGRAM is one.\n",
    .doc = "docs/guides/any-benchmark.md",
    .sections = exec_sections,
    .nsections = sizeof exec_sections / sizeof exec_sections[0],
    .cfg_size = sizeof(CFG),
    .init = exec_init,
    .validate = exec_validate,
};
