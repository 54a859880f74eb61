/*
 * np_udp_options.h - the option table of `netproof-bench udp`: the one
 * description of its options that its parser, its --help and the matrix
 * runner's plans all read (bench/core/np_bench_opt.h).
 */
#ifndef NP_UDP_OPTIONS_H
#define NP_UDP_OPTIONS_H

#include "np_bench_opt.h"
#include "np_udp_config.h"

/* Over struct np_udp_config; validate applies the cross-field rules
 * (payload per address family, window vs sequence bits, --io-threads vs
 * --io-model) and derives the server receive buffer. */
extern const struct np_bench_optset np_udp_optset;

#endif /* NP_UDP_OPTIONS_H */
