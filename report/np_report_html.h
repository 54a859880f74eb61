/*
 * np_report_html.h - the report as one page a browser opens offline
 * (`netproof-report --format html`, np_report_html.c).
 *
 * index.html is built from the same report model as the Markdown page:
 * report.json's tables (every row, every field; numbers carry their exact
 * value in data-value, the cell shows it rounded) and its charts (the SVG
 * of the Markdown report inline, its title and subtitle, a "data" link to
 * data/<chart>.csv with every point the chart draws).  Rows of a
 * configuration gain its plan dimensions (from summary.json) as columns
 * and a list of its runs: status, failed checks with their detail and the
 * run's files, copied under runs/<set>/<config>/ (or, with
 * link_relative, linked into the results folder).  Each set starts with
 * its conditions, its self-check verdict and banner, the measuring hash
 * and the machine.
 *
 * Offline by construction: no URL outside OUT; a Content-Security-Policy
 * meta allows no remote load and no script but the page's own (by its
 * SHA-256); every text from a record, plan or label is escaped.  The page
 * is whole without JavaScript; the script only sorts and filters.
 */
#ifndef NP_REPORT_HTML_H
#define NP_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_results.h"

/* Where the run files come from, per set (the --results folders). */
struct np_report_html_opts {
  const char *const *dirs; /* nsets results folders, as given             */
  const char *outdir;      /* the --output folder (for relative links)    */
  int link_relative;       /* 1: link into dirs instead of copying        */
};

/* Add index.html, data/<chart>.csv and (unless link_relative) the run
 * files to t, from report (report.json), md (the Markdown report's tree:
 * its SVGs) and the loaded sets.  0, NP_ENOMEM, NP_EIO / NP_ENOENT (a run
 * file could not be read: "DIR/runs/...: reason" in eb). */
int np_report_html(const cJSON *report, const struct np_ftree *md,
                   struct np_results_set *const *sets, size_t nsets,
                   const struct np_report_html_opts *o, struct np_ftree *t,
                   struct np_errbuf *eb);

/* Helpers of every netproof page (the report's and compare's). */

/* s as HTML text or attribute value: & < > " ' escaped, control
 * characters (a terminal's escape sequences among them) as U+FFFD. */
void np_report_html_esc(FILE *f, const char *s);

/* A number for reading: grouped thousands from 10,000, else at most 4
 * significant digits; "-" when not finite. */
void np_report_html_num(char *buf, size_t len, double v);

/* The script-src sources of the page's two scripts (the guard and the
 * page's own), "sha256-A' 'sha256-B" for the template's quotes.  0 or
 * NP_E*. */
int np_report_html_script_hash(char *out, size_t len);

/* The page up to and including its <h1> text (the caller closes the h1,
 * writes the header, opens <main>); and from </main> to the end, with
 * the script. */
void np_report_html_head(FILE *f, const char *title, const char *hash);
void np_report_html_foot(FILE *f);

/* The page's style sheet and script (np_report_html_assets.c). */
extern const char np_report_html_css[];
extern const char np_report_html_js[];
/* The first script of the page, before anything loads: counts every load
 * the Content-Security-Policy refused, on <html data-csp-violations>
 * (data-csp-blocked names the last), so a browser test sees any attempt
 * to leave the page's folder. */
extern const char np_report_html_guard_js[];

#endif /* NP_REPORT_HTML_H */
