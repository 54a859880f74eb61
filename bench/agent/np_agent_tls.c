/*
 * np_agent_tls.c - TLS 1.3 external PSK for the control channel (see
 * np_agent_tls.h): HKDF of the token, the PSK identity, the OpenSSL
 * contexts and their PSK callbacks, and OpenSSL's errors as one phrase.
 * OpenSSL errors become NP_ECRYPTO here, at the module's edge.
 */
#include "np_agent_tls.h"

#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "np_agent_wire.h"

/* Both SHA-256 suites: the PSK is bound to SHA-256 (its session says
 * TLS_AES_128_GCM_SHA256), so the server may pick either. */
static const char suites[] =
    "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256";
static const unsigned char aes128gcm_sha256[2] = {0x13, 0x01};

struct np_agent_tls_ctx {
  SSL_CTX *ctx;                            /* OpenSSL's (owned)        */
  enum np_agent_tls_role role;             /* client or server          */
  unsigned char psk[NP_AGENT_PSK_LEN];     /* derived (wiped at free)   */
  char keyid[NP_AGENT_KEYID_HEX + 1];      /* of the token              */
  char identity[NP_AGENT_IDENTITY_LEN + 1]; /* what the client offers   */
};

static int hkdf(const struct np_agent_token *tok, const char *info,
                unsigned char *out, size_t n) {
  int rc = NP_ECRYPTO;
  EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
  EVP_KDF_CTX *k = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
  OSSL_PARAM p[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
                                       (char *)"SHA256", 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
                                        (void *)tok->key, tok->len),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info,
                                        strlen(info)),
      OSSL_PARAM_construct_end()};
  if (k && EVP_KDF_derive(k, out, n, p) == 1)
    rc = 0;
  EVP_KDF_CTX_free(k);
  EVP_KDF_free(kdf);
  return rc;
}

int np_agent_tls_derive(const struct np_agent_token *tok,
                        unsigned char psk[NP_AGENT_PSK_LEN],
                        char keyid[NP_AGENT_KEYID_HEX + 1]) {
  unsigned char id[NP_AGENT_KEYID_HEX / 2];
  if (hkdf(tok, "netproof-agent/2 psk", psk, NP_AGENT_PSK_LEN) != 0 ||
      hkdf(tok, "netproof-agent/2 key id", id, sizeof id) != 0)
    return NP_ECRYPTO;
  np_agent_hex(id, sizeof id, keyid);
  return 0;
}

int np_agent_tls_identity_parse(const unsigned char *id, size_t len,
                                char keyid[NP_AGENT_KEYID_HEX + 1]) {
  const size_t pl = sizeof NP_AGENT_IDENTITY_PREFIX - 1;
  if (id == NULL || len != NP_AGENT_IDENTITY_LEN ||
      memcmp(id, NP_AGENT_IDENTITY_PREFIX, pl) != 0)
    return NP_EPARSE;
  for (size_t i = pl; i < len; i++)
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
      return NP_EPARSE;
  memcpy(keyid, id + pl, NP_AGENT_KEYID_HEX);
  keyid[NP_AGENT_KEYID_HEX] = '\0';
  return 0;
}

/* The PSK as a TLS 1.3 session (RFC 8446 4.2.11: an external PSK). */
static SSL_SESSION *psk_session(SSL *ssl, const struct np_agent_tls_ctx *t) {
  const SSL_CIPHER *c = SSL_CIPHER_find(ssl, aes128gcm_sha256);
  SSL_SESSION *s = c ? SSL_SESSION_new() : NULL;
  if (s == NULL)
    return NULL;
  if (SSL_SESSION_set1_master_key(s, t->psk, sizeof t->psk) != 1 ||
      SSL_SESSION_set_cipher(s, c) != 1 ||
      SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION) != 1) {
    SSL_SESSION_free(s);
    return NULL;
  }
  return s;
}

/* Client: offer the PSK under its identity (none for a hash that is not
 * SHA-256, which only a HelloRetryRequest could ask for). */
static int use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id,
                       size_t *idlen, SSL_SESSION **sess) {
  const struct np_agent_tls_ctx *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
  const SSL_CIPHER *c = SSL_CIPHER_find(ssl, aes128gcm_sha256);
  *sess = NULL;
  *id = NULL;
  *idlen = 0;
  if (c == NULL)
    return 0;
  if (md != NULL && SSL_CIPHER_get_handshake_digest(c) != md)
    return 1;
  if ((*sess = psk_session(ssl, t)) == NULL)
    return 0;
  *id = (const unsigned char *)t->identity;
  *idlen = NP_AGENT_IDENTITY_LEN;
  return 1;
}

/* Server: the PSK when the identity names our key id; none otherwise
 * (without a certificate the handshake then fails). */
static int find_session(SSL *ssl, const unsigned char *id, size_t idlen,
                        SSL_SESSION **sess) {
  const struct np_agent_tls_ctx *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
  char *seen = SSL_get_app_data(ssl), kid[NP_AGENT_KEYID_HEX + 1];
  *sess = NULL;
  if (np_agent_tls_identity_parse(id, idlen, kid) != 0) {
    if (seen)
      snprintf(seen, NP_AGENT_KEYID_HEX + 1, "?");
    return 1;
  }
  if (seen)
    memcpy(seen, kid, sizeof kid);
  if (CRYPTO_memcmp(kid, t->keyid, NP_AGENT_KEYID_HEX) != 0)
    return 1;
  *sess = psk_session(ssl, t);
  return *sess ? 1 : 0;
}

static int crypto_fail(struct np_errbuf *eb, const char *what) {
  char r[200];
  ERR_error_string_n(ERR_get_error(), r, sizeof r);
  ERR_clear_error();
  return np_errbuf_set(eb, NP_ECRYPTO, "TLS setup: %s: %s", what, r);
}

int np_agent_tls_ctx_new(enum np_agent_tls_role role,
                         const struct np_agent_token *tok,
                         struct np_agent_tls_ctx **out, struct np_errbuf *eb) {
  struct np_agent_tls_ctx *t = OPENSSL_zalloc(sizeof *t);
  if (t == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  t->role = role;
  int rc;
  if (np_agent_tls_derive(tok, t->psk, t->keyid) != 0) {
    rc = crypto_fail(eb, "HKDF-SHA256 of the token");
    goto fail;
  }
  snprintf(t->identity, sizeof t->identity, "%s%s", NP_AGENT_IDENTITY_PREFIX,
           t->keyid);
  t->ctx = SSL_CTX_new(role == NP_AGENT_TLS_CLIENT ? TLS_client_method()
                                                   : TLS_server_method());
  if (t->ctx == NULL ||
      SSL_CTX_set_min_proto_version(t->ctx, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(t->ctx, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_ciphersuites(t->ctx, suites) != 1 ||
      SSL_CTX_set_app_data(t->ctx, t) != 1) {
    rc = crypto_fail(eb, "SSL_CTX");
    goto fail;
  }
  /* no resumption tickets: every session starts from the PSK */
  SSL_CTX_set_options(t->ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                               SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (role == NP_AGENT_TLS_CLIENT) {
    /* a certificate is never accepted (no trust anchors, and
     * np_agent_tls_check wants the PSK) */
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_psk_use_session_callback(t->ctx, use_session);
  } else {
    SSL_CTX_set_num_tickets(t->ctx, 0);
    SSL_CTX_set_psk_find_session_callback(t->ctx, find_session);
  }
  *out = t;
  return 0;
fail:
  np_agent_tls_ctx_free(t);
  return rc;
}

void np_agent_tls_ctx_free(struct np_agent_tls_ctx *t) {
  if (t == NULL)
    return;
  SSL_CTX_free(t->ctx);
  OPENSSL_clear_free(t, sizeof *t);
}

const char *np_agent_tls_keyid(const struct np_agent_tls_ctx *t) {
  return t->keyid;
}

SSL *np_agent_tls_new(struct np_agent_tls_ctx *t, int fd,
                      char peer_keyid[NP_AGENT_KEYID_HEX + 1]) {
  SSL *ssl = SSL_new(t->ctx);
  if (ssl == NULL)
    return NULL;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return NULL;
  }
  if (peer_keyid) {
    peer_keyid[0] = '\0';
    SSL_set_app_data(ssl, peer_keyid);
  }
  return ssl;
}

int np_agent_tls_check(SSL *ssl) {
  return SSL_version(ssl) == TLS1_3_VERSION && SSL_session_reused(ssl) == 1
             ? 0
             : NP_EACCES;
}

const char *np_agent_tls_error(SSL *ssl, int ret, char *buf, size_t len) {
  int e = SSL_get_error(ssl, ret);
  unsigned long err = ERR_peek_error();
  int reason = ERR_GET_REASON(err);
  char r[200] = "";
  if (err)
    ERR_error_string_n(err, r, sizeof r);
  ERR_clear_error();
  if (reason == SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC ||
      reason == SSL_R_SSLV3_ALERT_BAD_RECORD_MAC)
    snprintf(buf, len,
             "a TLS record failed its authentication (altered, replayed, "
             "reordered or dropped on the way; %s)",
             reason == SSL_R_SSLV3_ALERT_BAD_RECORD_MAC
                 ? "the peer's alert: bad record mac"
                 : "bad record mac");
  else if (e == SSL_ERROR_ZERO_RETURN)
    snprintf(buf, len, "the peer closed the TLS session");
  else if (e == SSL_ERROR_SYSCALL ||
           reason == SSL_R_UNEXPECTED_EOF_WHILE_READING)
    snprintf(buf, len,
             "the connection was closed or reset (no TLS "
             "close_notify)");
  else if (err)
    snprintf(buf, len, "TLS: %s", r);
  else
    snprintf(buf, len, "TLS: error class %d", e);
  return buf;
}
