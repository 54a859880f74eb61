/*
 * np_results_check_far.c - the self-check's rules for two-host
 * records (see np_results_far.h), and the one call the set's engine makes
 * (np_chk__far_record).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_results_check_int.h"
#include "np_results_far.h"
#include "np_time.h"

struct far {
  const cJSON *d;       /* the record          */
  const cJSON *f;       /* its far part        */
  np_results_far_fn fn; /* the engine's report */
  void *ctx;
  size_t problems;
};

static void problem(struct far *x, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(struct far *x, const char *ptr, const char *fmt, ...) {
  char reason[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  x->problems++;
  if (x->fn)
    x->fn(x->ctx, ptr, reason);
}

static double num(const cJSON *d, const char *ptr) {
  return np_results_num(d, ptr);
}

/* The verdict of check name in d's checks[], or -1 when absent. */
static int verdict(const cJSON *d, const char *name) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
    if (strcmp(np_json_get_string(c, "name", ""), name) == 0)
      return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed"));
  }
  return -1;
}

static void want_verdict(struct far *x, const char *name, int should) {
  int v = verdict(x->d, name);
  if (v < 0)
    problem(x, "/checks", "no %s check in a two-host record", name);
  else if (v != should)
    problem(x, "/checks", "%s says %s, but the far part makes it %s", name,
            v ? "passed" : "failed", should ? "passed" : "failed");
}

static int same_str(const cJSON *a, const char *ka, const cJSON *b,
                    const char *kb) {
  const char *x = np_json_get_string(a, ka, NULL),
             *y = np_json_get_string(b, kb, NULL);
  return x != NULL && y != NULL && strcmp(x, y) == 0;
}

/* Two identities, each tied to its stack; one stack or two. */
static void identities(struct far *x) {
  const cJSON *near = np_json_pointer(x->f, "/stacks/near"),
              *farst = np_json_pointer(x->f, "/stacks/far");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(x->d, "machine"),
              *fm = cJSON_GetObjectItemCaseSensitive(x->f, "machine");
  if (!cJSON_IsObject(m) || !cJSON_IsObject(fm))
    problem(x, "/far/machine",
            "a two-host record holds two machine identities (machine and "
            "far.machine)");
  if (np_json_get_string(m, "hostname", NULL) &&
      np_json_get_string(near, "hostname", NULL) &&
      !same_str(m, "hostname", near, "hostname"))
    problem(x, "/far/stacks/near/hostname",
            "%s, but machine.hostname is %s",
            np_json_get_string(near, "hostname", ""),
            np_json_get_string(m, "hostname", ""));
  if (np_json_get_string(fm, "hostname", NULL) &&
      np_json_get_string(farst, "hostname", NULL) &&
      !same_str(fm, "hostname", farst, "hostname"))
    problem(x, "/far/stacks/far/hostname",
            "%s, but far.machine.hostname is %s",
            np_json_get_string(farst, "hostname", ""),
            np_json_get_string(fm, "hostname", ""));
  int one = same_str(near, "boot_id", farst, "boot_id") &&
            same_str(near, "netns", farst, "netns");
  want_verdict(x, "far_two_stacks", !one);
}

static void kernel_delta(struct far *x) {
  const cJSON *b = np_json_pointer(x->f, "/kernel/before/counters"),
              *a = np_json_pointer(x->f, "/kernel/after/counters"), *e;
  cJSON_ArrayForEach(e, np_json_pointer(x->f, "/kernel/delta")) {
    const cJSON *vb = cJSON_GetObjectItemCaseSensitive(b, e->string),
                *va = cJSON_GetObjectItemCaseSensitive(a, e->string);
    char ptr[256];
    snprintf(ptr, sizeof ptr, "/far/kernel/delta/%s", e->string);
    if (!cJSON_IsNumber(vb) || !cJSON_IsNumber(va))
      problem(x, ptr, "not in both far snapshots");
    else if (e->valuedouble != va->valuedouble - vb->valuedouble)
      problem(x, ptr, "%.0f, but after - before is %.0f", e->valuedouble,
              va->valuedouble - vb->valuedouble);
  }
}

/* The fields that name a machine, compared between far.machine and the
 * server record's, and the build between far.tool and its tool. */
static void same_host_build(struct far *x, const cJSON *rec) {
  static const char *const keys[] = {"hostname", "cpu_model",
                                     "logical_cores", "mem_total_bytes",
                                     "kernel_release", "os_pretty_name"};
  const cJSON *fm = cJSON_GetObjectItemCaseSensitive(x->f, "machine"),
              *rm = cJSON_GetObjectItemCaseSensitive(rec, "machine");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(fm, keys[i]),
                *b = cJSON_GetObjectItemCaseSensitive(rm, keys[i]);
    if (a && b && !cJSON_Compare(a, b, 1)) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/far/server/record/machine/%s", keys[i]);
      problem(x, ptr, "differs from far.machine's: the server ran on "
                      "another machine than the agent");
    }
  }
  static const char *const hashes[] = {"source_sha256", "binary_sha256"};
  for (size_t i = 0; i < 2; i++) {
    const cJSON *ft = cJSON_GetObjectItemCaseSensitive(x->f, "tool"),
                *rt = cJSON_GetObjectItemCaseSensitive(rec, "tool");
    if (!same_str(ft, hashes[i], rt, hashes[i])) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/far/server/record/tool/%s", hashes[i]);
      problem(x, ptr, "differs from far.tool's: the server is not the "
                      "agent's build");
    }
  }
}

static void server_record(struct far *x, const cJSON *rec) {
  if (strcmp(np_json_get_string(np_json_pointer(rec, "/config"), "protocol",
                                ""),
             "serve") != 0)
    problem(x, "/far/server/record/config/protocol",
            "the far server's record is not a serve record");
  const char *lis = np_json_get_string(np_json_pointer(x->f, "/server"),
                                       "listening", "");
  if (!same_str(cJSON_GetObjectItemCaseSensitive(rec, "serve"), "listening",
                np_json_pointer(x->f, "/server"), "listening"))
    problem(x, "/far/server/record/serve/listening",
            "%s, but far.server.listening is %s",
            np_json_get_string(cJSON_GetObjectItemCaseSensitive(rec, "serve"),
                               "listening", "?"),
            lis);
  same_host_build(x, rec);
  const char *by = np_json_get_string(np_json_pointer(x->f, "/server"),
                                      "stopped_by", "");
  const char *rby = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(rec, "serve"), "stopped_by", "");
  want_verdict(x, "far_server_served_run",
               strcmp(by, "SIGTERM from the agent") == 0 &&
                   strcmp(rby, "SIGTERM") == 0);
  want_verdict(x, "far_server_passed",
               strcmp(np_json_get_string(rec, "status", ""), "passed") == 0);
}

/* One leg value: have (in the record) against want (re-derived). */
static void leg(struct far *x, const char *ptr, double want, const char *how) {
  double have = num(x->d, ptr);
  if (!(have == want))
    problem(x, ptr, "%.0f, but %s gives %.0f", have, how, want);
}

/* What the far relay (udp --agent --agent-relay) did to one direction of
 * its record's relay.totals: dropped (lost_burst + lost_ge + lost_random
 * + overflow + dropped_at_stop) and duplicated; NAN when not there. */
static void relay_leg(const cJSON *relay, const char *dir, double *dropped,
                      double *duplicated) {
  static const char *const keys[] = {"lost_burst", "lost_ge", "lost_random",
                                     "overflow", "dropped_at_stop"};
  char ptr[64];
  *dropped = 0;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    snprintf(ptr, sizeof ptr, "/relay/totals/%s/%s", dir, keys[i]);
    *dropped += num(relay, ptr);
  }
  snprintf(ptr, sizeof ptr, "/relay/totals/%s/duplicated", dir);
  *duplicated = num(relay, ptr);
}

/* The relay's share of one leg: re-derived from its record, or absent
 * (0) when the run had no far relay. */
static void relay_share(struct far *x, const char *leg_name, const char *dir,
                        double *dropped, double *duplicated) {
  const cJSON *relay = np_json_pointer(x->f, "/relay/record");
  char ptr[96];
  snprintf(ptr, sizeof ptr, "/far/legs/%s/relay_dropped", leg_name);
  if (cJSON_GetObjectItemCaseSensitive(x->f, "relay") == NULL) {
    *dropped = *duplicated = 0;
    if (np_json_pointer(x->d, ptr) != NULL)
      problem(x, ptr, "a relay's share of the leg, but the far part has no "
                      "relay (far.relay)");
    return;
  }
  relay_leg(relay, dir, dropped, duplicated);
  char how[96];
  snprintf(how, sizeof how, "the far relay record's totals.%s drops", dir);
  leg(x, ptr, *dropped, how);
  snprintf(ptr, sizeof ptr, "/far/legs/%s/relay_duplicated", leg_name);
  snprintf(how, sizeof how, "the far relay record's totals.%s.duplicated",
           dir);
  leg(x, ptr, *duplicated, how);
}

/* The relay in front of the far server: a relay record, forwarding to
 * that server, stopped by the agent after the run. */
static void relay_record(struct far *x, int verdicts) {
  const cJSON *fr = cJSON_GetObjectItemCaseSensitive(x->f, "relay");
  if (fr == NULL)
    return;
  const cJSON *rec = cJSON_GetObjectItemCaseSensitive(fr, "record");
  if (!cJSON_IsObject(rec)) {
    problem(x, "/far/relay/record", "no relay record: the far relay's "
                                    "counters cannot be checked");
    if (verdicts)
      want_verdict(x, "far_relay_passed", 0);
    return;
  }
  const cJSON *rc = cJSON_GetObjectItemCaseSensitive(rec, "config");
  if (!np_kind_is(np_json_get_string(rc, "protocol", ""), NP_KIND_RELAY))
    problem(x, "/far/relay/record/config/protocol",
            "the far relay's record is not a relay record");
  if (!same_str(rc, "forward", np_json_pointer(x->f, "/server"), "listening"))
    problem(x, "/far/relay/record/config/forward",
            "%s, but the far server listened on %s",
            np_json_get_string(rc, "forward", "?"),
            np_json_get_string(np_json_pointer(x->f, "/server"), "listening",
                               "?"));
  if (verdicts)
    want_verdict(x, "far_relay_passed",
               strcmp(np_json_get_string(fr, "stopped_by", ""),
                      "SIGTERM from the agent") == 0 &&
                   strcmp(np_json_get_string(rec, "status", ""), "passed") ==
                       0);
}

static void legs(struct far *x, const cJSON *rec) {
  double sent = num(x->d, "/warmup/counters/sent") +
                num(x->d, "/counters/sent"),
         recv = num(x->d, "/warmup/counters/received") +
                num(x->d, "/counters/received"),
         um_w = num(x->d, "/far/legs/unmatched/warmup"),
         um_m = num(x->d, "/far/legs/unmatched/measurement"),
         sr = num(rec, "/serve/counters/received"),
         se = num(rec, "/serve/counters/echoed"), fdrops = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, np_json_pointer(rec, "/serve/sockets"))
      fdrops += np_json_get_number(s, "drops", 0);
  leg(x, "/far/legs/sent", sent, "warmup + measurement sent");
  leg(x, "/far/legs/received", recv, "warmup + measurement received");
  leg(x, "/far/legs/unmatched/measurement",
      num(x->d, "/external/replies/duplicates") +
          num(x->d, "/external/replies/stale"),
      "external.replies duplicates + stale");
  if (!(um_w <= num(x->d, "/warmup/counters/sequence_errors")))
    problem(x, "/far/legs/unmatched/warmup",
            "%.0f, more than the warm-up's sequence errors %.0f", um_w,
            num(x->d, "/warmup/counters/sequence_errors"));
  /* late replies arrived too (counters.late, absent before 0.3.0) */
  double late = np_json_get_number(
                    cJSON_GetObjectItemCaseSensitive(x->d, "counters"),
                    "late", 0) +
                np_json_get_number(np_json_pointer(x->d, "/warmup/counters"),
                                   "late", 0);
  double arrived = recv + um_w + um_m + late;
  leg(x, "/far/legs/arrived", arrived, "received + unmatched + late");
  leg(x, "/far/legs/server_received", sr, "the server record's received");
  leg(x, "/far/legs/server_echoed", se, "the server record's echoed");
  leg(x, "/far/legs/request_leg/far_socket_drops", fdrops,
      "the server record's socket drops");
  leg(x, "/far/legs/request_leg/lost", sent - sr, "sent - server_received");
  double qd, qu, pd, pu; /* the relay's drops and copies, per leg */
  relay_share(x, "request_leg", "c2s", &qd, &qu);
  relay_share(x, "reply_leg", "s2c", &pd, &pu);
  double qin = sent - sr - fdrops - qd + qu;
  leg(x, "/far/legs/request_leg/in_network", qin,
      "lost - far_socket_drops - relay_dropped + relay_duplicated");
  leg(x, "/far/legs/at_server/lost", sr - se, "server_received - echoed");
  double nd = num(x->d, "/far/legs/reply_leg/near_socket_drops");
  if (!(nd >= num(x->d, "/sockets/client_drops")))
    problem(x, "/far/legs/reply_leg/near_socket_drops",
            "%.0f since the sockets opened, fewer than the %.0f of the "
            "measured window (sockets.client_drops)",
            nd, num(x->d, "/sockets/client_drops"));
  leg(x, "/far/legs/reply_leg/lost", se - arrived, "server_echoed - arrived");
  double pin = se - arrived - nd - pd + pu;
  leg(x, "/far/legs/reply_leg/in_network", pin,
      "lost - near_socket_drops - relay_dropped + relay_duplicated");
  want_verdict(x, "far_legs_attributed", qin >= 0 && sr - se >= 0 && pin >= 0);
}

/* The attribution's server sockets are the far server's. */
static void attribution(struct far *x) {
  const char *lis = np_json_get_string(np_json_pointer(x->f, "/server"),
                                       "listening", "");
  const cJSON *s;
  int i = 0;
  cJSON_ArrayForEach(s, np_json_pointer(x->d, "/external/server/sockets")) {
    const char *local = np_json_get_string(s, "local", "");
    const char *lp = strrchr(local, ':'), *pp = strrchr(lis, ':');
    if (lp == NULL || pp == NULL || strcmp(lp, pp) != 0) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/external/server/sockets/%d/local", i);
      problem(x, ptr, "%s is not on the far server's port (%s)", local, lis);
    }
    i++;
  }
}

static int64_t ms_of(const char *t) {
  int64_t ms = 0;
  return t && np_time_parse(t, &ms) == 0 ? ms : INT64_MIN;
}

/* The far server's life and snapshots on this host's clock enclose the
 * run, within the clocks' error. */
static void clocks(struct far *x, const cJSON *rec) {
  double o0 = num(x->f, "/clock/start/offset_us") / 1000.0,
         o1 = num(x->f, "/clock/end/offset_us") / 1000.0,
         r0 = num(x->f, "/clock/start/rtt_max_us"),
         r1 = num(x->f, "/clock/end/rtt_max_us");
  if (!isfinite(o0) || !isfinite(o1) || !(r0 >= 0) || !(r1 >= 0)) {
    problem(x, "/far/clock", "no usable offset and round trip");
    return;
  }
  double tol = fmax(r0, r1) / 2000.0 + 2.0; /* ms: half a round trip, +2 ms
                                               of timestamp rounding */
  int64_t st = ms_of(np_json_get_string(x->d, "started_at", NULL)),
          en = ms_of(np_json_get_string(x->d, "ended_at", NULL)),
          ss = ms_of(np_json_get_string(rec, "started_at", NULL)),
          se = ms_of(np_json_get_string(rec, "ended_at", NULL));
  if (st != INT64_MIN && ss != INT64_MIN && (double)(ss - st) - o0 > tol)
    problem(x, "/far/server/record/started_at",
            "the server started %.1f ms after this run did (on this host's "
            "clock, offset %.3f ms): it did not serve all of it",
            (double)(ss - st) - o0, o0);
  if (en != INT64_MIN && se != INT64_MIN && (double)(en - se) + o1 > tol)
    problem(x, "/far/server/record/ended_at",
            "the server ended %.1f ms before this run did (on this host's "
            "clock, offset %.3f ms)",
            (double)(en - se) + o1, o1);
  const cJSON *s;
  int i = 0;
  int64_t prev = INT64_MIN;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(x->f, "snapshots")) {
    int64_t at = ms_of(np_json_get_string(s, "at", NULL));
    double off = i == 0 ? o0 : o1;
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/far/snapshots/%d/at", i);
    if (at != INT64_MIN && st != INT64_MIN && en != INT64_MIN &&
        ((double)(at - st) - off < -tol || (double)(at - en) - off > tol))
      problem(x, ptr, "outside this run (started_at .. ended_at) on this "
                      "host's clock");
    if (at != INT64_MIN && prev != INT64_MIN && at < prev)
      problem(x, ptr, "before the previous snapshot");
    prev = at;
    i++;
  }
}

/* 1 when the record's tool version is major.minor or later. */
static int version_at_least(const cJSON *d, int major, int minor) {
  int ma = 0, mi = 0;
  const char *v = np_json_get_string(np_json_pointer(d, "/tool"), "version",
                                     "");
  if (sscanf(v, "%d.%d", &ma, &mi) != 2)
    return 0;
  return ma > major || (ma == major && mi >= minor);
}

/* The control channel the far part came over: from 0.3 on, TLS 1.3 over
 * the token's PSK (netproof/agent/2), named with its suite and key id,
 * to the address config.agent names. */
static void channel(struct far *x) {
  const cJSON *ag = cJSON_GetObjectItemCaseSensitive(x->f, "agent");
  if (!cJSON_IsObject(ag)) {
    if (version_at_least(x->d, 0, 3))
      problem(x, "/far/agent",
              "a 0.3 record names its control channel (protocol, cipher, "
              "key_id): this one has %s",
              cJSON_IsString(ag) ? "the address only (a 0.2 channel)"
                                 : "none");
    return;
  }
  const char *proto = np_json_get_string(ag, "protocol", ""),
             *cipher = np_json_get_string(ag, "cipher", ""),
             *kid = np_json_get_string(ag, "key_id", "");
  if (strcmp(proto, "netproof/agent/2") != 0)
    problem(x, "/far/agent/protocol", "'%.40s' is not netproof/agent/2",
            proto);
  if (strcmp(cipher, "TLS_AES_128_GCM_SHA256") != 0 &&
      strcmp(cipher, "TLS_CHACHA20_POLY1305_SHA256") != 0)
    problem(x, "/far/agent/cipher",
            "'%.60s' is not a TLS 1.3 suite the agent offers", cipher);
  size_t n = strspn(kid, "0123456789abcdef");
  if (strlen(kid) != 16 || n != 16)
    problem(x, "/far/agent/key_id", "not 16 lowercase hex digits");
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(x->d, "config");
  if (!same_str(ag, "address", cfg, "agent"))
    problem(x, "/far/agent/address",
            "'%.80s' is not the agent config.agent names ('%.80s')",
            np_json_get_string(ag, "address", ""),
            np_json_get_string(cfg, "agent", ""));
}

/* rudp --agent (np_agent_rudp.h): have == want, both read from the
 * record (what == how want is derived). */
static void same_count(struct far *x, const char *ptr, double want,
                       const char *how) {
  double have = num(x->d, ptr);
  if (!(have == want))
    problem(x, ptr, "%.0f, but %s is %.0f", have, how, want);
}

/* The far endpoint's transport is this run's: the same rows parsed. */
static void rudp_same_transport(struct far *x, const cJSON *rec) {
  static const char *const keys[] = {"payload", "clients", "window", "seed",
                                     "fec",     "cc",      "delivery"};
  const cJSON *mine = cJSON_GetObjectItemCaseSensitive(x->d, "config"),
              *its = cJSON_GetObjectItemCaseSensitive(rec, "config");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(mine, keys[i]),
                *b = cJSON_GetObjectItemCaseSensitive(its, keys[i]);
    if (!a || !b || !cJSON_Compare(a, b, 1)) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/far/server/record/config/%s", keys[i]);
      problem(x, ptr, "not this run's config.%s: the far endpoint spoke "
                      "another transport", keys[i]);
    }
  }
}

/* The round's counts hold the far endpoint's, which its record states. */
static void rudp_counts(struct far *x, const cJSON *rec) {
  const cJSON *rounds = np_json_pointer(x->d, "/rudp/rounds");
  if (cJSON_GetArraySize(rounds) != 1) {
    problem(x, "/rudp/rounds", "rudp --agent runs one round, not %d",
            cJSON_GetArraySize(rounds));
    return;
  }
  same_count(x, "/rudp/rounds/0/counters/server_received",
             num(rec, "/rudp_serve/counters/received"),
             "the far endpoint's record's received");
  same_count(x, "/rudp/rounds/0/counters/server_replied",
             num(rec, "/rudp_serve/counters/echoed"),
             "the far endpoint's record's echoed");
  same_count(x, "/rudp/rounds/0/connections/total",
             num(x->d, "/config/clients") +
                 num(rec, "/rudp_serve/connections/total"),
             "config.clients + the far endpoint's connections");
  static const char *const at_least[][2] = {
      {"/rudp/rounds/0/counters/content_errors",
       "/rudp_serve/counters/content_errors"},
      {"/rudp/rounds/0/counters/sequence_errors",
       "/rudp_serve/counters/sequence_errors"},
      {"/rudp/rounds/0/counters/send_errors",
       "/rudp_serve/counters/send_errors"},
      {"/rudp/rounds/0/connections/failed", "/rudp_serve/connections/failed"},
      {"/rudp/rounds/0/connections/unacknowledged",
       "/rudp_serve/connections/unacknowledged"}};
  for (size_t i = 0; i < sizeof at_least / sizeof at_least[0]; i++) {
    double have = num(x->d, at_least[i][0]), far = num(rec, at_least[i][1]);
    if (!(have >= far))
      problem(x, at_least[i][0], "%.0f, fewer than the far endpoint's %.0f",
              have, far);
  }
  double closed = num(x->d, "/rudp/rounds/0/connections/closed"),
         fclosed = num(rec, "/rudp_serve/connections/closed");
  if (!(closed >= fclosed && closed - fclosed <= num(x->d, "/config/clients")))
    problem(x, "/rudp/rounds/0/connections/closed",
            "%.0f: not the far endpoint's %.0f plus at most config.clients",
            closed, fclosed);
}

/* With --agent-relay: the relay forwards only to the endpoint, both on
 * the far host, so what it forwarded the endpoint's socket read or
 * dropped. */
static void rudp_relay(struct far *x, const cJSON *rec) {
  relay_record(x, 0);
  const cJSON *rel = np_json_pointer(x->f, "/relay/record");
  if (!cJSON_IsObject(rel))
    return;
  double fwd = num(rel, "/relay/totals/c2s/forwarded"),
         got = num(rec, "/rudp_serve/io/recv_datagrams") +
               num(rec, "/sockets/kernel_drops");
  if (!(fwd == got))
    problem(x, "/far/relay/record/relay/totals/c2s/forwarded",
            "%.0f, but the far endpoint's socket read %.0f and dropped %.0f",
            fwd, num(rec, "/rudp_serve/io/recv_datagrams"),
            num(rec, "/sockets/kernel_drops"));
}

/* rudp --agent's far part: the endpoint's record (a rudp-serve record of
 * the agent's machine and build, where far.server says, this run's
 * transport, stopped by the agent after the run, its status its checks'),
 * the counts the round carries, the relay, the clocks. */
static void rudp_far(struct far *x) {
  const cJSON *rec = np_json_pointer(x->f, "/server/record");
  if (!cJSON_IsObject(rec)) {
    problem(x, "/far/server/record", "no server endpoint record: the far "
                                     "host's counts cannot be checked");
    return;
  }
  if (!np_kind_is(np_json_get_string(np_json_pointer(rec, "/config"),
                                     "protocol", ""),
                  NP_KIND_RUDP_SERVE))
    problem(x, "/far/server/record/config/protocol",
            "the far endpoint's record is not a rudp-serve record");
  if (!same_str(np_json_pointer(rec, "/rudp_serve"), "listening",
                np_json_pointer(x->f, "/server"), "listening"))
    problem(x, "/far/server/record/rudp_serve/listening",
            "not far.server.listening");
  same_host_build(x, rec);
  rudp_same_transport(x, rec);
  if (strcmp(np_json_get_string(np_json_pointer(x->f, "/server"),
                                "stopped_by", ""),
             "SIGTERM from the agent") != 0 ||
      strcmp(np_json_get_string(np_json_pointer(rec, "/rudp_serve"),
                                "stopped_by", ""), "SIGTERM") != 0)
    problem(x, "/far/server/stopped_by",
            "the far endpoint was not stopped by the agent after the run: "
            "it did not serve all of it");
  int all = 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rec, "checks"))
      all &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed"));
  if (strcmp(np_json_get_string(rec, "status", ""),
             all ? "passed" : "failed") != 0)
    problem(x, "/far/server/record/status", "not what its checks give (%s)",
            all ? "passed" : "failed");
  rudp_counts(x, rec);
  rudp_relay(x, rec);
  clocks(x, rec);
}

size_t np_results_far_check(const cJSON *d, np_results_far_fn fn, void *ctx) {
  struct far x = {.d = d, .f = cJSON_GetObjectItemCaseSensitive(d, "far"),
                  .fn = fn, .ctx = ctx};
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
  const char *proto = np_json_get_string(cfg, "protocol", "");
  int rudp = np_kind_is(proto, NP_KIND_RUDP);
  if (x.f == NULL) {
    /* udp --agent and rudp --agent write their far part or no record */
    if ((rudp || np_kind_is(proto, NP_KIND_UDP_EXTERNAL)) &&
        cJSON_GetObjectItemCaseSensitive(cfg, "agent") != NULL)
      problem(&x, "/far", "a %s --agent record (config.agent) without its "
                          "far part: the far host's evidence is missing",
              rudp ? "rudp" : "udp");
    return x.problems;
  }
  if ((!rudp && !np_kind_is(proto, NP_KIND_UDP_EXTERNAL)) ||
      np_json_get_string(cfg, "agent", NULL) == NULL) {
    problem(&x, "/far", "only udp --agent and rudp --agent records (with "
                        "config.agent) have a far part");
    return x.problems;
  }
  channel(&x);
  if (rudp) {
    rudp_far(&x);
    return x.problems;
  }
  identities(&x);
  kernel_delta(&x);
  const cJSON *rec = np_json_pointer(x.f, "/server/record");
  if (!cJSON_IsObject(rec)) {
    problem(&x, "/far/server/record", "no server record: the far host's "
                                      "counters cannot be checked");
    want_verdict(&x, "far_server_passed", 0);
    return x.problems;
  }
  server_record(&x, rec);
  relay_record(&x, 1);
  legs(&x, rec);
  attribution(&x);
  clocks(&x, rec);
  return x.problems;
}

/* ---- the engine's call ---- */

struct trampoline {
  struct np_results_check *c; /* the set's check */
  const char *file;           /* the record      */
};

static void report(void *ctx, const char *ptr, const char *reason) {
  struct trampoline *t = ctx;
  np_chk__problem(t->c, t->file, ptr, "%s", reason);
}

void np_chk__far_record(const struct np_chk_rec *r) {
  struct trampoline t = {.c = r->c, .file = r->file};
  np_results_far_check(r->doc, report, &t);
}
