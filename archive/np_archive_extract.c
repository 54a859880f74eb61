/*
 * np_archive_extract.c - write a bundle to disk as it is verified.
 *
 * One read: every file the entry checks accept is written, right after
 * the content checks saw its bytes, to a fresh temporary folder beside
 * DEST through libarchive's disk writer with its secure flags (no symlink
 * following, no "..", no overwrite).  Only when the whole bundle verified
 * is the folder renamed to DEST; any problem or failure removes it, so
 * DEST never holds a partial or unverified bag, and what lands there is
 * exactly the bytes that were checked (there is no second read the file
 * could change under).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_archive_int.h"

static int rm_cb(const char *path, const struct stat *st, int flag,
                 struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static void rm_tree(const char *path) {
  nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* DEST must not exist, or be an empty folder (rename(2) replaces that). */
static int dest_ok(const char *dest, struct np_errbuf *eb) {
  struct stat st;
  if (lstat(dest, &st) != 0)
    return errno == ENOENT ? 0
                           : np_errbuf_set(eb, np_err_from_errno(errno),
                                           "%s: %s", dest, strerror(errno));
  if (!S_ISDIR(st.st_mode) || rmdir(dest) != 0 || mkdir(dest, 0755) != 0)
    return np_errbuf_set(eb, NP_EEXIST,
                         "%s: exists and is not an empty folder; refusing to "
                         "overwrite",
                         dest);
  return 0;
}

/* The writer sink: each file under root/<top>/. */
struct xw {
  struct archive *disk;       /* libarchive's disk writer          */
  struct archive_entry *e;    /* reused entry                      */
  const char *root;           /* the temporary folder              */
  struct np_errbuf *eb;       /* where a write failure is told     */
};

static int xw_file(void *ctx, const struct np_read_result *res,
                   const char *rel, const char *data, size_t len,
                   int in_order) {
  struct xw *w = ctx;
  char path[PATH_MAX + 512];
  (void)in_order;
  int n = snprintf(path, sizeof(path), "%s/%s/%s", w->root, res->top, rel);
  if (n < 0 || (size_t)n >= sizeof(path)) /* never a truncated name */
    return np_errbuf_set(w->eb, NP_EINVAL, "%s/%s: path too long to extract",
                         res->top, rel);
  archive_entry_clear(w->e);
  archive_entry_set_pathname(w->e, path);
  archive_entry_set_filetype(w->e, AE_IFREG);
  archive_entry_set_perm(w->e, 0644);
  archive_entry_set_size(w->e, (la_int64_t)len);
  archive_entry_set_mtime(w->e, (time_t)res->mtime, 0);
  if (archive_write_header(w->disk, w->e) != ARCHIVE_OK ||
      (len > 0 &&
       archive_write_data(w->disk, data, len) != (la_ssize_t)len) ||
      archive_write_finish_entry(w->disk) != ARCHIVE_OK)
    return np_errbuf_set(w->eb, NP_EIO, "%s: %s", path,
                         archive_error_string(w->disk));
  return 0;
}

int np_archive_extract(const char *path, const char *dest,
                       const struct np_archive_limits *lim,
                       const struct np_archive_sigcheck *sc,
                       np_archive_problem_fn on_problem, void *ctx,
                       struct np_errbuf *eb) {
  int rc = dest_ok(dest, eb);
  if (rc != 0)
    return rc;
  char copy[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX + 64];
  snprintf(copy, sizeof(copy), "%s", dest);
  if (realpath(dirname(copy), parent) == NULL)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: parent folder: %s",
                         dest, strerror(errno));
  snprintf(tmp, sizeof(tmp), "%s/.np-extract-XXXXXX", parent);
  if (mkdtemp(tmp) == NULL)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                         strerror(errno));
  chmod(tmp, 0755);
  struct xw w = {.root = tmp, .eb = eb};
  w.disk = archive_write_disk_new();
  w.e = archive_entry_new();
  if (w.disk == NULL || w.e == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto free_writer;
  }
  /* Absolute paths are ours (tmp); entry names were checked by the reader
   * before a file reaches the writer. */
  archive_write_disk_set_options(
      w.disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                  ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                  ARCHIVE_EXTRACT_NO_OVERWRITE | ARCHIVE_EXTRACT_TIME |
                  ARCHIVE_EXTRACT_PERM);
  struct np_read_sink sink = {.file = xw_file, .ctx = &w};
  rc = np_archive__verify_run(path, lim, sc, &sink, on_problem, ctx, NULL, eb);
  if (archive_write_close(w.disk) != ARCHIVE_OK && rc == 0)
    rc = np_errbuf_set(eb, NP_EIO, "%s: %s", tmp, archive_error_string(w.disk));
  if (rc == 0 && rename(tmp, dest) != 0)
    rc = np_errbuf_set(eb, errno == ENOTEMPTY || errno == EEXIST
                               ? NP_EEXIST
                               : np_err_from_errno(errno),
                       "%s: %s", dest, strerror(errno));
free_writer:
  if (w.disk != NULL)
    archive_write_free(w.disk);
  archive_entry_free(w.e);
  if (rc != 0)
    rm_tree(tmp);
  return rc;
}
