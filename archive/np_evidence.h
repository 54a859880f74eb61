/*
 * np_evidence.h - evidence.json and bag-info.txt, built from a bag's file
 * list.
 *
 * Both are pure functions of the payload (plus the chosen mtime and the
 * self-check's verdict on each suite), so pack writes them and verify
 * rebuilds them from what it streamed past and compares: any difference
 * is reported with the JSON pointer or line where it starts.  Verify keeps
 * no file bytes, so everything evidence.json needs from a file's content
 * travels as its "facts" (np_evidence_facts).
 */
#ifndef NP_EVIDENCE_H
#define NP_EVIDENCE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bag.h"
#include "np_err.h"

#define NP_EVIDENCE_TAG "netproof/evidence/1"
#define NP_EVIDENCE_SRC_ENV "SOURCE_DATE_EPOCH"
#define NP_EVIDENCE_SRC_RUNS "newest started_at"
#define NP_EVIDENCE_SRC_NONE "none"

/* Parse an RFC 3339 time ("2026-11-30T04:57:26.123Z", offsets allowed)
 * into seconds since the epoch.  NP_EPARSE when malformed. */
int np_evidence_parse_time(const char *s, int64_t *out);

/* The facts evidence.json keeps from one payload file (path relative to
 * the top folder, data its bytes): for a run record
 * (data/<suite>/runs/<config-id>/rep-<n>.json) {status, started_at, tool:
 * {source_sha256, binary_sha256}}, read by np_jscan_strings; for
 * data/<suite>/suite.json {machine, tool: {name, version, source_sha256,
 * binary_sha256}}, parsed.  A file that does not parse gives nulls (the
 * self-check says why).  *out is NULL for any other file.  0 or
 * NP_ENOMEM. */
int np_evidence_facts(const char *path, const char *data, size_t len,
                      cJSON **out);

/* np_evidence_facts for every file of a list that holds its bytes (pack:
 * np_bag_files_list). */
int np_evidence_add_facts(struct np_bag_files *payload);

/* Newest started_at over every run record of payload (from its facts);
 * *found = 0 (and *epoch = 0) when there is none. */
void np_evidence_newest_start(const struct np_bag_files *payload,
                              int64_t *epoch, int *found);

/* 1 when the result-set self-check found suite incomplete (its outcome is
 * part of the evidence: pack --allow-incomplete), 0 when clean. */
typedef int (*np_evidence_incomplete_fn)(void *ctx, const char *suite);

/* Build evidence.json for the bag named name from payload (sorted, every
 * file under data/, facts filled; the tree refers to payload's path and
 * sha256 strings, so it must be freed before payload).  mtime and mtime_source (one of
 * NP_EVIDENCE_SRC_*) are recorded as given; incomplete (NULL: every suite
 * complete) gives each suite's self_check.  *out owns a new tree. */
int np_evidence_build(const char *name, const struct np_bag_files *payload,
                      int64_t mtime, const char *mtime_source,
                      np_evidence_incomplete_fn incomplete, void *ctx,
                      cJSON **out);

/* bag-info.txt text for an evidence document (malloc'd, caller frees);
 * NULL on allocation failure. */
char *np_evidence_bag_info(const cJSON *evidence);

/* 0 when a and b are equal; otherwise 1 with the JSON pointer of the first
 * difference written to ptr. */
int np_evidence_diff(const cJSON *a, const cJSON *b, char *ptr, size_t len);

#endif /* NP_EVIDENCE_H */
