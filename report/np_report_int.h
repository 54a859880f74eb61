/*
 * np_report_int.h - state shared by the report's parts while it is built
 * (internal to report/; not a public interface).
 */
#ifndef NP_REPORT_INT_H
#define NP_REPORT_INT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_report.h"
#include "np_report_assets.h"

struct np_report_ctx {
  struct np_results_set *const *sets; /* inputs                           */
  size_t nsets;
  const struct np_report_opts *opts;
  struct np_ftree *out;   /* files produced so far                       */
  cJSON *json;            /* report.json being built                     */
  cJSON *jcharts;         /* report.json "charts" array (in json)        */
  cJSON *jtables;         /* report.json "tables" array (in json)        */
  FILE *md;               /* index.md being written (memstream)          */
  struct np_errbuf *eb;
  const char *asset_prefix; /* prefix of chart file stems ("" or NULL =
                             * none; pages use the suite name)           */
};

/* Charts of one set: SVGs into ctx->out, entries in ctx->jcharts, image
 * links into ctx->md.  section selects "io", "grid" or "limits". */
int np_report_charts(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const char *section);

/* Markdown tables of one set (and their values into ctx->jtables). */
void np_report_tables_conditions(struct np_report_ctx *ctx,
                                 const struct np_results_set *s);
void np_report_tables_correctness(struct np_report_ctx *ctx);
/* One sentence of a set's own conditions (for pages holding many sets). */
void np_report_tables_conditions_short(struct np_report_ctx *ctx,
                                       const struct np_results_set *s);
void np_report_tables_perf(struct np_report_ctx *ctx,
                           const struct np_results_set *s);
void np_report_tables_limits(struct np_report_ctx *ctx,
                             const struct np_results_set *s);
void np_report_tables_mtu(struct np_report_ctx *ctx);

/* The buffer-isolation chart (lost echoes and kernel socket drops per
 * row, each row labelled with payload x window and its in-flight budget
 * against the effective server receive buffer) and the reference's
 * "Receive Buffer Isolation" table. */
int np_report_isolation_chart(struct np_report_ctx *ctx,
                              const struct np_results_set *s);
void np_report_isolation_table(struct np_report_ctx *ctx,
                               const struct np_results_set *s);

/* Page sections (np_report_pages_sections.c).  sets/nsets of ctx are
 * the page's sets. */
void np_pages_dates_line(struct np_report_ctx *ctx);
void np_pages_lost_table(struct np_report_ctx *ctx,
                         const struct np_results_set *s);
void np_pages_kernel_evidence(struct np_report_ctx *ctx,
                              const struct np_results_set *s);
void np_pages_reproduce(struct np_report_ctx *ctx, const char *results_rel);
void np_pages_links(struct np_report_ctx *ctx, const char *results_rel);
void np_pages_reading(struct np_report_ctx *ctx, const char *text, size_t len,
                      const char *page);

/* np_report_title.c: the default title when every run of the sets was a
 * `udp --connect` run - the server's identity; 0 (buf untouched) else. */
int np_report_title_default(struct np_results_set *const *sets, size_t nsets,
                            char *buf, size_t len);

#endif /* NP_REPORT_INT_H */
