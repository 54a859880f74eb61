/*
 * np_agent_actions.c - the allowlist: what an authenticated session may
 * ask, and nothing else (the schema already refused any other action and
 * any argument of another shape).  identify: who and where this agent is;
 * time: its clock; snapshot: this host's kernel counters and the sockets
 * of the session's services as /proc/net/udp shows them; start, stop,
 * status of a service (np_agent_service.c); record: a stopped service's
 * record, in pieces that each fit a message (the last piece releases the
 * service: its slot, record and files).  A session sees only its own
 * services.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "np_agent_client.h"
#include "np_agent_int.h"
#include "np_file.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_procnet.h"
#include "np_sysinfo.h"
#include "np_time.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))
#define PIECE_MAX 24576u /* record bytes per piece before JSON escaping */

/* Why an action failed: the code and its one line. */
struct why {
  int code;            /* NP_E*                 */
  struct np_errbuf eb; /* the line the peer gets */
};

/* Note why (code and line); returns NULL for the caller to return. */
static cJSON *fail(struct why *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cJSON *fail(struct why *w, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->eb.msg, sizeof w->eb.msg, fmt, ap);
  va_end(ap);
  w->code = code;
  return NULL;
}

static void add_realtime(cJSON *o) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  NUM(o, "realtime_s", ts.tv_sec);
  NUM(o, "realtime_ns", ts.tv_nsec);
  NUM(o, "monotonic_ns", np_time_mono_ns());
}

static cJSON *identify(struct np_agent *a) {
  cJSON *r = cJSON_CreateObject(), *ag;
  if (r == NULL)
    return NULL;
  cJSON_AddItemToObject(r, "tool", np_identity_tool_json("netproof-bench"));
  cJSON_AddItemToObject(r, "machine", np_sysinfo_machine_json());
  cJSON_AddItemToObject(r, "stack", np_agent_stack_json());
  ag = cJSON_AddObjectToObject(r, "agent");
  cJSON_AddStringToObject(ag, "listen", a->listen_text);
  NUM(ag, "pid", getpid());
  cJSON_AddStringToObject(ag, "started_at", a->started_at);
  NUM(ag, "max_seconds", a->cfg->max_seconds);
  NUM(ag, "remaining_seconds", np_agent__remaining(a));
  NUM(ag, "max_services", a->cfg->max_services);
  cJSON *s = cJSON_AddArrayToObject(r, "services");
  for (int k = 0; k < NP_AGENT_KINDS; k++)
    cJSON_AddItemToArray(s, cJSON_CreateString(np_agent__kind_names[k]));
  cJSON_AddItemToObject(r, "addresses", np_agent__addresses_json());
  return r;
}

static cJSON *row_json(const struct np_procnet_sock *r) {
  char addr[INET6_ADDRSTRLEN] = "";
  inet_ntop(r->family, r->local, addr, sizeof addr);
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "family", r->family == AF_INET6 ? "ipv6"
                                                             : "ipv4");
  cJSON_AddStringToObject(o, "address", addr);
  NUM(o, "port", r->local_port);
  NUM(o, "inode", r->inode);
  NUM(o, "uid", r->uid);
  NUM(o, "drops", r->drops);
  NUM(o, "rx_queue", r->rx_queue);
  NUM(o, "tx_queue", r->tx_queue);
  return o;
}

static cJSON *proc_json(const struct np_procnet_proc *p) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "pid", p->pid);
  cJSON *args = cJSON_AddArrayToObject(o, "command_line");
  for (size_t i = 0; args && i < p->nargs; i++)
    cJSON_AddItemToArray(args, cJSON_CreateString(p->args[i]));
  cJSON_AddBoolToObject(o, "command_line_truncated", p->args_truncated);
  cJSON_AddStringToObject(o, "exe", p->exe);
  cJSON_AddStringToObject(o, "exe_sha256", p->exe_sha256);
  cJSON_AddStringToObject(o, "exe_error", p->exe_error);
  return o;
}

/* The sockets a datagram to s's address reaches, as this host lists
 * them; with procs, the processes holding them. */
static cJSON *service_sockets(const struct np_agent_service *s,
                              const struct np_procnet_sock *rows, size_t n,
                              int procs) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "listening", s->listening);
  cJSON *list = cJSON_AddArrayToObject(o, "sockets");
  cJSON *pl = procs ? cJSON_AddArrayToObject(o, "processes") : NULL;
  size_t *idx = NULL, k = 0;
  if (np_procnet_udp_match(rows, n, (const struct sockaddr *)&s->addr, &idx,
                           &k) != 0)
    return o;
  pid_t seen[16];
  size_t nseen = 0;
  for (size_t i = 0; i < k && i < 64; i++) {
    cJSON_AddItemToArray(list, row_json(&rows[idx[i]]));
    pid_t *pids = NULL;
    size_t np = 0;
    if (pl == NULL || np_procnet_holders(rows[idx[i]].inode, 16, &pids,
                                         &np) != 0)
      continue;
    for (size_t j = 0; j < np && nseen < 16; j++) {
      int dup = 0;
      for (size_t q = 0; q < nseen; q++)
        dup |= seen[q] == pids[j];
      if (dup)
        continue;
      seen[nseen++] = pids[j];
      struct np_procnet_proc *p = malloc(sizeof *p);
      if (p && np_procnet_process(pids[j], p) == 0)
        cJSON_AddItemToArray(pl, proc_json(p));
      free(p);
    }
    free(pids);
  }
  free(idx);
  return o;
}

static cJSON *snapshot(struct np_agent *a, struct np_agent_conn *c,
                       const cJSON *args, struct why *eb) {
  const cJSON *ids = cJSON_GetObjectItemCaseSensitive(args, "services"), *id;
  int procs = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args,
                                                            "processes"));
  cJSON_ArrayForEach(id, ids) {
    if (np_agent__service_find(a, c->session, id->valuestring) == NULL) {
      fail(eb, NP_ENOENT, "services: %s is not a service of this session",
           id->valuestring);
      return NULL;
    }
  }
  cJSON *r = cJSON_CreateObject();
  if (r == NULL)
    return NULL;
  cJSON *at = cJSON_AddObjectToObject(r, "at");
  if (at)
    add_realtime(at);
  struct np_kernel *k = NULL;
  if (np_kernel_take(&k) != 0) {
    cJSON_Delete(r);
    fail(eb, NP_ENOMEM, "kernel snapshot: out of memory");
    return NULL;
  }
  /* the raw text (np_kernel.h's format): the client rebuilds the same
   * snapshot with np_kernel_parse_raw, so both hosts' counters are parsed
   * by one code */
  size_t rl = 0;
  const char *raw = np_kernel_raw(k, &rl);
  cJSON_AddStringToObject(r, "kernel_raw", raw);
  np_kernel_free(k);
  cJSON *svc = cJSON_AddObjectToObject(r, "services");
  struct np_procnet_sock *rows = NULL;
  size_t n = 0;
  struct np_errbuf inner;
  int have_rows = cJSON_GetArraySize(ids) > 0 &&
                  np_procnet_udp_read(&rows, &n, &inner) == 0;
  cJSON_ArrayForEach(id, ids) {
    const struct np_agent_service *s =
        np_agent__service_find(a, c->session, id->valuestring);
    cJSON *o =
        have_rows ? service_sockets(s, rows, n, procs) : cJSON_CreateObject();
    if (!have_rows && o)
      cJSON_AddStringToObject(o, "error", "cannot read /proc/net/udp");
    cJSON_AddItemToObject(svc, id->valuestring, o);
  }
  free(rows);
  return r;
}

static cJSON *exit_json(cJSON *r, const struct np_agent_service *s) {
  if (s->exited && WIFEXITED(s->wait_status))
    NUM(r, "exit_code", WEXITSTATUS(s->wait_status));
  else
    cJSON_AddNullToObject(r, "exit_code");
  if (s->exited && WIFSIGNALED(s->wait_status))
    cJSON_AddStringToObject(r, "signal", sigabbrev_np(WTERMSIG(s->wait_status))
                                             ? sigabbrev_np(
                                                   WTERMSIG(s->wait_status))
                                             : "?");
  else
    cJSON_AddNullToObject(r, "signal");
  return r;
}

static cJSON *start(struct np_agent *a, struct np_agent_conn *c,
                    const cJSON *args, struct why *eb) {
  struct np_agent_service *s = NULL;
  if ((eb->code = np_agent__service_start(a, c->session,
                                          (const struct sockaddr *)&c->peer,
                                          args, &s, &eb->eb)) != 0)
    return NULL;
  cJSON *r = cJSON_CreateObject();
  if (r == NULL)
    return NULL;
  cJSON_AddStringToObject(r, "service_id", s->id);
  cJSON_AddStringToObject(r, "service", np_agent__kind_names[s->kind]);
  NUM(r, "pid", s->pid);
  cJSON_AddStringToObject(r, "listening", s->listening);
  NUM(r, "lifetime_seconds", s->lifetime);
  cJSON_AddItemToObject(r, "command", cJSON_Duplicate(s->argv, 1));
  return r;
}

static struct np_agent_service *
find(struct np_agent *a, struct np_agent_conn *c, const cJSON *args,
     struct why *eb) {
  const char *id =
      cJSON_GetObjectItemCaseSensitive(args, "service_id")->valuestring;
  struct np_agent_service *s = np_agent__service_find(a, c->session, id);
  if (s == NULL)
    fail(eb, NP_ENOENT, "%s is not a service of this session", id);
  return s;
}

static cJSON *stop(struct np_agent *a, struct np_agent_conn *c,
                   const cJSON *args, struct why *eb) {
  struct np_agent_service *s = find(a, c, args, eb);
  if (s == NULL)
    return NULL;
  int ran = !s->exited;
  np_agent__service_stop(a, s);
  cJSON *r = cJSON_CreateObject();
  if (r == NULL)
    return NULL;
  cJSON_AddStringToObject(r, "service_id", s->id);
  exit_json(r, s);
  cJSON_AddStringToObject(r, "stopped_by",
                          !ran                   ? "itself"
                          : s->killed            ? "SIGKILL from the agent"
                          : s->stopped_by_agent  ? "SIGTERM from the agent"
                                                 : "itself");
  NUM(r, "seconds", np_time_mono_s() - s->started);
  NUM(r, "record_bytes", s->record ? s->record_len : 0);
  cJSON_AddStringToObject(r, "output_tail", s->tail);
  if (ran)
    np_agent__log(a, "session %.8s: stopped %s: %s", c->session, s->id,
                  s->record ? "record kept" : "no record");
  return r;
}

static cJSON *status(struct np_agent *a, struct np_agent_conn *c,
                     const cJSON *args, struct why *eb) {
  struct np_agent_service *s = find(a, c, args, eb);
  if (s == NULL)
    return NULL;
  np_agent__service_poll(a);
  cJSON *r = cJSON_CreateObject();
  if (r == NULL)
    return NULL;
  cJSON_AddStringToObject(r, "service_id", s->id);
  cJSON_AddBoolToObject(r, "running", !s->exited);
  NUM(r, "pid", s->pid);
  cJSON_AddStringToObject(r, "listening", s->listening);
  NUM(r, "seconds", np_time_mono_s() - s->started);
  exit_json(r, s);
  /* a relay's last statistics line */
  char *text = NULL;
  size_t len = 0;
  struct np_errbuf inner;
  if (s->stats_path[0] &&
      np_file_read_all(s->stats_path, 8u << 20, &text, &len, &inner) == 0) {
    while (len > 0 && text[len - 1] == '\n')
      text[--len] = '\0';
    char *last = strrchr(text, '\n');
    cJSON *line = NULL;
    if (np_json_parse(last ? last + 1 : text, strlen(last ? last + 1 : text),
                      NULL, &line, &inner) == 0)
      cJSON_AddItemToObject(r, "stats", line);
    free(text);
  }
  return r;
}

static cJSON *piece(const struct np_agent_service *s, size_t off, size_t n) {
  cJSON *r = cJSON_CreateObject();
  if (r == NULL)
    return NULL;
  char *text = malloc(n + 1);
  if (text == NULL) {
    cJSON_Delete(r);
    return NULL;
  }
  memcpy(text, s->record + off, n);
  text[n] = '\0';
  cJSON_AddStringToObject(r, "service_id", s->id);
  NUM(r, "offset", off);
  NUM(r, "total", s->record_len);
  NUM(r, "bytes", n);
  cJSON_AddStringToObject(r, "text", text);
  cJSON_AddBoolToObject(r, "done", off + n >= s->record_len);
  free(text);
  return r;
}

static cJSON *record(struct np_agent *a, struct np_agent_conn *c,
                     const cJSON *args, struct why *eb) {
  struct np_agent_service *s = find(a, c, args, eb);
  if (s == NULL)
    return NULL;
  if (!s->exited || s->record == NULL) {
    fail(eb, s->exited ? NP_ENOENT : NP_EAGAIN, "%s: %s", s->id,
         s->exited ? "it left no record" : "still running; stop it first");
    return NULL;
  }
  double off = cJSON_GetObjectItemCaseSensitive(args, "offset")->valuedouble;
  if (off > (double)s->record_len) {
    fail(eb, NP_ERANGE, "offset %.0f: beyond the record's %zu bytes", off,
         s->record_len);
    return NULL;
  }
  /* a piece whose escaped text does not fit a message is halved */
  size_t o = (size_t)off, n = s->record_len - o;
  if (n > PIECE_MAX)
    n = PIECE_MAX;
  for (;;) {
    cJSON *r = piece(s, o, n);
    char *text = r ? cJSON_PrintUnformatted(r) : NULL;
    size_t len = text ? strlen(text) : 0;
    int printed = text != NULL;
    cJSON_free(text);
    if (printed && (len + 256 <= NP_AGENT_MSG_MAX || n < 64)) {
      /* the last piece: the record is the session's now; free the slot */
      if (o + n >= s->record_len) {
        np_agent__log(a,
                      "session %.8s: %s: record fetched (%zu bytes), "
                      "released",
                      c->session, s->id, s->record_len);
        np_agent__service_release(a, s);
      }
      return r;
    }
    if (r == NULL || !printed)
      return r;
    cJSON_Delete(r);
    n /= 2;
  }
}

cJSON *np_agent__action(struct np_agent *a, struct np_agent_conn *c,
                        const cJSON *req) {
  const char *action =
      cJSON_GetObjectItemCaseSensitive(req, "action")->valuestring;
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(req, "args");
  struct why eb = {.code = NP_ENOMEM};
  np_errbuf_set(&eb.eb, NP_ENOMEM, "out of memory");
  cJSON *result = NULL;
  if (strcmp(action, "identify") == 0)
    result = identify(a);
  else if (strcmp(action, "time") == 0) {
    if ((result = cJSON_CreateObject()) != NULL)
      add_realtime(result);
  } else if (strcmp(action, "snapshot") == 0)
    result = snapshot(a, c, args, &eb);
  else if (strcmp(action, "start") == 0)
    result = start(a, c, args, &eb);
  else if (strcmp(action, "stop") == 0)
    result = stop(a, c, args, &eb);
  else if (strcmp(action, "status") == 0)
    result = status(a, c, args, &eb);
  else if (strcmp(action, "record") == 0)
    result = record(a, c, args, &eb);
  cJSON *m = np_agent_msg_new(NP_AGENT_RESPONSE);
  if (m == NULL) {
    cJSON_Delete(result);
    return NULL;
  }
  NUM(m, "id", np_json_get_number(req, "id", 0));
  cJSON_AddBoolToObject(m, "ok", result != NULL);
  if (result) {
    cJSON_AddItemToObject(m, "result", result);
  } else {
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddStringToObject(e, "code", np_err_name(eb.code));
    cJSON_AddStringToObject(e, "message", eb.eb.msg);
    np_agent__log(a, "session %.8s: %s refused: %s", c->session, action,
                  eb.eb.msg);
  }
  return m;
}
