/*
 * np_udp_options.h - the option table of `netproof-bench udp`: the one
 * description of its options that its parser, its --help and the matrix
 * runner's plans all read (common/np_bench_opt.h).
 */
#ifndef NP_UDP_OPTIONS_H
#define NP_UDP_OPTIONS_H

#include "np_bench_opt.h"
#include "np_udp_config.h"

/* Over struct np_udp_config; validate applies the cross-field rules
 * (payload per address family, window vs sequence bits, --io-threads vs
 * --io-model) and derives the server receive buffer. */
extern const struct np_bench_optset np_udp_optset;

/* The offered-load rows (np_udp_load_options.c): --rate, --arrivals,
 * --max-outstanding, --connect's --reply-timeout-ms, --interval, and the
 * stream's --mode, --bitrate, --packet-rate, --gso, --gro, --batch; a
 * section of np_udp_optset. */
#define NP_UDP_LOAD_NOPTS 11
extern const struct np_bench_opt np_udp_load_opts[NP_UDP_LOAD_NOPTS];

/* Their cross-field rules (called by the table's validate). */
int np_udp_load_validate(struct np_udp_config *cfg,
                         const struct np_bench_given *g,
                         struct np_errbuf *eb);

#endif /* NP_UDP_OPTIONS_H */
