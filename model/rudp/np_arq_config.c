/*
 * np_arq_config.c - the ARQ configuration's defaults, the names of its
 * choices and the fragment size (see np_arq_config.h): no protocol code,
 * so option tables and record builders link no engine.
 */
#include "np_arq_config.h"

#include <string.h>

void np_arq_config_defaults(struct np_arq_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->mtu = 1200;
  cfg->snd_wnd = 128;
  cfg->rcv_wnd = 512;
  cfg->cc = NP_ARQ_CC_BBR;
  cfg->init_cwnd = 32;
  cfg->min_rto_ns = 100000000ull;
  cfg->max_rto_ns = 2000000000ull;
  cfg->initial_rto_ns = 200000000ull;
  cfg->dead_timeout_ns = 10000000000ull;
  cfg->max_retries = 30;
  cfg->max_queue_bytes = (size_t)16 << 20;
  cfg->queue_frags = 0; /* = snd_wnd */
  cfg->reo_mult_max = 16;
  cfg->delivery = NP_ARQ_ORDERED;
  cfg->ack_every = 2;
  cfg->ack_delay_ns = 1000000ull;
  cfg->reo_wnd_head_ns = 1000000ull;
  cfg->head_dupthresh = 1;
  cfg->head_copies = 2;
}

const char *np_arq_delivery_name(enum np_arq_delivery d) {
  return d == NP_ARQ_UNORDERED ? "unordered" : "ordered";
}

const char *np_arq_cc_name(enum np_arq_cc_kind k) {
  switch (k) {
  case NP_ARQ_CC_NEWRENO: return "newreno";
  case NP_ARQ_CC_BBR: return "bbr";
  default: return "none";
  }
}

int np_arq_cc_parse(const char *name, enum np_arq_cc_kind *out) {
  static const enum np_arq_cc_kind kinds[] = {NP_ARQ_CC_NONE,
                                              NP_ARQ_CC_NEWRENO, NP_ARQ_CC_BBR};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(name, np_arq_cc_name(kinds[i])) == 0) {
      *out = kinds[i];
      return 0;
    }
  return NP_EINVAL;
}

uint32_t np_arq_frag_max(const struct np_arq_config *cfg) {
  uint32_t over = cfg->reserve + NP_ARQ_HDR_MAX;
  return cfg->mtu > over ? cfg->mtu - over : 0;
}
