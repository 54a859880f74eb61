/*
 * np_report_tables.c - the Markdown tables of the reference pages.
 *
 * Each table is written to index.md and, with the run ids behind every
 * cell, into report.json's "tables" array so any figure on the page can be
 * traced back to the records it came from.  Cells carry the same marks as
 * the charts: "†" unstable, "excluded (check)" for a configuration with a
 * failed repetition, "missing" for one short of its repetitions; a
 * condition that varies inside a set is a column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_report_fmt.h"
#include "np_report_loss.h"
#include "np_report_int.h"
#include "np_results_rudp.h"

#define DAGGER "\xe2\x80\xa0"
#define DDAGGER "\xe2\x80\xa1"

cJSON *np_report__new_table(struct np_report_ctx *ctx, const char *name,
                            const struct np_results_set *s) {
  const char *set = s ? np_report__info(ctx, s)->name : "";
  char id[400];
  snprintf(id, sizeof id, "%s%s%s", s ? np_report__info(ctx, s)->slug : "",
           s ? "-" : "", name);
  /* a second table of one name in a set (two headlines) gets a number */
  size_t same = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ctx->jtables) {
    const char *tid = np_json_get_string(t, "id", "");
    same += strncmp(tid, id, strlen(id)) == 0 &&
            (tid[strlen(id)] == '\0' || tid[strlen(id)] == '-');
  }
  if (same > 0)
    snprintf(id + strlen(id), sizeof id - strlen(id), "-%zu", same + 1);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddStringToObject(o, "id", id);
  cJSON_AddStringToObject(o, "set", set);
  cJSON_AddItemToArray(ctx->jtables, o);
  return cJSON_AddArrayToObject(o, "rows");
}

void np_report__table_footnote(struct np_report_ctx *ctx, int unstable,
                               int excluded, int missing) {
  if (unstable)
    fprintf(ctx->md,
            "%s unstable: round trips/s spread over the set's limit across "
            "the repetitions (summary.json `unstable`); compare such rows "
            "with care.%s",
            DAGGER, excluded || missing ? " " : "\n\n");
  if (excluded)
    fprintf(ctx->md,
            "Excluded: a repetition failed the named checks; every run of "
            "the configuration is kept in the result set and left out of "
            "medians, rankings and charts.%s",
            missing ? " " : "\n\n");
  if (missing)
    fprintf(ctx->md, "Missing: planned repetitions that were not run (an "
                     "incomplete set); no median is shown.\n\n");
}

void np_report__tables_correctness(struct np_report_ctx *ctx) {
  fprintf(ctx->md, "## Correctness and load range\n\n");
  fprintf(ctx->md, "| Group | Configurations | Runs passed | Unstable | "
                   "Failed configurations |\n|---|---:|---:|---:|---|\n");
  cJSON *jrows = np_report__new_table(ctx, "correctness", NULL);
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    const struct np_report_setinfo *in = &ctx->info[i];
    size_t passed = 0, confirmed = 0, unstable = 0;
    char failed[2048];
    size_t k = 0;
    failed[0] = '\0';
    cJSON *jfail = cJSON_CreateArray();
    for (size_t c = 0; c < s->nconfigs; c++) {
      const struct np_results_config *cf = &s->configs[c];
      passed += cf->npassed;
      unstable += (size_t)np_report__marked_unstable(ctx, s, cf);
      if (cf->expect_fail && cf->npassed == 0)
        confirmed++;
      if (cf->npassed < cf->nruns) {
        cJSON_AddItemToArray(jfail, cJSON_CreateString(cf->id));
        k += (size_t)snprintf(failed + k,
                              k < sizeof failed ? sizeof failed - k : 0,
                              "%s`%s`%s", k ? ", " : "", cf->id,
                              cf->expect_fail ? " (expected)" : "");
      }
    }
    if (k >= sizeof failed)
      snprintf(failed + sizeof failed - 6, 6, " ...");
    char name[300], planned[64] = "";
    np_report__md_text(name, sizeof name, in->name);
    if (in->nmissing)
      snprintf(planned, sizeof planned, " of %zu planned (INCOMPLETE)",
               in->planned);
    fprintf(ctx->md, "| %s | %zu%s | %zu / %zu passed | %zu | %s |\n", name,
            s->nconfigs, planned, passed, s->nruns, unstable,
            k ? failed : "none");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "group", in->name);
    cJSON_AddStringToObject(r, "suite",
                            np_json_get_string(s->suite, "suite", ""));
    cJSON_AddNumberToObject(r, "configurations", (double)s->nconfigs);
    cJSON_AddNumberToObject(r, "configurations_planned", (double)in->planned);
    cJSON_AddNumberToObject(r, "configurations_missing",
                            (double)in->nmissing);
    cJSON_AddNumberToObject(r, "runs_passed", (double)passed);
    cJSON_AddNumberToObject(r, "runs_total", (double)s->nruns);
    cJSON_AddNumberToObject(r, "unstable", (double)unstable);
    cJSON_AddNumberToObject(r, "expected_failures_confirmed",
                            (double)confirmed);
    cJSON_AddBoolToObject(r, "self_check_failed", in->check_failed);
    cJSON_AddItemToObject(r, "failed_configurations", jfail);
    cJSON_AddItemToArray(jrows, r);
  }
  fprintf(ctx->md,
          "\nAll failed records remain in the result set. A failed repetition "
          "excludes every run of that configuration from throughput "
          "rankings and charts. Content and sequence checks, per set:\n\n");
  for (size_t i = 0; i < ctx->nsets; i++)
    np_report__integrity_line(ctx, ctx->sets[i]);
  fprintf(ctx->md, "\n");
}

static void add_stat(cJSON *r, const char *key, double med, double mn,
                     double mx) {
  cJSON *o = cJSON_AddObjectToObject(r, key);
  np_json_add_number(o, "median", med);
  np_json_add_number(o, "min", mn);
  np_json_add_number(o, "max", mx);
}

/* Median / min / max of a record number over c's passed runs. */
static void stat_ptr(const struct np_results_config *c, const char *ptr,
                     double *med, double *mn, double *mx) {
  double *v = malloc((c->nruns + 1) * sizeof *v);
  size_t n = 0;
  *med = *mn = *mx = NAN;
  for (size_t i = 0; v && i < c->nruns; i++) {
    double x = np_results_num(c->runs[i].doc, ptr);
    if (c->runs[i].passed && isfinite(x))
      v[n++] = x;
  }
  if (n == 0) {
    free(v);
    return;
  }
  *med = np_results_median(v, n);
  *mn = *mx = v[0];
  for (size_t i = 1; i < n; i++) {
    *mn = fmin(*mn, v[i]);
    *mx = fmax(*mx, v[i]);
  }
  free(v);
}

void np_report__tables_perf_of(struct np_report_ctx *ctx,
                               const struct np_results_set *s,
                               const struct np_results_config *const *v,
                               size_t n, const char *name) {
  unsigned vary = np_report__cond_varying(s);
  int use_ci = np_report__ci_bars(ctx, s);
  fprintf(ctx->md, "| Payload / B | Clients | Window | IO model | Backend |");
  for (int k = 0; k < NP_C_COUNT_; k++)
    if (vary & (1u << k))
      fprintf(ctx->md, " %s |", np_report__cond_column((enum np_report_cond)k));
  fprintf(ctx->md,
          " Runs passed | Round trips / s |%s p50 RTT / μs | p99 RTT "
          "/ μs | Process CPU / %% | Machine CPU / %% | Max RSS / "
          "MiB |\n|---:|---:|---:|---|---|",
          use_ci ? " 95 % interval |" : "");
  for (int k = 0; k < NP_C_COUNT_; k++)
    if (vary & (1u << k))
      fprintf(ctx->md, "---|");
  fprintf(ctx->md, "---:|---:|%s---:|---:|---:|---:|---:|\n",
          use_ci ? "---:|" : "");
  cJSON *jrows = np_report__new_table(ctx, name, s);
  int any_unstable = 0, any_excl = 0, any_missing = 0, any_missed = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_results_config *c = v[i];
    double med[6], mn[6], mx[6];
    const enum np_results_metric ms[5] = {NP_M_RPS, NP_M_P50, NP_M_P99,
                                          NP_M_CPU, NP_M_RSS};
    for (int k = 0; k < 5; k++)
      np_results_stat(c, ms[k], 1, &med[k], &mn[k], &mx[k]);
    stat_ptr(c, "/measurement/machine_cpu_percent", &med[5], &mn[5], &mx[5]);
    char pay[32], rps[160], p50[48], p99[48], cpu[48], mcpu[48], rss[48],
        civ[96] = "-";
    double clo = NAN, chi = NAN;
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    int excluded = c->npassed < c->nruns;
    int missing = np_report__short(ctx, s, c);
    int unstable = np_report__marked_unstable(ctx, s, c);
    any_unstable |= unstable;
    any_excl |= excluded && !missing;
    any_missing |= missing;
    snprintf(p50, sizeof p50, "-");
    snprintf(p99, sizeof p99, "-");
    snprintf(cpu, sizeof cpu, "-");
    snprintf(mcpu, sizeof mcpu, "-");
    snprintf(rss, sizeof rss, "-");
    if (missing) {
      snprintf(rps, sizeof rps, "missing (%zu of %d runs)", c->nruns,
               np_report__info(ctx, s)->reps);
    } else if (excluded) {
      char why[120];
      np_report__fail_reason(c, why, sizeof why);
      snprintf(rps, sizeof rps, "excluded (%s)", why[0] ? why : "failed");
    } else {
      char num[48], a[48], b[48];
      int missed = np_report__target_missed(s, c->id);
      any_missed |= missed;
      np_fmt_num(num, sizeof num, med[0], 0);
      snprintf(rps, sizeof rps, "%s%s%s", num, unstable ? " " DAGGER : "",
               missed ? " " DDAGGER : "");
      if (use_ci && np_results_stat_ci(c, NP_M_RPS, 1, &clo, &chi) == 0) {
        np_fmt_num(a, sizeof a, clo, 0);
        np_fmt_num(b, sizeof b, chi, 0);
        snprintf(civ, sizeof civ, "%s-%s", a, b);
      } else if (use_ci) {
        snprintf(civ, sizeof civ, "too few runs");
      }
      np_fmt_num(p50, sizeof p50, med[1], 2);
      np_fmt_num(p99, sizeof p99, med[2], 2);
      np_fmt_num(cpu, sizeof cpu, med[3], 1);
      np_fmt_num(mcpu, sizeof mcpu, med[5], 1);
      np_fmt_num(rss, sizeof rss, med[4] / 1048576.0, 1);
    }
    fprintf(ctx->md, "| %s | %s | %s | %s | %s |", pay, c->dim[NP_D_CLIENTS],
            c->dim[NP_D_WINDOW], c->dim[NP_D_MODEL], c->dim[NP_D_BACKEND]);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "config", c->id);
    for (int k = 0; k < NP_C_COUNT_; k++)
      if (vary & (1u << k)) {
        char cell[64];
        np_report__cond_cell(cell, sizeof cell, (enum np_report_cond)k, c);
        fprintf(ctx->md, " %s |", cell);
        cJSON_AddStringToObject(
            r, np_report__cond_column((enum np_report_cond)k), cell);
      }
    fprintf(ctx->md, " %zu / %zu | %s |", c->npassed, c->nruns, rps);
    if (use_ci)
      fprintf(ctx->md, " %s |", civ);
    fprintf(ctx->md, " %s | %s | %s | %s | %s |\n", p50, p99, cpu, mcpu,
            rss);
    cJSON_AddNumberToObject(r, "runs_passed", (double)c->npassed);
    cJSON_AddNumberToObject(r, "runs_total", (double)c->nruns);
    cJSON_AddBoolToObject(r, "excluded", excluded);
    cJSON_AddBoolToObject(r, "missing", missing);
    cJSON_AddBoolToObject(r, "unstable", np_report__unstable(s, c->id));
    if (!excluded && !missing) {
      add_stat(r, "roundtrips_per_sec", med[0], mn[0], mx[0]);
      if (use_ci && isfinite(clo)) {
        cJSON *iv = cJSON_AddObjectToObject(r, "roundtrips_per_sec_ci95");
        np_json_add_number(iv, "lo", clo);
        np_json_add_number(iv, "hi", chi);
      }
      add_stat(r, "rtt_p50_us", med[1], mn[1], mx[1]);
      add_stat(r, "rtt_p99_us", med[2], mn[2], mx[2]);
      add_stat(r, "cpu_percent", med[3], mn[3], mx[3]);
      add_stat(r, "machine_cpu_percent", med[5], mn[5], mx[5]);
      add_stat(r, "rss_max_bytes", med[4], mn[4], mx[4]);
    }
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(jrows, r);
  }
  double cores = np_results_num(s->runs[0].doc, "/machine/logical_cores");
  const cJSON *cfg = np_json_pointer(s->runs[0].doc, "/config");
  size_t most = 0;
  for (size_t i = 0; i < n; i++)
    most = v[i]->nruns > most ? v[i]->nruns : most;
  int external = np_kind_is(np_json_get_string(cfg, "protocol", ""),
                            NP_KIND_UDP_EXTERNAL);
  fprintf(ctx->md,
          "\n%s Process CPU counts one core as 100 %% and includes "
          "%s; machine CPU is the share of "
          "the whole machine (process CPU / %.0f logical cores). RTT: from a "
          "client sending a request to it receiving the echo (monotonic "
          "clock, same process). Round trips/s: %s. RSS: the process's peak "
          "resident set (getrusage `ru_maxrss`), warm-up included.\n\n",
          most <= 1 ? "Values are single runs (one repetition per "
                      "configuration: no min/max)."
                    : use_ci ? "Values are medians of the passed "
                               "repetitions; the charts show the 95 % "
                               "interval of each median."
                    : "Values are medians of the passed repetitions; the "
                      "charts show their min/max.",
          external ? "only our clients (the server is another process, not "
                     "measured)"
                   : "clients and server in one process",
          cores,
          np_json_get_string(cfg, "roundtrip_rate_rule",
                             "completed round trips / (measurement + drain "
                             "seconds)"));
  if (use_ci)
    fprintf(ctx->md, "95 %% interval: the percentile-bootstrap confidence "
                     "interval of the median round trips/s (10,000 "
                     "resamples; none below 5 runs; docs/statistics.md).");
  if (any_missed)
    fprintf(ctx->md, "%s%s interval target missed: the configuration ran "
                     "its maximum repetitions (until-stable) before that "
                     "interval was within the plan's target.",
            use_ci ? " " : "", DDAGGER);
  if (use_ci || any_missed)
    fprintf(ctx->md, "\n\n");
  np_report__table_footnote(ctx, any_unstable, any_excl, any_missing);
}

void np_report__tables_perf(struct np_report_ctx *ctx,
                            const struct np_results_set *s) {
  const struct np_results_config **v = np_report_sorted_configs(s);
  if (v == NULL)
    return;
  fprintf(ctx->md, "### Throughput, latency and CPU\n\n");
  np_report__tables_perf_of(ctx, s, v, s->nconfigs, "throughput_latency_cpu");
  free(v);
}

/* Size limits and buffer isolation: loss, with the kernel's own counters. */
void np_report__tables_limits(struct np_report_ctx *ctx,
                              const struct np_results_set *s) {
  int any = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    any |= s->configs[i].expect_fail || s->configs[i].npassed < s->configs[i].nruns;
  if (!any)
    return;
  const struct np_results_config **v = np_report_sorted_configs(s);
  if (v == NULL)
    return;
  fprintf(ctx->md, "### Size limits and receive-buffer isolation\n\n");
  fprintf(ctx->md,
          "| Payload / B | Clients | Window | IO model | Backend | Effective "
          "server receive buffer | Outstanding payload budget | Runs passed "
          "| Lost echoes per run (count; %% of sent) | Kernel socket drops "
          "| RcvbufErrors Δ | "
          "IPv4 reassembly Δ |\n"
          "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  cJSON *jrows = np_report__new_table(ctx, "size_limits_buffer_isolation", s);
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = v[i];
    double med[4], mn[4], mx[4];
    const enum np_results_metric ms[4] = {NP_M_LOST, NP_M_KDROPS, NP_M_RCVBUF,
                                          NP_M_REASM};
    for (int k = 0; k < 4; k++)
      np_results_stat(c, ms[k], 0, &med[k], &mn[k], &mx[k]);
    char pay[32], srv[32], bud[32], cell[4][64];
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    np_fmt_bytes(srv, sizeof srv, c->dimv[NP_D_SRVBUF]);
    np_fmt_bytes(bud, sizeof bud,
                 c->dimv[NP_D_PAYLOAD] * c->dimv[NP_D_CLIENTS] *
                     c->dimv[NP_D_WINDOW]);
    for (int k = 0; k < 4; k++)
      np_fmt_range(cell[k], sizeof cell[k], med[k], mn[k], mx[k], 0);
    double pct[3], cnt[3] = {med[0], mn[0], mx[0]};
    char lost[160];
    np_report_loss_pct(c, 0, &pct[0], &pct[1], &pct[2]);
    np_report_loss_cell(lost, sizeof lost, cnt, pct);
    fprintf(ctx->md,
            "| %s | %s | %s | %s | %s | %s | %s | %zu / %zu%s%s | %s | %s | "
            "%s | %s |\n",
            pay, c->dim[NP_D_CLIENTS], c->dim[NP_D_WINDOW], c->dim[NP_D_MODEL],
            c->dim[NP_D_BACKEND], srv, bud, c->npassed, c->nruns,
            c->expect_fail ? " (fail expected)" : "",
            np_report__short(ctx, s, c) ? " (missing runs)" : "", lost, cell[1],
            cell[2], cell[3]);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "config", c->id);
    cJSON_AddBoolToObject(r, "expect_fail", c->expect_fail);
    np_json_add_number(r, "budget_bytes", c->dimv[NP_D_PAYLOAD] *
                                              c->dimv[NP_D_CLIENTS] *
                                              c->dimv[NP_D_WINDOW]);
    add_stat(r, "lost", med[0], mn[0], mx[0]);
    add_stat(r, "lost_of_sent_percent", pct[0], pct[1], pct[2]);
    add_stat(r, "kernel_drops", med[1], mn[1], mx[1]);
    add_stat(r, "udp_rcvbuf_errors_delta", med[2], mn[2], mx[2]);
    add_stat(r, "ip_reasm_reqds_delta", med[3], mn[3], mx[3]);
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(jrows, r);
  }
  fprintf(ctx->md,
          "\nLost echoes: median (min-max) over every repetition, failed ones "
          "included, as a count and as a percentage of the echo requests "
          "that repetition sent (counters.lost / counters.sent). Kernel socket drops: the sockets' own drop counter "
          "(`%s`); the RcvbufErrors and reassembly columns are per-run "
          "deltas of /proc/net/snmp, which is machine-wide. The budget is "
          "clients × window × payload, not an exact queue length.\n\n",
          np_json_get_string(np_json_pointer(s->runs[0].doc, "/sockets"),
                             "drops_source", "SO_MEMINFO SK_MEMINFO_DROPS"));
  free(v);
}

void np_report__scope(struct np_report_ctx *ctx) {
  char v4[512] = "", v6[512] = "";
  size_t k4 = 0, k6 = 0;
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    int has4 = 0, has6 = 0;
    for (size_t r = 0; r < s->nruns; r++) {
      const char *a = np_json_get_string(np_json_pointer(s->runs[r].doc,
                                                         "/config"),
                                         "address", "");
      has6 |= strchr(a, ':') != NULL;
      has4 |= a[0] && strchr(a, ':') == NULL;
    }
    char name[300];
    np_report__md_text(name, sizeof name, ctx->info[i].name);
    if (has4)
      k4 += (size_t)snprintf(v4 + k4, k4 < sizeof v4 ? sizeof v4 - k4 : 0,
                             "%s%s", k4 ? ", " : "", name);
    if (has6)
      k6 += (size_t)snprintf(v6 + k6, k6 < sizeof v6 ? sizeof v6 - k6 : 0,
                             "%s%s", k6 ? ", " : "", name);
  }
  fprintf(ctx->md,
          "Measured per address family: IPv4 loopback (127.0.0.1): %s; IPv6 "
          "loopback (::1): %s.%s Cross-host paths, real NICs and WANs are "
          "not measured here.\n\n",
          k4 ? v4 : "not measured", k6 ? v6 : "not measured",
          k6 ? "" : " No IPv6 payload limit or burst capacity follows from "
                    "these sets.");
}

void np_report__tables_mtu(struct np_report_ctx *ctx) {
  double lo_mtu = NAN;
  for (size_t i = 0; i < ctx->nsets; i++)
    for (size_t r = 0; r < ctx->sets[i]->nruns; r++) {
      double m = np_results_num(ctx->sets[i]->runs[r].doc,
                                "/kernel/before/counters/lo.mtu");
      if (isfinite(m))
        lo_mtu = m;
    }
  char mtu[32];
  np_fmt_num(mtu, sizeof mtu, lo_mtu, 0);
  fprintf(ctx->md,
          "## Payload and MTU limits\n\n"
          "| Plain UDP payload | IPv4 | IPv6 |\n|---|---:|---:|\n"
          "| Protocol maximum | 65,507 = 65,535 − 20 − 8 | 65,527 = 65,535 − 8 |\n"
          "| Unfragmented at MTU 1,500 | 1,472 = 1,500 − 20 − 8 | 1,452 = 1,500 − 40 − 8 |\n"
          "| Arithmetic budget at MTU 16,384 | 16,356 | 16,336 |\n"
          "| Arithmetic budget at MTU 65,536 (Linux lo) | 65,508 (capped at 65,507) | 65,488 |\n\n"
          "Assumes a 20-byte IPv4 header, a 40-byte IPv6 base header and an "
          "8-byte UDP header; IP options and extension headers reduce the "
          "payload, IPv6 jumbograms are not included. IPv6 routers do not "
          "fragment: only the sending host may, so on a real path a datagram "
          "above the path MTU is dropped (ICMPv6 Packet Too Big) instead of "
          "being split on the way. The loopback MTU recorded in these runs: "
          "%s.\n\n",
          mtu);
  np_report__scope(ctx);
}
