/*
 * np_udp_serve.c - the option table of `netproof-bench serve`, its rules,
 * the summary line and the kind's table for the shared command-line flow
 * (see np_udp_serve.h).  The record is np_udp_serve_record.c's.
 */
#include "np_udp_serve.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "np_bench_summary.h"
#include "np_udp_rows.h"

#define PROG "netproof-bench serve"
#define CFG struct np_udp_config

/* --listen ADDR:PORT (checked by the row's type, port 0 = any): the
 * text, and the address, family and port to bind. */
static int set_listen(void *sec, const struct np_bench_opt *o,
                      const struct np_bench_val *v, struct np_errbuf *eb) {
  np_udp_config_peer(sec, &v->addr);
  return np_bench_opt_put(o, sec, v, eb);
}

static const struct np_bench_opt serve_opts[] = {
    {.name = "listen",
     .type = NP_BENCH_OPT_HOSTPORT,
     .metavar = "ADDR:PORT",
     .help = "where to listen (required): 127.0.0.1:9000, [::1]:9000; port 0 "
             "= any (printed)",
     NP_BENCH_AT(CFG, listen),
     .set = set_listen,
     .flags = NP_BENCH_OPT_ANYPORT},
    {.name = "io-model",
     .type = NP_BENCH_OPT_CHOICE,
     .choices = np_udp_io_model_names,
     /* split, pool and connected place clients; serve has none */
     .choice_mask = 1u << NP_UDP_IO_SINGLE | 1u << NP_UDP_IO_REUSEPORT,
     .dflt = "single",
     .metavar = "M",
     .help = "single: one socket and loop; reuseport: --io-threads sockets "
             "and loops",
     NP_BENCH_AT(CFG, io_model)},
    NP_UDP_ROW_BACKEND,
    NP_UDP_ROW_IO_THREADS,
    NP_UDP_ROW_WORK,
    NP_UDP_ROW_SEND_BUFFER,
    NP_UDP_ROW_RECEIVE_BUFFER,
    {.name = "max-seconds",
     .type = NP_BENCH_OPT_NUM,
     .min = 0,
     .min_open = 1,
     .max = 86400,
     .unit = "s",
     .dflt = "600",
     .help = "stop after this long at the latest (a server never runs "
             "unbounded)",
     NP_BENCH_AT(CFG, max_seconds)},
    {.name = "record",
     .type = NP_BENCH_OPT_STR,
     .dflt = "-",
     .metavar = "FILE",
     .help = "the record written on exit (JSON); - = stdout",
     NP_BENCH_AT(CFG, output),
     .set = np_bench_opt_set_path},
    {.name = "output",
     .type = NP_BENCH_OPT_STR,
     .metavar = "FILE",
     .help = "the same as --record (every command takes --output)",
     NP_BENCH_AT(CFG, output),
     .set = np_bench_opt_set_path},
    {.name = "summary",
     .type = NP_BENCH_OPT_CHOICE,
     .choices = np_bench_summary_choices,
     .dflt = "text",
     .metavar = "KIND",
     .help = "json: one-object summary on stdout (instead of the record "
             "when no --record is given)",
     NP_BENCH_AT(CFG, summary)},
    {.name = "quiet",
     .type = NP_BENCH_OPT_FLAG,
     .help = "no listening and summary lines on stderr",
     NP_BENCH_AT(CFG, quiet)},
    {.name = "help",
     .type = NP_BENCH_OPT_FLAG,
     .help = "this text",
     .flags = NP_BENCH_OPT_HELP},
};

static const struct np_bench_opt_section serve_sections[] = {
    {NULL, serve_opts, sizeof serve_opts / sizeof serve_opts[0], 0},
};

static void serve_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

static int serve_validate(void *p, const struct np_bench_given *g,
                          struct np_errbuf *eb) {
  CFG *cfg = p;
  if (cfg->listen == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--listen ADDR:PORT is required");
  if (np_bench_opt_given(&np_udp_serve_optset, g, "io-threads") &&
      cfg->io_model == NP_UDP_IO_SINGLE && cfg->io_threads != 1)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-threads %" PRIu32 ": the single model uses 1 "
                         "thread; use reuseport for more",
                         cfg->io_threads);
  cfg->mode = NP_UDP_MODE_SERVER;
  cfg->clients = 0;
  cfg->window = 1;
  cfg->server_receive_buffer = cfg->receive_buffer;
  cfg->server_receive_buffer_set = 1;
  /* every datagram anyone may send is read whole */
  cfg->payload =
      cfg->family == AF_INET6 ? NP_UDP_MAX_PAYLOAD_V6 : NP_UDP_MAX_PAYLOAD_V4;
  return 0;
}

const struct np_bench_optset np_udp_serve_optset = {
    .command = "serve",
    .summary = "UDP echo server for anyone's client: every datagram read is "
               "echoed verbatim\nto its sender and counted; stops on "
               "SIGINT/SIGTERM or at --max-seconds and\nwrites its record "
               "(counters per socket, kernel snapshots, identity).\nThe "
               "signal is its normal stop: exit 0 or 1 from its checks, not "
               "130/143.\n",
    .doc = "docs/guides/your-stack.md",
    .sections = serve_sections,
    .nsections = sizeof serve_sections / sizeof serve_sections[0],
    .cfg_size = sizeof(CFG),
    .init = serve_init,
    .validate = serve_validate,
};

/* What the shared flow holds for a serve run. */
struct serve_ctx {
  struct np_udp_config cfg;    /* parsed options                  */
  struct np_udp_result res;    /* the run, after a successful run */
  struct np_udp_checks checks; /* the invariants                  */
};

static void usage(FILE *fp) { np_bench_opt_help(&np_udp_serve_optset, fp); }

static int kind_parse(void *ctxp, int argc, char **argv,
                      struct np_bench_cli *cli, struct np_errbuf *eb) {
  struct serve_ctx *ctx = ctxp;
  int rc = np_bench_opt_parse(&np_udp_serve_optset, argc, argv, &ctx->cfg,
                              &cli->help, eb);
  cli->output = ctx->cfg.output;
  cli->output_opt = "--record";
  cli->quiet = ctx->cfg.quiet;
  cli->summary_json = ctx->cfg.summary == NP_BENCH_SUMMARY_JSON;
  return rc;
}

static int kind_run(void *ctxp, struct np_bench_ctl *ctl,
                    struct np_errbuf *eb) {
  struct serve_ctx *ctx = ctxp;
  int rc = np_udp_run(&ctx->cfg, ctl, &ctx->res, eb);
  if (rc == 0)
    np_udp_serve_checks(&ctx->res, &ctx->checks);
  return rc;
}

static int kind_build(void *ctxp, int argc, char **argv, cJSON **doc,
                      struct np_bench_verdict *v, struct np_errbuf *eb) {
  struct serve_ctx *ctx = ctxp;
  return np_udp_serve_record_build(&ctx->cfg, &ctx->res, &ctx->checks, argc,
                                   argv, doc, v, eb);
}

static void summary(const void *ctxp, enum np_bench_status st) {
  const struct serve_ctx *ctx = ctxp;
  const struct np_udp_counters *c = &ctx->res.measure;
  uint64_t drops = 0;
  for (uint32_t i = 0; i < ctx->res.nsocks; i++)
    drops += ctx->res.socks[i].drops_after - ctx->res.socks[i].drops_before;
  fprintf(
      stderr,
      PROG ": served %.1f s, %" PRIu64 " datagrams received, %" PRIu64
           " echoed, %" PRIu64 " dropped by the socket(s), stopped by %s: %s\n",
      ctx->res.measure_seconds, c->server_received, c->server_replied, drops,
      ctx->res.run.signal == SIGINT    ? "SIGINT"
      : ctx->res.run.signal == SIGTERM ? "SIGTERM"
                                       : "--max-seconds",
      np_bench_status_name(st));
  for (unsigned i = 0; i < ctx->checks.n; i++)
    if (!ctx->checks.item[i].passed)
      fprintf(stderr, PROG ": check %s failed: %s\n", ctx->checks.item[i].name,
              ctx->checks.item[i].detail);
}

static void kind_free(void *ctxp) {
  struct serve_ctx *ctx = ctxp;
  np_udp_result_free(&ctx->res);
}

const struct np_bench_kind np_udp_serve_kind = {
    .prog = PROG,
    .ctx_size = sizeof(struct serve_ctx),
    .parse = kind_parse,
    .usage = usage,
    .run = kind_run,
    .build = kind_build,
    .summary = summary,
    .free_result = kind_free,
};

int np_udp_serve_main(int argc, char **argv) {
  return np_bench_ctl_main(&np_udp_serve_kind, argc, argv, NULL);
}
