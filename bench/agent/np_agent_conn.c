/*
 * np_agent_conn.c - one connection's I/O in the agent's loop (see
 * np_agent_int.h): responses queued in a per-session buffer of at most
 * --max-output-bytes and written without blocking (a peer that does not
 * read fills its own buffer and is ended; it never holds the loop), the
 * refusal (a failed attempt of the address before the welcome, counted
 * always), and closing (a welcomed session's services stop with it).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "np_agent_int.h"
#include "np_time.h"

void np_agent__addr_text(const struct sockaddr_storage *ss, char *buf,
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

void np_agent__conn_close(struct np_agent *a, struct np_agent_conn *c) {
  if (c->state == NP_AGENT_CONN_READY) {
    np_agent__service_stop_session(a, c->session);
    np_agent__log(a, "session %.8s from %s: ended (%u messages)", c->session,
                  c->peer_text, c->messages);
  }
  if (c->ssl) {
    SSL_free(c->ssl);
    ERR_clear_error();
  }
  if (c->fd >= 0)
    close(c->fd);
  np_agent_rx_free(&c->rx);
  free(c->out);
  memset(c, 0, sizeof *c);
  c->fd = -1;
}

/* Write what is queued, without blocking: 0 (all written or the socket
 * is full: c->want says when to go on), or the TLS failure's phrase. */
int np_agent__conn_flush(struct np_agent_conn *c, char *why, size_t wl) {
  while (c->out_at < c->out_len) {
    int n =
        SSL_write(c->ssl, c->out + c->out_at, (int)(c->out_len - c->out_at));
    if (n > 0) {
      c->out_at += (size_t)n;
      c->last_active = np_time_mono_s();
      continue;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
      c->want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
      return 0;
    }
    np_agent_tls_error(c->ssl, n, why, wl);
    return NP_EIO;
  }
  c->out_at = c->out_len = 0;
  c->want = 0;
  return 0;
}

/* Queue msg for the peer.  NP_ENOSPC when the session's output would
 * pass --max-output-bytes (the peer does not read), NP_ENOMEM. */
int np_agent__conn_queue(struct np_agent *a, struct np_agent_conn *c,
                         const cJSON *m) {
  unsigned char *buf = NULL;
  size_t len = 0;
  struct np_errbuf eb;
  int rc = np_agent_msg_encode(m, &buf, &len, &eb);
  if (rc)
    return rc;
  /* what was written goes (a write TLS retries may move: the mode
   * allows it), so the buffer never exceeds the bound however long the
   * session */
  if (c->out_at > 0) {
    memmove(c->out, c->out + c->out_at, c->out_len - c->out_at);
    c->out_len -= c->out_at;
    c->out_at = 0;
  }
  if (c->out_len + len > a->cfg->max_output_bytes) {
    free(buf);
    return NP_ENOSPC;
  }
  if (c->out_len + len > c->out_cap) {
    size_t cap = c->out_len + len;
    unsigned char *g = realloc(c->out, cap);
    if (g == NULL) {
      free(buf);
      return NP_ENOMEM;
    }
    c->out = g;
    c->out_cap = cap;
  }
  memcpy(c->out + c->out_len, buf, len);
  c->out_len += len;
  free(buf);
  return 0;
}

/* A refused peer: a failed attempt of its address unless it was
 * welcomed (then its session just ends); counted either way.  A peer that
 * got through TLS (it holds the token) gets a refused message with the
 * reason; an unauthenticated one gets nothing (TLS sent its alert). */
void np_agent__conn_refuse(struct np_agent *a, struct np_agent_conn *c,
                           const char *why) {
  a->refusals++;
  if (c->state == NP_AGENT_CONN_HELLO || c->state == NP_AGENT_CONN_READY) {
    cJSON *r = np_agent_msg_new(NP_AGENT_REFUSED);
    char discard[200];
    if (r && cJSON_AddStringToObject(r, "reason", why) &&
        np_agent__conn_queue(a, c, r) == 0 &&
        np_agent__conn_flush(c, discard, sizeof discard) == 0)
      SSL_shutdown(c->ssl);
    cJSON_Delete(r);
  }
  if (c->state == NP_AGENT_CONN_READY) {
    np_agent__log(a, "session %.8s from %s: %s", c->session, c->peer_text, why);
  } else {
    uint32_t n = np_agent__guard_fail(a, &c->peer);
    np_agent__log(a, "refused %s: %s (failure %u of %u before a lockout)",
                  c->peer_text, why, n, a->cfg->max_failures);
  }
  np_agent__conn_close(a, c);
}
