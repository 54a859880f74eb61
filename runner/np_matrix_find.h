/*
 * np_matrix_find.h - where `netproof-bench matrix PLAN` reads its plan.
 *
 * PLAN containing a '/' or ending in ".json" is a path, read as given.
 * Anything else is a plan name ("quick"): NAME.json is looked up in these
 * folders, the first that holds it wins:
 *
 *   1. --plans-dir DIR, when given - and then nowhere else;
 *   2. the source tree's bench/plans, when the program runs from a build
 *      tree: CMake writes a file `netproof-source-dir` (one line, the
 *      source tree) beside the built netproof-bench and never installs
 *      it, so a build uses the plans of its own sources, not an older
 *      installed copy, and no build path is compiled into the binary;
 *   3. the installed plans beside the executable, <exe folder>/rel
 *      ("../share/netproof/plans"), so an install relocated with
 *      `cmake --install --prefix`, staged under DESTDIR or unpacked with
 *      `dpkg-deb -x` finds its own plans;
 *   4. the compiled-in install path (PREFIX/share/netproof/plans).
 *
 * The compiled-in values come from cmake/np_install.cmake.
 */
#ifndef NP_MATRIX_FIND_H
#define NP_MATRIX_FIND_H

#include <stddef.h>

#include "np_err.h"

/* The file beside a built netproof-bench that marks a build tree. */
#define NP_MATRIX_SOURCE_MARK "netproof-source-dir"

/* Where names are looked up; strings are borrowed. */
struct np_matrix_find_dirs {
  const char *override;  /* --plans-dir DIR, or NULL                     */
  const char *exe;       /* the running program; NULL = /proc/self/exe   */
  const char *rel;       /* installed plans relative to exe's folder     */
  const char *installed; /* absolute installed plans folder, or NULL     */
};

/* The compiled-in rel and installed, exe NULL, override as given. */
void np_matrix_find_dirs_default(struct np_matrix_find_dirs *d,
                                 const char *override);

/* 1 when arg names a plan (no '/', not ending in ".json"), else 0. */
int np_matrix_find_is_name(const char *arg);

/* The file to read for arg into path (len bytes; written on success).
 * A path is copied as given (NP_EUSAGE when d->override is set: it only
 * applies to names).  A name must be letters, digits, '.', '_', '-' not
 * starting with '.' (NP_EUSAGE); a name found nowhere is NP_ENOENT with
 * every folder tried in eb; NP_ERANGE when a path does not fit. */
int np_matrix_find_plan(const char *arg, const struct np_matrix_find_dirs *d,
                        char *path, size_t len, struct np_errbuf *eb);

#endif /* NP_MATRIX_FIND_H */
