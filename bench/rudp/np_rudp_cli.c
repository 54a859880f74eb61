/*
 * np_rudp_cli.c - `netproof-bench rudp`: options (and the generated --help)
 * through the option table in np_rudp_options.c, the run, the record, the
 * exit code and a one-line summary per round on stderr.
 */
#include "np_rudp_cli.h"

#include <inttypes.h>
#include <stdio.h>

#include "np_rudp_config.h"
#include "np_rudp_options.h"
#include "np_rudp_record.h"
#include "np_rudp_record_fec.h"
#include "np_rudp_run.h"

#define PROG "netproof-bench rudp"

static void summary(const struct np_rudp_result *res) {
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

int np_rudp_cli_main(int argc, char **argv) {
  struct np_rudp_config cfg;
  struct np_rudp_result res;
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  int help, code;
  if (np_rudp_config_parse(argc, argv, &cfg, &help, &eb)) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  if (help) {
    np_bench_opt_help(&np_rudp_optset, stdout);
    return NP_EXIT_OK;
  }
  if (np_rudp_run(&cfg, &res, &eb) != 0) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    np_rudp_result_free(&res);
    return NP_EXIT_RUNTIME;
  }
  const char *status = np_rudp_status(&res);
  code = res.signal ? 128 + res.signal
         : status[0] == 'f' ? NP_EXIT_FAIL
                            : NP_EXIT_OK;
  int rc = np_rudp_record_build(&cfg, &res, argc, argv, &doc, &eb);
  if (rc == 0)
    rc = np_rudp_record_validate(doc, &eb);
  if (rc == 0)
    rc = np_rudp_record_write(doc, cfg.output, &eb);
  if (rc) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    code = NP_EXIT_RUNTIME;
  } else if (!cfg.quiet) {
    summary(&res);
  }
  cJSON_Delete(doc);
  np_rudp_result_free(&res);
  return code;
}
