/*
 * np_archive_triage.h - a bundle's problems as a person reads them: the
 * most serious first (a checksum mismatch before 56 entries "out of
 * order"), and a reason many entries share on one line with its count.
 *
 * The CLI hands np_triage_add to a verify/list/extract/sign call as its
 * np_archive_problem_fn, then prints once the call has returned.  Every
 * problem is kept (memory grows with their number); one the collector
 * could not keep (out of memory) is counted and said.
 */
#ifndef NP_ARCHIVE_TRIAGE_H
#define NP_ARCHIVE_TRIAGE_H

#include <stddef.h>
#include <stdio.h>

struct np_triage;

/* A new, empty collector, or NULL (out of memory). */
struct np_triage *np_triage_new(void);

/* An np_archive_problem_fn: ctx is the collector. */
void np_triage_add(void *ctx, const char *where, const char *reason);

/* Problems collected so far. */
size_t np_triage_count(const struct np_triage *t);

/* Print to fp, one line each: groups of one reason in order of severity
 * (content before form: checksums and signatures, then what is missing or
 * does not match, then the rest, then order, times and modes), ties in the
 * order first seen; a reason shared by at least NP_TRIAGE_GROUP entries as
 * "PREFIX: REASON (N entries: A, B, C and M more)", PREFIX the part of
 * "where" they share up to its first ": ".  Empties the collector. */
void np_triage_print(struct np_triage *t, FILE *fp);

#define NP_TRIAGE_GROUP 4 /* entries with one reason shown as one line */

/* Frees t and what it holds; NULL is fine. */
void np_triage_free(struct np_triage *t);

#endif /* NP_ARCHIVE_TRIAGE_H */
