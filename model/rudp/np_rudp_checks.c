/*
 * np_rudp_checks.c - a round's checks, the record-level aggregation, the
 * reasons and the summary line, from plain inputs (see the header); the
 * benchmark and the result-set self-check both call these.
 */
#include "np_rudp_checks.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int np_rudp_check_set(struct np_rudp_check *c, const char *name, int ok,
                      const char *fmt, ...) {
  va_list ap;
  c->name = name;
  c->passed = ok;
  va_start(ap, fmt);
  vsnprintf(c->detail, sizeof c->detail, fmt, ap);
  va_end(ap);
  return !ok;
}

int np_rudp_checks_eval(const struct np_rudp_check_input *t,
                        struct np_rudp_check out[NP_RUDP_CHECKS]) {
  int f = 0;
  f |= np_rudp_check_set(&out[NP_RUDP_CHECK_CONTENT], "content",
                 t->content_errors == 0,
                 "%" PRIu64 " messages with wrong bytes (server + client)",
                 t->content_errors);
  f |= np_rudp_check_set(&out[NP_RUDP_CHECK_ORDER], "order",
                         t->sequence_errors == 0,
                 t->unordered ? "%" PRIu64 " messages delivered twice or "
                                "never sent (unordered delivery)"
                              : "%" PRIu64 " messages delivered out of order",
                 t->sequence_errors);
  if (t->server_remote)
    f |= np_rudp_check_set(&out[NP_RUDP_CHECK_SEND_COMPLETION],
                           "send_completion",
                   t->sent == t->received && t->send_errors == 0 &&
                       t->drain_complete,
                   "sent %" PRIu64 ", echoes received %" PRIu64
                   ", send errors %" PRIu64 ", drain %s; the server "
                   "endpoint's counts are in its own record (--connect)",
                   t->sent, t->received, t->send_errors,
                   t->drain_complete ? "complete" : "timed out");
  else
    f |= np_rudp_check_set(&out[NP_RUDP_CHECK_SEND_COMPLETION],
                           "send_completion",
                   t->sent == t->received && t->server_received == t->sent &&
                       t->server_replied == t->server_received &&
                       t->send_errors == 0 && t->drain_complete,
                   "sent %" PRIu64 ", server received %" PRIu64
                   ", replied %" PRIu64 ", echoes received %" PRIu64
                   ", send errors %" PRIu64 ", drain %s",
                   t->sent, t->server_received, t->server_replied,
                   t->received, t->send_errors,
                   t->drain_complete ? "complete" : "timed out");
  f |= np_rudp_check_set(&out[NP_RUDP_CHECK_SHUTDOWN], "shutdown",
                 t->conns_closed == t->conns && t->conns_unacked == 0,
                 "%" PRIu32 " of %" PRIu32 " connections closed in order, %"
                 PRIu32 " failed, %" PRIu32 " with unacknowledged data",
                 t->conns_closed, t->conns, t->conns_failed,
                 t->conns_unacked);
  f |= np_rudp_check_set(&out[NP_RUDP_CHECK_RELAY_ERRORS], "relay_errors",
                 t->relay_errors == 0,
                 "%" PRIu64 " relay receive/send/truncation errors",
                 t->relay_errors);
  f |= np_rudp_check_set(&out[NP_RUDP_CHECK_RELAY_OVERFLOW], "relay_overflow",
                 t->relay_overflow == 0,
                 "%" PRIu64 " packets tail-dropped at the route capacity",
                 t->relay_overflow);
  return f;
}

void np_rudp_checks_aggregate(const struct np_rudp_check *const *round_checks,
                              uint32_t nrounds,
                              struct np_rudp_check out[NP_RUDP_CHECKS]) {
  for (unsigned c = 0; c < NP_RUDP_CHECKS; c++) {
    unsigned nfail = 0;
    for (uint32_t i = 0; i < nrounds; i++)
      nfail += !round_checks[i][c].passed;
    out[c].name = nrounds ? round_checks[0][c].name : "";
    out[c].passed = nfail == 0;
    snprintf(out[c].detail, sizeof out[c].detail,
             "%u of %u rounds failed (per-round detail under "
             "/rudp/rounds/*/checks)",
             nfail, nrounds);
  }
}

void np_rudp_reason_text(uint32_t round, const struct np_rudp_check *c,
                         char *buf, size_t len) {
  snprintf(buf, len, "round %" PRIu32 ": %s: %s", round, c->name, c->detail);
}

void np_rudp_summary_line(const struct np_rudp_summary_input *in, char *buf,
                          size_t len) {
  int h = !isnan(in->p99_ms);
  snprintf(buf, len,
           "netproof-bench rudp: round %" PRIu32 " seed %" PRIu64
           ": %.0f round trips/s, p99 %s%.2f ms, retx %.1f/1000 (spurious "
           "%" PRIu64 " of %" PRIu64 "), overhead %.1f %%, fec rec %.1f/1000 "
           "unrec %.0f, cpu %.0f %%: %s",
           in->round, in->seed, in->roundtrips_per_sec, h ? "" : "n/a ",
           h ? in->p99_ms : 0.0, in->retransmits_per_1000, in->spurious,
           in->retransmits, in->overhead_percent, in->recoveries_per_1000,
           in->unrecoverable, in->cpu_percent,
           in->failed ? "failed" : "passed");
}

void np_rudp_check_line(uint32_t round, const struct np_rudp_check *c,
                        char *buf, size_t len) {
  snprintf(buf, len, "netproof-bench rudp: round %" PRIu32
                     ": check %s failed: %s",
           round, c->name, c->detail);
}

uint32_t np_rudp_median_index(const double *rate, uint32_t n) {
  uint32_t idx[NP_RUDP_MEDIAN_MAX];
  if (n == 0)
    return 0;
  if (n > NP_RUDP_MEDIAN_MAX)
    n = NP_RUDP_MEDIAN_MAX;
  for (uint32_t i = 0; i < n; i++)
    idx[i] = i;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && rate[idx[j - 1]] > rate[idx[j]]; j--) {
      uint32_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  return idx[(n - 1) / 2];
}
