/*
 * np_matrix_cli.c - `netproof-bench matrix`: its arguments through the
 * option table (np_matrix_options.c) into struct np_matrix_opts, the
 * plan resolved, the run, and the outcome mapped to an exit code.  A plan
 * given by name is resolved here (np_matrix_find.h); the runner reads
 * files only.
 */
#include "np_matrix_cli.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "np_err.h"
#include "np_matrix.h"
#include "np_matrix_find.h"

#define PROG "netproof-bench matrix"

/* Bad input the user can fix (exit 2) versus run-time trouble (exit 3).
 * NP_EAGAIN: the output folder is locked by another runner.  Once the
 * runner has started writing the folder every error is run-time trouble. */
static int is_input_error(int rc, const struct np_matrix_result *res) {
  return !res->started &&
         (rc == NP_EUSAGE || rc == NP_ESCHEMA || rc == NP_EPARSE ||
          rc == NP_ENOENT || rc == NP_EEXIST || rc == NP_EUNSUPPORTED ||
          rc == NP_ETOOBIG || rc == NP_ETOODEEP || rc == NP_ENONFINITE ||
          rc == NP_ENOTDIR || rc == NP_EISDIR || rc == NP_EACCES ||
          rc == NP_EAGAIN);
}

/* A line about the command line's shape (an option's value missing or
 * not wanted) ends "(try --help)", as the hand parser's did; a refused
 * value or combination is worded in full already. */
static const char *hint(const char *msg) {
  return strstr(msg, "try --help") == NULL &&
                 (strstr(msg, " needs a value") != NULL ||
                  strstr(msg, " takes no value") != NULL)
             ? " (try --help)"
             : "";
}

/* The command line into c: 0, or an exit code (help printed, or the
 * usage error's one line on stderr). */
static int parse_args(int argc, char **argv, struct np_matrix_cli_cfg *c,
                      const char **plan_arg, int *done) {
  struct np_errbuf eb = {{0}};
  int help = 0, first = argc;
  *done = 1;
  if (np_bench_opt_parse_operands(&np_matrix_optset, argc, argv, c, &help,
                                  &first, &eb) != 0) {
    fprintf(stderr, PROG ": %s%s\n", eb.msg, hint(eb.msg));
    return NP_EXIT_USAGE;
  }
  if (help) {
    np_bench_opt_help(&np_matrix_optset, stdout);
    return NP_EXIT_OK;
  }
  if (first + 1 < argc) {
    fprintf(stderr, PROG ": unexpected argument '%s' (try --help)\n",
            argv[first + 1]);
    return NP_EXIT_USAGE;
  }
  *plan_arg = first < argc ? argv[first] : NULL;
  if (*plan_arg == NULL || (c->o.out_dir == NULL && !c->o.dry_run)) {
    fprintf(stderr, PROG ": %s (try --help)\n",
            *plan_arg == NULL ? "missing PLAN" : "missing --output DIR");
    return NP_EXIT_USAGE;
  }
  *done = 0;
  return NP_EXIT_OK;
}

int np_matrix_cli_main(int argc, char **argv) {
  struct np_matrix_cli_cfg c;
  const char *plan_arg = NULL;
  int done = 0;
  int st = parse_args(argc, argv, &c, &plan_arg, &done);
  if (done)
    return st;
  struct np_matrix_opts o = c.o;
  const char *plans_dir = c.plans_dir;
  struct np_errbuf eb = {{0}};
  struct np_matrix_find_dirs dirs;
  char plan[PATH_MAX];
  np_matrix_find_dirs_default(&dirs, plans_dir);
  int frc = np_matrix_find_plan(plan_arg, &dirs, plan, sizeof plan, &eb);
  if (frc != 0) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  o.plan_path = plan;
  struct np_matrix_result res;
  memset(&res, 0, sizeof res);
  int rc = np_matrix_run(&o, stdout, &res, &eb);
  if (rc != 0) {
    fprintf(stderr, PROG ": %s\n",
            eb.msg[0] ? eb.msg : np_strerror(rc));
    return is_input_error(rc, &res) ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
  }
  if (o.dry_run)
    return NP_EXIT_OK;
  if (res.interrupted)
    return 128 + res.interrupted;
  return res.configs_bad ? NP_EXIT_FAIL : NP_EXIT_OK;
}
