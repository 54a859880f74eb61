/*
 * np_agent_auth.h - the shared secret and the challenge-response over it.
 *
 * The token is a file of at least 64 hexadecimal digits (32 random bytes;
 * `openssl rand -hex 32 > FILE`), readable by its owner only: a file that
 * another user can read or write, that is not a regular file, or that is
 * not owned by the user reading it is refused, as is a shorter or
 * non-hex token.  The secret lives in a struct np_agent_token that is
 * wiped when freed; no function here copies it anywhere else, and no
 * message (eb) ever contains it or a MAC.
 *
 * Handshake MACs are HMAC-SHA256 (OpenSSL) over
 *     label || server_nonce (32 bytes) || client_nonce (32 bytes) || params
 * where label is "netproof-agent/1 client\0" for the client's proof and
 * "netproof-agent/1 agent\0" for the agent's, and params the compact JSON
 * of the hello's session parameters as cJSON prints it.  A fresh server
 * nonce per connection makes a recorded handshake worthless; the two
 * labels keep one side's MAC from being reflected as the other's.
 * Comparison is constant-time (CRYPTO_memcmp).
 */
#ifndef NP_AGENT_AUTH_H
#define NP_AGENT_AUTH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"

#define NP_AGENT_TOKEN_MIN 32  /* bytes of secret, at least            */
#define NP_AGENT_TOKEN_MAX 512 /* bytes of secret, at most             */
#define NP_AGENT_NONCE 32      /* bytes of each nonce                  */
#define NP_AGENT_MAC 32        /* bytes of an HMAC-SHA256              */

struct np_agent_token {
  unsigned char key[NP_AGENT_TOKEN_MAX]; /* the secret                  */
  size_t len;                            /* its bytes                   */
};

/* Read the token file (option names the option for messages, e.g.
 * "--token-file").  NP_EACCES for a file others may read or write or
 * that is not ours, NP_EPARSE for a token that is not 64..1024 hex
 * digits, NP_ENOENT / NP_EIO from reading; one line in eb naming the
 * file and the reason, never the content.  *tok written on success. */
int np_agent_token_load(const char *path, const char *option,
                        struct np_agent_token *tok, struct np_errbuf *eb);

/* Overwrite the secret (OPENSSL_cleanse). */
void np_agent_token_wipe(struct np_agent_token *tok);

enum np_agent_side {
  NP_AGENT_SIDE_CLIENT, /* the client's proof (auth)    */
  NP_AGENT_SIDE_AGENT   /* the agent's proof (welcome)  */
};

/* The MAC of one side over the two nonces and params (the hello's object,
 * printed compact here).  NP_ECRYPTO, NP_ENOMEM. */
int np_agent_auth_mac(const struct np_agent_token *tok, enum np_agent_side side,
                      const unsigned char server_nonce[NP_AGENT_NONCE],
                      const unsigned char client_nonce[NP_AGENT_NONCE],
                      const cJSON *params, unsigned char mac[NP_AGENT_MAC]);

/* 1 when the hex MAC in text equals the expected one, compared in
 * constant time; 0 otherwise (also for malformed text). */
int np_agent_auth_equal(const char *text,
                        const unsigned char want[NP_AGENT_MAC]);

/* n random bytes (OpenSSL's CSPRNG).  NP_ECRYPTO. */
int np_agent_random(unsigned char *b, size_t n);

#endif /* NP_AGENT_AUTH_H */
