/*
 * np_rudp_config.c - defaults (the reference's command line) and option
 * parsing for `netproof-bench rudp`.  Relay options are collected and
 * handed to np_relay_options_parse so the relay owns their meaning.
 */
#include "np_rudp_config.h"
#include "np_opt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RELAY_OPTS 64

void np_rudp_config_defaults(struct np_rudp_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->payload = 1024;
  cfg->clients = 4;
  cfg->window = 16;
  cfg->io_model = NP_RUDP_IO_SINGLE;
  cfg->io_threads = 1;
  cfg->fec = NP_RUDP_FEC_NONE;
  cfg->reo_auto = 1;
  np_fec_config_defaults(&cfg->fec_cfg);
  cfg->fec_cfg.mode = NP_FEC_NONE;
  np_arq_config_defaults(&cfg->arq);
  cfg->warmup = 2.0;
  cfg->seconds = 3.0;
  cfg->rounds = 3;
  cfg->seed = 42;
  cfg->socket_buffer = 4 << 20; /* the reference's endpoint buffers */
  np_relay_config_init(&cfg->relay);
  (void)np_relay_profile_apply(&cfg->relay, "random", NULL);
  cfg->output = "-";
}

const char *np_rudp_io_model_name(enum np_rudp_io_model m) {
  return m == NP_RUDP_IO_POOL ? "pool" : "single";
}

const char *np_rudp_fec_name(enum np_rudp_fec f) {
  return f == NP_RUDP_FEC_FIXED ? "fixed"
         : f == NP_RUDP_FEC_ADAPTIVE ? "adaptive"
                                     : "none";
}

uint32_t np_rudp_config_lanes(const struct np_rudp_config *cfg) {
  return cfg->io_model == NP_RUDP_IO_POOL ? cfg->io_threads : 1;
}

/* Option values through common/np_opt.h. */
static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
                     uint64_t *out, struct np_errbuf *eb) {
  return np_opt_u64(opt, s, lo, hi, out, eb);
}

static int parse_dbl(const char *opt, const char *s, double lo, int lo_open,
                     double hi, double *out, struct np_errbuf *eb) {
  return np_opt_double(opt, s, "a number", lo, lo_open, hi, out, eb);
}

/* --fec-* knobs of the FEC layer (docs/fec.md); returns 1 when known. */
static int fec_option(struct np_fec_config *fc, const char *name,
                      const char *val, int *rc, struct np_errbuf *eb) {
  uint64_t v = 0;
  double d = 0;
  if (!strcmp(name, "--fec-group")) {
    if (!(*rc = parse_u64(name, val, 1, NP_FEC_MAX_GROUP, &v, eb)))
      fc->group = (unsigned)v;
  } else if (!strcmp(name, "--fec-parity")) {
    if (!(*rc = parse_u64(name, val, 0, NP_FEC_MAX_PARITY, &v, eb)))
      fc->parity = (unsigned)v;
  } else if (!strcmp(name, "--fec-wait-ms")) {
    if (!(*rc = parse_dbl(name, val, 0, 1, 1000, &d, eb)))
      fc->wait_ns = (uint64_t)llround(d * 1e6);
  } else if (!strcmp(name, "--fec-budget-bytes")) {
    if (!(*rc = parse_u64(name, val, 2400, (uint64_t)1 << 32, &v, eb)))
      fc->budget = (size_t)v;
  } else if (!strcmp(name, "--fec-ratio-percent")) {
    if (!(*rc = parse_u64(name, val, 1, 400, &v, eb)))
      fc->ratio_pct = (unsigned)v;
  } else if (!strcmp(name, "--fec-target")) {
    *rc = parse_dbl(name, val, 0, 1, 0.5, &fc->policy.target, eb);
  } else if (!strcmp(name, "--fec-max-parity")) {
    if (!(*rc = parse_u64(name, val, 0, NP_FEC_MAX_PARITY, &v, eb)))
      fc->policy.max_m = (unsigned)v;
  } else if (!strcmp(name, "--fec-min-parity")) {
    if (!(*rc = parse_u64(name, val, 0, NP_FEC_MAX_PARITY, &v, eb)))
      fc->policy.min_m = (unsigned)v;
  } else if (!strcmp(name, "--fec-initial-parity")) {
    if (!(*rc = parse_u64(name, val, 0, NP_FEC_MAX_PARITY, &v, eb)))
      fc->policy.initial_m = (unsigned)v;
  } else {
    return 0;
  }
  return 1;
}

/* One of our own valued options; returns 1 when name was ours. */
static int own_option(struct np_rudp_config *cfg, const char *name,
                      const char *val, int *threads_set, int *rc,
                      struct np_errbuf *eb) {
  uint64_t v = 0;
  double d = 0;
  if (!strcmp(name, "--payload")) {
    if (!(*rc = parse_u64(name, val, 1, NP_RUDP_MAX_PAYLOAD, &v, eb)))
      cfg->payload = (uint32_t)v;
  } else if (!strcmp(name, "--clients")) {
    if (!(*rc = parse_u64(name, val, 1, NP_RUDP_MAX_CLIENTS, &v, eb)))
      cfg->clients = (uint32_t)v;
  } else if (!strcmp(name, "--window")) {
    if (!(*rc = parse_u64(name, val, 1, 4096, &v, eb)))
      cfg->window = (uint32_t)v;
  } else if (!strcmp(name, "--io-threads")) {
    if (!(*rc = parse_u64(name, val, 1, NP_RUDP_MAX_LANES, &v, eb)))
      cfg->io_threads = (uint32_t)v;
    *threads_set = 1;
  } else if (!strcmp(name, "--io-model")) {
    if (!strcmp(val, "single"))
      cfg->io_model = NP_RUDP_IO_SINGLE;
    else if (!strcmp(val, "pool"))
      cfg->io_model = NP_RUDP_IO_POOL;
    else
      *rc = np_errbuf_set(eb, NP_EUSAGE,
                          "--io-model '%s': expected single or pool", val);
  } else if (!strcmp(name, "--fec")) {
    if (!strcmp(val, "none"))
      cfg->fec = NP_RUDP_FEC_NONE;
    else if (!strcmp(val, "fixed"))
      cfg->fec = NP_RUDP_FEC_FIXED;
    else if (!strcmp(val, "adaptive"))
      cfg->fec = NP_RUDP_FEC_ADAPTIVE;
    else
      *rc = np_errbuf_set(eb, NP_EUSAGE,
                          "--fec '%s': expected none, fixed or adaptive", val);
  } else if (!strncmp(name, "--fec-", 6)) {
    return fec_option(&cfg->fec_cfg, name, val, rc, eb);
  } else if (!strcmp(name, "--cc")) {
    if (np_arq_cc_parse(val, &cfg->arq.cc) != 0)
      *rc = np_errbuf_set(eb, NP_EUSAGE,
                          "--cc '%s': expected newreno, bbr or none", val);
  } else if (!strcmp(name, "--mtu")) {
    if (!(*rc = parse_u64(name, val, 64, 65507, &v, eb)))
      cfg->arq.mtu = (uint32_t)v;
  } else if (!strcmp(name, "--min-rto-ms")) {
    if (!(*rc = parse_dbl(name, val, 0, 1, 60000, &d, eb)))
      cfg->arq.min_rto_ns = (uint64_t)llround(d * 1e6);
  } else if (!strcmp(name, "--reo-wnd-max-ms")) {
    if (!strcmp(val, "auto"))
      cfg->reo_auto = 1;
    else if (!(*rc = parse_dbl(name, val, 0, 0, 60000, &d, eb)))
      cfg->arq.reo_wnd_max_ns = (uint64_t)llround(d * 1e6), cfg->reo_auto = 0;
  } else if (!strcmp(name, "--warmup")) {
    *rc = parse_dbl(name, val, 0, 0, 600, &cfg->warmup, eb);
  } else if (!strcmp(name, "--seconds")) {
    *rc = parse_dbl(name, val, 0, 1, 3600, &cfg->seconds, eb);
  } else if (!strcmp(name, "--rounds")) {
    if (!(*rc = parse_u64(name, val, 1, NP_RUDP_MAX_ROUNDS, &v, eb)))
      cfg->rounds = (uint32_t)v;
  } else if (!strcmp(name, "--seed")) {
    if (!(*rc = parse_u64(name, val, 0, UINT64_MAX - NP_RUDP_MAX_ROUNDS, &v,
                          eb)))
      cfg->seed = v;
  } else if (!strcmp(name, "--socket-buffer")) {
    if (!(*rc = parse_u64(name, val, 4096, INT32_MAX, &v, eb)))
      cfg->socket_buffer = (int)v;
  } else if (!strcmp(name, "--output")) {
    if (!*val)
      *rc = np_errbuf_set(eb, NP_EUSAGE, "--output: empty path");
    cfg->output = val;
  } else {
    return 0;
  }
  return 1;
}

int np_rudp_config_parse(int argc, char **argv, struct np_rudp_config *cfg,
                         int *help, struct np_errbuf *eb) {
  const char *rnames[MAX_RELAY_OPTS], *rvals[MAX_RELAY_OPTS];
  char rbuf[MAX_RELAY_OPTS][64];
  size_t nrelay = 0;
  int rc = 0, threads_set = 0;
  np_rudp_config_defaults(cfg);
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
    if ((rc = np_opt_value(argc, argv, &i, name, inline_val, &val, eb)))
      return rc;
    if (own_option(cfg, name, val, &threads_set, &rc, eb))
      continue;
    if (!np_relay_option_known(name))
      return np_errbuf_set(eb, NP_EUSAGE, "unknown option '%s' (try --help)",
                           name);
    if (nrelay == MAX_RELAY_OPTS)
      return np_errbuf_set(eb, NP_EUSAGE, "too many relay options");
    snprintf(rbuf[nrelay], sizeof rbuf[nrelay], "%s", name);
    rnames[nrelay] = rbuf[nrelay];
    rvals[nrelay++] = val;
  }
  if (rc)
    return rc;
  if ((rc = np_relay_options_parse(&cfg->relay, nrelay, rnames, rvals, eb)))
    return rc;
  if (threads_set && cfg->io_model == NP_RUDP_IO_SINGLE &&
      cfg->io_threads != 1)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-threads %" PRIu32 ": the single model uses 1 "
                         "thread; use --io-model pool for more",
                         cfg->io_threads);
  if (cfg->io_model == NP_RUDP_IO_POOL && !threads_set)
    cfg->io_threads = 4; /* the reference's pool */
  cfg->fec_cfg.mode = cfg->fec == NP_RUDP_FEC_FIXED      ? NP_FEC_FIXED
                      : cfg->fec == NP_RUDP_FEC_ADAPTIVE ? NP_FEC_ADAPTIVE
                                                         : NP_FEC_NONE;
  cfg->fec_cfg.mtu = cfg->arq.mtu;
  if (cfg->fec_cfg.budget < 2u * (size_t)cfg->arq.mtu)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--fec-budget-bytes %zu: below two datagrams of "
                         "--mtu %" PRIu32, cfg->fec_cfg.budget, cfg->arq.mtu);
  cfg->arq.reserve = cfg->fec == NP_RUDP_FEC_NONE ? 0 : NP_FEC_RESERVE;
  /* auto: with FEC, RACK waits the group wait + 3 ms, not the path's whole
   * reordering delay (docs/rudp.md "FEC"); without FEC, no cap */
  if (cfg->reo_auto)
    cfg->arq.reo_wnd_max_ns =
        cfg->fec == NP_RUDP_FEC_NONE ? 0 : cfg->fec_cfg.wait_ns + 3000000u;
  struct np_fec_policy_config *pc = &cfg->fec_cfg.policy;
  struct np_fec_policy pol;
  if (pc->min_m > pc->max_m)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--fec-min-parity %u: above --fec-max-parity %u",
                         pc->min_m, pc->max_m);
  /* the starting parity is clamped into [min, max] */
  pc->initial_m = pc->initial_m < pc->min_m   ? pc->min_m
                  : pc->initial_m > pc->max_m ? pc->max_m
                                              : pc->initial_m;
  if (np_fec_policy_init(&pol, pc) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--fec-*: invalid adaptive policy");
  if (np_arq_frag_max(&cfg->arq) < 16)
    return np_errbuf_set(eb, NP_EUSAGE, "--mtu %" PRIu32 ": too small",
                         cfg->arq.mtu);
  return 0;
}
