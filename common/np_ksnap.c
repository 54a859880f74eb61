/*
 * np_ksnap.c - content-addressed kernel snapshots of a result set: store
 * a text by its SHA-256, read a reference back from a cmd.txt or a
 * record.
 */
#include "np_ksnap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* {NP_KSNAP_REF: base, NP_KSNAP_CHANGED: k's counters that differ from
 * b's}, or NULL (inline instead) when sources or counter names differ. */
static cJSON *diff_json(const cJSON *kj, const cJSON *bj, const char *base) {
  const cJSON *kc = cJSON_GetObjectItemCaseSensitive(kj, "counters");
  const cJSON *bc = cJSON_GetObjectItemCaseSensitive(bj, "counters"), *e;
  if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(kj, "sources"),
                     cJSON_GetObjectItemCaseSensitive(bj, "sources"), 1) ||
      cJSON_GetArraySize(kc) != cJSON_GetArraySize(bc))
    return NULL;
  cJSON *o = cJSON_CreateObject(), *ch = NULL;
  if (o == NULL || !cJSON_AddStringToObject(o, NP_KSNAP_REF, base) ||
      (ch = cJSON_AddObjectToObject(o, NP_KSNAP_CHANGED)) == NULL)
    goto fail;
  cJSON_ArrayForEach(e, kc) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(bc, e->string);
    if (v == NULL)
      goto fail;
    if (v->valuedouble != e->valuedouble &&
        !cJSON_AddItemToObject(ch, e->string, cJSON_Duplicate(e, 0)))
      goto fail;
  }
  return o;
fail:
  cJSON_Delete(o);
  return NULL;
}

cJSON *np_ksnap_record_json(const struct np_kernel *k, const char *dir,
                            const char *base) {
  cJSON *kj = np_kernel_to_json(k), *out = NULL;
  char p[4096];
  char *text = NULL;
  size_t len = 0;
  struct np_kernel *b = NULL;
  if (kj == NULL || dir == NULL || base == NULL ||
      !is_hex64(base, strlen(base)) ||
      (size_t)snprintf(p, sizeof p, "%s/%s.txt", dir, base) >= sizeof p ||
      np_file_read_all(p, 0, &text, &len, NULL) != 0 ||
      np_kernel_parse_raw(text, len, &b, NULL) != 0)
    goto done;
  cJSON *bj = np_kernel_to_json(b);
  out = bj ? diff_json(kj, bj, base) : NULL;
  cJSON_Delete(bj);
done:
  np_kernel_free(b);
  free(text);
  if (out != NULL) {
    cJSON_Delete(kj);
    return out;
  }
  return kj;
}

int np_ksnap_record_ref(const cJSON *snap, char hex[NP_SHA256_HEX_SIZE]) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(snap, NP_KSNAP_REF);
  if (v == NULL)
    return 0;
  if (!cJSON_IsString(v) || !is_hex64(v->valuestring, strlen(v->valuestring)))
    return NP_EPARSE;
  memcpy(hex, v->valuestring, NP_SHA256_HEX_SIZE);
  return 1;
}

int np_ksnap_record_resolve(const cJSON *snap, const char *text, size_t len,
                            struct np_kernel **out, struct np_errbuf *eb) {
  struct np_kernel *b = NULL;
  int rc = np_kernel_parse_raw(text, len, &b, eb);
  if (rc != 0)
    return rc;
  cJSON *bj = np_kernel_to_json(b), *e;
  np_kernel_free(b);
  if (bj == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  cJSON *bc = cJSON_GetObjectItemCaseSensitive(bj, "counters");
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(snap,
                                                         NP_KSNAP_CHANGED)) {
    cJSON *v = cJSON_GetObjectItemCaseSensitive(bc, e->string);
    if (v == NULL || !cJSON_IsNumber(e)) {
      rc = np_errbuf_set(eb, NP_EPARSE, "%s %s: %s", NP_KSNAP_CHANGED,
                         e->string, v == NULL ? "not a counter of the "
                                                "referenced snapshot"
                                              : "not a number");
      break;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(bc, e->string,
                                           cJSON_Duplicate(e, 0));
  }
  if (rc == 0)
    rc = np_kernel_from_json(bj, out, eb);
  cJSON_Delete(bj);
  return rc;
}
