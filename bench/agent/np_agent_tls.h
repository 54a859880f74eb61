/*
 * np_agent_tls.h - the control channel's security: TLS 1.3 with an
 * external pre-shared key (RFC 8446 2.2 and 4.2.11; OpenSSL's
 * SSL_CTX_set_psk_use_session_callback / _find_session_callback), no
 * certificates, shared by the agent and its client.
 *
 * The PSK is never the raw token: both are derived from it with
 * HKDF-SHA256 (RFC 5869; OpenSSL's EVP_KDF "HKDF", empty salt):
 *     psk    = HKDF(token, info "netproof-agent/2 psk",    32 bytes)
 *     key id = HKDF(token, info "netproof-agent/2 key id",  8 bytes), hex
 * and the PSK identity the client offers is the text
 *     "netproof/agent/2 key " KEYID        (37 bytes, KEYID 16 lowercase hex)
 * so an agent can say "the client holds another token" without learning
 * anything about either secret.  Cipher suites: TLS_AES_128_GCM_SHA256
 * and TLS_CHACHA20_POLY1305_SHA256 (both SHA-256, the PSK's hash); key
 * exchange psk_dhe_ke (forward secrecy); no session tickets; a peer that
 * did not use the PSK (a certificate handshake) is refused.  TLS gives
 * each record an AEAD tag over an implicit sequence number: an altered,
 * replayed, reordered or dropped record fails to decrypt and ends the
 * session (np_agent_tls_error names it).
 *
 * Ownership: an np_agent_tls_ctx holds an SSL_CTX and a copy of the
 * derived PSK (wiped by np_agent_tls_ctx_free, which accepts NULL); SSL
 * objects made from it are the caller's (SSL_free).
 */
#ifndef NP_AGENT_TLS_H
#define NP_AGENT_TLS_H

#include <stddef.h>

#include <openssl/ssl.h>

#include "np_agent_auth.h"
#include "np_err.h"

#define NP_AGENT_PROTOCOL "netproof/agent/2"  /* the wire protocol       */
#define NP_AGENT_PSK_LEN 32                   /* bytes of the PSK        */
#define NP_AGENT_KEYID_HEX 16                 /* hex digits of a key id  */
#define NP_AGENT_IDENTITY_PREFIX "netproof/agent/2 key "
#define NP_AGENT_IDENTITY_LEN (sizeof NP_AGENT_IDENTITY_PREFIX - 1 + \
                               NP_AGENT_KEYID_HEX)

/* The derived PSK and key id of tok.  NP_ECRYPTO. */
int np_agent_tls_derive(const struct np_agent_token *tok,
                        unsigned char psk[NP_AGENT_PSK_LEN],
                        char keyid[NP_AGENT_KEYID_HEX + 1]);

/* The key id named by a PSK identity (len bytes, not NUL-terminated, as
 * the peer sent it) into keyid.  NP_EPARSE when it is not exactly
 * NP_AGENT_IDENTITY_PREFIX and 16 lowercase hex digits. */
int np_agent_tls_identity_parse(const unsigned char *id, size_t len,
                                char keyid[NP_AGENT_KEYID_HEX + 1]);

enum np_agent_tls_role { NP_AGENT_TLS_CLIENT, NP_AGENT_TLS_SERVER };

struct np_agent_tls_ctx;

/* A context for role over tok's PSK.  NP_ECRYPTO (OpenSSL's reason in
 * eb), NP_ENOMEM. */
int np_agent_tls_ctx_new(enum np_agent_tls_role role,
                         const struct np_agent_token *tok,
                         struct np_agent_tls_ctx **out, struct np_errbuf *eb);
void np_agent_tls_ctx_free(struct np_agent_tls_ctx *t);

/* The key id of the context's token. */
const char *np_agent_tls_keyid(const struct np_agent_tls_ctx *t);

/* A new SSL on fd (non-blocking sockets are fine: the caller drives it
 * with SSL_connect / SSL_accept / SSL_read / SSL_write and polls for what
 * SSL_get_error asks).  Server: peer_keyid (the caller's, alive as long as
 * the SSL) receives the key id the client's identity named during the
 * handshake ("" when none was offered, "?" when the identity was not ours
 * in form); the client passes NULL.  NULL on no memory. */
SSL *np_agent_tls_new(struct np_agent_tls_ctx *t, int fd,
                      char peer_keyid[NP_AGENT_KEYID_HEX + 1]);

/* After the handshake: 0 when the PSK was used (the peer holds the
 * token), NP_EACCES otherwise. */
int np_agent_tls_check(SSL *ssl);

/* Why an SSL call failed with ret (SSL_get_error's class and OpenSSL's
 * first queued reason), as one phrase into buf; the queue is cleared.
 * A record whose tag does not verify is named "a TLS record failed its
 * authentication (altered, replayed, reordered or dropped on the way)". */
const char *np_agent_tls_error(SSL *ssl, int ret, char *buf, size_t len);

#endif /* NP_AGENT_TLS_H */
