/*
 * np_matrix_snap.c - the set's kernel-snapshots/ kept to what runs/ refers
 * to.  A repetition redone by --resume (or one discarded after an
 * interruption) loses its rep-N.cmd.txt, and with it the references to
 * its snapshots; a snapshot no cmd.txt refers to any more is removed when
 * the session ends, so a resumed set passes the self-check's "every
 * snapshot is referred to" rule (docs/results-layout.md).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_file.h"
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

/* The references of every runs/<id>/rep-N.cmd.txt under out_dir. */
static int collect(const char *out_dir, struct refs *r) {
  char p[NP_MATRIX_PATH_MAX + 512];
  snprintf(p, sizeof p, "%s/runs", out_dir);
  DIR *d = opendir(p);
  if (d == NULL)
    return errno == ENOENT ? 0 : np_err_from_errno(errno);
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char cd[NP_MATRIX_PATH_MAX + 256];
    snprintf(cd, sizeof cd, "%s/runs/%s", out_dir, e->d_name);
    DIR *c = opendir(cd);
    if (c == NULL) {
      /* a folder we cannot read may hold references: sweep nothing */
      if (errno != ENOTDIR)
        rc = np_err_from_errno(errno);
      continue;
    }
    struct dirent *f;
    while (rc == 0 && (f = readdir(c)) != NULL) {
      size_t fl = strlen(f->d_name);
      if (fl < 8 || strcmp(f->d_name + fl - 8, ".cmd.txt") != 0)
        continue;
      char *buf = NULL, hex[NP_SHA256_HEX_SIZE];
      size_t len = 0;
      snprintf(p, sizeof p, "%s/%s", cd, f->d_name);
      /* a command file we cannot read may hold references: an error,
       * never a reason to delete what it refers to */
      rc = np_file_read_all(p, 0, &buf, &len, NULL);
      if (rc == 0 && np_ksnap_ref(buf, len, NP_KSNAP_BEFORE, hex) == 0)
        rc = add_ref(r, hex);
      if (rc == 0 && np_ksnap_ref(buf, len, NP_KSNAP_AFTER, hex) == 0)
        rc = add_ref(r, hex);
      free(buf);
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
  int rc = collect(out_dir, &r);
  if (rc != 0) {
    closedir(d);
    free(r.hex);
    return np_errbuf_set(eb, rc, "%s/runs: %s", out_dir, np_strerror(rc));
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
