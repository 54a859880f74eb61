/*
 * np_fec_config.c - the FEC configuration's defaults and mode names: no
 * codec, so option tables and record builders link no ISA-L.
 */
#include "np_fec_params.h"

#include <string.h>

void np_fec_config_defaults(struct np_fec_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->mode = NP_FEC_FIXED;
  cfg->mtu = 1200;
  cfg->group = 8;
  cfg->parity = 2;
  cfg->wait_ns = 2000000;
  cfg->budget = (size_t)1 << 20;
  cfg->ratio_pct = 50;
  cfg->rx_slots = 64;
  cfg->rx_buffers = 256;
  cfg->final_lag = 32;
  cfg->final_ns = 100000000;
  cfg->report_ns = 50000000;
  cfg->cache_entries = 32;
  cfg->window = 16;
  np_fec_policy_config_defaults(&cfg->policy);
}

const char *np_fec_mode_name(enum np_fec_mode m) {
  switch (m) {
  case NP_FEC_NONE:
    return "none";
  case NP_FEC_FIXED:
    return "fixed";
  case NP_FEC_ADAPTIVE:
    return "adaptive";
  case NP_FEC_WINDOW:
    return "window";
  }
  return "unknown";
}

int np_fec_mode_parse(const char *s, enum np_fec_mode *out) {
  static const enum np_fec_mode all[] = {NP_FEC_NONE, NP_FEC_FIXED,
                                         NP_FEC_ADAPTIVE, NP_FEC_WINDOW};
  if (s == NULL || out == NULL)
    return NP_EINVAL;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (strcmp(s, np_fec_mode_name(all[i])) == 0) {
      *out = all[i];
      return 0;
    }
  }
  return NP_EINVAL;
}

uint32_t np_fec_reserve(enum np_fec_mode m) {
  return m == NP_FEC_WINDOW ? NP_FEC_RESERVE_WINDOW : NP_FEC_RESERVE;
}
