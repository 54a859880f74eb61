/*
 * np_evidence.h - evidence.json and bag-info.txt, built from a bag.
 *
 * Both are pure functions of the payload (plus the chosen mtime), so pack
 * writes them and verify rebuilds them from what it read and compares: any
 * difference is reported with the JSON pointer or line where it starts.
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

/* Newest started_at over every run record (runs/<cfg>/rep-<n>.json) of
 * every suite; *found = 0 (and *epoch = 0) when there is none.  Records
 * that do not parse are skipped (verify reports them elsewhere). */
int np_evidence_newest_start(const struct np_bag *b, int64_t *epoch,
                             int *found);

/* Build evidence.json for b; payload is np_bag_files_list(b, 0).  mtime and
 * mtime_source (one of NP_EVIDENCE_SRC_*) are recorded as given.  *out
 * owns a new tree. */
int np_evidence_build(const struct np_bag *b,
                      const struct np_bag_files *payload, int64_t mtime,
                      const char *mtime_source, cJSON **out);

/* bag-info.txt text for an evidence document (malloc'd, caller frees);
 * NULL on allocation failure. */
char *np_evidence_bag_info(const cJSON *evidence);

/* 0 when a and b are equal; otherwise 1 with the JSON pointer of the first
 * difference written to ptr. */
int np_evidence_diff(const cJSON *a, const cJSON *b, char *ptr, size_t len);

#endif /* NP_EVIDENCE_H */
