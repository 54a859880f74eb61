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

const struct np_matrix_option *np_matrix_options_for(const char *protocol,
                                                     size_t *n) {
  if (protocol != NULL && strcmp(protocol, "udp") == 0) {
    *n = sizeof np_udp_options / sizeof np_udp_options[0];
    return np_udp_options;
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
