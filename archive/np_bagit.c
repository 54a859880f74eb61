/*
 * np_bagit.c - BagIt manifests (see np_bagit.h).
 */
#include "np_bagit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *np_bagit_manifest(const struct np_bag_files *files) {
  size_t cap = 1;
  for (size_t i = 0; i < files->n; i++)
    cap += 64 + 2 + strlen(files->v[i].path) + 1;
  char *buf = malloc(cap), *p = buf;
  if (buf == NULL)
    return NULL;
  for (size_t i = 0; i < files->n; i++)
    p += sprintf(p, "%s  %s\n", files->v[i].sha256, files->v[i].path);
  *p = '\0';
  return buf;
}

int np_bagit_path_ok(const char *path) {
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p < 0x20 || *p == 0x7f || *p == '%' || *p == '\\')
      return 0;
  return 1;
}

static int is_hex64(const char *s) {
  for (int i = 0; i < 64; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
          (s[i] >= 'A' && s[i] <= 'F')))
      return 0;
  return 1;
}

int np_bagit_check_manifest(const char *name, const char *text, size_t len,
                            const struct np_bag_files *files,
                            np_bagit_problem_fn fn, void *ctx) {
  int problems = 0;
  char msg[512], where[4200];
  unsigned char *seen = calloc(files->n ? files->n : 1, 1);
  if (seen == NULL) {
    fn(ctx, name, "out of memory");
    return 1;
  }
  size_t lineno = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
    lineno++;
    snprintf(where, sizeof(where), "%s: line %zu", name, lineno);
    if (ll > 0 && p[ll - 1] == '\r')
      ll--;
    if (ll < 67 || !is_hex64(p) || p[64] != ' ' ||
        (p[65] != ' ' && p[65] != '*') || ll - 66 >= 4096) {
      fn(ctx, where, "malformed line (expected '<sha256>  <path>')");
      problems++;
    } else {
      char path[4096], hex[65];
      memcpy(path, p + 66, ll - 66);
      path[ll - 66] = '\0';
      for (int i = 0; i < 64; i++)
        hex[i] = (char)((p[i] >= 'A' && p[i] <= 'F') ? p[i] + 32 : p[i]);
      hex[64] = '\0';
      const struct np_bag_file *f = np_bag_files_find(files, path);
      if (f == NULL) {
        snprintf(msg, sizeof(msg), "%.400s: listed but not in the bag", path);
        fn(ctx, where, msg);
        problems++;
      } else if (seen[f - files->v]) {
        snprintf(msg, sizeof(msg), "%.400s: listed twice", path);
        fn(ctx, where, msg);
        problems++;
      } else {
        seen[f - files->v] = 1;
        if (strcmp(hex, f->sha256) != 0) {
          snprintf(msg, sizeof(msg),
                   "%.400s: checksum mismatch (manifest %.12s..., file %.12s...)",
                   path, hex, f->sha256);
          fn(ctx, where, msg);
          problems++;
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  for (size_t i = 0; i < files->n; i++) {
    if (!seen[i]) {
      snprintf(msg, sizeof(msg), "not listed in %s", name);
      fn(ctx, files->v[i].path, msg);
      problems++;
    }
  }
  free(seen);
  return problems;
}
