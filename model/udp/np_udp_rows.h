/*
 * np_udp_rows.h - option rows `netproof-bench udp` and `netproof-bench
 * serve` share (one definition of each fact: name, range, default, help,
 * tag), as initializers over struct np_udp_config.  Internal to bench/udp.
 */
#ifndef NP_UDP_ROWS_H
#define NP_UDP_ROWS_H

#include <stdint.h>

#include "np_bench_opt.h"
#include "np_udp_config.h"

#define NP_UDP_ROW_BACKEND \
  {.name = "backend", .type = NP_BENCH_OPT_CHOICE, \
  .choices = np_udp_backend_names, .dflt = "uv", .metavar = "B", \
  .help = "sockets through libuv (uv), epoll + send/recv/mmsg (raw) or " \
          "io_uring (uring)", \
  NP_BENCH_AT(struct np_udp_config, backend), .tag = "", \
  .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_COMPARE}

#define NP_UDP_ROW_IO_THREADS \
  {.name = "io-threads", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 64, \
  .dflt = "1", .help = "loops/threads for pool, reuseport and connected", \
  NP_BENCH_AT(struct np_udp_config, io_threads), .tag = "t", \
  .flags = NP_BENCH_OPT_COMPARE}

#define NP_UDP_ROW_WORK \
  {.name = "work", .type = NP_BENCH_OPT_UINT, .umin = 0, .umax = 1000000, \
  .dflt = "0", .help = "CPU work units per echo on the server", \
  NP_BENCH_AT(struct np_udp_config, work), .tag = "k"}

#define NP_UDP_ROW_SEND_BUFFER \
  {.name = "udp-send-buffer", .type = NP_BENCH_OPT_SIZE, .umin = 1, \
  .umax = INT32_MAX, .dflt = "65536", .metavar = "N", \
  .help = "SO_SNDBUF of every socket", NP_BENCH_AT(struct np_udp_config, send_buffer), \
  .tag = "sb"}

#define NP_UDP_ROW_RECEIVE_BUFFER \
  {.name = "udp-receive-buffer", .type = NP_BENCH_OPT_SIZE, .umin = 1, \
  .umax = INT32_MAX, .dflt = "4194304", .metavar = "N", \
  .help = "SO_RCVBUF of every socket", NP_BENCH_AT(struct np_udp_config, receive_buffer), \
  .tag = "rb"}

#endif /* NP_UDP_ROWS_H */
