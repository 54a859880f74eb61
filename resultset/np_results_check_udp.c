/*
 * np_results_check_udp.c - a `netproof-bench udp` record re-derived:
 *   - arithmetic: no negative count, the legs (lost = sent - received =
 *     request leg + at server + reply leg), received <= server_replied,
 *     monotone percentiles, round trips/s = roundtrips / (seconds + drain)
 *     within 0.5 %;
 *   - the verdict: checks[], status and reasons from the counters and the
 *     per-socket drops by np_udp_checks (the benchmark's own code);
 *     sockets.kernel_drops, server_drops, client_drops = the per-socket
 *     drops summed by role;
 *   - the configuration: config.command parsed by the command's option
 *     table and turned back into "config" by np_udp_config_json, so an
 *     edited config field contradicts the command; the phases last their
 *     configured time;
 *   - stderr: the summary line (np_udp_summary_line) and the failed-check
 *     lines the command printed for this record;
 *   - open loop (udp --rate): its checks and its part of the summary line
 *     from the open_loop section (np_udp_open_checks, np_udp_open_summary);
 *   - given-up messages (records 0.3.0 on): lost = sent - received - late,
 *     the timeouts section's sums, its checks (np_udp_late_checks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_check_int.h"
#include "np_udp_checks.h"
#include "np_udp_late.h"
#include "np_udp_open.h"
#include "np_udp_options.h"
#include "np_udp_record.h"

static int near(double a, double b, double rel) {
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-9;
}

static uint64_t u64(const cJSON *o, const char *key) {
  return np_chk_u64(np_json_get_number(o, key, 0));
}

/* Any negative number directly under obj (counters are never negative). */
static void no_negatives(const struct np_chk_rec *r, const cJSON *obj,
                         const char *base) {
  const cJSON *e;
  cJSON_ArrayForEach(e, obj) {
    if (cJSON_IsNumber(e) && e->valuedouble < 0) {
      char p[256];
      np_chk__ptr(p, sizeof p, base, e->string);
      np_chk__problem(r->c, r->file, p, "negative count %g", e->valuedouble);
    }
  }
}

static void check_arithmetic(const struct np_chk_rec *r) {
  struct np_results_check *c = r->c;
  const char *f = r->file;
  const cJSON *d = r->doc;
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(d, "counters");
  no_negatives(r, cn, "/counters");
  double sent = np_results_num(d, "/counters/sent"),
         srecv = np_results_num(d, "/counters/server_received"),
         srepl = np_results_num(d, "/counters/server_replied"),
         recv = np_results_num(d, "/counters/received"),
         lost = np_results_num(d, "/counters/lost"),
         lreq = np_results_num(d, "/counters/lost_request_leg"),
         lsrv = np_results_num(d, "/counters/lost_at_server"),
         lresp = np_results_num(d, "/counters/lost_reply_leg"),
         /* replies to given-up messages: neither lost nor received
          * (counters.late, absent before 0.3.0: none) */
         late = np_json_get_number(cn, "late", 0);
  if (isfinite(sent) && isfinite(srecv) && isfinite(lreq) &&
      sent - srecv != lreq)
    np_chk__problem(c, f, "/counters/lost_request_leg",
                    "sent - server_received = %.0f, record says %.0f",
                    sent - srecv, lreq);
  if (isfinite(srecv) && isfinite(srepl) && isfinite(lsrv) &&
      srecv - srepl != lsrv)
    np_chk__problem(c, f, "/counters/lost_at_server",
                    "server_received - server_replied = %.0f, record says "
                    "%.0f",
                    srecv - srepl, lsrv);
  if (isfinite(srepl) && isfinite(recv) && isfinite(lresp) &&
      srepl - recv - late != lresp)
    np_chk__problem(c, f, "/counters/lost_reply_leg",
                    "server_replied - received%s = %.0f, record says %.0f",
                    late ? " - late" : "", srepl - recv - late, lresp);
  if (isfinite(sent) && isfinite(recv) && isfinite(lost) &&
      sent - recv - late != lost)
    np_chk__problem(c, f, "/counters/lost",
                    "sent - received%s = %.0f, record says %.0f",
                    late ? " - late" : "", sent - recv - late, lost);
  if (isfinite(recv) && isfinite(srepl) && recv > srepl)
    np_chk__problem(c, f, "/counters/received",
                    "more echoes received (%.0f) than the server sent (%.0f)",
                    recv, srepl);
  double rt = np_results_num(d, "/measurement/roundtrips");
  if (isfinite(rt) && isfinite(recv) && rt != recv)
    np_chk__problem(c, f, "/measurement/roundtrips",
                    "%.0f, but counters.received (completed round trips) is "
                    "%.0f",
                    rt, recv);
  static const char *const pct[] = {"min", "p50", "p90", "p99", "p999", "max"};
  double prev = NAN;
  const char *prevk = NULL;
  for (size_t i = 0; i < sizeof pct / sizeof *pct; i++) {
    char key[64];
    snprintf(key, sizeof key, "/measurement/rtt_us/%s", pct[i]);
    double v = np_results_num(d, key);
    if (!isfinite(v))
      continue;
    if (v < 0)
      np_chk__problem(c, f, "/measurement/rtt_us", "%s is negative", pct[i]);
    if (isfinite(prev) && v < prev)
      np_chk__problem(c, f, "/measurement/rtt_us",
                      "percentiles not monotone: %s %g < %s %g", pct[i], v,
                      prevk, prev);
    prev = v;
    prevk = pct[i];
  }
  double rps = np_results_num(d, "/measurement/roundtrips_per_sec"),
         secs = np_results_num(d, "/measurement/seconds"),
         drain = np_results_num(d, "/measurement/drain_seconds");
  if (isfinite(rt) && isfinite(rps) && isfinite(secs) && secs > 0) {
    double b = rt / (secs + (isfinite(drain) ? drain : 0));
    if (!near(rps, b, 0.005))
      np_chk__problem(c, f, "/measurement/roundtrips_per_sec",
                      "%.3f is not roundtrips / (seconds + drain_seconds) "
                      "(%.3f) within 0.5 %%",
                      rps, b);
  }
  double u = np_results_num(d, "/measurement/cpu_user_seconds"),
         sy = np_results_num(d, "/measurement/cpu_sys_seconds"),
         cpu = np_results_num(d, "/measurement/cpu_percent");
  if (isfinite(u) && isfinite(sy) && isfinite(cpu) && isfinite(secs) &&
      secs > 0) {
    double want = 100 * (u + sy) / (secs + (isfinite(drain) ? drain : 0));
    if (!near(cpu, want, 0.005))
      np_chk__problem(c, f, "/measurement/cpu_percent",
                      "%.4g is not 100 x (cpu_user + cpu_sys) / (seconds + "
                      "drain_seconds) = %.4g",
                      cpu, want);
  }
}

/* The check input from the record: counters and per-socket drops. */
static void input_of(const cJSON *d, struct np_udp_check_input *in) {
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(d, "counters");
  *in = (struct np_udp_check_input){
      .sent = u64(cn, "sent"),
      .server_received = u64(cn, "server_received"),
      .server_replied = u64(cn, "server_replied"),
      .received = u64(cn, "received"),
      .content_errors = u64(cn, "content_errors"),
      .sequence_errors = u64(cn, "sequence_errors"),
      .send_errors = u64(cn, "send_errors"),
      .server_send_errors = u64(cn, "server_send_errors"),
      .truncated = u64(cn, "truncated"),
      .late = u64(cn, "late")};
  const cJSON *s;
  cJSON_ArrayForEach(s, np_json_pointer(d, "/sockets/list")) {
    const char *role = np_json_get_string(s, "role", "");
    if (strcmp(role, "server") == 0)
      in->server_drops += u64(s, "drops");
    else if (strcmp(role, "client") == 0)
      in->client_drops += u64(s, "drops");
  }
}

static void check_sockets(const struct np_chk_rec *r,
                          const struct np_udp_loss *l) {
  static const char *const keys[] = {"kernel_drops", "server_drops",
                                     "client_drops"};
  const uint64_t want[] = {l->kernel_drops, l->server_drops, l->client_drops};
  const cJSON *sk = cJSON_GetObjectItemCaseSensitive(r->doc, "sockets");
  for (int i = 0; i < 3; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sk, keys[i]);
    char p[64];
    snprintf(p, sizeof p, "/sockets/%s", keys[i]);
    if (cJSON_IsNumber(v) && v->valuedouble != (double)want[i])
      np_chk__problem(r->c, r->file, p,
                      "%.0f, but the per-socket drops of /sockets/list sum to "
                      "%llu",
                      v->valuedouble, (unsigned long long)want[i]);
  }
}

/* config from config.command by the command's option table. */
static void check_config(const struct np_chk_rec *r) {
  char **argv = NULL;
  int argc = 0;
  struct np_udp_config cfg;
  if (np_chk__config_argv(r, np_kind_at(NP_KIND_UDP), &cfg, &argv, &argc) !=
      0)
    return;
  struct np_udp_layout lay;
  np_udp_layout_of(&cfg, &lay);
  cJSON *want = np_udp_config_json(&cfg, &lay, argc, argv);
  const cJSON *have = cJSON_GetObjectItemCaseSensitive(r->doc, "config");
  /* config.uring is what the kernel accepted (np_udp_record.c), not
   * the command's: taken as the record states it, and only for the
   * uring backend */
  const cJSON *ur = cJSON_GetObjectItemCaseSensitive(have, "uring");
  if (want != NULL && ur != NULL) {
    if (cfg.backend != NP_UDP_BACKEND_URING)
      np_chk__problem(r->c, r->file, "/config/uring",
                      "an io_uring set-up, but the command's backend is %s",
                      np_udp_backend_name(cfg.backend));
    else if (!cJSON_AddItemToObject(want, "uring", cJSON_Duplicate(ur, 1)))
      r->c->oom = 1;
  } else if (want != NULL && cfg.backend == NP_UDP_BACKEND_URING) {
    np_chk__problem(r->c, r->file, "/config/uring",
                    "missing: the uring backend records the set-up the "
                    "kernel accepted");
  }
  if (want == NULL)
    r->c->oom = 1;
  else
    np_chk__diff_subset(r->c, r->file, "/config", have, want, "its command",
                        16);
  cJSON_Delete(want);
  np_chk__phase_seconds(r, "/measurement/seconds",
                        np_results_num(r->doc, "/measurement/seconds"),
                        cfg.seconds);
  np_chk__phase_seconds(r, "/warmup/seconds",
                        np_results_num(r->doc, "/warmup/seconds"), cfg.warmup);
  np_chk__argv_free(argv, argc);
}

static int quiet(const cJSON *doc) {
  const cJSON *it;
  cJSON_ArrayForEach(it, np_json_pointer(doc, "/config/command")) {
    if (cJSON_IsString(it) && strcmp(it->valuestring, "--quiet") == 0)
      return 1;
  }
  return 0;
}

static void check_stderr(const struct np_chk_rec *r,
                         const struct np_udp_checks *cs) {
  const cJSON *d = r->doc;
  if (quiet(d))
    return;
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
  struct np_udp_summary_input in = {
      .backend = np_json_get_string(cfg, "backend", "?"),
      .io_model = np_json_get_string(cfg, "io_model", "?"),
      .payload = u64(cfg, "payload"),
      .clients = u64(cfg, "clients"),
      .window = u64(cfg, "window"),
      .roundtrips_per_sec = np_results_num(d, "/measurement/roundtrips_per_sec"),
      .p50_us = np_results_num(d, "/measurement/rtt_us/p50"),
      .p99_us = np_results_num(d, "/measurement/rtt_us/p99"),
      .lost = np_chk_i64(np_results_num(d, "/counters/lost")),
      .sent = np_chk_u64(np_results_num(d, "/counters/sent")),
      .kernel_drops = np_chk_u64(np_results_num(d, "/sockets/kernel_drops")),
      .cpu_percent = np_results_num(d, "/measurement/cpu_percent"),
      .status = np_json_get_string(d, "status", "?")};
  struct np_udp_open_input oi;
  char open_text[200];
  if (np_udp_open_input_json(d, &oi) == 0) {
    np_udp_open_summary(&oi, open_text, sizeof open_text);
    in.extra = open_text;
  }
  char *lines[NP_UDP_MAX_CHECKS + 1];
  size_t n = 0;
  char buf[NP_UDP_MAX_CHECKS + 1][600];
  /* the line in the form the run printed: 0.2's ("us", "lost N (kernel
   * drops K)": no other line of a run has that) where the kept stderr's
   * summary is in that form, else today's ("lost N of M (P %; kernel
   * drops K)"); the numbers are held either way */
  if (np_chk__stderr_has_sub(r, "netproof-bench udp: ", " (kernel drops "))
    np_udp_summary_line_0_2(&in, buf[0], sizeof buf[0]);
  else
    np_udp_summary_line(&in, buf[0], sizeof buf[0]);
  lines[n++] = buf[0];
  for (unsigned i = 0; i < cs->n; i++)
    if (!cs->item[i].passed) {
      np_udp_check_line(&cs->item[i], buf[n], sizeof buf[n]);
      lines[n] = buf[n];
      n++;
    }
  np_chk__stderr_lines(r, lines, n, "netproof-bench udp: ");
}

void np_chk__udp_timeouts(const struct np_chk_rec *r) {
  const cJSON *d = r->doc;
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "timeouts");
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
  if (t == NULL) {
    /* absent in records before 0.3.0; from it on, every run that can give
     * a message up (udp-external, open loop) says what it gave up */
    const char *ver =
        np_json_get_string(np_json_pointer(d, "/tool"), "version", "");
    int gives_up = np_kind_is(np_json_get_string(cfg, "protocol", ""),
                              NP_KIND_UDP_EXTERNAL) ||
                   np_json_get_number(cfg, "rate", 0) > 0;
    if (gives_up && !np_chk__version_before(ver, "0.3.0"))
      np_chk__problem(r->c, r->file, "/timeouts",
                      "missing: a record of %s gives up messages and counts "
                      "them (0.3.0 on)",
                      ver);
    return;
  }
  double late = np_results_num(d, "/counters/late"),
         tlate = np_results_num(d, "/timeouts/late"),
         wait = np_results_num(d, "/timeouts/waiting_seconds"),
         slot = np_results_num(d, "/timeouts/slot_seconds"),
         frac = np_results_num(d, "/timeouts/waiting_fraction"),
         secs = np_results_num(d, "/measurement/seconds") +
                np_json_get_number(
                    cJSON_GetObjectItemCaseSensitive(d, "measurement"),
                    "drain_seconds", 0),
         rto = np_json_get_number(cfg, "reply_timeout_ms", 0);
  int closed = !(np_json_get_number(cfg, "rate", 0) > 0);
  if (late != tlate)
    np_chk__problem(r->c, r->file, "/timeouts/late",
                    "%.0f, but counters.late is %.0f", tlate, late);
  if (closed !=
      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "closed_loop")))
    np_chk__problem(r->c, r->file, "/timeouts/closed_loop",
                    "does not follow config.rate (%s loop)",
                    closed ? "closed" : "open");
  double want_slot = closed ? np_json_get_number(cfg, "clients", 0) *
                                  np_json_get_number(cfg, "window", 0) * secs
                            : 0;
  if (isfinite(slot) && !near(slot, want_slot, 1e-6))
    np_chk__problem(r->c, r->file, "/timeouts/slot_seconds",
                    "%g, not clients x window x (measurement + drain "
                    "seconds) = %g",
                    slot, want_slot);
  double want_frac = slot > 0 ? wait / slot : 0;
  if (isfinite(frac) && !near(frac, want_frac, 1e-6))
    np_chk__problem(r->c, r->file, "/timeouts/waiting_fraction",
                    "%g, not waiting_seconds / slot_seconds = %g", frac,
                    want_frac);
  double lo = np_results_num(d, "/timeouts/reply_timeout_ms/min"),
         hi = np_results_num(d, "/timeouts/reply_timeout_ms/max");
  if (rto > 0 && isfinite(lo) && (!near(lo, rto, 1e-9) || !near(hi, rto, 1e-9)))
    np_chk__problem(r->c, r->file, "/timeouts/reply_timeout_ms",
                    "%g..%g ms, but the command fixed it at %g ms", lo, hi,
                    rto);
  if (isfinite(lo) && isfinite(hi) && lo > hi)
    np_chk__problem(r->c, r->file, "/timeouts/reply_timeout_ms",
                    "min %g above max %g", lo, hi);
  double oe = np_results_num(d, "/open_loop/expired"),
         te = np_results_num(d, "/timeouts/expired");
  if (isfinite(oe) && oe != te)
    np_chk__problem(r->c, r->file, "/timeouts/expired",
                    "%.0f, but open_loop.expired is %.0f", te, oe);
}

void np_chk__udp_record(const struct np_chk_rec *r) {
  check_arithmetic(r);
  struct np_udp_check_input in;
  struct np_udp_loss loss;
  struct np_udp_checks cs;
  input_of(r->doc, &in);
  np_udp_loss_compute(&in, &loss);
  np_udp_checks_eval(&in, &loss, &cs);
  np_chk__udp_timeouts(r);     /* the timeouts section adds up */
  struct np_udp_late_input li; /* given-up messages, records 0.3.0 on */
  np_udp_late_input_json(r->doc, &li);
  np_udp_late_checks(&li, &cs);
  struct np_udp_open_input oi; /* udp --rate adds its own checks */
  if (np_udp_open_input_json(r->doc, &oi) == 0)
    np_udp_open_checks(&oi, &cs);
  struct np_bench_check list[NP_UDP_MAX_CHECKS];
  for (unsigned i = 0; i < cs.n; i++)
    list[i] = (struct np_bench_check){cs.item[i].name, cs.item[i].passed,
                                      cs.item[i].detail};
  np_chk__verdict(r, list, cs.n, NULL);
  check_sockets(r, &loss);
  check_config(r);
  check_stderr(r, &cs);
}
