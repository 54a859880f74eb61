/*
 * np_matrix_shard.c - the deterministic, time-balanced cut of a plan into
 * slices (see np_matrix_shard.h), and the slice a folder's suite.json
 * says it holds, read back within the same bounds as --shard K/N.
 */
#include "np_matrix_shard.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RULE                                                                   \
  "every configuration in exactly one slice: longest first (estimated "        \
  "seconds x repetitions, ties in plan order) to the slice with the least "    \
  "estimated time so far (ties: the lowest index); a pure function of the "    \
  "plan and N"

int np_matrix_shard_parse(const char *text, unsigned *k, unsigned *n,
                          struct np_errbuf *eb) {
  const char *slash = strchr(text, '/');
  char *end = NULL;
  if (slash == NULL || slash == text || text[0] == '-' || slash[1] == '-' ||
      slash[1] == '+' || text[0] == '+')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--shard '%s': expected K/N (0 <= K < N), e.g. 0/4",
                         text);
  errno = 0;
  unsigned long kk = strtoul(text, &end, 10);
  if (errno || end != slash)
    return np_errbuf_set(eb, NP_EUSAGE, "--shard '%s': K is not a number",
                         text);
  unsigned long nn = strtoul(slash + 1, &end, 10);
  if (errno || *end != '\0' || end == slash + 1)
    return np_errbuf_set(eb, NP_EUSAGE, "--shard '%s': N is not a number",
                         text);
  if (nn < 1 || nn > NP_MATRIX_SHARDS_MAX)
    return np_errbuf_set(eb, NP_EUSAGE, "--shard '%s': N out of range 1..%d",
                         text, NP_MATRIX_SHARDS_MAX);
  if (kk >= nn)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--shard '%s': K out of range 0..%lu (K counts from "
                         "0, as a Slurm array index or JOB_COMPLETION_INDEX)",
                         text, nn - 1);
  *k = (unsigned)kk;
  *n = (unsigned)nn;
  return 0;
}

/* One integer member of the shard object within lo..hi. */
static int read_int(const cJSON *shard, const char *name, double lo,
                    double hi, unsigned *out, struct np_errbuf *eb) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(shard, name);
  if (!cJSON_IsNumber(v))
    return np_errbuf_set(eb, NP_EUSAGE, "/shard/%s: %s, not an integer "
                         "%.0f..%.0f", name, v ? "not a number" : "missing",
                         lo, hi);
  double d = v->valuedouble;
  if (!(d >= lo && d <= hi) || d != floor(d))
    return np_errbuf_set(eb, NP_EUSAGE, "/shard/%s: %.17g, not an integer "
                         "%.0f..%.0f", name, d, lo, hi);
  *out = (unsigned)d;
  return 0;
}

int np_matrix_shard_read(const cJSON *shard, unsigned *k, unsigned *n,
                         struct np_errbuf *eb) {
  unsigned kk = 0, nn = 0;
  if (!cJSON_IsObject(shard))
    return np_errbuf_set(eb, NP_EUSAGE, "/shard: not an object");
  int rc = read_int(shard, "count", 1, NP_MATRIX_SHARDS_MAX, &nn, eb);
  if (rc == 0)
    rc = read_int(shard, "index", 0, (double)nn - 1, &kk, eb);
  if (rc)
    return rc;
  *k = kk;
  *n = nn;
  return 0;
}

struct item {
  size_t idx;  /* plan index  */
  double cost; /* est x reps  */
};

static int by_cost(const void *a, const void *b) {
  const struct item *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

int np_matrix_shard_assign(const struct np_matrix_plan *p, unsigned n,
                           unsigned *shard_of, double *est,
                           struct np_errbuf *eb) {
  if (n == 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--shard: 0 slices (N counts from "
                         "1)");
  if (n > p->nconfigs)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--shard: %u slices of a plan with %zu "
                         "configuration%s (a slice would be empty; use at "
                         "most %zu)",
                         n, p->nconfigs, p->nconfigs == 1 ? "" : "s",
                         p->nconfigs);
  struct item *it = calloc(p->nconfigs, sizeof *it);
  double *load = calloc(n, sizeof *load);
  if (it == NULL || load == NULL) {
    free(it);
    free(load);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < p->nconfigs; i++)
    it[i] = (struct item){i, p->configs[i].est_seconds * p->repetitions};
  qsort(it, p->nconfigs, sizeof *it, by_cost);
  for (size_t i = 0; i < p->nconfigs; i++) {
    unsigned best = 0;
    for (unsigned s = 1; s < n; s++)
      if (load[s] < load[best])
        best = s;
    shard_of[it[i].idx] = best;
    load[best] += it[i].cost;
  }
  if (est)
    memcpy(est, load, n * sizeof *load);
  free(it);
  free(load);
  return 0;
}

cJSON *np_matrix_shard_json(const struct np_matrix_plan *p, unsigned k,
                            unsigned n, struct np_errbuf *eb) {
  unsigned *of = calloc(p->nconfigs ? p->nconfigs : 1, sizeof *of);
  double *est = calloc(n, sizeof *est);
  cJSON *o = NULL;
  if (of == NULL || est == NULL) {
    np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup;
  }
  if (np_matrix_shard_assign(p, n, of, est, eb) != 0)
    goto cleanup;
  o = cJSON_CreateObject();
  cJSON *ids = o ? cJSON_CreateArray() : NULL;
  if (ids == NULL) {
    cJSON_Delete(o);
    o = NULL;
    np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup;
  }
  cJSON_AddNumberToObject(o, "index", k);
  cJSON_AddNumberToObject(o, "count", n);
  for (size_t i = 0; i < p->nconfigs; i++)
    if (of[i] == k)
      cJSON_AddItemToArray(ids, cJSON_CreateString(p->configs[i].id));
  cJSON_AddItemToObject(o, "configurations", ids);
  cJSON_AddNumberToObject(o, "estimated_seconds", est[k]);
  cJSON_AddStringToObject(o, "rule", RULE);
cleanup:
  free(of);
  free(est);
  return o;
}
