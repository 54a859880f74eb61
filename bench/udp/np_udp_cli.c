/*
 * np_udp_cli.c - the command: options through the udp option table
 * (np_udp_options.c, which also generates --help), the run's outcome and
 * exit code, and the human summary on stderr.  The work itself is in
 * np_udp_run.c; the record in np_udp_record.c.
 */
#include "np_udp_cli.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>

#include "np_udp_checks.h"
#include "np_udp_options.h"
#include "np_udp_record.h"
#include "np_udp_run.h"

#define PROG "netproof-bench udp"

int np_udp_cli_parse(int argc, char **argv, struct np_udp_config *cfg,
                     int *help, struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_udp_optset, argc, argv, cfg, help, eb);
}

static void summary(const struct np_udp_config *cfg,
                    const struct np_udp_result *res,
                    const struct np_udp_loss *l, const char *status) {
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
          status);
}

int np_udp_cli_main(int argc, char **argv) {
  struct np_udp_config cfg;
  struct np_udp_result res;
  struct np_udp_loss loss;
  struct np_udp_checks checks;
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  int help, rc, code;
  if (np_udp_cli_parse(argc, argv, &cfg, &help, &eb)) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  if (help) {
    np_bench_opt_help(&np_udp_optset, stdout);
    return NP_EXIT_OK;
  }
  if ((rc = np_udp_run(&cfg, &res, &eb)) != 0) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    return NP_EXIT_RUNTIME;
  }
  np_udp_loss_compute(&res.measure, &res, &loss);
  np_udp_checks_eval(&res, &loss, &checks);
  const char *status = res.signal ? "interrupted"
                       : checks.failed ? "failed"
                                       : "passed";
  code = res.signal ? 128 + res.signal
         : checks.failed ? NP_EXIT_FAIL
                         : NP_EXIT_OK;
  rc = np_udp_record_build(&cfg, &res, &loss, &checks, status, argc, argv,
                           &doc, &eb);
  if (rc == 0)
    rc = np_udp_record_validate(doc, &eb);
  if (rc == 0)
    rc = np_udp_record_write(doc, cfg.output, &eb);
  if (rc) {
    fprintf(stderr, PROG ": %s\n", eb.msg);
    code = NP_EXIT_RUNTIME;
  } else if (!cfg.quiet) {
    summary(&cfg, &res, &loss, status);
    for (unsigned i = 0; i < checks.n; i++)
      if (!checks.item[i].passed)
        fprintf(stderr, PROG ": check %s failed: %s\n", checks.item[i].name,
                checks.item[i].detail);
  }
  cJSON_Delete(doc);
  np_udp_result_free(&res);
  return code;
}
