/*
 * np_report_rudp_tables.c - reliable-UDP tables in the reference's shape
 * (002): every configuration's figures; the payload x window table
 * ("round trips/s / p99 ms" cells, strategies as columns); the sustained
 * table; and "which strategy wins where" by condition, which says so
 * plainly when no strategy wins everywhere.  Statistics: np_results_rudp_stat.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_report_rudp.h"

#define DAGGER "\xe2\x80\xa0"

/* Largest parity count any FEC group of c's records was sent with. */
static double parity_max(const struct np_results_config *c) {
  double m = NAN;
  for (size_t i = 0; i < c->nruns; i++) {
    const cJSON *r, *rounds = np_json_pointer(c->runs[i].doc, "/rudp/rounds");
    cJSON_ArrayForEach(r, rounds) {
      double x = np_results_num(r, "/fec/parity_max");
      if (isfinite(x))
        m = isnan(m) ? x : fmax(m, x);
    }
  }
  return m;
}

/* Median over c's records of their (median round's) machine CPU share. */
static double machine_cpu(const struct np_results_config *c) {
  double *v = malloc((c->nruns + 1) * sizeof *v), m = NAN;
  size_t n = 0;
  for (size_t i = 0; v && i < c->nruns; i++) {
    double x = np_results_num(c->runs[i].doc,
                              "/measurement/machine_cpu_percent");
    if (isfinite(x))
      v[n++] = x;
  }
  if (n > 0)
    m = np_results_median(v, n);
  free(v);
  return m;
}

/* The first cell of a row that has no figures, or NULL. */
static const char *no_figures(struct np_report_ctx *ctx,
                              const struct np_results_set *s,
                              const struct np_report_rudp_view *v, char *buf,
                              size_t len) {
  if (np_report__short(ctx, s, v->c)) {
    snprintf(buf, len, "missing (%zu of %d runs)", v->c->nruns,
             np_report__info(ctx, s)->reps);
    return buf;
  }
  if (v->excluded) {
    char why[120];
    np_report__fail_reason(v->c, why, sizeof why);
    snprintf(buf, len, "excluded (%s)", why[0] ? why : "failed");
    return buf;
  }
  return NULL;
}

static void add_stat(cJSON *r, enum np_results_rudp_metric m,
                     const struct np_report_rudp_view *v) {
  double med, mn, mx;
  np_results_rudp_stat(v->c, m, &med, &mn, &mx, NULL);
  cJSON *o = cJSON_AddObjectToObject(r, np_results_rudp_metric_key(m));
  np_json_add_number(o, "median", med);
  np_json_add_number(o, "min", mn);
  np_json_add_number(o, "max", mx);
}

static double med_of(const struct np_report_rudp_view *v,
                     enum np_results_rudp_metric m) {
  double med, mn, mx;
  np_results_rudp_stat(v->c, m, &med, &mn, &mx, NULL);
  return med;
}

/* A row of report.json with the configuration's run ids and metrics. */
static cJSON *row_json(cJSON *rows, const struct np_report_rudp_view *v,
                       const enum np_results_rudp_metric *ms, size_t nm) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "config", v->c->id);
  cJSON_AddStringToObject(r, "strategy", v->fec);
  cJSON_AddStringToObject(r, "profile", v->profile);
  cJSON_AddBoolToObject(r, "excluded", v->excluded);
  np_json_add_number(r, "parity_max_observed", parity_max(v->c));
  np_json_add_number(r, "machine_cpu_percent", machine_cpu(v->c));
  for (size_t k = 0; k < nm && !v->excluded; k++)
    add_stat(r, ms[k], v);
  cJSON_AddItemToObject(r, "runs", np_report_run_ids(v->c, 0));
  cJSON_AddItemToArray(rows, r);
  return r;
}

/* The reference's main RUDP table over vs[0..n) (every configuration, or
 * a headline's), with the set's marks. */
static void results_rows(struct np_report_ctx *ctx,
                         const struct np_results_set *s,
                         const struct np_report_rudp_view *vs, size_t n,
                         const struct np_report_rudp_view *all, size_t nall,
                         const char *name) {
  static const enum np_results_rudp_metric ms[] = {
      NP_R_RPS,      NP_R_P50,  NP_R_P99,   NP_R_CPU,   NP_R_CPU_RT,
      NP_R_OVERHEAD, NP_R_RETX, NP_R_RECOV, NP_R_UNREC, NP_R_RETAINED,
      NP_R_RELAY,    NP_R_RSS,  NP_R_LOSS};
  fprintf(ctx->md,
          "| Condition | Strategy | Runs passed | Round trips / s | p50 RTT / "
          "ms | p99 RTT / ms | CPU / %% | Machine CPU / %% | CPU / μs per "
          "round trip | Network overhead / %% | Retransmits / 1,000 | "
          "Recoveries / 1,000 | Unrecoverable groups | FEC retained peak / "
          "KiB | Relay peak / KiB | Max RSS / MiB | Max observed parity | "
          "Applied loss / %% |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
          "---:|---:|---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, name, s);
  int any_unstable = 0, any_excl = 0, any_missing = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_report_rudp_view *v = &vs[i];
    char cond[160], cell[13][48], first[160], mcpu[32], par[32];
    np_report_rudp_condition(cond, sizeof cond, v, all, nall, 0);
    static const int dec[13] = {0, 2, 2, 1, 1, 1, 1, 1, 0, 1, 1, 1, 2};
    static const double scale[13] = {1, 1e-3, 1e-3, 1, 1, 1, 1, 1, 1,
                                     1.0 / 1024, 1.0 / 1024, 1.0 / 1048576,
                                     1};
    const char *nf = no_figures(ctx, s, v, first, sizeof first);
    int unstable = nf == NULL && np_report__unstable(s, v->c->id);
    any_unstable |= unstable;
    any_missing |= np_report__short(ctx, s, v->c);
    any_excl |= nf != NULL && !np_report__short(ctx, s, v->c);
    for (size_t k = 0; k < 13; k++) {
      if (nf != NULL)
        snprintf(cell[k], sizeof cell[k], "-");
      else
        np_fmt_num(cell[k], sizeof cell[k], med_of(v, ms[k]) * scale[k],
                   dec[k]);
    }
    np_fmt_num(mcpu, sizeof mcpu, nf ? NAN : machine_cpu(v->c), 1);
    np_fmt_num(par, sizeof par, nf ? NAN : parity_max(v->c), 0);
    fprintf(ctx->md, "| %s | %s | %zu / %zu | %s%s |", cond,
            np_report_rudp_strategy_label(v), v->c->npassed, v->c->nruns,
            nf ? nf : cell[0], unstable ? " " DAGGER : "");
    for (size_t k = 1; k < 13; k++) {
      fprintf(ctx->md, " %s |", cell[k]);
      if (k == 3)
        fprintf(ctx->md, " %s |", mcpu);
      if (k == 11)
        fprintf(ctx->md, " %s |", par);
    }
    fprintf(ctx->md, "\n");
    cJSON *r = row_json(rows, v, ms, sizeof ms / sizeof *ms);
    cJSON_AddBoolToObject(r, "unstable", np_report__unstable(s, v->c->id));
    cJSON_AddBoolToObject(r, "missing", np_report__short(ctx, s, v->c));
  }
  int by_rounds = n > 0 && vs[0].c->nruns == 1;
  double cores = np_results_num(s->runs[0].doc, "/machine/logical_cores");
  fprintf(ctx->md,
          "\n%s CPU counts one core as 100 %% (clients, server and relay "
          "share one process); machine CPU is the share of the whole machine "
          "(process CPU / %.0f logical cores). Network overhead = UDP payload "
          "bytes sent by every endpoint (ARQ headers, acks, retransmits, FEC "
          "headers and parity) / message bytes both ways - 1. Recoveries are "
          "data fragments rebuilt from parity; retransmits are ARQ resends; "
          "both per 1,000 round trips. Relay peak is the sum over routes of "
          "each route's queue peak. Max observed parity: the most parity "
          "shards any FEC group was sent with, over every round.\n\n",
          by_rounds ? "Values are each configuration's median round (by round "
                      "trips/s) of one process; the charts show the min/max "
                      "over its rounds."
                    : "Values are medians over the repetitions' median "
                      "rounds.",
          cores);
  np_report__table_footnote(ctx, any_unstable, any_excl, any_missing);
}

static void results_table(struct np_report_ctx *ctx,
                          const struct np_results_set *s,
                          const struct np_report_rudp_view *vs, size_t n) {
  fprintf(ctx->md, "### Reliable UDP results by strategy\n\n");
  results_rows(ctx, s, vs, n, vs, n, "rudp_results");
}

void np_report_rudp_table_of(struct np_report_ctx *ctx,
                             const struct np_results_set *s,
                             const struct np_results_config *const *sel,
                             size_t nsel, const char *name) {
  struct np_report_rudp_view *vs = NULL, *pick = NULL;
  size_t n = 0, k = 0;
  if (np_report_rudp_views(s, &vs, &n) != 0 ||
      (pick = calloc(nsel + 1, sizeof *pick)) == NULL) {
    free(vs);
    return;
  }
  for (size_t j = 0; j < nsel; j++)
    for (size_t i = 0; i < n; i++)
      if (vs[i].c == sel[j])
        pick[k++] = vs[i];
  results_rows(ctx, s, pick, k, pick, k, name);
  free(pick);
  free(vs);
}

/* "12,345 / 61.2" */
static void cell_rps_p99(char *buf, size_t len,
                         const struct np_report_rudp_view *v) {
  if (v == NULL) {
    snprintf(buf, len, "-");
    return;
  }
  if (v->excluded) {
    snprintf(buf, len, "excluded");
    return;
  }
  char a[48], b[48];
  np_fmt_num(a, sizeof a, med_of(v, NP_R_RPS), 0);
  np_fmt_num(b, sizeof b, med_of(v, NP_R_P99) / 1e3, 1);
  /* a cut cell is still a readable cell; the check only silences gcc's
   * -Wformat-truncation in Release builds */
  if (snprintf(buf, len, "%s / %s", a, b) >= (int)len && len > 0)
    buf[len - 1] = '\0';
}

/* Key of v without its strategy (the condition a strategy is tried in). */
static void cond_key(char *buf, size_t len,
                     const struct np_report_rudp_view *v) {
  snprintf(buf, len, "%s|%s|%s|%s|%g|%g|%g|%g|%g", v->profile, v->delivery,
           v->model, v->cc, v->payload, v->window, v->clients, v->seconds,
           v->rounds);
}

/* Distinct conditions of vs in plan order: first view of each into firsts. */
static size_t conditions(const struct np_report_rudp_view *vs, size_t n,
                         size_t *firsts) {
  size_t nc = 0;
  for (size_t i = 0; i < n; i++) {
    char a[256], b[256];
    cond_key(a, sizeof a, &vs[i]);
    size_t j = 0;
    for (; j < nc; j++) {
      cond_key(b, sizeof b, &vs[firsts[j]]);
      if (strcmp(a, b) == 0)
        break;
    }
    if (j == nc)
      firsts[nc++] = i;
  }
  return nc;
}

/* The view of strategy st in the condition of vs[f], or NULL. */
static const struct np_report_rudp_view *
in_cond(const struct np_report_rudp_view *vs, size_t n, size_t f, int st) {
  char a[256], b[256];
  cond_key(a, sizeof a, &vs[f]);
  for (size_t i = 0; i < n; i++) {
    cond_key(b, sizeof b, &vs[i]);
    if (vs[i].strategy == st && strcmp(a, b) == 0)
      return &vs[i];
  }
  return NULL;
}

static void payload_window_table(struct np_report_ctx *ctx,
                                 const struct np_results_set *s,
                                 const struct np_report_rudp_view *vs, size_t n,
                                 size_t *firsts, size_t nc) {
  int vary = 0;
  for (size_t i = 1; i < n; i++)
    vary |= vs[i].payload != vs[0].payload || vs[i].window != vs[0].window;
  if (!vary)
    return;
  fprintf(ctx->md, "### Payload and window (round trips/s / p99 ms)\n\n");
  fprintf(ctx->md, "| Payload / B | Window | Condition | ARQ only | fixed FEC "
                   "| adaptive FEC |\n|---:|---:|---|---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, "rudp_payload_window", s);
  for (size_t k = 0; k < nc; k++) {
    const struct np_report_rudp_view *f = &vs[firsts[k]];
    char pay[32], cond[160], cell[3][64];
    np_fmt_num(pay, sizeof pay, f->payload, 0);
    np_report_rudp_condition(cond, sizeof cond, f, vs, n,
                             NP_RF_PAYLOAD | NP_RF_WINDOW);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "payload", f->payload);
    cJSON_AddNumberToObject(r, "window", f->window);
    cJSON_AddStringToObject(r, "condition", cond);
    cJSON *cells = cJSON_AddArrayToObject(r, "cells");
    for (int st = 0; st < 3; st++) {
      const struct np_report_rudp_view *v = in_cond(vs, n, firsts[k], st);
      cell_rps_p99(cell[st], sizeof cell[st], v);
      if (v == NULL)
        continue;
      row_json(cells, v,
               (const enum np_results_rudp_metric[]){NP_R_RPS, NP_R_P99}, 2);
    }
    cJSON_AddItemToArray(rows, r);
    fprintf(ctx->md, "| %s | %.0f | %s | %s | %s | %s |\n", pay, f->window,
            cond, cell[0], cell[1], cell[2]);
  }
  fprintf(ctx->md, "\n");
}

/* The peak resident set a configuration's runs measured: the largest of
 * each run's ru_maxrss (measurement.rss_max_bytes) and every 1 s sample
 * (/proc/self/statm) of its rounds' series - ru_maxrss alone read below
 * the samples of the same record (issue 33).  NAN when neither is there. */
static double rss_peak(const struct np_results_config *c) {
  double peak = NAN;
  for (size_t i = 0; i < c->nruns; i++) {
    const cJSON *d = c->runs[i].doc, *round, *pt;
    double x = np_results_num(d, "/measurement/rss_max_bytes");
    if (isfinite(x) && !(x <= peak))
      peak = x;
    cJSON_ArrayForEach(round, np_json_pointer(d, "/rudp/rounds")) {
      cJSON_ArrayForEach(pt, np_json_pointer(round, "/intervals/points")) {
        x = np_results_num(pt, "/rss_bytes");
        if (isfinite(x) && !(x <= peak))
          peak = x;
      }
    }
  }
  return peak;
}

static void sustained_table(struct np_report_ctx *ctx,
                            const struct np_results_set *s,
                            const struct np_report_rudp_view *vs, size_t n) {
  size_t any = 0;
  for (size_t i = 0; i < n; i++)
    any += strcmp(vs[i].profile, "sustained") == 0;
  if (any == 0)
    return;
  static const enum np_results_rudp_metric ms[] = {
      NP_R_RPS,   NP_R_P99,   NP_R_CPU,      NP_R_OVERHEAD, NP_R_RETX,
      NP_R_RECOV, NP_R_UNREC, NP_R_RETAINED, NP_R_RELAY,    NP_R_RSS};
  fprintf(ctx->md, "### Sustained test\n\n");
  fprintf(ctx->md,
          "| Strategy | Payload / B | Window | IO model | Measured / s | "
          "Result | Round trips / s | p99 RTT / ms | CPU / %% | Network "
          "overhead / %% | Retransmits / 1,000 | Recoveries / 1,000 | "
          "Unrecoverable groups | FEC retained peak / KiB | Relay peak / KiB "
          "| Max RSS / MiB |\n"
          "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
          "---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, "rudp_sustained", s);
  for (size_t i = 0; i < n; i++) {
    const struct np_report_rudp_view *v = &vs[i];
    if (strcmp(v->profile, "sustained") != 0)
      continue;
    static const int dec[10] = {0, 1, 1, 1, 1, 1, 0, 1, 1, 1};
    static const double scale[10] = {1, 1e-3, 1, 1, 1, 1, 1, 1.0 / 1024,
                                     1.0 / 1024, 1.0 / 1048576};
    char pay[32], secs[32];
    np_fmt_num(pay, sizeof pay, v->payload, 0);
    np_fmt_num(secs, sizeof secs, v->seconds * v->rounds, 0);
    fprintf(ctx->md, "| %s | %s | %.0f | %s | %s | %s |",
            np_report_rudp_strategy_label(v), pay, v->window, v->model, secs,
            v->excluded ? "failed (excluded)" : "passed");
    for (size_t k = 0; k < 10; k++) {
      char cell[48] = "-";
      if (!v->excluded)
        np_fmt_num(cell, sizeof cell,
                   (ms[k] == NP_R_RSS ? rss_peak(v->c) : med_of(v, ms[k])) *
                       scale[k],
                   dec[k]);
      fprintf(ctx->md, " %s |", cell);
    }
    fprintf(ctx->md, "\n");
    cJSON *r = row_json(rows, v, ms, sizeof ms / sizeof *ms);
    if (!v->excluded)
      np_json_add_number(r, "rss_peak_bytes", rss_peak(v->c));
  }
  fprintf(ctx->md, "\nEvery content, order, completion and shutdown check "
                   "must pass for the whole measured time; a failed run is "
                   "kept and marked, never averaged in. Max RSS is the "
                   "largest resident set the run measured: its `ru_maxrss` "
                   "or any 1 s sample of the series (`/proc/self/statm`), "
                   "whichever is larger.\n\n");
}

/* Best strategy of one condition for metric m (higher or lower is better);
 * NULL when fewer than two strategies were measured without exclusion. */
static const struct np_report_rudp_view *
best(const struct np_report_rudp_view *vs, size_t n, size_t f,
     enum np_results_rudp_metric m, int higher, int *overlap) {
  const struct np_report_rudp_view *b = NULL, *cand[NP_REPORT_RUDP_OTHER];
  size_t nc = 0;
  for (int st = 0; st < NP_REPORT_RUDP_OTHER; st++) {
    const struct np_report_rudp_view *v = in_cond(vs, n, f, st);
    if (v != NULL && !v->excluded && !isnan(med_of(v, m)))
      cand[nc++] = v;
  }
  if (nc < 2)
    return NULL;
  for (size_t i = 0; i < nc; i++) {
    double x = med_of(cand[i], m);
    if (b == NULL || (higher ? x > med_of(b, m) : x < med_of(b, m)))
      b = cand[i];
  }
  /* does another strategy's range reach the winner's? */
  double bmn, bmx, bmed;
  np_results_rudp_stat(b->c, m, &bmed, &bmn, &bmx, NULL);
  *overlap = 0;
  for (size_t i = 0; i < nc; i++) {
    double med, mn, mx;
    if (cand[i] == b)
      continue;
    np_results_rudp_stat(cand[i]->c, m, &med, &mn, &mx, NULL);
    *overlap |= higher ? mx >= bmn : mn <= bmx;
  }
  return b;
}

static void wins_table(struct np_report_ctx *ctx,
                       const struct np_results_set *s,
                       const struct np_report_rudp_view *vs, size_t n,
                       const size_t *firsts, size_t nc) {
  int wins[2][NP_REPORT_RUDP_NSTRAT] = {{0}}, counted = 0;
  char tmp[64];
  fprintf(ctx->md, "### Which strategy wins where\n\n");
  fprintf(ctx->md, "| Condition | Highest round trips / s | Lowest p99 RTT "
                   "|\n|---|---|---|\n");
  cJSON *rows = np_report__new_table(ctx, "rudp_wins", s);
  for (size_t k = 0; k < nc; k++) {
    const struct np_report_rudp_view *f = &vs[firsts[k]];
    char cond[160], cell[2][128];
    np_report_rudp_condition(cond, sizeof cond, f, vs, n, 0);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "condition", cond);
    int have = 0;
    for (int w = 0; w < 2; w++) {
      int ov = 0;
      enum np_results_rudp_metric m = w == 0 ? NP_R_RPS : NP_R_P99;
      const struct np_report_rudp_view *b =
          best(vs, n, firsts[k], m, w == 0, &ov);
      if (b == NULL) {
        snprintf(cell[w], sizeof cell[w], "- (fewer than two strategies "
                                          "passed)");
        continue;
      }
      have = 1;
      wins[w][b->strategy]++;
      if (w == 0)
        np_fmt_num(tmp, sizeof tmp, med_of(b, m), 0);
      else
        np_fmt_num(tmp, sizeof tmp, med_of(b, m) / 1e3, 1);
      snprintf(cell[w], sizeof cell[w], "%s (%s%s)%s",
               np_report_rudp_strategy_label(b), tmp, w == 0 ? " /s" : " ms",
               ov ? "; ranges overlap" : "");
      cJSON *o = cJSON_AddObjectToObject(r, w == 0 ? "highest_roundtrips"
                                                   : "lowest_p99");
      cJSON_AddStringToObject(o, "strategy", b->fec);
      cJSON_AddStringToObject(o, "config", b->c->id);
      np_json_add_number(o, "median", med_of(b, m));
      cJSON_AddBoolToObject(o, "ranges_overlap", ov);
      cJSON_AddItemToObject(o, "runs", np_report_run_ids(b->c, 0));
    }
    counted += have;
    cJSON_AddItemToArray(rows, r);
    fprintf(ctx->md, "| %s | %s | %s |\n", cond, cell[0], cell[1]);
  }
  fprintf(ctx->md, "\n");
  static const char *const what[2] = {"throughput", "p99 latency"};
  for (int w = 0; w < 2 && counted > 0; w++) {
    int winners = 0, top = 0, total = 0;
    for (int st = 0; st < NP_REPORT_RUDP_NSTRAT; st++) {
      winners += wins[w][st] > 0;
      total += wins[w][st];
      if (wins[w][st] > wins[w][top])
        top = st;
    }
    if (winners == 1) {
      fprintf(ctx->md, "- %s: %s wins in every condition measured here "
                       "(%d of %d).\n", what[w], np_report_rudp_strategies[top].label, total, total);
      continue;
    }
    fprintf(ctx->md, "- %s: no universal winner -", what[w]);
    for (int st = 0, first = 1; st < NP_REPORT_RUDP_NSTRAT; st++) {
      if (wins[w][st] == 0)
        continue;
      fprintf(ctx->md, "%s %s wins %d of %d conditions", first ? "" : ";",
              np_report_rudp_strategies[st].label, wins[w][st], total);
      first = 0;
    }
    fprintf(ctx->md, ".\n");
  }
  fprintf(ctx->md, "\nA win compares medians; \"ranges overlap\" marks a "
                   "win whose min/max range meets another strategy's, i.e. "
                   "not a clear one.\n\n");
}

void np_report_rudp_tables(struct np_report_ctx *ctx,
                           const struct np_results_set *s) {
  struct np_report_rudp_view *vs = NULL;
  size_t n = 0;
  size_t *firsts = NULL;
  if (np_report_rudp_views(s, &vs, &n) != 0 || n == 0 ||
      (firsts = calloc(n, sizeof *firsts)) == NULL) {
    free(vs);
    return;
  }
  size_t nc = conditions(vs, n, firsts);
  results_table(ctx, s, vs, n);
  payload_window_table(ctx, s, vs, n, firsts, nc);
  sustained_table(ctx, s, vs, n);
  wins_table(ctx, s, vs, n, firsts, nc);
  free(firsts);
  free(vs);
}
