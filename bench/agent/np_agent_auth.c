/*
 * np_agent_auth.c - token file, HMAC-SHA256 proofs, constant-time check
 * (see np_agent_auth.h).  OpenSSL errors become NP_ECRYPTO here, at the
 * module's edge.
 */
#include "np_agent_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "np_agent_wire.h"

/* The largest token file: 1024 hex digits and a line end or two. */
#define TOKEN_FILE_MAX 1100

static int hexval(unsigned char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* Owner-only, ours, regular: checked on the open descriptor (no race
 * between the check and the read). */
static int check_mode(int fd, const char *path, const char *option,
                      struct np_errbuf *eb) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s %s: %s", option,
                         path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return np_errbuf_set(eb, NP_EACCES, "%s %s: not a regular file", option,
                         path);
  if (st.st_uid != geteuid())
    return np_errbuf_set(eb, NP_EACCES,
                         "%s %s: owned by uid %u, not by this user (uid %u)",
                         option, path, (unsigned)st.st_uid,
                         (unsigned)geteuid());
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return np_errbuf_set(eb, NP_EACCES,
                         "%s %s: mode %04o lets others read or write the "
                         "secret; chmod 600 it",
                         option, path, (unsigned)(st.st_mode & 07777));
  return 0;
}

int np_agent_token_load(const char *path, const char *option,
                        struct np_agent_token *tok, struct np_errbuf *eb) {
  unsigned char raw[TOKEN_FILE_MAX + 1];
  struct np_agent_token t;
  /* O_NONBLOCK: a FIFO (or a device) opens at once instead of waiting
   * for a writer, and check_mode refuses it; a regular file reads the
   * same either way */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
                          O_NONBLOCK);
  if (fd < 0)
    return np_errbuf_set(eb, errno == ELOOP ? NP_EACCES
                                            : np_err_from_errno(errno),
                         "%s %s: %s", option, path,
                         errno == ELOOP ? "a symbolic link (name the file "
                                          "itself)"
                                        : strerror(errno));
  int rc = check_mode(fd, path, option, eb);
  size_t n = 0;
  while (rc == 0 && n < sizeof raw) {
    ssize_t r = read(fd, raw + n, sizeof raw - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      rc = np_errbuf_set(eb, NP_EIO, "%s %s: %s", option, path,
                         strerror(errno));
    if (r <= 0)
      break;
    n += (size_t)r;
  }
  close(fd);
  if (rc == 0 && n > TOKEN_FILE_MAX)
    rc = np_errbuf_set(eb, NP_EPARSE,
                       "%s %s: longer than a token (at most 1024 hex digits)",
                       option, path);
  /* the digits, then at most a line end */
  size_t digits = 0;
  while (rc == 0 && digits < n && hexval(raw[digits]) >= 0)
    digits++;
  size_t end = digits;
  while (rc == 0 && end < n && (raw[end] == '\n' || raw[end] == '\r'))
    end++;
  if (rc == 0 && (end != n || digits % 2 != 0 ||
                  digits < 2 * NP_AGENT_TOKEN_MIN ||
                  digits > 2 * NP_AGENT_TOKEN_MAX))
    rc = np_errbuf_set(eb, NP_EPARSE,
                       "%s %s: not a token (64 to 1024 hexadecimal digits, "
                       "e.g. from `openssl rand -hex 32`)",
                       option, path);
  if (rc == 0) {
    for (size_t i = 0; i < digits / 2; i++)
      t.key[i] = (unsigned char)(hexval(raw[2 * i]) << 4 |
                                 hexval(raw[2 * i + 1]));
    t.len = digits / 2;
    *tok = t;
  }
  OPENSSL_cleanse(raw, sizeof raw);
  OPENSSL_cleanse(&t, sizeof t);
  return rc;
}

void np_agent_token_wipe(struct np_agent_token *tok) {
  if (tok)
    OPENSSL_cleanse(tok, sizeof *tok);
}

static const char label_client[] = "netproof-agent/1 client"; /* + NUL */
static const char label_agent[] = "netproof-agent/1 agent";   /* + NUL */

int np_agent_auth_mac(const struct np_agent_token *tok, enum np_agent_side side,
                      const unsigned char server_nonce[NP_AGENT_NONCE],
                      const unsigned char client_nonce[NP_AGENT_NONCE],
                      const cJSON *params, unsigned char mac[NP_AGENT_MAC]) {
  char *p = cJSON_PrintUnformatted(params);
  if (p == NULL)
    return NP_ENOMEM;
  const char *label = side == NP_AGENT_SIDE_CLIENT ? label_client : label_agent;
  size_t ll = strlen(label) + 1, pl = strlen(p);
  int rc = NP_ECRYPTO;
  EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
  EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
  OSSL_PARAM prm[] = {
      OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
      OSSL_PARAM_construct_end()};
  size_t out = 0;
  if (ctx && EVP_MAC_init(ctx, tok->key, tok->len, prm) == 1 &&
      EVP_MAC_update(ctx, (const unsigned char *)label, ll) == 1 &&
      EVP_MAC_update(ctx, server_nonce, NP_AGENT_NONCE) == 1 &&
      EVP_MAC_update(ctx, client_nonce, NP_AGENT_NONCE) == 1 &&
      EVP_MAC_update(ctx, (const unsigned char *)p, pl) == 1 &&
      EVP_MAC_final(ctx, mac, &out, NP_AGENT_MAC) == 1 && out == NP_AGENT_MAC)
    rc = 0;
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(m);
  cJSON_free(p);
  return rc;
}

int np_agent_auth_equal(const char *text,
                        const unsigned char want[NP_AGENT_MAC]) {
  unsigned char have[NP_AGENT_MAC];
  if (text == NULL || np_agent_unhex(text, have, sizeof have) != 0)
    return 0;
  int eq = CRYPTO_memcmp(have, want, NP_AGENT_MAC) == 0;
  OPENSSL_cleanse(have, sizeof have);
  return eq;
}

int np_agent_random(unsigned char *b, size_t n) {
  return RAND_bytes(b, (int)n) == 1 ? 0 : NP_ECRYPTO;
}
