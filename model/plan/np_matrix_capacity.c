/*
 * np_matrix_capacity.c - "rate-fraction" configurations of a udp plan
 * (see np_matrix_capacity.h): checked and given a stand-in --rate when
 * the plan loads, resolved from the capacity configuration's records
 * when they run.
 */
#include "np_matrix_capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_stats.h"
#include "np_udp_options.h"

/* --rate's maximum, from the one table that defines the option. */
static double rate_max(void) {
  for (size_t i = 0; i < NP_UDP_LOAD_NOPTS; i++)
    if (strcmp(np_udp_load_opts[i].name, "rate") == 0)
      return np_udp_load_opts[i].max;
  return 0;
}

int np_matrix_capacity_name(const cJSON *plan, const char *protocol,
                            const char *name) {
  return strcmp(name, NP_MATRIX_RATE_FRACTION) == 0 && protocol &&
         strcmp(protocol, "udp") == 0 &&
         cJSON_HasObjectItem(plan, "capacity");
}

int np_matrix_capacity_value_ok(const cJSON *v, char *r, size_t len) {
  if (cJSON_IsNumber(v) && v->valuedouble > 0 &&
      v->valuedouble <= NP_MATRIX_RATE_FRACTION_MAX)
    return 1;
  snprintf(r, len, "%s: a fraction of the capacity in (0, %g] expected",
           NP_MATRIX_RATE_FRACTION, NP_MATRIX_RATE_FRACTION_MAX);
  return 0;
}

int np_matrix_capacity_config(const cJSON *r, struct np_matrix_config *cf,
                              struct np_errbuf *eb) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(r, NP_MATRIX_RATE_FRACTION);
  if (f == NULL)
    return 0;
  if (cJSON_HasObjectItem(r, "rate"))
    return np_errbuf_set(eb, NP_ESCHEMA,
                         "%s: give \"rate\" or \"%s\", not both", cf->id,
                         NP_MATRIX_RATE_FRACTION);
  char text[32];
  snprintf(text, sizeof text, "%.15g", f->valuedouble);
  cf->rate_fraction = f->valuedouble;
  cf->rate_arg = cf->argc + 1;
  cf->argv[cf->argc] = strdup("--rate");
  cf->argv[cf->argc + 1] = strdup("1");
  cf->argc += 2;
  size_t used = strlen(cf->id);
  snprintf(cf->id + used, sizeof cf->id - used, "-rf%s", text);
  cJSON *copy = cJSON_CreateNumber(f->valuedouble);
  if (!cf->argv[cf->argc - 2] || !cf->argv[cf->argc - 1] || copy == NULL ||
      !cJSON_AddItemToObject(cf->options, NP_MATRIX_RATE_FRACTION, copy)) {
    cJSON_Delete(copy);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  return 0;
}

int np_matrix_capacity_placeholder(struct np_matrix_config *cf,
                                   struct np_errbuf *eb) {
  if (cf->rate_fraction <= 0)
    return 0;
  char text[64];
  snprintf(text, sizeof text, "{%.15g x capacity}", cf->rate_fraction);
  char *t = strdup(text);
  if (t == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  free(cf->argv[cf->rate_arg]);
  cf->argv[cf->rate_arg] = t;
  return 0;
}

int np_matrix_capacity_rate_text(double fraction, const double *caps,
                                 size_t n, char *buf, size_t len,
                                 double *capacity) {
  double med = 0;
  if (n == 0 || np_stats_median(caps, n, &med) != 0)
    return NP_ECHECK;
  double rate = fmax(1.0, round(fraction * med));
  if (!(rate <= rate_max())) /* the option's maximum: refused, not clamped */
    return NP_ERANGE;
  snprintf(buf, len, "%.0f", rate);
  if (capacity)
    *capacity = med;
  return 0;
}

/* The capacity configuration's passed repetitions' round trips/s. */
static size_t capacity_values(const struct np_matrix_plan *p,
                              const struct np_matrix_config *ref,
                              const char *out_dir, double *v) {
  size_t n = 0;
  for (int k = 1; k <= p->repetitions; k++) {
    char path[1200];
    cJSON *d = NULL;
    snprintf(path, sizeof path, "%s/runs/%s/rep-%d.json", out_dir, ref->id,
             k);
    if (np_json_load_file(path, NULL, &d, NULL) != 0)
      continue;
    const cJSON *rps = np_json_pointer(d, "/measurement/roundtrips_per_sec");
    if (strcmp(np_json_get_string(d, "status", ""), "passed") == 0 &&
        cJSON_IsNumber(rps) && rps->valuedouble > 0)
      v[n++] = rps->valuedouble;
    cJSON_Delete(d);
  }
  return n;
}

int np_matrix_capacity_resolve(const struct np_matrix_plan *p, size_t i,
                               const char *out_dir, FILE *log,
                               struct np_errbuf *eb) {
  struct np_matrix_config *cf = &p->configs[i];
  if (cf->rate_fraction <= 0)
    return 0;
  const struct np_matrix_config *ref = &p->configs[p->capacity_ref];
  double *v = calloc((size_t)p->repetitions, sizeof *v), cap = 0;
  if (v == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  size_t n = capacity_values(p, ref, out_dir, v);
  char text[32];
  int rc = np_matrix_capacity_rate_text(cf->rate_fraction, v, n, text,
                                        sizeof text, &cap);
  if (rc == NP_ERANGE && np_stats_median(v, n, &cap) != 0)
    cap = NAN;
  free(v);
  if (rc == NP_ERANGE)
    return np_errbuf_set(eb, NP_ERANGE,
                         "%s: rate-fraction %g x capacity %.0f round trips/s "
                         "(%s) is above --rate's maximum %.0f/s",
                         cf->id, cf->rate_fraction, cap, ref->id, rate_max());
  if (rc)
    return np_errbuf_set(eb, NP_ECHECK,
                         "capacity: configuration %s has no passed "
                         "repetition, so its rate fractions cannot run",
                         ref->id);
  char *t = strdup(text);
  if (t == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  free(cf->argv[cf->rate_arg]);
  cf->argv[cf->rate_arg] = t;
  if (log)
    fprintf(log,
            "netproof-bench matrix: %s: --rate %s = %g x capacity %.0f round "
            "trips/s (median of %zu passed repetitions of %s)\n",
            cf->id, text, cf->rate_fraction, cap, n, ref->id);
  return 0;
}
