/*
 * np_udp_record.h - the run record (schema/run.schema.json, "netproof/run/1")
 * of a UDP run: the shared envelope (model/core/np_bench_record.h) plus the
 * udp sections (measurement, counters, warmup, sockets), built with cJSON's
 * typed calls.  Validation and the write are the envelope's
 * (np_bench_record_validate, np_bench_output_commit_json).
 */
#ifndef NP_UDP_RECORD_H
#define NP_UDP_RECORD_H

#include <cjson/cJSON.h>

#include "np_bench_record.h"
#include "np_err.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_result.h"

/* The record's "config": the options, the layout that ran (threads,
 * batches, steering) and argv (argc entries, may be NULL) as "command".
 * The self-check rebuilds it from a record's command with
 * np_udp_layout_of.  NULL on no memory. */
cJSON *np_udp_config_json(const struct np_udp_config *cfg,
                          const struct np_udp_layout *layout, int argc,
                          char **argv);

/* Parts every udp record kind writes alike (udp, udp-external, serve,
 * udp-stream): o.send_errnos = {errno name: count} over the n slots that
 * counted any; one sockets.list row of s under role ("client", "server"). */
void np_udp_record_errnos(cJSON *o, const int *errnos,
                          const uint64_t *counts, size_t n);
cJSON *np_udp_record_socket(const struct np_udp_sock_report *s,
                            const char *role);

/* The whole record.  argv (argc entries, may be NULL) is stored as
 * config.command.  The status (and *v's exit code) follows from the checks
 * and res->run.signal (np_bench_status_of).  *out owns a new tree on
 * success; v may be NULL. */
int np_udp_record_build(const struct np_udp_config *cfg,
                        const struct np_udp_result *res,
                        const struct np_udp_loss *loss,
                        const struct np_udp_checks *checks, int argc,
                        char **argv, cJSON **out, struct np_bench_verdict *v,
                        struct np_errbuf *eb);

#endif /* NP_UDP_RECORD_H */
