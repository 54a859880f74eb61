/*
 * np_report.h - turn result sets into charts, tables and report.json.
 *
 * np_report_build renders every output into an in-memory np_ftree
 * (index.md, report.json, assets/<chart>.svg) and only then
 * np_report_write_tree puts it on disk, file by file atomically, so a
 * failure leaves no partial report.  The output is a pure function of the
 * input sets and options: no clock, no absolute path, stable ordering.
 */
#ifndef NP_REPORT_H
#define NP_REPORT_H

#include <stddef.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_results.h"

/* The error bars of the charts (--error-bars). */
enum np_report_error_bars {
  NP_REPORT_EB_AUTO,   /* ci95 for a set whose every configuration has at
                        * least 5 runs, else min/max (the reference's)   */
  NP_REPORT_EB_MINMAX, /* min/max of the runs                            */
  NP_REPORT_EB_CI95    /* 95 % bootstrap interval of the median (none for
                        * a bar of fewer than 5 runs)                    */
};

struct np_report_html_opts;

struct np_report_opts {
  const char *title; /* page title; NULL = from the sets' protocols      */
  const char *lang;  /* only "en" for now                                 */
  const char *const *labels;  /* NULL or nsets display names (a NULL
                               * entry: the results folder's name)       */
  const unsigned char *check_failed; /* NULL or nsets flags: the set
                               * failed its self-check and is rendered
                               * anyway (--force), every page and chart
                               * stamped "self-check failed"             */
  enum np_report_error_bars error_bars; /* --error-bars (AUTO = 0)       */
  const struct np_report_html_opts *html; /* --format html: run files'
                               * folders and link rule (NULL: no html)   */
};

/* Build the report of nsets loaded sets.  *out is a new tree the caller
 * frees.  Errors: NP_EPLOT (charts), NP_ENOMEM, NP_EINVAL. */
int np_report_build(struct np_results_set *const *sets, size_t nsets,
                    const struct np_report_opts *opts, struct np_ftree **out,
                    struct np_errbuf *eb);

/* Write every file of t under outdir (created if missing, subfolders too),
 * through np_outdir.h: a symbolic link anywhere under outdir, or
 * outdir itself, is refused (NP_EINVAL), never followed. */
int np_report_write_tree(const struct np_ftree *t, const char *outdir,
                         struct np_errbuf *eb);

#endif /* NP_REPORT_H */
