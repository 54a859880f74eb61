/*
 * np_relay_options.c - relay configuration: defaults, the reference's
 * profiles, option parsing shared with the rudp CLI, validation, JSON.
 *
 * Every option applies to both directions (the reference configures its
 * links symmetrically); library users may set cfg->dir[d] individually.
 */
#include "np_relay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_NS 1000000.0

void np_relay_config_init(struct np_relay_config *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  strcpy(cfg->profile, "none");
  cfg->seed = NP_RELAY_DEFAULT_SEED;
  cfg->capacity_bytes = NP_RELAY_DEFAULT_CAPACITY_BYTES;
  cfg->capacity_packets = NP_RELAY_DEFAULT_CAPACITY_PACKETS;
  cfg->timer_spin_ns = NP_RELAY_DEFAULT_SPIN_NS;
}

int np_relay_profile_apply(struct np_relay_config *cfg, const char *name,
                           struct np_errbuf *eb) {
  struct np_relay_impair im;
  memset(&im, 0, sizeof(im));
  if (strcmp(name, "none") == 0) {
    /* nothing */
  } else if (strcmp(name, "random") == 0 || strcmp(name, "burst") == 0 ||
             strcmp(name, "sustained") == 0) {
    im.delay_ns = (uint64_t)(10 * MS_NS);
    im.dup_pct = 1.0;
    im.reorder_pct = 5.0;
    im.reorder_delay_ns = (uint64_t)(15 * MS_NS);
    if (strcmp(name, "random") == 0) {
      im.loss_pct = 5.0;
    } else {
      im.burst_n = 3;
      im.burst_m = 100;
      if (strcmp(name, "sustained") == 0)
        im.loss_pct = 2.0;
    }
  } else {
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--profile: unknown profile '%s' (none, random, "
                         "burst, sustained)", name);
  }
  cfg->dir[NP_RELAY_C2S] = im;
  cfg->dir[NP_RELAY_S2C] = im;
  snprintf(cfg->profile, sizeof(cfg->profile), "%s", name);
  return 0;
}

static const char *const option_names[] = {
    "profile",         "loss-percent",         "delay-ms",
    "jitter-ms",       "duplicate-percent",    "reorder-percent",
    "reorder-delay-ms", "burst-loss",          "ge-p",
    "ge-r",            "ge-1-h",               "ge-1-k",
    "rate-bytes",      "relay-capacity-bytes", "relay-capacity-packets",
    "seed",            "relay-spin-us"};

static const char *strip_dashes(const char *name) {
  return strncmp(name, "--", 2) == 0 ? name + 2 : name;
}

int np_relay_option_known(const char *name) {
  const char *n = strip_dashes(name);
  for (size_t i = 0; i < sizeof(option_names) / sizeof(option_names[0]); i++)
    if (strcmp(n, option_names[i]) == 0)
      return 1;
  return 0;
}

static int parse_double(const char *name, const char *value, double lo,
                        double hi, double *out, struct np_errbuf *eb) {
  char *end = NULL;
  errno = 0;
  double v = strtod(value, &end);
  if (value[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: '%s' is not a number", name,
                         value);
  if (v < lo || v > hi)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: %s is outside %g..%g", name,
                         value, lo, hi);
  *out = v;
  return 0;
}

static int parse_u64(const char *name, const char *value, uint64_t *out,
                     struct np_errbuf *eb) {
  char *end = NULL;
  errno = 0;
  if (value[0] < '0' || value[0] > '9')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s: '%s' is not a non-negative integer", name,
                         value);
  unsigned long long v = strtoull(value, &end, 10);
  if (*end != '\0' || errno != 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s: '%s' is not a non-negative integer", name,
                         value);
  *out = (uint64_t)v;
  return 0;
}

static int parse_burst(const char *value, uint32_t *n, uint32_t *m,
                       struct np_errbuf *eb) {
  unsigned long a, b;
  char *end = NULL;
  errno = 0;
  if (value[0] < '0' || value[0] > '9')
    goto bad;
  a = strtoul(value, &end, 10);
  if (errno != 0 || *end != '/' || end[1] < '0' || end[1] > '9')
    goto bad;
  b = strtoul(end + 1, &end, 10);
  if (errno != 0 || *end != '\0' || a > b || b > 1000000000ul ||
      (a > 0 && b == 0))
    goto bad;
  *n = (uint32_t)a;
  *m = (uint32_t)b;
  return 0;
bad:
  return np_errbuf_set(eb, NP_EUSAGE,
                       "--burst-loss: '%s' is not N/M with 0 <= N <= M", value);
}

/* Apply f to both directions. */
#define BOTH(stmt)                                                          \
  do {                                                                      \
    for (int d_ = 0; d_ < NP_RELAY_DIRS; d_++) {                            \
      struct np_relay_impair *im = &cfg->dir[d_];                           \
      stmt;                                                                 \
    }                                                                       \
  } while (0)

static void ge_enable(struct np_relay_config *cfg) {
  BOTH(if (!im->ge_enabled) {
    im->ge_enabled = 1;
    im->ge_p = 0;
    im->ge_r = 100;
    im->ge_1h = 100;
    im->ge_1k = 0;
  });
}

int np_relay_option_set(struct np_relay_config *cfg, const char *name,
                        const char *value, struct np_errbuf *eb) {
  const char *n = strip_dashes(name);
  double d = 0;
  uint64_t u = 0;
  int rc = 0;
  if (value == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: missing value", n);

  if (strcmp(n, "profile") == 0)
    return np_relay_profile_apply(cfg, value, eb);
  if (strcmp(n, "seed") == 0) {
    if ((rc = parse_u64(n, value, &u, eb)) == 0)
      cfg->seed = u;
    return rc;
  }
  if (strcmp(n, "relay-capacity-bytes") == 0) {
    if ((rc = parse_u64(n, value, &u, eb)) == 0)
      cfg->capacity_bytes = u;
    return rc;
  }
  if (strcmp(n, "relay-capacity-packets") == 0) {
    if ((rc = parse_u64(n, value, &u, eb)) == 0)
      cfg->capacity_packets = u;
    return rc;
  }
  if (strcmp(n, "relay-spin-us") == 0) {
    if ((rc = parse_u64(n, value, &u, eb)) == 0 && u > 10000)
      rc = np_errbuf_set(eb, NP_EUSAGE, "--%s: %s is outside 0..10000", n,
                         value);
    if (rc == 0)
      cfg->timer_spin_ns = u * 1000u;
    return rc;
  }
  if (strcmp(n, "rate-bytes") == 0) {
    if ((rc = parse_u64(n, value, &u, eb)) == 0)
      BOTH(im->rate_bytes = u);
    return rc;
  }
  if (strcmp(n, "burst-loss") == 0) {
    uint32_t bn = 0, bm = 0;
    if ((rc = parse_burst(value, &bn, &bm, eb)) == 0)
      BOTH(im->burst_n = bn; im->burst_m = bm);
    return rc;
  }
  int is_ms = strcmp(n, "delay-ms") == 0 || strcmp(n, "jitter-ms") == 0 ||
              strcmp(n, "reorder-delay-ms") == 0;
  if (is_ms) {
    if ((rc = parse_double(n, value, 0, 60000, &d, eb)) != 0)
      return rc;
    uint64_t ns = (uint64_t)llround(d * MS_NS);
    if (strcmp(n, "delay-ms") == 0)
      BOTH(im->delay_ns = ns);
    else if (strcmp(n, "jitter-ms") == 0)
      BOTH(im->jitter_ns = ns);
    else
      BOTH(im->reorder_delay_ns = ns);
    return 0;
  }
  if (!np_relay_option_known(n))
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: unknown relay option", n);
  if ((rc = parse_double(n, value, 0, 100, &d, eb)) != 0)
    return rc;
  if (strcmp(n, "loss-percent") == 0) {
    BOTH(im->loss_pct = d);
  } else if (strcmp(n, "duplicate-percent") == 0) {
    BOTH(im->dup_pct = d);
  } else if (strcmp(n, "reorder-percent") == 0) {
    BOTH(im->reorder_pct = d);
  } else {
    ge_enable(cfg);
    if (strcmp(n, "ge-p") == 0)
      BOTH(im->ge_p = d; im->ge_r = 100 - d);
    else if (strcmp(n, "ge-r") == 0)
      BOTH(im->ge_r = d);
    else if (strcmp(n, "ge-1-h") == 0)
      BOTH(im->ge_1h = d);
    else
      BOTH(im->ge_1k = d);
  }
  return 0;
}

int np_relay_options_parse(struct np_relay_config *cfg, size_t n,
                           const char *const *names, const char *const *values,
                           struct np_errbuf *eb) {
  int rc;
  for (size_t i = 0; i < n; i++)
    if (strcmp(strip_dashes(names[i]), "profile") == 0 &&
        (rc = np_relay_option_set(cfg, names[i], values[i], eb)) != 0)
      return rc;
  for (size_t i = 0; i < n; i++)
    if (strcmp(strip_dashes(names[i]), "profile") != 0 &&
        (rc = np_relay_option_set(cfg, names[i], values[i], eb)) != 0)
      return rc;
  return np_relay_config_validate(cfg, eb);
}

static int pct_ok(double v) { return isfinite(v) && v >= 0 && v <= 100; }

int np_relay_config_validate(const struct np_relay_config *cfg,
                             struct np_errbuf *eb) {
  static const char *const dname[] = {"c2s", "s2c"};
  for (int d = 0; d < NP_RELAY_DIRS; d++) {
    const struct np_relay_impair *im = &cfg->dir[d];
    if (!pct_ok(im->loss_pct) || !pct_ok(im->dup_pct) ||
        !pct_ok(im->reorder_pct) || !pct_ok(im->ge_p) || !pct_ok(im->ge_r) ||
        !pct_ok(im->ge_1h) || !pct_ok(im->ge_1k))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "relay %s: a percentage is outside 0..100",
                           dname[d]);
    if (im->burst_n > im->burst_m || (im->burst_n > 0 && im->burst_m == 0))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "relay %s: burst loss N/M needs N <= M", dname[d]);
  }
  return 0;
}

static cJSON *impair_json(const struct np_relay_impair *im) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddNumberToObject(o, "loss_percent", im->loss_pct);
  cJSON_AddNumberToObject(o, "burst_loss_n", im->burst_n);
  cJSON_AddNumberToObject(o, "burst_loss_m", im->burst_m);
  cJSON_AddBoolToObject(o, "ge_enabled", im->ge_enabled);
  cJSON_AddNumberToObject(o, "ge_p_percent", im->ge_p);
  cJSON_AddNumberToObject(o, "ge_r_percent", im->ge_r);
  cJSON_AddNumberToObject(o, "ge_1_h_percent", im->ge_1h);
  cJSON_AddNumberToObject(o, "ge_1_k_percent", im->ge_1k);
  cJSON_AddNumberToObject(o, "delay_ms", (double)im->delay_ns / MS_NS);
  cJSON_AddNumberToObject(o, "jitter_ms", (double)im->jitter_ns / MS_NS);
  cJSON_AddNumberToObject(o, "duplicate_percent", im->dup_pct);
  cJSON_AddNumberToObject(o, "reorder_percent", im->reorder_pct);
  cJSON_AddNumberToObject(o, "reorder_delay_ms",
                          (double)im->reorder_delay_ns / MS_NS);
  cJSON_AddNumberToObject(o, "rate_bytes_per_s", (double)im->rate_bytes);
  return o;
}

cJSON *np_relay_config_json(const struct np_relay_config *cfg) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "profile", cfg->profile);
  cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
  cJSON_AddNumberToObject(o, "capacity_bytes", (double)cfg->capacity_bytes);
  cJSON_AddNumberToObject(o, "capacity_packets",
                          (double)cfg->capacity_packets);
  cJSON_AddNumberToObject(o, "timer_spin_us",
                          (double)cfg->timer_spin_ns / 1000.0);
  cJSON *c2s = impair_json(&cfg->dir[NP_RELAY_C2S]);
  cJSON *s2c = impair_json(&cfg->dir[NP_RELAY_S2C]);
  if (c2s == NULL || s2c == NULL) {
    cJSON_Delete(c2s);
    cJSON_Delete(s2c);
    cJSON_Delete(o);
    return NULL;
  }
  cJSON_AddItemToObject(o, "c2s", c2s);
  cJSON_AddItemToObject(o, "s2c", s2c);
  return o;
}
