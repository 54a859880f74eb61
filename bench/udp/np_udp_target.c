/*
 * np_udp_target.c - find the --connect target's socket in /proc/net/udp(6)
 * before and after the measurement and identify the processes holding it
 * (see np_udp_target.h).
 */
#include "np_udp_target.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

int np_udp_target_new(const struct np_udp_config *cfg,
                      struct np_udp_target **out, struct np_errbuf *eb) {
  struct np_udp_target *t = calloc(1, sizeof *t);
  if (t == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  t->procs = calloc(NP_UDP_TARGET_PROCS_MAX, sizeof *t->procs);
  if (t->procs == NULL) {
    free(t);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  if (cfg->family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&t->addr;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(cfg->port);
    inet_pton(AF_INET6, cfg->address, &a->sin6_addr);
    snprintf(t->text, sizeof t->text, "[%s]:%u", cfg->address,
             (unsigned)cfg->port);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&t->addr;
    a->sin_family = AF_INET;
    a->sin_port = htons(cfg->port);
    inet_pton(AF_INET, cfg->address, &a->sin_addr);
    snprintf(t->text, sizeof t->text, "%s:%u", cfg->address,
             (unsigned)cfg->port);
  }
  t->local = np_procnet_addr_is_local((const struct sockaddr *)&t->addr,
                                      t->local_why, sizeof t->local_why);
  if (!t->local)
    snprintf(t->why_not, sizeof t->why_not,
             "the target is remote (%s): only the client side is attributed",
             t->local_why);
  *out = t;
  return 0;
}

/* The holders of every matching socket, each pid once. */
static void identify(struct np_udp_target *t) {
  for (size_t s = 0; s < t->nsocks; s++) {
    pid_t *pids = NULL;
    size_t n = 0;
    if (np_procnet_holders(t->socks[s].before.inode, 64, &pids, &n) != 0)
      continue;
    for (size_t i = 0; i < n; i++) {
      int seen = 0;
      for (size_t k = 0; k < t->nprocs; k++)
        seen |= t->procs[k].pid == pids[i];
      if (seen)
        continue;
      if (t->nprocs == NP_UDP_TARGET_PROCS_MAX) {
        t->procs_truncated = 1;
        break;
      }
      if (np_procnet_process(pids[i], &t->procs[t->nprocs]) == 0)
        t->nprocs++;
    }
    free(pids);
  }
}

static int snap_before(struct np_udp_target *t, struct np_procnet_sock *rows,
                       size_t n) {
  size_t *idx = NULL, k = 0;
  int rc = np_procnet_udp_match(rows, n, (const struct sockaddr *)&t->addr,
                                &idx, &k);
  if (rc != 0)
    return rc;
  t->socks_truncated = k > NP_UDP_TARGET_SOCKS_MAX;
  t->nsocks = k > NP_UDP_TARGET_SOCKS_MAX ? NP_UDP_TARGET_SOCKS_MAX : k;
  for (size_t i = 0; i < t->nsocks; i++)
    t->socks[i].before = rows[idx[i]];
  free(idx);
  if (t->nsocks == 0) {
    snprintf(t->why_not, sizeof t->why_not,
             "the target is local (%s) but no UDP socket bound to %s is "
             "listed in /proc/net/udp or /proc/net/udp6 (another network "
             "namespace?): the server socket is not attributed",
             t->local_why, t->text);
    return 0;
  }
  identify(t);
  return 0;
}

static void snap_after(struct np_udp_target *t, struct np_procnet_sock *rows,
                       size_t n) {
  size_t missing = 0;
  for (size_t s = 0; s < t->nsocks; s++) {
    for (size_t i = 0; i < n && !t->socks[s].have_after; i++) {
      if (rows[i].inode == t->socks[s].before.inode &&
          rows[i].family == t->socks[s].before.family) {
        t->socks[s].after = rows[i];
        t->socks[s].have_after = 1;
      }
    }
    missing += !t->socks[s].have_after;
  }
  if (missing && t->why_not[0] == '\0')
    snprintf(t->why_not, sizeof t->why_not,
             "%zu of the target's %zu socket(s) were gone after the "
             "measurement (the server closed or restarted): the server "
             "socket is not attributed",
             missing, t->nsocks);
}

int np_udp_target_snap(struct np_udp_target *t, int after,
                       struct np_errbuf *eb) {
  if (!t->local)
    return 0;
  struct np_procnet_sock *rows = NULL;
  size_t n = 0;
  struct np_errbuf inner = {{0}};
  int rc = np_procnet_udp_read(&rows, &n, &inner);
  if (rc == NP_ENOMEM)
    return np_errbuf_set(eb, rc, "/proc/net/udp: out of memory");
  if (rc != 0) {
    if (t->why_not[0] == '\0')
      snprintf(t->why_not, sizeof t->why_not,
               "cannot read the socket tables %s the measurement (%.300s): "
               "the server socket is not attributed",
               after ? "after" : "before", inner.msg);
    if (!after)
      t->nsocks = 0;
    return 0;
  }
  if (!after)
    rc = snap_before(t, rows, n);
  else
    snap_after(t, rows, n);
  free(rows);
  return rc == NP_ENOMEM ? np_errbuf_set(eb, rc, "out of memory") : 0;
}

int np_udp_target_refused(const struct np_udp_target *t) {
  const struct sockaddr *a = (const struct sockaddr *)&t->addr;
  socklen_t len = a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                           : sizeof(struct sockaddr_in);
  int fd = socket(a->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  int refused = 0;
  char probe = 0, back;
  if (connect(fd, a, len) == 0) {
    if (send(fd, &probe, 1, 0) < 0) {
      refused = errno == ECONNREFUSED;
    } else {
      struct pollfd p = {.fd = fd, .events = POLLIN};
      if (poll(&p, 1, 200) == 1 && recv(fd, &back, 1, 0) < 0)
        refused = errno == ECONNREFUSED;
    }
  }
  close(fd);
  return refused;
}

int np_udp_target_attributable(const struct np_udp_target *t) {
  if (t == NULL || !(t->local || t->remote_observed) || t->nsocks == 0)
    return 0;
  for (size_t s = 0; s < t->nsocks; s++)
    if (!t->socks[s].have_after)
      return 0;
  return 1;
}

uint64_t np_udp_target_drops(const struct np_udp_target *t) {
  uint64_t d = 0;
  for (size_t s = 0; s < t->nsocks; s++)
    d += t->socks[s].after.drops - t->socks[s].before.drops;
  return d;
}

cJSON *np_udp_target_json(const struct np_udp_target *t,
                          const struct np_udp_config *cfg) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "connect", cfg->connect ? cfg->connect : "");
  cJSON_AddStringToObject(o, "address", cfg->address);
  NUM(o, "port", cfg->port);
  cJSON_AddStringToObject(o, "family",
                          cfg->family == AF_INET6 ? "ipv6" : "ipv4");
  cJSON_AddBoolToObject(o, "local", t->local);
  cJSON_AddStringToObject(o, "local_rule", t->local_why);
  if (!cJSON_GetObjectItemCaseSensitive(o, "local_rule")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *row_json(const struct np_procnet_sock *r) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "drops", r->drops);
  NUM(o, "rx_queue_bytes", r->rx_queue);
  NUM(o, "tx_queue_bytes", r->tx_queue);
  return o;
}

static cJSON *sock_json(const struct np_udp_target_sock *s) {
  cJSON *o = cJSON_CreateObject();
  char local[80];
  if (o == NULL)
    return NULL;
  np_procnet_local_text(&s->before, local, sizeof local);
  cJSON_AddStringToObject(o, "table",
                          s->before.family == AF_INET6 ? "/proc/net/udp6"
                                                       : "/proc/net/udp");
  cJSON_AddStringToObject(o, "local", local);
  NUM(o, "inode", s->before.inode);
  NUM(o, "uid", s->before.uid);
  cJSON_AddItemToObject(o, "before", row_json(&s->before));
  if (s->have_after) {
    cJSON_AddItemToObject(o, "after", row_json(&s->after));
    NUM(o, "drops", s->after.drops - s->before.drops);
  } else {
    cJSON_AddNullToObject(o, "after");
    cJSON_AddNullToObject(o, "drops");
  }
  if (!cJSON_GetObjectItemCaseSensitive(o, "drops")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *proc_json(const struct np_procnet_proc *p) {
  cJSON *o = cJSON_CreateObject(), *a;
  if (o == NULL)
    return NULL;
  NUM(o, "pid", p->pid);
  a = cJSON_AddArrayToObject(o, "command_line");
  for (size_t i = 0; a && i < p->nargs; i++)
    cJSON_AddItemToArray(a, cJSON_CreateString(p->args[i]));
  cJSON_AddBoolToObject(o, "command_line_truncated", p->args_truncated);
  if (p->exe[0])
    cJSON_AddStringToObject(o, "exe", p->exe);
  else
    cJSON_AddNullToObject(o, "exe");
  if (p->exe_sha256[0])
    cJSON_AddStringToObject(o, "exe_sha256", p->exe_sha256);
  else
    cJSON_AddNullToObject(o, "exe_sha256");
  if (p->exe_error[0])
    cJSON_AddStringToObject(o, "exe_error", p->exe_error);
  if (!cJSON_GetObjectItemCaseSensitive(o, "exe_sha256")) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *np_udp_target_server_json(const struct np_udp_target *t) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddBoolToObject(o, "found", t->nsocks > 0);
  cJSON *socks = cJSON_AddArrayToObject(o, "sockets");
  for (size_t s = 0; socks && s < t->nsocks; s++)
    cJSON_AddItemToArray(socks, sock_json(&t->socks[s]));
  cJSON_AddBoolToObject(o, "sockets_truncated", t->socks_truncated);
  cJSON *procs = cJSON_AddArrayToObject(o, "processes");
  for (size_t i = 0; procs && i < t->nprocs; i++)
    cJSON_AddItemToArray(procs, proc_json(&t->procs[i]));
  cJSON_AddBoolToObject(o, "processes_truncated", t->procs_truncated);
  cJSON_AddStringToObject(
      o, "identity_rule",
      t->remote_observed
          ? "read on the target's host by its netproof-bench agent (udp "
            "--agent): sockets: that host's /proc/net/udp and /proc/net/udp6 "
            "rows bound to the target's port and address (or the wildcard), "
            "read at the measurement's start and after its drain; processes: "
            "every pid there whose /proc/PID/fd links to socket:[inode]; exe, "
            "exe_sha256: its /proc/PID/exe"
          : "sockets: /proc/net/udp and /proc/net/udp6 rows bound to the "
            "target's port and address (or the wildcard) and not connected "
            "elsewhere, read at the measurement's start and after its drain; "
            "processes: every pid whose /proc/PID/fd links to "
            "socket:[inode]; exe: readlink /proc/PID/exe; exe_sha256: "
            "SHA-256 of /proc/PID/exe");
  if (t->why_not[0])
    cJSON_AddStringToObject(o, "not_attributed", t->why_not);
  else
    cJSON_AddNullToObject(o, "not_attributed");
  if (cJSON_GetArraySize(o) != 7 ||
      cJSON_GetArraySize(socks) != (int)t->nsocks ||
      cJSON_GetArraySize(procs) != (int)t->nprocs) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

void np_udp_target_free(struct np_udp_target *t) {
  if (t == NULL)
    return;
  free(t->procs);
  free(t);
}
