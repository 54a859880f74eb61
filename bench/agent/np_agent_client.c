/*
 * np_agent_client.c - connect, authenticate (both ways), call actions,
 * measure the agent's clock (see np_agent_client.h).
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

#include <openssl/crypto.h>

#include "np_agent_wire.h"
#include "np_identity.h"
#include "np_json.h"
#include "np_time.h"

struct np_agent_client {
  int fd;                         /* the TCP connection (non-blocking) */
  char agent[96];                 /* ADDR:PORT as given                */
  char session[33];               /* the agent's session id            */
  int next_id;                    /* id of the next request            */
  struct np_agent_schema *schema; /* message schema (owned)            */
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

static int refused(struct np_errbuf *eb, const char *agent) {
  return np_errbuf_set(eb, NP_EACCES,
                       "agent %s: the agent refused the session (wrong "
                       "token, too many failed attempts from here, or a "
                       "message it does not accept)",
                       agent);
}

/* hello -> challenge -> auth -> welcome. */
static int handshake(struct np_agent_client *c, const struct np_agent_token *tok,
                     const char *purpose, double deadline,
                     struct np_errbuf *eb) {
  unsigned char cn[NP_AGENT_NONCE], sn[NP_AGENT_NONCE], mac[NP_AGENT_MAC];
  char hex[2 * NP_AGENT_NONCE + 1], client[64];
  cJSON *hello = np_agent_msg_new(NP_AGENT_HELLO), *in = NULL, *auth = NULL;
  enum np_agent_type t;
  int rc = NP_ENOMEM;
  if (hello == NULL)
    goto cleanup_msgs;
  if (np_agent_random(cn, sizeof cn) != 0) {
    rc = np_errbuf_set(eb, NP_ECRYPTO, "random nonce: OpenSSL failed");
    goto cleanup_msgs;
  }
  np_agent_hex(cn, sizeof cn, hex);
  snprintf(client, sizeof client, "netproof-bench %s", NP_VERSION);
  cJSON_AddNumberToObject(hello, "version", 1);
  cJSON_AddStringToObject(hello, "client_nonce", hex);
  cJSON *params = cJSON_AddObjectToObject(hello, "params");
  if (!params || !cJSON_AddStringToObject(params, "client", client) ||
      !cJSON_AddStringToObject(params, "agent", c->agent) ||
      !cJSON_AddStringToObject(params, "purpose", purpose))
    goto cleanup_msgs;
  if ((rc = np_agent_send(c->fd, hello, deadline, eb)) != 0 ||
      (rc = np_agent_recv(c->fd, c->schema, deadline, &in, &t, eb)) != 0) {
    if (rc == NP_EIO || rc == NP_ETIMEDOUT)
      np_errbuf_set(eb, rc, "agent %s: handshake: %s", c->agent,
                    rc == NP_EIO ? "the connection was closed"
                                 : "no answer in time");
    goto cleanup_msgs;
  }
  if (t == NP_AGENT_REFUSED) {
    rc = refused(eb, c->agent);
    goto cleanup_msgs;
  }
  if (t != NP_AGENT_CHALLENGE ||
      np_agent_unhex(np_json_get_string(in, "server_nonce", ""), sn,
                     sizeof sn) != 0) {
    rc = np_errbuf_set(eb, NP_EPARSE, "agent %s: handshake: expected a "
                       "challenge, got a %s", c->agent, np_agent_type_name(t));
    goto cleanup_msgs;
  }
  if ((rc = np_agent_auth_mac(tok, NP_AGENT_SIDE_CLIENT, sn, cn, params,
                              mac)) != 0) {
    np_errbuf_set(eb, rc, "HMAC-SHA256: OpenSSL failed");
    goto cleanup_msgs;
  }
  char mhex[2 * NP_AGENT_MAC + 1];
  np_agent_hex(mac, sizeof mac, mhex);
  rc = NP_ENOMEM;
  if ((auth = np_agent_msg_new(NP_AGENT_AUTH)) == NULL ||
      !cJSON_AddStringToObject(auth, "mac", mhex))
    goto cleanup_msgs;
  OPENSSL_cleanse(mhex, sizeof mhex);
  cJSON_Delete(in);
  in = NULL;
  if ((rc = np_agent_send(c->fd, auth, deadline, eb)) != 0 ||
      (rc = np_agent_recv(c->fd, c->schema, deadline, &in, &t, eb)) != 0) {
    if (rc == NP_EIO || rc == NP_ETIMEDOUT)
      np_errbuf_set(eb, rc, "agent %s: handshake: %s", c->agent,
                    rc == NP_EIO ? "the connection was closed"
                                 : "no answer in time");
    goto cleanup_msgs;
  }
  if (t == NP_AGENT_REFUSED) {
    rc = refused(eb, c->agent);
    goto cleanup_msgs;
  }
  if (t != NP_AGENT_WELCOME) {
    rc = np_errbuf_set(eb, NP_EPARSE, "agent %s: handshake: expected a "
                       "welcome, got a %s", c->agent, np_agent_type_name(t));
    goto cleanup_msgs;
  }
  if ((rc = np_agent_auth_mac(tok, NP_AGENT_SIDE_AGENT, sn, cn, params,
                              mac)) != 0) {
    np_errbuf_set(eb, rc, "HMAC-SHA256: OpenSSL failed");
    goto cleanup_msgs;
  }
  if (!np_agent_auth_equal(np_json_get_string(in, "mac", ""), mac)) {
    rc = np_errbuf_set(eb, NP_EACCES,
                       "agent %s: the agent's proof does not match the token "
                       "(whatever listens there does not hold it)",
                       c->agent);
    goto cleanup_msgs;
  }
  snprintf(c->session, sizeof c->session, "%s",
           np_json_get_string(in, "session", ""));
  rc = 0;
cleanup_msgs:
  OPENSSL_cleanse(mac, sizeof mac);
  cJSON_Delete(hello);
  cJSON_Delete(auth);
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
  snprintf(c->agent, sizeof c->agent, "%s", agent);
  double deadline = np_time_mono_s() + timeout;
  if ((rc = np_agent_schema_new(&c->schema, eb)) != 0 ||
      (rc = dial(&ss, len, deadline, &c->fd, eb, c->agent)) != 0 ||
      (rc = handshake(c, tok, purpose, deadline, eb)) != 0) {
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
  double deadline = np_time_mono_s() + timeout;
  rc = np_agent_send(c->fd, req, deadline, eb);
  cJSON_Delete(req);
  if (rc == 0)
    rc = np_agent_recv(c->fd, c->schema, deadline, &in, &t, eb);
  if (rc != 0) {
    struct np_errbuf inner = *eb;
    return np_errbuf_set(eb, rc == NP_ETIMEDOUT ? rc : NP_EIO,
                         "agent %s: %s: %s", c->agent, action, inner.msg);
  }
  if (t == NP_AGENT_REFUSED) {
    cJSON_Delete(in);
    return refused(eb, c->agent);
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

const char *np_agent_client_agent(const struct np_agent_client *c) {
  return c->agent;
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
  if (c->fd >= 0)
    close(c->fd);
  np_agent_schema_free(c->schema);
  free(c);
}
