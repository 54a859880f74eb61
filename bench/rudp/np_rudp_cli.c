/*
 * np_rudp_cli.c - `netproof-bench rudp`: the --help text, a one-line
 * summary per round on stderr, and the rudp kind's table for the shared
 * command-line flow (bench/core/np_bench_ctl_main.h: output opened first,
 * run, record, exit code).  Options are parsed in np_rudp_config.c.
 */
#include "np_rudp_cli.h"

#include <inttypes.h>
#include <stdio.h>

#include "np_rudp_config.h"
#include "np_rudp_record.h"
#include "np_rudp_record_fec.h"
#include "np_rudp_run.h"

#define PROG "netproof-bench rudp"

static void usage(FILE *fp) {
  fputs(
      "usage: netproof-bench rudp [options]\n"
      "Reliable-UDP (ARQ) echo benchmark: clients keep --window messages in\n"
      "flight to an echo server through an in-process relay that emulates\n"
      "loss, delay, duplication and reordering.  Every echo is checked.\n"
      "\n"
      "  --payload N        message bytes (1..1048576)                    [1024]\n"
      "  --clients N        client connections (1..256)                   [4]\n"
      "  --window N         messages in flight per client (1..4096)       [16]\n"
      "  --io-model M       single | pool                                 [single]\n"
      "  --io-threads N     loops for pool (1..16)                        [1; pool 4]\n"
      "  --fec F            none | fixed | adaptive (docs/fec.md)         [none]\n"
      "  --fec-group N      data datagrams per FEC group (1..8)           [8]\n"
      "  --fec-parity N     parity per group, fixed mode (0..4)           [2]\n"
      "  --fec-wait-ms X    an open group waits at most X ms              [2]\n"
      "  --fec-budget-bytes N  retained bytes per endpoint                [1048576]\n"
      "  --fec-ratio-percent N parity bytes <= N % of data bytes          [50]\n"
      "  --fec-target P     adaptive: P(group unrecoverable) target       [0.02]\n"
      "  --fec-min-parity N / --fec-max-parity N  adaptive bounds         [0 / 4]\n"
      "  --fec-initial-parity N  adaptive, before the first loss report   [1]\n"
      "  --cc C             bbr | newreno | none                          [bbr]\n"
      "  --mtu N            protocol MTU, UDP payload bytes               [1200]\n"
      "  --min-rto-ms X     RTO floor                                     [100]\n"
      "  --reo-wnd-max-ms X cap on RACK's reordering window; auto = FEC\n"
      "                     wait + 3 ms with FEC, no cap without          [auto]\n"
      "  --warmup S         warm-up seconds per round                     [2]\n"
      "  --seconds S        measured seconds per round                    [3]\n"
      "  --rounds N         rounds, relay seeds seed, seed+1, ...         [3]\n"
      "  --seed N           root seed                                     [42]\n"
      "  --socket-buffer N  SO_RCVBUF/SO_SNDBUF of endpoint sockets       [4194304]\n"
      "  --output FILE      run record (JSON); - = stdout                 [-]\n"
      "  --quiet            no summary on stderr\n"
      "relay (see docs/relay.md):\n"
      "  --profile none|random|burst|sustained                            [random]\n"
      "  --loss-percent P --delay-ms D --jitter-ms J --duplicate-percent P\n"
      "  --reorder-percent P --reorder-delay-ms D --burst-loss N/M\n"
      "  --ge-p P --ge-r R --ge-1-h H --ge-1-k K --rate-bytes B\n"
      "  --relay-capacity-bytes B --relay-capacity-packets N --relay-spin-us U\n"
      "\n"
      "exit: 0 passed, 1 a data check failed (record written, status failed),\n"
      "      2 usage, 3 environment/run-time error, 130/143 interrupted\n"
      "See docs/rudp.md.\n",
      fp);
}

/* What the shared flow (np_bench_ctl_main) holds for a rudp run. */
struct rudp_ctx {
  struct np_rudp_config cfg; /* parsed options                  */
  struct np_rudp_result res; /* the run, after a successful run */
};

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct np_rudp_result *res = &((const struct rudp_ctx *)ctxp)->res;
  (void)st; /* one line per round says each round's own status */
  for (uint32_t i = 0; i < res->nrounds; i++) {
    const struct np_rudp_round *r = &res->rounds[i];
    double wall = r->measure_seconds + r->drain_seconds;
    int64_t p99 = 0;
    int h = np_hist_percentile(r->rtt_ns, 99, &p99) == 0;
    uint64_t retx = r->arq_client.retransmits + r->arq_server.retransmits;
    uint64_t spur = r->arq_client.spurious + r->arq_server.spurious;
    fprintf(stderr,
            PROG ": round %" PRIu32 " seed %" PRIu64 ": %.0f round trips/s, "
            "p99 %s%.2f ms, retx %.1f/1000 (spurious %" PRIu64 " of %" PRIu64
            "), overhead %.1f %%, fec rec %.1f/1000 unrec %.0f, "
            "cpu %.0f %%: %s\n",
            i, r->seed, wall > 0 ? (double)r->app.received / wall : 0.0,
            h ? "" : "n/a ", h ? (double)p99 / 1e6 : 0.0,
            r->app.received ? 1000.0 * (double)retx / (double)r->app.received
                            : 0.0,
            spur, retx,
            np_rudp_round_overhead(r), np_rudp_round_recoveries_per_1000(r),
            np_rudp_round_unrecoverable(r),
            wall > 0 ? 100.0 * (r->cpu_user_seconds + r->cpu_sys_seconds) /
                           wall
                     : 0.0,
            r->failed ? "failed" : "passed");
    for (unsigned k = 0; k < NP_RUDP_CHECKS; k++)
      if (!r->checks[k].passed)
        fprintf(stderr, PROG ": round %" PRIu32 ": check %s failed: %s\n", i,
                r->checks[k].name, r->checks[k].detail);
  }
}

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  int rc = np_rudp_config_parse(argc, argv, &ctx->cfg, &cli->help, eb);
  cli->output = ctx->cfg.output;
  cli->quiet = ctx->cfg.quiet;
  return rc;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  return np_rudp_run(&ctx->cfg, ctl, &ctx->res, eb);
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct rudp_ctx *ctx = ctxp;
  return np_rudp_record_build(&ctx->cfg, &ctx->res, argc, argv, doc, v, eb);
}

static void kind_free(void *ctxp) {
  np_rudp_result_free(&((struct rudp_ctx *)ctxp)->res);
}

const struct np_bench_kind np_rudp_bench_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct rudp_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_rudp_cli_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_rudp_bench_kind, argc, argv, NULL);
}
