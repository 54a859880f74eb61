/*
 * np_matrix_summary.c - summary.json from a results folder on disk: each
 * repetition's record and the runner's kernel snapshots become its entry
 * (np_results_summary_rep), then the shared builder computes everything
 * (np_results_summary_build).  Only the file reading lives here.
 */
#include "np_matrix_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"
#include "np_json.h"
#include "np_kernel.h"
#include "np_ksnap.h"
#include "np_matrix_int.h"
#include "np_matrix_plan.h"
#include "np_results_stats.h"
#include "np_results_summary.h"

/* The runner's snapshot of rep-<n>: the one rep-<n>.cmd.txt refers to by
 * key (kernel-snapshots/<sha256>.txt), or a 0.2 set's rep-<n><suffix>;
 * NULL when absent or broken. */
static struct np_kernel *load_kernel(const struct np_matrix_rep *r,
                                     const char *key, const char *suffix) {
  char p[NP_MATRIX_PATH_MAX + 96], *buf = NULL, hex[NP_SHA256_HEX_SIZE];
  size_t len = 0;
  struct np_kernel *k = NULL;
  np_matrix__rep_file(r, ".cmd.txt", p, NP_MATRIX_PATH_MAX);
  if (np_file_read_all(p, 0, &buf, &len, NULL) == 0 &&
      np_ksnap_ref(buf, len, key, hex) == 0)
    snprintf(p, sizeof p, "%s/%s/%s.txt", r->out_dir, NP_KSNAP_DIR, hex);
  else
    np_matrix__rep_file(r, suffix, p, NP_MATRIX_PATH_MAX);
  free(buf);
  buf = NULL;
  if (np_file_read_all(p, 0, &buf, &len, NULL) == 0)
    np_kernel_parse_raw(buf, len, &k, NULL);
  free(buf);
  return k;
}

/* Repetition n of cf's entry (NULL on no memory). */
static cJSON *rep_entry(const char *dir, const struct np_matrix_plan *p,
                        const struct np_matrix_config *cf, int n) {
  struct np_matrix_rep r = {.cf = cf, .n = n};
  char path[NP_MATRIX_PATH_MAX];
  cJSON *rec = NULL;
  np_matrix__rep_paths(&r, dir);
  np_matrix__rep_file(&r, ".json", path, sizeof path);
  if (np_json_load_file(path, NULL, &rec, NULL) != 0)
    rec = NULL;
  struct np_kernel *kb = rec ? load_kernel(&r, NP_KSNAP_BEFORE, ".kernel-before.txt") : NULL;
  struct np_kernel *ka = rec ? load_kernel(&r, NP_KSNAP_AFTER, ".kernel-after.txt") : NULL;
  cJSON *e = np_results_summary_rep(p->protocol, n, rec, kb, ka);
  np_kernel_free(kb);
  np_kernel_free(ka);
  cJSON_Delete(rec);
  return e;
}

int np_matrix_summary_rps(const char *dir, const struct np_matrix_plan *p,
                          const struct np_matrix_config *cf, int n,
                          double *rps) {
  cJSON *e = rep_entry(dir, p, cf, n);
  if (e == NULL)
    return NP_ENOMEM;
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, "roundtrips_per_sec");
  int have = strcmp(np_json_get_string(e, "status", "missing"), "missing");
  *rps = have && cJSON_IsNumber(x) ? x->valuedouble : NAN;
  cJSON_Delete(e);
  return have != 0;
}

int np_matrix_ci_method(const char *dir) {
  char path[NP_MATRIX_PATH_MAX];
  cJSON *sum = NULL;
  struct np_errbuf eb = {{0}};
  snprintf(path, sizeof path, "%s/summary.json", dir);
  if (np_json_load_file(path, NULL, &sum, &eb) != 0)
    return NP_RESULTS_CI_NEW;
  int m = (int)np_results_ci_method_of(sum);
  cJSON_Delete(sum);
  return m;
}

int np_matrix_summarize(const char *dir, cJSON **out, struct np_errbuf *eb) {
  char path[NP_MATRIX_PATH_MAX];
  cJSON *suite = NULL, **entries = NULL;
  struct np_matrix_plan *p = NULL;
  snprintf(path, sizeof path, "%s/suite.json", dir);
  int rc = np_json_load_file(path, NULL, &suite, eb);
  if (rc != 0)
    return rc;
  rc = np_matrix_plan_from_json(cJSON_GetObjectItemCaseSensitive(suite, "plan"),
                                path, &p, eb);
  if (rc != 0)
    goto cleanup_suite;
  p->ci_method = np_matrix_ci_method(dir);
  size_t R = (size_t)p->repetitions, n = p->nconfigs * R;
  if ((entries = calloc(n ? n : 1, sizeof *entries)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_plan;
  }
  for (size_t i = 0; i < n; i++)
    if ((entries[i] = rep_entry(dir, p, &p->configs[i / R],
                                (int)(i % R) + 1)) == NULL) {
      for (size_t k = 0; k < i; k++)
        cJSON_Delete(entries[k]);
      rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      goto cleanup_entries;
    }
  rc = np_results_summary_build(p, entries, out, eb);
cleanup_entries:
  free(entries);
cleanup_plan:
  np_matrix_plan_free(p);
cleanup_suite:
  cJSON_Delete(suite);
  return rc;
}
