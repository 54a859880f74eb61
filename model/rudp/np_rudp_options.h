/*
 * np_rudp_options.h - the option table of `netproof-bench rudp`: its own
 * rows plus the relay's (np_relay.h), the one description its parser, its
 * --help and the matrix runner's plans all read (common/np_bench_opt.h).
 */
#ifndef NP_RUDP_OPTIONS_H
#define NP_RUDP_OPTIONS_H

#include "np_bench_opt.h"
#include "np_rudp_config.h"

/* Over struct np_rudp_config.  Canonical order: payload, clients, window,
 * io-model, io-threads, fec, cc, profile, the FEC and ARQ knobs, the
 * relay's impairments, socket buffer, timing, rounds, seed.  validate
 * applies the relay's own checks, --io-threads vs --io-model, FEC
 * min <= max, budget >= 2 MTU, and derives the FEC mode, the ARQ reserve
 * and the automatic reordering-window cap. */
extern const struct np_bench_optset np_rudp_optset;

/* `netproof-bench rudp-serve`: the same core and transport rows and the
 * endpoint sockets' (so both ends parse one description), then --listen
 * (required), --seed, --max-seconds, --record; validate applies the same
 * derived rules and sets role SERVER, one loop. */
extern const struct np_bench_optset np_rudp_serve_optset;

#endif /* NP_RUDP_OPTIONS_H */
