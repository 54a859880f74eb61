/*
 * np_matrix_options.c - the option table of `netproof-bench matrix`
 * (np_matrix_optset, see np_matrix_cli.h): the one place its options'
 * names, values, defaults and help live.  The table drives the parser
 * (np_matrix_cli.c), the generated --help, the man page's OPTIONS and the
 * completion (tools/docgen), as every other command's does.  The values
 * refused keep the lines the hand parser printed before (the rows'
 * refusal), and the cross-field rules (--shard not with --only, the
 * repetition bounds of --until-stable) are the validate hook.
 */
#include "np_matrix_cli.h"

#include <string.h>

#include "np_matrix.h"
#include "np_matrix_shard.h"

#define CFG struct np_matrix_cli_cfg

/* "5" for NP_MATRIX_MIN_REPS, in the rows' texts. */
#define NP_MX__STR(x) #x
#define NP_MX__XSTR(x) NP_MX__STR(x)
#define MIN_REPS_TEXT NP_MX__XSTR(NP_MATRIX_MIN_REPS)
#define MAX_REPS_TEXT NP_MX__XSTR(NP_MATRIX_MAX_REPS)

/* The refusal of --min-reps and --max-reps (a printf format of the value:
 * the option's name is written out, so two macros). */
#define REPS_REFUSAL(opt)                                                     \
  "--" opt " %s: expected a whole number of repetitions from " MIN_REPS_TEXT \
  " (the fewest an interval is computed from) to 1000"

/* Free text stored as given, "" included: the runner words an empty
 * --output itself ("--output DIR is required"), as it always did. */
static int set_text(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v, struct np_errbuf *eb) {
  return np_bench_opt_put(o, sec, v, eb);
}

/* --shard K/N through the runner's own parser (np_matrix_shard.h). */
static int set_shard(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *c = sec;
  (void)o;
  return np_matrix_shard_parse(v->text, &c->o.shard_index, &c->o.shard_count,
                               eb);
}

static const struct np_bench_opt matrix_opts[] = {
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "results folder (created; must be empty, or hold this suite "
             "when resuming; one runner at a time); not needed with "
             "--dry-run",
     NP_BENCH_AT(CFG, o.out_dir), .set = set_text},
    {.name = "resume", .type = NP_BENCH_OPT_FLAG,
     .help = "keep complete repetitions, redo partial ones",
     NP_BENCH_AT(CFG, o.resume)},
    {.name = "only", .type = NP_BENCH_OPT_STR, .metavar = "GLOB",
     .help = "run only configuration ids matching GLOB (fnmatch)",
     NP_BENCH_AT(CFG, o.only), .set = set_text},
    {.name = "dry-run", .type = NP_BENCH_OPT_FLAG,
     .help = "print configurations, commands (shell-quoted) and the "
             "estimated duration; run nothing",
     NP_BENCH_AT(CFG, o.dry_run)},
    {.name = "until-stable", .type = NP_BENCH_OPT_NUM, .min = 0,
     .min_open = 1, .max = 100, .unit = "%", .metavar = "CI_PCT",
     .refusal = "--until-stable %s: expected a half-width in percent of the "
                "median, > 0 and <= 100",
     .help = "after --min-reps repetitions, add one at a time until the 95 % "
             "interval of the median round trips/s is within CI_PCT % of it "
             "(replaces the plan's repetitions and until_stable; --resume "
             "needs the same values)",
     NP_BENCH_AT(CFG, o.until_stable)},
    {.name = "min-reps", .type = NP_BENCH_OPT_UINT,
     .umin = NP_MATRIX_MIN_REPS, .umax = 1000, .metavar = "N",
     .refusal = REPS_REFUSAL("min-reps"), .dflt = MIN_REPS_TEXT,
     .help = "with --until-stable: repetitions before the first test",
     NP_BENCH_AT(CFG, o.min_reps)},
    {.name = "max-reps", .type = NP_BENCH_OPT_UINT,
     .umin = NP_MATRIX_MIN_REPS, .umax = 1000, .metavar = "M",
     .refusal = REPS_REFUSAL("max-reps"),
     .help = "with --until-stable: at most this many repetitions (default "
             MAX_REPS_TEXT ", or --min-reps when that is more)",
     NP_BENCH_AT(CFG, o.max_reps)},
    {.name = "quiet", .type = NP_BENCH_OPT_FLAG,
     .help = "no progress lines or end summary on stderr",
     NP_BENCH_AT(CFG, o.quiet)},
    {.name = "plans-dir", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "look a plan name up in DIR only (a plan given as a path is "
             "read as given)",
     NP_BENCH_AT(CFG, plans_dir), .set = set_text},
    {.name = "shard", .type = NP_BENCH_OPT_STR, .metavar = "K/N",
     .help = "run only the K-th (0-based) of N slices of the plan, balanced "
             "by estimated time; netproof-report merge joins the N folders "
             "(docs/guides/fleets.md)",
     .set = set_shard},
    {.name = "bench-binary", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the program each repetition runs (tests spawn a fake bench)",
     NP_BENCH_AT(CFG, o.bench_binary), .set = set_text,
     .flags = NP_BENCH_OPT_HIDDEN},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
};

static const struct np_bench_opt_section matrix_sections[] = {
    {NULL, matrix_opts, sizeof matrix_opts / sizeof matrix_opts[0], 0},
};

static void matrix_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

/* The rules between options; the repetition bounds are those of
 * --until-stable alone (0 without it, as the plan's rule then holds). */
static int matrix_validate(void *cfg, const struct np_bench_given *given,
                           struct np_errbuf *eb) {
  CFG *c = cfg;
  struct np_matrix_opts *o = &c->o;
  int min_given = np_bench_opt_given(&np_matrix_optset, given, "min-reps");
  int max_given = np_bench_opt_given(&np_matrix_optset, given, "max-reps");
  if (o->shard_count && o->only)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--shard and --only: choose one (a slice that leaves "
                         "configurations out cannot be merged)");
  if ((min_given || max_given) && o->until_stable == 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s-reps needs --until-stable CI_PCT (try --help)",
                         min_given ? "min" : "max");
  if (o->until_stable == 0) {
    o->min_reps = o->max_reps = 0;
    return 0;
  }
  if (!max_given)
    o->max_reps = o->min_reps > NP_MATRIX_MAX_REPS ? o->min_reps
                                                   : NP_MATRIX_MAX_REPS;
  if (o->max_reps < o->min_reps)
    return np_errbuf_set(eb, NP_EUSAGE, "--max-reps %d: below --min-reps %d",
                         o->max_reps, o->min_reps);
  return 0;
}

const struct np_bench_optset np_matrix_optset = {
    .command = "matrix",
    .operands = "PLAN",
    .interleaved = 1,
    .summary =
        "Runs every configuration of a suite plan, each repetition as its\n"
        "own netproof-bench process, and keeps the raw evidence in DIR\n"
        "(layout: docs/results-layout.md).  PLAN is a file (a path with a\n"
        "'/' or ending in .json) or the name of a shipped plan (quick,\n"
        "udp-io-models, ...), read from the installed share/netproof/plans\n"
        "(from a build tree: the source tree's bench/plans).\n",
    .doc = "docs/results-layout.md",
    .exits = "exit: 0 all passed (or failed as expected), 1 a configuration "
             "failed,\n"
             "      2 usage error, bad plan/folder or folder in use by "
             "another runner,\n"
             "      3 run-time error (e.g. disk full),\n"
             "      130/143 interrupted (summary written; rerun with "
             "--resume)\n",
    .sections = matrix_sections,
    .nsections = sizeof matrix_sections / sizeof matrix_sections[0],
    .cfg_size = sizeof(CFG),
    .init = matrix_init,
    .validate = matrix_validate,
};
