/*
 * np_archive.h - netproof-archive: reproducible, verifiable evidence bundles.
 *
 * A bundle is a BagIt bag (RFC 8493) inside a gzip'd pax-restricted tar with
 * one top folder <name>/ (docs/archive-format.md has the full format):
 *   bagit.txt, bag-info.txt, manifest-sha256.txt, tagmanifest-sha256.txt,
 *   evidence.json and data/<suite>/... (the results folders verbatim).
 *
 * pack is deterministic: the same input folders give the same bytes, and
 * it packs only a result set that passes its self-check.  verify streams
 * the bundle once and keeps no file's bytes beyond the moment it is
 * checked, so its memory does not grow with the bundle's size (only with
 * its number of entries, bounded by struct np_archive_limits); it reports
 * every problem through a callback, one call per problem.  extract writes
 * each file to a temporary folder as it is checked and renames the folder
 * into place only when the whole bundle verified, so what lands on disk is
 * what was checked.  sign adds a detached Ed25519 signature (BUNDLE.sig)
 * over the bag's tag-manifest digest; verify checks it when given the
 * signer's public key.
 */
#ifndef NP_ARCHIVE_H
#define NP_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"
#include "np_results_selfcheck.h"

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
  uint64_t max_entries;    /* 0 = verify's default (--max-entries)        */
  uint64_t max_file_bytes; /* 0 = verify's default (--max-file-bytes)     */
  int use_zlib;            /* 1: zlib level 6 via libarchive (portable bytes,
                              slower); 0: ISA-L level 1 (default)          */
  int has_source_date_epoch; /* the CLI sets these from SOURCE_DATE_EPOCH */
  int64_t source_date_epoch; /* seconds, when has_source_date_epoch      */
  int allow_incomplete;    /* 1: pack a set the self-check finds only
                              incomplete, marked so in evidence.json      */
  np_results_problem_fn on_problem; /* each self-check problem, or NULL  */
  void *ctx;               /* on_problem's context                       */
};

/* A signature to check while verifying: BUNDLE.sig (or sig) against the
 * public key in pubkey. */
struct np_archive_sigcheck {
  const char *pubkey; /* PEM public key file (KEY.pub.pem)                */
  const char *sig;    /* signature file; NULL = "<bundle>.sig"            */
};

/* What a verify (or pack) found beyond valid / invalid. */
struct np_archive_verdict {
  char signer_sha256[65]; /* fingerprint of the key whose signature
                             verified; "" without a signature check      */
  int sig_version;        /* its rule: 2 (bundle file and tag manifest)
                             or 1 (netproof 0.2: the tag manifest only)  */
  size_t suites;          /* suite folders in the bundle                 */
  size_t incomplete;      /* of them incomplete (marked so in
                             evidence.json, and found so)                */
  char incomplete_note[600]; /* the first one: "<bag>/data/<suite>:
                                incomplete: N of M repetitions ..."      */
};

/* Pack the folders into a bundle.  Each folder's result-set self-check
 * runs first (problems to o->on_problem): NP_ECHECK when any folder has a
 * problem, NP_EINCOMPLETE when one is incomplete (repetitions missing)
 * without o->allow_incomplete; nothing is written then.  out (may be NULL)
 * counts the suites packed and those packed as incomplete.  The mtime of every entry is SOURCE_DATE_EPOCH
 * when set, else the newest started_at of the runs.  Errors: NP_EUSAGE
 * (bad name, duplicate suite name), NP_EINVAL (a symlink or special file,
 * a path BagIt/coreutils cannot carry, a PEM private key among the files),
 * NP_ETOOBIG, I/O codes; the output file is never left half-written. */
int np_archive_pack(const struct np_archive_pack_opts *o,
                    struct np_archive_verdict *out, struct np_errbuf *eb);

/* Verify a bundle.  0 valid (possibly holding a result set packed as
 * incomplete: np_archive_verify_ex's verdict says so); NP_ECORRUPT when at
 * least one problem was reported; NP_ENOENT/NP_EACCES/NP_EIO/NP_ENOMEM when the file could not
 * be read at all (detail in eb). lim NULL = defaults. */
int np_archive_verify(const char *path, const struct np_archive_limits *lim,
                      np_archive_problem_fn on_problem, void *ctx,
                      struct np_errbuf *eb);

/* np_archive_verify with a signature check first (sc non-NULL; a problem
 * with the signature is reported under the signature file's name) and a
 * verdict (may be NULL; written when the bundle is valid).  A missing
 * signature file or an unreadable / malformed public key is NP_ENOENT /
 * NP_EUSAGE etc. (input that cannot be read), never "valid". */
int np_archive_verify_ex(const char *path, const struct np_archive_limits *lim,
                         const struct np_archive_sigcheck *sc,
                         np_archive_problem_fn on_problem, void *ctx,
                         struct np_archive_verdict *verdict,
                         struct np_errbuf *eb);

/* Print "sha256  size  path" for every file of a valid bundle to stdout
 * (after verifying it, and its signature when sc is non-NULL); return
 * codes as np_archive_verify_ex. */
int np_archive_list(const char *path, const struct np_archive_limits *lim,
                    const struct np_archive_sigcheck *sc,
                    np_archive_problem_fn on_problem, void *ctx,
                    struct np_errbuf *eb);

/* Verify (and check the signature when sc is non-NULL) while writing the
 * bundle's top folder into DEST (created; DEST must not exist or be an
 * empty folder).  Files go to a temporary folder next to DEST as they are
 * checked; it is renamed into place only when everything verified, and
 * removed otherwise.  Codes as verify, plus NP_EEXIST (DEST not empty)
 * and I/O codes. */
int np_archive_extract(const char *path, const char *dest,
                       const struct np_archive_limits *lim,
                       const struct np_archive_sigcheck *sc,
                       np_archive_problem_fn on_problem, void *ctx,
                       struct np_errbuf *eb);

/* Write a new Ed25519 key pair: the private key to key (PKCS#8 PEM,
 * created 0600) and the public key beside it (KEY.pem -> KEY.pub.pem).
 * NP_EEXIST when either exists (nothing is overwritten). */
int np_archive_keygen(const char *key, struct np_errbuf *eb);

/* Verify the bundle, then write the detached signature sig (NULL =
 * "<bundle>.sig"; NP_EEXIST when it exists) with the private key in key:
 * NP_EACCES when that file is accessible by group or others, NP_EUSAGE
 * when it is not an unencrypted Ed25519 PEM key, NP_ECORRUPT (problems
 * reported) when the bundle does not verify. */
int np_archive_sign(const char *bundle, const char *key, const char *sig,
                    const struct np_archive_limits *lim,
                    np_archive_problem_fn on_problem, void *ctx,
                    struct np_errbuf *eb);

/* Write kernel.txt (raw snapshot), kernel.json and machine.json into dir
 * (created if missing; existing files are refused with NP_EEXIST). */
int np_archive_snapshot(const char *dir, struct np_errbuf *eb);

#endif /* NP_ARCHIVE_H */
