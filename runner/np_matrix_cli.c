/*
 * np_matrix_cli.c - parse `netproof-bench matrix` arguments into
 * struct np_matrix_opts, run, and map the outcome to an exit code.  A plan
 * given by name is resolved here (np_matrix_find.h); the runner reads
 * files only.
 */
#include "np_matrix_cli.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "np_err.h"
#include "np_matrix.h"
#include "np_matrix_find.h"
#include "np_opt.h"
#include "np_matrix_shard.h"

static void usage(FILE *fp) {
  fputs("usage: netproof-bench matrix PLAN --output DIR [--resume]\n"
        "                             [--only GLOB] [--dry-run] [--quiet]\n"
        "                             [--plans-dir DIR] [--shard K/N]\n"
        "                             [--until-stable CI_PCT [--min-reps N]\n"
        "                              [--max-reps M]]\n"
        "\n"
        "Runs every configuration of a suite plan, each repetition as its\n"
        "own netproof-bench process, and keeps the raw evidence in DIR\n"
        "(layout: docs/results-layout.md).  PLAN is a file (a path with a\n"
        "'/' or ending in .json) or the name of a shipped plan (quick,\n"
        "udp-io-models, ...), read from the installed share/netproof/plans\n"
        "(from a build tree: the source tree's bench/plans).\n"
        "\n"
        "  --output DIR     results folder (created; must be empty or hold\n"
        "                   this suite when resuming; one runner at a time)\n"
        "  --resume         keep complete repetitions, redo partial ones\n"
        "  --only GLOB      run only configuration ids matching GLOB (fnmatch)\n"
        "  --dry-run        print configurations, commands, estimated duration\n"
        "  --quiet          no progress lines or end summary on stderr\n"
        "  --plans-dir DIR  look a plan name up in DIR only\n"
        "  --shard K/N      run only the K-th (0-based) of N slices of the plan,\n"
        "                   balanced by estimated time; netproof-report merge\n"
        "                   joins the N folders (docs/guides/fleets.md)\n"
        "  --until-stable CI_PCT  after --min-reps (default 5) repetitions,\n"
        "                   configurations take turns adding one until the\n"
        "                   95 % interval of the median round trips/s is\n"
        "                   within CI_PCT % of it, or --max-reps (default 30)\n"
        "                   ran; replaces the plan's repetitions (and its\n"
        "                   until_stable), so --resume needs the same values\n"
        "\n"
        "exit codes: 0 all passed (or failed as expected), 1 a configuration\n"
        "failed, 2 usage error, bad plan/folder or folder in use by another\n"
        "runner, 3 run-time error (e.g. disk full),\n"
        "130/143 interrupted (summary written; rerun with --resume)\n",
        fp);
}

/* --until-stable CI_PCT, --min-reps N, --max-reps M into o: 0, or -1 with
 * the line printed.  An interval needs 5 values, so N >= 5. */
static int stable_arg(struct np_matrix_opts *o, const char *name,
                      const char *val) {
  char *end;
  errno = 0;
  double d = strtod(val, &end);
  int bad = end == val || *end != '\0' || errno != 0 || !isfinite(d);
  if (strcmp(name, "--until-stable") == 0) {
    if (bad || !(d > 0 && d <= 100)) {
      fprintf(stderr, "netproof-bench matrix: --until-stable %s: expected a "
                      "half-width in percent of the median, > 0 and <= 100\n",
              val);
      return -1;
    }
    o->until_stable = d;
    return 0;
  }
  if (bad || d != floor(d) || d < NP_MATRIX_MIN_REPS || d > 1000) {
    fprintf(stderr, "netproof-bench matrix: %s %s: expected a whole number "
                    "of repetitions from %d (the fewest an interval is "
                    "computed from) to 1000\n",
            name, val, NP_MATRIX_MIN_REPS);
    return -1;
  }
  if (strcmp(name, "--min-reps") == 0)
    o->min_reps = (int)d;
  else
    o->max_reps = (int)d;
  return 0;
}

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

/* The options the loop below takes, for "did you mean" (--bench-binary,
 * hidden, is left out). */
static const char *const options[] = {
    "--help", "--output", "--plans-dir", "--only", "--shard", "--resume",
    "--dry-run", "--quiet", "--until-stable", "--min-reps", "--max-reps"};

static int is_option(const char *a) {
  if (strcmp(a, "--bench-binary") == 0 || strcmp(a, "-h") == 0)
    return 1;
  for (size_t i = 0; i < sizeof options / sizeof *options; i++)
    if (strcmp(a, options[i]) == 0)
      return 1;
  return 0;
}

int np_matrix_cli_main(int argc, char **argv) {
  struct np_matrix_opts o;
  memset(&o, 0, sizeof o);
  const char *plan_arg = NULL, *plans_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return NP_EXIT_OK;
    } else if (strcmp(a, "--output") == 0 && more) {
      o.out_dir = argv[++i];
    } else if (strcmp(a, "--plans-dir") == 0 && more) {
      plans_dir = argv[++i];
    } else if (strcmp(a, "--only") == 0 && more) {
      o.only = argv[++i];
    } else if (strcmp(a, "--shard") == 0 && more) {
      struct np_errbuf seb = {{0}};
      if (np_matrix_shard_parse(argv[++i], &o.shard_index, &o.shard_count,
                                &seb) != 0) {
        fprintf(stderr, "netproof-bench matrix: %s\n", seb.msg);
        return NP_EXIT_USAGE;
      }
    } else if (strcmp(a, "--bench-binary") == 0 && more) {
      o.bench_binary = argv[++i]; /* hidden: tests spawn a fake bench */
    } else if (strcmp(a, "--resume") == 0) {
      o.resume = 1;
    } else if (strcmp(a, "--dry-run") == 0) {
      o.dry_run = 1;
    } else if (strcmp(a, "--quiet") == 0) {
      o.quiet = 1;
    } else if ((strcmp(a, "--until-stable") == 0 ||
                strcmp(a, "--min-reps") == 0 ||
                strcmp(a, "--max-reps") == 0) && more) {
      if (stable_arg(&o, a, argv[++i]) != 0)
        return NP_EXIT_USAGE;
    } else if (a[0] != '-' && plan_arg == NULL) {
      plan_arg = a;
    } else if (a[0] == '-' && !is_option(a)) {
      struct np_errbuf ueb = {{0}};
      np_opt_unknown(&ueb, "option", a, options,
                     sizeof options / sizeof *options);
      fprintf(stderr, "netproof-bench matrix: %s\n", ueb.msg);
      return NP_EXIT_USAGE;
    } else if (a[0] == '-') {
      fprintf(stderr, "netproof-bench matrix: %s needs a value (try "
                      "--help)\n", a);
      return NP_EXIT_USAGE;
    } else {
      fprintf(stderr, "netproof-bench matrix: unexpected argument '%s' (try "
                      "--help)\n", a);
      return NP_EXIT_USAGE;
    }
  }
  if (o.shard_count && o.only) {
    fprintf(stderr, "netproof-bench matrix: --shard and --only: choose one "
                    "(a slice that leaves configurations out cannot be "
                    "merged)\n");
    return NP_EXIT_USAGE;
  }
  if ((o.min_reps || o.max_reps) && o.until_stable == 0) {
    fprintf(stderr, "netproof-bench matrix: --%s-reps needs --until-stable "
                    "CI_PCT (try --help)\n", o.min_reps ? "min" : "max");
    return NP_EXIT_USAGE;
  }
  if (o.until_stable > 0) {
    o.min_reps = o.min_reps ? o.min_reps : NP_MATRIX_MIN_REPS;
    o.max_reps = o.max_reps ? o.max_reps
                 : o.min_reps > NP_MATRIX_MAX_REPS ? o.min_reps
                                                   : NP_MATRIX_MAX_REPS;
    if (o.max_reps < o.min_reps) {
      fprintf(stderr, "netproof-bench matrix: --max-reps %d: below "
                      "--min-reps %d\n", o.max_reps, o.min_reps);
      return NP_EXIT_USAGE;
    }
  }
  if (plan_arg == NULL || (o.out_dir == NULL && !o.dry_run)) {
    fprintf(stderr, "netproof-bench matrix: %s (try --help)\n",
            plan_arg == NULL ? "missing PLAN" : "missing --output DIR");
    return NP_EXIT_USAGE;
  }
  struct np_errbuf eb = {{0}};
  struct np_matrix_find_dirs dirs;
  char plan[PATH_MAX];
  np_matrix_find_dirs_default(&dirs, plans_dir);
  int frc = np_matrix_find_plan(plan_arg, &dirs, plan, sizeof plan, &eb);
  if (frc != 0) {
    fprintf(stderr, "netproof-bench matrix: %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  o.plan_path = plan;
  struct np_matrix_result res;
  memset(&res, 0, sizeof res);
  int rc = np_matrix_run(&o, stdout, &res, &eb);
  if (rc != 0) {
    fprintf(stderr, "netproof-bench matrix: %s\n",
            eb.msg[0] ? eb.msg : np_strerror(rc));
    return is_input_error(rc, &res) ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
  }
  if (o.dry_run)
    return NP_EXIT_OK;
  if (res.interrupted)
    return 128 + res.interrupted;
  return res.configs_bad ? NP_EXIT_FAIL : NP_EXIT_OK;
}
