/*
 * np_udp_config.c - the configuration's defaults, thread count and names
 * (see np_udp_config.h).  Defaults come from the option table, so the
 * parser, --help, the matrix and library callers share one set of values.
 */
#include "np_udp_config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_udp_options.h"

const char *const np_udp_io_model_names[] = {
    [NP_UDP_IO_SINGLE] = "single",
    [NP_UDP_IO_SPLIT] = "split",
    [NP_UDP_IO_POOL] = "pool",
    [NP_UDP_IO_REUSEPORT] = "reuseport",
    [NP_UDP_IO_CONNECTED] = "connected",
    [NP_UDP_IO_CONNECTED + 1] = NULL};

const char *const np_udp_backend_names[] = {
    [NP_UDP_BACKEND_UV] = "uv",
    [NP_UDP_BACKEND_RAW] = "raw",
    [NP_UDP_BACKEND_URING] = "uring",
    [NP_UDP_BACKEND_URING + 1] = NULL};

void np_udp_config_defaults(struct np_udp_config *cfg) {
  /* the table's defaults are checked by tests/bench/test_bench_opts.c, so
   * this cannot fail; memset first keeps cfg defined if it ever did */
  memset(cfg, 0, sizeof *cfg);
  (void)np_bench_opt_defaults(&np_udp_optset, cfg, NULL);
}

void np_udp_config_peer(struct np_udp_config *cfg, const struct np_addr *a) {
  np_addr_host(a, cfg->address, sizeof cfg->address);
  cfg->family = np_addr_family(a);
  cfg->port = np_addr_port(a);
}

uint32_t np_udp_config_lanes(const struct np_udp_config *cfg) {
  switch (cfg->io_model) {
  case NP_UDP_IO_SINGLE:
    return 1;
  case NP_UDP_IO_SPLIT:
    return 2;
  default:
    return cfg->io_threads;
  }
}

const char *np_udp_io_model_name(enum np_udp_io_model m) {
  return (unsigned)m <= NP_UDP_IO_CONNECTED ? np_udp_io_model_names[m] : "?";
}

const char *np_udp_backend_name(enum np_udp_backend b) {
  return (unsigned)b <= NP_UDP_BACKEND_URING ? np_udp_backend_names[b] : "?";
}

#define NP_UDP_BATCH_MAX 64u

static uint32_t clampu(uint64_t v, uint32_t lo, uint32_t hi) {
  return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

void np_udp_layout_of(const struct np_udp_config *cfg,
                      struct np_udp_layout *out) {
  out->lanes = np_udp_config_lanes(cfg);
  out->clients = cfg->mode == NP_UDP_MODE_SERVER ? 0 : cfg->clients;
  /* connected: one unconnected reuseport socket per lane plus one
   * connected server socket per client on the shared port */
  out->servers = cfg->mode == NP_UDP_MODE_CLIENT       ? 0
                 : cfg->io_model == NP_UDP_IO_REUSEPORT ? out->lanes
                 : cfg->io_model == NP_UDP_IO_CONNECTED
                     ? out->lanes + out->clients
                     : 1;
  uint32_t payload = cfg->payload ? cfg->payload : 1;
  out->rx_batch_server = clampu((4u << 20) / payload, 1, NP_UDP_BATCH_MAX);
  out->tx_batch = clampu((1u << 20) / payload, 1, NP_UDP_BATCH_MAX);
  if (out->tx_batch > np_udp_config_inflight(cfg)) /* window or in flight */
    out->tx_batch = np_udp_config_inflight(cfg);
  out->rx_batch_client = out->tx_batch;
  /* reuseport: steer each client's requests to its own lane's server
   * socket (client id low byte mod lanes) instead of the kernel's flow
   * hash; needs the 9-byte header's client id */
  out->steered = cfg->io_model == NP_UDP_IO_REUSEPORT && out->lanes > 1 &&
                 cfg->payload >= 9 && cfg->mode == NP_UDP_MODE_LOOPBACK;
}

const char *const np_udp_arrivals_names[] = {"constant", "poisson", NULL};

uint32_t np_udp_config_inflight(const struct np_udp_config *cfg) {
  return cfg->rate > 0 ? cfg->max_outstanding : cfg->window;
}

const char *const np_udp_traffic_names[] = {"echo", "stream", NULL};
