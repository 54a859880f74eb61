/*
 * np_relay_link.h - what another process (netproof-bench rudp --relay)
 * reads from a running standalone relay: the last complete line of its
 * --stats-lines file ("netproof/relay-stats/1"), and the counters of the
 * routes whose client addresses are its own sockets.  The line is kept
 * with the SHA-256 of its bytes, so a record can name exactly which
 * snapshot its relay figures came from (and anyone can find it again in
 * the file with sha256sum).
 */
#ifndef NP_RELAY_LINK_H
#define NP_RELAY_LINK_H

#include <stdint.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_relay_impair.h"
#include "np_sha256.h"

#define NP_RELAY_LINK_MAX_LINE ((size_t)16 << 20) /* bytes of one line */

struct np_relay_link_line {
  cJSON *doc;                       /* the parsed line (owned)            */
  char sha256[NP_SHA256_HEX_SIZE];  /* of the line without its '\n'       */
  uint64_t seq;                     /* its seq                            */
  uint64_t mono_ns;                 /* its mono_ns (CLOCK_MONOTONIC)      */
};

/* The last complete line of path, parsed and validated against its
 * schema; *out written on success.  NP_ENOENT (no file), NP_EAGAIN (no
 * complete line yet), NP_ETOOBIG (a line over NP_RELAY_LINK_MAX_LINE),
 * NP_EPARSE / NP_ESCHEMA with "PATH: ..." in eb. */
int np_relay_link_last(const char *path, struct np_relay_link_line *out,
                       struct np_errbuf *eb);
void np_relay_link_line_free(struct np_relay_link_line *l); /* NULL ok */

/* What the routes of clients (n addresses) did according to doc: their
 * counters summed per direction into out[] (zeroed first), their route
 * peaks summed, and the route objects themselves as a new array (*routes,
 * caller deletes; may be NULL).  Returns the number of clients found. */
unsigned np_relay_link_routes(const cJSON *doc,
                              const struct sockaddr_storage *clients,
                              unsigned n,
                              struct np_relay_counts out[NP_RELAY_DIRS],
                              uint64_t *peak_bytes, uint64_t *peak_packets,
                              cJSON **routes);

#endif /* NP_RELAY_LINK_H */
