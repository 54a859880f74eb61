/*
 * np_archive_sign.c - Ed25519 keys and detached bundle signatures through
 * OpenSSL EVP.
 *
 * keygen writes KEY.pem (PKCS#8, created 0600, never overwritten) and
 * KEY.pub.pem (SubjectPublicKeyInfo).  sign verifies the bundle first and
 * signs only a valid one: the message is BUNDLE.sig's first six lines
 * (np_sigfile.h), which name the bag, the SHA-256 of its tag manifest,
 * the SHA-256 of the bundle file (taken in the same read that verified
 * it) and the signer's key fingerprint (SHA-256 of the DER public key, what
 * `openssl pkey -pubin -outform DER | sha256sum` prints).  A private key
 * file readable or writable by group or others is refused before it is
 * parsed; key bytes are wiped after use and go nowhere but OpenSSL - never
 * into a bundle, a record or a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "np_archive_int.h"
#include "np_archive_sign.h"
#include "np_file.h"

#define KEY_FILE_MAX (64u << 10) /* a PEM key is a few hundred bytes */

int np_archive_pub_path(const char *key, char *out, size_t len) {
  size_t n = strlen(key);
  int w = n > 4 && strcmp(key + n - 4, ".pem") == 0
              ? snprintf(out, len, "%.*s.pub.pem", (int)(n - 4), key)
              : snprintf(out, len, "%s.pub.pem", key);
  return w < 0 || (size_t)w >= len ? NP_EINVAL : 0;
}

/* PEM text of pkey into a malloc'd buffer: the private key (PKCS#8) or
 * the public key.  NP_ECRYPTO / NP_ENOMEM. */
static int pem_text(EVP_PKEY *pkey, int private_part, char **out,
                    size_t *len) {
  BIO *bio = BIO_new(BIO_s_mem());
  if (bio == NULL)
    return NP_ENOMEM;
  int ok = private_part ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0,
                                                   NULL, NULL)
                        : PEM_write_bio_PUBKEY(bio, pkey);
  char *data = NULL;
  long n = BIO_get_mem_data(bio, &data);
  int rc = NP_ECRYPTO;
  if (ok == 1 && n > 0 && (*out = malloc((size_t)n)) != NULL) {
    memcpy(*out, data, (size_t)n);
    *len = (size_t)n;
    rc = 0;
  }
  if (private_part && n > 0)
    OPENSSL_cleanse(data, (size_t)n);
  BIO_free(bio);
  return rc;
}

/* Create path (never replacing a file) with mode and write buf, fsync'd. */
static int write_new(const char *path, mode_t mode, const char *buf,
                     size_t len, struct np_errbuf *eb) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                mode);
  if (fd < 0)
    return np_errbuf_set(eb, errno == EEXIST ? NP_EEXIST
                                             : np_err_from_errno(errno),
                         "%s: %s", path,
                         errno == EEXIST ? "exists; refusing to overwrite"
                                         : strerror(errno));
  int rc = 0;
  if (fchmod(fd, mode) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", path,
                       strerror(errno));
  for (size_t off = 0; rc == 0 && off < len;) {
    ssize_t w = write(fd, buf + off, len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      rc = np_errbuf_set(eb, np_err_from_errno(w < 0 ? errno : EIO), "%s: %s",
                         path, strerror(w < 0 ? errno : EIO));
    else
      off += (size_t)w;
  }
  if (rc == 0 && fsync(fd) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", path,
                       strerror(errno));
  if (close(fd) != 0 && rc == 0)
    rc = np_errbuf_set(eb, NP_EIO, "%s: %s", path, strerror(errno));
  if (rc != 0)
    unlink(path);
  return rc;
}

int np_archive_keygen(const char *key, struct np_errbuf *eb) {
  char pub[4200];
  struct stat st;
  if (np_archive_pub_path(key, pub, sizeof pub) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "%s: path too long", key);
  if (lstat(key, &st) == 0 || lstat(pub, &st) == 0)
    return np_errbuf_set(eb, NP_EEXIST, "%s: exists; refusing to overwrite",
                         lstat(key, &st) == 0 ? key : pub);
  EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
  if (pkey == NULL)
    return np_errbuf_set(eb, NP_ECRYPTO, "Ed25519 key generation failed");
  char *priv = NULL, *pubtext = NULL;
  size_t privlen = 0, publen = 0;
  int rc = pem_text(pkey, 1, &priv, &privlen);
  if (rc == 0)
    rc = pem_text(pkey, 0, &pubtext, &publen);
  if (rc != 0) {
    np_errbuf_set(eb, rc, "encoding the key: %s", np_strerror(rc));
    goto free_texts;
  }
  rc = write_new(key, 0600, priv, privlen, eb);
  if (rc == 0) {
    rc = write_new(pub, 0644, pubtext, publen, eb);
    if (rc != 0)
      unlink(key); /* no private key without its public half */
  }
free_texts:
  if (priv != NULL)
    OPENSSL_cleanse(priv, privlen);
  free(priv);
  free(pubtext);
  EVP_PKEY_free(pkey);
  return rc;
}

/* Read a small key file whole; private keys must be 0600 or stricter.
 * The buffer is wiped and freed by the caller (key_buf_free). */
static int key_read(const char *path, int private_part, char **out,
                    size_t *len, struct np_errbuf *eb) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | (private_part ? O_NOFOLLOW : 0));
  if (fd < 0)
    return np_errbuf_set(eb, errno == ELOOP ? NP_EUSAGE
                                            : np_err_from_errno(errno),
                         "%s: %s", path,
                         errno == ELOOP ? "a symbolic link (a private key "
                                          "must be a regular file)"
                                        : strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: fstat: %s", path,
                       strerror(errno));
  else if (!S_ISREG(st.st_mode))
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s: not a regular file", path);
  else if (private_part && (st.st_mode & 077) != 0)
    rc = np_errbuf_set(eb, NP_EACCES,
                       "%s: private key file is accessible by group or "
                       "others (mode %04o); run chmod 600 %s",
                       path, (unsigned)(st.st_mode & 07777), path);
  else if (st.st_size <= 0 || (uint64_t)st.st_size > KEY_FILE_MAX)
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s: %s", path,
                       st.st_size <= 0 ? "empty" : "too large for a key file");
  char *buf = NULL;
  size_t got = 0;
  if (rc == 0 && (buf = malloc((size_t)st.st_size)) == NULL)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  while (rc == 0 && got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      rc = np_errbuf_set(eb, NP_EIO, "%s: %s", path,
                         n < 0 ? strerror(errno) : "shorter than its size");
    else
      got += (size_t)n;
  }
  close(fd);
  if (rc != 0) {
    if (buf != NULL)
      OPENSSL_cleanse(buf, got);
    free(buf);
    return rc;
  }
  *out = buf;
  *len = got;
  return 0;
}

/* Refuse to prompt for a passphrase: encrypted keys are not supported. */
static int no_passphrase(char *buf, int size, int rwflag, void *u) {
  (void)buf;
  (void)size;
  (void)rwflag;
  (void)u;
  return 0;
}

int np_archive_key_load(const char *path, int private_part, EVP_PKEY **out,
                        struct np_errbuf *eb) {
  char *text = NULL;
  size_t len = 0;
  int rc = key_read(path, private_part, &text, &len, eb);
  if (rc != 0)
    return rc;
  BIO *bio = BIO_new_mem_buf(text, (int)len);
  EVP_PKEY *pkey = NULL;
  if (bio != NULL)
    pkey = private_part ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase,
                                                  NULL)
                        : PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
  BIO_free(bio);
  OPENSSL_cleanse(text, len);
  free(text);
  if (pkey == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "%s: not an unencrypted PEM %s key",
                         path, private_part ? "private" : "public");
  if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(pkey);
    return np_errbuf_set(eb, NP_EUSAGE, "%s: not an Ed25519 key", path);
  }
  *out = pkey;
  return 0;
}

int np_archive_key_fingerprint(EVP_PKEY *pkey,
                               char hex[NP_SHA256_HEX_SIZE]) {
  unsigned char *der = NULL;
  int n = i2d_PUBKEY(pkey, &der);
  if (n <= 0)
    return NP_ECRYPTO;
  int rc = np_sha256_buf(der, (size_t)n, hex);
  OPENSSL_free(der);
  return rc;
}

/* Write text to path, which must not exist: a temp file beside it,
 * fsync'd, then link(2) (fails on an existing path), folder fsync'd. */
static int write_sig(const char *path, const char *text, size_t len,
                     struct np_errbuf *eb) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp)
    return np_errbuf_set(eb, NP_EUSAGE, "%s: path too long", path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", path,
                         strerror(errno));
  int rc = 0;
  if (fchmod(fd, 0644) != 0 || write(fd, text, len) != (ssize_t)len ||
      fsync(fd) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                       strerror(errno));
  if (close(fd) != 0 && rc == 0)
    rc = np_errbuf_set(eb, NP_EIO, "%s: %s", tmp, strerror(errno));
  if (rc == 0 && link(tmp, path) != 0)
    rc = np_errbuf_set(eb, errno == EEXIST ? NP_EEXIST
                                           : np_err_from_errno(errno),
                       "%s: %s", path,
                       errno == EEXIST ? "exists; refusing to overwrite"
                                       : strerror(errno));
  unlink(tmp);
  if (rc == 0)
    rc = np_file_fsync_parent(path, eb);
  return rc;
}

void np_archive_sig_path(const char *bundle, const char *given, char *out,
                         size_t len) {
  if (given != NULL)
    snprintf(out, len, "%s", given);
  else
    snprintf(out, len, "%s.sig", bundle);
}

int np_archive_sign(const char *bundle, const char *key, const char *sig,
                    const struct np_archive_limits *lim,
                    np_archive_problem_fn fn, void *ctx,
                    struct np_errbuf *eb) {
  char sigpath[4200];
  struct stat st;
  np_archive_sig_path(bundle, sig, sigpath, sizeof sigpath);
  if (lstat(sigpath, &st) == 0)
    return np_errbuf_set(eb, NP_EEXIST, "%s: exists; refusing to overwrite",
                         sigpath);
  EVP_PKEY *pkey = NULL;
  int rc = np_archive_key_load(key, 1, &pkey, eb);
  if (rc != 0)
    return rc;
  struct np_verified v;
  struct np_sigfile sf;
  memset(&sf, 0, sizeof sf);
  rc = np_archive__verify_run(bundle, lim, NULL, NULL, fn, ctx, &v, eb);
  if (rc != 0)
    goto free_key; /* never sign a bundle that does not verify */
  snprintf(sf.bag, sizeof sf.bag, "%s", v.top);
  memcpy(sf.tagmanifest_sha256, v.tagmanifest_sha256, NP_SHA256_HEX_SIZE);
  /* the digest of the very bytes that were verified, from the same read */
  memcpy(sf.bundle_sha256, v.bundle_sha256, NP_SHA256_HEX_SIZE);
  sf.version = NP_SIGFILE_VERSION_CURRENT;
  np_verified__free(&v);
  EVP_MD_CTX *md = NULL;
  size_t siglen = sizeof sf.sig, textlen = 0;
  char text[NP_SIGFILE_MAX];
  if ((rc = np_archive_key_fingerprint(pkey, sf.key_sha256)) != 0 ||
      (rc = np_sigfile_message(&sf)) != 0) {
    np_errbuf_set(eb, rc, "%s: cannot form the signed message", bundle);
    goto free_key;
  }
  md = EVP_MD_CTX_new();
  if (md == NULL || EVP_DigestSignInit(md, NULL, NULL, NULL, pkey) != 1 ||
      EVP_DigestSign(md, sf.sig, &siglen,
                     (const unsigned char *)sf.message, sf.message_len) != 1 ||
      siglen != sizeof sf.sig) {
    rc = np_errbuf_set(eb, NP_ECRYPTO, "%s: Ed25519 signing failed", key);
    goto free_md;
  }
  if ((rc = np_sigfile_render(&sf, text, &textlen)) != 0) {
    np_errbuf_set(eb, rc, "%s: cannot render the signature", sigpath);
    goto free_md;
  }
  rc = write_sig(sigpath, text, textlen, eb);
free_md:
  EVP_MD_CTX_free(md);
free_key:
  EVP_PKEY_free(pkey);
  return rc;
}

int np_archive_sig_check(const char *sigpath, const char *pubkey,
                         struct np_problems *sp, struct np_sigfile *sf,
                         char signer[NP_SHA256_HEX_SIZE],
                         struct np_errbuf *eb) {
  char *text = NULL, why[256];
  size_t len = 0;
  signer[0] = '\0';
  EVP_PKEY *pkey = NULL;
  int rc = np_archive_key_load(pubkey, 0, &pkey, eb);
  if (rc != 0)
    return rc;
  rc = np_file_read_all(sigpath, NP_SIGFILE_MAX, &text, &len, eb);
  if (rc == NP_ETOOBIG) { /* a signature file grown out of its form */
    np_problem(sp, NULL, "larger than a signature file can be (%u bytes)",
               NP_SIGFILE_MAX);
    rc = 0;
    goto free_key;
  }
  if (rc != 0)
    goto free_key;
  char fp[NP_SHA256_HEX_SIZE];
  if (np_sigfile_parse(text, len, sf, why, sizeof why) != 0) {
    np_problem(sp, NULL, "%s", why);
    sf->message_len = 0;
  } else if ((rc = np_archive_key_fingerprint(pkey, fp)) != 0) {
    np_errbuf_set(eb, rc, "%s: cannot fingerprint the key", pubkey);
  } else if (strcmp(fp, sf->key_sha256) != 0) {
    np_problem(sp, NULL, "signed by key sha256 %.16s..., not by %s (sha256 "
               "%.16s...)", sf->key_sha256, pubkey, fp);
  } else {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md != NULL &&
             EVP_DigestVerifyInit(md, NULL, NULL, NULL, pkey) == 1 &&
             EVP_DigestVerify(md, sf->sig, sizeof sf->sig,
                              (const unsigned char *)sf->message,
                              sf->message_len) == 1;
    EVP_MD_CTX_free(md);
    if (ok)
      memcpy(signer, fp, NP_SHA256_HEX_SIZE);
    else
      np_problem(sp, NULL, "signature does not verify with %s (the signed "
                 "lines or the signature were altered)", pubkey);
  }
  free(text);
free_key:
  EVP_PKEY_free(pkey);
  return rc;
}
