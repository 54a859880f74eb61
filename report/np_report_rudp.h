/*
 * np_report_rudp.h - the reliable-UDP part of a report (issue 8): one view
 * per configuration of a `netproof-bench rudp` result set, its charts
 * (np_report_rudp.c) and tables (np_report_rudp_tables.c).
 *
 * Statistics are np_results_rudp_stat's (resultset/np_results_rudp.h, the
 * rule of summary.json).  A configuration with any failed repetition is
 * excluded (no bar, "excluded" in tables), the reference's rule.
 *
 * Internal to report/.  Views borrow the set: they die with it.
 */
#ifndef NP_REPORT_RUDP_H
#define NP_REPORT_RUDP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_results.h"
#include "np_results_rudp.h"

/* One configuration as the RUDP charts and tables see it. */
struct np_report_rudp_view {
  const struct np_results_config *c;
  const char *fec;        /* config.fec: "none", "fixed", ...             */
  int strategy;           /* index in np_report_rudp_strategies          */
  const char *profile;    /* relay profile (the network condition)       */
  const char *cc;         /* congestion controller                       */
  const char *delivery;   /* "ordered" | "unordered" (config.delivery)   */
  char model[32];         /* "single" or "pool 4"                        */
  char address[48];       /* config.address                              */
  double payload, clients, window, seconds, rounds;
  int excluded;           /* a repetition failed or is not "passed"      */
};

/* Views of s in plan order (*out malloc'd, caller frees); 0 views when
 * the set holds no rudp records.  NP_ENOMEM. */
int np_report_rudp_views(const struct np_results_set *s,
                         struct np_report_rudp_view **out, size_t *n);

/* The strategies in the order charts and tables show them: config.fec's
 * value and its label; the last row ("other") takes any value without a
 * row of its own.  One table for every chart, table and series. */
#define NP_REPORT_RUDP_NSTRAT 5
#define NP_REPORT_RUDP_OTHER (NP_REPORT_RUDP_NSTRAT - 1)
struct np_report_rudp_strategy {
  const char *fec, *label;
};
extern const struct np_report_rudp_strategy
    np_report_rudp_strategies[NP_REPORT_RUDP_NSTRAT];

/* The strategy's label, or the raw config.fec name for "other". */
const char *np_report_rudp_strategy_label(const struct np_report_rudp_view *v);

/* Fields of a view, as bits for np_report_rudp_condition's skip mask. */
enum { NP_RF_PAYLOAD = 1, NP_RF_WINDOW = 2, NP_RF_CLIENTS = 4,
       NP_RF_MODEL = 8, NP_RF_CC = 16, NP_RF_TIMING = 32 };

/* Text of the network condition of v plus every other dimension (delivery,
 * payload, window, clients, IO model, cc, timing, address) that varies
 * among vs and is not in skip, e.g. "random, pool 4, newreno". */
void np_report_rudp_condition(char *buf, size_t len,
                              const struct np_report_rudp_view *v,
                              const struct np_report_rudp_view *vs, size_t n,
                              unsigned skip);

/* Charts and tables of one rudp set into ctx (see the .c files). */
struct np_report_ctx;
int np_report_rudp_charts(struct np_report_ctx *ctx,
                          const struct np_results_set *s);
/* Throughput and p99 charts of the selected configurations only, stems
 * prefixed by stem_pre (a plan's headline). */
int np_report_rudp_charts_of(struct np_report_ctx *ctx,
                             const struct np_results_set *s,
                             const struct np_results_config *const *sel,
                             size_t nsel, const char *stem_pre);
void np_report_rudp_tables(struct np_report_ctx *ctx,
                           const struct np_results_set *s);
/* The resource table over the selected configurations (a headline). */
void np_report_rudp_table_of(struct np_report_ctx *ctx,
                             const struct np_results_set *s,
                             const struct np_results_config *const *sel,
                             size_t nsel, const char *name);

/* np_report_rudp_env.c: the ARQ / FEC / relay rows of a set's conditions
 * table (into rows), and the network conditions exactly as configured per
 * relay profile, with the definitions of RTT, RSS and overhead and the
 * FEC header and fragment sizes. */
void np_report_rudp_env_rows(struct np_report_ctx *ctx,
                             const struct np_results_set *s, cJSON *rows);
void np_report_rudp_network(struct np_report_ctx *ctx,
                            const struct np_results_set *s);

#endif /* NP_REPORT_RUDP_H */
