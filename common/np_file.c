/*
 * np_file.c - bounded whole-file reads and atomic writes (np_file.h).
 *
 * The read sizes its buffer from fstat but does not trust it: files in
 * /proc report 0 bytes, and a file may grow while it is read, so a full
 * buffer is probed for one more byte and doubles until end of file,
 * bounded by the caller's limit (a file of exactly the limit fits).  The
 * write creates its temporary file with mkstemp next to the target (same
 * filesystem, so the rename is atomic) and removes it on every failure.
 */
#include "np_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int np_file_read_all(const char *path, size_t max_bytes, char **out,
                     size_t *out_len, struct np_errbuf *eb) {
  int rc = 0;
  char *buf = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    rc = np_errbuf_set(eb, np_err_from_errno(e), "%s: fstat: %s", path,
                       strerror(e));
    goto close_fd;
  }
  if (!S_ISREG(st.st_mode)) {
    int isdir = S_ISDIR(st.st_mode);
    rc = np_errbuf_set(eb, isdir ? NP_EISDIR : NP_EIO, "%s: %s", path,
                       isdir ? "is a directory" : "not a regular file");
    goto close_fd;
  }
  if (max_bytes != 0 && (uint64_t)st.st_size > max_bytes) {
    rc = np_errbuf_set(eb, NP_ETOOBIG,
                       "%s: %lld bytes exceeds the limit of %zu", path,
                       (long long)st.st_size, max_bytes);
    goto close_fd;
  }
  size_t cap = (size_t)st.st_size + 1, len = 0;
  buf = malloc(cap);
  if (buf == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
    goto close_fd;
  }
  for (;;) {
    char *dst = buf + len;
    size_t want = cap - 1 - len;
    char probe;
    if (want == 0) { /* full: is there more (growth, /proc)?  */
      dst = &probe;
      want = 1;
    }
    ssize_t n = read(fd, dst, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      rc = np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path,
                         strerror(e));
      goto free_buf;
    }
    if (n == 0)
      break;
    if (max_bytes != 0 && len + (size_t)n > max_bytes) {
      rc = np_errbuf_set(eb, NP_ETOOBIG, "%s: exceeds the limit of %zu",
                         path, max_bytes);
      goto free_buf;
    }
    if (dst == &probe) {
      char *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        rc = np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
        goto free_buf;
      }
      buf = nb;
      cap *= 2;
      buf[len] = probe;
    }
    len += (size_t)n;
  }
  buf[len] = '\0';
  *out = buf;
  *out_len = len;
  buf = NULL; /* now the caller's */
free_buf:
  free(buf);
close_fd:
  close(fd);
  return rc;
}

int np_file_fsync_parent(const char *path, struct np_errbuf *eb) {
  char *copy = strdup(path);
  if (copy == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
  int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(copy);
  int e = fd < 0 ? errno : 0;
  if (fd >= 0 && fsync(fd) != 0)
    e = errno;
  if (fd >= 0)
    close(fd);
  if (e != 0)
    return np_errbuf_set(eb, np_err_from_errno(e),
                         "%s: fsync of folder: %s", path, strerror(e));
  return 0;
}

int np_file_write_atomic(const char *path, const void *buf, size_t len,
                         struct np_errbuf *eb) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (tmp == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
  snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  int e = fd < 0 ? errno : 0;
  if (fd < 0)
    goto free_tmp;
  const char *p = buf;
  size_t left = len;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      e = errno;
      goto unlink_tmp;
    }
    p += n;
    left -= (size_t)n;
  }
  if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
    e = errno;
    goto unlink_tmp;
  }
  int cl = close(fd);
  fd = -1;
  if (cl != 0 || rename(tmp, path) != 0) {
    e = errno;
    goto unlink_tmp;
  }
  free(tmp);
  return np_file_fsync_parent(path, eb);

unlink_tmp:
  if (fd >= 0)
    close(fd);
  unlink(tmp);
free_tmp:
  free(tmp);
  return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path, strerror(e));
}

int np_file_check_out_dir(const char *opt, const char *path,
                          struct np_errbuf *eb) {
  struct stat st;
  if (path[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "%s: empty path", opt);
  if (stat(path, &st) == 0)
    return S_ISDIR(st.st_mode)
               ? 0
               : np_errbuf_set(eb, NP_EUSAGE, "%s %s: exists and is not a "
                               "folder", opt, path);
  char *copy = strdup(path);
  if (copy == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s %s: out of memory", opt, path);
  size_t n = strlen(copy);
  while (n > 1 && copy[n - 1] == '/') /* "a/b/" names folder b */
    copy[--n] = '\0';
  const char *parent = dirname(copy);
  int rc = 0;
  if (stat(parent, &st) != 0)
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s %s: folder %s does not exist "
                       "(create it first)", opt, path, parent);
  else if (!S_ISDIR(st.st_mode))
    rc = np_errbuf_set(eb, NP_EUSAGE, "%s %s: %s is not a folder", opt, path,
                       parent);
  free(copy);
  return rc;
}
