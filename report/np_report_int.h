/*
 * np_report_int.h - state shared by the report's parts while it is built
 * (internal to report/; not a public interface).
 */
#ifndef NP_REPORT_INT_H
#define NP_REPORT_INT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_report.h"

struct np_report_ctx {
  struct np_report_set *const *sets; /* inputs                           */
  size_t nsets;
  const struct np_report_opts *opts;
  struct np_ftree *out;   /* files produced so far                       */
  cJSON *json;            /* report.json being built                     */
  cJSON *jcharts;         /* report.json "charts" array (in json)        */
  cJSON *jtables;         /* report.json "tables" array (in json)        */
  FILE *md;               /* index.md being written (memstream)          */
  struct np_errbuf *eb;
};

/* Charts of one set: SVGs into ctx->out, entries in ctx->jcharts, image
 * links into ctx->md.  section selects "io", "grid" or "limits". */
int np_report_charts(struct np_report_ctx *ctx, const struct np_report_set *s,
                     const char *section);

/* Markdown tables of one set (and their values into ctx->jtables). */
void np_report_tables_conditions(struct np_report_ctx *ctx,
                                 const struct np_report_set *s);
void np_report_tables_correctness(struct np_report_ctx *ctx);
void np_report_tables_perf(struct np_report_ctx *ctx,
                           const struct np_report_set *s);
void np_report_tables_limits(struct np_report_ctx *ctx,
                             const struct np_report_set *s);
void np_report_tables_mtu(struct np_report_ctx *ctx);

/* Configurations of s ordered by their dimension values (caller frees). */
const struct np_report_config **np_report_sorted_configs(
    const struct np_report_set *s);

/* Array of the run ids of c (passed runs only when passed_only). */
cJSON *np_report_run_ids(const struct np_report_config *c, int passed_only);

#endif /* NP_REPORT_INT_H */
