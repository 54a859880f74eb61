/*
 * np_archive_int.h - pieces shared inside np_archive: the streaming reader
 * that turns a bundle into an np_bag (np_archive_read.c), the content
 * checks (np_archive_check.c), read + check (np_archive_verify.c) and the
 * self-check seam (np_archive_selfcheck.c).  Problems go through the
 * collector of np_archive_problems.h.
 */
#ifndef NP_ARCHIVE_INT_H
#define NP_ARCHIVE_INT_H

#include <stdint.h>

#include "np_archive.h"
#include "np_archive_problems.h"
#include "np_bag.h"

/* What a streaming read produced. */
struct np_read_result {
  struct np_bag *bag; /* files read (NULL if no top folder was seen)      */
  int complete;       /* 1 when the whole stream was read and was sound   */
  int64_t mtime;      /* mtime of the first entry                          */
  int mtime_mixed;    /* 1 when entries disagree on mtime                  */
};

/* Read the bundle at path once, checking every entry (paths, types,
 * duplicates, limits, gzip/tar soundness) and keeping the files in memory.
 * Returns 0 when the file could be read (problems go to p; res->bag may be
 * partial), or NP_ENOENT/NP_EACCES/NP_EIO/NP_EISDIR/NP_ENOMEM when it could
 * not be read at all.  res->bag is owned by the caller on return 0. */
int np_archive_read(const char *path, const struct np_archive_limits *lim,
                    struct np_problems *p, struct np_read_result *res,
                    struct np_errbuf *eb);

/* The content checks on a completely read bag: BagIt, schemas, evidence,
 * result-set self-check.  Problems go to p. */
void np_archive_check_bag(const struct np_read_result *res,
                          struct np_problems *p);

/* Read + check; with rc 0 and keep non-NULL, *keep owns the bag. */
int np_archive_verify_keep(const char *path,
                           const struct np_archive_limits *lim,
                           np_archive_problem_fn fn, void *ctx,
                           struct np_read_result *keep,
                           struct np_errbuf *eb);

/* Run the result-set self-check on one suite; problems go to p (a check
 * that cannot run at all is one problem too). */
void np_archive_selfcheck_suite(const struct np_ftree *t, const char *label,
                                struct np_problems *p);

#endif /* NP_ARCHIVE_INT_H */
