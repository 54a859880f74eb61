/*
 * np_results_selfcheck_rudp.c - invariants of `netproof-bench rudp` records
 * and of the rudp statistics in summary.json (issues 5 and 8).
 *
 * Per round: counters consistent (sent >= server_received >=
 * server_replied >= received, lost = sent - received, no negative count),
 * retransmits = RACK + TLP + RTO and spurious <= retransmits, rates equal
 * counts over durations within 0.5 % (round trips/s, retransmits and
 * recoveries per 1,000 round trips), RTT percentiles monotone, network
 * overhead recomputable from the byte counters, parity mean <= max, and
 * the round's status agrees with its checks.  Per record: a passed record
 * has only passed rounds, median_round names a round, the top-level
 * measurement is that round's, and rudp.summary's spreads match the
 * rounds.  Summary: every rudp statistic recomputes from the records by
 * np_results_rudp_stat (the matrix's rule).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_results_rudp.h"
#include "np_results_selfcheck_int.h"

static int near(double a, double b, double rel, double abs_tol) {
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + abs_tol;
}

static void check_counters(struct np_results_chk *c, const char *f,
                           const cJSON *r, const char *base) {
  static const char *const order[] = {"sent", "server_received",
                                      "server_replied", "received"};
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(r, "counters");
  char p[160];
  const cJSON *e;
  cJSON_ArrayForEach(e, cn) {
    if (cJSON_IsNumber(e) && e->valuedouble < 0) {
      snprintf(p, sizeof p, "%s/counters/%s", base, e->string);
      np_results_problem(c, f, p, "negative count %g", e->valuedouble);
    }
  }
  for (size_t i = 1; i < 4; i++) {
    double a = np_json_get_number(cn, order[i - 1], NAN);
    double b = np_json_get_number(cn, order[i], NAN);
    if (isfinite(a) && isfinite(b) && b > a) {
      snprintf(p, sizeof p, "%s/counters/%s", base, order[i]);
      np_results_problem(c, f, p, "%s %.0f exceeds %s %.0f", order[i], b,
                         order[i - 1], a);
    }
  }
  double sent = np_json_get_number(cn, "sent", NAN);
  double recv = np_json_get_number(cn, "received", NAN);
  double lost = np_json_get_number(cn, "lost", NAN);
  if (isfinite(sent) && isfinite(recv) && isfinite(lost) &&
      sent - recv != lost) {
    snprintf(p, sizeof p, "%s/counters/lost", base);
    np_results_problem(c, f, p, "sent - received = %.0f, record says %.0f",
                       sent - recv, lost);
  }
}

/* rate == scale x count / denom within 0.5 % (skipped when absent). */
static void check_rate(struct np_results_chk *c, const char *f, const char *ptr,
                       double rate, double scale, double count, double denom,
                       const char *what) {
  if (!isfinite(rate) || !isfinite(count) || !isfinite(denom) || denom <= 0)
    return;
  double want = scale * count / denom;
  if (!near(rate, want, 0.005, 1e-9))
    np_results_problem(c, f, ptr, "%.6g is not %s (%.6g) within 0.5 %%", rate,
                       what, want);
}

static void check_round(struct np_results_chk *c, const char *f, const cJSON *r,
                        int i) {
  char base[64], p[160];
  snprintf(base, sizeof base, "/rudp/rounds/%d", i);
  check_counters(c, f, r, base);
  double rt = np_results_num(r, "/measurement/roundtrips");
  double secs = np_results_num(r, "/measurement/seconds");
  double drain = np_results_num(r, "/measurement/drain_seconds");
  snprintf(p, sizeof p, "%s/measurement/roundtrips_per_sec", base);
  check_rate(c, f, p, np_results_num(r, "/measurement/roundtrips_per_sec"), 1,
             rt, secs + (isfinite(drain) ? drain : 0),
             "roundtrips / (seconds + drain_seconds)");
  const cJSON *arq = cJSON_GetObjectItemCaseSensitive(r, "arq");
  double retx = np_json_get_number(arq, "retransmits", NAN);
  snprintf(p, sizeof p, "%s/arq/retransmits_per_1000_roundtrips", base);
  check_rate(c, f, p,
             np_json_get_number(arq, "retransmits_per_1000_roundtrips", NAN),
             1000, retx, rt, "1000 x retransmits / roundtrips");
  double parts = np_json_get_number(arq, "retransmits_rack", NAN) +
                 np_json_get_number(arq, "retransmits_tlp", NAN) +
                 np_json_get_number(arq, "retransmits_rto", NAN);
  snprintf(p, sizeof p, "%s/arq/retransmits", base);
  if (isfinite(retx) && isfinite(parts) && parts != retx)
    np_results_problem(c, f, p, "%.0f, but RACK + TLP + RTO = %.0f", retx,
                       parts);
  double spur = np_json_get_number(arq, "spurious_retransmits", NAN);
  if (isfinite(spur) && isfinite(retx) && spur > retx)
    np_results_problem(c, f, p, "fewer than the %.0f spurious retransmits",
                       spur);
  double wire = np_json_get_number(arq, "udp_payload_bytes_sent", NAN);
  double app = np_json_get_number(arq, "app_message_bytes", NAN);
  double ovh = np_json_get_number(arq, "network_overhead_percent", NAN);
  snprintf(p, sizeof p, "%s/arq/network_overhead_percent", base);
  if (isfinite(wire) && isfinite(app) && isfinite(ovh) && app > 0 &&
      !near(ovh, (wire / app - 1) * 100, 0.005, 0.01))
    np_results_problem(c, f, p,
                       "%.4g %% is not (udp_payload_bytes_sent / "
                       "app_message_bytes - 1) x 100 = %.4g %%",
                       ovh, (wire / app - 1) * 100);
  const cJSON *fec = cJSON_GetObjectItemCaseSensitive(r, "fec");
  snprintf(p, sizeof p, "%s/fec/recoveries_per_1000_roundtrips", base);
  check_rate(c, f, p,
             np_json_get_number(fec, "recoveries_per_1000_roundtrips", NAN),
             1000, np_json_get_number(fec, "recoveries", NAN), rt,
             "1000 x recoveries / roundtrips");
  double pmean = np_json_get_number(fec, "parity_mean", NAN);
  double pmax = np_json_get_number(fec, "parity_max", NAN);
  snprintf(p, sizeof p, "%s/fec/parity_mean", base);
  if (isfinite(pmean) && isfinite(pmax) && pmean > pmax + 1e-9)
    np_results_problem(c, f, p, "mean %g above the maximum %g", pmean, pmax);
  static const char *const pct[] = {"min", "p50", "p90", "p99", "p999", "max"};
  double prev = NAN;
  const char *prevk = NULL;
  for (size_t k = 0; k < sizeof pct / sizeof *pct; k++) {
    char key[64];
    snprintf(key, sizeof key, "/measurement/rtt_us/%s", pct[k]);
    double v = np_results_num(r, key);
    if (!isfinite(v))
      continue;
    snprintf(p, sizeof p, "%s/measurement/rtt_us", base);
    if (isfinite(prev) && v < prev)
      np_results_problem(c, f, p, "percentiles not monotone: %s %g < %s %g",
                         pct[k], v, prevk, prev);
    prev = v;
    prevk = pct[k];
  }
  /* the round's status is the conjunction of its checks */
  int all = 1, k = 0;
  const cJSON *ck;
  cJSON_ArrayForEach(ck, cJSON_GetObjectItemCaseSensitive(r, "checks")) {
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ck, "passed"))) {
      all = 0;
      if (strcmp(np_json_get_string(r, "status", ""), "passed") == 0) {
        snprintf(p, sizeof p, "%s/checks/%d/passed", base, k);
        np_results_problem(c, f, p, "check %s failed in a round marked passed",
                           np_json_get_string(ck, "name", "?"));
      }
    }
    k++;
  }
  snprintf(p, sizeof p, "%s/status", base);
  if (all && k > 0 &&
      strcmp(np_json_get_string(r, "status", ""), "failed") == 0)
    np_results_problem(c, f, p, "failed, but every check passed");
}

void np_results_check_rudp_run(struct np_results_chk *c, const char *f,
                               const cJSON *d) {
  const cJSON *part = cJSON_GetObjectItemCaseSensitive(d, "rudp");
  if (part == NULL)
    return;
  const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(part, "rounds");
  int n = cJSON_GetArraySize(rounds), i = 0, failed = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rounds) {
    check_round(c, f, r, i++);
    failed += strcmp(np_json_get_string(r, "status", ""), "passed") != 0;
  }
  if (failed && strcmp(np_json_get_string(d, "status", ""), "passed") == 0)
    np_results_problem(c, f, "/status",
                       "passed, but %d of %d rounds did not pass", failed, n);
  double mr = np_json_get_number(part, "median_round", NAN);
  if (!isfinite(mr) || mr < 0 || mr >= n) {
    np_results_problem(c, f, "/rudp/median_round",
                       "%g does not name one of the %d rounds", mr, n);
    return;
  }
  const cJSON *med = cJSON_GetArrayItem(rounds, (int)mr);
  double top = np_results_num(d, "/measurement/roundtrips_per_sec");
  double mine = np_results_num(med, "/measurement/roundtrips_per_sec");
  if (isfinite(top) && isfinite(mine) && top != mine)
    np_results_problem(c, f, "/measurement/roundtrips_per_sec",
                       "%.6g is not the median round's %.6g", top, mine);
  /* rudp.summary: median = the median round, min / max over rounds */
  static const enum np_results_rudp_metric ms[] = {
      NP_R_RPS,  NP_R_P99,   NP_R_CPU,      NP_R_OVERHEAD,
      NP_R_RETX, NP_R_RECOV, NP_R_RETAINED, NP_R_RELAY};
  const cJSON *sum = cJSON_GetObjectItemCaseSensitive(part, "summary");
  for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
    const char *key = np_results_rudp_metric_key(ms[k]);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(sum, key);
    if (s == NULL)
      continue;
    double lo = NAN, hi = NAN;
    cJSON_ArrayForEach(r, rounds) {
      double v = np_results_rudp_round_value(r, ms[k]);
      if (isfinite(v)) {
        lo = isfinite(lo) && lo < v ? lo : v;
        hi = isfinite(hi) && hi > v ? hi : v;
      }
    }
    double want[3] = {np_results_rudp_round_value(med, ms[k]), lo, hi};
    static const char *const fld[3] = {"median", "min", "max"};
    for (int j = 0; j < 3; j++) {
      double got = np_json_get_number(s, fld[j], NAN);
      if (!isfinite(got) || !isfinite(want[j]) ||
          near(got, want[j], 1e-6, 1e-9))
        continue;
      char p[160];
      snprintf(p, sizeof p, "/rudp/summary/%s/%s", key, fld[j]);
      np_results_problem(c, f, p, "%.6g, but the rounds give %.6g", got,
                         want[j]);
    }
  }
}

int np_results_check_rudp_stats(struct np_results_chk *c,
                                const struct np_results_config *cf,
                                const cJSON *entry, int idx) {
  const cJSON *cfg =
      cJSON_GetObjectItemCaseSensitive(cf->runs[0].doc, "config");
  if (strcmp(np_json_get_string(cfg, "protocol", ""), "rudp") != 0)
    return 0;
  const cJSON *stats = cJSON_GetObjectItemCaseSensitive(entry, "stats");
  const char *basis = np_json_get_string(entry, "stats_basis", "");
  const char *want_basis = cf->nruns == 1 ? "rounds" : "repetitions";
  char ptr[160];
  if (basis[0] != '\0' && strcmp(basis, want_basis) != 0) {
    snprintf(ptr, sizeof ptr, "/configurations/%d/stats_basis", idx);
    np_results_problem(c, "summary.json", ptr,
                       "\"%s\", but %zu run(s) give "
                       "\"%s\"",
                       basis, cf->nruns, want_basis);
  }
  for (int m = 0; m < NP_R_COUNT_; m++) {
    const char *key =
        np_results_rudp_metric_key((enum np_results_rudp_metric)m);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(stats, key);
    if (st == NULL)
      continue;
    double v[3];
    np_results_rudp_stat(cf, (enum np_results_rudp_metric)m, &v[0], &v[1],
                         &v[2], NULL);
    static const char *const fld[3] = {"median", "min", "max"};
    for (int j = 0; j < 3; j++) {
      double sm = np_json_get_number(st, fld[j], NAN);
      if (!isfinite(sm) || near(sm, v[j], 1e-6, 1e-9))
        continue;
      snprintf(ptr, sizeof ptr, "/configurations/%d/stats/%s/%s", idx, key,
               fld[j]);
      np_results_problem(c, "summary.json", ptr,
                         "%.6g does not match the records' %s %.6g (%s)", sm,
                         fld[j], v[j], want_basis);
    }
  }
  return 1;
}
