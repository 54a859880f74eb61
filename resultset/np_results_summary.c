/*
 * np_results_summary.c - summary.json from a plan, the records and the
 * runner's kernel snapshots (see np_results_summary.h for what is computed
 * and the status rules).
 *
 * Only finished repetitions (a record present) count; a configuration
 * with fewer is "incomplete" and, like a failed one, never ranked.  Loss
 * evidence comes from two independent sources on purpose: the record's own
 * counters and the runner's kernel snapshots taken outside the child.
 * Each repetition is reduced to its entry first (np_results_summary_rep),
 * and every statistic is computed from the entries, so a caller streaming
 * records keeps an entry per run, never the records.
 */
#include "np_results_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_stable.h"
#include "np_stats.h"
#include "np_results_stats.h"
#include "np_results_summary_rudp.h"

/* The entry member exec values travel in (removed before output). */
#define NP_EXEC_VALUES "exec_values"

/* A metric: where it lives in a record (first pointer that resolves). */
struct np_metric {
  const char *name;
  const char *ptrs[3];
};

static const struct np_metric np_metrics[] = {
    {"roundtrips_per_sec", {"/measurement/roundtrips_per_sec", NULL, NULL}},
    {"rtt_p99_us", {"/measurement/rtt_us/p99", NULL, NULL}},
    {"cpu_percent", {"/measurement/cpu_percent", NULL, NULL}},
    {"rss_max_bytes", {"/measurement/rss_max_bytes", NULL, NULL}},
    {"lost", {"/counters/lost", "/measurement/counters/lost",
              "/measurement/lost"}},
    {"kernel_drops", {"/sockets/kernel_drops", "/kernel_drops", NULL}},
};
#define NP_NREC (sizeof np_metrics / sizeof np_metrics[0])
/* Two more metrics come from the runner's kernel snapshots. */
static const char *const np_kmetrics[] = {"udp_rcvbuf_errors_delta",
                                          "ip_reasm_reqds_delta"};
#define NP_NMETRICS (NP_NREC + 2)

static const char *metric_name(size_t i) {
  return i < NP_NREC ? np_metrics[i].name : np_kmetrics[i - NP_NREC];
}

/* Kernel counters the loss tables need, from the runner's snapshots. */
static const char *const np_kcounters[][2] = {
    {"udp_rcvbuf_errors", "Udp.RcvbufErrors"},
    {"udp6_rcvbuf_errors", "Udp6.Udp6RcvbufErrors"},
    {"ip_reasm_reqds", "Ip.ReasmReqds"},
    {"ip_reasm_oks", "Ip.ReasmOKs"},
    {"ip_frag_creates", "Ip.FragCreates"},
};
#define NP_NKC (sizeof np_kcounters / sizeof np_kcounters[0])

static int metric_value(const cJSON *rec, const struct np_metric *m,
                        double *v) {
  for (size_t i = 0; i < 3 && m->ptrs[i] != NULL; i++) {
    const cJSON *x = np_json_pointer(rec, m->ptrs[i]);
    if (cJSON_IsNumber(x)) {
      *v = x->valuedouble;
      return 1;
    }
  }
  return 0;
}

/* {median, min, max, n, mean, sd, cv, ci95, outliers} of v[0..n), the
 * values of repetitions tags[0..n) (n may be 0: nulls). */
static cJSON *stats_json(const double *v, const long *tags, size_t n,
                         uint64_t seed, enum np_results_ci_method m) {
  cJSON *o = cJSON_CreateObject();
  struct np_stats_desc d = {0};
  if (o == NULL || (n > 0 && np_stats_describe(v, n, &d) != 0)) {
    cJSON_Delete(o);
    return NULL;
  }
  if (n == 0) {
    cJSON_AddNullToObject(o, "median");
    cJSON_AddNullToObject(o, "min");
    cJSON_AddNullToObject(o, "max");
  } else {
    np_json_add_number(o, "median", d.median);
    np_json_add_number(o, "min", d.min);
    np_json_add_number(o, "max", d.max);
  }
  cJSON_AddNumberToObject(o, "n", (double)n);
  if (np_results_stat_extend(o, v, tags, n, seed, m) != 0) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* Exec records: the values of their metrics, kept in the entry as
 * "exec_values" {name: value} until config_json has used them (the
 * summary's repetition entries do not carry them). */
static void exec_values(const cJSON *rec, cJSON *rep) {
  cJSON *o = cJSON_AddObjectToObject(rep, NP_EXEC_VALUES);
  const cJSON *m;
  cJSON_ArrayForEach(m, np_json_pointer(rec, "/exec/metrics")) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
    const char *name = np_json_get_string(m, "name", NULL);
    if (o != NULL && name != NULL && cJSON_IsNumber(v) &&
        !cJSON_HasObjectItem(o, name))
      cJSON_AddNumberToObject(o, name, v->valuedouble);
  }
}

/* Exec suites: "exec.NAME" (a stat, stats_json) in stats for every
 * metric of the plan, over the finished repetitions whose record has its
 * value; then the entries lose their "exec_values".  NP_ENOMEM. */
static int exec_stats(const struct np_matrix_plan *p, cJSON *reps,
                      cJSON *stats, uint64_t seed) {
  const cJSON *m;
  cJSON *r;
  size_t cap = (size_t)cJSON_GetArraySize(reps) + 1;
  double *v = calloc(cap, sizeof *v);
  long *tag = calloc(cap, sizeof *tag);
  int rc = v == NULL || tag == NULL ? NP_ENOMEM : 0;
  const cJSON *metrics =
      rc ? NULL : np_json_pointer(p->doc, "/exec/metrics");
  cJSON_ArrayForEach(m, metrics) {
    const char *name = np_json_get_string(m, "name", "");
    size_t k = 0;
    cJSON_ArrayForEach(r, reps) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(
          cJSON_GetObjectItemCaseSensitive(r, NP_EXEC_VALUES), name);
      if (cJSON_IsNumber(x) && isfinite(x->valuedouble) && k < cap) {
        tag[k] = (long)np_json_get_number(r, "n", 0);
        v[k++] = x->valuedouble;
      }
    }
    char key[80];
    snprintf(key, sizeof key, "exec.%s", name);
    cJSON *o = stats_json(v, tag, k, seed,
                          (enum np_results_ci_method)p->ci_method);
    if (o == NULL || !cJSON_AddItemToObject(stats, key, o)) {
      cJSON_Delete(o);
      rc = NP_ENOMEM;
      break;
    }
  }
  cJSON_ArrayForEach(r, reps)
      cJSON_DeleteItemFromObjectCaseSensitive(r, NP_EXEC_VALUES);
  free(v);
  free(tag);
  return rc;
}

/* Kernel counter deltas of one repetition from the runner's snapshots. */
static void kernel_deltas(const struct np_kernel *kb, const struct np_kernel *ka,
                          cJSON *rep) {
  cJSON *d = cJSON_AddObjectToObject(rep, "kernel_delta");
  for (size_t i = 0; d != NULL && i < NP_NKC; i++) {
    int64_t a, b;
    if (kb && ka && np_kernel_get(kb, np_kcounters[i][1], &a) == 0 &&
        np_kernel_get(ka, np_kcounters[i][1], &b) == 0)
      cJSON_AddNumberToObject(d, np_kcounters[i][0], (double)(b - a));
    else
      cJSON_AddNullToObject(d, np_kcounters[i][0]);
  }
}

/* How summary.json treats a kind (model/np_kind.h); an unknown one as
 * an echo benchmark. */
static enum np_kind_summary summary_of(const char *protocol) {
  const struct np_kind *k = np_kind_find(protocol);
  return k ? k->summary : NP_KIND_SUMMARY_ECHO;
}

cJSON *np_results_summary_rep(const char *protocol, int n,
                              const cJSON *rec, const struct np_kernel *before,
                              const struct np_kernel *after) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddNumberToObject(o, "n", n);
  if (!cJSON_IsObject(rec)) {
    cJSON_AddStringToObject(o, "status", "missing");
    return o;
  }
  const char *st = np_json_get_string(rec, "status", "invalid");
  cJSON_AddStringToObject(o, "status", st);
  /* runner-written records carry failure.reason, the bench's own carry a
   * reasons list (one per failed check) */
  const cJSON *why = np_json_pointer(rec, "/failure/reason");
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(rec, "reasons");
  char text[512] = "";
  if (cJSON_IsString(why))
    snprintf(text, sizeof text, "%s", why->valuestring);
  const cJSON *it;
  cJSON_ArrayForEach(it, list) {
    size_t used = strlen(text);
    if (cJSON_IsString(it) && used + 8 < sizeof text)
      snprintf(text + used, sizeof text - used, "%s%s", used ? "; " : "",
               it->valuestring);
  }
  if (text[0] == '\0' && strcmp(st, "passed") != 0)
    snprintf(text, sizeof text, "record status is %s", st);
  if (text[0] != '\0')
    cJSON_AddStringToObject(o, "reason", text);
  for (size_t i = 0; i < NP_NREC; i++) {
    double v;
    if (metric_value(rec, &np_metrics[i], &v))
      np_json_add_number(o, np_metrics[i].name, v);
    else
      cJSON_AddNullToObject(o, np_metrics[i].name);
  }
  kernel_deltas(before, after, o);
  if (summary_of(protocol) == NP_KIND_SUMMARY_ROUNDS)
    np_results_summary_rudp_rep(rec, o);
  if (summary_of(protocol) == NP_KIND_SUMMARY_EXEC)
    exec_values(rec, o);
  return o;
}

/* Metric i of a repetition entry (the record metrics, then the two kernel
 * deltas); 1 when it is a number. */
static int entry_value(const cJSON *rep, size_t i, double *v) {
  const cJSON *x =
      i < NP_NREC
          ? cJSON_GetObjectItemCaseSensitive(rep, np_metrics[i].name)
          : cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(rep, "kernel_delta"),
                i == NP_NREC ? "udp_rcvbuf_errors" : "ip_reasm_reqds");
  if (!cJSON_IsNumber(x))
    return 0;
  *v = x->valuedouble;
  return 1;
}

/* until_stable plans: the stopping rule over the consecutive repetitions
 * that have a record, from the first (np_results_stable.h).  NP_ENOMEM. */
static int stable_of(const struct np_matrix_plan *p, cJSON *const *entries,
                     uint64_t seed, struct np_results_stable_eval *e) {
  size_t R = (size_t)p->repetitions, n = 0;
  double *rps = malloc((R ? R : 1) * sizeof *rps);
  if (rps == NULL)
    return NP_ENOMEM;
  for (; n < R && entries[n] != NULL; n++) {
    double x;
    if (strcmp(np_json_get_string(entries[n], "status", "missing"),
               "missing") == 0)
      break;
    rps[n] = entry_value(entries[n], 0, &x) ? x : NAN;
  }
  int rc = np_results_stable_eval(p, rps, n, seed, e);
  free(rps);
  return rc;
}

/* Summarize one configuration into a new object; *ok is 1 when it may be
 * ranked, *why (static text) says why not otherwise.  An until_stable
 * plan lists the repetitions its rule runs (and any beyond that exist). */
static cJSON *config_json(const struct np_matrix_plan *p,
                          const struct np_matrix_config *cf, cJSON **entries,
                          int *ok, char *why, size_t whylen,
                          double *median_rps) {
  char first_bad[256] = "", seedhex[17];
  size_t R = (size_t)p->repetitions, done = 0, passed = 0, nv[NP_NMETRICS];
  size_t planned = R;
  double *v[NP_NMETRICS];
  long *tag[NP_NMETRICS];
  uint64_t seed = np_results_seed_of(cf->id);
  struct np_results_stable_eval se = {0};
  memset(nv, 0, sizeof nv);
  memset(v, 0, sizeof v);
  memset(tag, 0, sizeof tag);
  np_results_seed_hex(seed, seedhex);
  if (p->until_stable) {
    if (stable_of(p, entries, seed, &se) != 0)
      return NULL;
    planned = se.needed;
  }
  cJSON *o = cJSON_CreateObject(), *reps = NULL;
  /* rudp records carry rounds: their own statistics (basis "rounds" for
   * one repetition, else "repetitions"), np_results_summary_rudp.c */
  struct np_results_rudp_acc *ra = NULL;
  if (o == NULL || (summary_of(p->protocol) == NP_KIND_SUMMARY_ROUNDS &&
                    (ra = np_results_rudp_acc_new(R == 1)) == NULL))
    goto fail_config;
  cJSON_AddStringToObject(o, "id", cf->id);
  cJSON_AddItemToObject(o, "options", cJSON_Duplicate(cf->options, 1));
  cJSON_AddStringToObject(o, "group", cf->group);
  cJSON_AddStringToObject(o, "expect", cf->expect_fail ? "fail" : "pass");
  if (cf->expect_reason)
    cJSON_AddStringToObject(o, "expect_reason", cf->expect_reason);
  reps = cJSON_AddArrayToObject(o, "repetitions");
  for (size_t i = 0; i < NP_NMETRICS; i++) {
    v[i] = calloc(R + 1, sizeof *v[i]);
    tag[i] = calloc(R + 1, sizeof *tag[i]);
    if (v[i] == NULL || tag[i] == NULL)
      goto fail_config;
  }
  for (size_t n = 1; n <= R && reps; n++) {
    cJSON *rj = entries[n - 1];
    entries[n - 1] = NULL;
    if (rj == NULL)
      continue;
    const char *st = np_json_get_string(rj, "status", "missing");
    if (strcmp(st, "missing") == 0 && n > planned) {
      cJSON_Delete(rj); /* not needed by the until_stable rule */
      continue;
    }
    cJSON_AddItemToArray(reps, rj);
    if (strcmp(st, "missing") == 0)
      continue;
    if (ra != NULL)
      np_results_rudp_acc_add(ra, rj, (long)n);
    done++;
    passed += strcmp(st, "passed") == 0;
    if (strcmp(st, "passed") != 0 && first_bad[0] == '\0')
      snprintf(first_bad, sizeof first_bad, "repetition %zu %s: %s", n, st,
               np_json_get_string(rj, "reason", "?"));
    for (size_t i = 0; i < NP_NMETRICS; i++) {
      double x;
      if (entry_value(rj, i, &x)) {
        tag[i][nv[i]] = (long)n;
        v[i][nv[i]++] = x;
      }
    }
  }
  const char *status;
  *ok = 0;
  if (done < planned) {
    status = "incomplete";
    snprintf(why, whylen, "incomplete: %zu of %zu repetitions finished", done,
             planned);
  } else if (cf->expect_fail) {
    status = passed == 0 ? "confirmed" : "unexpected-pass";
    snprintf(why, whylen, "%s", passed == 0
                                    ? "expected to fail, and every "
                                      "repetition did (confirmed)"
                                    : "expected to fail, but a repetition "
                                      "passed");
  } else if (passed < done) {
    status = "failed";
    snprintf(why, whylen, "%s", first_bad);
  } else {
    status = "passed";
    *ok = 1;
  }
  cJSON_AddStringToObject(o, "status", status);
  if (!*ok)
    cJSON_AddStringToObject(o, "exclusion_reason", why);
  cJSON_AddNumberToObject(o, "repetitions_done", (double)done);
  cJSON_AddNumberToObject(o, "repetitions_passed", (double)passed);
  cJSON_AddStringToObject(o, "bootstrap_seed", seedhex);
  cJSON *stats = cJSON_AddObjectToObject(o, "stats");
  *median_rps = -1;
  for (size_t i = 0; i < NP_NMETRICS && stats; i++) {
    cJSON *st = stats_json(v[i], tag[i], nv[i], seed,
                           (enum np_results_ci_method)p->ci_method);
    if (st == NULL)
      goto fail_config;
    cJSON_AddItemToObject(stats, metric_name(i), st);
    if (i == 0 && nv[0] > 0)
      *median_rps = np_json_get_number(st, "median", -1);
  }
  /* exec suites: each declared metric */
  if (stats != NULL && summary_of(p->protocol) == NP_KIND_SUMMARY_EXEC &&
      exec_stats(p, reps, stats, seed) != 0)
    goto fail_config;
  /* spread of round trips/s across repetitions */
  double spread = -1, lo = v[0][0], hi = v[0][0];
  for (size_t k = 1; k < nv[0]; k++) {
    lo = v[0][k] < lo ? v[0][k] : lo;
    hi = v[0][k] > hi ? v[0][k] : hi;
  }
  if (nv[0] > 1 && *median_rps > 0)
    spread = (hi - lo) / *median_rps;
  if (spread >= 0)
    np_json_add_number(o, "spread", spread);
  else
    cJSON_AddNullToObject(o, "spread");
  cJSON_AddBoolToObject(o, "unstable", spread > NP_RESULTS_SPREAD_LIMIT);
  if (ra != NULL &&
      np_results_rudp_acc_finish(ra, o, NP_RESULTS_SPREAD_LIMIT, seed,
                                 (enum np_results_ci_method)p->ci_method,
                                 median_rps) != 0)
    goto fail_config;
  if (p->until_stable &&
      !cJSON_AddItemToObject(o, "until_stable", np_results_stable_json(p, &se)))
    goto fail_config;
  np_results_rudp_acc_free(ra);
  for (size_t i = 0; i < NP_NMETRICS; i++) {
    free(v[i]);
    free(tag[i]);
  }
  return o;
fail_config:
  np_results_rudp_acc_free(ra);
  for (size_t i = 0; i < NP_NMETRICS; i++) {
    free(v[i]);
    free(tag[i]);
  }
  for (size_t n = 1; n <= R; n++) { /* entries not yet taken */
    cJSON_Delete(entries[n - 1]);
    entries[n - 1] = NULL;
  }
  cJSON_Delete(o);
  return NULL;
}

/* Rank passed configurations per group by median round trips/s. */
static cJSON *rankings_json(const struct np_matrix_plan *p, const int *ok,
                            char (*why)[256], const double *med) {
  cJSON *groups = cJSON_CreateArray();
  char *seen = calloc(p->nconfigs + 1, 1);
  size_t *idx = calloc(p->nconfigs + 1, sizeof *idx);
  if (groups == NULL || seen == NULL || idx == NULL) {
    free(seen);
    free(idx);
    cJSON_Delete(groups);
    return NULL;
  }
  for (size_t g = 0; g < p->nconfigs; g++) {
    if (seen[g])
      continue;
    cJSON *gj = cJSON_CreateObject();
    cJSON_AddItemToArray(groups, gj);
    cJSON_AddStringToObject(gj, "group", p->configs[g].group);
    cJSON *ranked = cJSON_AddArrayToObject(gj, "ranked");
    cJSON *excl = cJSON_AddArrayToObject(gj, "excluded");
    size_t n = 0;
    for (size_t i = g; i < p->nconfigs; i++) {
      if (seen[i] || strcmp(p->configs[i].group, p->configs[g].group) != 0)
        continue;
      seen[i] = 1;
      if (ok[i] && med[i] >= 0) {
        idx[n++] = i;
      } else {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "id", p->configs[i].id);
        cJSON_AddStringToObject(e, "reason",
                                ok[i] ? "no round-trip figures" : why[i]);
        cJSON_AddItemToArray(excl, e);
      }
    }
    for (size_t a = 1; a < n; a++) /* insertion sort, descending */
      for (size_t b = a; b > 0 && med[idx[b]] > med[idx[b - 1]]; b--) {
        size_t t = idx[b];
        idx[b] = idx[b - 1];
        idx[b - 1] = t;
      }
    for (size_t a = 0; a < n; a++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddNumberToObject(e, "rank", (double)(a + 1));
      cJSON_AddStringToObject(e, "id", p->configs[idx[a]].id);
      np_json_add_number(e, "median_roundtrips_per_sec", med[idx[a]]);
      cJSON_AddItemToArray(ranked, e);
    }
  }
  free(seen);
  free(idx);
  return groups;
}

int np_results_summary_build(const struct np_matrix_plan *p, cJSON **entries,
                             cJSON **out, struct np_errbuf *eb) {
  cJSON *sum = NULL;
  int *ok = NULL, rc;
  char (*why)[256] = NULL;
  double *med = NULL;
  size_t R = (size_t)p->repetitions;
  rc = np_errbuf_set(eb, NP_ENOMEM, "summary: out of memory");
  ok = calloc(p->nconfigs, sizeof *ok);
  why = calloc(p->nconfigs, sizeof *why);
  med = calloc(p->nconfigs, sizeof *med);
  sum = cJSON_CreateObject();
  if (ok == NULL || why == NULL || med == NULL || sum == NULL)
    goto cleanup_all;
  cJSON_AddStringToObject(sum, "schema", "netproof/summary/1");
  cJSON_AddStringToObject(sum, "suite", p->suite);
  cJSON_AddStringToObject(sum, "plan_sha256", p->hash);
  cJSON_AddNumberToObject(sum, "repetitions", p->repetitions);
  cJSON_AddNumberToObject(sum, "spread_limit", NP_RESULTS_SPREAD_LIMIT);
  cJSON_AddItemToObject(
      sum, "intervals",
      np_results_intervals_json((enum np_results_ci_method)p->ci_method));
  if (p->until_stable)
    cJSON_AddItemToObject(sum, "until_stable", np_results_stable_plan_json(p));
  cJSON *totals = cJSON_AddObjectToObject(sum, "totals");
  cJSON *configs = cJSON_AddArrayToObject(sum, "configurations");
  if (totals == NULL || configs == NULL)
    goto cleanup_all;
  static const char *const kinds[] = {"passed", "confirmed", "failed",
                                      "unexpected-pass", "incomplete"};
  double count[5] = {0}, unstable = 0, missed = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    cJSON *c = config_json(p, &p->configs[i], entries + i * R, &ok[i], why[i],
                           sizeof why[i], &med[i]);
    if (c == NULL)
      goto cleanup_all;
    cJSON_AddItemToArray(configs, c);
    const char *st = np_json_get_string(c, "status", "");
    for (size_t k = 0; k < 5; k++)
      count[k] += strcmp(st, kinds[k]) == 0;
    unstable += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "unstable"));
    const cJSON *us = cJSON_GetObjectItemCaseSensitive(c, "until_stable");
    missed += us != NULL &&
              cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(
                  us, "repetitions_needed")) &&
              cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(us, "met"));
  }
  cJSON_AddNumberToObject(totals, "configurations", (double)p->nconfigs);
  for (size_t k = 0; k < 5; k++)
    cJSON_AddNumberToObject(totals, kinds[k], count[k]);
  cJSON_AddNumberToObject(totals, "unstable", unstable);
  if (p->until_stable)
    cJSON_AddNumberToObject(totals, "target_missed", missed);
  /* exec suites have no common headline number to rank by */
  cJSON *rank = summary_of(p->protocol) == NP_KIND_SUMMARY_EXEC
                    ? cJSON_CreateArray()
                    : rankings_json(p, ok, why, med);
  if (rank == NULL)
    goto cleanup_all;
  cJSON_AddItemToObject(sum, "rankings", rank);
  *out = sum;
  sum = NULL;
  rc = 0;
cleanup_all:
  for (size_t i = 0; i < p->nconfigs * R; i++)
    cJSON_Delete(entries[i]);
  cJSON_Delete(sum);
  free(ok);
  free(why);
  free(med);
  return rc;
}
