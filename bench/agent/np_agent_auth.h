/*
 * np_agent_auth.h - the shared secret (the TLS PSK is derived from it:
 * np_agent_tls.h).
 *
 * The token is a file of at least 64 hexadecimal digits (32 random bytes;
 * `openssl rand -hex 32 > FILE`), readable by its owner only: a file that
 * another user can read or write, that is not a regular file, or that is
 * not owned by the user reading it is refused, as is a shorter or
 * non-hex token.  The secret lives in a struct np_agent_token that is
 * wiped when freed; no function here copies it anywhere else, and no
 * message (eb) ever contains it.
 *
 */
#ifndef NP_AGENT_AUTH_H
#define NP_AGENT_AUTH_H

#include <stddef.h>

#include "np_err.h"

#define NP_AGENT_TOKEN_MIN 32  /* bytes of secret, at least            */
#define NP_AGENT_TOKEN_MAX 512 /* bytes of secret, at most             */

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

/* n random bytes (OpenSSL's CSPRNG).  NP_ECRYPTO. */
int np_agent_random(unsigned char *b, size_t n);

#endif /* NP_AGENT_AUTH_H */
