/*
 * np_rudp_extrelay.c - a rudp round's relay figures from an external
 * relay's stats lines (see np_rudp_extrelay.h).  Waiting sleeps on the
 * controller, so SIGINT/SIGTERM end it; an interrupted wait takes the
 * latest line there is and says so in the round's scope.
 */
#include "np_rudp_extrelay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "np_addr.h"
#include "np_json.h"
#include "np_time.h"

#define BEGIN_WAIT_S 5.0 /* for the relay's first line                  */
#define END_WAIT_S 10.0  /* for a line after close + the largest delay  */
#define POLL_S 0.02

/* The latest line with mono_ns >= after (0: any), waiting until deadline
 * (monotonic seconds) or a signal; *cut = 1 when a signal cut the wait
 * short (the latest line there is is taken). */
static int wait_line(const char *path, struct np_bench_ctl *w, uint64_t after,
                     double deadline, struct np_relay_link_line *out,
                     int *cut, struct np_errbuf *eb) {
  struct np_relay_link_line best;
  int have = 0, rc;
  memset(&best, 0, sizeof best);
  *cut = 0;
  for (;;) {
    struct np_relay_link_line l;
    rc = np_relay_link_last(path, &l, eb);
    if (rc == 0) {
      np_relay_link_line_free(&best);
      best = l;
      have = 1;
      if (l.mono_ns >= after)
        break;
    } else if (rc != NP_EAGAIN && rc != NP_ENOENT) {
      np_relay_link_line_free(&best);
      return rc;
    }
    if (np_bench_ctl_signal(w)) { /* the sleep below would not wait */
      if (!have)
        return np_errbuf_set(eb, NP_EINTR,
                             "--relay-stats %s: interrupted before a "
                             "statistics line", path);
      *cut = 1;
      break;
    }
    if (np_time_mono_s() >= deadline) {
      np_relay_link_line_free(&best);
      return np_errbuf_set(eb, NP_ETIMEDOUT,
                           "--relay-stats %s: no statistics line %s within "
                           "%.0f s (is the relay running with --stats-lines "
                           "there?)",
                           path, after ? "after the round" : "yet",
                           after ? END_WAIT_S : BEGIN_WAIT_S);
    }
    np_bench_ctl_sleep(w, POLL_S);
  }
  *out = best;
  return 0;
}

/* The stats line's address at key (flags: np_addr_parse's) into *out. */
static int addr_of(const cJSON *doc, const char *key, unsigned flags,
                   struct sockaddr_storage *out) {
  const char *t = np_json_get_string(doc, key, NULL);
  struct np_addr a;
  if (t == NULL || np_addr_parse(key, t, flags, &a, NULL) != 0)
    return NP_EINVAL;
  memcpy(out, &a.ss, sizeof *out);
  return 0;
}

int np_rudp_ext_begin(const struct np_rudp_config *cfg,
                      struct np_bench_ctl *w, struct np_relay_link_line *base,
                      struct sockaddr_storage *server, struct np_errbuf *eb) {
  int cut;
  int rc = wait_line(cfg->relay_stats, w, 0, np_time_mono_s() + BEGIN_WAIT_S,
                     base, &cut, eb);
  if (rc != 0)
    return rc;
  struct sockaddr_storage listen;
  if (addr_of(base->doc, "listen", NP_ADDR_ANY_PORT, &listen) != 0 ||
      !np_addr_sa_equal((const struct sockaddr *)&listen,
                           (const struct sockaddr *)&cfg->relay_addr) ||
      addr_of(base->doc, "forward", 0, server) != 0) {
    rc = np_errbuf_set(eb, NP_EINVAL,
                       "--relay-stats %s: its relay listens on %s, not "
                       "--relay %s",
                       cfg->relay_stats,
                       np_json_get_string(base->doc, "listen", "(none)"),
                       cfg->relay_ext);
    np_relay_link_line_free(base);
    return rc;
  }
  return 0;
}

static void counts_sub(struct np_relay_counts *a,
                       const struct np_relay_counts *b) {
  uint64_t *x = (uint64_t *)a;
  const uint64_t *y = (const uint64_t *)b;
  for (size_t i = 0; i < sizeof *a / sizeof(uint64_t); i++)
    x[i] = x[i] >= y[i] ? x[i] - y[i] : 0;
}

/* The longest a copy can stay in the relay: delay + jitter + reorder
 * delay of the slower direction, ns. */
static uint64_t max_delay_ns(const cJSON *doc) {
  static const char *const d[2] = {"c2s", "s2c"};
  double most = 0;
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "config");
  for (int i = 0; i < 2; i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(c, d[i]);
    double ms = np_json_get_number(x, "delay_ms", 0) +
                np_json_get_number(x, "jitter_ms", 0) +
                np_json_get_number(x, "reorder_delay_ms", 0);
    if (ms > most)
      most = ms;
  }
  return (uint64_t)(most * 1e6);
}

static cJSON *line_ref(const struct np_relay_link_line *l) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  np_json_add_number(o, "seq", (double)l->seq);
  cJSON_AddStringToObject(o, "at", np_json_get_string(l->doc, "at", ""));
  cJSON_AddStringToObject(o, "sha256", l->sha256);
  return o;
}

int np_rudp_ext_end(const struct np_rudp_config *cfg, struct np_bench_ctl *w,
                    const struct np_rudp_net *net,
                    const struct np_relay_link_line *base, uint64_t end_ns,
                    struct np_rudp_round *r, struct np_errbuf *eb) {
  uint32_t n = cfg->clients;
  struct sockaddr_storage *cl = calloc(n, sizeof *cl);
  struct np_relay_link_line end;
  int cut = 0, rc;
  memset(&end, 0, sizeof end);
  if (cl == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
  for (uint32_t i = 0; i < n; i++)
    if ((rc = np_rudp_net_client_addr(net, i, &cl[i])) != 0) {
      np_errbuf_set(eb, rc, "rudp: client %" PRIu32 ": no address", i);
      goto free_clients;
    }
  uint64_t after = end_ns + max_delay_ns(base->doc) + 10000000u;
  if ((rc = wait_line(cfg->relay_stats, w, after,
                      np_time_mono_s() + END_WAIT_S, &end, &cut, eb)) != 0)
    goto free_clients;
  struct np_relay_counts b[NP_RELAY_DIRS];
  uint64_t pb, pp;
  cJSON *routes = NULL;
  np_relay_link_routes(base->doc, cl, n, b, &pb, &pp, NULL);
  unsigned found = np_relay_link_routes(end.doc, cl, n, r->relay_dir,
                                        &r->relay_peak_bytes_sum,
                                        &r->relay_peak_packets_sum, &routes);
  memset(&r->relay_window, 0, sizeof r->relay_window);
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
    counts_sub(&r->relay_dir[d], &b[d]);
    r->relay_errors += np_relay_counts_errors(&r->relay_dir[d]);
    r->relay_overflow += r->relay_dir[d].overflow;
    np_relay_counts_add(&r->relay_window, &r->relay_dir[d]);
  }
  r->relay_errors += n - found; /* a client the relay has no route for */
  r->relay_scope = cut ? "whole round, from the external relay's stats "
                         "lines; the end line was taken early (signal)"
                       : "whole round, from the external relay's stats "
                         "lines (end minus baseline of this round's routes)";
  cJSON *o = cJSON_CreateObject();
  cJSON *x = o ? cJSON_AddObjectToObject(o, "external") : NULL;
  if (x) {
    cJSON_AddStringToObject(x, "relay", cfg->relay_ext);
    cJSON_AddStringToObject(x, "stats_lines", cfg->relay_stats);
    cJSON_AddItemToObject(x, "baseline_line", line_ref(base));
    cJSON_AddItemToObject(x, "end_line", line_ref(&end));
    np_json_add_number(x, "clients", n);
    np_json_add_number(x, "routes_matched", found);
    cJSON_AddItemToObject(
        o, "config",
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(end.doc, "config"),
                        1));
    cJSON_AddItemToObject(o, "routes", routes);
    routes = NULL;
  }
  cJSON_Delete(routes);
  r->relay_stats = o;
  rc = o ? 0 : np_errbuf_set(eb, NP_ENOMEM, "rudp: out of memory");
free_clients:
  np_relay_link_line_free(&end);
  free(cl);
  return rc;
}
