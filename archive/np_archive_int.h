/*
 * np_archive_int.h - pieces shared inside np_archive: the streaming reader
 * that hands each file of a bundle to a sink (np_archive_read.c), the
 * content checks that are such a sink (np_archive_check.c), the
 * self-check seam (np_archive_selfcheck.c) and read + check + signature
 * (np_archive_verify.c).  Problems go through the collector of
 * np_archive_problems.h.
 *
 * Nothing here keeps a file's bytes beyond the call that delivers them:
 * what the end-of-stream checks need (paths, checksums, sizes, evidence
 * facts, the five small tag files) is what stays.
 */
#ifndef NP_ARCHIVE_INT_H
#define NP_ARCHIVE_INT_H

#include <stdint.h>

#include "np_archive.h"
#include "np_archive_problems.h"
#include "np_bag.h"
#include "np_results_selfcheck.h"

/* What a streaming read found out about the stream itself. */
struct np_read_result {
  char top[256];      /* the top folder, "" until its entry was read      */
  int complete;       /* 1 when the whole stream was read and was sound   */
  int64_t mtime;      /* mtime of the first entry                          */
  int mtime_mixed;    /* 1 when entries disagree on mtime                  */
  uint64_t entries;   /* tar entries read                                  */
  char file_sha256[NP_SHA256_HEX_SIZE]; /* the whole bundle file, when
                                           complete; "" otherwise          */
};

/* Who receives the files of a stream. */
struct np_read_sink {
  /* One regular file that passed the entry checks: rel is its path below
   * the top folder (no trailing '/'), data its len bytes (valid only
   * during the call), in_order 0 when it broke the order rule (already
   * reported).  res is the read so far (top, mtime).  Returns 0, or a
   * fatal code that stops the read (the sink keeps its own message). */
  int (*file)(void *ctx, const struct np_read_result *res, const char *rel,
              const char *data, size_t len, int in_order);
  void *ctx; /* the sink's state */
};

/* Read the bundle at path once, checking every entry (paths, types,
 * duplicates, order, limits, gzip/tar soundness) and handing each file to
 * sink.  Returns 0 when the file could be read (problems go to p), or
 * NP_ENOENT/NP_EACCES/NP_EIO/NP_EISDIR/NP_ENOMEM when it could not be read
 * at all (detail in eb), or the sink's fatal code (eb untouched). */
int np_archive__read(const char *path, const struct np_archive_limits *lim,
                     struct np_problems *p, const struct np_read_sink *sink,
                     struct np_read_result *res, struct np_errbuf *eb);

/* What a checked bundle leaves for list, sign and the signature check. */
struct np_verified {
  char top[256];                   /* the bag's top folder                */
  char tagmanifest_sha256[NP_SHA256_HEX_SIZE]; /* "" when there is none   */
  struct np_bag_files tags;        /* every file at the top, sorted       */
  struct np_bag_files payload;     /* every file under data/, sorted      */
  size_t suites;                   /* suite folders in the payload        */
  size_t incomplete;               /* of them found incomplete            */
  char incomplete_note[600];       /* "<suite>: incomplete: N of M ..." of
                                      the first, or ""                   */
  char signer_sha256[NP_SHA256_HEX_SIZE]; /* key whose signature verified */
  int sig_version;                 /* that signature's rule: 2, or 1 (0.2)
                                      covering the tag manifest only      */
  char bundle_sha256[NP_SHA256_HEX_SIZE]; /* every byte of the file read  */
};

void np_verified__free(struct np_verified *v); /* accepts NULL */

/* The content checks as a sink: BagIt, schemas, evidence, the result-set
 * self-check per suite (as its files go by), and a PEM private key
 * anywhere.  also (may be NULL) receives every file after the checks saw
 * it (extract writes them).  Free with np_archive__check_free. */
struct np_check;
int np_archive__check_new(struct np_problems *p,
                          const struct np_read_sink *also,
                          struct np_check **out);
struct np_read_sink np_archive__check_sink(struct np_check *c);
/* After the read: the end-of-stream checks when res->complete (the
 * manifests, tag files and evidence.json come after the payload), and the
 * lists moved to out (which the caller frees). */
void np_archive__check_finish(struct np_check *c,
                              const struct np_read_result *res,
                              struct np_verified *out);
void np_archive__check_free(struct np_check *c); /* accepts NULL */

/* Signature (when sc is non-NULL), read + check; also (may be NULL)
 * receives every file after the checks (extract).  0 valid, NP_ECORRUPT
 * after at least one problem, or a code for input that could not be read.
 * On 0 *out (if non-NULL) is filled and owned by the caller. */
int np_archive__verify_run(const char *path,
                           const struct np_archive_limits *lim,
                           const struct np_archive_sigcheck *sc,
                           const struct np_read_sink *also,
                           np_archive_problem_fn fn, void *ctx,
                           struct np_verified *out, struct np_errbuf *eb);

/* The self-check of one suite fed file by file in path order (the seam to
 * resultset/): problems go to fn.  finish fills *out (may be NULL) and
 * returns 0 (clean), NP_ECHECK (problems reported), NP_EINCOMPLETE
 * (repetitions missing, nothing else wrong; out->note says how many), or
 * another code when the check could not run; it frees s.  free (without
 * finishing) accepts NULL. */
struct np_archive_sc;
int np_archive__sc_new(const char *label, np_results_problem_fn fn, void *ctx,
                       struct np_archive_sc **out);
int np_archive__sc_file(struct np_archive_sc *s, const char *path,
                        const char *data, size_t len);
int np_archive__sc_finish(struct np_archive_sc *s,
                          struct np_results_outcome *out);
void np_archive__sc_free(struct np_archive_sc *s);

/* 1 when the self-check itself parses path (relative to the suite) and
 * validates it against its schema, so the archive need not: suite.json,
 * summary.json and every *.json under runs/. */
int np_archive__sc_validates(const char *path);

/* pack's streaming passes (np_archive_pack_stream.c).  A suite being
 * packed: its name under data/, the folder it is read from and that
 * folder's files as listed (sizes only, np_ftree_list_dir). */
struct np_archive__pack_suite {
  const char *name;
  const char *dir;
  const struct np_ftree *list;
};

/* Pass 1 over one suite: each file read once in path order, refused when
 * it holds a PEM private key, its SHA-256 and evidence facts written into
 * its entry of payload (sorted, every listed file present), its bytes fed
 * to the suite's streaming self-check.  Returns the self-check's code (0,
 * NP_ECHECK, NP_EINCOMPLETE; *oc filled) or an error with eb set (a file
 * that cannot be read or changed size since it was listed: NP_EIO). */
int np_archive__pack_check_suite(const struct np_archive__pack_suite *s,
                                 uint64_t max_file,
                                 struct np_bag_files *payload,
                                 np_results_problem_fn fn, void *ctx,
                                 struct np_results_outcome *oc,
                                 struct np_errbuf *eb);

/* Pass 2: the bytes of payload file f ("data/<suite>/...") read again into
 * *buf (caller frees); NP_EIO when they no longer hash to f->sha256, what
 * pass 1 checked. */
int np_archive__pack_reread(const struct np_archive__pack_suite *suites,
                            size_t nsuites, const struct np_bag_file *f,
                            uint64_t max_file, char **buf, size_t *len,
                            struct np_errbuf *eb);

#endif /* NP_ARCHIVE_INT_H */
