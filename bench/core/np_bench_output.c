/*
 * np_bench_output.c - open the output first, commit it atomically at the
 * end (see np_bench_output.h).  Everything after open works relative to a
 * descriptor of the target's folder (openat/renameat/unlinkat), so the
 * folder checked at open is the folder written at commit.
 */
#include "np_bench_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_json.h"

#define TEMP_TRIES 16

struct np_bench_output {
  char *path;     /* the target as given                               */
  char *dir;      /* its folder ("." when the path has no '/')         */
  char *base;     /* its name inside the folder                        */
  char *temp;     /* the temporary file's path, dir + "/" + temp name  */
  char *tmpname;  /* the temporary file's name inside the folder       */
  int dirfd;      /* the folder, -1 for stdout                          */
  int fd;         /* the temporary file, -1 once closed                 */
  int stdout_out; /* 1 = "-": write to stdout                           */
  int done;       /* 1 = committed (or commit failed): nothing to undo  */
};

/* errno of creating a file in dir, worded for the user: NP_EUSAGE when the
 * path is at fault, the errno's own code when the environment is. */
static int create_error(const struct np_bench_output *o, int e,
                        struct np_errbuf *eb) {
  switch (e) {
  case ENOENT:
    return np_errbuf_set(eb, NP_EUSAGE, "%s: folder %s does not exist",
                         o->path, o->dir);
  case ENOTDIR:
    return np_errbuf_set(eb, NP_EUSAGE, "%s: %s is not a folder", o->path,
                         o->dir);
  case EACCES:
  case EPERM:
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s: folder %s is not writable (%s)", o->path,
                         o->dir, strerror(e));
  case EROFS:
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s: folder %s is on a read-only file system",
                         o->path, o->dir);
  case EISDIR:
    return np_errbuf_set(eb, NP_EUSAGE, "%s: is a folder, not a file",
                         o->path);
  case ENAMETOOLONG:
  case ELOOP:
    return np_errbuf_set(eb, NP_EUSAGE, "%s: %s", o->path, strerror(e));
  default:
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: cannot create a file "
                         "in %s: %s", o->path, o->dir, strerror(e));
  }
}

static int split_path(struct np_bench_output *o) {
  const char *slash = strrchr(o->path, '/');
  if (slash == NULL) {
    o->dir = strdup(".");
    o->base = strdup(o->path);
  } else {
    size_t dlen = slash == o->path ? 1 : (size_t)(slash - o->path);
    o->dir = strndup(o->path, dlen);
    o->base = strdup(slash + 1);
  }
  return o->dir && o->base ? 0 : NP_ENOMEM;
}

/* Create the temporary file: "<base>.tmp.<pid>", then "-1", "-2", ... */
static int create_temp(struct np_bench_output *o, struct np_errbuf *eb) {
  size_t nlen = strlen(o->base) + 40;
  size_t plen = strlen(o->dir) + 1 + nlen;
  o->tmpname = malloc(nlen);
  o->temp = malloc(plen);
  if (!o->tmpname || !o->temp)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", o->path);
  int e = 0;
  for (int k = 0; k < TEMP_TRIES; k++) {
    if (k == 0)
      snprintf(o->tmpname, nlen, "%s.tmp.%ld", o->base, (long)getpid());
    else
      snprintf(o->tmpname, nlen, "%s.tmp.%ld-%d", o->base, (long)getpid(), k);
    o->fd = openat(o->dirfd, o->tmpname,
                   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o->fd >= 0)
      break;
    e = errno;
    if (e != EEXIST)
      return create_error(o, e, eb);
  }
  if (o->fd < 0)
    return np_errbuf_set(eb, NP_EEXIST, "%s: %d temporary names taken in %s",
                         o->path, TEMP_TRIES, o->dir);
  snprintf(o->temp, plen, "%s/%s", o->dir, o->tmpname);
  if (fchmod(o->fd, 0644) != 0) { /* the record's mode, whatever the umask */
    e = errno;
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: chmod: %s", o->temp,
                         strerror(e));
  }
  return 0;
}

int np_bench_output_open(const char *path, struct np_bench_output **out,
                         struct np_errbuf *eb) {
  struct np_bench_output *o = calloc(1, sizeof *o);
  struct stat st;
  int rc;
  if (o == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
  o->dirfd = o->fd = -1;
  o->path = strdup(path);
  if (o->path == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s: out of memory", path);
    goto fail_output;
  }
  if (strcmp(path, "-") == 0) {
    o->stdout_out = 1;
    *out = o;
    return 0;
  }
  if (*path == '\0') {
    rc = np_errbuf_set(eb, NP_EUSAGE, "empty path");
    goto fail_output;
  }
  if ((rc = split_path(o)) != 0) {
    np_errbuf_set(eb, rc, "%s: out of memory", path);
    goto fail_output;
  }
  int exists = stat(path, &st) == 0;
  if (*o->base == '\0' || (exists && S_ISDIR(st.st_mode))) {
    rc = create_error(o, EISDIR, eb);
    goto fail_output;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    rc = np_errbuf_set(eb, NP_EUSAGE,
                       "%s: exists and is not a regular file (use - for "
                       "stdout)", path);
    goto fail_output;
  }
  o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (o->dirfd < 0) {
    rc = create_error(o, errno, eb);
    goto fail_output;
  }
  if ((rc = create_temp(o, eb)) != 0)
    goto fail_output;
  *out = o;
  return 0;
fail_output:
  np_bench_output_close(o);
  return rc;
}

static int write_all(int fd, const char *p, size_t left) {
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    p += n;
    left -= (size_t)n;
  }
  return 0;
}

static int commit_stdout(const void *buf, size_t len, struct np_errbuf *eb) {
  if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)
    return np_errbuf_set(eb, NP_EIO, "stdout: write failed");
  return 0;
}

int np_bench_output_commit(struct np_bench_output *o, const void *buf,
                           size_t len, struct np_errbuf *eb) {
  if (o->done)
    return np_errbuf_set(eb, NP_EINVAL, "%s: already committed", o->path);
  o->done = 1;
  if (o->stdout_out)
    return commit_stdout(buf, len, eb);
  const char *step = "write";
  int e = write_all(o->fd, buf, len);
  if (e == 0 && fsync(o->fd) != 0)
    e = errno, step = "fsync";
  if (close(o->fd) != 0 && e == 0)
    e = errno, step = "close";
  o->fd = -1;
  if (e == 0 && renameat(o->dirfd, o->tmpname, o->dirfd, o->base) != 0)
    e = errno, step = "rename";
  if (e != 0) {
    unlinkat(o->dirfd, o->tmpname, 0);
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s: %s", o->path,
                         step, strerror(e));
  }
  if (fsync(o->dirfd) != 0) {
    e = errno;
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: fsync of folder %s: "
                         "%s", o->path, o->dir, strerror(e));
  }
  return 0;
}

int np_bench_output_commit_json(struct np_bench_output *o, const cJSON *doc,
                                struct np_errbuf *eb) {
  /* one line, no indentation: committed result sets stay compact (a
   * record's kernel snapshots are most of it); every reader parses JSON,
   * records of 0.1 were indented, and `jq .` indents for a reader */
  char *txt = np_json_print(doc, 0);
  if (txt == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "%s: cannot print the document "
                         "(memory, or a non-finite number)", o->path);
  int rc = np_bench_output_commit(o, txt, strlen(txt), eb);
  free(txt);
  return rc;
}

const char *np_bench_output_path(const struct np_bench_output *o) {
  return o->path;
}

const char *np_bench_output_temp(const struct np_bench_output *o) {
  return o->fd >= 0 ? o->temp : NULL;
}

void np_bench_output_close(struct np_bench_output *o) {
  if (o == NULL)
    return;
  if (o->fd >= 0) {
    close(o->fd);
    unlinkat(o->dirfd, o->tmpname, 0);
  }
  if (o->dirfd >= 0)
    close(o->dirfd);
  free(o->path);
  free(o->dir);
  free(o->base);
  free(o->temp);
  free(o->tmpname);
  free(o);
}
