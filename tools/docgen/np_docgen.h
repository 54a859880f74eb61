/*
 * np_docgen.h - the build-time generator of netproof's man pages and bash
 * completion (np_docgen, built by tools/CMakeLists.txt, run by
 * cmake/np_install.cmake, never installed).  Both come from the tables the
 * programs themselves run on: the netproof-bench command table
 * (bench/np_bench_commands.h) and each program's option table
 * (common/np_bench_opt.h), which also drive the parsers and --help.
 * What no table holds - descriptions, examples, exit codes - is in the
 * page templates under man/ (scdoc with @MARKERS@, see man/README.md);
 * every program's and command's OPTIONS come from its table, and
 * tests/install checks the pages against the tables and each --help.
 *
 * A table command without a template of its own gets the generic page
 * man/netproof-bench-command.1.scd.in, so a new command row has its man
 * page and completion with no further work.
 */
#ifndef NP_DOCGEN_H
#define NP_DOCGEN_H

#include <stddef.h>
#include <stdio.h>

#include "np_bench_commands.h"
#include "np_err.h"

/* The installed programs: each has a page man/NAME.1.scd and a
 * completion file of that name (NULL-terminated). */
extern const char *const np_docgen_programs[];

/* The option tables of pages that are not a netproof-bench command's
 * (netproof-validate ...): the page's @OPTIONS@ marker (or @OPTIONS-X@
 * for a second table on one page, a subcommand's) expands to the rows of
 * opts.  Ends with a NULL page. */
struct np_docgen_table {
  const char *page;                   /* "netproof-validate"            */
  const char *marker;                 /* "OPTIONS", "OPTIONS-COMPARE"   */
  const struct np_bench_optset *opts; /* the table the program parses  */
};
extern const struct np_docgen_table np_docgen_tables[];

/* One man page: its name ("netproof-bench-udp") and expanded scdoc. */
struct np_docgen_page {
  char *name;                        /* page name, section 1 implied     */
  char *text;                        /* scdoc source, markers expanded   */
  const struct np_bench_command *cmd; /* the netproof-bench command it
                                        documents, or NULL             */
};

/* Every page, sorted by name; owns the strings. */
struct np_docgen_pages {
  struct np_docgen_page *v;
  size_t n;
};

/* Expand every page from the templates in tmpl_dir (man/).  *out is
 * written on success; NP_EPARSE names the template and the marker on a
 * bad or misplaced marker, NP_ENOENT a missing template. */
int np_docgen_pages_build(const char *tmpl_dir, struct np_docgen_pages *out,
                          struct np_errbuf *eb);

/* The page every table command would get from the generic template
 * alone (what a new command without a page of its own gets), for
 * tests/install to hold against the tables. */
int np_docgen_generic_pages(const char *tmpl_dir, struct np_docgen_pages *out,
                            struct np_errbuf *eb);

/* Frees the pages; p may be NULL. */
void np_docgen_pages_free(struct np_docgen_pages *p);

/* The page named name, or NULL. */
const struct np_docgen_page *
np_docgen_page_find(const struct np_docgen_pages *p, const char *name);

/* text with scdoc's formatting characters (\ * _) escaped. */
void np_docgen_escape(FILE *fp, const char *text);

/* How a completion offers an option's value. */
enum np_docgen_value {
  NP_DOCGEN_NONE,   /* a flag: no value                                 */
  NP_DOCGEN_WORDS,  /* one of a list (a choice row)                     */
  NP_DOCGEN_FILE,   /* a file name                                      */
  NP_DOCGEN_DIR,    /* a folder name                                    */
  NP_DOCGEN_TEXT    /* anything: nothing to offer                       */
};

/* The value kind a placeholder implies: *DIR*, DEST -> DIR; *FILE*,
 * BUNDLE, PATH, PREFIX -> FILE; "" -> NONE; else TEXT. */
enum np_docgen_value np_docgen_value_of(const char *metavar);

/* The completion script: tmpl (completions/netproof.bash.in) with its
 * @TABLES@ line replaced by the generated tables and @PLANS_REL@ /
 * @PLANS_DIR@ by where installed plans are, written to out_dir/PROGRAM
 * for every program. */
int np_docgen_bash(const struct np_docgen_pages *pages, const char *tmpl,
                   const char *plans_rel, const char *plans_dir,
                   const char *out_dir, struct np_errbuf *eb);

/* Read a whole text file (at most 1 MiB) into *out (caller frees). */
int np_docgen_read(const char *path, char **out, struct np_errbuf *eb);

/* Write len bytes to path atomically. */
int np_docgen_write(const char *path, const char *text, size_t len,
                    struct np_errbuf *eb);

#endif /* NP_DOCGEN_H */
