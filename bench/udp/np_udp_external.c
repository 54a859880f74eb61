/*
 * np_udp_external.c - loss attribution and the invariants of a
 * `udp --connect` run (see np_udp_external.h).  Each misbehaviour of the
 * server is its own check with the count in its detail, so the record's
 * reasons say what the server did.
 */
#include "np_udp_external.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "np_udp_target.h"

void np_udp_external_attrib(const struct np_udp_result *res,
                            struct np_udp_attrib *a) {
  const struct np_udp_counters *c = &res->measure;
  memset(a, 0, sizeof *a);
  /* late replies came back after the client gave up: not lost */
  a->lost = (int64_t)c->sent - (int64_t)c->received - (int64_t)c->late;
  for (uint32_t i = 0; i < res->nsocks; i++)
    if (res->socks[i].role == NP_UDP_ROLE_CLIENT)
      a->client_socket +=
          res->socks[i].drops_after - res->socks[i].drops_before;
  a->server_known = np_udp_target_attributable(res->target);
  if (a->server_known) {
    a->server_socket = np_udp_target_drops(res->target);
    a->in_between =
        a->lost - (int64_t)a->client_socket - (int64_t)a->server_socket;
  } else {
    a->not_attributed = a->lost - (int64_t)a->client_socket;
  }
}

void np_udp_external_checks(const struct np_udp_result *res,
                            const struct np_udp_attrib *a,
                            struct np_udp_checks *cs) {
  const struct np_udp_counters *c = &res->measure;
  char where[240];
  cs->n = cs->failed = 0;
  if (a->server_known)
    snprintf(where, sizeof where,
             "client sockets dropped %" PRIu64
             ", the server socket dropped %" PRIu64 ", %" PRId64
             " lost in between (dropped by neither socket: on the path or "
             "in the server process)",
             a->client_socket, a->server_socket, a->in_between);
  else
    snprintf(where, sizeof where,
             "client sockets dropped %" PRIu64 ", %" PRId64 " not attributed "
             "(the server socket is not visible)",
             a->client_socket, a->not_attributed);
  np_udp_checks_add(cs, "roundtrips_completed", c->received > 0,
                    "%" PRIu64 " round trips completed in the measurement",
                    c->received);
  np_udp_checks_add(cs, "no_loss", a->lost == 0,
                    "lost %" PRId64 " of %" PRIu64 " sent: %s", a->lost,
                    c->sent, where);
  /* the parts are counted, never derived from each other, except the rest:
   * a part above the loss means the counters saw someone else's datagrams */
  int64_t rest = a->server_known ? a->in_between : a->not_attributed;
  np_udp_checks_add(cs, "loss_attributed", a->lost >= 0 && rest >= 0,
                    "lost %" PRId64 " = client sockets %" PRIu64
                    " + server socket %s%" PRIu64 " + %s %" PRId64 "%s",
                    a->lost, a->client_socket,
                    a->server_known ? "" : "(unknown) ", a->server_socket,
                    a->server_known ? "in between" : "not attributed", rest,
                    rest < 0 ? " (negative: another sender shares the "
                               "server socket, the drops are not all ours)"
                             : "");
  np_udp_checks_add(cs, "no_duplicates", c->duplicates == 0,
                    "%" PRIu64 " duplicated replies (a second reply to a "
                    "message already answered)",
                    c->duplicates);
  np_udp_checks_add(cs, "no_reordering", c->reordered == 0,
                    "%" PRIu64 " reordered replies (answered after a later "
                    "message)",
                    c->reordered);
  np_udp_checks_add(cs, "no_stale_replies", c->stale == 0,
                    "%" PRIu64 " replies to nothing the client knows of "
                    "(never sent, given up too long ago to tell, or too "
                    "short to carry a sequence number)",
                    c->stale);
  np_udp_checks_add(cs, "no_wrong_length", c->wrong_length == 0,
                    "%" PRIu64 " replies of another length than their "
                    "request (truncated or padded by the server)",
                    c->wrong_length);
  np_udp_checks_add(cs, "no_corruption", c->corrupted == 0,
                    "%" PRIu64 " replies of the right length with different "
                    "bytes",
                    c->corrupted);
  np_udp_checks_add(cs, "no_send_errors", c->send_errors == 0,
                    "%" PRIu64 " client sends refused", c->send_errors);
}

void np_udp_external_server_text(const struct np_udp_result *res, char *buf,
                                 size_t len) {
  const struct np_udp_target *t = res->target;
  if (t == NULL || t->nprocs == 0) {
    snprintf(buf, len, "unidentified server");
    return;
  }
  const struct np_procnet_proc *p = &t->procs[0];
  const char *name = p->exe[0] ? strrchr(p->exe, '/') : NULL;
  snprintf(buf, len, "%s (pid %ld, exe sha256 %.12s)",
           name       ? name + 1
           : p->nargs ? p->args[0]
                      : "?",
           (long)p->pid, p->exe_sha256[0] ? p->exe_sha256 : "unknown");
}
