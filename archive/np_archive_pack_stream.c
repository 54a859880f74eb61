/*
 * np_archive_pack_stream.c - pack's two passes over the folders, one file
 * in memory at a time (np_archive_int.h: np_archive__pack_*).
 *
 * Pass 1 reads each file of a suite once, in path order: its SHA-256 and
 * evidence facts go into the payload list, its bytes to the suite's
 * streaming self-check (the seam verify uses, np_archive_sc_*), then they
 * are dropped.  Pass 2 (the tar writer) reads each file again and refuses
 * the bundle when its bytes no longer hash to what pass 1 checked, so what
 * was checked is what is packed even when a folder changes meanwhile -
 * without holding the payload in memory, as pack did before.
 */
#include "np_archive_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_evidence.h"
#include "np_file.h"

/* A PEM private key: "-----BEGIN ...PRIVATE KEY-----". */
static int looks_like_private_key(const char *d, size_t len) {
  static const char tail[] = "PRIVATE KEY-----";
  return memmem(d, len, tail, sizeof tail - 1) != NULL &&
         memmem(d, len, "-----BEGIN ", 11) != NULL;
}

/* The bytes of dir/rel, which the listing found to hold want bytes;
 * NP_EIO when the file changed size since. */
static int read_listed(const char *dir, const char *rel, size_t want,
                       uint64_t max_file, char **buf, size_t *len,
                       struct np_errbuf *eb) {
  char path[8400];
  if (snprintf(path, sizeof path, "%s/%s", dir, rel) >= (int)sizeof path)
    return np_errbuf_set(eb, NP_EINVAL, "%s/%s: path too long", dir, rel);
  int rc = np_file_read_all(path, (size_t)max_file, buf, len, eb);
  if (rc != 0)
    return rc;
  if (*len != want) {
    free(*buf);
    *buf = NULL;
    return np_errbuf_set(eb, NP_EIO,
                         "%s: changed while being packed (%zu bytes when "
                         "listed, %zu now); not packed",
                         path, want, *len);
  }
  return 0;
}

/* The payload entry of path (sorted list), writable. */
static struct np_bag_file *payload_entry(struct np_bag_files *payload,
                                         const char *path) {
  return (struct np_bag_file *)np_bag_files_find(payload, path);
}

/* One file of pass 1: refused when it holds a private key; hashed, its
 * facts taken, its bytes handed to the self-check. */
static int check_file(const struct np_archive__pack_suite *s, size_t i,
                      uint64_t max_file, struct np_bag_files *payload,
                      struct np_archive_sc *sc, struct np_errbuf *eb) {
  const char *rel = np_ftree_path_at(s->list, i);
  char full[8400];
  snprintf(full, sizeof full, "data/%s/%s", s->name, rel);
  struct np_bag_file *f = payload_entry(payload, full);
  if (f == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "%s: not in the payload list", full);
  char *buf = NULL;
  size_t len = 0;
  int rc = read_listed(s->dir, rel, np_ftree_len_at(s->list, i), max_file,
                       &buf, &len, eb);
  if (rc != 0)
    return rc;
  if (looks_like_private_key(buf, len))
    rc = np_errbuf_set(eb, NP_EINVAL,
                       "%s/%s: holds a PEM private key; keys never enter "
                       "bundles (move it out of the folder)",
                       s->dir, rel);
  if (rc == 0 && np_sha256_buf(buf, len, f->sha256) != 0)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (rc == 0 && np_evidence_facts(full, buf, len, &f->facts) != 0)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (rc == 0 && np_archive__sc_file(sc, rel, buf, len) != 0)
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s/%s: self-check: out of memory",
                       s->dir, rel);
  free(buf);
  return rc;
}

int np_archive__pack_check_suite(const struct np_archive__pack_suite *s,
                                 uint64_t max_file,
                                 struct np_bag_files *payload,
                                 np_results_problem_fn fn, void *ctx,
                                 struct np_results_outcome *oc,
                                 struct np_errbuf *eb) {
  struct np_archive_sc *sc = NULL;
  if (np_archive__sc_new(s->name, fn, ctx, &sc) != 0)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  size_t n = np_ftree_count(s->list);
  for (size_t i = 0; i < n; i++) {
    int rc = check_file(s, i, max_file, payload, sc, eb);
    if (rc != 0) {
      np_archive__sc_free(sc);
      return rc;
    }
  }
  int rc = np_archive__sc_finish(sc, oc);
  /* a failed or incomplete set is the outcome's to say; anything else
   * (the check's own failure, e.g. out of memory) is said here */
  if (rc != 0 && rc != NP_ECHECK && rc != NP_EINCOMPLETE &&
      (eb == NULL || !eb->msg[0]))
    np_errbuf_set(eb, rc, "%s: self-check: %s", s->name, np_strerror(rc));
  return rc;
}

int np_archive__pack_reread(const struct np_archive__pack_suite *suites,
                            size_t nsuites, const struct np_bag_file *f,
                            uint64_t max_file, char **buf, size_t *len,
                            struct np_errbuf *eb) {
  const char *name = f->path + 5; /* "data/<suite>/<rel>" */
  const char *slash = strchr(name, '/');
  const struct np_archive__pack_suite *s = NULL;
  for (size_t i = 0; slash != NULL && i < nsuites && s == NULL; i++)
    if (strlen(suites[i].name) == (size_t)(slash - name) &&
        strncmp(suites[i].name, name, (size_t)(slash - name)) == 0)
      s = &suites[i];
  if (strncmp(f->path, "data/", 5) != 0 || s == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "%s: no such suite", f->path);
  int rc = read_listed(s->dir, slash + 1, f->len, max_file, buf, len, eb);
  if (rc != 0)
    return rc;
  char hex[NP_SHA256_HEX_SIZE];
  if (np_sha256_buf(*buf, *len, hex) != 0)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  else if (strcmp(hex, f->sha256) != 0)
    rc = np_errbuf_set(eb, NP_EIO,
                       "%s/%s: changed while being packed (its bytes are "
                       "not those the self-check checked); not packed",
                       s->dir, slash + 1);
  if (rc != 0) {
    free(*buf);
    *buf = NULL;
  }
  return rc;
}
