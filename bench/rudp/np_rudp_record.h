/*
 * np_rudp_record.h - the run record of `netproof-bench rudp`.
 *
 * Same top-level names as the udp record (schema "netproof/run/1"):
 * measurement = the median round (by round trips/s), counters = summed
 * over rounds, checks = every round must pass.  Everything specific to
 * reliable UDP sits under "rudp" (schema/run.schema.json, $defs/rudp):
 * every round in full, the median index, min/median/max summaries, header
 * sizes, ARQ and relay counters.
 */
#ifndef NP_RUDP_RECORD_H
#define NP_RUDP_RECORD_H

#include <cjson/cJSON.h>

#include "np_rudp_config.h"
#include "np_rudp_run.h"

/* "passed", "failed" or "interrupted". */
const char *np_rudp_status(const struct np_rudp_result *res);

/* Build the whole record (caller deletes *out). */
int np_rudp_record_build(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res, int argc,
                         char **argv, cJSON **out, struct np_errbuf *eb);

/* The "rudp" part alone (caller deletes), for tests. */
cJSON *np_rudp_part_json(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res);

/* Validate the whole record against the built-in run schema (its "rudp"
 * part is $defs/rudp there) when the library is built with it.
 * 0 or NP_ESCHEMA with "record: /pointer: keyword: reason". */
int np_rudp_record_validate(const cJSON *doc, struct np_errbuf *eb);

/* Write doc to path ("-" = stdout) atomically. */
int np_rudp_record_write(const cJSON *doc, const char *path,
                         struct np_errbuf *eb);

#endif /* NP_RUDP_RECORD_H */
