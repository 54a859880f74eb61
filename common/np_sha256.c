/*
 * np_sha256.c - SHA-256 through OpenSSL's EVP interface.
 */
#include "np_sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

struct np_sha256 {
  EVP_MD_CTX *md; /* owned */
};

static void to_hex(const unsigned char *d, unsigned n, char *hex) {
  static const char digits[] = "0123456789abcdef";
  for (unsigned i = 0; i < n; i++) {
    hex[2 * i] = digits[d[i] >> 4];
    hex[2 * i + 1] = digits[d[i] & 15];
  }
  hex[2 * n] = '\0';
}

int np_sha256_new(struct np_sha256 **out) {
  struct np_sha256 *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return NP_ENOMEM;
  s->md = EVP_MD_CTX_new();
  if (s->md == NULL) {
    free(s);
    return NP_ENOMEM;
  }
  if (EVP_DigestInit_ex(s->md, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(s->md);
    free(s);
    return NP_ECRYPTO;
  }
  *out = s;
  return 0;
}

int np_sha256_update(struct np_sha256 *s, const void *buf, size_t len) {
  if (len == 0)
    return 0;
  return EVP_DigestUpdate(s->md, buf, len) == 1 ? 0 : NP_ECRYPTO;
}

int np_sha256_final(struct np_sha256 *s, char hex[NP_SHA256_HEX_SIZE]) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_DigestFinal_ex(s->md, d, &n) != 1 || n != 32)
    return NP_ECRYPTO;
  to_hex(d, n, hex);
  return 0;
}

void np_sha256_free(struct np_sha256 *s) {
  if (s == NULL)
    return;
  EVP_MD_CTX_free(s->md);
  free(s);
}

int np_sha256_buf(const void *buf, size_t len, char hex[NP_SHA256_HEX_SIZE]) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_Digest(buf, len, d, &n, EVP_sha256(), NULL) != 1 || n != 32)
    return NP_ECRYPTO;
  to_hex(d, n, hex);
  return 0;
}

int np_sha256_file(const char *path, char hex[NP_SHA256_HEX_SIZE],
                   uint64_t *size_out, struct np_errbuf *eb) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
  }
  struct np_sha256 *s = NULL;
  int rc = np_sha256_new(&s);
  if (rc != 0) {
    close(fd);
    return np_errbuf_set(eb, rc, "%s: %s", path, np_strerror(rc));
  }
  enum { CHUNK = 64 * 1024 };
  unsigned char *buf = malloc(CHUNK);
  uint64_t total = 0;
  if (buf == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
    goto out;
  }
  for (;;) {
    ssize_t n = read(fd, buf, CHUNK);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      rc = np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
      goto out;
    }
    if (n == 0)
      break;
    total += (uint64_t)n;
    rc = np_sha256_update(s, buf, (size_t)n);
    if (rc != 0) {
      np_errbuf_set(eb, rc, "%s: %s", path, np_strerror(rc));
      goto out;
    }
  }
  rc = np_sha256_final(s, hex);
  if (rc == 0 && size_out != NULL)
    *size_out = total;
out:
  free(buf);
  np_sha256_free(s);
  close(fd);
  return rc;
}
