/*
 * np_agent_client.c - connect, TLS 1.3 over the token's PSK, the hello
 * that binds the address dialled, call actions, measure the agent's clock
 * (see np_agent_client.h).  The socket is non-blocking; every SSL call
 * is driven by poll until its deadline.
 */
#include "np_agent_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "np_agent_tls.h"
#include "np_agent_wire.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_time.h"

#define FIRST_MAX 64 /* bytes of the agent's first answer kept (0.2 test) */

struct np_agent_client {
  int fd;                         /* the TCP connection (non-blocking) */
  struct sockaddr_storage dialled; /* the address connected to         */
  char agent[96];                 /* ADDR:PORT as given                */
  char session[33];               /* the agent's session id            */
  int next_id;                    /* id of the next request            */
  int broken;                     /* the channel failed: no more calls */
  struct np_agent_schema *schema; /* message schema (owned)            */
  struct np_agent_tls_ctx *tls;   /* PSK context (owned)               */
  SSL *ssl;                       /* the TLS session (owned)           */
  struct np_agent_rx rx;          /* the message coming in             */
  unsigned char in[16384];        /* decrypted bytes not yet framed    */
  size_t in_at, in_len;           /* their range in in[]               */
  unsigned char first[FIRST_MAX]; /* the agent's first raw bytes       */
  size_t first_len;
  struct np_agent_channel channel; /* what the channel is              */
};

int np_agent_hostport(const char *option, const char *text,
                      struct sockaddr_storage *ss, socklen_t *len,
                      struct np_errbuf *eb) {
  char host[64];
  const char *colon = strrchr(text, ':');
  const char *h = text, *he = colon;
  if (colon == NULL || colon[1] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s '%s': expected ADDR:PORT (a literal IPv4 "
                         "address, or [IPv6]:PORT)",
                         option, text);
  if (text[0] == '[') {
    h = text + 1;
    he = colon > text && colon[-1] == ']' ? colon - 1 : NULL;
  }
  if (he == NULL || he <= h || (size_t)(he - h) >= sizeof host)
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': expected ADDR:PORT",
                         option, text);
  memcpy(host, h, (size_t)(he - h));
  host[he - h] = '\0';
  char *end = NULL;
  errno = 0;
  unsigned long port = strtoul(colon + 1, &end, 10);
  if (errno || *end || port < 1 || port > 65535 || colon[1] == '+' ||
      colon[1] == '-')
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': port out of range 1..65535",
                         option, text);
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
  if (text[0] != '[' && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    *len = sizeof *a4;
    return 0;
  }
  if (text[0] == '[' && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    *len = sizeof *a6;
    return 0;
  }
  return np_errbuf_set(eb, NP_EUSAGE,
                       "%s '%s': not a literal address (IPv4, or [IPv6] in "
                       "brackets)",
                       option, text);
}

/* Non-blocking connect within the deadline. */
static int dial(const struct sockaddr_storage *ss, socklen_t len,
                double deadline, int *out, struct np_errbuf *eb,
                const char *agent) {
  int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
                  0);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "socket: %s",
                         strerror(errno));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc = 0;
  if (connect(fd, (const struct sockaddr *)ss, len) != 0) {
    if (errno != EINPROGRESS) {
      rc = np_err_from_errno(errno);
      np_errbuf_set(eb, rc, "agent %s: connect: %s", agent, strerror(errno));
      goto fail;
    }
    for (;;) {
      double left = deadline - np_time_mono_s();
      struct pollfd p = {.fd = fd, .events = POLLOUT};
      int r = left <= 0 ? 0 : poll(&p, 1, (int)(left * 1000) + 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        rc = np_errbuf_set(eb, NP_ETIMEDOUT, "agent %s: connect: no answer "
                           "in time", agent);
        goto fail;
      }
      break;
    }
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err) {
      rc = np_err_from_errno(err);
      np_errbuf_set(eb, rc, "agent %s: connect: %s", agent, strerror(err));
      goto fail;
    }
  }
  *out = fd;
  return 0;
fail:
  close(fd);
  return rc;
}

/* Keep the first raw bytes the agent sent (to name a 0.2 agent). */
static long keep_first(BIO *b, int oper, const char *argp, size_t len,
                       int argi, long argl, int ret, size_t *processed) {
  (void)len;
  (void)argi;
  (void)argl;
  struct np_agent_client *c = (struct np_agent_client *)BIO_get_callback_arg(b);
  if (oper == (BIO_CB_READ | BIO_CB_RETURN) && ret > 0 && processed &&
      c->first_len < FIRST_MAX) {
    size_t n = *processed;
    if (n > FIRST_MAX - c->first_len)
      n = FIRST_MAX - c->first_len;
    memcpy(c->first + c->first_len, argp, n);
    c->first_len += n;
  }
  return ret;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, double deadline) {
  for (;;) {
    double left = deadline - np_time_mono_s();
    if (left <= 0)
      return NP_ETIMEDOUT;
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, (int)(left * 1000.0) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return NP_EIO;
    if (r > 0)
      return 0;
  }
}

/* After an SSL call returned ret: 0 to call again (it waited for what
 * OpenSSL asked), or the failure with its phrase in eb (the channel is
 * then broken). */
static int tls_step(struct np_agent_client *c, int ret, double deadline,
                    struct np_errbuf *eb) {
  int e = SSL_get_error(c->ssl, ret), rc;
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
    rc = wait_fd(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                 deadline);
    if (rc == 0)
      return 0;
    c->broken = 1;
    return np_errbuf_set(eb, rc, "%s", rc == NP_ETIMEDOUT
                                           ? "no answer in time"
                                           : "poll failed");
  }
  char why[300];
  np_agent_tls_error(c->ssl, ret, why, sizeof why);
  c->broken = 1;
  return np_errbuf_set(eb, NP_EIO, "%s", why);
}

static int send_msg(struct np_agent_client *c, const cJSON *msg,
                    double deadline, struct np_errbuf *eb) {
  unsigned char *buf = NULL;
  size_t len = 0, off = 0;
  int rc = np_agent_msg_encode(msg, &buf, &len, eb);
  while (rc == 0 && off < len) {
    int n = SSL_write(c->ssl, buf + off, (int)(len - off));
    if (n > 0)
      off += (size_t)n;
    else
      rc = tls_step(c, n, deadline, eb);
  }
  free(buf);
  return rc;
}

/* The next message, parsed and validated. */
static int recv_msg(struct np_agent_client *c, double deadline, cJSON **out,
                    enum np_agent_type *type, struct np_errbuf *eb) {
  for (;;) {
    while (c->in_at < c->in_len) {
      size_t used = 0;
      int r = np_agent_rx_feed(&c->rx, c->in + c->in_at,
                               c->in_len - c->in_at, &used);
      c->in_at += used;
      if (r == NP_ETOOBIG) {
        c->broken = 1;
        return np_errbuf_set(eb, r, "the agent announced a message outside "
                             "1..%u bytes", NP_AGENT_MSG_MAX);
      }
      if (r == 1) {
        int rc = np_agent_msg_parse(c->schema, c->rx.body, c->rx.len, out,
                                    type, eb);
        np_agent_rx_reset(&c->rx);
        if (rc)
          c->broken = 1;
        return rc;
      }
    }
    c->in_at = c->in_len = 0;
    int n = SSL_read(c->ssl, c->in, (int)sizeof c->in);
    if (n > 0) {
      c->in_len = (size_t)n;
      continue;
    }
    int rc = tls_step(c, n, deadline, eb);
    if (rc)
      return rc;
  }
}

/* The TLS handshake; a 0.2 agent (plaintext netproof/agent/1 refusal) is
 * named as such. */
static int tls_connect(struct np_agent_client *c, double deadline,
                       struct np_errbuf *eb) {
  BIO *b = SSL_get_rbio(c->ssl);
  BIO_set_callback_arg(b, (char *)c);
  BIO_set_callback_ex(b, keep_first);
  int rc = 0;
  for (;;) {
    int r = SSL_connect(c->ssl);
    if (r == 1)
      break;
    if ((rc = tls_step(c, r, deadline, eb)) != 0)
      break;
  }
  BIO_set_callback_ex(b, NULL);
  if (rc) {
    /* the rest of a 0.2 refusal is still in the socket */
    while (c->first_len > 0 && c->first[0] == 0 && c->first_len < FIRST_MAX) {
      ssize_t n = recv(c->fd, c->first + c->first_len,
                       FIRST_MAX - c->first_len, MSG_DONTWAIT);
      if (n <= 0)
        break;
      c->first_len += (size_t)n;
    }
    if (np_agent_is_v1(c->first, c->first_len))
      return np_errbuf_set(eb, NP_EUNSUPPORTED,
                           "agent %s speaks %s (netproof 0.2); this client "
                           "speaks %s: run the same netproof version at "
                           "both ends",
                           c->agent, NP_AGENT_TAG_V1, NP_AGENT_TAG);
    struct np_errbuf inner = *eb;
    return np_errbuf_set(eb, rc == NP_ETIMEDOUT ? rc : NP_EACCES,
                         "agent %s: TLS handshake: %s (the agent refuses a "
                         "client without its token, and an address with too "
                         "many failed attempts)",
                         c->agent, inner.msg);
  }
  if (np_agent_tls_check(c->ssl) != 0)
    return np_errbuf_set(eb, NP_EACCES,
                         "agent %s: TLS handshake without the token's PSK "
                         "(whatever listens there does not hold it)",
                         c->agent);
  const SSL_CIPHER *ci = SSL_get_current_cipher(c->ssl);
  snprintf(c->channel.protocol, sizeof c->channel.protocol, "%s",
           NP_AGENT_TAG);
  snprintf(c->channel.cipher, sizeof c->channel.cipher, "%s",
           ci ? SSL_CIPHER_get_name(ci) : "?");
  snprintf(c->channel.key_id, sizeof c->channel.key_id, "%s",
           np_agent_tls_keyid(c->tls));
  return 0;
}

static int same_addr(const struct sockaddr_storage *a,
                     const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family)
    return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_addr.s_addr == y->sin_addr.s_addr &&
           x->sin_port == y->sin_port;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0 &&
         x->sin6_port == y->sin6_port;
}

/* hello (the address dialled) -> welcome (the address reached). */
static int handshake(struct np_agent_client *c, const char *purpose,
                     double deadline, struct np_errbuf *eb) {
  char client[64];
  cJSON *hello = np_agent_msg_new(NP_AGENT_HELLO), *in = NULL;
  enum np_agent_type t;
  int rc = NP_ENOMEM;
  if (hello == NULL)
    goto cleanup_msgs;
  snprintf(client, sizeof client, "netproof-bench %s", NP_VERSION);
  cJSON_AddNumberToObject(hello, "version", 2);
  cJSON *params = cJSON_AddObjectToObject(hello, "params");
  if (!params || !cJSON_AddStringToObject(params, "client", client) ||
      !cJSON_AddStringToObject(params, "agent", c->agent) ||
      !cJSON_AddStringToObject(params, "purpose", purpose))
    goto cleanup_msgs;
  if ((rc = send_msg(c, hello, deadline, eb)) != 0 ||
      (rc = recv_msg(c, deadline, &in, &t, eb)) != 0) {
    struct np_errbuf inner = *eb;
    np_errbuf_set(eb, rc, "agent %s: hello: %s", c->agent, inner.msg);
    goto cleanup_msgs;
  }
  if (t == NP_AGENT_REFUSED) {
    rc = np_errbuf_set(eb, NP_EACCES, "agent %s: the agent refused the "
                       "session: %s", c->agent,
                       np_json_get_string(in, "reason", "no reason given"));
    goto cleanup_msgs;
  }
  if (t != NP_AGENT_WELCOME) {
    rc = np_errbuf_set(eb, NP_EPARSE, "agent %s: hello: expected a welcome, "
                       "got a %s", c->agent, np_agent_type_name(t));
    goto cleanup_msgs;
  }
  struct sockaddr_storage reached;
  socklen_t rl;
  struct np_errbuf pe;
  const char *where = np_json_get_string(in, "agent", "");
  if (np_agent_hostport("welcome.agent", where, &reached, &rl, &pe) != 0 ||
      !same_addr(&reached, &c->dialled)) {
    rc = np_errbuf_set(eb, NP_EACCES,
                       "agent %s: the session reached the agent at %s, not "
                       "at the address dialled (something in between relays "
                       "the connection)",
                       c->agent, where);
    goto cleanup_msgs;
  }
  /* its listening address: the one reached, or a wildcard on that port */
  struct sockaddr_storage lis;
  const char *ltext = np_json_get_string(in, "listening", "");
  int wild = 0;
  if (np_agent_hostport("welcome.listening", ltext, &lis, &rl, &pe) == 0 &&
      lis.ss_family == reached.ss_family) {
    static const unsigned char zero[16];
    wild = lis.ss_family == AF_INET
               ? ((struct sockaddr_in *)&lis)->sin_addr.s_addr == 0
               : memcmp(&((struct sockaddr_in6 *)&lis)->sin6_addr, zero,
                        16) == 0;
  }
  if (!same_addr(&lis, &reached) &&
      !(wild && ((struct sockaddr_in *)&lis)->sin_port ==
                    ((struct sockaddr_in *)&reached)->sin_port)) {
    rc = np_errbuf_set(eb, NP_EACCES,
                       "agent %s: the agent listens on %s, which is not the "
                       "address reached",
                       c->agent, ltext);
    goto cleanup_msgs;
  }
  snprintf(c->session, sizeof c->session, "%s",
           np_json_get_string(in, "session", ""));
  rc = 0;
cleanup_msgs:
  cJSON_Delete(hello);
  cJSON_Delete(in);
  return rc;
}

int np_agent_client_open(const char *agent, const struct np_agent_token *tok,
                         const char *purpose, double timeout,
                         struct np_agent_client **out, struct np_errbuf *eb) {
  struct sockaddr_storage ss;
  socklen_t len = 0;
  int rc = np_agent_hostport("--agent", agent, &ss, &len, eb);
  if (rc)
    return rc;
  struct np_agent_client *c = calloc(1, sizeof *c);
  if (c == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  c->fd = -1;
  c->next_id = 1;
  c->dialled = ss;
  snprintf(c->agent, sizeof c->agent, "%s", agent);
  double deadline = np_time_mono_s() + timeout;
  if ((rc = np_agent_schema_new(&c->schema, eb)) != 0 ||
      (rc = np_agent_rx_init(&c->rx)) != 0 ||
      (rc = np_agent_tls_ctx_new(NP_AGENT_TLS_CLIENT, tok, &c->tls, eb)) !=
          0 ||
      (rc = dial(&ss, len, deadline, &c->fd, eb, c->agent)) != 0) {
    if (rc == NP_ENOMEM)
      np_errbuf_set(eb, rc, "out of memory");
    np_agent_client_close(c);
    return rc;
  }
  if ((c->ssl = np_agent_tls_new(c->tls, c->fd, NULL)) == NULL) {
    np_agent_client_close(c);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  if ((rc = tls_connect(c, deadline, eb)) != 0 ||
      (rc = handshake(c, purpose, deadline, eb)) != 0) {
    np_agent_client_close(c);
    return rc;
  }
  *out = c;
  return 0;
}

/* The code an agent's error names ("NP_EUSAGE"), NP_EIO for others. */
static int code_of(const char *name) {
  for (int code = -1; code >= -64; code--)
    if (strcmp(np_err_name(code), name) == 0)
      return code;
  return NP_EIO;
}

int np_agent_client_call(struct np_agent_client *c, const char *action,
                         cJSON *args, double timeout, cJSON **result,
                         struct np_errbuf *eb) {
  cJSON *req = np_agent_msg_new(NP_AGENT_REQUEST), *in = NULL;
  int id = c->next_id++, rc;
  enum np_agent_type t;
  if (args == NULL)
    args = cJSON_CreateObject();
  if (req == NULL || args == NULL || !cJSON_AddNumberToObject(req, "id", id) ||
      !cJSON_AddStringToObject(req, "action", action)) {
    cJSON_Delete(req);
    cJSON_Delete(args);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  cJSON_AddItemToObject(req, "args", args);
  if (c->broken) {
    cJSON_Delete(req);
    return np_errbuf_set(eb, NP_EIO, "agent %s: %s: the channel already "
                         "failed", c->agent, action);
  }
  double deadline = np_time_mono_s() + timeout;
  rc = send_msg(c, req, deadline, eb);
  cJSON_Delete(req);
  if (rc == 0)
    rc = recv_msg(c, deadline, &in, &t, eb);
  if (rc != 0) {
    struct np_errbuf inner = *eb;
    c->broken = 1;
    return np_errbuf_set(eb, rc == NP_ETIMEDOUT ? rc : NP_EIO,
                         "agent %s: %s: %s", c->agent, action, inner.msg);
  }
  if (t == NP_AGENT_REFUSED) {
    rc = np_errbuf_set(eb, NP_EACCES, "agent %s: %s: the agent ended the "
                       "session: %s", c->agent, action,
                       np_json_get_string(in, "reason", "no reason given"));
    cJSON_Delete(in);
    c->broken = 1;
    return rc;
  }
  if (t != NP_AGENT_RESPONSE ||
      np_json_get_number(in, "id", -1) != (double)id) {
    cJSON_Delete(in);
    return np_errbuf_set(eb, NP_EPARSE, "agent %s: %s: not the response to "
                         "request %d", c->agent, action, id);
  }
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "ok"))) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(in, "error");
    rc = np_errbuf_set(eb, code_of(np_json_get_string(e, "code", "")),
                       "agent %s: %s: %s", c->agent, action,
                       np_json_get_string(e, "message", "failed"));
    cJSON_Delete(in);
    return rc;
  }
  *result = cJSON_DetachItemFromObjectCaseSensitive(in, "result");
  cJSON_Delete(in);
  return 0;
}

const char *np_agent_client_session(const struct np_agent_client *c) {
  return c->session;
}

int np_agent_client_record(struct np_agent_client *c, const char *service_id,
                           double timeout, cJSON **doc, struct np_errbuf *eb) {
  size_t cap = 0, len = 0;
  char *text = NULL;
  int rc = 0;
  for (int piece = 0; piece < 4096; piece++) {
    cJSON *args = cJSON_CreateObject(), *r = NULL;
    if (args == NULL ||
        !cJSON_AddStringToObject(args, "service_id", service_id) ||
        !cJSON_AddNumberToObject(args, "offset", (double)len)) {
      cJSON_Delete(args);
      rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      break;
    }
    if ((rc = np_agent_client_call(c, "record", args, timeout, &r, eb)) != 0)
      break;
    const char *t = np_json_get_string(r, "text", "");
    size_t n = strlen(t);
    if (len + n + 1 > cap) {
      size_t ncap = (len + n + 1) * 2;
      char *g = realloc(text, ncap);
      if (g == NULL) {
        cJSON_Delete(r);
        rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
        break;
      }
      text = g;
      cap = ncap;
    }
    memcpy(text + len, t, n + 1);
    len += n;
    int done = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "done"));
    cJSON_Delete(r);
    if (done)
      break;
    if (n == 0) {
      rc = np_errbuf_set(eb, NP_EPARSE, "agent %s: record: an empty piece "
                         "before the end", c->agent);
      break;
    }
  }
  cJSON *d = NULL;
  if (rc == 0 && text != NULL) {
    struct np_errbuf pe = {{0}};
    rc = np_json_parse(text, len, NULL, &d, &pe);
    if (rc)
      np_errbuf_set(eb, rc, "agent %s: the record of %s: %s", c->agent,
                    service_id, pe.msg);
  }
  free(text);
  if (rc == 0)
    *doc = d;
  return rc;
}

const char *np_agent_client_agent(const struct np_agent_client *c) {
  return c->agent;
}

const struct np_agent_channel *
np_agent_client_channel(const struct np_agent_client *c) {
  return &c->channel;
}

cJSON *np_agent_channel_json(const struct np_agent_channel *ch) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL || !cJSON_AddStringToObject(o, "protocol", ch->protocol) ||
      !cJSON_AddStringToObject(o, "cipher", ch->cipher) ||
      !cJSON_AddStringToObject(o, "key_id", ch->key_id)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static int64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int np_agent_client_clock(struct np_agent_client *c, int n,
                          struct np_agent_clock *out, struct np_errbuf *eb) {
  struct np_agent_clock k = {.rtt_ns = INT64_MAX, .samples = n};
  for (int i = 0; i < n; i++) {
    cJSON *r = NULL;
    int64_t t0 = realtime_ns();
    int rc = np_agent_client_call(c, "time", NULL, 5.0, &r, eb);
    int64_t t1 = realtime_ns();
    if (rc)
      return rc;
    double as = np_json_get_number(r, "realtime_s", NAN),
           an = np_json_get_number(r, "realtime_ns", NAN);
    cJSON_Delete(r);
    if (!(as > 0 && as < 1e13) || !(an >= 0 && an < 1e9))
      return np_errbuf_set(eb, NP_EPARSE,
                           "agent %s: time: no realtime_s / realtime_ns",
                           c->agent);
    int64_t a = (int64_t)as * 1000000000 + (int64_t)an;
    int64_t rtt = t1 - t0;
    if (rtt > k.rtt_max_ns)
      k.rtt_max_ns = rtt;
    if (rtt < k.rtt_ns) {
      k.rtt_ns = rtt;
      k.offset_ns = a - (t0 + rtt / 2);
      np_time_utc_format((t0 + rtt / 2) / 1000000, k.at, sizeof k.at);
    }
  }
  *out = k;
  return 0;
}

cJSON *np_agent_clock_json(const struct np_agent_clock *k) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  np_json_add_number(o, "offset_us", (double)k->offset_ns / 1e3);
  np_json_add_number(o, "rtt_us", (double)k->rtt_ns / 1e3);
  np_json_add_number(o, "rtt_max_us", (double)k->rtt_max_ns / 1e3);
  np_json_add_number(o, "samples", k->samples);
  if (!cJSON_AddStringToObject(o, "at", k->at)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

void np_agent_client_close(struct np_agent_client *c) {
  if (c == NULL)
    return;
  if (c->ssl) {
    if (!c->broken)
      SSL_shutdown(c->ssl); /* close_notify, not waited for */
    SSL_free(c->ssl);
  }
  ERR_clear_error();
  if (c->fd >= 0)
    close(c->fd);
  np_agent_tls_ctx_free(c->tls);
  np_agent_rx_free(&c->rx);
  np_agent_schema_free(c->schema);
  OPENSSL_cleanse(c->in, sizeof c->in);
  free(c);
}
