/*
 * np_agent_wire.c - framing, parsing and validation of control messages
 * (see np_agent_wire.h).  The order of the checks is the point: length
 * from the header, size and depth limits (np_json_parse), finite numbers,
 * then the schema; nothing reads a field of a message that has not passed
 * all of them.  Error lines quote a peer's bytes (member names, schema
 * pointers) only through np_agent_text_safe, so no peer writes a control
 * byte or a forged line into a log.
 */
#include "np_agent_wire.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_json.h"
#include "np_schema.h"
#include "np_time.h"

static const char *const type_names[] = {"hello", "welcome", "refused",
                                         "request", "response"};

const char *np_agent_type_name(enum np_agent_type t) {
  return (unsigned)t < sizeof type_names / sizeof type_names[0]
             ? type_names[t]
             : "?";
}

struct np_agent_schema {
  struct np_schema *compiled; /* schema/agent.schema.json, embedded */
};

int np_agent_schema_new(struct np_agent_schema **out, struct np_errbuf *eb) {
  struct np_agent_schema *s = calloc(1, sizeof *s);
  if (s == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int rc = np_schema_builtin("agent", &s->compiled, eb);
  if (rc != 0) {
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}

void np_agent_schema_free(struct np_agent_schema *s) {
  if (s == NULL)
    return;
  np_schema_free(s->compiled);
  free(s);
}

size_t np_agent_text_safe(const char *in, size_t in_len, char *out,
                          size_t out_len) {
  static const char digits[] = "0123456789abcdef";
  size_t o = 0;
  if (out_len == 0)
    return 0;
  for (size_t i = 0; i < in_len && in[i] != '\0'; i++) {
    unsigned char b = (unsigned char)in[i];
    int plain = b >= 0x20 && b < 0x7f;
    if (o + (plain ? 1 : 4) >= out_len)
      break; /* whole escapes only */
    if (plain) {
      out[o++] = (char)b;
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = digits[b >> 4];
      out[o++] = digits[b & 15];
    }
  }
  out[o] = '\0';
  return o;
}

/* The first schema error, for the one line. */
struct first_err {
  struct np_errbuf *eb; /* where it goes      */
  int seen;             /* one was written    */
};

static void on_schema_error(void *ctx, const char *pointer,
                            const char *keyword, const char *reason) {
  struct first_err *f = ctx;
  if (f->seen++)
    return;
  /* the pointer and the reason may quote the peer's member names */
  char p[200], r[240];
  np_agent_text_safe(pointer[0] ? pointer : "/", SIZE_MAX, p, sizeof p);
  np_agent_text_safe(reason, SIZE_MAX, r, sizeof r);
  np_errbuf_set(f->eb, NP_ESCHEMA, "%s: %s: %s", p, keyword, r);
}

static int cmp_key(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A member name twice in one object is ambiguous (RFC 8259 4: names
 * SHOULD be unique; readers differ on which one wins): refused.  Keys are
 * sorted per object, so a hostile message costs n log n.  0, NP_EPARSE
 * (with the name in eb) or NP_ENOMEM. */
static int unique_keys(const cJSON *o, struct np_errbuf *eb) {
  size_t n = 0;
  const cJSON *c;
  for (c = o ? o->child : NULL; c; c = c->next)
    n++;
  if (cJSON_IsObject(o) && n > 1) {
    const char **keys = malloc(n * sizeof *keys);
    if (keys == NULL)
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    size_t i = 0;
    for (c = o->child; c; c = c->next)
      keys[i++] = c->string;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (i = 1; i < n; i++)
      if (strcmp(keys[i - 1], keys[i]) == 0) {
        char name[4 * 64 + 1]; /* the peer's bytes, escaped */
        np_agent_text_safe(keys[i], 64, name, sizeof name);
        int rc = np_errbuf_set(eb, NP_EPARSE,
                               "member \"%s\" twice in one object", name);
        free(keys);
        return rc;
      }
    free(keys);
  }
  for (c = o ? o->child : NULL; c; c = c->next) {
    int rc = unique_keys(c, eb);
    if (rc)
      return rc;
  }
  return 0;
}

int np_agent_msg_parse(const struct np_agent_schema *s, const char *buf,
                       size_t len, cJSON **out, enum np_agent_type *type,
                       struct np_errbuf *eb) {
  if (len == 0 || len > NP_AGENT_MSG_MAX)
    return np_errbuf_set(eb, NP_ETOOBIG, "message of %zu bytes (1..%u)", len,
                         NP_AGENT_MSG_MAX);
  struct np_json_limits lim = {.max_bytes = NP_AGENT_MSG_MAX,
                               .max_depth = NP_AGENT_MSG_DEPTH};
  cJSON *doc = NULL;
  int rc = np_json_parse(buf, len, &lim, &doc, eb);
  if (rc != 0) { /* the message names a peer's member: escape it */
    char safe[sizeof eb->msg];
    if (eb != NULL) {
      np_agent_text_safe(eb->msg, sizeof eb->msg, safe, sizeof safe);
      snprintf(eb->msg, sizeof eb->msg, "%s", safe);
    }
    return rc;
  }
  if ((rc = unique_keys(doc, eb)) != 0) {
    cJSON_Delete(doc);
    return rc;
  }
  struct first_err fe = {.eb = eb};
  rc = np_schema_validate(s->compiled, doc, on_schema_error, &fe);
  if (rc != 0) {
    if (!fe.seen)
      np_errbuf_set(eb, rc, "schema: %s", np_strerror(rc));
    cJSON_Delete(doc);
    return rc;
  }
  /* the schema allows exactly these names */
  const char *t = cJSON_GetObjectItemCaseSensitive(doc, "type")->valuestring;
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
    if (strcmp(t, type_names[i]) == 0) {
      *type = (enum np_agent_type)i;
      *out = doc;
      return 0;
    }
  }
  cJSON_Delete(doc);
  return np_errbuf_set(eb, NP_ESCHEMA, "/type: unknown message type");
}

int np_agent_msg_encode(const cJSON *msg, unsigned char **buf, size_t *len,
                        struct np_errbuf *eb) {
  char *text = cJSON_PrintUnformatted(msg);
  if (text == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  size_t n = strlen(text);
  if (n == 0 || n > NP_AGENT_MSG_MAX) {
    cJSON_free(text);
    return np_errbuf_set(eb, NP_ETOOBIG, "message of %zu bytes (at most %u)",
                         n, NP_AGENT_MSG_MAX);
  }
  unsigned char *b = malloc(NP_AGENT_HDR + n);
  if (b == NULL) {
    cJSON_free(text);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  b[0] = (unsigned char)(n >> 24);
  b[1] = (unsigned char)(n >> 16);
  b[2] = (unsigned char)(n >> 8);
  b[3] = (unsigned char)n;
  memcpy(b + NP_AGENT_HDR, text, n);
  cJSON_free(text);
  *buf = b;
  *len = NP_AGENT_HDR + n;
  return 0;
}

cJSON *np_agent_msg_new(enum np_agent_type t) {
  cJSON *m = cJSON_CreateObject();
  if (m == NULL)
    return NULL;
  if (!cJSON_AddStringToObject(m, "schema", NP_AGENT_TAG) ||
      !cJSON_AddStringToObject(m, "type", np_agent_type_name(t))) {
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

/* {"schema":"netproof/agent/1","type":"refused"}: 46 bytes. */
static const unsigned char refusal_v1[] =
    "\0\0\0\x2e{\"schema\":\"netproof/agent/1\",\"type\":\"refused\"}";

const unsigned char *np_agent_refusal_v1(size_t *len) {
  *len = sizeof refusal_v1 - 1;
  return refusal_v1;
}

int np_agent_is_v1(const unsigned char *b, size_t n) {
  static const char head[] = "{\"schema\":\"netproof/agent/1\"";
  size_t hl = sizeof head - 1;
  return n >= NP_AGENT_HDR + hl && b[0] == 0 &&
         np_agent_hdr_len(b) >= hl && memcmp(b + NP_AGENT_HDR, head, hl) == 0;
}

uint32_t np_agent_hdr_len(const unsigned char h[NP_AGENT_HDR]) {
  uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
               (uint32_t)h[2] << 8 | (uint32_t)h[3];
  return n >= 1 && n <= NP_AGENT_MSG_MAX ? n : 0;
}

int np_agent_rx_init(struct np_agent_rx *rx) {
  memset(rx, 0, sizeof *rx);
  rx->body = malloc(NP_AGENT_MSG_MAX + 1);
  return rx->body ? 0 : NP_ENOMEM;
}

void np_agent_rx_free(struct np_agent_rx *rx) {
  if (rx == NULL)
    return;
  free(rx->body);
  memset(rx, 0, sizeof *rx);
}

void np_agent_rx_reset(struct np_agent_rx *rx) {
  rx->hdr_have = 0;
  rx->len = 0;
  rx->have = 0;
}

int np_agent_rx_started(const struct np_agent_rx *rx) {
  return rx->hdr_have > 0;
}

int np_agent_rx_feed(struct np_agent_rx *rx, const unsigned char *p,
                     size_t n, size_t *used) {
  size_t u = 0;
  while (u < n) {
    if (rx->hdr_have < NP_AGENT_HDR) {
      rx->hdr[rx->hdr_have++] = p[u++];
      if (rx->hdr_have == NP_AGENT_HDR &&
          (rx->len = np_agent_hdr_len(rx->hdr)) == 0) {
        *used = u;
        return NP_ETOOBIG;
      }
      continue;
    }
    size_t take = rx->len - rx->have;
    if (take > n - u)
      take = n - u;
    memcpy(rx->body + rx->have, p + u, take);
    rx->have += take;
    u += take;
    if (rx->have == rx->len) {
      rx->body[rx->len] = '\0';
      *used = u;
      return 1;
    }
  }
  *used = u;
  return 0;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, double deadline) {
  for (;;) {
    double left = deadline - np_time_mono_s();
    if (left <= 0)
      return NP_ETIMEDOUT;
    struct pollfd p = {.fd = fd, .events = events};
    int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
    int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return NP_EIO;
    if (r > 0)
      return 0;
  }
}

int np_agent_write_all(int fd, const void *buf, size_t len, double deadline) {
  const unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int rc = wait_fd(fd, POLLOUT, deadline);
      if (rc)
        return rc;
      continue;
    }
    if (n <= 0)
      return NP_EIO;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

void np_agent_hex(const unsigned char *b, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[b[i] >> 4];
    out[2 * i + 1] = digits[b[i] & 15];
  }
  out[2 * n] = '\0';
}

static int hexval(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

int np_agent_unhex(const char *hex, unsigned char *b, size_t n) {
  if (strlen(hex) != 2 * n)
    return NP_EPARSE;
  for (size_t i = 0; i < n; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return NP_EPARSE;
    b[i] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}
