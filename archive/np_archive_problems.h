/*
 * np_archive_problems.h - the collector every check of a bundle reports
 * its problems through (np_archive_problems.c; internal to np_archive).
 *
 * Ownership: the collector owns copies of the lines it has reported (for
 * de-duplication); np_problems_free releases them.  bundle, fn and ctx are
 * borrowed and must outlive the collector.
 */
#ifndef NP_ARCHIVE_PROBLEMS_H
#define NP_ARCHIVE_PROBLEMS_H

#include <stddef.h>

#include "np_archive.h"

#define NP_ARCHIVE_MAX_PROBLEMS 200 /* then one "too many problems" line */

/* Collects problems: prefixes the bundle name, drops exact repeats (the
 * schema check and the result-set self-check may find the same thing),
 * and counts them. */
struct np_problems {
  const char *bundle;       /* prefix of every report (borrowed)      */
  np_archive_problem_fn fn; /* caller's callback, may be NULL         */
  void *ctx;                /* caller's context for fn                */
  size_t count;             /* distinct problems reported             */
  char **seen;              /* reported lines, for de-duplication     */
  size_t nseen;             /* lines in seen                          */
  size_t cap;               /* slots allocated in seen                */
};

void np_problems_init(struct np_problems *p, const char *bundle,
                      np_archive_problem_fn fn, void *ctx);
void np_problems_free(struct np_problems *p);
/* entry may be NULL (problem with the bundle as a whole). */
void np_problem(struct np_problems *p, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* NP_ARCHIVE_PROBLEMS_H */
