/*
 * np_rudp_config.c - defaults (the reference's command line), names and
 * parsing for `netproof-bench rudp`, all through the option table in
 * np_rudp_options.c (which composes the relay's own rows).
 */
#include "np_rudp_config.h"

#include <string.h>

#include "np_rudp_options.h"

const char *const np_rudp_io_model_names[] = {
    [NP_RUDP_IO_SINGLE] = "single", [NP_RUDP_IO_POOL] = "pool",
    [NP_RUDP_IO_POOL + 1] = NULL};

const char *const np_rudp_fec_names[] = {
    [NP_RUDP_FEC_NONE] = "none", [NP_RUDP_FEC_FIXED] = "fixed",
    [NP_RUDP_FEC_ADAPTIVE] = "adaptive", [NP_RUDP_FEC_WINDOW] = "window",
    [NP_RUDP_FEC_WINDOW + 1] = NULL};

void np_rudp_config_defaults(struct np_rudp_config *cfg) {
  /* the table's defaults are checked by tests/bench/test_bench_opts.c, so
   * this cannot fail; memset first keeps cfg defined if it ever did */
  memset(cfg, 0, sizeof *cfg);
  (void)np_bench_opt_defaults(&np_rudp_optset, cfg, NULL);
}

int np_rudp_config_parse(int argc, char **argv, struct np_rudp_config *cfg,
                         int *help, struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_rudp_optset, argc, argv, cfg, help, eb);
}

const char *np_rudp_io_model_name(enum np_rudp_io_model m) {
  return (unsigned)m <= NP_RUDP_IO_POOL ? np_rudp_io_model_names[m] : "?";
}

const char *np_rudp_fec_name(enum np_rudp_fec f) {
  return (unsigned)f <= NP_RUDP_FEC_WINDOW ? np_rudp_fec_names[f] : "?";
}

uint32_t np_rudp_config_lanes(const struct np_rudp_config *cfg) {
  return cfg->io_model == NP_RUDP_IO_POOL ? cfg->io_threads : 1;
}

