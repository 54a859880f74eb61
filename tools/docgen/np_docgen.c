/*
 * np_docgen.c - np_docgen's command line and the helpers its two writers
 * share (see np_docgen.h).
 *
 *   np_docgen man TEMPLATES OUTDIR
 *       OUTDIR/NAME.1.scd for every page (scdoc renders them to roff)
 *   np_docgen man-generic TEMPLATES OUTDIR
 *       the page of every table command from the generic template alone,
 *       as a new command gets it (for tests)
 *   np_docgen bash TEMPLATES BASH.in PLANS_REL PLANS_DIR OUTDIR
 *       OUTDIR/PROGRAM, the bash completion, for every program
 *   np_docgen options
 *       every option table row as "command<TAB>--name<TAB>metavar<TAB>
 *       choices" (command: a netproof-bench command, or a program's page,
 *       "netproof-validate", with "/OPTIONS-X" for a second table), for
 *       tests/install to hold the pages and the completion against
 *
 * Exit 0, or 2 with one line naming the template and the problem.
 */
#include "np_docgen.h"

#include <stdlib.h>
#include <string.h>

#include "np_archive_cli.h"
#include "np_file.h"
#include "np_report_cli.h"
#include "np_report_compare.h"
#include "np_results_merge.h"
#include "np_validate_cli.h"

const char *const np_docgen_programs[] = {
    "netproof-bench", "netproof-report", "netproof-archive",
    "netproof-validate", NULL};

const struct np_docgen_table np_docgen_tables[] = {
    {"netproof-bench", "OPTIONS", &np_bench_top_optset},
    {"netproof-archive", "OPTIONS", &np_archive_optset},
    {"netproof-report", "OPTIONS", &np_report_optset},
    {"netproof-report", "OPTIONS-COMPARE", &np_report_compare_optset},
    {"netproof-report", "OPTIONS-MERGE", &np_results_merge_optset},
    {"netproof-validate", "OPTIONS", &np_validate_optset},
    {NULL, NULL, NULL}};

void np_docgen_escape(FILE *fp, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '\\' || *p == '*' || *p == '_')
      fputc('\\', fp);
    fputc(*p, fp);
  }
}

static int contains(const char *s, const char *word) {
  return strstr(s, word) != NULL;
}

enum np_docgen_value np_docgen_value_of(const char *metavar) {
  if (metavar == NULL || metavar[0] == '\0')
    return NP_DOCGEN_NONE;
  if (contains(metavar, "DIR") || contains(metavar, "DEST"))
    return NP_DOCGEN_DIR;
  if (contains(metavar, "FILE") || contains(metavar, "BUNDLE") ||
      contains(metavar, "PATH") || contains(metavar, "PREFIX"))
    return NP_DOCGEN_FILE;
  return NP_DOCGEN_TEXT;
}

int np_docgen_read(const char *path, char **out, struct np_errbuf *eb) {
  size_t n = 0;
  return np_file_read_all(path, 1u << 20, out, &n, eb);
}

int np_docgen_write(const char *path, const char *text, size_t len,
                    struct np_errbuf *eb) {
  return np_file_write_atomic(path, text, len, eb);
}

/* One table's documented rows (hidden ones are not) as dump lines. */
static void dump_table(FILE *fp, const char *name,
                       const struct np_bench_optset *s) {
  size_t n = np_bench_opt_count(s);
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    if (o->flags & NP_BENCH_OPT_HIDDEN)
      continue;
    fprintf(fp, "%s\t%s%s\t%s\t", name, np_bench_opt_dashes(o), o->name,
            np_bench_opt_metavar(o));
    for (size_t k = 0, w = 0; o->type == NP_BENCH_OPT_CHOICE &&
                              o->choices[k]; k++)
      if (np_bench_opt_offers(o, k))
        fprintf(fp, "%s%s", w++ ? " " : "", o->choices[k]);
    fputc('\n', fp);
    for (const char *a = o->alias; a != NULL && *a;) { /* other spellings */
      int l = (int)strcspn(a, " ");
      fprintf(fp, "%s\t%.*s\t%s\t\n", name, l, a, np_bench_opt_metavar(o));
      a += l;
      a += strspn(a, " ");
    }
  }
}

/* The option table rows of every command, then of every program table
 * (named PAGE or PAGE/MARKER), for tests. */
static void dump_options(FILE *fp) {
  for (size_t c = 0; c < np_bench_ncommands; c++)
    if (np_bench_commands[c].opts != NULL)
      dump_table(fp, np_bench_commands[c].name, np_bench_commands[c].opts);
  for (size_t t = 0; np_docgen_tables[t].page != NULL; t++) {
    char name[128];
    const struct np_docgen_table *d = &np_docgen_tables[t];
    snprintf(name, sizeof name, "%s%s%s", d->page,
             strcmp(d->marker, "OPTIONS") ? "/" : "",
             strcmp(d->marker, "OPTIONS") ? d->marker : "");
    dump_table(fp, name, d->opts);
  }
}

static int write_pages(const struct np_docgen_pages *pages,
                       const char *out_dir, struct np_errbuf *eb) {
  char path[4096];
  for (size_t i = 0; i < pages->n; i++) {
    const struct np_docgen_page *pg = &pages->v[i];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.1.scd", out_dir,
                         pg->name) >= sizeof path)
      return np_errbuf_set(eb, NP_ERANGE, "%s: path too long", out_dir);
    int rc = np_docgen_write(path, pg->text, strlen(pg->text), eb);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static void usage(FILE *fp) {
  fputs("usage: np_docgen man TEMPLATES OUTDIR\n"
        "       np_docgen man-generic TEMPLATES OUTDIR\n"
        "       np_docgen bash TEMPLATES BASH.in PLANS_REL PLANS_DIR OUTDIR\n"
        "       np_docgen options\n",
        fp);
}

int main(int argc, char **argv) {
  struct np_errbuf eb = {{0}};
  struct np_docgen_pages pages = {NULL, 0};
  int rc;
  if (argc == 2 && strcmp(argv[1], "options") == 0) {
    dump_options(stdout);
    return fflush(stdout) == 0 ? NP_EXIT_OK : NP_EXIT_RUNTIME;
  }
  if (argc == 4 && strcmp(argv[1], "man") == 0) {
    if ((rc = np_docgen_pages_build(argv[2], &pages, &eb)) == 0)
      rc = write_pages(&pages, argv[3], &eb);
  } else if (argc == 4 && strcmp(argv[1], "man-generic") == 0) {
    if ((rc = np_docgen_generic_pages(argv[2], &pages, &eb)) == 0)
      rc = write_pages(&pages, argv[3], &eb);
  } else if (argc == 7 && strcmp(argv[1], "bash") == 0) {
    if ((rc = np_docgen_pages_build(argv[2], &pages, &eb)) == 0)
      rc = np_docgen_bash(&pages, argv[3], argv[4], argv[5], argv[6], &eb);
  } else {
    usage(stderr);
    return NP_EXIT_USAGE;
  }
  np_docgen_pages_free(&pages);
  if (rc != 0) {
    fprintf(stderr, "np_docgen: %s\n", eb.msg[0] ? eb.msg : np_strerror(rc));
    return rc == NP_ENOMEM || rc == NP_EIO || rc == NP_ENOSPC
               ? NP_EXIT_RUNTIME
               : NP_EXIT_USAGE;
  }
  return NP_EXIT_OK;
}
