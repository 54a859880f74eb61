/*
 * np_results_selfcheck.h - prove a result set without running anything.
 *
 * Re-derive, never trust: every value a set derives is derived again here
 * with the code that derived it (the benchmarks' checks and summary lines,
 * the matrix's plan expansion and summary builder, the kernel snapshot
 * parser) and compared with what the files say; every file is looked at
 * and every problem reported, never stopping at the first.  The rules are
 * listed in docs/formats.md ("Self-check").
 *
 * Streaming: files are fed one at a time in bytewise-sorted path order
 * (the files of one run are then adjacent), so memory is bounded by one
 * run's files plus a compact summary per run; suite.json and summary.json
 * come last in that order and the cross-file checks run at the end.
 *
 *   np_results_check_new(label, on_problem, ctx, &c)
 *   np_results_check_file(c, path, data, len)    for every file, sorted
 *   np_results_check_finish(c, &outcome)
 *   np_results_check_free(c)
 *
 * np_results_check_dir (a folder on disk, read file by file) and
 * np_results_check_tree (an np_ftree) wrap it.  Problems are reported as
 * (file, pointer, reason): file is the path inside the set prefixed by
 * label and '/' when label is non-empty, pointer a JSON pointer ("" when
 * the problem is about the whole file or a text file).  An incomplete set
 * (repetitions missing, or suite.json not "complete") is not a problem by
 * itself: the outcome says so, with its "incomplete: N of M repetitions"
 * note, and finish returns NP_EINCOMPLETE when nothing else is wrong.
 */
#ifndef NP_RESULTS_SELFCHECK_H
#define NP_RESULTS_SELFCHECK_H

#include <stddef.h>

#include "np_err.h"
#include "np_ftree.h"

/* One problem; the strings are valid only during the call. */
typedef void (*np_results_problem_fn)(void *ctx, const char *file,
                                      const char *pointer, const char *reason);

/* What a finished check found. */
struct np_results_outcome {
  size_t problems;      /* problems reported through the callback        */
  size_t runs;          /* run records seen (runs/<id>/rep-<n>.json)     */
  size_t reps_planned;  /* configurations x repetitions of the plan (0:
                           the plan could not be read)                   */
  size_t reps_done;     /* planned repetitions that have a record        */
  int incomplete;       /* 1: repetitions missing or the suite did not
                           finish (status other than "complete")         */
  char suite_status[16]; /* suite.json's status, "" when unknown         */
  char note[256];       /* "incomplete: 4 of 9 repetitions (...)" or ""  */
};

struct np_results_check;

/* A new streaming check.  label prefixes file names in problems (may be
 * "" or NULL); on_problem may be NULL.  NP_ENOMEM. */
int np_results_check_new(const char *label, np_results_problem_fn on_problem,
                         void *ctx, struct np_results_check **out);

/* Feed one file (path relative to the suite folder, '/'-separated; data is
 * only read during the call).  Paths must come in bytewise-sorted order;
 * one that does not is reported as a problem.  Returns 0, or NP_ENOMEM,
 * or NP_EINVAL after finish. */
int np_results_check_file(struct np_results_check *c, const char *path,
                          const void *data, size_t len);

/* The largest file a result set can hold: exec keeps at most 64 MiB of a
 * stream (--output-limit), records are far smaller, and the archive's
 * default per-file limit is the same 256 MiB.  np_results_check_dir
 * refuses a larger file by its size, before reading it. */
#define NP_RESULTS_MAX_FILE_BYTES ((size_t)256 << 20)

/* A file of the set that is not read (a FIFO, socket or device, or a file
 * past NP_RESULTS_MAX_FILE_BYTES): reported as a problem of path with
 * reason, in path's place in the sorted order.  0 or NP_EINVAL after
 * finish. */
int np_results_check_refuse(struct np_results_check *c, const char *path,
                            const char *reason);

/* Run the cross-file checks and fill *out (may be NULL).  Returns 0 when
 * clean, NP_ECHECK when a problem was reported, NP_EINCOMPLETE when the
 * set is incomplete and nothing else is wrong, or NP_ENOMEM. */
int np_results_check_finish(struct np_results_check *c,
                            struct np_results_outcome *out);

void np_results_check_free(struct np_results_check *c); /* accepts NULL */

/* The suite folder dir, read one file at a time in sorted order (symbolic
 * links are refused; special files and oversized files are problems,
 * never opened or read).  Returns as finish does, or NP_ENOENT / NP_ENOTDIR /
 * NP_EINVAL / NP_EIO with "dir: reason" in eb when the folder cannot be
 * read. */
int np_results_check_dir(const char *dir, const char *label,
                         np_results_problem_fn on_problem, void *ctx,
                         struct np_results_outcome *out, struct np_errbuf *eb);

/* Every file of t, in its (sorted) order.  Returns as finish does. */
int np_results_check_tree(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx,
                          struct np_results_outcome *out);

/* np_results_check_tree for callers that only look at problem lines: an
 * incomplete set's note is also passed to on_problem (file "suite.json",
 * pointer "/status"), so it is never taken for a complete one.  Returns 0,
 * NP_ECHECK, NP_EINCOMPLETE or NP_ENOMEM. */
int np_results_self_check(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx);

#endif /* NP_RESULTS_SELFCHECK_H */
