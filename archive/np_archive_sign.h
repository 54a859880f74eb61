/*
 * np_archive_sign.h - Ed25519 keys and the signature check inside
 * np_archive (np_archive_sign.c); keygen and sign themselves are in
 * np_archive.h.  Keys are OpenSSL EVP_PKEYs: the caller frees them with
 * EVP_PKEY_free.
 */
#ifndef NP_ARCHIVE_SIGN_H
#define NP_ARCHIVE_SIGN_H

#include <stddef.h>

#include <openssl/evp.h>

#include "np_archive_problems.h"
#include "np_sha256.h"
#include "np_sigfile.h"

/* KEY.pem -> KEY.pub.pem (any other name: name + ".pub.pem"). */
int np_archive_pub_path(const char *key, char *out, size_t len);

/* BUNDLE.sig, or given when non-NULL. */
void np_archive_sig_path(const char *bundle, const char *given, char *out,
                         size_t len);

/* Load an unencrypted PEM Ed25519 key: the private key (private_part 1,
 * refused with NP_EACCES when the file is accessible by group or others,
 * NP_EUSAGE when not a regular file) or a public key.  NP_EUSAGE for
 * anything that is not such a key; I/O codes. */
int np_archive_key_load(const char *path, int private_part, EVP_PKEY **out,
                        struct np_errbuf *eb);

/* SHA-256 of the DER SubjectPublicKeyInfo of pkey. */
int np_archive_key_fingerprint(EVP_PKEY *pkey, char hex[NP_SHA256_HEX_SIZE]);

/* Parse sigpath and check it with pubkey: the file's form, the key's
 * fingerprint, the Ed25519 signature over the first five lines.  Each
 * failure is a problem in sp; *sf keeps the parsed fields (message_len 0
 * when the file did not parse) so the caller can compare the bag and
 * tag-manifest digest once the bundle is read; signer gets the
 * fingerprint when the signature verified ("" otherwise).  Returns 0, or
 * a code for inputs that cannot be read (missing signature, unreadable or
 * malformed public key) with detail in eb. */
int np_archive_sig_check(const char *sigpath, const char *pubkey,
                         struct np_problems *sp, struct np_sigfile *sf,
                         char signer[NP_SHA256_HEX_SIZE],
                         struct np_errbuf *eb);

#endif /* NP_ARCHIVE_SIGN_H */
