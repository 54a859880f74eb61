/*
 * np_agent_server.c - the agent's loop: one thread, poll over the
 * listening socket, a signalfd (SIGINT, SIGTERM, SIGCHLD), every
 * connection and every service's output pipe.  Each connection is a small
 * state machine: TLS 1.3 over the token's PSK (np_agent_tls.h; until it
 * completes the peer is unauthenticated), then the hello, whose address
 * must be the one the connection reached, then requests.
 *
 * No peer starves the others.  Before authentication: the whole
 * handshake must finish within --handshake-seconds (2 s) of the accept;
 * at most --max-pending unauthenticated connections at once (a new one
 * closes the oldest), at most --max-pending-per-address of them from one
 * address; every refusal counts as a failed attempt of its address, and
 * --max-failures of them within --lockout-seconds lock the address out
 * (np_agent_guard.c: a lockout is never evicted).  After it: at most
 * --max-connections sessions; a message must arrive whole within
 * --message-seconds of its first byte; a session with no message for
 * --session-idle-seconds while none of its services runs is ended (its
 * services stop); responses are written without blocking from a
 * per-session buffer of at most --max-output-bytes (a peer that does not
 * read is ended when it fills, and never stalls another session).  A
 * message that does not validate, or a TLS record that does not
 * authenticate, ends the session with one log line naming it.
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

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "np_agent_client.h"
#include "np_agent_int.h"
#include "np_json.h"
#include "np_time.h"

#define PROG "netproof-bench agent"

void np_agent__log(const struct np_agent *a, const char *fmt, ...) {
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

double np_agent__remaining(const struct np_agent *a) {
  double left = a->deadline - np_time_mono_s();
  return left > 0 ? left : 0;
}

/* ---- connections (their I/O: np_agent_conn.c) ---- */

static size_t count_state(const struct np_agent *a,
                          enum np_agent_conn_state st) {
  size_t n = 0;
  for (size_t i = 0; i < NP_AGENT_SLOTS; i++)
    n += a->conns[i].state == st;
  return n;
}

static void on_hello(struct np_agent *a, struct np_agent_conn *c,
                     const cJSON *m) {
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
  const char *dialled = np_json_get_string(params, "agent", "");
  struct np_addr want, local;
  char reached[96], why[300];
  np_agent__addr_text(&c->local, reached, sizeof reached);
  if (np_addr_parse("hello.agent", dialled, 0, &want, NULL) != 0 ||
      np_addr_from_sa((const struct sockaddr *)&c->local, &local) != 0 ||
      !np_addr_equal(&want, &local)) {
    snprintf(why, sizeof why,
             "the client dialled %.80s but reached this agent at %s "
             "(something in between relays the connection)",
             dialled, reached);
    np_agent__conn_refuse(a, c, why);
    return;
  }
  if (count_state(a, NP_AGENT_CONN_READY) >= a->cfg->max_connections) {
    snprintf(why, sizeof why, "%u sessions are open (--max-connections)",
             a->cfg->max_connections);
    np_agent__conn_refuse(a, c, why);
    return;
  }
  unsigned char sid[16];
  cJSON *w = np_agent_msg_new(NP_AGENT_WELCOME), *lim = NULL;
  if (w == NULL || np_agent_random(sid, sizeof sid) != 0 ||
      (lim = cJSON_CreateObject()) == NULL) {
    cJSON_Delete(w);
    np_agent__conn_refuse(a, c, "could not build the welcome");
    return;
  }
  np_agent_hex(sid, sizeof sid, c->session);
  cJSON_AddNumberToObject(w, "version", 2);
  cJSON_AddStringToObject(w, "session", c->session);
  cJSON_AddStringToObject(w, "agent", reached);
  cJSON_AddStringToObject(w, "listening", a->listen_text);
  cJSON_AddNumberToObject(lim, "max_message_bytes", NP_AGENT_MSG_MAX);
  cJSON_AddNumberToObject(lim, "max_messages", a->cfg->max_messages);
  cJSON_AddNumberToObject(lim, "session_idle_seconds",
                          a->cfg->session_idle_seconds);
  cJSON_AddNumberToObject(lim, "message_seconds", a->cfg->message_seconds);
  cJSON_AddNumberToObject(lim, "max_output_bytes",
                          (double)a->cfg->max_output_bytes);
  cJSON_AddItemToObject(w, "limits", lim);
  int rc = np_agent__conn_queue(a, c, w);
  cJSON_Delete(w);
  if (rc != 0) {
    np_agent__conn_refuse(a, c, "could not send the welcome");
    return;
  }
  np_agent__guard_clear(a, &c->peer); /* a success clears its failures */
  c->state = NP_AGENT_CONN_READY;
  c->last_active = np_time_mono_s();
  np_agent__log(a,
                "session %.8s from %s: authenticated (%s, key id %s, %s, "
                "%s)",
                c->session, c->peer_text,
                SSL_CIPHER_get_name(SSL_get_current_cipher(c->ssl)),
                c->peer_keyid, np_json_get_string(params, "client", "?"),
                np_json_get_string(params, "purpose", "?"));
}

static void on_message(struct np_agent *a, struct np_agent_conn *c) {
  cJSON *m = NULL;
  enum np_agent_type t;
  struct np_errbuf eb = {{0}};
  c->messages++;
  c->message_started = 0;
  c->last_active = np_time_mono_s();
  int rc = np_agent_msg_parse(a->schema, c->rx.body, c->rx.len, &m, &t, &eb);
  np_agent_rx_reset(&c->rx);
  if (rc != 0) {
    char why[600];
    snprintf(why, sizeof why, "message %u: %.500s", c->messages, eb.msg);
    np_agent__conn_refuse(a, c, why);
    return;
  }
  enum np_agent_type want =
      c->state == NP_AGENT_CONN_HELLO ? NP_AGENT_HELLO : NP_AGENT_REQUEST;
  if (t != want) {
    char why[96];
    snprintf(why, sizeof why, "a %s where a %s belongs",
             np_agent_type_name(t), np_agent_type_name(want));
    cJSON_Delete(m);
    np_agent__conn_refuse(a, c, why);
    return;
  }
  if (t == NP_AGENT_HELLO) {
    on_hello(a, c, m);
  } else {
    cJSON *resp = np_agent__action(a, c, m);
    rc = resp ? np_agent__conn_queue(a, c, resp) : NP_ENOMEM;
    cJSON_Delete(resp);
    if (rc != 0) {
      cJSON_Delete(m);
      np_agent__conn_refuse(
          a, c,
          rc == NP_ENOSPC ? "the peer does not read its responses (its output "
                            "passed --max-output-bytes)"
                          : "could not send a response");
      return;
    }
    if (c->messages >= a->cfg->max_messages) {
      cJSON_Delete(m);
      np_agent__conn_refuse(a, c,
                            "the session's message limit (--max-messages)");
      return;
    }
  }
  cJSON_Delete(m);
}

/* Why the TLS handshake of c failed, from the identity it offered. */
static void tls_refused(struct np_agent *a, struct np_agent_conn *c, int ret) {
  char why[400], tls[300];
  np_agent_tls_error(c->ssl, ret, tls, sizeof tls);
  const char *mine = np_agent_tls_keyid(a->tls);
  if (c->peer_keyid[0] == '\0')
    snprintf(why, sizeof why, "TLS handshake without a PSK of %s (%s)",
             NP_AGENT_TAG, tls);
  else if (strcmp(c->peer_keyid, "?") == 0)
    snprintf(why, sizeof why, "a PSK identity not of %s (%s)", NP_AGENT_TAG,
             tls);
  else if (strcmp(c->peer_keyid, mine) != 0)
    snprintf(why, sizeof why,
             "the client's PSK names key id %s, this agent's token is key id "
             "%s (another token)",
             c->peer_keyid, mine);
  else
    snprintf(why, sizeof why, "TLS handshake failed: %s", tls);
  np_agent__conn_refuse(a, c, why);
}

/* Before any TLS byte: a 0.2 client (plaintext netproof/agent/1) is
 * named and gets its own protocol's fixed refusal; anything else that is
 * not a TLS handshake record is refused.  0 to go on with TLS. */
static int not_tls(struct np_agent *a, struct np_agent_conn *c) {
  unsigned char b[64];
  ssize_t n = recv(c->fd, b, sizeof b, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return 1;
  if (n <= 0) {
    np_agent__conn_refuse(a, c, "closed before the handshake ended");
    return 1;
  }
  if (b[0] == 0x16) /* TLS handshake record */
    return 0;
  if (b[0] == 0 && (size_t)n < NP_AGENT_HDR + 32)
    return 1; /* a 0.2 frame's head is still coming */
  char why[200];
  if (np_agent_is_v1(b, (size_t)n)) {
    size_t len;
    const unsigned char *r = np_agent_refusal_v1(&len);
    np_agent_write_all(c->fd, r, len, np_time_mono_s() + 0.5);
    snprintf(why, sizeof why,
             "a %s client (netproof 0.2); this agent speaks %s: run the "
             "same netproof version at both ends",
             NP_AGENT_TAG_V1, NP_AGENT_TAG);
  } else {
    snprintf(why, sizeof why, "not a TLS handshake (first byte 0x%02x)",
             b[0]);
  }
  np_agent__conn_refuse(a, c, why);
  return 1;
}

static void on_tls(struct np_agent *a, struct np_agent_conn *c) {
  if (!c->tls_begun && not_tls(a, c))
    return;
  c->tls_begun = 1;
  int r = SSL_accept(c->ssl);
  if (r != 1) {
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      c->want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
      return;
    }
    tls_refused(a, c, r);
    return;
  }
  c->want = 0;
  if (np_agent_tls_check(c->ssl) != 0) {
    np_agent__conn_refuse(a, c, "TLS handshake without the PSK");
    return;
  }
  c->state = NP_AGENT_CONN_HELLO;
}

/* Decrypted bytes into messages, each handled in turn. */
static void on_readable(struct np_agent *a, struct np_agent_conn *c) {
  if (c->state == NP_AGENT_CONN_TLS) {
    on_tls(a, c);
    if (c->state != NP_AGENT_CONN_HELLO)
      return;
  }
  unsigned char buf[16384];
  for (;;) {
    int n = SSL_read(c->ssl, buf, (int)sizeof buf);
    if (n <= 0) {
      int e = SSL_get_error(c->ssl, n);
      if (e == SSL_ERROR_WANT_READ)
        return;
      if (e == SSL_ERROR_WANT_WRITE) {
        c->want = POLLOUT;
        return;
      }
      char why[300];
      np_agent_tls_error(c->ssl, n, why, sizeof why);
      if (c->state == NP_AGENT_CONN_READY && e == SSL_ERROR_ZERO_RETURN)
        np_agent__conn_close(a, c);
      else if (c->state == NP_AGENT_CONN_READY) {
        np_agent__log(a, "session %.8s from %s: %s", c->session, c->peer_text,
                      why);
        a->refusals++;
        np_agent__conn_close(a, c);
      } else
        np_agent__conn_refuse(a, c, why);
      return;
    }
    size_t at = 0;
    while (at < (size_t)n) {
      if (!np_agent_rx_started(&c->rx))
        c->message_started = np_time_mono_s();
      size_t used = 0;
      int rc = np_agent_rx_feed(&c->rx, buf + at, (size_t)n - at, &used);
      at += used;
      if (rc == NP_ETOOBIG) {
        np_agent__conn_refuse(a, c, "a message length outside 1..65536 bytes");
        return;
      }
      if (rc == 1) {
        on_message(a, c);
        if (c->state == NP_AGENT_CONN_FREE)
          return;
      }
    }
    if (!np_agent_rx_started(&c->rx))
      c->message_started = 0;
  }
}

static void on_writable(struct np_agent *a, struct np_agent_conn *c) {
  if (c->state == NP_AGENT_CONN_TLS) {
    on_tls(a, c);
    return;
  }
  char why[300];
  if (np_agent__conn_flush(c, why, sizeof why) != 0) {
    if (c->state == NP_AGENT_CONN_READY) {
      np_agent__log(a, "session %.8s from %s: %s", c->session, c->peer_text,
                    why);
      np_agent__conn_close(a, c);
    } else {
      np_agent__conn_refuse(a, c, why);
    }
  }
}

/* The oldest unauthenticated connection (to make room), or NULL. */
static struct np_agent_conn *oldest_pending(struct np_agent *a) {
  struct np_agent_conn *o = NULL;
  for (size_t i = 0; i < NP_AGENT_SLOTS; i++) {
    struct np_agent_conn *c = &a->conns[i];
    if (c->state == NP_AGENT_CONN_TLS &&
        (o == NULL || c->accepted < o->accepted))
      o = c;
  }
  return o;
}

/* A connection refused at the accept: counted, a failure of its address
 * (so holding the limits costs an attacker its address), closed. */
static void refuse_fd(struct np_agent *a, int fd,
                      const struct sockaddr_storage *peer, const char *text,
                      const char *why, int fail) {
  a->refusals++;
  close(fd);
  if (fail) {
    uint32_t n = np_agent__guard_fail(a, peer);
    np_agent__log(a, "refused %s: %s (failure %u of %u before a lockout)", text,
                  why, n, a->cfg->max_failures);
  } else {
    np_agent__log(a, "refused %s: %s", text, why);
  }
}

static void on_accept(struct np_agent *a) {
  for (;;) {
    struct sockaddr_storage peer, local;
    socklen_t pl = sizeof peer, ll = sizeof local;
    int fd = accept4(a->lfd, (struct sockaddr *)&peer, &pl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    char text[80], why[160];
    np_agent__addr_text(&peer, text, sizeof text);
    if (np_agent__guard_locked(a, &peer)) {
      snprintf(why, sizeof why, "locked out after %u failed attempts",
               a->cfg->max_failures);
      refuse_fd(a, fd, &peer, text, why, 0);
      continue;
    }
    size_t pending = 0, mine = 0;
    struct np_agent_conn *c = NULL;
    for (size_t i = 0; i < NP_AGENT_SLOTS; i++) {
      struct np_agent_conn *x = &a->conns[i];
      if (x->state == NP_AGENT_CONN_FREE && c == NULL)
        c = x;
      if (x->state == NP_AGENT_CONN_TLS) {
        pending++;
        mine += np_agent__same_host(&x->peer, &peer);
      }
    }
    if (mine >= a->cfg->max_pending_per_address) {
      snprintf(why, sizeof why, "%zu handshakes from this address at once "
               "(--max-pending-per-address)", mine);
      refuse_fd(a, fd, &peer, text, why, 1);
      continue;
    }
    if (pending >= a->cfg->max_pending) {
      /* the oldest handshake has had the most time: it makes room */
      struct np_agent_conn *o = oldest_pending(a);
      snprintf(why, sizeof why, "its handshake made room for a newer one "
               "(%u at once, --max-pending)", a->cfg->max_pending);
      np_agent__conn_refuse(a, o, why);
      if (c == NULL)
        c = o;
    }
    if (c == NULL || np_agent_rx_init(&c->rx) != 0 ||
        getsockname(fd, (struct sockaddr *)&local, &ll) != 0 ||
        (c->ssl = np_agent_tls_new(a->tls, fd, c->peer_keyid)) == NULL) {
      if (c)
        np_agent_rx_free(&c->rx);
      refuse_fd(a, fd, &peer, text, "no slot or no memory for it", 0);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->peer = peer;
    c->local = local;
    snprintf(c->peer_text, sizeof c->peer_text, "%s", text);
    c->state = NP_AGENT_CONN_TLS;
    c->accepted = np_time_mono_s();
    c->handshake_deadline = c->accepted + a->cfg->handshake_seconds;
  }
}

/* Deadlines of every connection; the poll timeout until the next. */
static int check_deadlines(struct np_agent *a) {
  double now = np_time_mono_s(), next = a->deadline;
  for (size_t i = 0; i < NP_AGENT_SLOTS; i++) {
    struct np_agent_conn *c = &a->conns[i];
    if (c->state == NP_AGENT_CONN_FREE)
      continue;
    if (c->state != NP_AGENT_CONN_READY) {
      if (now >= c->handshake_deadline) {
        np_agent__conn_refuse(
            a, c, "the handshake took longer than --handshake-seconds");
        continue;
      }
      if (c->handshake_deadline < next)
        next = c->handshake_deadline;
    } else {
      /* a session waiting for its own running service is not idle */
      if (np_agent__service_busy(a, c->session))
        c->last_active = now;
      double d = c->last_active + a->cfg->session_idle_seconds;
      if (now >= d) {
        np_agent__conn_refuse(a, c,
                              "idle longer than --session-idle-seconds (its "
                              "services are stopped)");
        continue;
      }
      if (d < next)
        next = d;
    }
    if (c->message_started > 0) {
      double d = c->message_started + a->cfg->message_seconds;
      if (now >= d) {
        np_agent__conn_refuse(a, c,
                              "a message took longer than --message-seconds");
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
  struct sockaddr_storage ss = a->cfg->listen_addr.ss;
  socklen_t len = a->cfg->listen_addr.len;
  const char *text = a->cfg->listen;
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
  np_agent__addr_text(&ss, a->listen_text, sizeof a->listen_text);
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
  np_agent__service_poll(a);
}

static void loop(struct np_agent *a) {
  struct pollfd pf[2 + NP_AGENT_SLOTS + NP_AGENT_SERVICES_MAX];
  struct np_agent_conn *who[NP_AGENT_SLOTS];
  while (a->stop_signal == 0 && np_time_mono_s() < a->deadline) {
    int timeout = check_deadlines(a);
    size_t n = 0, nc = 0;
    pf[n++] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
    pf[n++] = (struct pollfd){.fd = a->sigfd, .events = POLLIN};
    for (size_t i = 0; i < NP_AGENT_SLOTS; i++) {
      struct np_agent_conn *c = &a->conns[i];
      if (c->state == NP_AGENT_CONN_FREE)
        continue;
      short ev = POLLIN | c->want;
      if (c->out_len > c->out_at)
        ev |= POLLOUT;
      who[nc++] = c;
      pf[n++] = (struct pollfd){.fd = c->fd, .events = ev};
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
    for (size_t i = 0; i < nc; i++) {
      short rev = pf[2 + i].revents;
      if ((rev & POLLOUT) && who[i]->state != NP_AGENT_CONN_FREE)
        on_writable(a, who[i]);
      if ((rev & (POLLIN | POLLERR | POLLHUP)) &&
          who[i]->state != NP_AGENT_CONN_FREE)
        on_readable(a, who[i]);
      /* what a request queued goes out at once (without blocking) */
      if (who[i]->state != NP_AGENT_CONN_FREE &&
          who[i]->state != NP_AGENT_CONN_TLS &&
          who[i]->out_len > who[i]->out_at)
        on_writable(a, who[i]);
    }
    if (n > 2 + nc)
      np_agent__service_poll(a);
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
  for (size_t i = 0; i < NP_AGENT_SLOTS; i++)
    a->conns[i].fd = -1;
  int rc = np_agent_token_load(cfg->token_file, "--token-file", &a->token, eb);
  if (rc) {
    rc = NP_EUSAGE; /* the user's input, refused: exit 2 */
    goto cleanup_agent;
  }
  if ((rc = np_agent_tls_ctx_new(NP_AGENT_TLS_SERVER, &a->token, &a->tls,
                                 eb)) != 0 ||
      (rc = np_agent_schema_new(&a->schema, eb)) != 0 ||
      (rc = open_signals(a, &old, eb)) != 0 ||
      (rc = open_listener(a, eb)) != 0 || (rc = make_folder(a, eb)) != 0)
    goto cleanup_signals;
  a->t0 = np_time_mono_s();
  a->deadline = a->t0 + cfg->max_seconds;
  np_time_utc_now(a->started_at, sizeof a->started_at);
  np_agent__log(a,
                "listening on %s (pid %ld, at most %g s, %s over TLS 1.3 "
                "PSK key id %s)",
                a->listen_text, (long)getpid(), cfg->max_seconds, NP_AGENT_TAG,
                np_agent_tls_keyid(a->tls));
  loop(a);
  for (size_t i = 0; i < NP_AGENT_SLOTS; i++)
    if (a->conns[i].state != NP_AGENT_CONN_FREE)
      np_agent__conn_close(a, &a->conns[i]);
  np_agent__service_stop_session(a, NULL);
  np_agent__log(a,
                "stopped by %s after %.1f s (%llu connections refused "
                "or cut)",
                a->stop_signal == SIGINT    ? "SIGINT"
                : a->stop_signal == SIGTERM ? "SIGTERM"
                                            : "--max-seconds",
                np_time_mono_s() - a->t0, (unsigned long long)a->refusals);
  rmdir(a->folder);
cleanup_signals:
  if (a->lfd >= 0)
    close(a->lfd);
  if (a->sigfd >= 0)
    close(a->sigfd);
  if (a->masked)
    sigprocmask(SIG_SETMASK, &old, NULL);
  np_agent_schema_free(a->schema);
  np_agent_tls_ctx_free(a->tls);
cleanup_agent:
  np_agent_token_wipe(&a->token);
  free(a);
  return rc;
}
