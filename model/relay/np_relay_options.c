/*
 * np_relay_options.c - relay configuration: the reference's profiles, the
 * option table (np_relay_impair_opts and np_relay_optset, shared with the
 * rudp command, its --help and the matrix), validation, JSON.
 *
 * Every option applies to both directions (the reference configures its
 * links symmetrically); library users may set cfg->dir[d] individually.
 */
#include "np_relay_config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_NS 1000000.0
#define RC struct np_relay_config
#define IM struct np_relay_impair

const char *const np_relay_profile_names[] = {"none", "random", "burst",
                                              "sustained", NULL};

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

int np_relay_opt_profile(void *sec, const struct np_bench_opt *o,
                         const struct np_bench_val *v, struct np_errbuf *eb) {
  (void)o;
  return np_relay_profile_apply(sec, np_relay_profile_names[v->u], eb);
}

/* The row's field (offset into struct np_relay_impair) in both directions. */
static int set_both(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v, struct np_errbuf *eb) {
  RC *cfg = sec;
  int rc = 0;
  for (int d = 0; d < NP_RELAY_DIRS && rc == 0; d++)
    rc = np_bench_opt_put(o, &cfg->dir[d], v, eb);
  return rc;
}

/* Milliseconds into the row's uint64_t nanosecond field, both directions. */
static int set_both_ms(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  RC *cfg = sec;
  uint64_t ns = (uint64_t)llround(v->d * MS_NS);
  if (o->size != sizeof ns)
    return np_errbuf_set(eb, NP_EINVAL, "--%s: not a nanosecond field",
                         o->name);
  for (int d = 0; d < NP_RELAY_DIRS; d++)
    memcpy((char *)&cfg->dir[d] + o->offset, &ns, sizeof ns);
  return 0;
}

/* --ge-*: the Gilbert-Elliott model on (tc's defaults for what is not
 * given: r = 100 - p, 1-h = 100, 1-k = 0), then the row's field. */
static int set_ge(void *sec, const struct np_bench_opt *o,
                  const struct np_bench_val *v, struct np_errbuf *eb) {
  RC *cfg = sec;
  for (int d = 0; d < NP_RELAY_DIRS; d++) {
    IM *im = &cfg->dir[d];
    if (!im->ge_enabled) {
      im->ge_enabled = 1;
      im->ge_p = 0;
      im->ge_r = 100;
      im->ge_1h = 100;
      im->ge_1k = 0;
    }
    if (o->offset == offsetof(IM, ge_p))
      im->ge_r = 100 - v->d;
  }
  return set_both(sec, o, v, eb);
}

static int set_burst(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  RC *cfg = sec;
  const char *value = v->text;
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
  for (int d = 0; d < NP_RELAY_DIRS; d++) {
    cfg->dir[d].burst_n = (uint32_t)a;
    cfg->dir[d].burst_m = (uint32_t)b;
  }
  return 0;
bad:
  return np_errbuf_set(eb, NP_EUSAGE,
                       "--%s '%s': expected N/M with 0 <= N <= M", o->name,
                       value);
}

static int set_spin(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v, struct np_errbuf *eb) {
  (void)o;
  (void)eb;
  ((RC *)sec)->timer_spin_ns = v->u * 1000u;
  return 0;
}

#define PCT(nm, field, what, tg, setter)                                     \
  {.name = nm, .type = NP_BENCH_OPT_NUM, .min = 0, .max = 100, .unit = "%", \
   .metavar = "P", .help = what, NP_BENCH_AT(IM, field), .set = setter,     \
   .tag = tg}
#define MSEC(nm, field, what, tg)                                            \
  {.name = nm, .type = NP_BENCH_OPT_NUM, .min = 0, .max = 60000,            \
   .unit = "ms", .metavar = "MS", .help = what, NP_BENCH_AT(IM, field),     \
   .set = set_both_ms, .tag = tg}

/* Canonical order (argv and id parts): loss, delay, jitter, duplication,
 * reordering, burst, Gilbert-Elliott, rate, capacity, timer.  Defaults of
 * the impairments come from --profile. */
const struct np_bench_opt np_relay_impair_opts[NP_RELAY_IMPAIR_NOPTS] = {
    PCT("loss-percent", loss_pct, "random loss, after burst and GE models",
        "loss", set_both),
    MSEC("delay-ms", delay_ns, "one-way delay D", "d"),
    MSEC("jitter-ms", jitter_ns, "uniform jitter J: delay in [D-J, D+J)",
         "j"),
    PCT("duplicate-percent", dup_pct, "duplication", "dup", set_both),
    PCT("reorder-percent", reorder_pct,
        "packets given --reorder-delay-ms extra", "ro", set_both),
    MSEC("reorder-delay-ms", reorder_delay_ns, "the reordering extra delay",
         "rod"),
    {.name = "burst-loss", .type = NP_BENCH_OPT_STR, .metavar = "N/M",
     .range_text = "0 <= N <= M",
     .help = "burst loss: N consecutive packets in every M",
     NP_BENCH_AT(IM, burst_n), .set = set_burst, .tag = "bl"},
    PCT("ge-p", ge_p, "Gilbert-Elliott: GOOD -> BAD per packet", "gep",
        set_ge),
    PCT("ge-r", ge_r, "Gilbert-Elliott: BAD -> GOOD per packet", "ger",
        set_ge),
    PCT("ge-1-h", ge_1h, "Gilbert-Elliott: loss while BAD", "geh", set_ge),
    PCT("ge-1-k", ge_1k, "Gilbert-Elliott: loss while GOOD", "gek", set_ge),
    {.name = "rate-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 0,
     .umax = UINT64_MAX, .unit = "bytes/s", .metavar = "B",
     .help = "link rate per direction, 0 = unlimited",
     NP_BENCH_AT(IM, rate_bytes), .set = set_both, .tag = "rate"},
    {.name = "relay-capacity-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 0,
     .umax = 1ull << 30, .dflt = "8388608", .metavar = "B",
     .help = "queue capacity per route, 0 = the 64 MiB ceiling",
     NP_BENCH_AT(RC, capacity_bytes), .tag = "rcb"},
    {.name = "relay-capacity-packets", .type = NP_BENCH_OPT_UINT, .umin = 0,
     .umax = 1u << 20, .dflt = "8192",
     .help = "queue capacity per route in packets, 0 = the 65,536 ceiling",
     NP_BENCH_AT(RC, capacity_packets), .tag = "rcp"},
    {.name = "relay-spin-us", .type = NP_BENCH_OPT_UINT, .umin = 0,
     .umax = 10000, .dflt = "200", .unit = "us", .metavar = "U",
     .help = "wake this early and spin to each release",
     NP_BENCH_AT(RC, timer_spin_ns), .set = set_spin, .tag = "spin"},
};

const struct np_bench_opt np_relay_profile_opts[1] = {
    {.name = "profile", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_relay_profile_names, .dflt = "none",
     .help = "the reference's link profile, applied before the rest",
     NP_BENCH_AT(RC, profile), .set = np_relay_opt_profile, .tag = "",
     .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_FIRST},
};

const struct np_bench_opt np_relay_seed_opts[1] = {
    {.name = "seed", .type = NP_BENCH_OPT_UINT, .umin = 0, .umax = UINT64_MAX,
     .dflt = "42", .help = "root of every impairment's random stream",
     NP_BENCH_AT(RC, seed), .tag = "seed"},
};

static const struct np_bench_opt_section relay_sections[] = {
    {NULL, np_relay_profile_opts, 1, 0},
    {NULL, np_relay_impair_opts, NP_RELAY_IMPAIR_NOPTS, 0},
    {NULL, np_relay_seed_opts, 1, 0},
};

static void relay_init(void *cfg) { memset(cfg, 0, sizeof(RC)); }

static int relay_validate(void *cfg, const struct np_bench_given *g,
                          struct np_errbuf *eb) {
  (void)g;
  return np_relay_config_validate(cfg, eb);
}

const struct np_bench_optset np_relay_optset = {
    .command = "relay",
    .summary = "The link emulator's own options: loss, delay, duplication, "
               "reordering,\nrate and capacity on every route, both "
               "directions.\n",
    .doc = "docs/relay.md",
    .sections = relay_sections,
    .nsections = sizeof relay_sections / sizeof relay_sections[0],
    .cfg_size = sizeof(RC),
    .init = relay_init,
    .validate = relay_validate,
};

void np_relay_config_init(struct np_relay_config *cfg) {
  /* the table's defaults are valid (tests/relay/test_relay_options.c);
   * memset first keeps cfg defined if they ever were not */
  memset(cfg, 0, sizeof(*cfg));
  (void)np_bench_opt_defaults(&np_relay_optset, cfg, NULL);
}

int np_relay_option_known(const char *name) {
  return np_bench_opt_find(&np_relay_optset, name) >= 0;
}

int np_relay_option_set(struct np_relay_config *cfg, const char *name,
                        const char *value, struct np_errbuf *eb) {
  int k = np_bench_opt_find(&np_relay_optset, name);
  if (k < 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: unknown relay option",
                         strncmp(name, "--", 2) == 0 ? name + 2 : name);
  return np_bench_opt_apply(&np_relay_optset, cfg, 1, &k, &value, NULL, eb);
}

int np_relay_options_parse(struct np_relay_config *cfg, size_t n,
                           const char *const *names, const char *const *values,
                           struct np_errbuf *eb) {
  int *idx = n ? malloc(n * sizeof *idx) : NULL;
  int rc = 0;
  if (n && idx == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  for (size_t i = 0; i < n && rc == 0; i++)
    if ((idx[i] = np_bench_opt_find(&np_relay_optset, names[i])) < 0)
      rc = np_errbuf_set(eb, NP_EUSAGE, "--%s: unknown relay option",
                         strncmp(names[i], "--", 2) == 0 ? names[i] + 2
                                                         : names[i]);
  if (rc == 0)
    rc = np_bench_opt_apply(&np_relay_optset, cfg, n, idx, values, NULL, eb);
  free(idx);
  return rc ? rc : np_relay_config_validate(cfg, eb);
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

uint64_t np_relay_counts_errors(const struct np_relay_counts *c) {
  return c->recv_errors + c->send_errors + c->truncated;
}
