/*
 * np_archive.h - netproof-archive: reproducible, verifiable evidence bundles.
 *
 * A bundle is a BagIt bag (RFC 8493) inside a gzip'd pax-restricted tar with
 * one top folder <name>/ (docs/archive-format.md has the full format):
 *   bagit.txt, bag-info.txt, manifest-sha256.txt, tagmanifest-sha256.txt,
 *   evidence.json and data/<suite>/... (the results folders verbatim).
 *
 * pack is deterministic: the same input folders give the same bytes.
 * verify streams the bundle once, never writes to disk, keeps the files in
 * memory (bounded by struct np_archive_limits) and reports every problem
 * through a callback, one call per problem.  extract verifies, then writes
 * the verified in-memory copy, so what lands on disk is what was checked.
 */
#ifndef NP_ARCHIVE_H
#define NP_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"

/* Resource limits for reading a bundle; every field has a flag in the CLI. */
struct np_archive_limits {
  uint64_t max_entries;    /* tar entries (files + folders)              */
  uint64_t max_file_bytes; /* bytes of one file                          */
  uint64_t max_total_bytes; /* sum of all file bytes (held in memory)    */
  uint64_t max_ratio;      /* uncompressed/compressed bytes, checked once
                              more than 1 MiB has been decompressed       */
};

#define NP_ARCHIVE_DEFAULT_MAX_ENTRIES 200000u
#define NP_ARCHIVE_DEFAULT_MAX_FILE_BYTES ((uint64_t)256 << 20)  /* 256 MiB */
#define NP_ARCHIVE_DEFAULT_MAX_TOTAL_BYTES ((uint64_t)1 << 30)   /* 1 GiB */
#define NP_ARCHIVE_DEFAULT_MAX_RATIO 200u

void np_archive_limits_default(struct np_archive_limits *lim);

/* One problem found in a bundle: where is "<bundle>: <entry path>" or
 * "<bundle>" alone; reason a short phrase.  Valid only during the call. */
typedef void (*np_archive_problem_fn)(void *ctx, const char *where,
                                      const char *reason);

struct np_archive_pack_opts {
  const char *const *dirs; /* results folders, each becomes data/<basename> */
  size_t ndirs;
  const char *out;         /* BUNDLE.tar.gz, written atomically            */
  const char *name;        /* top folder; NULL = out's basename minus .tar.gz */
  uint64_t max_total_bytes; /* 0 = NP_ARCHIVE_DEFAULT_MAX_TOTAL_BYTES      */
  int use_zlib;            /* 1: zlib level 6 via libarchive (portable bytes,
                              slower); 0: ISA-L level 1 (default)          */
  int has_source_date_epoch; /* the CLI sets these from SOURCE_DATE_EPOCH */
  int64_t source_date_epoch;
};

/* Pack the folders into a bundle.  The mtime of every entry is
 * SOURCE_DATE_EPOCH when set, else the newest started_at of the runs.
 * Errors: NP_EUSAGE (bad name, duplicate suite name), NP_EINVAL (a symlink
 * or special file, a path BagIt/coreutils cannot carry), NP_ETOOBIG, I/O
 * codes; the output file is never left half-written. */
int np_archive_pack(const struct np_archive_pack_opts *o,
                    struct np_errbuf *eb);

/* Verify a bundle.  0 valid; NP_ECORRUPT when at least one problem was
 * reported; NP_ENOENT/NP_EACCES/NP_EIO/NP_ENOMEM when the file could not
 * be read at all (detail in eb). lim NULL = defaults. */
int np_archive_verify(const char *path, const struct np_archive_limits *lim,
                      np_archive_problem_fn on_problem, void *ctx,
                      struct np_errbuf *eb);

/* Print "sha256  size  path" for every file of a valid bundle to stdout
 * (after verifying it); return codes as np_archive_verify. */
int np_archive_list(const char *path, const struct np_archive_limits *lim,
                    np_archive_problem_fn on_problem, void *ctx,
                    struct np_errbuf *eb);

/* Verify, then write the bundle's top folder into DEST (created; DEST must
 * not exist or be an empty folder).  Files go to a temporary folder next to
 * DEST first and are renamed into place at the end.  Codes as verify, plus
 * NP_EEXIST (DEST not empty) and I/O codes. */
int np_archive_extract(const char *path, const char *dest,
                       const struct np_archive_limits *lim,
                       np_archive_problem_fn on_problem, void *ctx,
                       struct np_errbuf *eb);

/* Write kernel.txt (raw snapshot), kernel.json and machine.json into dir
 * (created if missing; existing files are refused with NP_EEXIST). */
int np_archive_snapshot(const char *dir, struct np_errbuf *eb);

#endif /* NP_ARCHIVE_H */
