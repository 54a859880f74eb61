/*
 * np_udp_checks.c - the run's invariants, one check per entry, each with
 * the numbers it compared so a failed record explains itself, and the
 * summary line; pure functions of plain inputs (see the header), shared
 * by the benchmark and the result-set self-check.
 */
#include "np_udp_checks.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void np_udp_check_input_of(const struct np_udp_counters *c,
                           const struct np_udp_result *res,
                           struct np_udp_check_input *in) {
  *in = (struct np_udp_check_input){
      .sent = c->sent,
      .server_received = c->server_received,
      .server_replied = c->server_replied,
      .received = c->received,
      .content_errors = c->content_errors,
      .sequence_errors = c->sequence_errors,
      .send_errors = c->send_errors,
      .server_send_errors = c->server_send_errors,
      .truncated = c->truncated,
      .late = c->late};
  for (uint32_t i = 0; i < res->nsocks; i++) {
    const struct np_udp_sock_report *s = &res->socks[i];
    uint64_t d = s->drops_after - s->drops_before;
    if (s->role == NP_UDP_ROLE_SERVER)
      in->server_drops += d;
    else
      in->client_drops += d;
  }
}

void np_udp_loss_compute(const struct np_udp_check_input *c,
                         struct np_udp_loss *out) {
  /* a late reply came back: neither lost nor received (np_udp_late.h) */
  out->lost = (int64_t)c->sent - (int64_t)c->received - (int64_t)c->late;
  out->request_leg = (int64_t)c->sent - (int64_t)c->server_received;
  out->server = (int64_t)c->server_received - (int64_t)c->server_replied;
  out->reply_leg =
      (int64_t)c->server_replied - (int64_t)c->received - (int64_t)c->late;
  out->server_drops = c->server_drops;
  out->client_drops = c->client_drops;
  out->kernel_drops = out->server_drops + out->client_drops;
}

void np_udp_checks_add(struct np_udp_checks *cs, const char *name, int passed,
                const char *fmt, ...) {
  if (cs->n >= NP_UDP_MAX_CHECKS)
    return;
  struct np_udp_check *c = &cs->item[cs->n++];
  c->name = name;
  c->passed = passed;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->detail, sizeof c->detail, fmt, ap);
  va_end(ap);
  if (!passed)
    cs->failed++;
}

void np_udp_checks_eval(const struct np_udp_check_input *c,
                        const struct np_udp_loss *l,
                        struct np_udp_checks *cs) {
  cs->n = cs->failed = 0;
  np_udp_checks_add(cs, "roundtrips_completed", c->received > 0,
      "%" PRIu64 " round trips completed in the measurement", c->received);
  np_udp_checks_add(cs, "no_loss", l->lost == 0,
      "lost %" PRId64 " of %" PRIu64 " sent (unanswered after the drain)",
      l->lost, c->sent);
  np_udp_checks_add(cs, "loss_attributed",
      l->request_leg >= 0 && l->server >= 0 && l->reply_leg >= 0 &&
          l->request_leg + l->server + l->reply_leg == l->lost,
      "lost %" PRId64 " = request leg %" PRId64 " (sent - server_received)"
      " + server %" PRId64 " + reply leg %" PRId64
      " (server_replied - received%s)",
      l->lost, l->request_leg, l->server, l->reply_leg,
      c->late ? " - late" : "");
  np_udp_checks_add(cs, "server_received_equals_replied",
      c->server_received == c->server_replied,
      "server_received %" PRIu64 ", server_replied %" PRIu64,
      c->server_received, c->server_replied);
  np_udp_checks_add(cs, "request_leg_matches_server_drops",
      l->request_leg == (int64_t)l->server_drops,
      "request leg %" PRId64 ", server socket drops %" PRIu64,
      l->request_leg, l->server_drops);
  np_udp_checks_add(cs, "reply_leg_matches_client_drops",
      l->reply_leg == (int64_t)l->client_drops,
      "reply leg %" PRId64 ", client socket drops %" PRIu64, l->reply_leg,
      l->client_drops);
  np_udp_checks_add(cs, "loss_matches_kernel_drops", l->lost == (int64_t)l->kernel_drops,
      "lost %" PRId64 ", per-socket kernel drops %" PRIu64, l->lost,
      l->kernel_drops);
  np_udp_checks_add(cs, "no_content_errors", c->content_errors == 0 && c->truncated == 0,
      "%" PRIu64 " content errors, %" PRIu64 " truncated", c->content_errors,
      c->truncated);
  np_udp_checks_add(cs, "no_sequence_errors", c->sequence_errors == 0,
      "%" PRIu64 " duplicate, stale or reordered replies", c->sequence_errors);
  np_udp_checks_add(cs, "no_send_errors", c->send_errors == 0 && c->server_send_errors == 0,
      "%" PRIu64 " client and %" PRIu64 " server sends refused",
      c->send_errors, c->server_send_errors);
}

void np_udp_summary_line(const struct np_udp_summary_input *in, char *buf,
                         size_t len) {
  int h50 = !isnan(in->p50_us), h99 = !isnan(in->p99_us);
  snprintf(buf, len,
           "netproof-bench udp: %s/%s %" PRIu64 " B x %" PRIu64
           " clients x window %" PRIu64 ": %.0f round trips/s, p50 %.2f "
           "\xce\xbcs, p99 %s%.2f \xce\xbcs, lost %" PRId64 " of %" PRIu64
           " (%.2f %%; kernel drops %" PRIu64 "), cpu %.1f %%%s: %s",
           in->backend, in->io_model, in->payload, in->clients, in->window,
           in->roundtrips_per_sec, h50 ? in->p50_us : 0.0, h99 ? "" : "n/a ",
           h99 ? in->p99_us : 0.0, in->lost, in->sent,
           in->sent ? 100.0 * (double)in->lost / (double)in->sent : 0.0,
           in->kernel_drops, in->cpu_percent, in->extra ? in->extra : "",
           in->status);
}

void np_udp_summary_line_0_2(const struct np_udp_summary_input *in,
                             char *buf, size_t len) {
  int h50 = !isnan(in->p50_us), h99 = !isnan(in->p99_us);
  snprintf(buf, len,
           "netproof-bench udp: %s/%s %" PRIu64 " B x %" PRIu64
           " clients x window %" PRIu64 ": %.0f round trips/s, p50 %.2f us, "
           "p99 %s%.2f us, lost %" PRId64 " (kernel drops %" PRIu64
           "), cpu %.1f %%%s: %s",
           in->backend, in->io_model, in->payload, in->clients, in->window,
           in->roundtrips_per_sec, h50 ? in->p50_us : 0.0, h99 ? "" : "n/a ",
           h99 ? in->p99_us : 0.0, in->lost, in->kernel_drops,
           in->cpu_percent, in->extra ? in->extra : "", in->status);
}

void np_udp_check_line(const struct np_udp_check *c, char *buf, size_t len) {
  snprintf(buf, len, "netproof-bench udp: check %s failed: %s", c->name,
           c->detail);
}
