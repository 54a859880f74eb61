/*
 * np_report_int.h - state shared by the report's parts while it is built
 * (internal to report/; not a public interface).
 *
 * One context serves the index report (np_report.c) and each performance
 * page (np_report_pages.c).  Every set has a display name and a file-name
 * slug that are unique among the sets of the build, so two sets of one
 * plan never share a chart or a table name; charts and tables of a set
 * carry its marks (self-check stamp, unstable, excluded, missing).
 */
#ifndef NP_REPORT_INT_H
#define NP_REPORT_INT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_report.h"
#include "np_report_assets.h"

/* What the report knows about one set beyond the set itself. */
struct np_report_setinfo {
  char name[256];   /* display name: --label, else the folder (index) or
                     * the suite when unique on the page (pages)       */
  char slug[160];   /* [A-Za-z0-9._-] form of name, unique in the build */
  int check_failed; /* failed its self-check, rendered under --force   */
  size_t planned;   /* planned configurations (suite.json), 0 unknown  */
  int reps;         /* planned repetitions per configuration (>= 1)    */
  size_t nmissing;  /* configurations short of repetitions or absent   */
};

/* Style registry for series names no fixed style is known for. */
#define NP_REPORT_MAX_STYLES 32

struct np_report_ctx {
  struct np_results_set *const *sets; /* inputs                           */
  size_t nsets;
  const struct np_report_opts *opts;
  struct np_report_setinfo *info; /* nsets entries, same order as sets  */
  int pages;              /* 1 = a performance page, 0 = the index     */
  const char *measuring_changes; /* --measuring-changes text or NULL
                                  * (np_report_measuring.c)              */
  struct np_ftree *out;   /* files produced so far                       */
  cJSON *json;            /* report.json being built                     */
  cJSON *jcharts;         /* report.json "charts" array (in json)        */
  cJSON *jtables;         /* report.json "tables" array (in json)        */
  FILE *md;               /* index.md being written (memstream)          */
  struct np_errbuf *eb;
  const char *asset_prefix; /* prefix of chart file stems ("" or NULL =
                             * none): the set's slug and "-"            */
  enum np_report_error_bars error_bars; /* --error-bars                 */
  char styles[NP_REPORT_MAX_STYLES][64]; /* registered series names     */
  size_t nstyles;                        /* entries of styles            */
};

/* ---- sets: names, marks (np_report_marks.c) ---------------------------- */

/* Fill ctx->info for ctx->sets (names, slugs, planned counts, missing).
 * labels / failed: NULL or nsets entries.  NP_ENOMEM. */
int np_report__info_init(struct np_report_ctx *ctx, const char *const *labels,
                         const unsigned char *failed);
const struct np_report_setinfo *np_report__info(const struct np_report_ctx *ctx,
                                                const struct np_results_set *s);
/* "SELF-CHECK FAILED ..." when s failed its self-check, else NULL. */
const char *np_report__stamp(const struct np_report_ctx *ctx,
                             const struct np_results_set *s);
/* summary.json flags configuration id unstable (spread over the limit). */
int np_report__unstable(const struct np_results_set *s, const char *id);
/* c carries the table's unstable mark (†): unstable, every planned run
 * present and passed (an excluded or short configuration has no ranked
 * figure to mark).  Counts of "unstable" configurations use this rule. */
int np_report__marked_unstable(const struct np_report_ctx *ctx,
                               const struct np_results_set *s,
                               const struct np_results_config *c);
/* summary.json's spread limit as a percentage (10 when absent). */
double np_report__spread_limit(const struct np_results_set *s);
/* The charts of s show 95 % intervals of the median (--error-bars ci95,
 * or by default when every configuration of s has >= 5 runs), else
 * min/max. */
int np_report__ci_bars(const struct np_report_ctx *ctx,
                       const struct np_results_set *s);
/* summary.json says configuration id of an until-stable set stopped at
 * max_repetitions without its interval target. */
int np_report__target_missed(const struct np_results_set *s, const char *id);
/* c has fewer repetitions than planned (an incomplete set). */
int np_report__short(const struct np_report_ctx *ctx,
                     const struct np_results_set *s,
                     const struct np_results_config *c);
/* The distinct failed checks of c's runs ("no_loss"), or the runner's
 * reason for a record it wrote; "" when every run passed. */
void np_report__fail_reason(const struct np_results_config *c, char *buf,
                            size_t len);
/* The chart style of a series name: fixed for known names (backends,
 * strategies, windows, loss series), else registered in ctx in order. */
int np_report__style(struct np_report_ctx *ctx, const char *name);
/* "1 run", "3 runs". */
const char *np_report__plural(size_t n, const char *one, const char *many);
/* Text for a Markdown table cell or heading: | < > & [ ] ` * _ \ escaped. */
void np_report__md_text(char *buf, size_t len, const char *s);
/* Text from a plan or a record for a table cell: | escaped, a line end
 * made a space, and < > & as entities (code != 0: inside a code span,
 * where entities do not work: ` made ' instead).  Only those, so text
 * without them is unchanged. */
void np_report__md_cell(char *buf, size_t len, const char *s, int code);
/* Text for an image's alt text: < > & as entities, [ ] \ escaped (the
 * rest shows as written, so normal alt text is unchanged). */
void np_report__md_alt(char *buf, size_t len, const char *s);
/* Banners of an incomplete or failed set (index.md and pages). */
void np_report__banners(struct np_report_ctx *ctx);
/* Caption lines every chart of s adds (machine stability), NULL-ended;
 * the strings live in buf. */
const char *const *np_report__chart_notes(const struct np_results_set *s,
                                          char (*buf)[200], const char **v,
                                          size_t max);

/* ---- conditions (np_report_conditions.c) ------------------------------- */

/* Run conditions a set may hold fixed or vary; one row of a table each. */
enum np_report_cond {
  NP_C_ADDRESS, /* config.address                          */
  NP_C_SECONDS, /* config.seconds                          */
  NP_C_WARMUP,  /* config.warmup_seconds                   */
  NP_C_SNDBUF,  /* config.udp_send_buffer (requested)      */
  NP_C_RCVBUF,  /* config.udp_receive_buffer (requested)   */
  NP_C_WORK,    /* config.work                             */
  NP_C_RATE,    /* config.rate (open loop, messages/s)     */
  NP_C_GSO,     /* config.gso (udp-stream, bytes)          */
  NP_C_GRO,     /* config.gro (udp-stream)                 */
  NP_C_COUNT_
};
/* Bits (1 << cond) of the conditions that differ between runs of s. */
unsigned np_report__cond_varying(const struct np_results_set *s);
/* Header of cond as a table column ("Address", "Measured / s"). */
const char *np_report__cond_column(enum np_report_cond k);
/* Value of cond for c ("::1", "5"), as a cell. */
void np_report__cond_cell(char *buf, size_t len, enum np_report_cond k,
                          const struct np_results_config *c);
/* The varying conditions of c joined by ", " ("::1, 5 s"); "" when none. */
void np_report__cond_text(char *buf, size_t len, unsigned varying,
                          const struct np_results_config *c);
/* Page-wide table: what every set of ctx shares (machine, OS, toolchain). */
void np_report__conditions_common(struct np_report_ctx *ctx);
/* One set's own conditions table (constant items only; what varies is a
 * table column), with UTC start/end, round trips, kernel settings and
 * machine stability. */
void np_report__conditions_set(struct np_report_ctx *ctx,
                               const struct np_results_set *s);
/* "Content errors 0, ... in all N runs" and the per-run invariants. */
void np_report__integrity_line(struct np_report_ctx *ctx,
                               const struct np_results_set *s);

/* ---- charts, tables (np_report_charts.c, np_report_tables.c) ------------ */

/* Charts of one set: SVGs into ctx->out, entries in ctx->jcharts, image
 * links into ctx->md.  section selects "io", "grid" or "limits"; only the
 * configurations in v[0..n) (NULL = all) and stems prefixed by stem_pre. */
int np_report__charts(struct np_report_ctx *ctx, const struct np_results_set *s,
                      const char *section);
int np_report__charts_of(struct np_report_ctx *ctx,
                         const struct np_results_set *s, const char *section,
                         const struct np_results_config *const *v, size_t n,
                         const char *stem_pre);

void np_report__tables_correctness(struct np_report_ctx *ctx);
void np_report__tables_perf(struct np_report_ctx *ctx,
                            const struct np_results_set *s);
/* The perf table over v[0..n) only, named `name` in report.json. */
void np_report__tables_perf_of(struct np_report_ctx *ctx,
                               const struct np_results_set *s,
                               const struct np_results_config *const *v,
                               size_t n, const char *name);
void np_report__tables_limits(struct np_report_ctx *ctx,
                              const struct np_results_set *s);
/* The MTU arithmetic, what was measured per address family and the IPv6
 * no-fragmentation rule. */
void np_report__tables_mtu(struct np_report_ctx *ctx);
/* What was and was not measured per address family (every page). */
void np_report__scope(struct np_report_ctx *ctx);
/* A new report.json table of s: {"name", "id", "set", "rows": []}; returns
 * rows. */
cJSON *np_report__new_table(struct np_report_ctx *ctx, const char *name,
                            const struct np_results_set *s);
/* The legend of the marks used in tables (footnote under a table). */
void np_report__table_footnote(struct np_report_ctx *ctx, int unstable,
                               int excluded, int missing);

/* The buffer-isolation chart (lost echoes and kernel socket drops per
 * row, each row labelled with payload x window and its in-flight budget
 * against the effective server receive buffer) and the reference's
 * "Receive Buffer Isolation" table. */
int np_report__isolation_chart(struct np_report_ctx *ctx,
                               const struct np_results_set *s);
void np_report__isolation_table(struct np_report_ctx *ctx,
                                const struct np_results_set *s);
/* One run's machine-wide Udp RcvbufErrors before -> after against its
 * lost echoes (the reference's "from 152,304 to 153,071: exactly 767"). */
void np_report__kernel_example(struct np_report_ctx *ctx,
                               const struct np_results_set *s);

/* The plan's headline (np_report_headline.c): a focused table and chart
 * ahead of the full grid; nothing when the plan has none. */
int np_report__headline(struct np_report_ctx *ctx,
                        const struct np_results_set *s);
/* Configurations of s matching the headline rows, in row order. */
size_t np_report__headline_configs(const struct np_results_set *s,
                                   const struct np_results_config **v,
                                   size_t max);

/* Page sections (np_report_pages_sections.c).  sets/nsets of ctx are
 * the page's sets. */
void np_pages__dates_line(struct np_report_ctx *ctx);
/* The measuring source hash the page's sets carry and, when
 * ctx->measuring_changes names another tree hash, the banner listing the
 * measuring files changed since (np_report_measuring.c). */
void np_report__measuring(struct np_report_ctx *ctx);
void np_pages__lost_table(struct np_report_ctx *ctx,
                          const struct np_results_set *s);
void np_pages__kernel_evidence(struct np_report_ctx *ctx,
                               const struct np_results_set *s);
void np_pages__reproduce(struct np_report_ctx *ctx, const char *results_rel);
void np_pages__links(struct np_report_ctx *ctx, const char *results_rel);
/* The reading with its references expanded (np_report_refs.h) against
 * the page's sets; `file` names it in messages.  0, NP_EINVAL (a
 * reference that does not resolve: "file:line: {{...}}: reason" in
 * ctx->eb), NP_ENOMEM. */
int np_pages__reading(struct np_report_ctx *ctx, const char *text, size_t len,
                      const char *page, const char *file);

/* np_report_title.c: the default title when every run of the sets was a
 * `udp --connect` run - the server's identity; 0 (buf untouched) else. */
int np_report__title_default(struct np_results_set *const *sets, size_t nsets,
                             char *buf, size_t len);

#endif /* NP_REPORT_INT_H */
