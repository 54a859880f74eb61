/*
 * np_ksnap.h - the result set's content-addressed kernel snapshots
 * (docs/results-layout.md, "Kernel snapshots").
 *
 * A snapshot's raw text (np_kernel_raw) is stored once per set, as
 *     kernel-snapshots/<sha256 of the text>.txt
 * and referred to by that hash: rep-N.cmd.txt has the lines
 *     kernel_before_sha256: <64 hex>
 *     kernel_after_sha256: <64 hex>
 * instead of the files rep-N.kernel-before.txt / .kernel-after.txt of a
 * 0.2 set.  One repetition's after and the next one's before are usually
 * the same text, so they are one file.  The folder sorts before runs/,
 * so the streaming self-check has every snapshot before the first record
 * that refers to one.
 */
#ifndef NP_KSNAP_H
#define NP_KSNAP_H

#include <stddef.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_sha256.h"

#define NP_KSNAP_DIR "kernel-snapshots" /* the folder, inside the set */
#define NP_KSNAP_BEFORE "kernel_before_sha256" /* cmd.txt keys */
#define NP_KSNAP_AFTER "kernel_after_sha256"

/* Store text under dir (the set's NP_KSNAP_DIR folder, created when
 * absent) as <hex>.txt, written atomically unless a file of that name is
 * there already; hex receives the hash.  NP_E* with detail in eb. */
int np_ksnap_put(const char *dir, const char *text, size_t len,
                 char hex[NP_SHA256_HEX_SIZE], struct np_errbuf *eb);

/* The value of the "key: <hex>" line of text (a cmd.txt) into hex: 0;
 * NP_ENOENT when there is no such line; NP_EPARSE when its value is not
 * 64 lowercase hex digits. */
int np_ksnap_ref(const char *text, size_t len, const char *key,
                 char hex[NP_SHA256_HEX_SIZE]);

/* 1 when name (a path inside the set) is NP_KSNAP_DIR "/<64 hex>.txt",
 * with the hash into hex (may be NULL). */
int np_ksnap_name(const char *name, char hex[NP_SHA256_HEX_SIZE]);

/* The text of the runner's snapshot of the repetition stem
 * ("runs/<id>/rep-<n>") in t, before (after = 0) or after the child: the
 * file rep-<n>.cmd.txt refers to, or a 0.2 set's rep-<n>.kernel-before.txt
 * / .kernel-after.txt; NULL when there is none (*len untouched). */
const char *np_ksnap_tree_get(const struct np_ftree *t, const char *stem,
                              int after, size_t *len);

#endif /* NP_KSNAP_H */
