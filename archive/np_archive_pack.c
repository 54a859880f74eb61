/*
 * np_archive_pack.c - build a bundle from results folders, deterministically.
 *
 * The folders are listed (sizes only) and the limits verify applies are
 * checked on the listing, before any file is read.  Then each file is read
 * once: hashed, its evidence facts taken and its bytes fed to its suite's
 * streaming self-check (the one verify runs; np_archive_pack_stream.c),
 * and a set that fails or is incomplete (unless allowed) is refused.
 * evidence.json and the BagIt tag files are derived from the hashes, and
 * the tar is written reading each file a second time, refused when its
 * bytes no longer hash to what was checked: what was checked is what is
 * packed, with one file in memory at a time, whatever the set's size.
 * Determinism: entries sorted by path, one mtime for all, uid/gid 0
 * without names, modes 0644/0755, pax restricted format, gzip header
 * without timestamp.
 */
#include "np_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_archive_int.h"
#include "np_bag.h"
#include "np_bagit.h"
#include "np_evidence.h"
#include "np_gzsink.h"
#include "np_json.h"
#include "np_results_selfcheck.h"

/* --zlib: libarchive's gzip filter, no timestamp in the header. */
#define NP_ARCHIVE_GZIP_OPTIONS "gzip:!timestamp,gzip:compression-level=6"

/* One tar entry to write: a folder or a file of the bag. */
struct pack_entry {
  char *rel;                      /* relative to the top; "" for the top */
  const struct np_bag_file *file; /* NULL for a folder                   */
  size_t len;                     /* file bytes, 0 for a folder          */
};

struct pack_list {
  struct pack_entry *v;
  size_t n, cap;
};

static int pack_list_add(struct pack_list *l, const char *rel, size_t rel_len,
                         const struct np_bag_file *file) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 256;
    struct pack_entry *v = realloc(l->v, cap * sizeof(*v));
    if (v == NULL)
      return NP_ENOMEM;
    l->v = v;
    l->cap = cap;
  }
  char *r = strndup(rel, rel_len);
  if (r == NULL)
    return NP_ENOMEM;
  l->v[l->n++] = (struct pack_entry){r, file, file ? file->len : 0};
  return 0;
}

static void pack_list_free(struct pack_list *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i].rel);
  free(l->v);
}

static int pack_entry_cmp(const void *a, const void *b) {
  const struct pack_entry *x = a, *y = b;
  int c = strcmp(x->rel, y->rel);
  if (c != 0)
    return c;
  return (x->file != NULL) - (y->file != NULL); /* folder first */
}

/* Every file plus every folder leading to it, sorted, folders once. */
static int pack_collect(const struct np_bag_files *tags,
                        const struct np_bag_files *payload,
                        struct pack_list *l) {
  int rc = pack_list_add(l, "", 0, NULL);
  const struct np_bag_files *sets[2] = {tags, payload};
  for (int s = 0; s < 2 && rc == 0; s++) {
    for (size_t i = 0; i < sets[s]->n && rc == 0; i++) {
      const struct np_bag_file *f = &sets[s]->v[i];
      for (const char *q = strchr(f->path, '/'); q && rc == 0;
           q = strchr(q + 1, '/'))
        rc = pack_list_add(l, f->path, (size_t)(q - f->path), NULL);
      if (rc == 0)
        rc = pack_list_add(l, f->path, strlen(f->path), f);
    }
  }
  if (rc != 0)
    return rc;
  qsort(l->v, l->n, sizeof(l->v[0]), pack_entry_cmp);
  size_t w = 0; /* drop repeated folders */
  for (size_t i = 0; i < l->n; i++) {
    if (w > 0 && l->v[i].file == NULL && l->v[w - 1].file == NULL &&
        strcmp(l->v[i].rel, l->v[w - 1].rel) == 0) {
      free(l->v[i].rel);
      continue;
    }
    l->v[w++] = l->v[i];
  }
  l->n = w;
  return 0;
}

/* What verify's limits (np_archive_limits_default, with the limits pack
 * was given) refuse, pack refuses before writing: one limit table for
 * both, so a bundle pack writes verifies with the same flags - with none,
 * when pack had none.  l is every entry (the top folder counts, as in the
 * reader); NP_ETOOBIG with one line naming the limit. */
static int pack_limits_check(const struct pack_list *l,
                             const struct np_archive_pack_opts *o,
                             uint64_t known_tags, struct np_errbuf *eb) {
  struct np_archive_limits lim;
  np_archive_limits_default(&lim);
  if (o->max_total_bytes != 0)
    lim.max_total_bytes = o->max_total_bytes;
  if (o->max_entries != 0)
    lim.max_entries = o->max_entries;
  if (o->max_file_bytes != 0)
    lim.max_file_bytes = o->max_file_bytes;
  uint64_t total = known_tags;
  for (size_t i = 0; i < l->n; i++) {
    const struct pack_entry *e = &l->v[i];
    if (e->file != NULL && (uint64_t)e->len > lim.max_file_bytes)
      return np_errbuf_set(eb, NP_ETOOBIG,
                           "%s: %zu bytes, over the %llu-byte limit of one "
                           "file verify applies (--max-file-bytes); not "
                           "packed",
                           e->rel, e->len,
                           (unsigned long long)lim.max_file_bytes);
    total += e->len;
  }
  if ((uint64_t)l->n > lim.max_entries)
    return np_errbuf_set(eb, NP_ETOOBIG,
                         "the bundle would hold %zu entries, over the %llu "
                         "verify accepts (--max-entries); not packed",
                         l->n, (unsigned long long)lim.max_entries);
  if (total > lim.max_total_bytes)
    return np_errbuf_set(eb, NP_ETOOBIG,
                         "the bundle's files (payload and tag files) would "
                         "hold %s%llu bytes, over the %llu-byte total limit "
                         "(--max-bytes; verify needs the same); not packed",
                         known_tags ? "at least " : "",
                         (unsigned long long)total,
                         (unsigned long long)lim.max_total_bytes);
  return 0;
}

/* libarchive hands the uncompressed tar to np_gzsink (libarchive's write
 * callback contract: bytes written, or -1 with the error set on a). */
static la_ssize_t pack_sink_write(struct archive *a, void *ctx,
                                  const void *buf, size_t len) {
  int rc = np_gzsink_write(ctx, buf, len);
  if (rc != 0) {
    archive_set_error(a, EIO, "writing the bundle: %s", np_strerror(rc));
    return -1;
  }
  return (la_ssize_t)len;
}

/* Open a with the chosen compressor over fd: 0 or NP_EARCHIVE (the
 * detail is archive_error_string(a)). */
static int pack_open(struct archive *a, int fd, int use_zlib,
                     struct np_gzsink *sink) {
  if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK)
    return NP_EARCHIVE;
  if (use_zlib)
    return archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
                   archive_write_set_options(a, NP_ARCHIVE_GZIP_OPTIONS) !=
                       ARCHIVE_OK ||
                   archive_write_open_fd(a, fd) != ARCHIVE_OK
               ? NP_EARCHIVE
               : 0;
  return archive_write_open(a, sink, NULL, pack_sink_write, NULL) !=
                 ARCHIVE_OK
             ? NP_EARCHIVE
             : 0;
}

/* Where pass 2 reads the payload again from. */
struct pack_src {
  const struct np_archive__pack_suite *suites;
  size_t n;
  uint64_t max_file; /* verify's one-file limit */
};

/* One file's bytes into the archive: a tag file from memory, a payload
 * file read again from its folder (and refused when it changed). */
static int pack_write_file_data(struct archive *a, const struct pack_src *src,
                                const struct pack_entry *pe, const char *path,
                                struct np_errbuf *eb) {
  char *buf = NULL;
  size_t len = pe->len;
  const char *d = pe->file->data;
  if (d == NULL) {
    int rc = np_archive__pack_reread(src->suites, src->n, pe->file,
                                     src->max_file, &buf, &len, eb);
    if (rc != 0)
      return rc;
    d = buf;
  }
  int rc = 0;
  if (len > 0 && archive_write_data(a, d, len) != (la_ssize_t)len)
    rc = np_errbuf_set(eb, NP_EARCHIVE, "%s: libarchive: %s", path,
                       archive_error_string(a));
  free(buf);
  return rc;
}

static int pack_write_tar(int fd, const char *name, const struct pack_list *l,
                          const struct pack_src *src, int64_t mtime,
                          int use_zlib, struct np_errbuf *eb) {
  int rc = 0;
  struct np_gzsink *sink = NULL;
  struct archive *a = archive_write_new();
  struct archive_entry *e = archive_entry_new();
  if (a == NULL || e == NULL || (!use_zlib && np_gzsink_new(fd, &sink) != 0)) {
    rc = NP_ENOMEM;
    goto free_archive;
  }
  if (pack_open(a, fd, use_zlib, sink) != 0) {
    rc = np_errbuf_set(eb, NP_EARCHIVE, "libarchive: %s",
                       archive_error_string(a));
    goto free_archive;
  }
  char path[4400];
  for (size_t i = 0; i < l->n; i++) {
    const struct pack_entry *pe = &l->v[i];
    int dir = pe->file == NULL;
    snprintf(path, sizeof(path), "%s%s%s%s", name, pe->rel[0] ? "/" : "",
             pe->rel, dir ? "/" : "");
    archive_entry_clear(e);
    archive_entry_set_pathname(e, path);
    archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(e, dir ? 0755 : 0644);
    archive_entry_set_size(e, dir ? 0 : (la_int64_t)pe->len);
    archive_entry_set_mtime(e, (time_t)mtime, 0);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK) {
      rc = np_errbuf_set(eb, NP_EARCHIVE, "%s: libarchive: %s", path,
                         archive_error_string(a));
      goto free_archive;
    }
    if (!dir && (rc = pack_write_file_data(a, src, pe, path, eb)) != 0)
      goto free_archive;
  }
  if (archive_write_close(a) != ARCHIVE_OK)
    rc = np_errbuf_set(eb, NP_EARCHIVE, "libarchive: %s",
                       archive_error_string(a));
  else if (sink != NULL && np_gzsink_finish(sink) != 0)
    rc = np_errbuf_set(eb, NP_EIO, "writing the bundle: %s", strerror(errno));
free_archive:
  np_gzsink_free(sink);
  archive_entry_free(e);
  if (a != NULL)
    archive_write_free(a);
  return rc;
}

/* Write the tar to a temp file beside out, fsync, rename into place. */
static int pack_write_file(const char *out, const char *name,
                           const struct pack_list *l,
                           const struct pack_src *src, int64_t mtime,
                           int use_zlib, struct np_errbuf *eb) {
  char tmp[4200];
  if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", out) >= (int)sizeof(tmp))
    return np_errbuf_set(eb, NP_EINVAL, "%s: path too long", out);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", out,
                         strerror(errno));
  int rc = pack_write_tar(fd, name, l, src, mtime, use_zlib, eb);
  if (rc == 0 && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                       strerror(errno));
  if (close(fd) != 0 && rc == 0)
    rc = np_errbuf_set(eb, NP_EIO, "%s: %s", tmp, strerror(errno));
  if (rc == 0 && rename(tmp, out) != 0)
    rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", out,
                       strerror(errno));
  if (rc != 0)
    unlink(tmp);
  return rc;
}

static int pack_add_tag(struct np_bag *b, const char *name, const char *text) {
  return np_ftree_add(b->tags, name, text, strlen(text));
}

/* The tag files: bag-info.txt, bagit.txt, evidence.json,
 * manifest-sha256.txt, then tagmanifest-sha256.txt over those four. */
static int pack_add_tags(struct np_bag *b, const cJSON *ev,
                         const struct np_bag_files *payload) {
  struct np_bag_files tags = {0};
  char *evtext = np_json_print(ev, 1);
  char *info = np_evidence_bag_info(ev);
  char *man = np_bagit_manifest(payload);
  char *tagman = NULL;
  int rc = NP_ENOMEM;
  if (evtext == NULL || info == NULL || man == NULL)
    goto free_texts;
  rc = pack_add_tag(b, "bag-info.txt", info);
  if (rc == 0)
    rc = pack_add_tag(b, "bagit.txt", NP_BAGIT_TXT);
  if (rc == 0)
    rc = pack_add_tag(b, "evidence.json", evtext);
  if (rc == 0)
    rc = pack_add_tag(b, "manifest-sha256.txt", man);
  if (rc == 0)
    rc = np_bag_files_list(b, 1, &tags);
  if (rc == 0 && (tagman = np_bagit_manifest(&tags)) == NULL)
    rc = NP_ENOMEM;
  if (rc == 0)
    rc = pack_add_tag(b, "tagmanifest-sha256.txt", tagman);
  free(tagman);
  np_bag_files_free(&tags);
free_texts:
  free(man);
  free(info);
  free(evtext);
  return rc;
}

/* List each folder (sizes only, no byte read) as data/<basename>. */
static int pack_load(const struct np_archive_pack_opts *o, struct np_bag *b,
                     struct np_errbuf *eb) {
  for (size_t i = 0; i < o->ndirs; i++) {
    char copy[4096];
    snprintf(copy, sizeof(copy), "%s", o->dirs[i]);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
      copy[--n] = '\0';
    const char *base = basename(copy);
    if (!np_bag_name_ok(base))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s: folder name '%s' is not a safe suite name "
                           "([A-Za-z0-9._-], not starting with '.')",
                           o->dirs[i], base);
    struct np_ftree *t = NULL;
    /* sizes only: the limits are applied to the listing (pack_limits_check,
     * naming the flag), so no limit here */
    int rc = np_ftree_list_dir(o->dirs[i], SIZE_MAX, 0, &t, eb);
    if (rc != 0)
      return rc;
    size_t cnt = np_ftree_count(t);
    for (size_t k = 0; k < cnt; k++) {
      const char *p = np_ftree_path_at(t, k);
      if (!np_bagit_path_ok(p)) {
        np_errbuf_set(eb, NP_EINVAL,
                      "%s/%s: file name has '%%', '\\' or control "
                      "characters, which BagIt manifests cannot carry",
                      o->dirs[i], p);
        np_ftree_free(t); /* p belonged to t */
        return NP_EINVAL;
      }
    }
    if (!np_ftree_has(t, "suite.json")) {
      np_ftree_free(t);
      return np_errbuf_set(eb, NP_EINVAL,
                           "%s: not a results folder (no suite.json)",
                           o->dirs[i]);
    }
    rc = np_bag_suite_adopt(b, base, t);
    if (rc != 0) {
      np_ftree_free(t);
      return np_errbuf_set(eb, rc == NP_EEXIST ? NP_EUSAGE : rc,
                           "%s: two folders named '%s'", o->dirs[i], base);
    }
  }
  return 0;
}

/* The bag's suites with the folders they are read from (o->dirs by
 * basename), in the bag's order; *out freed by the caller. */
static int pack_sources(const struct np_archive_pack_opts *o,
                        const struct np_bag *b,
                        struct np_archive__pack_suite **out) {
  struct np_archive__pack_suite *v = calloc(b->nsuites + 1, sizeof(*v));
  if (v == NULL)
    return NP_ENOMEM;
  for (size_t j = 0; j < b->nsuites; j++) {
    v[j].name = b->suites[j].name;
    v[j].list = b->suites[j].tree;
    for (size_t i = 0; i < o->ndirs && v[j].dir == NULL; i++) {
      char copy[4096];
      snprintf(copy, sizeof(copy), "%s", o->dirs[i]);
      size_t n = strlen(copy);
      while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
      if (strcmp(basename(copy), v[j].name) == 0)
        v[j].dir = o->dirs[i];
    }
  }
  *out = v;
  return 0;
}

/* Bytes of manifest-sha256.txt, known from the listing (one line of a
 * 64-digit hash, two spaces and the path per file; np_bagit_manifest). */
static uint64_t pack_manifest_bytes(const struct np_bag_files *payload) {
  uint64_t n = 0;
  for (size_t i = 0; i < payload->n; i++)
    n += 64 + 2 + strlen(payload->v[i].path) + 1;
  return n;
}

/* The payload as listed: every file under data/ with its size, sorted;
 * hashes and facts are filled by the self-check's pass. */
static int pack_payload_listed(const struct np_bag *b,
                               struct np_bag_files *payload) {
  static const char none[NP_SHA256_HEX_SIZE] = "";
  for (size_t j = 0; j < b->nsuites; j++) {
    const struct np_ftree *t = b->suites[j].tree;
    for (size_t k = 0; k < np_ftree_count(t); k++) {
      char path[8400];
      snprintf(path, sizeof path, "data/%s/%s", b->suites[j].name,
               np_ftree_path_at(t, k));
      if (np_bag_files_push(payload, path, np_ftree_len_at(t, k), none,
                            NULL) != 0)
        return NP_ENOMEM;
    }
  }
  np_bag_files_sort(payload);
  return 0;
}

/* Names of the suites the self-check found incomplete (pack
 * --allow-incomplete), for evidence.json. */
struct pack_outcome {
  char **incomplete; /* suite names                   */
  size_t n;          /* names held                    */
  char note[600];    /* the first one's self-check note */
};

static int pack_is_incomplete(void *ctx, const char *suite) {
  const struct pack_outcome *o = ctx;
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->incomplete[i], suite) == 0)
      return 1;
  return 0;
}

/* The result-set self-check of every suite: NP_ECHECK (problems told
 * through o->on_problem) or NP_EINCOMPLETE (without --allow-incomplete)
 * refuses the pack; incomplete suites that may be packed are listed in
 * out for evidence.json. */
static int pack_selfcheck(const struct np_archive_pack_opts *o,
                          const struct np_bag *b, const struct pack_src *src,
                          struct np_bag_files *payload,
                          struct pack_outcome *out, struct np_errbuf *eb) {
  size_t failed = 0, incomplete = 0;
  char note[600] = "";
  for (size_t i = 0; i < b->nsuites; i++) {
    struct np_results_outcome oc;
    const char *name = b->suites[i].name;
    int rc = np_archive__pack_check_suite(&src->suites[i], src->max_file,
                                          payload, o->on_problem, o->ctx,
                                          &oc, eb);
    if (rc == NP_ECHECK) {
      failed++;
    } else if (rc == NP_EINCOMPLETE) {
      if (incomplete++ == 0)
        snprintf(note, sizeof note, "%.300s: %.280s", name,
                 oc.note[0] ? oc.note : "incomplete");
      char **v = realloc(out->incomplete, (out->n + 1) * sizeof(*v));
      if (v == NULL || (v[out->n] = strdup(name)) == NULL) {
        if (v != NULL)
          out->incomplete = v;
        return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      }
      out->incomplete = v;
      out->n++;
    } else if (rc != 0) {
      return rc; /* eb says why */
    }
  }
  if (failed > 0)
    return np_errbuf_set(eb, NP_ECHECK,
                         "%zu of %zu result set(s) fail their self-check; "
                         "not packed",
                         failed, b->nsuites);
  if (incomplete > 0 && !o->allow_incomplete)
    return np_errbuf_set(eb, NP_EINCOMPLETE,
                         "%.380s; not packed (--allow-incomplete packs it, "
                         "marked incomplete in evidence.json)",
                         note);
  snprintf(out->note, sizeof out->note, "%s", note);
  return 0;
}

static void pack_outcome_free(struct pack_outcome *o) {
  for (size_t i = 0; i < o->n; i++)
    free(o->incomplete[i]);
  free(o->incomplete);
}

/* Derive the bag name from out: basename minus .tar.gz / .tgz. */
static void pack_default_name(const char *out, char *name, size_t len) {
  const char *slash = strrchr(out, '/');
  snprintf(name, len, "%s", slash ? slash + 1 : out);
  size_t n = strlen(name);
  if (n > 7 && strcmp(name + n - 7, ".tar.gz") == 0)
    name[n - 7] = '\0';
  else if (n > 4 && strcmp(name + n - 4, ".tgz") == 0)
    name[n - 4] = '\0';
}

/* The bag's tag files and the whole entry list, from the checked payload:
 * evidence.json (facts, mtime, incomplete suites), the BagIt tag files,
 * sorted entries; *mtime the bundle's. */
static int pack_build_tags(const struct np_archive_pack_opts *o,
                           const char *name, struct np_bag *b,
                           struct np_bag_files *payload,
                           struct pack_outcome *outcome,
                           struct np_bag_files *tags, struct pack_list *l,
                           int64_t *mtime) {
  cJSON *ev = NULL;
  const char *src = NP_EVIDENCE_SRC_ENV;
  *mtime = o->source_date_epoch;
  if (!o->has_source_date_epoch) {
    int found;
    np_evidence_newest_start(payload, mtime, &found);
    src = found ? NP_EVIDENCE_SRC_RUNS : NP_EVIDENCE_SRC_NONE;
  }
  int rc = np_evidence_build(name, payload, *mtime, src, pack_is_incomplete,
                             outcome, &ev);
  if (rc == 0)
    rc = pack_add_tags(b, ev, payload);
  cJSON_Delete(ev);
  if (rc == 0)
    rc = np_bag_files_list(b, 1, tags);
  if (rc == 0)
    rc = pack_collect(tags, payload, l);
  return rc;
}

int np_archive_pack(const struct np_archive_pack_opts *o,
                    struct np_archive_verdict *verdict, struct np_errbuf *eb) {
  char name[256];
  if (o->ndirs == 0 || o->out == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "pack needs DIR... and -o BUNDLE");
  if (o->name != NULL)
    snprintf(name, sizeof(name), "%s", o->name);
  else
    pack_default_name(o->out, name, sizeof(name));
  if (!np_bag_name_ok(name))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "bundle name '%s' is not safe ([A-Za-z0-9._-], not "
                         "starting with '.'); use --name",
                         name);
  struct np_bag *b = NULL;
  struct np_bag_files payload = {0}, tags = {0};
  struct pack_list l = {0};
  struct pack_outcome outcome = {0};
  struct pack_src src = {
      .max_file = o->max_file_bytes ? o->max_file_bytes
                                    : NP_ARCHIVE_DEFAULT_MAX_FILE_BYTES};
  struct np_archive__pack_suite *suites = NULL;
  int rc = np_bag_new(name, &b);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "out of memory");
  rc = pack_load(o, b, eb);
  if (rc != 0)
    goto free_all;
  /* the limits on the listed payload, before a byte is read */
  rc = pack_payload_listed(b, &payload);
  if (rc == 0)
    rc = pack_collect(&tags, &payload, &l);
  if (rc == 0)
    rc = pack_sources(o, b, &suites);
  if (rc != 0) {
    np_errbuf_set(eb, rc, "building the bag: %s", np_strerror(rc));
    goto free_all;
  }
  src.suites = suites;
  src.n = b->nsuites;
  /* with the one tag file the listing gives exactly, so that a set the
   * tag files would push over the limit is refused before the reading */
  rc = pack_limits_check(&l, o, pack_manifest_bytes(&payload), eb);
  pack_list_free(&l);
  l = (struct pack_list){0};
  if (rc == 0)
    rc = pack_selfcheck(o, b, &src, &payload, &outcome, eb);
  if (rc != 0)
    goto free_all;
  int64_t mtime = 0;
  rc = pack_build_tags(o, name, b, &payload, &outcome, &tags, &l, &mtime);
  if (rc != 0) {
    np_errbuf_set(eb, rc, "building the bag: %s", np_strerror(rc));
    goto free_all;
  }
  rc = pack_limits_check(&l, o, 0, eb);
  if (rc == 0)
    rc = pack_write_file(o->out, name, &l, &src, mtime, o->use_zlib, eb);
  if (rc == 0 && verdict != NULL) {
    memset(verdict, 0, sizeof *verdict);
    verdict->suites = b->nsuites;
    verdict->incomplete = outcome.n;
    snprintf(verdict->incomplete_note, sizeof verdict->incomplete_note, "%s",
             outcome.note);
  }
free_all:
  free(suites);
  pack_list_free(&l);
  np_bag_files_free(&tags);
  np_bag_files_free(&payload);
  pack_outcome_free(&outcome);
  np_bag_free(b);
  return rc;
}
