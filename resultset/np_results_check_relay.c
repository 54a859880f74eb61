/*
 * np_results_check_relay.c - one rudp round's relay counters re-derived.
 *
 * Sums: each direction of the round (relay.c2s / s2c) and the relay's own
 * totals (relay.stats.totals) are the sums over its routes
 * (relay.stats.routes[], plus relay.stats.expired, the routes closed by
 * expiry, in a standalone relay's statistics); every route obeys the
 * relay's accounting (bench/relay/np_relay_impair.c): loss_stage = received + duplicated =
 * lost_burst + lost_ge + lost_random + overflow + queued, queued =
 * forwarded + dropped_at_stop, relay_errors = recv + send + truncated;
 * applied_loss_percent = 100 x lost / loss_stage; the round's errors and
 * overflow are both directions'; the window counts are within the round's;
 * the peaks sum the routes'; the relay ran the record's configuration
 * (seed + round).
 *
 * Applied against configured: duplication, random loss and reordering are
 * independent draws per copy (one stream each), so their counts are
 * binomial: k copies of n with probability p.  A count further than
 * 4 sigma + 1 from n p (sigma = sqrt(n p (1 - p))) flags the round
 * (p = 0 or 1: exactly 0 or n); the +1 keeps small n honest.  Burst loss
 * is deterministic per route and direction: every window of m copies
 * loses exactly n, so a route with k copies lost between floor(k/m) n and
 * that plus min(n, k mod m).  Gilbert-Elliott losses are correlated (no
 * binomial bound); they must be 0 when the model is off.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"

static const char *const dirs[2] = {"c2s", "s2c"};

/* Counters every route and total carries (np_relay_stats.c). */
static const char *const route_keys[] = {
    "received",  "duplicated", "loss_stage", "lost_burst",      "lost_ge",
    "lost_random", "overflow", "queued",     "delayed",         "reordered",
    "rate_paced", "forwarded", "dropped_at_stop", "recv_errors", "send_errors",
    "truncated", "relay_errors"};
#define NKEYS (sizeof route_keys / sizeof route_keys[0])

static double num(const cJSON *o, const char *k) {
  return np_json_get_number(o, k, NAN);
}

static void binomial(const struct np_chk_rec *r, const char *ptr, double k,
                     double n, double pct, const char *what) {
  if (!isfinite(k) || !isfinite(n) || !isfinite(pct) || n <= 0)
    return;
  double p = pct / 100.0, mean = n * p;
  double bound = p <= 0 || p >= 1 ? 0 : 4 * sqrt(n * p * (1 - p)) + 1;
  if (fabs(k - mean) <= bound)
    return;
  np_chk__problem(r->c, r->file, ptr,
                  "%.0f %s of %.0f (%.3g %%), but the configured %.4g %% gives "
                  "%.1f +- %.1f (4 sigma + 1 of the binomial)",
                  k, what, n, 100 * k / n, pct, mean, bound);
}

/* Per-route accounting and the sums over routes of direction d. */
static void route_sums(const struct np_chk_rec *r, const cJSON *stats,
                       const char *base, int d, double *sum,
                       const cJSON *im) {
  char p[200];
  const cJSON *ro;
  int ri = 0;
  double bn = num(im, "burst_loss_n"), bm = num(im, "burst_loss_m");
  cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(stats, "routes")) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ro, dirs[d]);
    for (size_t k = 0; k < NKEYS; k++)
      sum[k] += np_json_get_number(c, route_keys[k], 0);
    double rec = num(c, "received"), dup = num(c, "duplicated"),
           ls = num(c, "loss_stage"), lb = num(c, "lost_burst"),
           lg = num(c, "lost_ge"), lr = num(c, "lost_random"),
           ov = num(c, "overflow"), q = num(c, "queued"),
           fw = num(c, "forwarded"), st = num(c, "dropped_at_stop");
    snprintf(p, sizeof p, "%s/relay/stats/routes/%d/%s", base, ri, dirs[d]);
    if (ls != rec + dup)
      np_chk__problem(r->c, r->file, p,
                      "loss_stage %.0f is not received %.0f + duplicated %.0f",
                      ls, rec, dup);
    if (ls != lb + lg + lr + ov + q)
      np_chk__problem(r->c, r->file, p,
                      "loss_stage %.0f is not lost_burst + lost_ge + "
                      "lost_random + overflow + queued = %.0f",
                      ls, lb + lg + lr + ov + q);
    if (q != fw + st)
      np_chk__problem(
          r->c, r->file, p,
          "queued %.0f is not forwarded %.0f + dropped_at_stop %.0f", q, fw,
          st);
    double errs =
        num(c, "recv_errors") + num(c, "send_errors") + num(c, "truncated");
    if (num(c, "relay_errors") != errs)
      np_chk__problem(r->c, r->file, p,
                      "relay_errors %.0f is not recv + send + truncated = %.0f",
                      num(c, "relay_errors"), errs);
    /* burst loss: exactly n of every window of m copies of this route */
    if (isfinite(bn) && isfinite(bm) && isfinite(ls) && isfinite(lb)) {
      double lo = 0, hi = 0;
      if (bn > 0 && bm > 0) {
        double w = floor(ls / bm), rest = ls - w * bm;
        lo = w * bn;
        hi = lo + fmin(bn, rest);
      }
      if (lb < lo || lb > hi)
        np_chk__problem(r->c, r->file, p,
                        "lost_burst %.0f, but burst loss %.0f/%.0f of %.0f "
                        "copies loses %.0f to %.0f",
                        lb, bn, bm, ls, lo, hi);
    }
    ri++;
  }
  /* the routes closed by expiry (standalone, 0.3) are in the totals too */
  const cJSON *ex = np_json_pointer(stats, "/expired");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(ex, dirs[d]);
  for (size_t k = 0; c != NULL && k < NKEYS; k++)
    sum[k] += np_json_get_number(c, route_keys[k], 0);
}

void np_chk__relay_round(const struct np_chk_rec *r, const cJSON *rd,
                         const cJSON *cfg, int i) {
  char base[64], p[200];
  snprintf(base, sizeof base, "/rudp/rounds/%d", i);
  const cJSON *rl = cJSON_GetObjectItemCaseSensitive(rd, "relay");
  const cJSON *stats = cJSON_GetObjectItemCaseSensitive(rl, "stats");
  if (rl == NULL)
    return;
  double errors = 0, overflow = 0, recv_all = 0, fwd_all = 0;
  for (int d = 0; d < 2; d++) {
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(cfg, dirs[d]);
    const cJSON *dir = cJSON_GetObjectItemCaseSensitive(rl, dirs[d]);
    double sum[NKEYS] = {0};
    route_sums(r, stats, base, d, sum, im);
    /* the round's direction and the relay's totals: the routes' sums */
    for (size_t k = 0; k < NKEYS; k++) {
      const char *key = route_keys[k];
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(
          dir, strcmp(key, "relay_errors") == 0 ? "errors" : key);
      if (cJSON_IsNumber(v) && v->valuedouble != sum[k]) {
        snprintf(p, sizeof p, "%s/relay/%s/%s", base, dirs[d],
                 strcmp(key, "relay_errors") == 0 ? "errors" : key);
        np_chk__problem(r->c, r->file, p,
                        "%.0f, but the routes' counters (relay/stats/routes) "
                        "sum to %.0f",
                        v->valuedouble, sum[k]);
      }
      v = np_json_pointer(stats, "/totals");
      v = cJSON_GetObjectItemCaseSensitive(
          cJSON_GetObjectItemCaseSensitive(v, dirs[d]), key);
      if (cJSON_IsNumber(v) && v->valuedouble != sum[k]) {
        snprintf(p, sizeof p, "%s/relay/stats/totals/%s/%s", base, dirs[d],
                 key);
        np_chk__problem(r->c, r->file, p,
                        "%.0f, but the routes' counters sum to %.0f",
                        v->valuedouble, sum[k]);
      }
    }
    double lost = num(dir, "lost_random") + num(dir, "lost_burst") +
                  num(dir, "lost_ge");
    double ls = num(dir, "loss_stage");
    double ap = num(dir, "applied_loss_percent");
    snprintf(p, sizeof p, "%s/relay/%s/applied_loss_percent", base, dirs[d]);
    if (isfinite(ap) && isfinite(ls) &&
        fabs(ap - (ls > 0 ? 100 * lost / ls : 0)) > 1e-9 * fmax(1, ap))
      np_chk__problem(r->c, r->file, p,
                      "%.6g, but 100 x lost / loss_stage = %.6g", ap,
                      ls > 0 ? 100 * lost / ls : 0);
    /* applied against configured */
    snprintf(p, sizeof p, "%s/relay/%s/duplicated", base, dirs[d]);
    binomial(r, p, num(dir, "duplicated"), num(dir, "received"),
             num(im, "duplicate_percent"), "duplicated");
    snprintf(p, sizeof p, "%s/relay/%s/lost_random", base, dirs[d]);
    binomial(r, p, num(dir, "lost_random"),
             ls - num(dir, "lost_burst") - num(dir, "lost_ge"),
             num(im, "loss_percent"), "lost at random");
    snprintf(p, sizeof p, "%s/relay/%s/reordered", base, dirs[d]);
    binomial(r, p, num(dir, "reordered"), sum[7] /* queued */,
             num(im, "reorder_percent"), "reordered");
    snprintf(p, sizeof p, "%s/relay/%s/lost_ge", base, dirs[d]);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(im, "ge_enabled")) &&
        num(dir, "lost_ge") > 0)
      np_chk__problem(r->c, r->file, p,
                      "%.0f, but the Gilbert-Elliott model is off in the "
                      "configuration",
                      num(dir, "lost_ge"));
    errors += sum[16];
    overflow += sum[6];
    recv_all += sum[0];
    fwd_all += sum[11];
  }
  const char *tot[2] = {"errors", "overflow"};
  const double want[2] = {errors, overflow};
  for (int k = 0; k < 2; k++) {
    double have = num(rl, tot[k]);
    snprintf(p, sizeof p, "%s/relay/%s", base, tot[k]);
    if (isfinite(have) && have != want[k])
      np_chk__problem(r->c, r->file, p,
                      "%.0f, but both directions' %s sum to %.0f", have, tot[k],
                      want[k]);
  }
  /* the window (measurement + drain) is part of the round */
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(rl, "window");
  snprintf(p, sizeof p, "%s/relay/window", base);
  if (num(w, "received") > recv_all || num(w, "forwarded") > fwd_all)
    np_chk__problem(r->c, r->file, p,
                    "counts more than the whole round (received %.0f of %.0f, "
                    "forwarded %.0f of %.0f)",
                    num(w, "received"), recv_all, num(w, "forwarded"), fwd_all);
  double wl = num(w, "lost"), wls = num(w, "loss_stage"),
         wap = num(w, "applied_loss_percent");
  if (isfinite(wap) && isfinite(wls) &&
      fabs(wap - (wls > 0 ? 100 * wl / wls : 0)) > 1e-9 * fmax(1, wap))
    np_chk__problem(r->c, r->file, p,
                    "applied_loss_percent %.6g, but 100 x lost / loss_stage = "
                    "%.6g",
                    wap, wls > 0 ? 100 * wl / wls : 0);
  /* peaks: the routes' */
  double pb = 0, pp = 0;
  const cJSON *ro;
  cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(stats, "routes")) {
    pb += np_json_get_number(ro, "peak_queue_bytes", 0);
    pp += np_json_get_number(ro, "peak_queue_packets", 0);
  }
  if (stats != NULL && (num(rl, "route_peak_bytes_sum") != pb ||
                        num(rl, "route_peak_packets_sum") != pp)) {
    snprintf(p, sizeof p, "%s/relay/route_peak_bytes_sum", base);
    np_chk__problem(r->c, r->file, p,
                    "%.0f bytes / %.0f packets, but the routes' peaks sum to "
                    "%.0f / %.0f",
                    num(rl, "route_peak_bytes_sum"),
                    num(rl, "route_peak_packets_sum"), pb, pp);
  }
  /* the relay ran the record's configuration, seeded seed + round */
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(stats, "config");
  if (sc != NULL && cfg != NULL) {
    cJSON *want_cfg = cJSON_Duplicate(cfg, 1);
    if (want_cfg == NULL) {
      r->c->oom = 1;
      return;
    }
    double seed = num(cfg, "seed");
    if (isfinite(seed))
      cJSON_ReplaceItemInObjectCaseSensitive(
          want_cfg, "seed", cJSON_CreateNumber(seed + (double)i));
    snprintf(p, sizeof p, "%s/relay/stats/config", base);
    np_chk__diff(r->c, r->file, p, sc, want_cfg, "/config/relay (seed + round)",
                 8);
    cJSON_Delete(want_cfg);
  }
}
