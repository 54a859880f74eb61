/*
 * np_relay_cmd_record.c - the record of one `netproof-bench relay`
 * process: the shared envelope (model/core/np_bench_record.h) with
 * config.protocol "relay" and the relay's checks, then the final
 * statistics snapshot as `relay` (itself a "netproof/relay-stats/1"
 * document, validated against schema/relay-stats.schema.json by
 * np_relay_cmd_snapshot) with stopped_by, and the relay's sockets.
 */
#include "np_relay_cmd.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

enum { CK_ERRORS, CK_ROUTES, CK_MEMORY, CK_LOOP, CK_LINES, CK_TCP_BOUNDS,
       CK_TCP_ERRORS, CK_N };

struct checks {
  struct np_bench_check c[CK_N];
  char detail[CK_N][200];
  unsigned n;
};

static void check(struct checks *k, const char *name, int ok,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void check(struct checks *k, const char *name, int ok,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(k->detail[k->n], sizeof k->detail[k->n], fmt, ap);
  va_end(ap);
  k->c[k->n] = (struct np_bench_check){name, ok, k->detail[k->n]};
  k->n++;
}

static void checks_eval(const struct np_relay_cmd_config *cfg,
                        const struct np_relay_cmd_result *res,
                        struct checks *k) {
  memset(k, 0, sizeof *k);
  check(k, "relay_errors", res->relay_errors == 0,
        "%" PRIu64 " relay receive/send/truncation/route/pool errors",
        res->relay_errors);
  check(k, "routes_refused", res->io.routes_refused == 0,
        "%" PRIu64 " datagrams from new sources refused at --max-routes %"
        PRIu32 " (%" PRIu64 " routes open)",
        res->io.routes_refused, cfg->net.max_routes, res->routes);
  check(k, "memory_bound", res->io.memory_overflow == 0,
        "%" PRIu64 " copies dropped at --max-memory-bytes %" PRIu64
        " (at most %" PRIu64 " bytes of pool memory were queued at once)",
        res->io.memory_overflow, cfg->net.max_memory_bytes,
        res->io.queued_memory_peak);
  check(k, "refused_loop", res->io.refused_loop == 0,
        "%" PRIu64 " datagrams from the relay's own addresses (--forward, "
        "--listen, its back sockets) dropped",
        res->io.refused_loop);
  if (cfg->stats_lines != NULL)
    check(k, "stats_lines", res->line_errors == 0,
          "%" PRIu64 " lines written, %" PRIu64 " could not be",
          res->lines, res->line_errors);
  if (cfg->net.tcp_passthrough) {
    check(k, "tcp_bounds",
          res->tcp.refused == 0 && res->tcp.byte_limit_closes == 0,
          "%" PRIu64 " connections refused at --tcp-max-connections %" PRIu32
          ", %" PRIu64 " closed at --tcp-max-bytes",
          res->tcp.refused, cfg->net.tcp_max_connections,
          res->tcp.byte_limit_closes);
    check(k, "tcp_errors", res->tcp.connect_failed == 0,
          "%" PRIu64 " of %" PRIu64 " connections could not reach --forward",
          res->tcp.connect_failed, res->tcp.accepted);
  }
}

static cJSON *config_json(const struct np_relay_cmd_config *cfg,
                          const struct np_relay_cmd_result *res, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "relay");
  cJSON_AddStringToObject(o, "listen", cfg->listen_text);
  cJSON_AddStringToObject(o, "listen_bound", res->listen_bound);
  cJSON_AddStringToObject(o, "forward", cfg->forward_text);
  cJSON_AddStringToObject(o, "family", cfg->net.listen.ss_family == AF_INET6
                                           ? "ipv6" : "ipv4");
  NUM(o, "max_routes", cfg->net.max_routes);
  NUM(o, "route_idle_seconds", cfg->net.route_idle_seconds);
  NUM(o, "max_memory_bytes", cfg->net.max_memory_bytes);
  NUM(o, "max_seconds", cfg->max_seconds);
  if (cfg->stats_lines) {
    cJSON_AddStringToObject(o, "stats_lines", cfg->stats_lines);
    NUM(o, "stats_interval_seconds", cfg->stats_interval);
  }
  NUM(o, "socket_buffer", cfg->net.socket_buffer);
  cJSON_AddBoolToObject(o, "tcp_passthrough", cfg->net.tcp_passthrough);
  if (cfg->net.tcp_passthrough) {
    NUM(o, "tcp_max_connections", cfg->net.tcp_max_connections);
    NUM(o, "tcp_max_bytes", cfg->net.tcp_max_bytes);
    NUM(o, "tcp_idle_seconds", cfg->net.tcp_idle_seconds);
  }
  NUM(o, "seed", cfg->relay.seed);
  cJSON *relay = np_relay_config_json(&cfg->relay);
  if (!cJSON_AddItemToObject(o, "relay", relay))
    cJSON_Delete(relay);
  cJSON *cmd = np_bench_record_command(argc, argv);
  if (!cJSON_AddItemToObject(o, "command", cmd))
    cJSON_Delete(cmd);
  if (!cJSON_GetObjectItem(o, "relay") || !cJSON_GetObjectItem(o, "command")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static const char *stopped_by(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "max-seconds";
}

int np_relay_cmd_record_build(const struct np_relay_cmd_config *cfg,
                              struct np_relay_cmd_result *res, int argc,
                              char **argv, cJSON **doc,
                              struct np_bench_verdict *v,
                              struct np_errbuf *eb) {
  struct checks k;
  checks_eval(cfg, res, &k);
  struct np_bench_envelope env = {
      .run = &res->run,
      .checks = k.c,
      .nchecks = k.n,
      .config = config_json(cfg, res, argc, argv),
  };
  cJSON *d = NULL;
  int rc = np_bench_record_new(&env, &d, v, eb);
  if (rc != 0)
    return rc;
  cJSON_AddStringToObject(res->stats, "stopped_by", stopped_by(res->signal));
  cJSON_AddItemReferenceToObject(d, "relay", res->stats);
  cJSON *socks = cJSON_AddObjectToObject(d, "sockets");
  if (socks) {
    NUM(socks, "kernel_drops", res->socket_drops);
    cJSON_AddStringToObject(socks, "drops_source",
                            "SO_MEMINFO SK_MEMINFO_DROPS of each relay "
                            "socket at exit (the whole lifetime)");
    cJSON_AddItemReferenceToObject(socks, "list", res->sockets);
  }
  static const char *const need[] = {"relay", "sockets"};
  if ((rc = np_bench_record_require(d, need, 2, eb)) != 0 ||
      !cJSON_GetObjectItem(socks, "list")) {
    cJSON_Delete(d);
    return rc ? rc : np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  }
  *doc = d;
  return 0;
}
