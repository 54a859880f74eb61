/*
 * np_report_formats.h - the report in the formats other tools read
 * (np_report_formats.c): every table of report.json as CSV, and a compact
 * JSON summary of the sets.
 */
#ifndef NP_REPORT_FORMATS_H
#define NP_REPORT_FORMATS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_report.h"

enum np_report_format {
  NP_REPORT_FMT_MD = 1,  /* index.md, report.json, the SVG charts        */
  NP_REPORT_FMT_CSV = 2, /* tables/<table id>.csv, one per table         */
  NP_REPORT_FMT_JSON = 4, /* report-summary.json, one compact object     */
  NP_REPORT_FMT_HTML = 8  /* index.html: one offline page (np_report_html) */
};

/* Flattened (key, value text) pairs of one report.json row; a row has
 * well under NP_REPORT_FLAT_MAX fields (the widest, rudp_results, about
 * 50).  Nested objects become "key.sub", arrays of strings one
 * space-separated text, numbers their shortest exact text (is_num, num). */
#define NP_REPORT_FLAT_MAX 160
struct np_report_flat {
  char key[NP_REPORT_FLAT_MAX][128];
  char val[NP_REPORT_FLAT_MAX][512];
  double num[NP_REPORT_FLAT_MAX];
  unsigned char is_num[NP_REPORT_FLAT_MAX];
  size_t n;
};

/* Append o's fields under prefix ("" at the top) to fl.  NP_ERANGE when
 * the row has more fields than fl holds. */
int np_report_flatten(const cJSON *o, const char *prefix,
                      struct np_report_flat *fl);

/* The column name of a flattened key: its unit token cut out and put in
 * brackets, as the SI symbol ("rtt_p99_us.median" -> "rtt_p99.median
 * [μs]"). */
void np_report_column_name(char *buf, size_t len, const char *key);

/* A number's shortest text that reads back to v (integers without a
 * fraction). */
void np_report_number_text(char *buf, size_t len, double v);

/* From a built report tree (np_report_build) the files of `formats`
 * (enum np_report_format bits) into a new tree *out.  NP_ENOMEM,
 * NP_EPARSE (report.json missing from md). */
int np_report_formats(const struct np_ftree *md,
                      struct np_results_set *const *sets, size_t nsets,
                      const struct np_report_opts *o, unsigned formats,
                      struct np_ftree **out, struct np_errbuf *eb);

#endif /* NP_REPORT_FORMATS_H */
