/*
 * np_agent_rudp.c - rudp --agent: the far server endpoint (and relay)
 * through the agent, its counts folded into the round, the "far" record
 * section (see np_agent_rudp.h).  Built into np_rudp (the cross-host path
 * of `rudp`), on np_agent_link's client.
 */
#include "np_agent_rudp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_agent_client.h"
#include "np_agent_udp_relay.h"
#include "np_json.h"
#include "np_rudp_options.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

struct np_agent_rudp {
  struct np_rudp_config *cfg;
  struct np_agent_far far; /* session, rudp-serve, --agent-relay's relay */
};

/* The far end's options: every transport option of the command line
 * that rudp-serve has too (the same rows: the same meaning) but the
 * clients' loops (--io-model, --io-threads: the endpoint runs on one),
 * its seed, where to listen. */
static cJSON *serve_args(const struct np_rudp_config *cfg, int argc,
                         char **argv, const char *listen, double lifetime) {
  cJSON *a = cJSON_CreateObject(), *o;
  char seed[32], name[64];
  if (a == NULL)
    return NULL;
  cJSON_AddStringToObject(a, "service", "rudp-serve");
  o = cJSON_AddObjectToObject(a, "options");
  cJSON_AddStringToObject(o, "listen", listen);
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)cfg->seed);
  cJSON_AddStringToObject(o, "seed", seed);
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--", 2) != 0)
      continue;
    const char *eq = strchr(argv[i], '=');
    size_t n = eq ? (size_t)(eq - argv[i] - 2) : strlen(argv[i] + 2);
    snprintf(name, sizeof name, "%.*s", (int)n, argv[i] + 2);
    int mine = np_bench_opt_find(&np_rudp_optset, name);
    if (mine < 0)
      continue;
    const struct np_bench_opt *row =
        np_bench_opt_at(&np_rudp_optset, (size_t)mine, NULL);
    int flag = row->type == NP_BENCH_OPT_FLAG;
    const char *val = eq ? eq + 1 : (!flag && i + 1 < argc ? argv[++i] : "");
    if (np_bench_opt_find(&np_rudp_serve_optset, name) < 0 ||
        strcmp(name, "seed") == 0 || strncmp(name, "io-", 3) == 0 ||
        (row->flags & NP_BENCH_OPT_NOPLAN))
      continue; /* the clients' own (their lanes, rounds, timing, output) */
    cJSON_DeleteItemFromObjectCaseSensitive(o, name); /* the last wins */
    if (flag)
      cJSON_AddBoolToObject(o, name, 1);
    else
      cJSON_AddStringToObject(o, name, val);
  }
  NUM(a, "lifetime_seconds", lifetime);
  return a;
}

/* "HOST:0" (or "[HOST]:0") on the agent's own address. */
static int listen_text(const char *agent, char *buf, size_t len,
                       struct np_errbuf *eb) {
  struct np_addr a;
  char host[80];
  if (np_addr_parse("--agent", agent, 0, &a, eb) != 0)
    return NP_EUSAGE;
  np_addr_host(&a, host, sizeof host);
  snprintf(buf, len, np_addr_family(&a) == AF_INET6 ? "[%s]:0" : "%s:0", host);
  return 0;
}

int np_agent_rudp_begin(struct np_rudp_config *cfg, int argc, char **argv,
                        struct np_agent_rudp **out, struct np_errbuf *eb) {
  char listen[96];
  if (listen_text(cfg->agent, listen, sizeof listen, eb) != 0)
    return NP_EUSAGE;
  struct np_agent_rudp *ar = calloc(1, sizeof *ar);
  if (ar == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  ar->cfg = cfg;
  /* the round, its drain and close bounds (3 s each) and the calls */
  double lifetime = cfg->warmup + cfg->seconds + 20.0;
  cJSON *args = NULL;
  int rc = np_agent_far_open(&ar->far, cfg->agent, cfg->token_file, "rudp", eb);
  if (rc)
    goto fail;
  if ((args = serve_args(cfg, argc, argv, listen, lifetime)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto fail;
  }
  if ((rc = np_agent_far_start(&ar->far, args, eb)) != 0)
    goto fail;
  const struct np_addr *to = &ar->far.at;
  cfg->connect = ar->far.listening;
  if (cfg->agent_relay) {
    if ((rc = np_agent_udp_relay_start(ar->far.client, cfg->agent_relay, listen,
                                       ar->far.listening, lifetime,
                                       &ar->far.relay, eb)) != 0)
      goto fail;
    ar->far.has_relay = 1;
    to = &ar->far.relay.at;
    cfg->connect = ar->far.relay.listening;
  }
  memcpy(&cfg->connect_addr, &to->ss, sizeof cfg->connect_addr);
  *out = ar;
  return 0;
fail:
  np_agent_rudp_free(ar);
  return rc;
}

int np_agent_rudp_end(struct np_agent_rudp *ar, struct np_errbuf *eb) {
  return np_agent_far_end(&ar->far, eb);
}

static int count(const cJSON *doc, const char *ptr, uint64_t *out) {
  const cJSON *v = np_json_pointer(doc, ptr);
  if (!cJSON_IsNumber(v) || v->valuedouble < 0)
    return NP_EPARSE;
  *out = (uint64_t)v->valuedouble;
  return 0;
}

int np_agent_rudp_fold(const struct np_agent_rudp *ar, struct np_rudp_round *r,
                       int unordered, struct np_errbuf *eb) {
  static const char *const ptr[] = {"/rudp_serve/counters/received",
                                    "/rudp_serve/counters/echoed",
                                    "/rudp_serve/counters/content_errors",
                                    "/rudp_serve/counters/sequence_errors",
                                    "/rudp_serve/counters/send_errors",
                                    "/rudp_serve/connections/total",
                                    "/rudp_serve/connections/closed",
                                    "/rudp_serve/connections/failed",
                                    "/rudp_serve/connections/unacknowledged"};
  uint64_t v[sizeof ptr / sizeof ptr[0]];
  for (size_t i = 0; i < sizeof ptr / sizeof ptr[0]; i++)
    if (count(ar->far.record, ptr[i], &v[i]) != 0)
      return np_errbuf_set(eb, NP_EPARSE,
                           "agent %s: the server endpoint's record has no "
                           "%s",
                           ar->cfg->agent, ptr[i]);
  r->total.server_received += v[0];
  r->total.server_replied += v[1];
  r->total.content_errors += v[2];
  r->total.sequence_errors += v[3];
  r->total.send_errors += v[4];
  r->conns += (uint32_t)v[5];
  r->conns_closed += (uint32_t)v[6];
  r->conns_failed += (uint32_t)v[7];
  r->conns_unacked += (uint32_t)v[8];
  np_rudp_round_checks(r, unordered);
  return 0;
}

int np_agent_rudp_record(const struct np_agent_rudp *ar, cJSON *doc,
                         struct np_errbuf *eb) {
  const struct np_agent_far *far = &ar->far;
  cJSON *f = cJSON_CreateObject();
  if (f == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  /* the "need" list below says what failed */
  (void)np_agent_far_head(f, far, ar->cfg->agent);
  cJSON_AddItemToObject(f, "server",
                        np_agent_far_service_json(far->service_id, far->start,
                                                  far->stop, far->listening,
                                                  far->record));
  if (far->has_relay)
    cJSON_AddItemToObject(f, "relay", np_agent_udp_relay_json(&far->relay));
  cJSON_AddStringToObject(
      f, "rule",
      "the far host's side of the run as its agent saw it: its identity, "
      "the server endpoint (rudp-serve) it started for this run with this "
      "command's transport options and that endpoint's own record (and "
      "with --agent-relay the relay in front of it); the round's counters "
      "(rudp.rounds[0].counters and connections) add the far endpoint's "
      "whole-life counts (server_received, server_replied, its content, "
      "order and send errors, its connections), so the checks cover both "
      "hosts; counters_window holds this host's clients only");
  static const char *const need[] = {"agent",  "session", "tool",   "machine",
                                     "stacks", "clock",   "server", "rule"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (cJSON_GetObjectItemCaseSensitive(f, need[i]) == NULL) {
      cJSON_Delete(f);
      return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory (far.%s)",
                           need[i]);
    }
  cJSON_AddItemToObject(doc, "far", f);
  return 0;
}

void np_agent_rudp_free(struct np_agent_rudp *ar) {
  if (ar == NULL)
    return;
  np_agent_far_clear(&ar->far);
  free(ar);
}
