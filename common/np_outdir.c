/*
 * np_outdir.c - writes under one folder descriptor, no symlink
 * followed (np_outdir.h).
 */
#include "np_outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct np_outdir {
  int fd;        /* the output folder, O_DIRECTORY | O_NOFOLLOW */
  char *path;    /* as given, for messages                      */
  unsigned seq;  /* temporary names: pid and this counter       */
};

#define OUT_OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* mkdir of each folder leading to path (not path itself), as mkdir -p;
 * these lie above the output folder, outside what it guards. */
static int make_parents(char *path, struct np_errbuf *eb) {
  for (char *p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
    *p = '\0';
    int r = mkdir(path, 0755);
    int e = errno;
    if (r != 0 && e != EEXIST) {
      np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", path, strerror(e));
      *p = '/';
      return np_err_from_errno(e);
    }
    *p = '/';
  }
  return 0;
}

/* The refusal for a folder component that could not be opened as one:
 * at names the place (dir fd), name the component, shown as shown. */
static int not_a_folder(int at, const char *name, const char *shown, int e,
                        struct np_errbuf *eb) {
  struct stat st;
  if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    return np_errbuf_set(eb, NP_EINVAL,
                         at == AT_FDCWD
                             ? "%s: the output folder is a symbolic link; "
                               "refusing to write through it"
                             : "%s: a symbolic link in the output folder; "
                               "refusing to write through it",
                         shown);
  if (e == ENOTDIR)
    return np_errbuf_set(eb, NP_ENOTDIR, "%s: not a folder", shown);
  return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", shown,
                       strerror(e));
}

int np_outdir_open(const char *dir, struct np_outdir **out,
                          struct np_errbuf *eb) {
  size_t n = strlen(dir);
  char *copy = malloc(n + 2);
  if (copy == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", dir);
  memcpy(copy, dir, n + 1);
  int rc = make_parents(copy, eb);
  if (rc == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                       strerror(errno));
  int fd = rc == 0 ? open(dir, OUT_OPEN_DIR) : -1;
  if (rc == 0 && fd < 0)
    rc = not_a_folder(AT_FDCWD, dir, dir, errno, eb);
  struct np_outdir *o = rc == 0 ? calloc(1, sizeof *o) : NULL;
  if (rc == 0 && o == NULL)
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", dir);
  if (rc != 0) {
    if (fd >= 0)
      close(fd);
    free(copy);
    return rc;
  }
  o->fd = fd;
  o->path = copy;
  *out = o;
  return 0;
}

void np_outdir_close(struct np_outdir *o) {
  if (o == NULL)
    return;
  close(o->fd);
  free(o->path);
  free(o);
}

static int write_all(int fd, const char *p, size_t left) {
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    p += n;
    left -= (size_t)n;
  }
  return 0;
}

/* The file name in folder dfd: temporary beside it, then renamed over. */
static int write_file(struct np_outdir *o, int dfd, const char *name,
                      const char *shown, const void *data, size_t len,
                      struct np_errbuf *eb) {
  struct stat st;
  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode))
      return np_errbuf_set(eb, NP_EINVAL,
                           "%s: a symbolic link in the output folder; "
                           "refusing to write through it",
                           shown);
    if (!S_ISREG(st.st_mode))
      return np_errbuf_set(eb, NP_EINVAL, "%s: exists and is not a file",
                           shown);
  }
  char tmp[320];
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(tmp, sizeof tmp, ".%.200s.tmp.%ld.%u", name, (long)getpid(),
             o->seq++);
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", shown,
                         strerror(errno));
  int e = 0;
  if (write_all(fd, data, len) != 0 || fchmod(fd, 0644) != 0 ||
      fsync(fd) != 0)
    e = errno;
  if (close(fd) != 0 && e == 0)
    e = errno;
  if (e == 0 && renameat(dfd, tmp, dfd, name) != 0)
    e = errno;
  if (e != 0) {
    unlinkat(dfd, tmp, 0);
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", shown,
                         strerror(e));
  }
  if (fsync(dfd) != 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: fsync: %s",
                         shown, strerror(errno));
  return 0;
}

int np_outdir_write(struct np_outdir *o, const char *rel,
                           const void *data, size_t len,
                           struct np_errbuf *eb) {
  char shown[4400], comp[256];
  snprintf(shown, sizeof shown, "%s/%s", o->path, rel);
  int cur = o->fd, rc = 0;
  const char *p = rel;
  for (;;) {
    size_t n = strcspn(p, "/");
    if (n == 0 || n >= sizeof comp || (n == 1 && p[0] == '.') ||
        (n == 2 && p[0] == '.' && p[1] == '.')) {
      rc = np_errbuf_set(eb, NP_EINVAL, "%s: not a plain relative path",
                         shown);
      break;
    }
    memcpy(comp, p, n);
    comp[n] = '\0';
    if (p[n] == '\0') {
      rc = write_file(o, cur, comp, shown, data, len, eb);
      break;
    }
    /* a folder: made when missing, entered only if it is one */
    char at[4400];
    snprintf(at, sizeof at, "%s/%.*s", o->path, (int)(p + n - rel), rel);
    if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
      rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", at,
                         strerror(errno));
      break;
    }
    int next = openat(cur, comp, OUT_OPEN_DIR);
    if (next < 0) {
      rc = not_a_folder(cur, comp, at, errno, eb);
      break;
    }
    if (cur != o->fd)
      close(cur);
    cur = next;
    p += n + 1;
  }
  if (cur != o->fd)
    close(cur);
  return rc;
}
