/*
 * np_report_pages.h - the performance pages of docs/performance/ (issue 9).
 *
 * Each results folder goes to one page by its suite name (suite.json):
 * udp-size-limits -> udp-limits.md, rudp-* -> rudp.md, any other (udp-*,
 * quick) -> udp.md.  A page is laid out like the reference pages: title,
 * dates and run counts, test conditions, correctness and load range,
 * charts and tables per suite, buffer isolation or size limits with the
 * kernel's evidence, the hand-written reading (docs/performance/
 * <page>.reading.md, embedded under "## Reading the results"),
 * the exact commands to reproduce, and relative links to the raw folders.
 * Charts go to assets/<suite>-<chart>.svg (the set's label instead of
 * its suite when two sets of one suite share a page), every value with
 * its run ids to assets/<page>-report.json.  With mdx the pages are
 * <page>.mdx for documentation sites (np_report_mdx.h).  Output is a pure
 * function of the inputs.
 */
#ifndef NP_REPORT_PAGES_H
#define NP_REPORT_PAGES_H

#include <stddef.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_report.h"
#include "np_results.h"

struct np_report_pages_opts {
  const char *results_rel;        /* link from a page to the results
                                   * folders; NULL = "../../results"     */
  const struct np_ftree *readings;/* the output folder's current files
                                   * (for <page>.reading.md) or NULL     */
  const char *readings_dir;       /* that folder, to name a reading in
                                   * messages, or NULL                   */
  const char *const *labels;      /* NULL or nsets display names         */
  const unsigned char *check_failed; /* NULL or nsets flags (--force)    */
  int mdx;                        /* 1 = <page>.mdx with YAML front
                                   * matter and MDX-safe text            */
  enum np_report_error_bars error_bars; /* --error-bars (AUTO = 0)       */
  const char *measuring_changes;  /* --measuring-changes FILE's text
                                   * (np_report_measuring.c) or NULL     */
};

/* Build every page that has a result set.  *out is a new tree the caller
 * frees (write it with np_report_write_tree).  NP_EPLOT, NP_ENOMEM,
 * NP_EINVAL (no sets; a reference in a reading that does not resolve,
 * np_report_refs.h: "FILE:LINE: {{...}}: reason" in eb). */
int np_report_pages_build(struct np_results_set *const *sets, size_t nsets,
                          const struct np_report_pages_opts *o,
                          struct np_ftree **out, struct np_errbuf *eb);

#endif /* NP_REPORT_PAGES_H */
