/*
 * np_rudp_extrelay.h - the rounds of `netproof-bench rudp --relay
 * ADDR:PORT --relay-stats FILE`: the endpoints talk through a separate
 * `netproof-bench relay` process instead of the in-process relay.
 *
 * Before a round, the relay's latest stats line names its forward address
 * (the rudp server binds there; the line's listen address must be
 * --relay) and is the round's baseline.  After the round's close, the
 * first line taken after every copy of the round can have left the relay
 * (close + the relay's largest delay) is the end; the round's relay
 * counters are the end minus the baseline of the routes whose client
 * addresses are this round's client sockets (so a route a reused port
 * maps to again is not counted twice).  The round keeps both lines' seq
 * and SHA-256, so its relay figures can be found in FILE again.
 */
#ifndef NP_RUDP_EXTRELAY_H
#define NP_RUDP_EXTRELAY_H

#include "np_relay_link.h"
#include "np_rudp_endpoint.h"

/* The baseline line (waits up to 5 s for the relay's first line) and the
 * forward address into *server.  NP_EUSAGE-free: NP_ETIMEDOUT, NP_EINVAL
 * (the line is not --relay's), or the file's error, detail in eb. */
int np_rudp_ext_begin(const struct np_rudp_config *cfg,
                      struct np_bench_ctl *w, struct np_relay_link_line *base,
                      struct sockaddr_storage *server, struct np_errbuf *eb);

/* The end line after end_ns (CLOCK_MONOTONIC, the round's close), and
 * r's relay part from it minus base: relay_dir, peaks, errors, overflow,
 * relay_window (the whole round), relay_stats, relay_scope. */
int np_rudp_ext_end(const struct np_rudp_config *cfg, struct np_bench_ctl *w,
                    const struct np_rudp_net *net,
                    const struct np_relay_link_line *base, uint64_t end_ns,
                    struct np_rudp_round *r, struct np_errbuf *eb);

#endif /* NP_RUDP_EXTRELAY_H */
