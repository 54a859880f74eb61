/*
 * np_ksnap.c - content-addressed kernel snapshots of a result set: store
 * a text by its SHA-256, read a reference back from a cmd.txt.
 */
#include "np_ksnap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_file.h"

static int is_hex64(const char *s, size_t n) {
  if (n != NP_SHA256_HEX_SIZE - 1)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}

int np_ksnap_put(const char *dir, const char *text, size_t len,
                 char hex[NP_SHA256_HEX_SIZE], struct np_errbuf *eb) {
  char p[4096];
  int rc = np_sha256_buf(text, len, hex);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "sha256: %s", np_strerror(rc));
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                         strerror(errno));
  if ((size_t)snprintf(p, sizeof p, "%s/%s.txt", dir, hex) >= sizeof p)
    return np_errbuf_set(eb, NP_EINVAL, "%s: path too long", dir);
  /* the name is the content's hash: a file already there is this text
   * (the self-check proves it), so it is not written again */
  if (access(p, F_OK) == 0)
    return 0;
  return np_file_write_atomic(p, text, len, eb);
}

int np_ksnap_ref(const char *text, size_t len, const char *key,
                 char hex[NP_SHA256_HEX_SIZE]) {
  size_t k = strlen(key);
  const char *end = text + len;
  for (const char *l = text; l < end;) {
    const char *nl = memchr(l, '\n', (size_t)(end - l));
    const char *le = nl ? nl : end;
    if ((size_t)(le - l) > k + 1 && memcmp(l, key, k) == 0 && l[k] == ':' &&
        l[k + 1] == ' ') {
      const char *v = l + k + 2;
      if (!is_hex64(v, (size_t)(le - v)))
        return NP_EPARSE;
      memcpy(hex, v, NP_SHA256_HEX_SIZE - 1);
      hex[NP_SHA256_HEX_SIZE - 1] = '\0';
      return 0;
    }
    l = nl ? nl + 1 : end;
  }
  return NP_ENOENT;
}

int np_ksnap_name(const char *name, char hex[NP_SHA256_HEX_SIZE]) {
  size_t d = strlen(NP_KSNAP_DIR), n = strlen(name);
  if (strncmp(name, NP_KSNAP_DIR "/", d + 1) != 0 ||
      n != d + 1 + (NP_SHA256_HEX_SIZE - 1) + 4 ||
      strcmp(name + n - 4, ".txt") != 0 ||
      !is_hex64(name + d + 1, NP_SHA256_HEX_SIZE - 1))
    return 0;
  if (hex != NULL) {
    memcpy(hex, name + d + 1, NP_SHA256_HEX_SIZE - 1);
    hex[NP_SHA256_HEX_SIZE - 1] = '\0';
  }
  return 1;
}

const char *np_ksnap_tree_get(const struct np_ftree *t, const char *stem,
                              int after, size_t *len) {
  char p[2048], hex[NP_SHA256_HEX_SIZE];
  size_t n = 0;
  snprintf(p, sizeof p, "%s.cmd.txt", stem);
  const char *cmd = np_ftree_get(t, p, &n);
  if (cmd != NULL &&
      np_ksnap_ref(cmd, n, after ? NP_KSNAP_AFTER : NP_KSNAP_BEFORE, hex) == 0)
    snprintf(p, sizeof p, "%s/%s.txt", NP_KSNAP_DIR, hex);
  else
    snprintf(p, sizeof p, "%s%s", stem,
             after ? ".kernel-after.txt" : ".kernel-before.txt");
  return np_ftree_get(t, p, len);
}
