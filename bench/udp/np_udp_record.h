/*
 * np_udp_record.h - the run record (schema/run.schema.json, "netproof/run/1")
 * of a UDP run: built with cJSON's typed calls, validated against the
 * shipped schema, then written atomically (or to stdout).
 */
#ifndef NP_UDP_RECORD_H
#define NP_UDP_RECORD_H

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_run.h"

/* status: "passed", "failed" or "interrupted".  argv (argc entries, may be
 * NULL) is stored as config.command.  *out owns a new tree on success. */
int np_udp_record_build(const struct np_udp_config *cfg,
                        const struct np_udp_result *res,
                        const struct np_udp_loss *loss,
                        const struct np_udp_checks *checks, const char *status,
                        int argc, char **argv, cJSON **out,
                        struct np_errbuf *eb);

/* Validate against the shipped run schema (np_schema_builtin("run")).
 * NP_ESCHEMA with "pointer: keyword: reason" in eb when invalid. */
int np_udp_record_validate(const cJSON *doc, struct np_errbuf *eb);

/* path "-" = stdout; otherwise np_json_write_atomic. */
int np_udp_record_write(const cJSON *doc, const char *path,
                        struct np_errbuf *eb);

#endif /* NP_UDP_RECORD_H */
