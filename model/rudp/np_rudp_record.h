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

#include "np_bench_record.h"
#include "np_rudp_config.h"
#include "np_rudp_result.h"

/* Build the whole record: the shared envelope (status from the checks
 * passed in every round and res->run.signal, reasons per round), then the
 * rudp sections.  Caller deletes *out; *v (may be NULL) gets the status
 * and exit code.  NP_EINVAL when no round ran. */
int np_rudp_record_build(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res, int argc,
                         char **argv, cJSON **out, struct np_bench_verdict *v,
                         struct np_errbuf *eb);

/* The record's "config" for lanes loop threads (np_rudp_config_lanes) and
 * argv (argc entries, may be NULL) as "command"; with --relay, ext_stats is
 * the external relay's stats line of the first round (its "config" is the
 * relay's), else NULL.  The self-check rebuilds it from a record's command
 * (and, with --relay, the record's own stats line).  NULL on no memory. */
cJSON *np_rudp_config_json(const struct np_rudp_config *cfg, uint32_t lanes,
                           const cJSON *ext_stats, int argc, char **argv);

/* The "rudp" part alone (caller deletes), for tests. */
cJSON *np_rudp_part_json(const struct np_rudp_config *cfg,
                         const struct np_rudp_result *res);

/* Validation (the "rudp" part is $defs/rudp of the run schema) and the
 * write are the envelope's: np_bench_record_validate and the output opened
 * before the run (np_bench_output.h). */

#endif /* NP_RUDP_RECORD_H */
