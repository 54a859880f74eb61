/*
 * np_results_check_external.c - the self-check's rules for records of
 * kind "udp-external" (`udp --connect`): the loss attribution adds up from
 * the counters it names, the reply kinds add up to the sequence and
 * content errors, every misbehaviour check's verdict follows from its
 * count, and lost = sent - received - late with the late checks' verdicts
 * from the timeouts section (records 0.3.0 on), and the client's CPU
 * saturation flag from its lanes' CPU seconds (common/np_busy.h).
 * Re-derived from the record alone, as the other kinds' rules.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_busy.h"
#include "np_json.h"
#include "np_kind.h"
#include "np_results_check_int.h"
#include "np_udp_late.h"

/* The verdict of check name in d's checks[], or -1 when absent. */
static int check_verdict(const cJSON *d, const char *name) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
    if (strcmp(np_json_get_string(c, "name", ""), name) == 0)
      return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed"));
  }
  return -1;
}

static void sums(struct np_results_check *c, const char *f, const cJSON *d) {
  double seq = np_results_num(d, "/counters/sequence_errors"),
         con = np_results_num(d, "/counters/content_errors"),
         dup = np_results_num(d, "/external/replies/duplicates"),
         reo = np_results_num(d, "/external/replies/reordered"),
         sta = np_results_num(d, "/external/replies/stale"),
         len = np_results_num(d, "/external/replies/wrong_length"),
         cor = np_results_num(d, "/external/replies/corrupted");
  if (isfinite(seq) && dup + reo + sta != seq)
    np_chk__problem(c, f, "/external/replies",
                    "duplicates + reordered + stale = %.0f, but "
                    "counters.sequence_errors is %.0f",
                    dup + reo + sta, seq);
  if (isfinite(con) && len + cor != con)
    np_chk__problem(c, f, "/external/replies",
                    "wrong_length + corrupted = %.0f, but "
                    "counters.content_errors is %.0f",
                    len + cor, con);
  static const struct {
    const char *check; /* the check's name          */
    const char *ptr;   /* the count it judges        */
  } kinds[] = {{"no_duplicates", "/external/replies/duplicates"},
               {"no_reordering", "/external/replies/reordered"},
               {"no_stale_replies", "/external/replies/stale"},
               {"no_wrong_length", "/external/replies/wrong_length"},
               {"no_corruption", "/external/replies/corrupted"},
               {"no_loss", "/counters/lost"}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    double v = np_results_num(d, kinds[i].ptr);
    int passed = check_verdict(d, kinds[i].check);
    if (passed < 0 || !isfinite(v))
      np_chk__problem(c, f, "/checks", "no %s check or no %s", kinds[i].check,
                      kinds[i].ptr);
    else if (passed != (v == 0))
      np_chk__problem(c, f, "/checks", "%s says %s, but %s is %.0f",
                      kinds[i].check, passed ? "passed" : "failed",
                      kinds[i].ptr, v);
  }
}

static void attribution(struct np_results_check *c, const char *f,
                        const cJSON *d) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(d, "external"), "attribution");
  double lost = np_results_num(d, "/external/attribution/lost"),
         client = np_results_num(d, "/external/attribution/client_socket"),
         server = np_results_num(d, "/external/attribution/server_socket"),
         between = np_results_num(d, "/external/attribution/in_between"),
         rest = np_results_num(d, "/external/attribution/not_attributed");
  if (lost != np_results_num(d, "/counters/lost"))
    np_chk__problem(c, f, "/external/attribution/lost",
                    "%.0f, but counters.lost is %.0f", lost,
                    np_results_num(d, "/counters/lost"));
  double list = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(d, "sockets"),
                            "list")) list += np_json_get_number(s, "drops", 0);
  if (client != list)
    np_chk__problem(c, f, "/external/attribution/client_socket",
                    "%.0f, but the client sockets' drops sum to %.0f", client,
                    list);
  int known = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(a, "possible"), "server_socket"));
  if (known != isfinite(server))
    np_chk__problem(c, f, "/external/attribution/possible/server_socket",
                    "%s, but server_socket is %s", known ? "true" : "false",
                    isfinite(server) ? "a number" : "null");
  if (isfinite(server)) {
    double sum = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(d, "external"),
                                  "server"),
                              "sockets")) {
      double before = np_results_num(s, "/before/drops"),
             after = np_results_num(s, "/after/drops");
      sum += after - before;
    }
    if (sum != server)
      np_chk__problem(c, f, "/external/attribution/server_socket",
                      "%.0f, but the server sockets' drops (after - "
                      "before) sum to %.0f",
                      server, sum);
    if (between != lost - client - server)
      np_chk__problem(c, f, "/external/attribution/in_between",
                      "%.0f, not lost - client_socket - server_socket = "
                      "%.0f",
                      between, lost - client - server);
  } else if (rest != lost - client) {
    np_chk__problem(c, f, "/external/attribution/not_attributed",
                    "%.0f, not lost - client_socket = %.0f", rest,
                    lost - client);
  }
}

/* lost = sent - received - late; the late checks from the record's own
 * numbers (records 0.3.0 on: counters.late and "timeouts"). */
static void late(const struct np_chk_rec *r) {
  const cJSON *d = r->doc;
  double sent = np_results_num(d, "/counters/sent"),
         recv = np_results_num(d, "/counters/received"),
         lost = np_results_num(d, "/counters/lost"),
         late_n = np_json_get_number(
             cJSON_GetObjectItemCaseSensitive(d, "counters"), "late", 0);
  if (isfinite(sent) && isfinite(recv) && isfinite(lost) &&
      sent - recv - late_n != lost)
    np_chk__problem(r->c, r->file, "/counters/lost",
                    "sent - received - late = %.0f, record says %.0f",
                    sent - recv - late_n, lost);
  np_chk__udp_timeouts(r);
  struct np_udp_late_input li;
  np_udp_late_input_json(d, &li);
  struct np_udp_checks cs = {0};
  np_udp_late_checks(&li, &cs);
  for (unsigned i = 0; i < cs.n; i++) {
    int passed = check_verdict(d, cs.item[i].name);
    if (passed < 0)
      np_chk__problem(r->c, r->file, "/checks",
                      "no %s check, but the record "
                      "has a timeouts section",
                      cs.item[i].name);
    else if (passed != cs.item[i].passed)
      np_chk__problem(r->c, r->file, "/checks",
                      "%s says %s, but the record's numbers give %s (%s)",
                      cs.item[i].name, passed ? "passed" : "failed",
                      cs.item[i].passed ? "passed" : "failed",
                      cs.item[i].detail);
  }
}

/* external.client_cpu (absent in records before it): one figure per lane,
 * none above the window (a thread is on at most one CPU), the window is
 * the measurement, and the busiest fraction and the flag follow. */
static void client_cpu(struct np_results_check *c, const char *f,
                       const cJSON *d) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(d, "external"), "client_cpu");
  if (!o)
    return;
  const cJSON *lanes = cJSON_GetObjectItemCaseSensitive(o, "lane_cpu_seconds");
  double win = np_results_num(o, "/window_seconds"),
         secs = np_results_num(d, "/measurement/seconds"),
         threads = np_results_num(d, "/config/io_threads"),
         got = np_results_num(o, "/busiest_fraction");
  if (isfinite(threads) && cJSON_GetArraySize(lanes) != (int)threads)
    np_chk__problem(c, f, "/external/client_cpu/lane_cpu_seconds",
                    "%d lanes, but config.io_threads is %.0f",
                    cJSON_GetArraySize(lanes), threads);
  if (!(win == secs))
    np_chk__problem(c, f, "/external/client_cpu/window_seconds",
                    "%.9g is not measurement.seconds (%.9g)", win, secs);
  double busiest = 0;
  int i = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, lanes) {
    if (cJSON_IsNumber(v)) {
      if (v->valuedouble > win + 0.01)
        np_chk__problem(c, f, "/external/client_cpu/lane_cpu_seconds",
                        "lane %d used %.6g CPU seconds in a %.6g s window: "
                        "a thread runs on one CPU at a time",
                        i, v->valuedouble, win);
      double b = np_busy_fraction(v->valuedouble, win);
      if (b > busiest)
        busiest = b;
    }
    i++;
  }
  if (!(fabs(got - busiest) <= 1e-12 * (busiest > 1 ? busiest : 1)))
    np_chk__problem(c, f, "/external/client_cpu/busiest_fraction",
                    "%.9g is not the largest lane_cpu_seconds / "
                    "window_seconds (%.9g)",
                    got, busiest);
  int sat = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "client_saturated"));
  if (sat != np_busy_saturated(busiest))
    np_chk__problem(c, f, "/external/client_cpu/client_saturated",
                    "%s, but the busiest lane's fraction %.3f is %s %.2f",
                    sat ? "true" : "false", busiest,
                    np_busy_saturated(busiest) ? "at least" : "below",
                    NP_BUSY_SATURATED);
  if (strcmp(np_json_get_string(o, "rule", ""), NP_BUSY_RULE) != 0)
    np_chk__problem(c, f, "/external/client_cpu/rule",
                    "not the rule this self-check applies");
}

void np_chk__external_record(const struct np_chk_rec *r) {
  struct np_results_check *c = r->c;
  const char *f = r->file;
  const cJSON *d = r->doc;
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
  if (!np_kind_is(np_json_get_string(cfg, "protocol", ""),
                  NP_KIND_UDP_EXTERNAL) ||
      cJSON_GetObjectItemCaseSensitive(d, "external") == NULL)
    return;
  sums(c, f, d);
  attribution(c, f, d);
  late(r);
  client_cpu(c, f, d);
}
