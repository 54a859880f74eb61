/*
 * np_bench_output.h - a benchmark's output, opened before anything is
 * measured.
 *
 * A run may last minutes; a bad --output found at the end loses it.  So
 * np_bench_output_open() creates the temporary file in the target's
 * folder at once (O_CREAT | O_EXCL, mode 0644): a missing folder, a
 * read-only folder, or a folder given as the file is reported before the
 * first datagram, as a usage error.  Commit writes the document to the
 * temporary file, fsyncs it, renames it over the target and fsyncs the
 * folder, so a file at the target is always complete; close without
 * commit unlinks the temporary file.  "-" is stdout: nothing to open,
 * commit writes and flushes.
 *
 * The temporary file is "<target>.tmp.<pid>" (or "<target>.tmp.<pid>-N"
 * when that name is taken), so whoever started the process can remove
 * what a SIGKILL left behind.
 */
#ifndef NP_BENCH_OUTPUT_H
#define NP_BENCH_OUTPUT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"

struct np_bench_output;

/* Open path ("-" = stdout).  On success *out owns the handle (close it
 * with np_bench_output_close).  Errors, one line "PATH: reason" in eb:
 * NP_EUSAGE when the path itself is wrong (its folder is missing, is not
 * a folder, cannot be written or is read-only; the path is a folder or an
 * existing non-regular file; the name is too long), another NP_E* for
 * environment failures (memory, file descriptors, disk). */
int np_bench_output_open(const char *path, struct np_bench_output **out,
                         struct np_errbuf *eb);

/* Write len bytes and move them into place (see above).  Once only; on
 * failure the temporary file is removed and the target left untouched
 * (unless only the final folder fsync failed). */
int np_bench_output_commit(struct np_bench_output *o, const void *buf,
                           size_t len, struct np_errbuf *eb);

/* The document as one line of JSON (and a newline), through
 * np_bench_output_commit. */
int np_bench_output_commit_json(struct np_bench_output *o, const cJSON *doc,
                                struct np_errbuf *eb);

/* The target as given, and the temporary file's path (NULL for stdout or
 * once committed or closed); for messages and tests. */
const char *np_bench_output_path(const struct np_bench_output *o);
const char *np_bench_output_temp(const struct np_bench_output *o);

/* Unlink the temporary file unless committed, free.  Accepts NULL. */
void np_bench_output_close(struct np_bench_output *o);

#endif /* NP_BENCH_OUTPUT_H */
