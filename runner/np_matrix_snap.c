/*
 * np_matrix_snap.c - the set's kernel-snapshots/ kept to what runs/ refers
 * to.  A repetition redone by --resume (or one discarded after an
 * interruption) loses its rep-N.cmd.txt, and with it the references to
 * its snapshots; a snapshot no cmd.txt and no record (the child's own
 * kernel.before / kernel.after, under runs/ or kept/) refers to any more
 * is removed when the session ends, so a resumed set passes the
 * self-check's "every snapshot is referred to" rule
 * (docs/results-layout.md).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_file.h"
#include "np_json.h"
#include "np_ksnap.h"
#include "np_matrix_int.h"

struct refs {
  char (*hex)[NP_SHA256_HEX_SIZE];
  size_t n, cap;
};

static int add_ref(struct refs *r, const char *hex) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    char(*n)[NP_SHA256_HEX_SIZE] = realloc(r->hex, cap * sizeof *n);
    if (n == NULL)
      return NP_ENOMEM;
    r->hex = n;
    r->cap = cap;
  }
  memcpy(r->hex[r->n++], hex, NP_SHA256_HEX_SIZE);
  return 0;
}

/* The references in one file of a repetition: a cmd.txt's two lines, a
 * record's (*.json) kernel.before / kernel.after.  A file that cannot be
 * read is an error, never a reason to delete what it may refer to; a
 * record that does not parse refers to nothing. */
static int file_refs(const char *p, const char *name, struct refs *r) {
  size_t fl = strlen(name);
  int cmd = fl >= 8 && strcmp(name + fl - 8, ".cmd.txt") == 0;
  int rec = fl >= 5 && strcmp(name + fl - 5, ".json") == 0;
  if (!cmd && !rec)
    return 0;
  char *buf = NULL, hex[NP_SHA256_HEX_SIZE];
  size_t len = 0;
  int rc = np_file_read_all(p, 0, &buf, &len, NULL);
  if (rc == 0 && cmd) {
    if (np_ksnap_ref(buf, len, NP_KSNAP_BEFORE, hex) == 0)
      rc = add_ref(r, hex);
    if (rc == 0 && np_ksnap_ref(buf, len, NP_KSNAP_AFTER, hex) == 0)
      rc = add_ref(r, hex);
  }
  cJSON *doc = NULL;
  if (rc == 0 && rec && np_json_parse(buf, len, NULL, &doc, NULL) == 0) {
    static const char *const ptr[] = {"/kernel/before", "/kernel/after"};
    for (size_t i = 0; rc == 0 && i < 2; i++)
      if (np_ksnap_record_ref(np_json_pointer(doc, ptr[i]), hex) == 1)
        rc = add_ref(r, hex);
    cJSON_Delete(doc);
  }
  free(buf);
  return rc;
}

/* The references of every file of top/<id>/ under out_dir (top: runs,
 * kept). */
static int collect(const char *out_dir, const char *top, struct refs *r) {
  char p[NP_MATRIX_PATH_MAX + 512];
  snprintf(p, sizeof p, "%s/%s", out_dir, top);
  DIR *d = opendir(p);
  if (d == NULL)
    return errno == ENOENT ? 0 : np_err_from_errno(errno);
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char cd[NP_MATRIX_PATH_MAX + 256];
    snprintf(cd, sizeof cd, "%s/%s/%s", out_dir, top, e->d_name);
    DIR *c = opendir(cd);
    if (c == NULL) {
      /* a folder we cannot read may hold references: sweep nothing */
      if (errno != ENOTDIR)
        rc = np_err_from_errno(errno);
      continue;
    }
    struct dirent *f;
    while (rc == 0 && (f = readdir(c)) != NULL) {
      snprintf(p, sizeof p, "%s/%s", cd, f->d_name);
      rc = file_refs(p, f->d_name, r);
    }
    closedir(c);
  }
  closedir(d);
  return rc;
}

int np_matrix__snap_sweep(const char *out_dir, struct np_errbuf *eb) {
  char dir[NP_MATRIX_PATH_MAX + 32];
  snprintf(dir, sizeof dir, "%s/%s", out_dir, NP_KSNAP_DIR);
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0; /* a set without snapshots (none taken yet) */
  struct refs r = {0};
  int rc = collect(out_dir, "runs", &r);
  if (rc == 0)
    rc = collect(out_dir, "kept", &r);
  if (rc != 0) {
    closedir(d);
    free(r.hex);
    return np_errbuf_set(eb, rc, "%s/runs or kept: %s", out_dir,
                         np_strerror(rc));
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char name[NP_MATRIX_PATH_MAX], hex[NP_SHA256_HEX_SIZE];
    snprintf(name, sizeof name, "%s/%s", NP_KSNAP_DIR, e->d_name);
    if (!np_ksnap_name(name, hex))
      continue; /* not the runner's: the self-check names it */
    int used = 0;
    for (size_t i = 0; i < r.n && !used; i++)
      used = strcmp(r.hex[i], hex) == 0;
    if (used)
      continue;
    char p[sizeof dir + sizeof e->d_name + 1];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0 && errno != ENOENT && rc == 0)
      rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", p,
                         strerror(errno));
  }
  closedir(d);
  free(r.hex);
  return rc;
}
