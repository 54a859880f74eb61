/*
 * np_report_formats.h - the report in the formats other tools read
 * (np_report_formats.c): every table of report.json as CSV, and a compact
 * JSON summary of the sets.
 */
#ifndef NP_REPORT_FORMATS_H
#define NP_REPORT_FORMATS_H

#include <stddef.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_report.h"

enum np_report_format {
  NP_REPORT_FMT_MD = 1,  /* index.md, report.json, the SVG charts        */
  NP_REPORT_FMT_CSV = 2, /* tables/<table id>.csv, one per table         */
  NP_REPORT_FMT_JSON = 4 /* report-summary.json, one compact object      */
};

/* From a built report tree (np_report_build) the files of `formats`
 * (enum np_report_format bits) into a new tree *out.  NP_ENOMEM,
 * NP_EPARSE (report.json missing from md). */
int np_report_formats(const struct np_ftree *md,
                      struct np_results_set *const *sets, size_t nsets,
                      const struct np_report_opts *o, unsigned formats,
                      struct np_ftree **out, struct np_errbuf *eb);

#endif /* NP_REPORT_FORMATS_H */
