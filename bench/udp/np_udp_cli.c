/*
 * np_udp_cli.c - option parsing, the human summary on stderr, and the udp
 * kind's table for the shared command-line flow (bench/core/
 * np_bench_ctl_main.h: output opened first, run, record, exit code).  The
 * work itself is in np_udp_run.c; the record in np_udp_record.c.
 */
#include "np_udp_cli.h"
#include "np_opt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_udp_checks.h"
#include "np_udp_msg.h"
#include "np_udp_record.h"
#include "np_udp_run.h"

#define PROG "netproof-bench udp"

void np_udp_config_defaults(struct np_udp_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->payload = 1024;
  cfg->clients = 16;
  cfg->window = 1;
  cfg->io_model = NP_UDP_IO_SINGLE;
  cfg->io_threads = 1;
  cfg->backend = NP_UDP_BACKEND_UV;
  cfg->warmup = 0.25;
  cfg->seconds = 1.0;
  cfg->send_buffer = 65536;
  cfg->receive_buffer = 4194304;
  cfg->server_receive_buffer = 4194304;
  snprintf(cfg->address, sizeof cfg->address, "127.0.0.1");
  cfg->family = AF_INET;
  cfg->seed = 1;
  cfg->output = "-";
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
  static const char *const names[] = {"single", "split", "pool", "reuseport"};
  return (unsigned)m < 4 ? names[m] : "?";
}

const char *np_udp_backend_name(enum np_udp_backend b) {
  return b == NP_UDP_BACKEND_RAW ? "raw" : "uv";
}

static void usage(FILE *fp) {
  fputs(
      "usage: netproof-bench udp [options]\n"
      "UDP echo benchmark over loopback: clients keep --window messages\n"
      "outstanding, the server echoes, every reply is checked; loss is\n"
      "matched against the kernel's per-socket drop counters.\n"
      "\n"
      "  --payload N        payload bytes (1..65507 IPv4, 1..65527 IPv6)  [1024]\n"
      "  --clients N        client sockets (1..4096)                      [16]\n"
      "  --window N         outstanding messages per client (1..65536)   [1]\n"
      "  --io-model M       single | split | pool | reuseport            [single]\n"
      "  --io-threads N     loops/threads for pool and reuseport (1..64) [1]\n"
      "  --backend B        uv (libuv) | raw (epoll + mmsg)              [uv]\n"
      "  --work N           CPU work units per echo on the server        [0]\n"
      "  --warmup S         warm-up seconds (0..60)                      [0.25]\n"
      "  --seconds S        measurement seconds (>0..3600)               [1]\n"
      "  --udp-send-buffer N            SO_SNDBUF, every socket        [65536]\n"
      "  --udp-receive-buffer N         SO_RCVBUF, every socket        [4194304]\n"
      "  --udp-server-receive-buffer N  SO_RCVBUF, server only (overrides)\n"
      "  --address A        127.0.0.1 or ::1 (any literal address)       [127.0.0.1]\n"
      "  --seed N           payload generator seed                       [1]\n"
      "  --output FILE      run record (JSON); - = stdout                [-]\n"
      "  --quiet            no summary on stderr\n"
      "  --help             this text\n"
      "\n"
      "exit: 0 passed, 1 a data check failed (record written, status failed),\n"
      "      2 usage, 3 environment/run-time error, 130/143 interrupted\n"
      "See docs/udp-benchmark.md.\n",
      fp);
}

/* Option values through common/np_opt.h; seconds are worded as such. */
static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
                     uint64_t *out, struct np_errbuf *eb) {
  return np_opt_u64(opt, s, lo, hi, out, eb);
}

static int parse_secs(const char *opt, const char *s, double lo, int lo_open,
                      double hi, double *out, struct np_errbuf *eb) {
  return np_opt_double(opt, s, "seconds", lo, lo_open, hi, out, eb);
}

static int check_payload(struct np_udp_config *cfg, struct np_errbuf *eb) {
  uint32_t max = cfg->family == AF_INET6 ? NP_UDP_MAX_PAYLOAD_V6
                                         : NP_UDP_MAX_PAYLOAD_V4;
  if (cfg->payload < 1 || cfg->payload > max)
    return np_errbuf_set(
        eb, NP_EUSAGE, "--payload %" PRIu32 ": out of range 1..%" PRIu32
        " for %s (%s)", cfg->payload, max,
        cfg->family == AF_INET6 ? "IPv6" : "IPv4",
        cfg->family == AF_INET6
            ? "65,535 - 8 = 65,527: the IPv6 payload length field counts "
              "the 8-byte UDP header, not the 40-byte IPv6 header"
            : "65,535 - 20 - 8 = 65,507: IPv4 total length minus 20-byte "
              "IPv4 header minus 8-byte UDP header");
  unsigned bits = np_udp_msg_seq_bits(cfg->payload);
  if (bits < 64 && (uint64_t)cfg->window > ((uint64_t)1 << bits))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--window %" PRIu32 ": a %" PRIu32
                         "-byte payload carries %u sequence bits, so the "
                         "window must be <= %" PRIu64,
                         cfg->window, cfg->payload, bits,
                         (uint64_t)1 << bits);
  return 0;
}

int np_udp_cli_parse(int argc, char **argv, struct np_udp_config *cfg,
                     int *help, struct np_errbuf *eb) {
  uint64_t v;
  int rc = 0, threads_set = 0;
  np_udp_config_defaults(cfg);
  *help = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    char name[64];
    const char *inline_val, *val = NULL;
    if ((rc = np_opt_name(argv, i, name, sizeof name, &inline_val, eb)))
      return rc;
    if (!strcmp(name, "--help")) {
      *help = 1;
      return 0;
    }
    if (!strcmp(name, "--quiet")) {
      cfg->quiet = 1;
      continue;
    }
    static const char *const valued[] = {
        "--payload", "--clients", "--window", "--io-model", "--io-threads",
        "--backend", "--work", "--warmup", "--seconds", "--udp-send-buffer",
        "--udp-receive-buffer", "--udp-server-receive-buffer", "--address",
        "--seed", "--output"};
    int known = 0;
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
      known |= !strcmp(name, valued[k]);
    if (!known)
      return np_errbuf_set(eb, NP_EUSAGE, "unknown option '%s' (try --help)",
                           name);
    if ((rc = np_opt_value(argc, argv, &i, name, inline_val, &val, eb)))
      return rc;
    if (!strcmp(name, "--payload")) {
      if (!(rc = parse_u64(name, val, 1, UINT32_MAX, &v, eb)))
        cfg->payload = (uint32_t)v;
      else if (parse_u64(name, val, 0, UINT64_MAX, &v, NULL) == 0)
        rc = np_errbuf_set(eb, NP_EUSAGE,
                           "--payload %s: out of range 1..65507 (IPv4: "
                           "65,535 - 20 - 8) or 1..65527 (IPv6: 65,535 - 8)",
                           val);
    } else if (!strcmp(name, "--clients")) {
      if (!(rc = parse_u64(name, val, 1, 4096, &v, eb)))
        cfg->clients = (uint32_t)v;
    } else if (!strcmp(name, "--window")) {
      if (!(rc = parse_u64(name, val, 1, 65536, &v, eb)))
        cfg->window = (uint32_t)v;
    } else if (!strcmp(name, "--io-threads")) {
      if (!(rc = parse_u64(name, val, 1, 64, &v, eb)))
        cfg->io_threads = (uint32_t)v;
      threads_set = 1;
    } else if (!strcmp(name, "--work")) {
      if (!(rc = parse_u64(name, val, 0, 1000000, &v, eb)))
        cfg->work = (uint32_t)v;
    } else if (!strcmp(name, "--seed")) {
      if (!(rc = parse_u64(name, val, 0, UINT64_MAX, &v, eb)))
        cfg->seed = v;
    } else if (!strcmp(name, "--udp-send-buffer")) {
      if (!(rc = parse_u64(name, val, 1, INT32_MAX, &v, eb)))
        cfg->send_buffer = (int)v;
    } else if (!strcmp(name, "--udp-receive-buffer")) {
      if (!(rc = parse_u64(name, val, 1, INT32_MAX, &v, eb)))
        cfg->receive_buffer = (int)v;
    } else if (!strcmp(name, "--udp-server-receive-buffer")) {
      if (!(rc = parse_u64(name, val, 1, INT32_MAX, &v, eb))) {
        cfg->server_receive_buffer = (int)v;
        cfg->server_receive_buffer_set = 1;
      }
    } else if (!strcmp(name, "--warmup")) {
      rc = parse_secs(name, val, 0, 0, 60, &cfg->warmup, eb);
    } else if (!strcmp(name, "--seconds")) {
      rc = parse_secs(name, val, 0, 1, 3600, &cfg->seconds, eb);
    } else if (!strcmp(name, "--io-model")) {
      static const char *const m[] = {"single", "split", "pool", "reuseport"};
      int found = -1;
      for (int k = 0; k < 4; k++)
        if (!strcmp(val, m[k]))
          found = k;
      if (found < 0)
        rc = np_errbuf_set(eb, NP_EUSAGE,
                           "--io-model '%s': expected single, split, pool "
                           "or reuseport", val);
      else
        cfg->io_model = (enum np_udp_io_model)found;
    } else if (!strcmp(name, "--backend")) {
      if (!strcmp(val, "uv"))
        cfg->backend = NP_UDP_BACKEND_UV;
      else if (!strcmp(val, "raw"))
        cfg->backend = NP_UDP_BACKEND_RAW;
      else
        rc = np_errbuf_set(eb, NP_EUSAGE,
                           "--backend '%s': expected uv or raw", val);
    } else if (!strcmp(name, "--address")) {
      unsigned char tmp[16];
      if (strlen(val) >= sizeof cfg->address)
        rc = np_errbuf_set(eb, NP_EUSAGE, "--address '%s': too long", val);
      else if (inet_pton(AF_INET, val, tmp) == 1)
        cfg->family = AF_INET;
      else if (inet_pton(AF_INET6, val, tmp) == 1)
        cfg->family = AF_INET6;
      else
        rc = np_errbuf_set(eb, NP_EUSAGE,
                           "--address '%s': expected a literal IPv4 or IPv6 "
                           "address such as 127.0.0.1 or ::1", val);
      if (rc == 0)
        snprintf(cfg->address, sizeof cfg->address, "%s", val);
    } else if (!strcmp(name, "--output")) {
      if (!*val)
        rc = np_errbuf_set(eb, NP_EUSAGE, "--output: empty path");
      cfg->output = val;
    }
  }
  if (rc)
    return rc;
  if (!cfg->server_receive_buffer_set)
    cfg->server_receive_buffer = cfg->receive_buffer;
  if (threads_set && cfg->io_threads != np_udp_config_lanes(cfg) &&
      (cfg->io_model == NP_UDP_IO_SINGLE || cfg->io_model == NP_UDP_IO_SPLIT))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-threads %" PRIu32 ": the %s model uses %" PRIu32
                         " thread(s); use pool or reuseport for more",
                         cfg->io_threads, np_udp_io_model_name(cfg->io_model),
                         np_udp_config_lanes(cfg));
  return check_payload(cfg, eb);
}

/* What the shared flow (np_bench_ctl_main) holds for a udp run. */
struct udp_ctx {
  struct np_udp_config cfg;    /* parsed options                  */
  struct np_udp_result res;    /* the run, after a successful run */
  struct np_udp_loss loss;     /* losses of the measured phase    */
  struct np_udp_checks checks; /* the invariants                  */
};

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct udp_ctx *ctx = ctxp;
  const struct np_udp_config *cfg = &ctx->cfg;
  const struct np_udp_result *res = &ctx->res;
  const struct np_udp_loss *l = &ctx->loss;
  double wall = res->measure_seconds + res->drain_seconds;
  int64_t p50 = 0, p99 = 0;
  int h50 = np_hist_percentile(res->rtt_ns, 50, &p50) == 0;
  int h99 = np_hist_percentile(res->rtt_ns, 99, &p99) == 0;
  fprintf(stderr,
          PROG ": %s/%s %" PRIu32 " B x %" PRIu32 " clients x window %" PRIu32
          ": %.0f round trips/s, p50 %.2f us, p99 %s%.2f us, lost %" PRId64
          " (kernel drops %" PRIu64 "), cpu %.1f %%: %s\n",
          np_udp_backend_name(cfg->backend),
          np_udp_io_model_name(cfg->io_model), cfg->payload, cfg->clients,
          cfg->window, wall > 0 ? (double)res->measure.received / wall : 0.0,
          h50 ? (double)p50 / 1e3 : 0.0, h99 ? "" : "n/a ",
          h99 ? (double)p99 / 1e3 : 0.0, l->lost, l->kernel_drops,
          wall > 0 ? 100.0 * (res->cpu_user_seconds + res->cpu_sys_seconds) /
                         wall
                   : 0.0,
          np_bench_status_name(st));
  for (unsigned i = 0; i < ctx->checks.n; i++)
    if (!ctx->checks.item[i].passed)
      fprintf(stderr, PROG ": check %s failed: %s\n",
              ctx->checks.item[i].name, ctx->checks.item[i].detail);
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  int rc = np_udp_cli_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output;
  cli->quiet = ctx->cfg.quiet;
  return rc;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  int rc = np_udp_run(&ctx->cfg, ctl, &ctx->res, eb);
  if (rc)
    return rc;
  np_udp_loss_compute(&ctx->res.measure, &ctx->res, &ctx->loss);
  np_udp_checks_eval(&ctx->res, &ctx->loss, &ctx->checks);
  return 0;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct udp_ctx *ctx = ctxp;
  return np_udp_record_build(&ctx->cfg, &ctx->res, &ctx->loss, &ctx->checks,
                             argc, argv, doc, v, eb);
}

static void kind_free(void *ctxp) {
  struct udp_ctx *ctx = ctxp;
  np_udp_result_free(&ctx->res);
}

const struct np_bench_kind np_udp_bench_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct udp_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_udp_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_udp_bench_kind, argc, argv, NULL);
}
