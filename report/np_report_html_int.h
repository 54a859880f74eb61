/*
 * np_report_html_int.h - what the page (np_report_html.c) and its tables
 * (np_report_html_table.c) share.  Internal to report/.
 */
#ifndef NP_REPORT_HTML_INT_H
#define NP_REPORT_HTML_INT_H

#include <limits.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_results.h"

/* What the page links a run file by: a copy under runs/<set>/ or the
 * results folder seen from the output folder (rel, ends in '/'). */
struct np_report_html__setctx {
  const struct np_results_set *s;
  const char *label;  /* the set's label in report.json              */
  const char *dir;    /* its results folder                          */
  char rel[PATH_MAX]; /* link_relative: dir seen from the output     */
  int relative;       /* link into dir instead of copying            */
};

/* A page-unique id from text: letters, digits, '-', '_' and '.'. */
void np_report_html__idtext(char *buf, size_t len, const char *prefix,
                            const char *s);

/* One report.json table as a page table (sc NULL: a table of no set),
 * its runs' files added to t.  0, NP_ENOMEM, NP_ERANGE (too many columns
 * or files, one line in eb), or a run file's read error. */
int np_report_html__table(FILE *f, const cJSON *tab,
                          const struct np_report_html__setctx *sc,
                          struct np_ftree *t, struct np_errbuf *eb);

#endif /* NP_REPORT_HTML_INT_H */
