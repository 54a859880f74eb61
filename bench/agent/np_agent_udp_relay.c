/*
 * np_agent_udp_relay.c - the impairing relay udp --agent --agent-relay
 * starts on the far host in front of its serve (see np_agent_udp_relay.h).
 */
#include "np_agent_udp_relay.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"

#define CALL_SECONDS NP_AGENT_CALL_SECONDS
int np_agent_udp_relay_start(struct np_agent_client *c, const char *list,
                             const char *listen, const char *forward,
                             double lifetime, struct np_agent_udp_relay *r,
                             struct np_errbuf *eb) {
  cJSON *args = NULL;
  int rc = np_agent_udp_relay_args(list, listen, forward, lifetime, &args, eb);
  if (rc)
    return rc;
  if ((rc = np_agent_client_call(c, "start", args, CALL_SECONDS, &r->start,
                                 eb)) != 0)
    return rc;
  snprintf(r->service_id, sizeof r->service_id, "%s",
           np_json_get_string(r->start, "service_id", ""));
  snprintf(r->listening, sizeof r->listening, "%s",
           np_json_get_string(r->start, "listening", ""));
  struct np_errbuf aeb = {{0}};
  if (np_addr_parse("listening", r->listening, 0, &r->at, &aeb) != 0)
    return np_errbuf_set(eb, NP_EPARSE, "agent %s: start relay: %s",
                         np_agent_client_agent(c), aeb.msg);
  return 0;
}

int np_agent_udp_relay_stop(struct np_agent_client *c,
                            struct np_agent_udp_relay *r,
                            struct np_errbuf *eb) {
  cJSON *args = cJSON_CreateObject();
  if (args == NULL ||
      !cJSON_AddStringToObject(args, "service_id", r->service_id)) {
    cJSON_Delete(args);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  int rc = np_agent_client_call(c, "stop", args, CALL_SECONDS, &r->stop, eb);
  if (rc == 0 && np_json_get_number(r->stop, "record_bytes", 0) > 0)
    rc = np_agent_client_record(c, r->service_id, CALL_SECONDS, &r->record,
                                eb);
  return rc;
}

/* What the relay dropped on one direction (the truth matrix's rule). */
static double dropped(const cJSON *leg) {
  static const char *const keys[] = {"lost_burst", "lost_ge", "lost_random",
                                     "overflow", "dropped_at_stop"};
  double sum = 0;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(leg, keys[i]);
    if (!cJSON_IsNumber(v))
      return NAN;
    sum += v->valuedouble;
  }
  return sum;
}

void np_agent_udp_relay_legs_of(const cJSON *record,
                                struct np_agent_udp_relay_legs *l) {
  const cJSON *c2s = np_json_pointer(record, "/relay/totals/c2s"),
              *s2c = np_json_pointer(record, "/relay/totals/s2c");
  double cd = dropped(c2s), sd = dropped(s2c);
  const cJSON *cu = cJSON_GetObjectItemCaseSensitive(c2s, "duplicated"),
              *su = cJSON_GetObjectItemCaseSensitive(s2c, "duplicated");
  memset(l, 0, sizeof *l);
  l->known = isfinite(cd) && isfinite(sd) && cJSON_IsNumber(cu) &&
             cJSON_IsNumber(su);
  if (!l->known)
    return;
  l->request_dropped = (int64_t)cd;
  l->request_duplicated = (int64_t)cu->valuedouble;
  l->reply_dropped = (int64_t)sd;
  l->reply_duplicated = (int64_t)su->valuedouble;
}

cJSON *np_agent_far_service_json(const char *service_id, const cJSON *start,
                                 const cJSON *stop, const char *listening,
                                 const cJSON *record) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "service_id", service_id);
  cJSON_AddItemToObject(o, "command",
                        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
                                            start, "command"),
                                        1));
  np_json_add_number(o, "pid", np_json_get_number(start, "pid", 0));
  cJSON_AddStringToObject(o, "listening", listening);
  cJSON_AddStringToObject(o, "stopped_by",
                          np_json_get_string(stop, "stopped_by", "?"));
  const cJSON *ec = cJSON_GetObjectItemCaseSensitive(stop, "exit_code");
  cJSON_AddItemToObject(o, "exit_code",
                        cJSON_IsNumber(ec) ? cJSON_CreateNumber(ec->valuedouble)
                                           : cJSON_CreateNull());
  np_json_add_number(o, "seconds", np_json_get_number(stop, "seconds", 0));
  cJSON_AddItemToObject(o, "record", record ? cJSON_Duplicate(record, 1)
                                            : cJSON_CreateNull());
  static const char *const need[] = {"service_id", "command", "pid",
                                     "listening", "stopped_by", "exit_code",
                                     "seconds", "record"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (cJSON_GetObjectItemCaseSensitive(o, need[i]) == NULL) {
      cJSON_Delete(o);
      return NULL;
    }
  return o;
}

int np_agent_far_open(struct np_agent_far *f, const char *agent,
                      const char *token_file, const char *purpose,
                      struct np_errbuf *eb) {
  struct np_agent_token tok;
  if (np_agent_token_load(token_file, "--token-file", &tok, eb) != 0)
    return NP_EUSAGE;
  int rc = np_agent_client_open(agent, &tok, purpose, 10.0, &f->client, eb);
  np_agent_token_wipe(&tok);
  if (rc == 0)
    rc = np_agent_client_call(f->client, "identify", NULL, CALL_SECONDS,
                              &f->identify, eb);
  if (rc == 0)
    rc = np_agent_client_clock(f->client, NP_AGENT_CLOCK_SAMPLES,
                               &f->clock[0], eb);
  if (rc == 0 && (f->near_stack = np_agent_stack_json()) == NULL)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  return rc;
}

int np_agent_far_start(struct np_agent_far *f, cJSON *args,
                       struct np_errbuf *eb) {
  int rc = np_agent_client_call(f->client, "start", args, CALL_SECONDS,
                                &f->start, eb);
  if (rc)
    return rc;
  snprintf(f->service_id, sizeof f->service_id, "%s",
           np_json_get_string(f->start, "service_id", ""));
  snprintf(f->listening, sizeof f->listening, "%s",
           np_json_get_string(f->start, "listening", ""));
  if (np_addr_parse("listening", f->listening, 0, &f->at, NULL) != 0)
    return np_errbuf_set(eb, NP_EPARSE, "agent %s: start: no port in '%s'",
                         np_agent_client_agent(f->client), f->listening);
  return 0;
}

int np_agent_far_end(struct np_agent_far *f, struct np_errbuf *eb) {
  int first = 0;
  struct np_errbuf reb = {{0}};
  if (f->has_relay)
    first = np_agent_udp_relay_stop(f->client, &f->relay, &reb);
  cJSON *args = cJSON_CreateObject();
  if (args == NULL ||
      !cJSON_AddStringToObject(args, "service_id", f->service_id)) {
    cJSON_Delete(args);
    return first ? np_errbuf_set(eb, first, "%s", reb.msg)
                 : np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  int rc = np_agent_client_call(f->client, "stop", args, CALL_SECONDS,
                                &f->stop, eb);
  if (rc == 0 && np_json_get_number(f->stop, "record_bytes", 0) > 0)
    rc = np_agent_client_record(f->client, f->service_id, CALL_SECONDS,
                                &f->record, eb);
  if (rc == 0)
    rc = np_agent_client_clock(f->client, NP_AGENT_CLOCK_SAMPLES,
                               &f->clock[1], eb);
  if (first)
    return np_errbuf_set(eb, first, "%s", reb.msg);
  return rc;
}

static cJSON *far_clock_json(const struct np_agent_far *f) {
  cJSON *x = cJSON_CreateObject();
  if (x == NULL)
    return NULL;
  cJSON_AddItemToObject(x, "start", np_agent_clock_json(&f->clock[0]));
  cJSON_AddItemToObject(x, "end", np_agent_clock_json(&f->clock[1]));
  cJSON_AddStringToObject(
      x, "rule",
      "the agent's CLOCK_REALTIME against ours over the control channel "
      "(the time action), best of the samples by round trip: offset = "
      "agent - (t0 + t1) / 2, error at most rtt / 2; taken before the "
      "server started and after it stopped");
  return x;
}

int np_agent_far_head(cJSON *out, const struct np_agent_far *f,
                      const char *agent) {
  cJSON *ch = np_agent_channel_json(np_agent_client_channel(f->client));
  if (ch && !cJSON_AddStringToObject(ch, "address", agent)) {
    cJSON_Delete(ch);
    ch = NULL;
  }
  cJSON_AddItemToObject(out, "agent", ch);
  cJSON_AddStringToObject(out, "session", np_agent_client_session(f->client));
  static const char *const copied[] = {"tool", "machine"};
  for (int i = 0; i < 2; i++)
    cJSON_AddItemToObject(
        out, copied[i],
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f->identify,
                                                         copied[i]),
                        1));
  cJSON *x = cJSON_AddObjectToObject(out, "stacks");
  cJSON_AddItemToObject(x, "near", cJSON_Duplicate(f->near_stack, 1));
  cJSON_AddItemToObject(
      x, "far",
      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f->identify, "stack"),
                      1));
  cJSON_AddItemToObject(out, "clock", far_clock_json(f));
  static const char *const need[] = {"agent", "session", "tool", "machine",
                                     "stacks", "clock"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (cJSON_GetObjectItemCaseSensitive(out, need[i]) == NULL)
      return NP_ENOMEM;
  return 0;
}

void np_agent_far_clear(struct np_agent_far *f) {
  np_agent_client_close(f->client);
  cJSON_Delete(f->identify);
  cJSON_Delete(f->near_stack);
  cJSON_Delete(f->start);
  cJSON_Delete(f->stop);
  cJSON_Delete(f->record);
  np_agent_udp_relay_clear(&f->relay);
  memset(f, 0, sizeof *f);
}

cJSON *np_agent_udp_relay_json(const struct np_agent_udp_relay *r) {
  return np_agent_far_service_json(r->service_id, r->start, r->stop,
                                   r->listening, r->record);
}

void np_agent_udp_relay_text(const struct np_agent_udp_relay *r, char *buf,
                             size_t len) {
  struct np_agent_udp_relay_legs l;
  np_agent_udp_relay_legs_of(r->record, &l);
  if (!l.known) {
    snprintf(buf, len, "relay pid %.0f: no record",
             np_json_get_number(r->start, "pid", 0));
    return;
  }
  snprintf(buf, len,
           "relay pid %.0f: requests dropped %" PRId64 ", copied %" PRId64
           "; replies dropped %" PRId64 ", copied %" PRId64,
           np_json_get_number(r->start, "pid", 0), l.request_dropped,
           l.request_duplicated, l.reply_dropped, l.reply_duplicated);
}

void np_agent_udp_relay_clear(struct np_agent_udp_relay *r) {
  if (r == NULL)
    return;
  cJSON_Delete(r->start);
  cJSON_Delete(r->stop);
  cJSON_Delete(r->record);
  memset(r, 0, sizeof *r);
}
