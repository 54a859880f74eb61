/*
 * agent_slow_peer.c - a peer that holds the token and never reads: TLS
 * 1.3 over the PSK and the hello (np_agent_tls.h, the same calls as the
 * client), then N snapshot requests sent back to back with a 4 KiB
 * receive buffer, then it sleeps HOLD seconds without reading a byte.
 * Used by agent_slow_reader_test.py: the agent must end this session at
 * its output bound while other sessions are served at once.
 *   agent_slow_peer ADDR:PORT TOKEN_FILE N HOLD_SECONDS
 * Exit 0 when the requests were written (or the agent ended the session
 * while they were), 3 otherwise.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "np_addr.h"
#include "np_agent_client.h"
#include "np_agent_tls.h"
#include "np_agent_wire.h"
#include "np_time.h"

/* Drive one SSL call to completion before the deadline: 1, 0 (failed). */
static int wait_ssl(SSL *ssl, int fd, int ret, double deadline) {
  int e = SSL_get_error(ssl, ret);
  if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
    return 0;
  double left = deadline - np_time_mono_s();
  if (left <= 0)
    return 0;
  struct pollfd p = {.fd = fd,
                     .events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT};
  return poll(&p, 1, (int)(left * 1000) + 1) >= 0;
}

static int write_all(SSL *ssl, int fd, const unsigned char *b, size_t n,
                     double deadline) {
  size_t off = 0;
  while (off < n) {
    int r = SSL_write(ssl, b + off, (int)(n - off));
    if (r > 0)
      off += (size_t)r;
    else if (!wait_ssl(ssl, fd, r, deadline))
      return 0;
  }
  return 1;
}

static int send_json(SSL *ssl, int fd, const char *json, double deadline) {
  size_t n = strlen(json);
  unsigned char *b = malloc(n + 4);
  if (b == NULL)
    return 0;
  b[0] = (unsigned char)(n >> 24);
  b[1] = (unsigned char)(n >> 16);
  b[2] = (unsigned char)(n >> 8);
  b[3] = (unsigned char)n;
  memcpy(b + 4, json, n);
  int ok = write_all(ssl, fd, b, n + 4, deadline);
  free(b);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: agent_slow_peer ADDR:PORT TOKEN_FILE N HOLD\n");
    return 2;
  }
  struct np_errbuf eb = {{0}};
  struct np_agent_token tok;
  struct np_addr to;
  struct np_agent_tls_ctx *t = NULL;
  if (np_agent_token_load(argv[2], "token", &tok, &eb) != 0 ||
      np_addr_parse("agent", argv[1], 0, &to, &eb) != 0 ||
      np_agent_tls_ctx_new(NP_AGENT_TLS_CLIENT, &tok, &t, &eb) != 0) {
    fprintf(stderr, "agent_slow_peer: %s\n", eb.msg);
    return 2;
  }
  int n = atoi(argv[3]);
  double hold = atof(argv[4]), deadline = np_time_mono_s() + 20;
  struct sockaddr_storage ss = to.ss;
  socklen_t len = to.len;
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0), small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  if (connect(fd, (struct sockaddr *)&ss, len) != 0 && errno != EINPROGRESS)
    return 3;
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  poll(&p, 1, 5000);
  SSL *ssl = np_agent_tls_new(t, fd, NULL);
  int r;
  while ((r = SSL_connect(ssl)) != 1)
    if (!wait_ssl(ssl, fd, r, deadline)) {
      fprintf(stderr, "agent_slow_peer: TLS handshake failed\n");
      return 3;
    }
  char hello[300];
  snprintf(hello, sizeof hello,
           "{\"schema\":\"%s\",\"type\":\"hello\",\"version\":2,\"params\":"
           "{\"client\":\"agent_slow_peer\",\"agent\":\"%s\",\"purpose\":"
           "\"test\"}}",
           NP_AGENT_TAG, argv[1]);
  if (!send_json(ssl, fd, hello, deadline))
    return 3;
  int sent = 0;
  for (int i = 1; i <= n; i++) {
    char req[200];
    snprintf(req, sizeof req,
             "{\"schema\":\"%s\",\"type\":\"request\",\"id\":%d,\"action\":"
             "\"snapshot\",\"args\":{}}",
             NP_AGENT_TAG, i);
    if (!send_json(ssl, fd, req, deadline))
      break; /* the agent ended the session */
    sent++;
  }
  printf("agent_slow_peer: sent %d of %d requests, not reading\n", sent, n);
  fflush(stdout);
  usleep((useconds_t)(hold * 1e6));
  SSL_free(ssl);
  close(fd);
  np_agent_tls_ctx_free(t);
  np_agent_token_wipe(&tok);
  return 0;
}
