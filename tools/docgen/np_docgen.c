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
 *       choices", for tests/install to hold the pages and the completion
 *       against
 *
 * Exit 0, or 2 with one line naming the template and the problem.
 */
#include "np_docgen.h"

#include <stdlib.h>
#include <string.h>

#include "np_file.h"

const char *const np_docgen_programs[] = {
    "netproof-bench", "netproof-report", "netproof-archive",
    "netproof-validate", NULL};

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

/* The option table rows of every command, for tests. */
static void dump_options(FILE *fp) {
  for (size_t c = 0; c < np_bench_ncommands; c++) {
    const struct np_bench_optset *s = np_bench_commands[c].opts;
    if (s == NULL)
      continue;
    size_t n = np_bench_opt_count(s);
    for (size_t i = 0; i < n; i++) {
      const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
      fprintf(fp, "%s\t--%s\t%s\t", np_bench_commands[c].name, o->name,
              np_bench_opt_metavar(o));
      for (size_t k = 0, w = 0; o->type == NP_BENCH_OPT_CHOICE &&
                                o->choices[k]; k++)
        if (np_bench_opt_offers(o, k))
          fprintf(fp, "%s%s", w++ ? " " : "", o->choices[k]);
      fputc('\n', fp);
    }
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
