/*
 * np_results_check_rudp.c - a `netproof-bench rudp` record re-derived.
 *
 * Per round: counters consistent (sent >= server_received >=
 * server_replied >= received, lost = sent - received, no negative count),
 * retransmits = RACK + TLP + RTO and spurious <= retransmits, rates equal
 * counts over durations within 0.5 % (round trips/s, retransmits and
 * recoveries per 1,000 round trips), RTT percentiles monotone, network
 * overhead recomputable from the byte counters, parity mean <= max; the
 * round's checks[] and status derived from its counters by np_rudp_checks
 * (the benchmark's code), its seed = seed + round, its phases as long as
 * configured; the relay's counters (np_results_check_relay.c).
 * Per record: checks[], status and reasons from the rounds (a check
 * passes when it passed in every round), median_round the median by round
 * trips/s (np_rudp_median_index), the top-level measurement that round's,
 * counters the rounds' sum, sockets.kernel_drops the per-socket sum,
 * rudp.summary's spreads the rounds', config rebuilt from its command by
 * np_rudp_config_json, the stderr lines np_rudp_summary_line prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_check_int.h"
#include "np_results_rudp.h"
#include "np_rudp_checks.h"
#include "np_rudp_config.h"
#include "np_rudp_record.h"

static int near(double a, double b, double rel, double abs_tol) {
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + abs_tol;
}

static uint64_t u64(const cJSON *o, const char *key) {
  return np_chk_u64(np_json_get_number(o, key, 0));
}

static void check_counters(const struct np_chk_rec *r, const cJSON *round,
                           const char *base) {
  static const char *const order[] = {"sent", "server_received",
                                      "server_replied", "received"};
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(round, "counters");
  char p[160];
  const cJSON *e;
  cJSON_ArrayForEach(e, cn) {
    if (cJSON_IsNumber(e) && e->valuedouble < 0) {
      snprintf(p, sizeof p, "%s/counters/%s", base, e->string);
      np_chk__problem(r->c, r->file, p, "negative count %g", e->valuedouble);
    }
  }
  /* rudp --connect alone: no server counts here (they are 0), so only
   * sent >= received */
  int remote = np_json_pointer(r->doc, "/config/connect") != NULL;
  for (size_t i = 1; i < 4; i++) {
    if (remote && i < 3)
      continue;
    const char *prev = order[remote ? 0 : i - 1];
    double a = np_json_get_number(cn, prev, NAN);
    double b = np_json_get_number(cn, order[i], NAN);
    if (isfinite(a) && isfinite(b) && b > a) {
      snprintf(p, sizeof p, "%s/counters/%s", base, order[i]);
      np_chk__problem(r->c, r->file, p, "%s %.0f exceeds %s %.0f", order[i], b,
                      prev, a);
    }
  }
  double sent = np_json_get_number(cn, "sent", NAN);
  double recv = np_json_get_number(cn, "received", NAN);
  double lost = np_json_get_number(cn, "lost", NAN);
  if (isfinite(sent) && isfinite(recv) && isfinite(lost) &&
      sent - recv != lost) {
    snprintf(p, sizeof p, "%s/counters/lost", base);
    np_chk__problem(r->c, r->file, p,
                    "sent - received = %.0f, record says %.0f", sent - recv,
                    lost);
  }
}

/* rate == scale x count / denom within 0.5 % (skipped when absent). */
static void check_rate(const struct np_chk_rec *r, const char *ptr, double rate,
                       double scale, double count, double denom,
                       const char *what) {
  if (!isfinite(rate) || !isfinite(count) || !isfinite(denom) || denom <= 0)
    return;
  double want = scale * count / denom;
  if (!near(rate, want, 0.005, 1e-9))
    np_chk__problem(r->c, r->file, ptr, "%.6g is not %s (%.6g) within 0.5 %%",
                    rate, what, want);
}

static void check_round_numbers(const struct np_chk_rec *r, const cJSON *rd,
                                const char *base) {
  char p[160];
  check_counters(r, rd, base);
  double rt = np_results_num(rd, "/measurement/roundtrips");
  double secs = np_results_num(rd, "/measurement/seconds");
  double drain = np_results_num(rd, "/measurement/drain_seconds");
  double wall = secs + (isfinite(drain) ? drain : 0);
  snprintf(p, sizeof p, "%s/measurement/roundtrips_per_sec", base);
  check_rate(r, p, np_results_num(rd, "/measurement/roundtrips_per_sec"), 1,
             rt, wall, "roundtrips / (seconds + drain_seconds)");
  snprintf(p, sizeof p, "%s/measurement/cpu_percent", base);
  check_rate(r, p, np_results_num(rd, "/measurement/cpu_percent"), 100,
             np_results_num(rd, "/measurement/cpu_user_seconds") +
                 np_results_num(rd, "/measurement/cpu_sys_seconds"),
             wall, "100 x (cpu_user + cpu_sys) / (seconds + drain_seconds)");
  double win = np_results_num(rd, "/counters_window/received");
  snprintf(p, sizeof p, "%s/measurement/roundtrips", base);
  if (isfinite(rt) && isfinite(win) && rt != win)
    np_chk__problem(r->c, r->file, p,
                    "%.0f, but counters_window.received (echoes delivered in "
                    "the window) is %.0f",
                    rt, win);
  const cJSON *arq = cJSON_GetObjectItemCaseSensitive(rd, "arq");
  double retx = np_json_get_number(arq, "retransmits", NAN);
  snprintf(p, sizeof p, "%s/arq/retransmits_per_1000_roundtrips", base);
  check_rate(r, p,
             np_json_get_number(arq, "retransmits_per_1000_roundtrips", NAN),
             1000, retx, rt, "1000 x retransmits / roundtrips");
  double parts = np_json_get_number(arq, "retransmits_rack", NAN) +
                 np_json_get_number(arq, "retransmits_tlp", NAN) +
                 np_json_get_number(arq, "retransmits_rto", NAN);
  snprintf(p, sizeof p, "%s/arq/retransmits", base);
  if (isfinite(retx) && isfinite(parts) && parts != retx)
    np_chk__problem(r->c, r->file, p, "%.0f, but RACK + TLP + RTO = %.0f", retx,
                    parts);
  /* Spurious proofs of the window may be for retransmits sent in the
   * warm-up, so the window's counts need not order; the whole round's
   * must (records that have them: 0.2 on). */
  double spur = np_json_get_number(arq, "spurious_retransmits_round", NAN);
  double retx_round = np_json_get_number(arq, "retransmits_round", NAN);
  snprintf(p, sizeof p, "%s/arq/retransmits_round", base);
  if (isfinite(spur) && isfinite(retx_round) && spur > retx_round)
    np_chk__problem(r->c, r->file, p,
                    "fewer than the %.0f spurious retransmits of the round",
                    spur);
  if (!isfinite(retx_round)) { /* 0.1: one counter pair, whole rounds */
    spur = np_json_get_number(arq, "spurious_retransmits", NAN);
    snprintf(p, sizeof p, "%s/arq/retransmits", base);
    if (isfinite(spur) && isfinite(retx) && spur > retx)
      np_chk__problem(r->c, r->file, p,
                      "fewer than the %.0f spurious retransmits", spur);
  }
  double wire = np_json_get_number(arq, "udp_payload_bytes_sent", NAN);
  double app = np_json_get_number(arq, "app_message_bytes", NAN);
  double ovh = np_json_get_number(arq, "network_overhead_percent", NAN);
  snprintf(p, sizeof p, "%s/arq/network_overhead_percent", base);
  if (isfinite(wire) && isfinite(app) && isfinite(ovh) && app > 0 &&
      !near(ovh, (wire / app - 1) * 100, 0.005, 0.01))
    np_chk__problem(r->c, r->file, p,
                    "%.4g %% is not (udp_payload_bytes_sent / "
                    "app_message_bytes - 1) x 100 = %.4g %%",
                    ovh, (wire / app - 1) * 100);
  const cJSON *fec = cJSON_GetObjectItemCaseSensitive(rd, "fec");
  snprintf(p, sizeof p, "%s/fec/recoveries_per_1000_roundtrips", base);
  check_rate(r, p,
             np_json_get_number(fec, "recoveries_per_1000_roundtrips", NAN),
             1000, np_json_get_number(fec, "recoveries", NAN), rt,
             "1000 x recoveries / roundtrips");
  double pmean = np_json_get_number(fec, "parity_mean", NAN);
  double pmax = np_json_get_number(fec, "parity_max", NAN);
  snprintf(p, sizeof p, "%s/fec/parity_mean", base);
  if (isfinite(pmean) && isfinite(pmax) && pmean > pmax + 1e-9)
    np_chk__problem(r->c, r->file, p, "mean %g above the maximum %g", pmean,
                    pmax);
  static const char *const pct[] = {"min", "p50", "p90", "p99", "p999", "max"};
  double prev = NAN;
  const char *prevk = NULL;
  for (size_t k = 0; k < sizeof pct / sizeof *pct; k++) {
    char key[64];
    snprintf(key, sizeof key, "/measurement/rtt_us/%s", pct[k]);
    double v = np_results_num(rd, key);
    if (!isfinite(v))
      continue;
    snprintf(p, sizeof p, "%s/measurement/rtt_us", base);
    if (isfinite(prev) && v < prev)
      np_chk__problem(r->c, r->file, p,
                      "percentiles not monotone: %s %g < %s %g", pct[k], v,
                      prevk, prev);
    prev = v;
    prevk = pct[k];
  }
}

/* The round's six checks from its own counters. */
static int round_checks(const cJSON *rd, int unordered, int server_remote,
                        struct np_rudp_check out[]) {
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(rd, "counters");
  const cJSON *co = cJSON_GetObjectItemCaseSensitive(rd, "connections");
  const cJSON *rl = cJSON_GetObjectItemCaseSensitive(rd, "relay");
  struct np_rudp_check_input in = {
      .sent = u64(cn, "sent"),
      .server_received = u64(cn, "server_received"),
      .server_replied = u64(cn, "server_replied"),
      .received = u64(cn, "received"),
      .content_errors = u64(cn, "content_errors"),
      .sequence_errors = u64(cn, "sequence_errors"),
      .send_errors = u64(cn, "send_errors"),
      .drain_complete = cJSON_IsTrue(np_json_pointer(rd, "/measurement/"
                                                         "drain_complete")),
      .conns = (uint32_t)u64(co, "total"),
      .conns_closed = (uint32_t)u64(co, "closed"),
      .conns_failed = (uint32_t)u64(co, "failed"),
      .conns_unacked = (uint32_t)u64(co, "unacknowledged"),
      .relay_errors = u64(rl, "errors"),
      .relay_overflow = u64(rl, "overflow"),
      .unordered = unordered,
      .server_remote = server_remote};
  return np_rudp_checks_eval(&in, out);
}

static void check_round_verdict(const struct np_chk_rec *r, const cJSON *rd,
                                const char *base,
                                struct np_rudp_check out[]) {
  char p[160];
  int failed = round_checks(
      rd,
      strcmp(np_json_get_string(np_json_pointer(r->doc, "/config"),
                                "delivery", "ordered"),
             "unordered") == 0,
      /* rudp --connect alone (config.connect: never with config.agent) */
      np_json_pointer(r->doc, "/config/connect") != NULL, out);
  struct np_bench_check list[NP_RUDP_CHECKS];
  for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
    list[k] = (struct np_bench_check){out[k].name, out[k].passed,
                                      out[k].detail};
  cJSON *want = np_bench_record_checks(list, NP_RUDP_CHECKS);
  snprintf(p, sizeof p, "%s/checks", base);
  if (want != NULL)
    np_chk__diff(r->c, r->file, p,
                 cJSON_GetObjectItemCaseSensitive(rd, "checks"), want,
                 "re-deriving the round's checks from its counters", 12);
  cJSON_Delete(want);
  const char *st = np_json_get_string(rd, "status", "");
  snprintf(p, sizeof p, "%s/status", base);
  if (strcmp(st, failed ? "failed" : "passed") != 0)
    np_chk__problem(r->c, r->file, p,
                    "\"%s\", but the round's counters give \"%s\"", st,
                    failed ? "failed" : "passed");
}

/* rudp.summary: median = the median round, min / max over rounds. */
static void check_spreads(const struct np_chk_rec *r, const cJSON *rounds,
                          const cJSON *med) {
  static const enum np_results_rudp_metric ms[] = {
      NP_R_RPS,  NP_R_P99,   NP_R_CPU,      NP_R_OVERHEAD,
      NP_R_RETX, NP_R_RECOV, NP_R_RETAINED, NP_R_RELAY};
  const cJSON *sum = np_json_pointer(r->doc, "/rudp/summary"), *rd;
  for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
    const char *key = np_results_rudp_metric_key(ms[k]);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(sum, key);
    if (s == NULL)
      continue;
    double lo = NAN, hi = NAN;
    cJSON_ArrayForEach(rd, rounds) {
      double v = np_results_rudp_round_value(rd, ms[k]);
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
      np_chk__problem(r->c, r->file, p, "%.6g, but the rounds give %.6g", got,
                      want[j]);
    }
  }
}

/* counters = the rounds' sum, sockets.kernel_drops = the per-socket sum. */
static void check_sums(const struct np_chk_rec *r, const cJSON *rounds) {
  static const char *const keys[] = {
      "sent",           "server_received", "server_replied", "received",
      "lost",           "content_errors",  "sequence_errors", "send_errors"};
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(r->doc, "counters"), *rd;
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
    double sum = 0;
    cJSON_ArrayForEach(rd, rounds) sum += np_json_get_number(
        cJSON_GetObjectItemCaseSensitive(rd, "counters"), keys[k], 0);
    double have = np_json_get_number(cn, keys[k], NAN);
    if (isfinite(have) && have != sum) {
      char p[64];
      snprintf(p, sizeof p, "/counters/%s", keys[k]);
      np_chk__problem(r->c, r->file, p,
                      "%.0f, but the rounds' counters sum to %.0f", have, sum);
    }
  }
  double drops = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, np_json_pointer(r->doc, "/sockets/list"))
      drops += np_json_get_number(s, "drops", 0);
  double kd = np_results_num(r->doc, "/sockets/kernel_drops");
  if (isfinite(kd) && kd != drops)
    np_chk__problem(r->c, r->file, "/sockets/kernel_drops",
                    "%.0f, but the per-socket drops of /sockets/list sum to "
                    "%.0f",
                    kd, drops);
}

/* Defaults that changed with a version: a record of an older version ran
 * with the old one, so its command is re-parsed with that value made
 * explicit (appended only when the command does not give the option).
 * "fec_wait+3" is 0.1's automatic reordering-window cap with FEC (the
 * FEC group wait + 3 ms; 0.2 caps only FEC-protected fragments). */
static const struct {
  const char *before;  /* versions older than this ran with ...        */
  const char *option;  /* ... this option ...                          */
  const char *value;   /* ... at this value                            */
  int fec_only;        /* only when --fec is not none                  */
} old_defaults[] = {
    {"0.2.0", "--fec-target", "0.02", 0},
    {"0.2.0", "--reo-wnd-max-ms", "fec_wait+3", 1},
};

static int has_arg(char **argv, int argc, const char *opt) {
  size_t n = strlen(opt);
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
      return 1;
  return 0;
}

/* Append the old defaults a record of version ver ran with (see
 * old_defaults).  0, or NP_ENOMEM. */
static int add_old_defaults(const char *ver, const struct np_rudp_config *cfg,
                            char ***argv, int *argc) {
  for (size_t k = 0; k < sizeof old_defaults / sizeof old_defaults[0]; k++) {
    if (!np_chk__version_before(ver, old_defaults[k].before) ||
        has_arg(*argv, *argc, old_defaults[k].option) ||
        (old_defaults[k].fec_only && cfg->fec == NP_RUDP_FEC_NONE))
      continue;
    char val[32];
    if (strcmp(old_defaults[k].value, "fec_wait+3") == 0)
      snprintf(val, sizeof val, "%.15g", cfg->fec_cfg.wait_ns / 1e6 + 3.0);
    else
      snprintf(val, sizeof val, "%s", old_defaults[k].value);
    char **n = realloc(*argv, (size_t)(*argc + 3) * sizeof *n);
    if (n == NULL)
      return NP_ENOMEM;
    *argv = n;
    if ((n[*argc] = strdup(old_defaults[k].option)) == NULL)
      return NP_ENOMEM;
    if ((n[*argc + 1] = strdup(val)) == NULL) {
      free(n[*argc]);
      return NP_ENOMEM;
    }
    *argc += 2;
    n[*argc] = NULL;
  }
  return 0;
}

/* config from config.command by the rudp option table; round seeds and
 * phases against it. */
static void check_config(const struct np_chk_rec *r, const cJSON *rounds) {
  char **argv = NULL;
  int argc = 0, help = 0;
  struct np_rudp_config cfg;
  struct np_errbuf eb = {{0}};
  if (np_chk__config_argv(r, np_kind_at(NP_KIND_RUDP), &cfg, &argv, &argc) !=
      0)
    return;
  const char *ver =
      np_json_get_string(np_json_pointer(r->doc, "/tool"), "version", "");
  int argc_given = argc; /* the command as run, before any old default */
  if (np_chk__version_before(ver, NP_VERSION)) {
    if (add_old_defaults(ver, &cfg, &argv, &argc) != 0 ||
        np_rudp_config_parse(argc, argv, &cfg, &help, &eb) != 0) {
      r->c->oom = 1; /* the command parsed a moment ago */
      np_chk__argv_free(argv, argc);
      return;
    }
  }
  cJSON *want =
      np_rudp_config_json(&cfg, np_rudp_config_lanes(&cfg),
                          np_json_pointer(r->doc, "/rudp/rounds/0/relay/stats"),
                          argc_given, argv);
  if (want == NULL)
    r->c->oom = 1;
  else
    np_chk__diff_subset(r->c, r->file, "/config",
                        cJSON_GetObjectItemCaseSensitive(r->doc, "config"),
                        want, "its command", 16);
  cJSON_Delete(want);
  np_chk__argv_free(argv, argc);
  int n = cJSON_GetArraySize(rounds), i = 0;
  int interrupted =
      strcmp(np_json_get_string(r->doc, "status", ""), "interrupted") == 0;
  if (n > (int)cfg.rounds || (!interrupted && n != (int)cfg.rounds))
    np_chk__problem(r->c, r->file, "/rudp/rounds",
                    "%d rounds, but the command asks for %u (fewer only when "
                    "interrupted)",
                    n, cfg.rounds);
  const cJSON *rd;
  cJSON_ArrayForEach(rd, rounds) {
    char p[160];
    snprintf(p, sizeof p, "/rudp/rounds/%d/seed", i);
    double seed = np_json_get_number(rd, "seed", NAN);
    if (isfinite(seed) && seed != (double)(cfg.seed + (uint64_t)i))
      np_chk__problem(r->c, r->file, p,
                      "%.0f, but round %d of seed %llu uses seed + %d", seed, i,
                      (unsigned long long)cfg.seed, i);
    snprintf(p, sizeof p, "/rudp/rounds/%d/measurement/seconds", i);
    np_chk__phase_seconds(r, p, np_results_num(rd, "/measurement/seconds"),
                          cfg.seconds);
    snprintf(p, sizeof p, "/rudp/rounds/%d/warmup_seconds", i);
    np_chk__phase_seconds(r, p, np_json_get_number(rd, "warmup_seconds", NAN),
                          cfg.warmup);
    np_chk__relay_round(r, rd, np_json_pointer(r->doc, "/config/relay"), i);
    i++;
  }
}

static void check_stderr(const struct np_chk_rec *r, const cJSON *rounds,
                         struct np_rudp_check (*checks)[NP_RUDP_CHECKS]) {
  const cJSON *it;
  cJSON_ArrayForEach(it, np_json_pointer(r->doc, "/config/command")) {
    if (cJSON_IsString(it) && strcmp(it->valuestring, "--quiet") == 0)
      return;
  }
  int n = cJSON_GetArraySize(rounds);
  size_t cap = (size_t)n * (NP_RUDP_CHECKS + 1), k = 0;
  char **lines = calloc(cap ? cap : 1, sizeof *lines);
  char *buf = malloc((cap ? cap : 1) * 600);
  if (lines == NULL || buf == NULL) {
    r->c->oom = 1;
    goto cleanup_lines;
  }
  int i = 0;
  const cJSON *rd;
  cJSON_ArrayForEach(rd, rounds) {
    const cJSON *arq = cJSON_GetObjectItemCaseSensitive(rd, "arq");
    const cJSON *fec = cJSON_GetObjectItemCaseSensitive(rd, "fec");
    double p99 = np_results_num(rd, "/measurement/rtt_us/p99");
    struct np_rudp_summary_input in = {
        .round = (uint32_t)i,
        .seed = u64(rd, "seed"),
        .roundtrips_per_sec =
            np_results_num(rd, "/measurement/roundtrips_per_sec"),
        .p99_ms = isnan(p99) ? NAN : p99 / 1e3,
        .retransmits_per_1000 =
            np_json_get_number(arq, "retransmits_per_1000_roundtrips", NAN),
        .spurious = u64(arq, "spurious_retransmits"),
        .retransmits = u64(arq, "retransmits"),
        .overhead_percent =
            np_json_get_number(arq, "network_overhead_percent", NAN),
        .recoveries_per_1000 =
            np_json_get_number(fec, "recoveries_per_1000_roundtrips", NAN),
        .unrecoverable = np_json_get_number(fec, "unrecoverable_groups", NAN),
        .cpu_percent = np_results_num(rd, "/measurement/cpu_percent"),
        .failed = strcmp(np_json_get_string(rd, "status", ""), "passed") != 0};
    lines[k] = buf + 600 * k;
    np_rudp_summary_line(&in, lines[k++], 600);
    for (unsigned c = 0; c < NP_RUDP_CHECKS && i < (int)NP_RUDP_MEDIAN_MAX; c++)
      if (!checks[i][c].passed) {
        lines[k] = buf + 600 * k;
        np_rudp_check_line((uint32_t)i, &checks[i][c], lines[k++], 600);
      }
    i++;
  }
  np_chk__stderr_lines(r, lines, k, "netproof-bench rudp: ");
cleanup_lines:
  free(lines);
  free(buf);
}

void np_chk__rudp_record(const struct np_chk_rec *r) {
  const cJSON *rounds = np_json_pointer(r->doc, "/rudp/rounds");
  int n = cJSON_GetArraySize(rounds), i = 0;
  if (n < 1 || n > (int)NP_RUDP_MEDIAN_MAX) {
    np_chk__problem(r->c, r->file, "/rudp/rounds",
                    "%d rounds (a record has 1 to %u)", n, NP_RUDP_MEDIAN_MAX);
    return;
  }
  struct np_rudp_check(*checks)[NP_RUDP_CHECKS] =
      calloc((size_t)n, sizeof *checks);
  const struct np_rudp_check **per = calloc((size_t)n, sizeof *per);
  double *rate = calloc((size_t)n, sizeof *rate);
  cJSON *reasons = cJSON_CreateArray();
  if (checks == NULL || per == NULL || rate == NULL || reasons == NULL) {
    r->c->oom = 1;
    goto cleanup_rounds;
  }
  const cJSON *rd;
  cJSON_ArrayForEach(rd, rounds) {
    char base[64];
    snprintf(base, sizeof base, "/rudp/rounds/%d", i);
    check_round_numbers(r, rd, base);
    np_chk__rudp_fec_window(r, rd, base);
    check_round_verdict(r, rd, base, checks[i]);
    per[i] = checks[i];
    rate[i] = np_results_num(rd, "/measurement/roundtrips_per_sec");
    for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
      if (!checks[i][k].passed) {
        char why[300];
        np_rudp_reason_text((uint32_t)i, &checks[i][k], why, sizeof why);
        cJSON_AddItemToArray(reasons, cJSON_CreateString(why));
      }
    i++;
  }
  struct np_rudp_check all[NP_RUDP_CHECKS];
  np_rudp_checks_aggregate(per, (uint32_t)n, all);
  struct np_bench_check list[NP_RUDP_CHECKS];
  for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
    list[k] = (struct np_bench_check){all[k].name, all[k].passed,
                                      all[k].detail};
  np_chk__verdict(r, list, NP_RUDP_CHECKS, reasons);
  reasons = NULL;
  uint32_t med = np_rudp_median_index(rate, (uint32_t)n);
  double mr = np_results_num(r->doc, "/rudp/median_round");
  if (mr != (double)med)
    np_chk__problem(r->c, r->file, "/rudp/median_round",
                    "%g, but round %u has the median round trips/s", mr, med);
  const cJSON *mround = cJSON_GetArrayItem(rounds, (int)med);
  np_chk__diff(r->c, r->file, "/measurement",
               cJSON_GetObjectItemCaseSensitive(r->doc, "measurement"),
               cJSON_GetObjectItemCaseSensitive(mround, "measurement"),
               "the median round's measurement", 8);
  check_spreads(r, rounds, mround);
  check_sums(r, rounds);
  check_config(r, rounds);
  check_stderr(r, rounds, checks);
  np_chk__far_record(r); /* rudp --agent: the far endpoint's evidence */
cleanup_rounds:
  cJSON_Delete(reasons);
  free(checks);
  free(per);
  free(rate);
}
