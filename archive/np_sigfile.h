/*
 * np_sigfile.h - the detached signature of a bundle (BUNDLE.sig): a
 * seven-line text file (version 2), validated strictly on read.
 *
 *   netproof-signature: 2
 *   algorithm: ed25519
 *   bag: <top folder of the bag>
 *   tagmanifest-sha256: <SHA-256 of the bag's tagmanifest-sha256.txt>
 *   bundle-sha256: <SHA-256 of the whole bundle file, every byte>
 *   key-sha256: <SHA-256 of the signer's public key, DER SubjectPublicKeyInfo>
 *   signature: <base64 of the 64-byte Ed25519 signature>
 *
 * The signed message is every line but the last exactly as it stands in
 * the file, newlines included, so `head -n 6 BUNDLE.sig` is the message
 * and `openssl pkeyutl -verify -rawin` checks it (docs/archive-format.md).
 * The tag manifest covers every tag file, evidence.json and the payload
 * manifest, which cover every payload byte; the bundle digest covers the
 * tar and gzip that carry them, so a signed bundle is exactly its bytes.
 * Version 1 (netproof 0.2: six lines, no bundle-sha256, `head -n 5`) is
 * still read and verified, and reported as signed with the 0.2 rule.
 * Pure text handling; no keys.
 */
#ifndef NP_SIGFILE_H
#define NP_SIGFILE_H

#include <stddef.h>

#include "np_err.h"
#include "np_sha256.h"

#define NP_SIGFILE_VERSION_CURRENT 2 /* what sign writes */
#define NP_SIGFILE_ALG "ed25519"
#define NP_SIGFILE_SIG_BYTES 64
#define NP_SIGFILE_MAX 1024 /* bytes; a valid file is about 400 */

struct np_sigfile {
  int version;                                   /* 1 (0.2 rule) or 2    */
  char bag[256];                                 /* the bag's top folder */
  char tagmanifest_sha256[NP_SHA256_HEX_SIZE];   /* lowercase hex        */
  char bundle_sha256[NP_SHA256_HEX_SIZE];        /* version 2: the file  */
  char key_sha256[NP_SHA256_HEX_SIZE];           /* signer fingerprint   */
  unsigned char sig[NP_SIGFILE_SIG_BYTES];       /* raw signature        */
  char message[NP_SIGFILE_MAX];                  /* the signed lines     */
  size_t message_len;                            /* bytes in message     */
};

/* Render s->message from version (0: the current one), bag,
 * tagmanifest_sha256, bundle_sha256 (version 2) and key_sha256.
 * NP_EINVAL when a field is not of its form (name, 64 hex digits). */
int np_sigfile_message(struct np_sigfile *s);

/* The whole file: message then the signature line; out must hold
 * NP_SIGFILE_MAX bytes.  *len excludes the NUL. */
int np_sigfile_render(const struct np_sigfile *s, char *out, size_t *len);

/* Parse and validate a signature file: exactly its version's lines in order,
 * LF line ends, each value of its form, the signature 64 bytes of
 * canonical base64.  NP_EPARSE with "line N: reason" in why. */
int np_sigfile_parse(const char *text, size_t len, struct np_sigfile *out,
                     char *why, size_t whylen);

#endif /* NP_SIGFILE_H */
