/*
 * np_matrix_options.c - the per-protocol option tables behind plan checks,
 * argv building and configuration ids (see np_matrix_options.h).
 */
#include "np_matrix_options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const np_io_models[] = {"single", "split", "pool",
                                           "reuseport", NULL};
static const char *const np_backends[] = {"uv", "raw", NULL};

/* Canonical order: the id is p, c, w, io-model, backend, then the rest. */
static const struct np_matrix_option np_udp_options[] = {
    {"payload", NP_MATRIX_OPT_INT, 1, 65527, NULL, "p", 1, "1024", 0},
    {"clients", NP_MATRIX_OPT_INT, 1, 4096, NULL, "c", 1, "16", 0},
    {"window", NP_MATRIX_OPT_INT, 1, 65536, NULL, "w", 1, "1", 0},
    {"io-model", NP_MATRIX_OPT_STR, 0, 0, np_io_models, "", 1, "single", 0},
    {"backend", NP_MATRIX_OPT_STR, 0, 0, np_backends, "", 1, "uv", 0},
    {"io-threads", NP_MATRIX_OPT_INT, 1, 256, NULL, "t", 0, "1", 0},
    {"work", NP_MATRIX_OPT_INT, 0, 1e9, NULL, "k", 0, "0", 0},
    {"warmup", NP_MATRIX_OPT_NUM, 0, 3600, NULL, "wu", 0, "0.25", 0},
    {"seconds", NP_MATRIX_OPT_NUM, 0.001, 86400, NULL, "s", 0, "1", 0},
    {"udp-send-buffer", NP_MATRIX_OPT_INT, 1, 2147483647.0, NULL, "sb", 0,
     "65536", 1},
    {"udp-receive-buffer", NP_MATRIX_OPT_INT, 1, 2147483647.0, NULL, "rb", 0,
     "4194304", 1},
    {"udp-server-receive-buffer", NP_MATRIX_OPT_INT, 1, 2147483647.0, NULL,
     "srb", 0, NULL, 1},
    {"address", NP_MATRIX_OPT_STR, 0, 0, NULL, "", 0, "127.0.0.1", 0},
    {"seed", NP_MATRIX_OPT_INT, 0, 9007199254740991.0, NULL, "seed", 0, NULL,
     0},
};

/* `netproof-bench rudp` (docs/rudp.md, bench/rudp/np_rudp_config.c and the
 * relay's np_relay_options.c).  Ranges are the CLI's; test
 * matrix_rudp_options checks this table against the command's --help and
 * parser, so the two cannot drift apart silently.  --profile comes before
 * the relay's impairment options: the CLI applies options in order, and a
 * profile resets the impairments it sets.  Canonical id order: p, c, w,
 * io-model, t, fec, cc, profile, then the rest. */
static const char *const np_rudp_io_models[] = {"single", "pool", NULL};
static const char *const np_rudp_fec[] = {"none", "fixed", "adaptive", NULL};
static const char *const np_rudp_cc[] = {"bbr", "newreno", "none", NULL};
static const char *const np_rudp_profiles[] = {"none", "random", "burst",
                                               "sustained", NULL};
#define NP_U32 4294967295.0
static const struct np_matrix_option np_rudp_options[] = {
    {"payload", NP_MATRIX_OPT_INT, 1, 1048576, NULL, "p", 1, "1024", 0},
    {"clients", NP_MATRIX_OPT_INT, 1, 256, NULL, "c", 1, "4", 0},
    {"window", NP_MATRIX_OPT_INT, 1, 4096, NULL, "w", 1, "16", 0},
    {"io-model", NP_MATRIX_OPT_STR, 0, 0, np_rudp_io_models, "", 1, "single",
     0},
    {"io-threads", NP_MATRIX_OPT_INT, 1, 16, NULL, "t", 0, NULL, 0},
    {"fec", NP_MATRIX_OPT_STR, 0, 0, np_rudp_fec, "fec", 1, "none", 0},
    {"cc", NP_MATRIX_OPT_STR, 0, 0, np_rudp_cc, "", 1, "bbr", 0},
    {"profile", NP_MATRIX_OPT_STR, 0, 0, np_rudp_profiles, "", 1, "random", 0},
    {"fec-group", NP_MATRIX_OPT_INT, 1, 8, NULL, "fg", 0, "8", 0},
    {"fec-parity", NP_MATRIX_OPT_INT, 0, 4, NULL, "fp", 0, "2", 0},
    {"fec-wait-ms", NP_MATRIX_OPT_NUM, 0.001, 1000, NULL, "fwait", 0, "2", 0},
    {"fec-budget-bytes", NP_MATRIX_OPT_INT, 131072, 4294967296.0, NULL, "fb",
     0, "1048576", 1},
    {"fec-ratio-percent", NP_MATRIX_OPT_INT, 1, 400, NULL, "fr", 0, "50", 0},
    {"fec-target", NP_MATRIX_OPT_NUM, 0.000001, 0.5, NULL, "ftarget", 0,
     "0.02", 0},
    {"fec-min-parity", NP_MATRIX_OPT_INT, 0, 4, NULL, "fmin", 0, "0", 0},
    {"fec-max-parity", NP_MATRIX_OPT_INT, 0, 4, NULL, "fmax", 0, "4", 0},
    {"fec-initial-parity", NP_MATRIX_OPT_INT, 0, 4, NULL, "finit", 0, "1", 0},
    {"mtu", NP_MATRIX_OPT_INT, 64, 65507, NULL, "mtu", 0, "1200", 0},
    {"min-rto-ms", NP_MATRIX_OPT_NUM, 0.001, 60000, NULL, "rto", 0, "100", 0},
    /* "auto" or milliseconds 0..60000, written as a string ("25") */
    {"reo-wnd-max-ms", NP_MATRIX_OPT_STR, 0, 0, NULL, "reo", 0, "auto", 0},
    {"loss-percent", NP_MATRIX_OPT_NUM, 0, 100, NULL, "loss", 0, NULL, 0},
    {"delay-ms", NP_MATRIX_OPT_NUM, 0, 60000, NULL, "d", 0, NULL, 0},
    {"jitter-ms", NP_MATRIX_OPT_NUM, 0, 60000, NULL, "j", 0, NULL, 0},
    {"duplicate-percent", NP_MATRIX_OPT_NUM, 0, 100, NULL, "dup", 0, NULL, 0},
    {"reorder-percent", NP_MATRIX_OPT_NUM, 0, 100, NULL, "ro", 0, NULL, 0},
    {"reorder-delay-ms", NP_MATRIX_OPT_NUM, 0, 60000, NULL, "rod", 0, NULL, 0},
    {"burst-loss", NP_MATRIX_OPT_STR, 0, 0, NULL, "bl", 0, NULL, 0},
    {"ge-p", NP_MATRIX_OPT_NUM, 0, 100, NULL, "gep", 0, NULL, 0},
    {"ge-r", NP_MATRIX_OPT_NUM, 0, 100, NULL, "ger", 0, NULL, 0},
    {"ge-1-h", NP_MATRIX_OPT_NUM, 0, 100, NULL, "geh", 0, NULL, 0},
    {"ge-1-k", NP_MATRIX_OPT_NUM, 0, 100, NULL, "gek", 0, NULL, 0},
    {"rate-bytes", NP_MATRIX_OPT_INT, 0, 9007199254740991.0, NULL, "rate", 0,
     NULL, 1},
    {"relay-capacity-bytes", NP_MATRIX_OPT_INT, 0, 9007199254740991.0, NULL,
     "rcb", 0, NULL, 1},
    {"relay-capacity-packets", NP_MATRIX_OPT_INT, 0, NP_U32, NULL, "rcp", 0,
     NULL, 0},
    {"relay-spin-us", NP_MATRIX_OPT_INT, 0, 10000, NULL, "spin", 0, NULL, 0},
    {"socket-buffer", NP_MATRIX_OPT_INT, 4096, 2147483647.0, NULL, "sb", 0,
     "4194304", 1},
    {"warmup", NP_MATRIX_OPT_NUM, 0, 600, NULL, "wu", 0, "2", 0},
    {"seconds", NP_MATRIX_OPT_NUM, 0.001, 3600, NULL, "s", 0, "3", 0},
    {"rounds", NP_MATRIX_OPT_INT, 1, 100, NULL, "r", 0, "3", 0},
    {"seed", NP_MATRIX_OPT_INT, 0, 9007199254740991.0, NULL, "seed", 0, "42",
     0},
};

const struct np_matrix_option *np_matrix_options_for(const char *protocol,
                                                     size_t *n) {
  if (protocol != NULL && strcmp(protocol, "udp") == 0) {
    *n = sizeof np_udp_options / sizeof np_udp_options[0];
    return np_udp_options;
  }
  if (protocol != NULL && strcmp(protocol, "rudp") == 0) {
    *n = sizeof np_rudp_options / sizeof np_rudp_options[0];
    return np_rudp_options;
  }
  *n = 0;
  return NULL;
}

int np_matrix_option_index(const struct np_matrix_option *tab, size_t n,
                           const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(tab[i].name, name) == 0)
      return (int)i;
  return -1;
}

int np_matrix_option_check(const struct np_matrix_option *o, const cJSON *v,
                           char *why, size_t whylen) {
  if (o->type == NP_MATRIX_OPT_STR) {
    if (!cJSON_IsString(v)) {
      snprintf(why, whylen, "expected a string");
      return -1;
    }
    if (o->choices == NULL) {
      if (v->valuestring[0] == '\0') {
        snprintf(why, whylen, "expected a non-empty string");
        return -1;
      }
      return 0;
    }
    for (size_t i = 0; o->choices[i] != NULL; i++)
      if (strcmp(o->choices[i], v->valuestring) == 0)
        return 0;
    size_t off = (size_t)snprintf(why, whylen, "expected one of");
    for (size_t i = 0; o->choices[i] != NULL && off < whylen; i++)
      off += (size_t)snprintf(why + off, whylen - off, "%s%s",
                              i ? "|" : " ", o->choices[i]);
    return -1;
  }
  int is_int = o->type == NP_MATRIX_OPT_INT;
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
      (is_int && v->valuedouble != floor(v->valuedouble)) ||
      v->valuedouble < o->min || v->valuedouble > o->max) {
    snprintf(why, whylen, "expected %s in %.15g..%.15g",
             is_int ? "an integer" : "a number", o->min, o->max);
    return -1;
  }
  return 0;
}

void np_matrix_option_text(const cJSON *v, char *buf, size_t len) {
  if (cJSON_IsString(v)) {
    snprintf(buf, len, "%s", v->valuestring);
  } else if (cJSON_IsNumber(v)) {
    double d = v->valuedouble;
    if (d == floor(d) && fabs(d) < 9007199254740992.0)
      snprintf(buf, len, "%.0f", d);
    else
      snprintf(buf, len, "%.15g", d);
  } else {
    snprintf(buf, len, "?");
  }
}
