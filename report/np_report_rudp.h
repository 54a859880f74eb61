/*
 * np_report_rudp.h - the reliable-UDP part of a report (issue 8): one view
 * per configuration of a `netproof-bench rudp` result set, its charts
 * (np_report_rudp.c) and tables (np_report_rudp_tables.c).
 *
 * Statistics follow summary.json's rule (bench/matrix/
 * np_matrix_summary_rudp.h): a configuration run as one process of several
 * rounds uses its rounds - the median is the record's median round
 * (rudp.median_round, by round trips/s), min / max span the rounds - and a
 * configuration with several repetitions uses each record's median round.
 * A configuration with any failed repetition is excluded (no bar, "excluded"
 * in tables), the reference's rule.
 *
 * Internal to report/.  Views borrow the set: they die with it.
 */
#ifndef NP_REPORT_RUDP_H
#define NP_REPORT_RUDP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_report_data.h"

/* Round metrics (same names as summary.json's rudp stats). */
enum np_rudp_metric {
  NP_R_RPS,       /* measurement.roundtrips_per_sec                 */
  NP_R_P99,       /* measurement.rtt_us.p99                         */
  NP_R_P50,       /* measurement.rtt_us.p50                         */
  NP_R_CPU,       /* measurement.cpu_percent                        */
  NP_R_RSS,       /* measurement.rss_max_bytes                      */
  NP_R_OVERHEAD,  /* arq.network_overhead_percent                   */
  NP_R_RETX,      /* arq.retransmits_per_1000_roundtrips            */
  NP_R_RECOV,     /* fec.recoveries_per_1000_roundtrips             */
  NP_R_UNREC,     /* fec.unrecoverable_groups                       */
  NP_R_RETAINED,  /* fec.retained.peak_sum_bytes                    */
  NP_R_RELAY,     /* relay.route_peak_bytes_sum                     */
  NP_R_LOSS,      /* relay.window.applied_loss_percent              */
  NP_R_CPU_RT,    /* 1e6 x (cpu user + sys) / round trips (us)      */
  NP_R_COUNT_
};

/* Summary.json key of a metric. */
const char *np_rudp_metric_key(enum np_rudp_metric m);

/* Value of m in one element of a record's rudp.rounds[] (NAN if absent). */
double np_rudp_round_value(const cJSON *round, enum np_rudp_metric m);

/* Statistics of m over c's records by the rule above; NAN when there is no
 * value.  *n (may be NULL) receives the number of values. */
void np_rudp_stat(const struct np_report_config *c, enum np_rudp_metric m,
                  double *med, double *min, double *max, size_t *n);

/* One configuration as the RUDP charts and tables see it. */
struct np_rudp_view {
  const struct np_report_config *c;
  const char *fec;        /* "none" | "fixed" | "adaptive"               */
  int strategy;           /* 0 none, 1 fixed, 2 adaptive, 3 other        */
  const char *profile;    /* relay profile (the network condition)       */
  const char *cc;         /* congestion controller                       */
  char model[32];         /* "single" or "pool 4"                        */
  double payload, clients, window, seconds, rounds;
  int excluded;           /* a repetition failed or is not "passed"      */
};

/* Views of s in plan order (*out malloc'd, caller frees); 0 views when
 * the set holds no rudp records.  NP_ENOMEM. */
int np_rudp_views(const struct np_report_set *s, struct np_rudp_view **out,
                  size_t *n);

/* "ARQ only", "fixed FEC", "adaptive FEC" (or the raw name). */
const char *np_rudp_strategy_label(const struct np_rudp_view *v);

/* Fields of a view, as bits for np_rudp_condition's skip mask. */
enum { NP_RF_PAYLOAD = 1, NP_RF_WINDOW = 2, NP_RF_CLIENTS = 4,
       NP_RF_MODEL = 8, NP_RF_CC = 16, NP_RF_TIMING = 32 };

/* Text of the network condition of v plus every other dimension (payload,
 * window, clients, IO model, cc, timing) that varies among vs and is not
 * in skip, e.g. "random, pool 4, newreno". */
void np_rudp_condition(char *buf, size_t len, const struct np_rudp_view *v,
                       const struct np_rudp_view *vs, size_t n,
                       unsigned skip);

/* 1 when the set's runs are `netproof-bench rudp` records. */
int np_rudp_is_set(const struct np_report_set *s);

/* Charts and tables of one rudp set into ctx (see the .c files). */
struct np_report_ctx;
int np_report_rudp_charts(struct np_report_ctx *ctx,
                          const struct np_report_set *s);
void np_report_rudp_tables(struct np_report_ctx *ctx,
                           const struct np_report_set *s);

#endif /* NP_REPORT_RUDP_H */
