/*
 * np_archive_extract.c - write a verified bundle to disk.
 *
 * The bundle is verified first and the files written are the verified
 * in-memory copy (no second read the file could change under).  They go
 * to a fresh temporary folder beside DEST through libarchive's disk writer
 * with its secure flags (no symlink following, no "..", no overwrite), and
 * the folder is renamed to DEST only when everything was written; any
 * failure removes the temporary folder, so DEST never holds a partial bag.
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

static int write_files(struct archive *disk, const char *root,
                       const struct np_read_result *res,
                       struct np_errbuf *eb) {
  struct archive_entry *e = archive_entry_new();
  if (e == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int rc = 0;
  char path[PATH_MAX + 512];
  for (int w = 1; w >= 0 && rc == 0; w--) {
    struct np_bag_files f = {0};
    rc = np_bag_files_list(res->bag, w, &f);
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
      int n = snprintf(path, sizeof(path), "%s/%s/%s", root, res->bag->name,
                       f.v[i].path);
      if (n < 0 || (size_t)n >= sizeof(path)) { /* never a truncated name */
        rc = np_errbuf_set(eb, NP_EINVAL, "%s/%s: path too long to extract",
                           res->bag->name, f.v[i].path);
        break;
      }
      archive_entry_clear(e);
      archive_entry_set_pathname(e, path);
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, (la_int64_t)f.v[i].len);
      archive_entry_set_mtime(e, (time_t)res->mtime, 0);
      if (archive_write_header(disk, e) != ARCHIVE_OK ||
          (f.v[i].len > 0 &&
           archive_write_data(disk, f.v[i].data, f.v[i].len) !=
               (la_ssize_t)f.v[i].len) ||
          archive_write_finish_entry(disk) != ARCHIVE_OK)
        rc = np_errbuf_set(eb, NP_EIO, "%s: %s", path,
                           archive_error_string(disk));
    }
    np_bag_files_free(&f);
  }
  archive_entry_free(e);
  return rc;
}

int np_archive_extract(const char *path, const char *dest,
                       const struct np_archive_limits *lim,
                       np_archive_problem_fn on_problem, void *ctx,
                       struct np_errbuf *eb) {
  struct np_read_result res;
  int rc = dest_ok(dest, eb);
  if (rc != 0)
    return rc;
  rc = np_archive_verify_keep(path, lim, on_problem, ctx, &res, eb);
  if (rc != 0)
    return rc;
  char copy[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX + 64];
  snprintf(copy, sizeof(copy), "%s", dest);
  if (realpath(dirname(copy), parent) == NULL) {
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: parent folder: %s",
                       dest, strerror(errno));
    goto free_bag;
  }
  snprintf(tmp, sizeof(tmp), "%s/.np-extract-XXXXXX", parent);
  if (mkdtemp(tmp) == NULL) {
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                       strerror(errno));
    goto free_bag;
  }
  chmod(tmp, 0755);
  struct archive *disk = archive_write_disk_new();
  if (disk == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto remove_tmp;
  }
  /* Absolute paths are ours (tmp); entry names were checked by verify. */
  archive_write_disk_set_options(
      disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                ARCHIVE_EXTRACT_NO_OVERWRITE | ARCHIVE_EXTRACT_TIME |
                ARCHIVE_EXTRACT_PERM);
  rc = write_files(disk, tmp, &res, eb);
  if (archive_write_close(disk) != ARCHIVE_OK && rc == 0)
    rc = np_errbuf_set(eb, NP_EIO, "%s: %s", tmp, archive_error_string(disk));
  archive_write_free(disk);
  if (rc == 0 && rename(tmp, dest) != 0)
    rc = np_errbuf_set(eb, errno == ENOTEMPTY || errno == EEXIST
                               ? NP_EEXIST
                               : np_err_from_errno(errno),
                       "%s: %s", dest, strerror(errno));
remove_tmp:
  if (rc != 0)
    rm_tree(tmp);
free_bag:
  np_bag_free(res.bag);
  return rc;
}
