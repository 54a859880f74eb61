/*
 * np_agent_auth.c - the token file and random bytes (see
 * np_agent_auth.h).  OpenSSL errors become NP_ECRYPTO here, at the
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
#include <openssl/rand.h>


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

int np_agent_random(unsigned char *b, size_t n) {
  return RAND_bytes(b, (int)n) == 1 ? 0 : NP_ECRYPTO;
}
