/*
 * np_udp_external.h - `netproof-bench udp --connect`: the record kind
 * "udp-external" (config.protocol), built from a client-only run of the
 * udp engine against anyone's echo server.
 *
 * What differs from a loopback udp run: the server's own counters do not
 * exist, so a loss is attributed from kernel counters alone - to our
 * client sockets (SO_MEMINFO, exact), to the server socket (its
 * /proc/net/udp drops over the window, when the target is local and its
 * socket was found: np_udp_target.h), and the rest to "in between": between
 * our client sockets and the server socket, dropped by neither (on the path
 * - a relay, a network - or in the server process: only the server's own
 * counters, serve's record or the agent's, can tell which).  A reply that
 * comes after the client gave up is late, not lost (np_udp_late.h).
 * Misbehaviour is told apart by kind (duplicates, reordered, stale, wrong
 * length, corrupted) and each kind is its own check, so a server that
 * mangles fails the run naming what it did.
 */
#ifndef NP_UDP_EXTERNAL_H
#define NP_UDP_EXTERNAL_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_record.h"
#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_run.h"

/* Where the measured phase's losses went, as far as counters allow. */
struct np_udp_attrib {
  int64_t lost;           /* sent - received - late                       */
  uint64_t client_socket; /* drops on our client sockets (exact)          */
  int server_known;       /* the server socket's drops are known          */
  uint64_t server_socket; /* its drops over the window (server_known)     */
  int64_t in_between;     /* lost - client - server (server_known)        */
  int64_t not_attributed; /* lost - client when !server_known, else 0     */
};

void np_udp_external_attrib(const struct np_udp_result *res,
                            struct np_udp_attrib *out);

/* The udp-external invariants of the measured phase. */
void np_udp_external_checks(const struct np_udp_result *res,
                            const struct np_udp_attrib *a,
                            struct np_udp_checks *out);

/* The whole record (envelope + config, measurement, counters, warmup,
 * sockets, external).  *out owns a new tree on success; v may be NULL. */
int np_udp_external_record_build(
    const struct np_udp_config *cfg, const struct np_udp_result *res,
    const struct np_udp_attrib *a, const struct np_udp_checks *checks, int argc,
    char **argv, cJSON **out, struct np_bench_verdict *v, struct np_errbuf *eb);

/* "python3 (pid 123, exe sha256 1a2b3c4d5e6f)" or "unidentified server",
 * for the summary line. */
void np_udp_external_server_text(const struct np_udp_result *res, char *buf,
                                 size_t len);

#endif /* NP_UDP_EXTERNAL_H */
