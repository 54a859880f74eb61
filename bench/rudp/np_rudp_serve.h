/*
 * np_rudp_serve.h - `netproof-bench rudp-serve`: the server endpoint of
 * `netproof-bench rudp` alone, for clients on another host (`rudp
 * --connect`, or `rudp --agent`, whose agent starts it: docs/agent.md).
 *
 * It binds --listen, builds --clients server connections on one loop
 * (the endpoint code of `rudp`, role SERVER), prints "netproof-bench
 * rudp-serve: listening on ADDR:PORT" on stderr, checks and echoes every
 * request until SIGINT/SIGTERM or --max-seconds, then writes its record
 * (config.protocol "rudp-serve", schema $defs/rudp_serve): the whole
 * life's counters, ARQ statistics, connections and socket drops, and its
 * checks (content, order, every request echoed, orderly shutdown).  The
 * signal is its planned end: exit 0 or 1 from its checks, as `serve`.
 */
#ifndef NP_RUDP_SERVE_H
#define NP_RUDP_SERVE_H

#include "np_bench_ctl_main.h"

extern const struct np_bench_kind np_rudp_serve_kind;

/* `netproof-bench rudp-serve ...`; the exit code. */
int np_rudp_serve_main(int argc, char **argv);

#endif /* NP_RUDP_SERVE_H */
