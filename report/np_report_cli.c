/*
 * np_report_cli.c - parse netproof-report's arguments and run a report or
 * a self-check.  Results folders are labelled by their last path component
 * so messages and report.json carry no absolute paths.
 */
#include "np_report_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_report.h"
#include "np_report_pages.h"
#include "np_results_selfcheck.h"

#define MAX_RESULTS 32

struct cli {
  const char *results[MAX_RESULTS]; /* --results folders, in order */
  size_t nresults;
  const char *output;               /* --output folder             */
  const char *title;                /* --title or NULL             */
  const char *lang;                 /* --lang, "en"                */
  int self_check;                   /* --self-check                */
  int pages;                        /* --pages (docs/performance)  */
};

static void usage(FILE *f) {
  fputs("usage: netproof-report --results DIR [--results DIR ...] --output "
        "OUTDIR [--title TEXT] [--lang en]\n"
        "       netproof-report --self-check --results DIR [...]\n"
        "       netproof-report --pages --results DIR [--results DIR ...] "
        "--output docs/performance\n"
        "exit: 0 ok; 1 a check failed (self-check: problems found); 2 usage "
        "or unreadable input;\n"
        "      3 run-time error; 4 self-check: the result set is incomplete "
        "(nothing else wrong)\n",
        f);
}

static const char *label_of(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  const char *p = dir + n;
  while (p > dir && p[-1] != '/')
    p--;
  return p;
}

/* argv into c: 0 or NP_EUSAGE (one line printed). */
static int parse(struct cli *c, int argc, char **argv) {
  c->lang = "en";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    if (strcmp(a, "--self-check") == 0)
      c->self_check = 1;
    else if (strcmp(a, "--pages") == 0)
      c->pages = 1;
    else if (strcmp(a, "--results") == 0 && has) {
      if (c->nresults == MAX_RESULTS) {
        fprintf(stderr, "netproof-report: at most %d --results\n",
                MAX_RESULTS);
        return NP_EUSAGE;
      }
      c->results[c->nresults++] = argv[++i];
    } else if (strcmp(a, "--output") == 0 && has)
      c->output = argv[++i];
    else if (strcmp(a, "--title") == 0 && has)
      c->title = argv[++i];
    else if (strcmp(a, "--lang") == 0 && has)
      c->lang = argv[++i];
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(NP_EXIT_OK);
    } else {
      fprintf(stderr, "netproof-report: %s: %s\n", a,
              has || a[0] != '-' ? "unknown argument" : "needs a value");
      return NP_EUSAGE;
    }
  }
  if (c->nresults == 0) {
    fprintf(stderr, "netproof-report: --results DIR is required\n");
    return NP_EUSAGE;
  }
  if (c->self_check && c->pages) {
    fprintf(stderr, "netproof-report: --self-check and --pages exclude "
                    "each other\n");
    return NP_EUSAGE;
  }
  if (!c->self_check && c->output == NULL) {
    fprintf(stderr, "netproof-report: --output OUTDIR is required\n");
    return NP_EUSAGE;
  }
  if (strcmp(c->lang, "en") != 0) {
    fprintf(stderr, "netproof-report: --lang %s: only \"en\" is supported\n",
                    c->lang);
    return NP_EUSAGE;
  }
  return 0;
}

static void print_problem(void *ctx, const char *file, const char *pointer,
                          const char *reason) {
  (void)ctx;
  printf("%s: %s: %s\n", file, pointer[0] ? pointer : "/", reason);
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
        fprintf(stderr, "netproof-report: %s: %s\n", label_of(c->results[i]),
                o.note);
      }
    } else if (rc == NP_ENOMEM) {
      fprintf(stderr, "netproof-report: %s: %s\n", c->results[i],
              np_strerror(rc));
      return NP_EXIT_RUNTIME;
    } else if (rc != 0) {
      fprintf(stderr, "netproof-report: %s\n", eb.msg);
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

static int report(const struct cli *c) {
  struct np_results_set *sets[MAX_RESULTS] = {0};
  struct np_ftree *out = NULL;
  struct np_errbuf eb = {{0}};
  int code = NP_EXIT_OK;
  for (size_t i = 0; i < c->nresults; i++) {
    struct np_ftree *t = NULL;
    int rc = np_ftree_load_dir(c->results[i], 0, &t, &eb);
    if (rc == 0)
      rc = np_results_load(t, label_of(c->results[i]), &sets[i], &eb);
    np_ftree_free(t);
    if (rc != 0) {
      fprintf(stderr, "netproof-report: %s\n", eb.msg);
      code = NP_EXIT_USAGE;
      goto free_sets;
    }
  }
  struct np_report_opts o = {.title = c->title, .lang = c->lang};
  int rc;
  if (c->pages) {
    /* The hand-written <page>.reading.md files live in the output folder
     * and are embedded verbatim; a missing folder has none. */
    struct np_ftree *cur = NULL;
    struct np_errbuf reb = {{0}};
    if (np_ftree_load_dir(c->output, 0, &cur, &reb) != 0)
      cur = NULL;
    struct np_report_pages_opts po = {.results_rel = NULL, .readings = cur};
    rc = np_report_pages_build(sets, c->nresults, &po, &out, &eb);
    np_ftree_free(cur);
  } else {
    rc = np_report_build(sets, c->nresults, &o, &out, &eb);
  }
  if (rc == 0)
    rc = np_report_write_tree(out, c->output, &eb);
  if (rc != 0) {
    fprintf(stderr, "netproof-report: %s\n", eb.msg[0] ? eb.msg
                                                       : np_strerror(rc));
    code = NP_EXIT_RUNTIME;
  } else {
    fprintf(stderr, "netproof-report: wrote %zu files to %s\n",
            np_ftree_count(out), c->output);
  }
free_sets:
  np_ftree_free(out);
  for (size_t i = 0; i < c->nresults; i++)
    np_results_free(sets[i]);
  return code;
}

int np_report_cli(int argc, char **argv) {
  struct cli c = {0};
  if (parse(&c, argc, argv) != 0) {
    usage(stderr);
    return NP_EXIT_USAGE;
  }
  return c.self_check ? self_check(&c) : report(&c);
}
