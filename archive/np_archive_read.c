/*
 * np_archive_read.c - stream a bundle once, handing each file to a sink.
 *
 * libarchive parses the tar (tar format only, no filter) from plain bytes
 * that np_gzsrc inflates and bounds.  Each entry is checked before any of
 * its data is read: a name that is absolute, has "." / ".." or empty
 * components or control characters, lies outside the single top folder,
 * repeats an earlier entry, comes out of order, or a type other than
 * file/folder is a problem and its data is skipped.  Sizes are checked
 * against the limits from the header, so an oversized entry is refused
 * before it is decompressed.
 *
 * Memory does not grow with the bundle's bytes: one file's bytes at a time
 * (zero-copy when libarchive hands the file over in one block, the common
 * case; else a gather buffer, reused up to 1 MiB), plus the entry path
 * hashes (8 bytes an entry), so it grows with --max-entries only.
 *
 * Order: entry paths (without a folder's trailing '/') must increase
 * bytewise, as pack writes them.  That keeps a suite's files together and
 * sorted, which is what lets the self-check take them as they go by and
 * finish the suite when the stream leaves its folder.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_archive_int.h"
#include "np_gzsrc.h"

/* A gather buffer up to this size is kept for the next file. */
#define RD_KEEP_BUF ((size_t)1 << 20)

/* A set of 64-bit path hashes: open addressing, grown at half load.
 * Paths must increase, so a repeated path always breaks the order rule
 * too; the set tells "duplicate entry" from "out of order" at 8 bytes per
 * entry instead of a copy of every path (a hash collision could only
 * misname an entry that is out of order anyway as a duplicate). */
struct rd_set {
  uint64_t *slot; /* 0 = empty (a hash of 0 is stored as 1) */
  size_t cap;     /* slots, a power of two                  */
  size_t n;       /* hashes held                            */
};

struct rd_ctx {
  struct np_gzsrc gz;                /* bounded inflate under libarchive */
  struct np_problems *p;             /* where problems go                */
  const struct np_archive_limits *lim; /* limits of this read            */
  const struct np_read_sink *sink;   /* who gets each file               */
  struct np_read_result *res;        /* what the caller gets back        */
  struct rd_set paths;               /* hashes of every entry path       */
  char *prev;                        /* the previous entry's path        */
  char *buf;                         /* gathered bytes of one file       */
  size_t bufcap;                     /* bytes allocated in buf           */
  uint64_t entries, bytes;           /* entries and file bytes so far    */
  int seen_first;                    /* the top folder entry was seen    */
  int sink_failed;                   /* the sink stopped the read (its
                                        own message)                     */
  int oxum_refused;                  /* bag-info.txt stated more than the
                                        limits (reported)                */
  char top[256];                     /* the top folder's name            */
};

static uint64_t rd_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h ? h : 1;
}

/* Add the hash of s[0..n): 1 added, 0 already there, NP_ENOMEM. */
static int rd_set_add(struct rd_set *st, const char *s, size_t n) {
  uint64_t h = rd_hash(s, n);
  if (2 * (st->n + 1) > st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 1024;
    uint64_t *v = calloc(cap, sizeof(*v));
    if (v == NULL)
      return NP_ENOMEM;
    for (size_t i = 0; i < st->cap; i++) {
      if (st->slot[i] == 0)
        continue;
      size_t j = st->slot[i] & (cap - 1);
      while (v[j] != 0)
        j = (j + 1) & (cap - 1);
      v[j] = st->slot[i];
    }
    free(st->slot);
    st->slot = v;
    st->cap = cap;
  }
  size_t i = h & (st->cap - 1);
  for (; st->slot[i] != 0; i = (i + 1) & (st->cap - 1))
    if (st->slot[i] == h)
      return 0;
  st->slot[i] = h;
  st->n++;
  return 1;
}

static void rd_set_free(struct rd_set *st) {
  free(st->slot);
  memset(st, 0, sizeof(*st));
}

/* libarchive's read callback: bytes, or -1 with the error set on a (its
 * contract, not an NP_E* code). */
static la_ssize_t rd_read(struct archive *a, void *c, const void **buf) {
  struct rd_ctx *r = c;
  long n = np_gzsrc_read(&r->gz);
  if (n < 0) {
    archive_set_error(a, r->gz.state == NP_GZSRC_IOERR ? EIO : EINVAL, "%s",
                      r->gz.state == NP_GZSRC_IOERR ? strerror(r->gz.errnum)
                                                    : r->gz.msg);
    return -1;
  }
  *buf = r->gz.out;
  return (la_ssize_t)n;
}

/* Check an entry name; on success *rel points into name past "<top>/"
 * ("" for the top folder itself).  0 ok, NP_ECORRUPT when a problem was
 * reported. */
static int rd_check_path(struct rd_ctx *r, const char *name, int is_dir,
                         const char **rel) {
  struct np_problems *p = r->p;
  if (name == NULL || name[0] == '\0') {
    np_problem(p, "(entry)", "empty or unreadable entry name");
    return NP_ECORRUPT;
  }
  size_t n = strlen(name);
  if (name[0] == '/') {
    np_problem(p, name, "absolute path");
    return NP_ECORRUPT;
  }
  if (n > 4000) {
    np_problem(p, "(entry)", "path longer than 4000 bytes");
    return NP_ECORRUPT;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)name[i];
    if (ch < 0x20 || ch == 0x7f || ch == '\\') {
      np_problem(p, "(entry)", "path has control characters or '\\'");
      return NP_ECORRUPT;
    }
  }
  /* Components: no empty (except one trailing '/' on a folder), ".", "..". */
  const char *c = name;
  while (*c) {
    const char *s = strchr(c, '/');
    size_t cl = s ? (size_t)(s - c) : strlen(c);
    if ((cl == 2 && c[0] == '.' && c[1] == '.')) {
      np_problem(p, name, "path has a '..' component (path traversal)");
      return NP_ECORRUPT;
    }
    if (cl == 1 && c[0] == '.') {
      np_problem(p, name, "path has a '.' component");
      return NP_ECORRUPT;
    }
    if (cl == 0 || (s && s[1] == '\0' && !is_dir)) {
      np_problem(p, name, "path has an empty component");
      return NP_ECORRUPT;
    }
    c = s ? s + 1 : c + cl;
  }
  const char *slash = strchr(name, '/');
  size_t tl = slash ? (size_t)(slash - name) : n;
  if (!r->seen_first) {
    r->seen_first = 1;
    if (tl >= sizeof(r->top) || (slash && slash[1] != '\0') || !is_dir) {
      np_problem(p, name,
                 "first entry must be the bundle's top folder '<name>/'");
      snprintf(r->top, sizeof(r->top), "%.*s", (int)(tl < 255 ? tl : 255),
               name);
      return NP_ECORRUPT;
    }
    memcpy(r->top, name, tl);
    r->top[tl] = '\0';
    if (!np_bag_name_ok(r->top)) {
      np_problem(p, name, "top folder name is not [A-Za-z0-9._-]+");
      return NP_ECORRUPT;
    }
  } else if (strlen(r->top) != tl || strncmp(name, r->top, tl) != 0) {
    char m[400];
    snprintf(m, sizeof(m), "entry outside the top folder '%s/'", r->top);
    np_problem(p, name, "%s", m);
    return NP_ECORRUPT;
  }
  *rel = slash ? slash + 1 : name + n;
  return 0;
}

static int rd_type_ok(struct rd_ctx *r, struct archive_entry *e,
                      const char *name) {
  const char *hl = archive_entry_hardlink(e);
  if (hl != NULL) {
    np_problem(r->p, name, "hardlink not allowed (to '%.200s')", hl);
    return 0;
  }
  switch (archive_entry_filetype(e)) {
  case AE_IFREG:
  case AE_IFDIR:
    return 1;
  case AE_IFLNK: {
    const char *t = archive_entry_symlink(e);
    np_problem(r->p, name, "symlink not allowed (to '%.200s')", t ? t : "?");
    return 0;
  }
  case AE_IFCHR:
  case AE_IFBLK:
    np_problem(r->p, name, "device node not allowed");
    return 0;
  case AE_IFIFO:
    np_problem(r->p, name, "FIFO not allowed");
    return 0;
  case AE_IFSOCK:
    np_problem(r->p, name, "socket not allowed");
    return 0;
  default:
    np_problem(r->p, name, "unsupported entry type");
    return 0;
  }
}

/* The order rule for entry rel (no trailing '/'): paths increase
 * bytewise.  *in_order = 0 after reporting a problem.  0 or NP_ENOMEM. */
static int rd_check_order(struct rd_ctx *r, const char *name, const char *rel,
                          int *in_order) {
  *in_order = r->prev == NULL || strcmp(rel, r->prev) > 0;
  if (!*in_order) {
    np_problem(r->p, name, "out of order: after '%.300s' (entries must be "
               "sorted bytewise by path, as pack writes them)", r->prev);
    return 0;
  }
  char *copy = strdup(rel);
  if (copy == NULL)
    return NP_ENOMEM;
  free(r->prev);
  r->prev = copy;
  return 0;
}

/* bag-info.txt's "Payload-Oxum: OCTETS.FILES" (BagIt 2.0, 2.2.2): what
 * pack states the payload holds.  The file comes first in the stream
 * (paths increase bytewise, "bag-info.txt" < "data/"), so a payload the
 * limits cannot hold is refused here, before any of it is inflated, not
 * after reading a gigabyte; a false statement is caught at the end (the
 * tag files are compared with what pack makes of the payload).  1 when
 * the statement exceeds a limit (reported), else 0. */
static int rd_oxum_over(struct rd_ctx *r, const char *name, const char *data,
                        size_t len) {
  static const char key[] = "\nPayload-Oxum: ";
  char buf[4096];
  size_t n = len < sizeof buf - 2 ? len : sizeof buf - 2;
  buf[0] = '\n';
  memcpy(buf + 1, data, n);
  buf[n + 1] = '\0';
  const char *at = strstr(buf, key);
  unsigned long long octets, files;
  if (at == NULL || sscanf(at + sizeof key - 1, "%llu.%llu", &octets,
                           &files) != 2)
    return 0; /* no statement: the end-of-stream checks say so */
  const struct np_archive_limits *lim = r->lim;
  if (octets > lim->max_total_bytes) {
    np_problem(r->p, name, "states a payload of %llu bytes (Payload-Oxum), "
               "over the %llu-byte total limit (--max-bytes); not read "
               "further", octets, (unsigned long long)lim->max_total_bytes);
    return 1;
  }
  /* its manifest-sha256.txt follows with a line per payload file: a
   * 64-digit hash, two spaces, a path of at least "data/S/F", '\n' */
  unsigned long long least = octets + files * (64 + 2 + 8 + 1);
  if (files <= lim->max_entries && least > lim->max_total_bytes) {
    np_problem(r->p, name, "states a payload of %llu bytes in %llu files "
               "(Payload-Oxum), which with its manifest makes at least %llu, "
               "over the %llu-byte total limit (--max-bytes); not read "
               "further", octets, files, least,
               (unsigned long long)lim->max_total_bytes);
    return 1;
  }
  if (files > lim->max_entries) {
    np_problem(r->p, name, "states a payload of %llu files (Payload-Oxum), "
               "over the limit of %llu entries (--max-entries); not read "
               "further", files, (unsigned long long)lim->max_entries);
    return 1;
  }
  return 0;
}

/* Hand one file to the sink (bag-info.txt first held to the limits:
 * NP_ETOOBIG with r->oxum_refused set when it states more). */
static int rd_deliver(struct rd_ctx *r, const char *rel, const char *data,
                      size_t len, int in_order) {
  if (strcmp(rel, "bag-info.txt") == 0) {
    char where[sizeof r->top + 16];
    snprintf(where, sizeof where, "%s/%s", r->top, rel);
    if (rd_oxum_over(r, where, data, len)) {
      r->oxum_refused = 1;
      return NP_ETOOBIG;
    }
  }
  int rc = r->sink->file(r->sink->ctx, r->res, rel, data, len, in_order);
  r->sink_failed = rc != 0;
  return rc;
}

/* Read the current entry's data (size checked against limits first) and
 * hand it to the sink.  0, a fatal code from the sink or NP_ENOMEM, or
 * NP_ECORRUPT when the entry broke a limit or the stream (a problem is
 * reported, here or by the caller): stop reading. */
static int rd_data(struct rd_ctx *r, struct archive *a,
                   struct archive_entry *e, const char *name,
                   const char *rel, int in_order) {
  const struct np_archive_limits *lim = r->lim;
  la_int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
  if (size < 0 || (uint64_t)size > lim->max_file_bytes) {
    np_problem(r->p, name, "file of %lld bytes exceeds the %llu-byte limit "
               "(--max-file-bytes)", (long long)size,
               (unsigned long long)lim->max_file_bytes);
    return NP_ECORRUPT;
  }
  if (r->bytes + (uint64_t)size > lim->max_total_bytes) {
    np_problem(r->p, name, "files exceed the %llu-byte total limit "
               "(--max-bytes)", (unsigned long long)lim->max_total_bytes);
    return NP_ECORRUPT;
  }
  /* Zero-copy when libarchive hands the whole file as one block (the
   * common case): it is delivered before the next read can recycle the
   * block.  Otherwise the blocks are gathered in r->buf. */
  const void *blk;
  size_t blen, got = 0;
  la_int64_t off;
  int delivered = 0, rc = 0;
  for (;;) {
    int ar = archive_read_data_block(a, &blk, &blen, &off);
    if (ar == ARCHIVE_EOF)
      break;
    if (ar != ARCHIVE_OK || off < 0 || (uint64_t)off != got ||
        got + blen > (uint64_t)size) {
      if (ar == ARCHIVE_OK || ar == ARCHIVE_WARN)
        np_problem(r->p, name, "entry data does not match its header "
                   "(sparse or oversized)");
      return NP_ECORRUPT; /* a stream error is reported by the caller */
    }
    if (got == 0 && blen == (size_t)size && size > 0) {
      rc = rd_deliver(r, rel, blk, blen, in_order);
      delivered = 1;
      if (rc != 0)
        return rc;
    } else if (blen > 0) {
      if (r->bufcap < (size_t)size + 1) {
        char *nb = realloc(r->buf, (size_t)size + 1);
        if (nb == NULL)
          return NP_ENOMEM;
        r->buf = nb;
        r->bufcap = (size_t)size + 1;
      }
      memcpy(r->buf + got, blk, blen);
    }
    got += blen;
  }
  r->bytes += got;
  if (got != (size_t)size) {
    np_problem(r->p, name, "entry is shorter than its header declares");
    return NP_ECORRUPT;
  }
  if (!delivered)
    rc = rd_deliver(r, rel, got > 0 ? r->buf : "", got, in_order);
  if (r->bufcap > RD_KEEP_BUF) { /* one big file (evidence.json of a
                                    large bag) does not stay resident */
    free(r->buf);
    r->buf = NULL;
    r->bufcap = 0;
  }
  return rc;
}

/* Report the libarchive/gzip error that stopped the stream. */
static void rd_stream_error(struct rd_ctx *r, struct archive *a) {
  const char *what = archive_error_string(a);
  if (r->gz.state == NP_GZSRC_LIMIT)
    np_problem(r->p, NULL, "%s", r->gz.msg);
  else if (r->gz.state == NP_GZSRC_NOTGZIP)
    np_problem(r->p, NULL, "%s", r->gz.msg);
  else if (r->gz.state == NP_GZSRC_CORRUPT)
    np_problem(r->p, NULL, "%s", r->gz.msg);
  else
    np_problem(r->p, NULL, "corrupt or truncated tar: %s",
               what ? what : "unknown error");
}

/* After the tar end marker: the rest must be zero padding and a sound gzip
 * trailer.  First the bytes libarchive was handed but did not consume (its
 * read-ahead: up to a whole output block past the end marker, which GNU
 * tar -i would still extract), then the rest of the stream. */
static void rd_drain(struct rd_ctx *r, struct archive *a) {
  la_int64_t used = archive_filter_bytes(a, 0);
  uint64_t ahead = used >= 0 && (uint64_t)used <= r->gz.uncomp
                       ? r->gz.uncomp - (uint64_t)used
                       : UINT64_MAX;
  int z = np_gzsrc_tail_zero(&r->gz, ahead);
  if (z != 1) {
    np_problem(r->p, NULL, z == 0 ? "data after the end of the tar archive"
                                  : "cannot account for the bytes after the "
                                    "end of the tar archive");
    r->res->complete = 0;
    return;
  }
  long n;
  while ((n = np_gzsrc_read(&r->gz)) > 0) {
    for (long i = 0; i < n; i++) {
      if (r->gz.out[i] != 0) {
        np_problem(r->p, NULL, "data after the end of the tar archive");
        r->res->complete = 0;
        return;
      }
    }
  }
  if (n < 0) {
    np_problem(r->p, NULL, "%s", r->gz.msg);
    r->res->complete = 0;
    return;
  }
  if (np_gzsrc_sha256(&r->gz, r->res->file_sha256) != 0) {
    np_problem(r->p, NULL, "cannot hash the bundle file");
    r->res->complete = 0;
  }
}

/* Walk every entry.  0, or NP_ENOMEM / NP_EIO (unreadable) / a fatal code
 * from the sink. */
static int rd_loop(struct rd_ctx *r, struct archive *a) {
  struct archive_entry *e;
  char name[4200], relc[4200];
  for (;;) {
    int ar = archive_read_next_header(a, &e);
    if (ar == ARCHIVE_EOF) {
      r->res->complete = 1;
      return 0;
    }
    if (r->gz.state == NP_GZSRC_IOERR)
      return NP_EIO;
    if (ar < ARCHIVE_WARN) {
      rd_stream_error(r, a);
      return 0;
    }
    if (ar == ARCHIVE_WARN)
      np_problem(r->p, NULL, "tar warning: %s", archive_error_string(a));
    if (r->entries == 0 &&
        (archive_filter_count(a) != 1 ||
         (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR)) {
      np_problem(r->p, NULL, "not a tar archive inside the gzip stream");
      return 0;
    }
    if (++r->entries > r->lim->max_entries) {
      np_problem(r->p, NULL, "more than %llu entries (--max-entries)",
                 (unsigned long long)r->lim->max_entries);
      return 0;
    }
    const char *pn = archive_entry_pathname(e), *rel = NULL;
    snprintf(name, sizeof(name), "%s", pn ? pn : "");
    int is_dir = archive_entry_filetype(e) == AE_IFDIR;
    int64_t mt = (int64_t)archive_entry_mtime(e);
    if (r->entries == 1)
      r->res->mtime = mt;
    else if (mt != r->res->mtime)
      r->res->mtime_mixed = 1;
    if (rd_check_path(r, name, is_dir, &rel) != 0 ||
        !rd_type_ok(r, e, name))
      continue; /* libarchive skips the unread data */
    snprintf(r->res->top, sizeof(r->res->top), "%s", r->top);
    size_t rl = strlen(rel);
    if (rl == 0)
      continue; /* the top folder itself */
    memcpy(relc, rel, rl + 1);
    if (relc[rl - 1] == '/')
      relc[--rl] = '\0';
    int added = rd_set_add(&r->paths, relc, rl);
    if (added < 0)
      return added;
    if (added == 0) { /* a file and a folder of one name count too */
      /* sized from both parts, so no name is ever cut short */
      char where[sizeof r->top + 1 + sizeof relc];
      snprintf(where, sizeof(where), "%s/%s", r->top, relc);
      np_problem(r->p, where, "duplicate entry");
      continue;
    }
    int in_order, rc = rd_check_order(r, name, relc, &in_order);
    if (rc != 0)
      return rc;
    if (is_dir)
      continue;
    rc = rd_data(r, a, e, name, relc, in_order);
    if (rc == NP_ETOOBIG && r->oxum_refused)
      return 0; /* bag-info.txt states more than the limits: reported */
    if (rc != 0 && rc != NP_ECORRUPT)
      return rc; /* out of memory, or the sink failed (its own message) */
    if (rc != 0) {
      if (r->gz.state == NP_GZSRC_IOERR)
        return NP_EIO;
      if (r->gz.state != NP_GZSRC_OK || archive_errno(a) != 0)
        rd_stream_error(r, a);
      return 0; /* a limit or a broken stream: stop reading */
    }
    if (r->p->count >= NP_ARCHIVE_MAX_PROBLEMS)
      return 0;
  }
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int np_archive__read(const char *path, const struct np_archive_limits *lim,
                     struct np_problems *p, const struct np_read_sink *sink,
                     struct np_read_result *res, struct np_errbuf *eb) {
  struct rd_ctx r = {.p = p, .lim = lim, .sink = sink, .res = res};
  memset(res, 0, sizeof(*res));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", path,
                         strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return np_errbuf_set(eb, np_err_from_errno(e), "%s: fstat: %s", path,
                         strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return np_errbuf_set(eb, NP_EISDIR, "%s: is a folder", path);
  }
  /* Tar headers add at most 3 KiB per entry on top of the file bytes.
   * Saturating: huge limits from the flags mean "no limit", and must not
   * wrap around to a tiny one. */
  uint64_t hdrs = lim->max_entries > UINT64_MAX / 3072
                      ? UINT64_MAX
                      : lim->max_entries * 3072;
  uint64_t max_uncomp = sat_add(sat_add(lim->max_total_bytes, hdrs), 1u << 20);
  int rc = 0;
  if (np_gzsrc_init(&r.gz, fd, max_uncomp, lim->max_ratio) != 0) {
    close(fd);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  struct archive *a = archive_read_new();
  if (a == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto free_gz;
  }
  archive_read_support_format_tar(a);
  if (archive_read_open(a, &r, NULL, rd_read, NULL) != ARCHIVE_OK) {
    if (r.gz.state == NP_GZSRC_IOERR)
      rc = np_errbuf_set(eb, NP_EIO, "%s: %s", path, strerror(r.gz.errnum));
    else
      rd_stream_error(&r, a);
    goto free_archive;
  }
  rc = rd_loop(&r, a);
  if (rc == 0 && res->complete)
    rd_drain(&r, a);
  if (rc == 0 && r.gz.state == NP_GZSRC_IOERR)
    rc = NP_EIO;
  if (rc != 0 && !r.sink_failed)
    np_errbuf_set(eb, rc, "%s: %s", path,
                  rc == NP_EIO ? strerror(r.gz.errnum) : np_strerror(rc));
  if (rc == 0 && res->complete && r.entries == 0)
    np_problem(p, NULL, "empty archive (no top folder)");
  res->entries = r.entries;
free_archive:
  archive_read_free(a);
free_gz:
  np_gzsrc_free(&r.gz);
  close(fd);
  rd_set_free(&r.paths);
  free(r.prev);
  free(r.buf);
  return rc;
}
