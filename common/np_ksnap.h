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
 *
 * A record written under the runner refers to the same store for its own
 * snapshots (taken by the child around the measurement, moments after and
 * before the runner's): its kernel.before / kernel.after are
 *     {"snapshot_sha256": "<the runner's snapshot before the child>",
 *      "changed": {counter: value, ...}}
 * - the child's snapshot is the referenced one with the counters of
 * "changed" replaced (the few the machine moved in between) - instead of
 * all the sources and counters; kernel.delta stays inline.  The runner
 * names the folder and the hash to the child in the environment
 * (NP_KSNAP_ENV, NP_KSNAP_BASE_ENV); a run without them (a standalone
 * run), or a snapshot whose sources or counter names differ from the
 * referenced one's, is inline.
 */
#ifndef NP_KSNAP_H
#define NP_KSNAP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_ftree.h"
#include "np_kernel.h"
#include "np_sha256.h"

#define NP_KSNAP_DIR "kernel-snapshots" /* the folder, inside the set */
#define NP_KSNAP_BEFORE "kernel_before_sha256" /* cmd.txt keys */
#define NP_KSNAP_AFTER "kernel_after_sha256"
#define NP_KSNAP_ENV "NETPROOF_KERNEL_SNAPSHOTS"    /* the set's folder */
#define NP_KSNAP_BASE_ENV "NETPROOF_KERNEL_BASE"     /* the runner's hash */
#define NP_KSNAP_REF "snapshot_sha256" /* a record snapshot's reference */
#define NP_KSNAP_CHANGED "changed"     /* ... and its replaced counters */

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

/* A record's kernel.before / kernel.after for k: with dir (the set's
 * NP_KSNAP_DIR folder) and base (the hash of a snapshot stored there)
 * non-NULL, {NP_KSNAP_REF: base, NP_KSNAP_CHANGED: {...}} when k has the
 * same sources and counter names as that snapshot; otherwise (or when it
 * cannot be read) k inline (np_kernel_to_json), since a record with its
 * counters inline is the same evidence.  NULL: out of memory. */
cJSON *np_ksnap_record_json(const struct np_kernel *k, const char *dir,
                            const char *base);

/* A record snapshot (kernel.before / kernel.after) that is a reference:
 * 1 with the hash into hex; 0 when it is inline (or not an object);
 * NP_EPARSE when NP_KSNAP_REF is there but not 64 lowercase hex digits. */
int np_ksnap_record_ref(const cJSON *snap, char hex[NP_SHA256_HEX_SIZE]);

/* The snapshot a reference stands for: the referenced raw text (len
 * bytes) parsed, its counters of NP_KSNAP_CHANGED replaced.  NP_EPARSE
 * (detail in eb) when the text does not parse or "changed" names a
 * counter the text lacks or holds a non-integer; NP_ENOMEM. */
int np_ksnap_record_resolve(const cJSON *snap, const char *text, size_t len,
                            struct np_kernel **out, struct np_errbuf *eb);

#endif /* NP_KSNAP_H */
