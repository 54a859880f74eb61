/*
 * np_report_cli.c - parse netproof-report's arguments and run a report, the
 * pages or a self-check.  Results folders are labelled by their last path
 * component (or --label) so messages and report.json carry no absolute
 * paths.
 *
 * A report never renders a set that fails its self-check: the problems are
 * printed and the command exits 1 with nothing written, unless --force,
 * which renders it with every page and chart stamped "self-check failed".
 * A plan's headline comes from the plan copy in suite.json; --plans DIR
 * supplies it from DIR/<plan file name> for sets run before the plan had
 * one (it only selects which configurations lead the page).
 */
#include "np_report_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_file.h"
#include "np_ftree.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_bench_opt.h"
#include "np_report.h"
#include "np_report_compare.h"
#include "np_report_formats.h"
#include "np_report_html.h"
#include "np_report_pages.h"
#include "np_results_merge.h"
#include "np_results_selfcheck.h"
#include "np_text.h"

#define MAX_RESULTS 32

struct cli {
  const char *results[MAX_RESULTS]; /* --results folders, in order      */
  const char *labels[MAX_RESULTS];  /* --label of each folder or NULL   */
  size_t nresults;
  const char *output;               /* --output folder                  */
  const char *title;                /* --title or NULL                  */
  const char *lang;                 /* --lang, "en"                     */
  const char *plans;                /* --plans DIR or NULL              */
  const char *measuring;            /* --measuring-changes FILE or NULL */
  unsigned formats;                 /* --format bits (NP_REPORT_FMT_*)  */
  int mdx;                          /* --pages-format mdx               */
  int force;                        /* --force                          */
  int self_check;                   /* --self-check                     */
  int pages;                        /* --pages (docs/performance)       */
  enum np_report_error_bars error_bars; /* --error-bars                 */
  int link_relative;                /* --link-runs relative (html)      */
};

static const char *label_of(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  const char *p = dir + n;
  while (p > dir && p[-1] != '/')
    p--;
  return p;
}

/* "md,csv" into bits; 0 on an unknown name. */
static unsigned parse_formats(const char *s) {
  unsigned bits = 0;
  while (*s) {
    size_t n = strcspn(s, ",");
    if (n == 2 && strncmp(s, "md", 2) == 0)
      bits |= NP_REPORT_FMT_MD;
    else if (n == 3 && strncmp(s, "csv", 3) == 0)
      bits |= NP_REPORT_FMT_CSV;
    else if (n == 4 && strncmp(s, "json", 4) == 0)
      bits |= NP_REPORT_FMT_JSON;
    else if (n == 4 && strncmp(s, "html", 4) == 0)
      bits |= NP_REPORT_FMT_HTML;
    else
      return 0;
    s += n + (s[n] == ',');
  }
  return bits;
}

#define CFG struct cli

/* --results DIR, once per folder, in order. */
static int set_results(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *c = sec;
  (void)o;
  if (c->nresults == MAX_RESULTS)
    return np_errbuf_set(eb, NP_EUSAGE, "at most %d --results", MAX_RESULTS);
  c->results[c->nresults++] = v->text;
  return 0;
}

/* --label TEXT names the --results just before it. */
static int set_label(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *c = sec;
  (void)o;
  if (c->nresults == 0 || c->labels[c->nresults - 1] != NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--label %s: give it after the --results it names "
                         "(one each)", v->text);
  if (v->text[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "--label: empty label");
  c->labels[c->nresults - 1] = v->text;
  return 0;
}

static int set_formats(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  (void)o;
  if ((((CFG *)sec)->formats = parse_formats(v->text)) == 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--format %s: expected md, csv, json "
                         "or html (comma-separated)", v->text);
  return 0;
}

static const char *const link_choices[] = {"copy", "relative", NULL};
static const char *const pages_choices[] = {"md", "mdx", NULL};
static const char *const bars_choices[] = {
    [NP_REPORT_EB_AUTO] = "auto", [NP_REPORT_EB_MINMAX] = "minmax",
    [NP_REPORT_EB_CI95] = "ci95", [NP_REPORT_EB_CI95 + 1] = NULL};

static const struct np_bench_opt report_opts[] = {
    {.name = "results", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "a result folder (a suite written by netproof-bench matrix); "
             "repeat for several, at most 32",
     .set = set_results},
    {.name = "label", .type = NP_BENCH_OPT_STR, .metavar = "TEXT",
     .help = "the display name of the --results just before it (default: "
             "the folder's name); headings, chart subtitles and report.json "
             "use it, file names its slug",
     .set = set_label},
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "OUTDIR",
     .help = "the folder the report or the pages are written to",
     NP_BENCH_AT(CFG, output)},
    {.name = "format", .type = NP_BENCH_OPT_STR, .metavar = "FORMATS",
     .help = "what the report writes, comma-separated: md (the default: "
             "index.md, report.json and the charts), csv (tables/ID.csv), "
             "json (report-summary.json), html (index.html, one offline "
             "page with data/ and runs/)",
     .set = set_formats},
    {.name = "link-runs", .type = NP_BENCH_OPT_CHOICE,
     .choices = link_choices, .metavar = "copy|relative", .dflt = "copy",
     .refusal = "--link-runs %s: expected copy (the run files into "
                "OUTDIR/runs) or relative (links into the results folders)",
     .help = "with html: copy each run's files into OUTDIR/runs/SET/CONFIG/, "
             "or link them where they are, relative to OUTDIR",
     NP_BENCH_AT(CFG, link_relative)},
    {.name = "pages-format", .type = NP_BENCH_OPT_CHOICE,
     .choices = pages_choices, .metavar = "FORMAT", .dflt = "md",
     .refusal = "--pages-format %s: expected md or mdx",
     .help = "with --pages: PAGE.md, or PAGE.mdx for documentation sites "
             "(YAML front matter, MDX-safe text)",
     NP_BENCH_AT(CFG, mdx)},
    {.name = "title", .type = NP_BENCH_OPT_STR, .metavar = "TEXT",
     .help = "the report's title", NP_BENCH_AT(CFG, title)},
    {.name = "lang", .type = NP_BENCH_OPT_STR, .metavar = "LANG",
     .dflt = "en", .help = "the language of the report; only en",
     NP_BENCH_AT(CFG, lang)},
    {.name = "plans", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "read a plan's headline and dimension units from DIR/PLAN-FILE "
             "for sets whose copy of the plan in suite.json lacks them",
     NP_BENCH_AT(CFG, plans)},
    {.name = "measuring-changes", .type = NP_BENCH_OPT_STR,
     .metavar = "FILE",
     .help = "with --pages: the tree's measuring source hash and the "
             "measuring files changed since each set's (lines \"tree HASH\", "
             "\"HASH PATH\", \"HASH ?\"; scripts/regen-pages.sh writes it "
             "from git): a page whose sets were measured by other code "
             "opens with a banner listing them",
     NP_BENCH_AT(CFG, measuring)},
    {.name = "force", .type = NP_BENCH_OPT_FLAG,
     .help = "render a set that fails its self-check, stamped \"self-check "
             "failed\" on every page and chart that holds it",
     NP_BENCH_AT(CFG, force)},
    {.name = "error-bars", .type = NP_BENCH_OPT_CHOICE,
     .choices = bars_choices, .metavar = "minmax|ci95",
     .choice_mask = 1u << NP_REPORT_EB_MINMAX | 1u << NP_REPORT_EB_CI95,
     .refusal = "--error-bars %s: expected minmax (min/max of the runs) or "
                "ci95 (95 %% bootstrap interval of the median)",
     .help = "the charts' error bars: the runs' min/max, or the 95 % "
             "percentile-bootstrap interval of each median (none below 5 "
             "runs); default ci95 when every configuration of a set has at "
             "least 5 runs, else minmax (docs/statistics.md)",
     NP_BENCH_AT(CFG, error_bars)},
    {.name = "self-check", .type = NP_BENCH_OPT_FLAG,
     .help = "check the result sets instead of writing a report: one line "
             "per problem on standard output, exit 1 when there is any, 4 "
             "when a set is only incomplete",
     NP_BENCH_AT(CFG, self_check)},
    {.name = "pages", .type = NP_BENCH_OPT_FLAG,
     .help = "write the performance pages (one Markdown page per family of "
             "suites, with their charts) into OUTDIR",
     NP_BENCH_AT(CFG, pages)},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
    {.name = "version", .type = NP_BENCH_OPT_FLAG,
     .help = "print the version and build identity (source and binary "
             "SHA-256, build, libraries) and exit",
     .flags = NP_BENCH_OPT_VERSION},
};

static const struct np_bench_opt_section report_sections[] = {
    {NULL, report_opts, sizeof report_opts / sizeof report_opts[0], 0},
};

static void report_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

/* The rules between options, after all of them. */
static int report_validate(void *cfg, const struct np_bench_given *g,
                           struct np_errbuf *eb) {
  CFG *c = cfg;
  int fmt_given = np_bench_opt_given(&np_report_optset, g, "format");
  int mdx_given = np_bench_opt_given(&np_report_optset, g, "pages-format");
  if (c->nresults == 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--results DIR is required");
  if (c->self_check && c->pages)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--self-check and --pages exclude each other");
  if (c->pages && fmt_given)
    return np_errbuf_set(eb, NP_EUSAGE, "--format applies to the report; the "
                         "pages take --pages-format");
  if (!c->pages && mdx_given && c->mdx)
    return np_errbuf_set(eb, NP_EUSAGE, "--pages-format needs --pages");
  if (!c->self_check && c->output == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--output OUTDIR is required");
  if (strcmp(c->lang, "en") != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--lang %s: only \"en\" is supported",
                         c->lang);
  if (c->formats == 0)
    c->formats = NP_REPORT_FMT_MD;
  return 0;
}

const struct np_bench_optset np_report_optset = {
    .program = "netproof-report",
    .command = "",
    .summary =
        "Reports, performance pages and self-checks of result sets.\n"
        "       netproof-report --results DIR [--label TEXT] [--results DIR "
        "...] --output OUTDIR [...]\n"
        "       netproof-report --self-check --results DIR [...]\n"
        "       netproof-report --pages --results DIR [--results DIR ...] "
        "--output docs/performance\n"
        "       netproof-report merge DIR DIR... --output SET   (merge "
        "--help)\n"
        "       netproof-report compare BASE NEW --output DIR [...] "
        "(compare --help)\n",
    .doc = "docs/report.md",
    .exits = "exit: 0 ok; 1 a check failed (self-check: problems found; "
             "report: a set fails its\n"
             "      self-check, not rendered without --force); 2 usage or "
             "unreadable input;\n"
             "      3 run-time error; 4 self-check: the result set is "
             "incomplete (nothing else wrong)\n",
    .sections = report_sections,
    .nsections = sizeof report_sections / sizeof report_sections[0],
    .cfg_size = sizeof(CFG),
    .init = report_init,
    .validate = report_validate,
};

/* argv into c: 0, NP_EUSAGE (one line printed), or 1 for --help and
 * --version (printed: exit 0). */
static int parse(struct cli *c, int argc, char **argv) {
  struct np_errbuf eb = {{0}};
  int help = 0;
  if (np_bench_opt_parse(&np_report_optset, argc, argv, c, &help, &eb) != 0) {
    fprintf(stderr, "netproof-report: %s%s\n", eb.msg,
            strstr(eb.msg, "try --help") ? "" : " (try --help)");
    return NP_EUSAGE;
  }
  if (help == 1)
    np_bench_opt_help(&np_report_optset, stdout);
  else if (help == 2)
    np_identity_print_version(stdout, "netproof-report");
  return help ? 1 : 0;
}

static void print_problem(void *ctx, const char *file, const char *pointer,
                          const char *reason) {
  size_t *n = ctx;
  if (n != NULL)
    (*n)++;
  /* names and labels from the set: escaped, never acting on a terminal */
  np_text_printf(stdout, "%s: %s: %s\n", file, pointer[0] ? pointer : "/",
                 reason);
}

/* Every folder through the streaming self-check (np_results_check_dir):
 * exit 1 when any has a problem, else 4 when any is incomplete (its
 * "incomplete: N of M repetitions" note on stderr), else 0. */
static int self_check(const struct cli *c) {
  int problems = 0, incomplete = 0;
  for (size_t i = 0; i < c->nresults; i++) {
    struct np_results_outcome o;
    struct np_errbuf eb = {{0}};
    int rc = np_results_check_dir(c->results[i], label_of(c->results[i]),
                                  print_problem, NULL, &o, &eb);
    if (rc == NP_ECHECK || rc == NP_EINCOMPLETE) {
      problems |= rc == NP_ECHECK;
      incomplete |= o.incomplete;
      if (o.incomplete) {
        fflush(stdout);
        np_text_printf(stderr, "netproof-report: %s: %s\n", label_of(c->results[i]),
                o.note);
      }
    } else if (rc == NP_ENOMEM) {
      fprintf(stderr, "netproof-report: %s: %s\n", c->results[i],
              np_strerror(rc));
      return NP_EXIT_RUNTIME;
    } else if (rc != 0) {
      np_text_printf(stderr, "netproof-report: %s\n", eb.msg);
      return NP_EXIT_USAGE;
    }
  }
  fflush(stdout);
  fprintf(stderr, "netproof-report: self-check %s\n",
          problems     ? "found problems"
          : incomplete ? "clean, but the result set is incomplete"
                       : "clean");
  return problems ? NP_EXIT_FAIL : incomplete ? NP_EXIT_INCOMPLETE : NP_EXIT_OK;
}

/* The headline and the dimension units of DIR/<plan file name> into the
 * set's plan copy, when the copy has none (display only: neither changes
 * what the set measured or what the self-check holds). */
static void attach_plan_display(const char *plans,
                                struct np_results_set *s) {
  cJSON *plan = cJSON_GetObjectItemCaseSensitive(s->suite, "plan");
  if (plans == NULL || plan == NULL)
    return;
  const char *pf = np_json_get_string(s->suite, "plan_file", "");
  const char *base = strrchr(pf, '/') ? strrchr(pf, '/') + 1 : pf;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", plans, base);
  cJSON *doc = NULL;
  if (base[0] == '\0' || np_json_load_file(path, NULL, &doc, NULL) != 0)
    return;
  int same = strcmp(np_json_get_string(doc, "suite", ""),
                    np_json_get_string(plan, "suite", "?")) == 0;
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(doc, "headline");
  if (h != NULL && same && !cJSON_GetObjectItemCaseSensitive(plan, "headline"))
    cJSON_AddItemToObject(plan, "headline", cJSON_Duplicate(h, 1));
  /* dimension units, display only (plans from 0.2.0 on name them) */
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(doc, "dimension_units");
  if (u != NULL && same &&
      !cJSON_GetObjectItemCaseSensitive(plan, "dimension_units"))
    cJSON_AddItemToObject(plan, "dimension_units", cJSON_Duplicate(u, 1));
  cJSON_Delete(doc);
}

/* Load and self-check every folder; 0 or an exit code. */
static int load_sets(const struct cli *c, struct np_results_set **sets,
                     unsigned char *failed) {
  int refused = 0;
  for (size_t i = 0; i < c->nresults; i++) {
    struct np_ftree *t = NULL;
    struct np_errbuf eb = {{0}};
    const char *label = label_of(c->results[i]);
    int rc = np_ftree_load_dir_max(c->results[i], 0,
                                   NP_RESULTS_MAX_FILE_BYTES, &t, &eb);
    if (rc == 0)
      rc = np_results_load(t, label, &sets[i], &eb);
    if (rc != 0) {
      np_ftree_free(t);
      np_text_printf(stderr, "netproof-report: %s\n", eb.msg);
      return NP_EXIT_USAGE;
    }
    size_t problems = 0;
    struct np_results_outcome oc;
    rc = np_results_check_tree(t, label, print_problem, &problems, &oc);
    np_ftree_free(t);
    if (oc.incomplete && (rc == NP_ECHECK || rc == NP_EINCOMPLETE)) {
      /* rendered with its banner (np_report__info_init finds the missing
       * configurations); said here too */
      fflush(stdout);
      np_text_printf(stderr, "netproof-report: %s: %s\n", label, oc.note);
    }
    if (rc == NP_ECHECK) {
      failed[i] = 1;
      fflush(stdout);
      np_text_printf(stderr,
              "netproof-report: %s: self-check found %zu %s%s\n",
              label, problems, problems == 1 ? "problem" : "problems",
              c->force ? "; rendering it stamped \"self-check failed\" "
                         "(--force)"
                       : "; not rendering it (--force renders it stamped "
                         "\"self-check failed\")");
      refused |= !c->force;
    } else if (rc != 0 && rc != NP_EINCOMPLETE) {
      np_text_printf(stderr, "netproof-report: %s: self-check: %s\n", label,
              np_strerror(rc));
      return NP_EXIT_RUNTIME;
    }
    attach_plan_display(c->plans, sets[i]);
  }
  return refused ? NP_EXIT_FAIL : 0;
}

static int report(const struct cli *c) {
  struct np_results_set *sets[MAX_RESULTS] = {0};
  unsigned char failed[MAX_RESULTS] = {0};
  struct np_ftree *out = NULL, *fmt = NULL;
  struct np_errbuf eb = {{0}};
  /* a misspelt parent is refused before any work, nothing created */
  if (np_file_check_out_dir("--output", c->output, &eb) != 0) {
    fprintf(stderr, "netproof-report: %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  int code = load_sets(c, sets, failed);
  if (code != 0)
    goto free_sets;
  struct np_report_html_opts ho = {.dirs = c->results, .outdir = c->output,
                                   .link_relative = c->link_relative};
  struct np_report_opts o = {.title = c->title, .lang = c->lang,
                             .labels = c->labels, .check_failed = failed,
                             .error_bars = c->error_bars, .html = &ho};
  int rc;
  if (c->pages) {
    /* The hand-written <page>.reading.md files live in the output folder
     * and are embedded with their references expanded (np_report_refs.h);
     * a missing folder has none. */
    struct np_ftree *cur = NULL;
    struct np_errbuf reb = {{0}};
    char *changes = NULL;
    size_t clen = 0;
    if (c->measuring != NULL &&
        np_file_read_all(c->measuring, 1u << 24, &changes, &clen, &reb) !=
            0) {
      np_text_printf(stderr, "netproof-report: --measuring-changes: %s\n",
                     reb.msg);
      code = NP_EXIT_USAGE;
      goto free_sets;
    }
    if (np_ftree_load_dir(c->output, 0, &cur, &reb) != 0)
      cur = NULL;
    struct np_report_pages_opts po = {.results_rel = NULL, .readings = cur,
                                      .readings_dir = c->output,
                                      .labels = c->labels,
                                      .check_failed = failed, .mdx = c->mdx,
                                      .error_bars = c->error_bars,
                                      .measuring_changes = changes};
    rc = np_report_pages_build(sets, c->nresults, &po, &out, &eb);
    np_ftree_free(cur);
    free(changes);
  } else {
    rc = np_report_build(sets, c->nresults, &o, &out, &eb);
    if (rc == 0)
      rc = np_report_formats(out, sets, c->nresults, &o, c->formats, &fmt,
                             &eb);
    if (rc == 0) {
      np_ftree_free(out);
      out = fmt;
      fmt = NULL;
    }
  }
  if (rc == 0)
    rc = np_report_write_tree(out, c->output, &eb);
  if (rc != 0) {
    np_text_printf(stderr, "netproof-report: %s\n", eb.msg[0] ? eb.msg
                                                       : np_strerror(rc));
    /* a reading's reference that does not resolve is bad input */
    code = rc == NP_EINVAL && c->pages ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
  } else {
    fprintf(stderr, "netproof-report: wrote %zu files to %s\n",
            np_ftree_count(out), c->output);
  }
free_sets:
  np_ftree_free(out);
  np_ftree_free(fmt);
  for (size_t i = 0; i < c->nresults; i++)
    np_results_free(sets[i]);
  return code;
}

int np_report_cli(int argc, char **argv) {
  struct cli c = {0};
  if (argc > 1 && strcmp(argv[1], "merge") == 0)
    return np_results_merge_main(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "compare") == 0)
    return np_report_compare_cli(argc - 1, argv + 1);
  int rc = parse(&c, argc, argv);
  if (rc != 0) /* the one line, or --help / --version */
    return rc == 1 ? NP_EXIT_OK : NP_EXIT_USAGE;
  return c.self_check ? self_check(&c) : report(&c);
}
