/*
 * np_ftree.c - an in-memory set of files (see np_ftree.h).
 *
 * Design: a flat array of entries kept sorted by path (bytewise strcmp), so
 * lookup is a binary search and iteration order is the array order.  Each
 * entry owns one allocation holding the path and, right after it, the file
 * bytes plus a terminating NUL, so a text file can be handed to parsers
 * directly.  Insertion shifts the tail of the array; result sets hold a few
 * thousand files, for which that is cheaper than a tree.
 *
 * np_ftree_load_dir walks a folder with openat/fstatat relative to open
 * directory descriptors (no path re-resolution, no symlink following) and
 * refuses anything that is not a regular file or a directory.
 */
#include "np_ftree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct np_ftree_entry {
  char *path;       /* NUL-terminated; start of the entry's one allocation */
  const char *data; /* len bytes + NUL, inside the same allocation        */
  size_t len;       /* byte length of data, excluding the NUL             */
};

struct np_ftree {
  struct np_ftree_entry *v; /* sorted by path                          */
  size_t n;                 /* entries in use                          */
  size_t cap;               /* entries allocated                       */
};

#define NP_FTREE_DEFAULT_MAX ((size_t)1 << 30) /* 1 GiB */
#define NP_FTREE_MAX_DEPTH 64                   /* folder nesting limit */

int np_ftree_new(struct np_ftree **out) {
  struct np_ftree *t = calloc(1, sizeof(*t));
  if (t == NULL)
    return NP_ENOMEM;
  *out = t;
  return 0;
}

void np_ftree_free(struct np_ftree *t) {
  if (t == NULL)
    return;
  for (size_t i = 0; i < t->n; i++)
    free(t->v[i].path);
  free(t->v);
  free(t);
}

/* A path is valid when it is non-empty, relative, and every '/'-separated
 * component is non-empty and neither "." nor "..". */
static int valid_path(const char *path) {
  if (path == NULL || path[0] == '\0' || path[0] == '/')
    return 0;
  const char *p = path;
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0)
      return 0;
    if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return 0;
    if (slash == NULL)
      return 1;
    p = slash + 1;
  }
}

/* Index of path, or of the insertion point with *found = 0. */
static size_t find(const struct np_ftree *t, const char *path, int *found) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(t->v[mid].path, path);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = 0;
  return lo;
}

/* Insert path with a copy of data[0..len), or with no bytes (listed:
 * data NULL, len the file's size) when listed != 0. */
static int add_entry(struct np_ftree *t, const char *path, const void *data,
                     size_t len, int listed) {
  int found;
  size_t at = find(t, path, &found);
  if (found)
    return NP_EEXIST;
  size_t plen = strlen(path);
  if (len > SIZE_MAX - plen - 2)
    return NP_ETOOBIG;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct np_ftree_entry *v = realloc(t->v, cap * sizeof(*v));
    if (v == NULL)
      return NP_ENOMEM;
    t->v = v;
    t->cap = cap;
  }
  char *mem = malloc(plen + 1 + (listed ? 0 : len + 1));
  if (mem == NULL)
    return NP_ENOMEM;
  memcpy(mem, path, plen + 1);
  char *d = listed ? NULL : mem + plen + 1;
  if (!listed && len > 0)
    memcpy(d, data, len);
  if (!listed)
    d[len] = '\0';
  memmove(&t->v[at + 1], &t->v[at], (t->n - at) * sizeof(*t->v));
  t->v[at] = (struct np_ftree_entry){.path = mem, .data = d, .len = len};
  t->n++;
  return 0;
}

int np_ftree_add(struct np_ftree *t, const char *path, const void *data,
                 size_t len) {
  if (t == NULL || !valid_path(path) || (data == NULL && len > 0))
    return NP_EINVAL;
  return add_entry(t, path, data, len, 0);
}

int np_ftree_has(const struct np_ftree *t, const char *path) {
  int found = 0;
  if (t != NULL && path != NULL)
    find(t, path, &found);
  return found;
}

size_t np_ftree_len_at(const struct np_ftree *t, size_t i) {
  return t != NULL && i < t->n ? t->v[i].len : 0;
}

const char *np_ftree_get(const struct np_ftree *t, const char *path,
                         size_t *len) {
  if (t == NULL || path == NULL)
    return NULL;
  int found;
  size_t at = find(t, path, &found);
  if (!found)
    return NULL;
  if (len != NULL)
    *len = t->v[at].len;
  return t->v[at].data;
}

size_t np_ftree_count(const struct np_ftree *t) {
  return t ? t->n : 0;
}

const char *np_ftree_path_at(const struct np_ftree *t, size_t i) {
  if (t == NULL || i >= t->n)
    return NULL;
  return t->v[i].path;
}

/* Walk state shared by the recursive loader. */
struct load_ctx {
  struct np_ftree *t;     /* tree being filled                      */
  size_t max_total;       /* byte limit over all files              */
  size_t max_file;        /* byte limit of one file (0: none)       */
  size_t total;           /* bytes loaded (or listed) so far        */
  int list_only;          /* 1: sizes only, no byte read            */
  const char *root;       /* folder given by the caller (messages)  */
  struct np_errbuf *eb;   /* detail for the caller                  */
};

/* Read the regular file name (relative to dirfd) and add it under rel. */
static int load_file(struct load_ctx *c, int dirfd, const char *name,
                     const char *rel, size_t size_hint) {
  int rc = 0;
  char *buf = NULL;
  /* refused by size before a byte is read */
  if (c->max_file != 0 && size_hint > c->max_file)
    return np_errbuf_set(c->eb, NP_ETOOBIG,
                         "%s/%s: %zu bytes, more than the %zu-byte limit of "
                         "one file; not read",
                         c->root, rel, size_hint, c->max_file);
  if (size_hint > c->max_total - c->total)
    return np_errbuf_set(c->eb, NP_ETOOBIG,
                         "%s: files exceed the %zu-byte limit", c->root,
                         c->max_total);
  if (c->list_only) {
    c->total += size_hint;
    rc = add_entry(c->t, rel, NULL, size_hint, 1);
    return rc == 0 ? 0
                   : np_errbuf_set(c->eb, rc, "%s/%s: %s", c->root, rel,
                                   np_strerror(rc));
  }
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s",
                         c->root, rel, strerror(errno));
  size_t cap = size_hint + 1, len = 0;
  buf = malloc(cap);
  if (buf == NULL) {
    rc = NP_ENOMEM;
    goto close_fd;
  }
  for (;;) {
    if (len == cap) {
      char *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        rc = NP_ENOMEM;
        goto free_buf;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + len, cap - len);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      rc = np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s",
                         c->root, rel, strerror(errno));
      goto free_buf;
    }
    if (r == 0)
      break;
    len += (size_t)r;
    if (c->total + len > c->max_total) {
      rc = np_errbuf_set(c->eb, NP_ETOOBIG,
                         "%s: files exceed the %zu-byte limit", c->root,
                         c->max_total);
      goto free_buf;
    }
  }
  c->total += len;
  rc = np_ftree_add(c->t, rel, buf, len);
  if (rc != 0)
    np_errbuf_set(c->eb, rc, "%s/%s: %s", c->root, rel, np_strerror(rc));
free_buf:
  free(buf);
close_fd:
  close(fd);
  return rc;
}

/* Load every entry of the open folder dfd (consumed) under prefix. */
static int load_folder(struct load_ctx *c, int dfd, const char *prefix,
                       int depth) {
  int rc = 0;
  char *rel = NULL;
  DIR *d = fdopendir(dfd);
  if (d == NULL) {
    close(dfd);
    return np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s",
                         c->root, prefix, strerror(errno));
  }
  if (depth > NP_FTREE_MAX_DEPTH) {
    rc = np_errbuf_set(c->eb, NP_ETOODEEP, "%s/%s: folders nested too deep",
                       c->root, prefix);
    goto close_dir;
  }
  struct dirent *de;
  errno = 0;
  while ((de = readdir(d)) != NULL) {
    const char *name = de->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
      continue;
    free(rel);
    if (asprintf(&rel, "%s%s%s", prefix, prefix[0] ? "/" : "", name) < 0) {
      rel = NULL;
      rc = NP_ENOMEM;
      goto close_dir;
    }
    struct stat st;
    if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      rc = np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s",
                         c->root, rel, strerror(errno));
      goto close_dir;
    }
    if (S_ISDIR(st.st_mode)) {
      int sub = openat(dirfd(d), name,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        rc = np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s",
                           c->root, rel, strerror(errno));
        goto close_dir;
      }
      rc = load_folder(c, sub, rel, depth + 1);
    } else if (S_ISREG(st.st_mode)) {
      rc = load_file(c, dirfd(d), name, rel, (size_t)st.st_size);
    } else {
      rc = np_errbuf_set(c->eb, NP_EINVAL, "%s/%s: %s refused", c->root, rel,
                         S_ISLNK(st.st_mode) ? "symbolic link"
                                             : "special file");
    }
    if (rc != 0)
      goto close_dir;
    errno = 0;
  }
  if (errno != 0)
    rc = np_errbuf_set(c->eb, np_err_from_errno(errno), "%s/%s: %s", c->root,
                       prefix, strerror(errno));
close_dir:
  free(rel);
  closedir(d);
  return rc;
}

int np_ftree_load_dir(const char *dir, size_t max_total_bytes,
                      struct np_ftree **out, struct np_errbuf *eb) {
  return np_ftree_load_dir_max(dir, max_total_bytes, 0, out, eb);
}

static int walk_dir(const char *dir, size_t max_total_bytes,
                    size_t max_file_bytes, int list_only,
                    struct np_ftree **out, struct np_errbuf *eb) {
  if (dir == NULL || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "np_ftree_load_dir: NULL argument");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                         strerror(errno));
  struct np_ftree *t = NULL;
  int rc = np_ftree_new(&t);
  if (rc != 0) {
    close(dfd);
    return np_errbuf_set(eb, rc, "%s: %s", dir, np_strerror(rc));
  }
  struct load_ctx c = {
      .t = t,
      .max_total = max_total_bytes ? max_total_bytes : NP_FTREE_DEFAULT_MAX,
      .max_file = max_file_bytes,
      .list_only = list_only,
      .root = dir,
      .eb = eb,
  };
  rc = load_folder(&c, dfd, "", 0);
  if (rc != 0) {
    np_ftree_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int np_ftree_load_dir_max(const char *dir, size_t max_total_bytes,
                          size_t max_file_bytes, struct np_ftree **out,
                          struct np_errbuf *eb) {
  return walk_dir(dir, max_total_bytes, max_file_bytes, 0, out, eb);
}

int np_ftree_list_dir(const char *dir, size_t max_total_bytes,
                      size_t max_file_bytes, struct np_ftree **out,
                      struct np_errbuf *eb) {
  return walk_dir(dir, max_total_bytes, max_file_bytes, 1, out, eb);
}
