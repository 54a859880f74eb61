/*
 * np_agent_server.c - the agent's loop: one thread, poll over the
 * listening socket, a signalfd (SIGINT, SIGTERM, SIGCHLD), every
 * connection and every service's output pipe.  Each connection is a small
 * state machine (hello -> auth -> ready) with deadlines: the handshake
 * must finish within --handshake-seconds of the accept, and any message,
 * once its first byte came, within --message-seconds; a connection past
 * its deadline is refused and closed (slow senders hold a slot for a
 * bounded time only).  Before the welcome every failure - a malformed,
 * oversized, unexpected or invalid message, a wrong MAC, a deadline -
 * gets the same fixed refusal and counts against the peer's address;
 * --max-failures of them within --lockout-seconds lock the address out
 * for the rest of that time, so guessing is slow and does not start
 * anything.  After the welcome a message that does not validate ends the
 * session (its services stop); an action the allowlist refuses gets an
 * error response with the reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_agent_client.h"
#include "np_agent_int.h"
#include "np_json.h"
#include "np_time.h"

#define PROG "netproof-bench agent"

void np_agent_log(const struct np_agent *a, const char *fmt, ...) {
  if (a->cfg->quiet)
    return;
  char line[700], safe[1400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* peer text (member names, pointers, ids) is in many lines: one line
   * each, whatever bytes it held */
  np_agent_text_safe(line, sizeof line, safe, sizeof safe);
  fprintf(stderr, PROG ": %s\n", safe);
  fflush(stderr);
}

double np_agent_remaining(const struct np_agent *a) {
  double left = a->deadline - np_time_mono_s();
  return left > 0 ? left : 0;
}

static void addr_text(const struct sockaddr_storage *ss, char *buf,
                      size_t len) {
  char h[INET6_ADDRSTRLEN] = "?";
  if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof h);
    snprintf(buf, len, "[%s]:%u", h, (unsigned)ntohs(a->sin6_port));
  } else {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &a->sin_addr, h, sizeof h);
    snprintf(buf, len, "%s:%u", h, (unsigned)ntohs(a->sin_port));
  }
}

/* ---- failed attempts ---- */

static int same_host(const struct sockaddr_storage *a,
                     const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family)
    return 0;
  if (a->ss_family == AF_INET)
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
           ((const struct sockaddr_in *)b)->sin_addr.s_addr;
  return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

/* The failure slot of peer, forgetting failures older than the window. */
static struct np_agent_failure *failure_of(struct np_agent *a,
                                           const struct sockaddr_storage *who,
                                           int create) {
  double now = np_time_mono_s();
  struct np_agent_failure *free_slot = NULL, *oldest = NULL;
  for (size_t i = 0; i < NP_AGENT_FAIL_SLOTS; i++) {
    struct np_agent_failure *f = &a->failures[i];
    if (f->used && now - f->last > a->cfg->lockout_seconds)
      f->used = 0;
    if (f->used && same_host(&f->who, who))
      return f;
    if (!f->used && free_slot == NULL)
      free_slot = f;
    if (f->used && (oldest == NULL || f->last < oldest->last))
      oldest = f;
  }
  if (!create)
    return NULL;
  struct np_agent_failure *f = free_slot ? free_slot : oldest;
  memset(f, 0, sizeof *f);
  f->used = 1;
  f->who = *who;
  f->first = now;
  return f;
}

static int locked_out(struct np_agent *a, const struct sockaddr_storage *who) {
  const struct np_agent_failure *f = failure_of(a, who, 0);
  return f != NULL && f->count >= a->cfg->max_failures;
}

/* ---- connections ---- */

static void conn_close(struct np_agent *a, struct np_agent_conn *c) {
  if (c->state == NP_AGENT_CONN_READY) {
    np_agent_service_stop_session(a, c->session);
    np_agent_log(a, "session %.8s from %s: ended (%u messages)", c->session,
                 c->peer_text, c->messages);
  }
  if (c->fd >= 0)
    close(c->fd);
  np_agent_rx_free(&c->rx);
  cJSON_Delete(c->params);
  memset(c, 0, sizeof *c);
  c->fd = -1;
}

/* The one fixed refusal, then close; a failed attempt unless after the
 * welcome (then the session just ends). */
static void refuse(struct np_agent *a, struct np_agent_conn *c,
                   const char *why) {
  size_t len;
  const unsigned char *r = np_agent_refusal(&len);
  np_agent_write_all(c->fd, r, len, np_time_mono_s() + 1.0);
  if (c->state == NP_AGENT_CONN_READY) {
    np_agent_log(a, "session %.8s from %s: %s", c->session, c->peer_text, why);
  } else {
    struct np_agent_failure *f = failure_of(a, &c->peer, 1);
    f->count++;
    f->last = np_time_mono_s();
    np_agent_log(a, "refused %s: %s (failure %u of %u before a lockout)",
                 c->peer_text, why, f->count, a->cfg->max_failures);
  }
  conn_close(a, c);
}

static int send_msg(struct np_agent_conn *c, const cJSON *m) {
  struct np_errbuf eb;
  return np_agent_send(c->fd, m, np_time_mono_s() + 5.0, &eb);
}

static void on_hello(struct np_agent *a, struct np_agent_conn *c,
                     cJSON *m) {
  if (np_agent_unhex(np_json_get_string(m, "client_nonce", ""),
                     c->client_nonce, NP_AGENT_NONCE) != 0 ||
      np_agent_random(c->server_nonce, NP_AGENT_NONCE) != 0) {
    refuse(a, c, "bad client nonce");
    return;
  }
  c->params = cJSON_DetachItemFromObjectCaseSensitive(m, "params");
  cJSON *ch = np_agent_msg_new(NP_AGENT_CHALLENGE);
  char hex[2 * NP_AGENT_NONCE + 1];
  np_agent_hex(c->server_nonce, NP_AGENT_NONCE, hex);
  cJSON *lim = ch ? cJSON_CreateObject() : NULL;
  if (lim) {
    cJSON_AddNumberToObject(ch, "version", 1);
    cJSON_AddStringToObject(ch, "server_nonce", hex);
    cJSON_AddNumberToObject(lim, "max_message_bytes", NP_AGENT_MSG_MAX);
    cJSON_AddNumberToObject(lim, "max_messages", a->cfg->max_messages);
    cJSON_AddNumberToObject(lim, "handshake_seconds",
                            a->cfg->handshake_seconds);
    cJSON_AddNumberToObject(lim, "message_seconds", a->cfg->message_seconds);
    cJSON_AddItemToObject(ch, "limits", lim);
  }
  if (c->params == NULL || lim == NULL || send_msg(c, ch) != 0) {
    cJSON_Delete(ch);
    refuse(a, c, "could not send the challenge");
    return;
  }
  cJSON_Delete(ch);
  c->state = NP_AGENT_CONN_AUTH;
}

static void on_auth(struct np_agent *a, struct np_agent_conn *c, cJSON *m) {
  unsigned char want[NP_AGENT_MAC];
  if (np_agent_auth_mac(&a->token, NP_AGENT_SIDE_CLIENT, c->server_nonce,
                        c->client_nonce, c->params, want) != 0) {
    refuse(a, c, "HMAC failed");
    return;
  }
  int ok = np_agent_auth_equal(np_json_get_string(m, "mac", ""), want);
  if (!ok) {
    memset(want, 0, sizeof want);
    refuse(a, c, "wrong MAC (not the token)");
    return;
  }
  unsigned char mine[NP_AGENT_MAC], sid[16];
  char mhex[2 * NP_AGENT_MAC + 1];
  cJSON *w = np_agent_msg_new(NP_AGENT_WELCOME);
  if (w == NULL ||
      np_agent_auth_mac(&a->token, NP_AGENT_SIDE_AGENT, c->server_nonce,
                        c->client_nonce, c->params, mine) != 0 ||
      np_agent_random(sid, sizeof sid) != 0) {
    cJSON_Delete(w);
    refuse(a, c, "could not build the welcome");
    return;
  }
  np_agent_hex(mine, sizeof mine, mhex);
  np_agent_hex(sid, sizeof sid, c->session);
  cJSON_AddStringToObject(w, "mac", mhex);
  cJSON_AddStringToObject(w, "session", c->session);
  int rc = send_msg(c, w);
  cJSON_Delete(w);
  memset(mhex, 0, sizeof mhex);
  memset(mine, 0, sizeof mine);
  memset(want, 0, sizeof want);
  if (rc != 0) {
    refuse(a, c, "could not send the welcome");
    return;
  }
  /* a success clears the address's failures */
  struct np_agent_failure *f = failure_of(a, &c->peer, 0);
  if (f)
    f->used = 0;
  c->state = NP_AGENT_CONN_READY;
  np_agent_log(a, "session %.8s from %s: authenticated (%s, %s)", c->session,
               c->peer_text, np_json_get_string(c->params, "client", "?"),
               np_json_get_string(c->params, "purpose", "?"));
}

static void on_message(struct np_agent *a, struct np_agent_conn *c) {
  cJSON *m = NULL;
  enum np_agent_type t;
  struct np_errbuf eb = {{0}};
  c->messages++;
  c->message_started = 0;
  int rc = np_agent_msg_parse(a->schema, c->rx.body, c->rx.len, &m, &t, &eb);
  np_agent_rx_reset(&c->rx);
  if (rc != 0) {
    char why[600];
    snprintf(why, sizeof why, "message %u: %.500s", c->messages, eb.msg);
    refuse(a, c, why);
    return;
  }
  enum np_agent_type want = c->state == NP_AGENT_CONN_HELLO  ? NP_AGENT_HELLO
                            : c->state == NP_AGENT_CONN_AUTH ? NP_AGENT_AUTH
                                                             : NP_AGENT_REQUEST;
  if (t != want) {
    char why[96];
    snprintf(why, sizeof why, "a %s where a %s belongs",
             np_agent_type_name(t), np_agent_type_name(want));
    cJSON_Delete(m);
    refuse(a, c, why);
    return;
  }
  if (t == NP_AGENT_HELLO) {
    on_hello(a, c, m);
  } else if (t == NP_AGENT_AUTH) {
    on_auth(a, c, m);
  } else {
    cJSON *resp = np_agent_action(a, c, m);
    if (resp == NULL || send_msg(c, resp) != 0) {
      cJSON_Delete(resp);
      cJSON_Delete(m);
      refuse(a, c, "could not send a response");
      return;
    }
    cJSON_Delete(resp);
    if (c->messages >= a->cfg->max_messages) {
      cJSON_Delete(m);
      refuse(a, c, "the session's message limit (--max-messages)");
      return;
    }
  }
  cJSON_Delete(m);
}

static void on_readable(struct np_agent *a, struct np_agent_conn *c) {
  for (;;) {
    size_t before = c->rx.hdr_have + c->rx.have;
    int rc = np_agent_rx_step(&c->rx, c->fd);
    if (before == 0 && c->rx.hdr_have + c->rx.have > 0)
      c->message_started = np_time_mono_s();
    if (rc == 0)
      return;
    if (rc == NP_ETOOBIG) {
      refuse(a, c, "a message length outside 1..65536 bytes");
      return;
    }
    if (rc < 0) {
      if (c->state == NP_AGENT_CONN_READY)
        conn_close(a, c);
      else
        refuse(a, c, "closed before the handshake ended");
      return;
    }
    on_message(a, c);
    if (c->state == NP_AGENT_CONN_FREE)
      return;
  }
}

static void on_accept(struct np_agent *a) {
  for (;;) {
    struct sockaddr_storage peer;
    socklen_t pl = sizeof peer;
    int fd = accept4(a->lfd, (struct sockaddr *)&peer, &pl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    char text[80];
    addr_text(&peer, text, sizeof text);
    size_t len;
    const unsigned char *r = np_agent_refusal(&len);
    if (locked_out(a, &peer)) {
      np_agent_write_all(fd, r, len, np_time_mono_s() + 1.0);
      close(fd);
      np_agent_log(a, "refused %s: locked out after %u failed attempts",
                   text, a->cfg->max_failures);
      continue;
    }
    struct np_agent_conn *c = NULL;
    for (uint32_t i = 0; i < a->cfg->max_connections && c == NULL; i++)
      if (a->conns[i].state == NP_AGENT_CONN_FREE)
        c = &a->conns[i];
    if (c == NULL || np_agent_rx_init(&c->rx) != 0) {
      np_agent_write_all(fd, r, len, np_time_mono_s() + 1.0);
      close(fd);
      np_agent_log(a, "refused %s: %u connections are open "
                   "(--max-connections)", text, a->cfg->max_connections);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->peer = peer;
    snprintf(c->peer_text, sizeof c->peer_text, "%s", text);
    c->state = NP_AGENT_CONN_HELLO;
    c->handshake_deadline = np_time_mono_s() + a->cfg->handshake_seconds;
  }
}

/* Deadlines of every connection; the poll timeout until the next. */
static int check_deadlines(struct np_agent *a) {
  double now = np_time_mono_s(), next = a->deadline;
  for (uint32_t i = 0; i < a->cfg->max_connections; i++) {
    struct np_agent_conn *c = &a->conns[i];
    if (c->state == NP_AGENT_CONN_FREE)
      continue;
    if (c->state != NP_AGENT_CONN_READY) {
      if (now >= c->handshake_deadline) {
        refuse(a, c, "the handshake took longer than --handshake-seconds");
        continue;
      }
      if (c->handshake_deadline < next)
        next = c->handshake_deadline;
    }
    if (c->message_started > 0) {
      double d = c->message_started + a->cfg->message_seconds;
      if (now >= d) {
        refuse(a, c, "a message took longer than --message-seconds");
        continue;
      }
      if (d < next)
        next = d;
    }
  }
  double ms = (next - now) * 1000.0 + 1;
  return ms < 1 ? 1 : ms > 1000 ? 1000 : (int)ms;
}

static int open_listener(struct np_agent *a, struct np_errbuf *eb) {
  struct sockaddr_storage ss;
  socklen_t len;
  char probe[128];
  const char *text = a->cfg->listen, *colon = strrchr(text, ':');
  int any = colon && strcmp(colon, ":0") == 0;
  snprintf(probe, sizeof probe, "%.*s%s",
           any ? (int)(colon - text) : (int)strlen(text), text,
           any ? ":1" : "");
  int rc = np_agent_hostport("--listen", probe, &ss, &len, eb);
  if (rc)
    return rc;
  if (any)
    ((struct sockaddr_in *)&ss)->sin_port = 0; /* same offset for v6 */
  a->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  0);
  if (a->lfd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "socket: %s",
                         strerror(errno));
  int one = 1;
  setsockopt(a->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(a->lfd, (struct sockaddr *)&ss, len) != 0 ||
      listen(a->lfd, 16) != 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "--listen %s: %s",
                         text, strerror(errno));
  len = sizeof ss;
  getsockname(a->lfd, (struct sockaddr *)&ss, &len);
  addr_text(&ss, a->listen_text, sizeof a->listen_text);
  return 0;
}

/* Block the signals the loop reads and open its signalfd. */
static int open_signals(struct np_agent *a, sigset_t *old,
                        struct np_errbuf *eb) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, old);
  a->masked = 1;
  signal(SIGPIPE, SIG_IGN);
  a->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (a->sigfd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "signalfd: %s",
                         strerror(errno));
  return 0;
}

static void read_signals(struct np_agent *a) {
  struct signalfd_siginfo si;
  while (read(a->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
    if ((si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) &&
        a->stop_signal == 0)
      a->stop_signal = (int)si.ssi_signo;
  np_agent_service_poll(a);
}

static void loop(struct np_agent *a) {
  struct pollfd pf[2 + NP_AGENT_CONNS_MAX + NP_AGENT_SERVICES_MAX];
  struct np_agent_conn *who[NP_AGENT_CONNS_MAX];
  while (a->stop_signal == 0 && np_time_mono_s() < a->deadline) {
    int timeout = check_deadlines(a);
    size_t n = 0, nc = 0;
    pf[n++] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
    pf[n++] = (struct pollfd){.fd = a->sigfd, .events = POLLIN};
    for (uint32_t i = 0; i < a->cfg->max_connections; i++)
      if (a->conns[i].state != NP_AGENT_CONN_FREE) {
        who[nc++] = &a->conns[i];
        pf[n++] = (struct pollfd){.fd = a->conns[i].fd, .events = POLLIN};
      }
    for (size_t i = 0; i < NP_AGENT_SERVICES_MAX; i++)
      if (a->services[i].used && a->services[i].out_fd >= 0)
        pf[n++] = (struct pollfd){.fd = a->services[i].out_fd,
                                  .events = POLLIN};
    int r = poll(pf, n, timeout);
    if (r < 0 && errno != EINTR)
      break;
    if (r <= 0)
      continue;
    if (pf[1].revents)
      read_signals(a);
    for (size_t i = 0; i < nc; i++)
      if (pf[2 + i].revents && who[i]->state != NP_AGENT_CONN_FREE)
        on_readable(a, who[i]);
    if (n > 2 + nc)
      np_agent_service_poll(a);
    if (pf[0].revents)
      on_accept(a);
  }
}

/* A private folder for the services' records (mode 0700). */
static int make_folder(struct np_agent *a, struct np_errbuf *eb) {
  const char *tmp = getenv("TMPDIR");
  snprintf(a->folder, sizeof a->folder, "%s/netproof-agent-XXXXXX",
           tmp && tmp[0] == '/' ? tmp : "/tmp");
  if (mkdtemp(a->folder) == NULL)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", a->folder,
                         strerror(errno));
  return 0;
}

int np_agent_run(const struct np_agent_config *cfg, struct np_errbuf *eb) {
  struct np_agent *a = calloc(1, sizeof *a);
  if (a == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  sigset_t old;
  a->cfg = cfg;
  a->lfd = a->sigfd = -1;
  for (size_t i = 0; i < NP_AGENT_CONNS_MAX; i++)
    a->conns[i].fd = -1;
  int rc = np_agent_token_load(cfg->token_file, "--token-file", &a->token, eb);
  if (rc) {
    rc = NP_EUSAGE; /* the user's input, refused: exit 2 */
    goto cleanup_agent;
  }
  if ((rc = np_agent_schema_new(&a->schema, eb)) != 0 ||
      (rc = open_signals(a, &old, eb)) != 0 ||
      (rc = open_listener(a, eb)) != 0 || (rc = make_folder(a, eb)) != 0)
    goto cleanup_signals;
  a->t0 = np_time_mono_s();
  a->deadline = a->t0 + cfg->max_seconds;
  np_time_utc_now(a->started_at, sizeof a->started_at);
  np_agent_log(a, "listening on %s (pid %ld, at most %g s)", a->listen_text,
               (long)getpid(), cfg->max_seconds);
  loop(a);
  for (size_t i = 0; i < NP_AGENT_CONNS_MAX; i++)
    if (a->conns[i].state != NP_AGENT_CONN_FREE)
      conn_close(a, &a->conns[i]);
  np_agent_service_stop_session(a, NULL);
  np_agent_log(a, "stopped by %s after %.1f s",
               a->stop_signal == SIGINT    ? "SIGINT"
               : a->stop_signal == SIGTERM ? "SIGTERM"
                                           : "--max-seconds",
               np_time_mono_s() - a->t0);
  rmdir(a->folder);
cleanup_signals:
  if (a->lfd >= 0)
    close(a->lfd);
  if (a->sigfd >= 0)
    close(a->sigfd);
  if (a->masked)
    sigprocmask(SIG_SETMASK, &old, NULL);
  np_agent_schema_free(a->schema);
cleanup_agent:
  np_agent_token_wipe(&a->token);
  free(a);
  return rc;
}
