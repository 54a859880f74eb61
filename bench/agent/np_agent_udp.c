/*
 * np_agent_udp.c - udp --agent: the far server through the agent, the far
 * host's snapshots at the run's own boundaries, the whole run's loss per
 * leg and per host, the far checks and the "far" record section (see
 * np_agent_udp.h).  Built into np_udp (it is the cross-host code path of
 * `udp`, over the udp engine's result and target), on np_agent_link's
 * client.
 */
#include "np_agent_udp.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_agent_client.h"
#include "np_agent_udp_relay.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_time.h"
#include "np_udp_target.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))
#define CALL_SECONDS NP_AGENT_CALL_SECONDS

struct np_agent_udp {
  struct np_udp_config *cfg;      /* the run's (port, connect set here)   */
  struct np_udp_result *res;      /* the run's result (attach)            */
  struct np_agent_far far;        /* session, serve (listening: where the
                                     clients go), --agent-relay's relay  */
  struct np_kernel *kernel[2];    /* far snapshots at the two boundaries  */
  char snap_at[2][32];            /* when (the agent's clock, RFC 3339)   */
  double snap_rtt_us[2];          /* the snapshot request's round trip    */
  int nsnaps;                     /* far snapshots taken                  */
  char err[512];                  /* why the hook failed                  */
};

/* The whole run's loss, per leg and per host (see the rule in legs_json). */
struct legs {
  int64_t sent, server_received, server_echoed, arrived, received;
  int64_t unmatched_warmup, unmatched_measure; /* duplicates + stale */
  int64_t far_socket_drops, near_socket_drops;
  int64_t request_lost, request_in_network, at_server_lost, reply_lost,
      reply_in_network;
  struct np_agent_udp_relay_legs relay; /* --agent-relay: its drops and
                                           copies per leg (0 without) */
  int known; /* the server's record has its counters (and the relay's) */
};

static void set_err(struct np_agent_udp *au, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_err(struct np_agent_udp *au, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(au->err, sizeof au->err, fmt, ap);
  va_end(ap);
}

/* The far server's options: the run's backend, work and buffers. */
static cJSON *serve_args(const struct np_udp_config *cfg, const char *host,
                         double lifetime) {
  char listen[96];
  cJSON *a = cJSON_CreateObject(), *o;
  if (a == NULL)
    return NULL;
  snprintf(listen, sizeof listen, cfg->family == AF_INET6 ? "[%s]:0" : "%s:0",
           host);
  cJSON_AddStringToObject(a, "service", "serve");
  o = cJSON_AddObjectToObject(a, "options");
  cJSON_AddStringToObject(o, "listen", listen);
  cJSON_AddStringToObject(o, "backend", np_udp_backend_name(cfg->backend));
  NUM(o, "work", cfg->work);
  NUM(o, "udp-receive-buffer", cfg->server_receive_buffer);
  NUM(o, "udp-send-buffer", cfg->send_buffer);
  NUM(a, "lifetime_seconds", lifetime);
  return a;
}

int np_agent_udp_begin(struct np_udp_config *cfg, struct np_agent_udp **out,
                       struct np_errbuf *eb) {
  struct np_agent_udp *au = calloc(1, sizeof *au);
  if (au == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  au->cfg = cfg;
  /* the run, its drains (at most 10 s each) and the snapshots */
  double lifetime = cfg->warmup + cfg->seconds + 20.0;
  cJSON *args = NULL;
  int rc = np_agent_far_open(&au->far, cfg->agent, cfg->token_file, "udp", eb);
  if (rc)
    goto fail;
  if ((args = serve_args(cfg, cfg->address, lifetime)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto fail;
  }
  if ((rc = np_agent_far_start(&au->far, args, eb)) != 0)
    goto fail;
  cfg->port = np_addr_port(&au->far.at);
  cfg->connect = au->far.listening;
  if (cfg->agent_relay) {
    char listen[96];
    snprintf(listen, sizeof listen,
             cfg->family == AF_INET6 ? "[%s]:0" : "%s:0", cfg->address);
    if ((rc = np_agent_udp_relay_start(au->far.client, cfg->agent_relay,
                                       listen, au->far.listening, lifetime,
                                       &au->far.relay, eb)) != 0)
      goto fail;
    au->far.has_relay = 1;
    cfg->port = np_addr_port(&au->far.relay.at);
    cfg->connect = au->far.relay.listening;
  }
  *out = au;
  return 0;
fail:
  np_agent_udp_free(au);
  return rc;
}

void np_agent_udp_attach(struct np_agent_udp *au, struct np_udp_result *res) {
  au->res = res;
}

const char *np_agent_udp_error(const struct np_agent_udp *au) {
  return au->err;
}

/* One socket row as the agent sent it, as /proc would have given it. */
static int row_of(const cJSON *j, struct np_procnet_sock *r) {
  memset(r, 0, sizeof *r);
  int v6 = strcmp(np_json_get_string(j, "family", ""), "ipv6") == 0;
  r->family = v6 ? AF_INET6 : AF_INET;
  if (inet_pton(r->family, np_json_get_string(j, "address", ""), r->local) !=
      1)
    return NP_EPARSE;
  r->local_port = (uint16_t)np_json_get_number(j, "port", 0);
  r->inode = (uint64_t)np_json_get_number(j, "inode", 0);
  r->uid = (uint32_t)np_json_get_number(j, "uid", 0);
  r->drops = (uint64_t)np_json_get_number(j, "drops", 0);
  r->rx_queue = (uint64_t)np_json_get_number(j, "rx_queue", 0);
  r->tx_queue = (uint64_t)np_json_get_number(j, "tx_queue", 0);
  return 0;
}

static void proc_of(const cJSON *j, struct np_procnet_proc *p) {
  memset(p, 0, sizeof *p);
  p->pid = (pid_t)np_json_get_number(j, "pid", 0);
  size_t off = 0;
  const cJSON *w;
  cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(j, "command_line")) {
    size_t n = cJSON_IsString(w) ? strlen(w->valuestring) : 0;
    if (!cJSON_IsString(w) || p->nargs == NP_PROCNET_ARGS_MAX ||
        off + n + 1 > sizeof p->cmdline) {
      p->args_truncated = 1;
      break;
    }
    memcpy(p->cmdline + off, w->valuestring, n + 1);
    p->args[p->nargs++] = p->cmdline + off;
    off += n + 1;
  }
  p->args_truncated |= cJSON_IsTrue(
      cJSON_GetObjectItemCaseSensitive(j, "command_line_truncated"));
  snprintf(p->exe, sizeof p->exe, "%s", np_json_get_string(j, "exe", ""));
  snprintf(p->exe_sha256, sizeof p->exe_sha256, "%s",
           np_json_get_string(j, "exe_sha256", ""));
  snprintf(p->exe_error, sizeof p->exe_error, "%s",
           np_json_get_string(j, "exe_error", ""));
}

/* The server's rows into the run's target: found at the first snapshot,
 * the same inodes at the second (as np_udp_target does for a local one). */
static void fill_target(struct np_agent_udp *au, const cJSON *svc, int after) {
  struct np_udp_target *t = au->res ? au->res->target : NULL;
  if (t == NULL)
    return;
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(svc, "sockets"), *j;
  if (!after) {
    t->nsocks = 0;
    t->remote_observed = 1;
    t->why_not[0] = '\0';
    cJSON_ArrayForEach(j, rows) {
      if (t->nsocks == NP_UDP_TARGET_SOCKS_MAX) {
        t->socks_truncated = 1;
        break;
      }
      if (row_of(j, &t->socks[t->nsocks].before) == 0)
        t->nsocks++;
    }
    cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(svc, "processes")) {
      if (t->nprocs == NP_UDP_TARGET_PROCS_MAX) {
        t->procs_truncated = 1;
        break;
      }
      proc_of(j, &t->procs[t->nprocs++]);
    }
    if (t->nsocks == 0)
      snprintf(t->why_not, sizeof t->why_not,
               "the agent lists no UDP socket bound to %s on its host: the "
               "server socket is not attributed", au->far.listening);
    return;
  }
  size_t missing = 0;
  for (size_t s = 0; s < t->nsocks; s++) {
    cJSON_ArrayForEach(j, rows) {
      struct np_procnet_sock r;
      if (!t->socks[s].have_after && row_of(j, &r) == 0 &&
          r.inode == t->socks[s].before.inode) {
        t->socks[s].after = r;
        t->socks[s].have_after = 1;
      }
    }
    missing += !t->socks[s].have_after;
  }
  if (missing && t->why_not[0] == '\0')
    snprintf(t->why_not, sizeof t->why_not,
             "%zu of the server's %zu socket(s) were gone after the "
             "measurement (the agent no longer lists them): the server "
             "socket is not attributed",
             missing, t->nsocks);
}

int np_agent_udp_kernel_take(void *arg, struct np_kernel **out) {
  struct np_agent_udp *au = arg;
  au->err[0] = '\0';
  if (au->nsnaps >= 2) {
    set_err(au, "a third kernel snapshot was asked for");
    return NP_EINVAL;
  }
  int after = au->nsnaps;
  struct np_kernel *near = NULL;
  int rc = np_kernel_take(&near);
  if (rc)
    return rc;
  cJSON *args = cJSON_CreateObject(), *ids, *r = NULL;
  if (args == NULL ||
      (ids = cJSON_AddArrayToObject(args, "services")) == NULL ||
      !cJSON_AddItemToArray(ids, cJSON_CreateString(au->far.service_id)) ||
      !cJSON_AddBoolToObject(args, "processes", !after)) {
    cJSON_Delete(args);
    np_kernel_free(near);
    return NP_ENOMEM;
  }
  struct np_errbuf eb = {{0}};
  double t0 = np_time_mono_s();
  rc = np_agent_client_call(au->far.client, "snapshot", args, CALL_SECONDS, &r,
                            &eb);
  au->snap_rtt_us[after] = (np_time_mono_s() - t0) * 1e6;
  if (rc == 0) {
    const char *raw = np_json_get_string(r, "kernel_raw", NULL);
    struct np_errbuf pe = {{0}};
    if (raw == NULL ||
        (rc = np_kernel_parse_raw(raw, strlen(raw), &au->kernel[after],
                                  &pe)) != 0) {
      rc = raw == NULL ? NP_EPARSE : rc;
      snprintf(eb.msg, sizeof eb.msg, "agent %.80s: snapshot: %.400s",
               au->cfg->agent, raw ? pe.msg : "no kernel_raw");
    }
  }
  if (rc) {
    set_err(au, "the far host's kernel snapshot %s the measurement: %.400s",
            after ? "after" : "before", eb.msg);
    cJSON_Delete(r);
    np_kernel_free(near);
    return rc;
  }
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(r, "at");
  int64_t ms =
      (int64_t)np_json_get_number(at, "realtime_s", 0) * 1000 +
      (int64_t)np_json_get_number(at, "realtime_ns", 0) / 1000000;
  np_time_utc_format(ms, au->snap_at[after], sizeof au->snap_at[after]);
  fill_target(au, cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItemCaseSensitive(r, "services"),
                      au->far.service_id),
              after);
  cJSON_Delete(r);
  au->nsnaps++;
  *out = near;
  return 0;
}

int np_agent_udp_end(struct np_agent_udp *au, struct np_errbuf *eb) {
  return np_agent_far_end(&au->far, eb);
}

/* The server's counters out of its record. */
static double rec_num(const cJSON *doc, const char *ptr) {
  const cJSON *v = np_json_pointer(doc, ptr);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void legs_of(const struct np_agent_udp *au,
                    const struct np_udp_result *res, struct legs *l) {
  const struct np_udp_counters *w = &res->warmup, *m = &res->measure;
  memset(l, 0, sizeof *l);
  l->sent = (int64_t)(w->sent + m->sent);
  l->received = (int64_t)(w->received + m->received);
  l->unmatched_warmup = (int64_t)(w->duplicates + w->stale);
  l->unmatched_measure = (int64_t)(m->duplicates + m->stale);
  /* late replies (to messages the client gave up on) arrived too */
  l->arrived = l->received + l->unmatched_warmup + l->unmatched_measure +
               (int64_t)(w->late + m->late);
  for (uint32_t i = 0; i < res->nsocks; i++)
    if (res->socks[i].role == NP_UDP_ROLE_CLIENT)
      l->near_socket_drops += (int64_t)res->socks[i].drops_after;
  double r = rec_num(au->far.record, "/serve/counters/received"),
         e = rec_num(au->far.record, "/serve/counters/echoed");
  l->known = isfinite(r) && isfinite(e);
  if (au->far.has_relay) {
    np_agent_udp_relay_legs_of(au->far.relay.record, &l->relay);
    l->known = l->known && l->relay.known;
  }
  if (!l->known)
    return;
  l->server_received = (int64_t)r;
  l->server_echoed = (int64_t)e;
  const cJSON *s;
  cJSON_ArrayForEach(s, np_json_pointer(au->far.record, "/serve/sockets"))
      l->far_socket_drops += (int64_t)np_json_get_number(s, "drops", 0);
  l->request_lost = l->sent - l->server_received;
  /* the relay's drops are its leg's, its copies arrive in addition */
  l->request_in_network = l->request_lost - l->far_socket_drops -
                          l->relay.request_dropped +
                          l->relay.request_duplicated;
  l->at_server_lost = l->server_received - l->server_echoed;
  l->reply_lost = l->server_echoed - l->arrived;
  l->reply_in_network = l->reply_lost - l->near_socket_drops -
                        l->relay.reply_dropped + l->relay.reply_duplicated;
}

static int same_text(const cJSON *a, const cJSON *b, const char *key) {
  const char *x = np_json_get_string(a, key, NULL),
             *y = np_json_get_string(b, key, NULL);
  return x && y && strcmp(x, y) == 0;
}

void np_agent_udp_checks(const struct np_agent_udp *au,
                         const struct np_udp_result *res,
                         struct np_udp_checks *cs) {
  const cJSON *far = cJSON_GetObjectItemCaseSensitive(au->far.identify, "stack");
  int boot = same_text(au->far.near_stack, far, "boot_id"),
      ns = same_text(au->far.near_stack, far, "netns");
  np_udp_checks_add(cs, "far_two_stacks", !(boot && ns),
            "this end %s %s, the agent's %s %s: %s",
            np_json_get_string(au->far.near_stack, "boot_id", "?"),
            np_json_get_string(au->far.near_stack, "netns", "?"),
            np_json_get_string(far, "boot_id", "?"),
            np_json_get_string(far, "netns", "?"),
            boot && ns ? "one network stack (not two hosts)"
                       : "two network stacks");
  const char *by = np_json_get_string(au->far.stop, "stopped_by", "?");
  const char *rby = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(au->far.record, "serve"), "stopped_by",
      "?");
  int served = strcmp(by, "SIGTERM from the agent") == 0 &&
               strcmp(rby, "SIGTERM") == 0 && au->far.record != NULL;
  np_udp_checks_add(cs, "far_server_served_run", served,
            "the server was stopped by %s after the run (its record: %s)", by,
            au->far.record ? rby : "none");
  const char *st = np_json_get_string(au->far.record, "status", "none");
  char failed[160] = "";
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(au->far.record,
                                                         "checks")) {
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed")) &&
        strlen(failed) + 40 < sizeof failed)
      snprintf(failed + strlen(failed), sizeof failed - strlen(failed),
               "%s%s", failed[0] ? ", " : "",
               np_json_get_string(c, "name", "?"));
  }
  np_udp_checks_add(cs, "far_server_passed", strcmp(st, "passed") == 0,
            "the server's own record: %s%s%s", st, failed[0] ? ", failed: " : "",
            failed);
  if (au->far.has_relay) {
    const char *rb = np_json_get_string(au->far.relay.stop, "stopped_by", "?");
    const char *rs = np_json_get_string(au->far.relay.record, "status", "none");
    np_udp_checks_add(cs, "far_relay_passed",
                      strcmp(rb, "SIGTERM from the agent") == 0 &&
                          strcmp(rs, "passed") == 0,
                      "the relay before the server was stopped by %s after "
                      "the run; its own record: %s", rb, rs);
  }
  struct legs l;
  legs_of(au, res, &l);
  int ok = l.known && l.request_in_network >= 0 && l.at_server_lost >= 0 &&
           l.reply_in_network >= 0;
  if (au->far.has_relay) /* the relay's drops (-) and copies (+) per leg */
    np_udp_checks_add(cs, "far_legs_attributed", ok,
              "whole run: request leg lost %" PRId64 " (far socket %" PRId64
              ", relay -%" PRId64 " +%" PRId64 ", network %" PRId64
              "), at the server %" PRId64 ", reply leg %" PRId64
              " (near sockets %" PRId64 ", relay -%" PRId64 " +%" PRId64
              ", network %" PRId64 ")",
              l.request_lost, l.far_socket_drops, l.relay.request_dropped,
              l.relay.request_duplicated, l.request_in_network,
              l.at_server_lost, l.reply_lost, l.near_socket_drops,
              l.relay.reply_dropped, l.relay.reply_duplicated,
              l.reply_in_network);
  else
    np_udp_checks_add(cs, "far_legs_attributed", ok,
              "whole run: request leg lost %" PRId64 " (far socket %" PRId64
              ", network %" PRId64 "), at the server %" PRId64
              ", reply leg %" PRId64 " (near sockets %" PRId64 ", network %"
              PRId64 ")",
              l.request_lost, l.far_socket_drops, l.request_in_network,
              l.at_server_lost, l.reply_lost, l.near_socket_drops,
              l.reply_in_network);
}

static cJSON *legs_json(const struct legs *l, int relay) {
  cJSON *o = cJSON_CreateObject(), *x;
  if (o == NULL)
    return NULL;
  NUM(o, "sent", l->sent);
  NUM(o, "server_received", l->server_received);
  NUM(o, "server_echoed", l->server_echoed);
  NUM(o, "arrived", l->arrived);
  NUM(o, "received", l->received);
  x = cJSON_AddObjectToObject(o, "unmatched");
  NUM(x, "warmup", l->unmatched_warmup);
  NUM(x, "measurement", l->unmatched_measure);
  x = cJSON_AddObjectToObject(o, "request_leg");
  NUM(x, "lost", l->request_lost);
  NUM(x, "far_socket_drops", l->far_socket_drops);
  if (relay) {
    NUM(x, "relay_dropped", l->relay.request_dropped);
    NUM(x, "relay_duplicated", l->relay.request_duplicated);
  }
  NUM(x, "in_network", l->request_in_network);
  x = cJSON_AddObjectToObject(o, "at_server");
  NUM(x, "lost", l->at_server_lost);
  x = cJSON_AddObjectToObject(o, "reply_leg");
  NUM(x, "lost", l->reply_lost);
  NUM(x, "near_socket_drops", l->near_socket_drops);
  if (relay) {
    NUM(x, "relay_dropped", l->relay.reply_dropped);
    NUM(x, "relay_duplicated", l->relay.reply_duplicated);
  }
  NUM(x, "in_network", l->reply_in_network);
  cJSON_AddStringToObject(
      o, "rule",
      "over the whole run (warm-up and measurement with their drains) "
      "against the server's whole life, which encloses it: sent and "
      "arrived (replies our client sockets read: received + unmatched, the "
      "duplicates and stale ones per phase) from this host's counters, server_received and server_echoed "
      "from the server's record; request_leg.lost = sent - server_received, "
      "of which far_socket_drops = the server sockets' drops (its record); "
      "at_server.lost = server_received - server_echoed; reply_leg.lost = "
      "server_echoed - arrived, of which near_socket_drops = our client "
      "sockets' drops since they were opened (SO_MEMINFO); in_network = "
      "the rest of a leg (on neither host's socket: the network between, or "
      "a reply that came after our sockets closed); with --agent-relay "
      "each leg's relay_dropped and relay_duplicated are the far relay's "
      "(its record's relay.totals c2s / s2c: lost_burst + lost_ge + "
      "lost_random + overflow + dropped_at_stop, and duplicated), and "
      "in_network = lost - the socket's drops - relay_dropped + "
      "relay_duplicated");
  return o;
}

static cJSON *kernel_json(const struct np_agent_udp *au) {
  if (au->kernel[0] == NULL || au->kernel[1] == NULL)
    return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddItemToObject(o, "before", np_kernel_to_json(au->kernel[0]));
  cJSON_AddItemToObject(o, "after", np_kernel_to_json(au->kernel[1]));
  cJSON_AddItemToObject(o, "delta",
                        np_kernel_delta_json(au->kernel[0], au->kernel[1]));
  return o;
}

static cJSON *server_json(const struct np_agent_udp *au) {
  return np_agent_far_service_json(au->far.service_id, au->far.start, au->far.stop,
                                   au->far.listening, au->far.record);
}

int np_agent_udp_record(const struct np_agent_udp *au,
                        const struct np_udp_result *res, cJSON *doc,
                        struct np_errbuf *eb) {
  cJSON *f = cJSON_CreateObject(), *x;
  if (f == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  /* the "need" list below says what failed */
  (void)np_agent_far_head(f, &au->far, au->cfg->agent);
  cJSON_AddItemToObject(f, "kernel", kernel_json(au));
  x = cJSON_AddArrayToObject(f, "snapshots");
  for (int i = 0; x && i < au->nsnaps; i++) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "at", au->snap_at[i]);
    NUM(s, "rtt_us", au->snap_rtt_us[i]);
    cJSON_AddItemToArray(x, s);
  }
  cJSON_AddItemToObject(f, "server", server_json(au));
  struct legs l;
  legs_of(au, res, &l);
  cJSON_AddItemToObject(f, "legs", legs_json(&l, au->far.has_relay));
  if (au->far.has_relay &&
      !cJSON_AddItemToObject(f, "relay", np_agent_udp_relay_json(&au->far.relay))) {
    cJSON_Delete(f);
    return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory (far.relay)");
  }
  cJSON_AddStringToObject(
      f, "rule",
      "the far host's side of the run as its agent saw it: its identity, "
      "kernel counters at the same two moments as this record's kernel "
      "snapshots (the agent's reading follows ours by the snapshot "
      "request's round trip), the echo server it started for this run and "
      "that server's own record; the server socket's drops over the "
      "measured window are in external.attribution");
  static const char *const need[] = {"agent",  "session", "tool",  "machine",
                                     "stacks", "clock",   "kernel", "snapshots",
                                     "server", "legs",    "rule"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (cJSON_GetObjectItemCaseSensitive(f, need[i]) == NULL) {
      cJSON_Delete(f);
      return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory (far.%s)",
                           need[i]);
    }
  cJSON_AddItemToObject(doc, "far", f);
  return 0;
}

void np_agent_udp_text(const struct np_agent_udp *au, char *buf, size_t len) {
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(au->far.identify, "stack");
  snprintf(buf, len, "%s (%s) serve pid %.0f: received %.0f, echoed %.0f",
           np_json_get_string(st, "hostname", "?"),
           np_json_get_string(st, "netns", "?"),
           np_json_get_number(au->far.start, "pid", 0),
           rec_num(au->far.record, "/serve/counters/received"),
           rec_num(au->far.record, "/serve/counters/echoed"));
  if (au->far.has_relay) {
    size_t n = strlen(buf);
    if (n + 2 < len) {
      snprintf(buf + n, len - n, "; ");
      np_agent_udp_relay_text(&au->far.relay, buf + n + 2, len - n - 2);
    }
  }
}

void np_agent_udp_free(struct np_agent_udp *au) {
  if (au == NULL)
    return;
  np_agent_far_clear(&au->far);
  np_kernel_free(au->kernel[0]);
  np_kernel_free(au->kernel[1]);
  free(au);
}
