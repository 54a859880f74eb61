/*
 * np_fec_bench.h - encode/decode throughput of the FEC layer, in-process.
 *
 * Four measurements, each bounded by time and count: the bare ISA-L
 * Reed-Solomon encode and decode of a k+m group of shard-sized buffers,
 * and the whole endpoint path (np_fec_send per datagram with parity on
 * every full group; np_fec_input per datagram with `lose` data shards of
 * every group dropped and rebuilt).  Wall and process-CPU time per
 * datagram, and MB/s of data (10^6 B/s of datagram bytes).
 */
#ifndef NP_FEC_BENCH_H
#define NP_FEC_BENCH_H

#include <cjson/cJSON.h>

#include "np_err.h"

struct np_fec_bench_config {
  unsigned k, m;       /* group shape (8, 2)                              */
  unsigned shard;      /* datagram bytes handed to the layer (1,194 so the
                          1,200 B parity datagram fills the MTU)          */
  unsigned lose;       /* data shards dropped per group on decode (2)     */
  double seconds;      /* per measurement (1.0)                           */
};

void np_fec_bench_config_defaults(struct np_fec_bench_config *cfg);
/* Runs the measurements; *out a new cJSON object (caller deletes). */
int np_fec_bench_run(const struct np_fec_bench_config *cfg, cJSON **out,
                     struct np_errbuf *eb);

#endif /* NP_FEC_BENCH_H */
