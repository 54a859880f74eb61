/*
 * np_results_selfcheck_ids.c - is every run one run, where it claims to be?
 *
 * A run's identity is its path, runs/<config-id>/rep-<n>.json.  Two files
 * can still claim one identity (rep-1.json and rep-01.json both parse as
 * repetition 1), one record can be copied under a second repetition
 * number (byte-different but equal as JSON), or a record can be moved
 * into another configuration's folder (its own config then contradicts
 * the folder's id, which encodes protocol, payload, clients, window, IO
 * model and backend; docs/results-layout.md).  Records carry no id of
 * their own, so the content checks compare what they do carry.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_selfcheck_int.h"

static void check_duplicate_ids(struct np_results_chk *c,
                                const struct np_results_set *s) {
  for (size_t i = 1; i < s->nruns; i++)
    if (strcmp(s->runs[i].id, s->runs[i - 1].id) == 0)
      np_results_problem(c, s->runs[i].file, "",
                         "duplicated run id %s (also %s)", s->runs[i].id,
                         s->runs[i - 1].file);
}

/* Equal records within one configuration: one run stored twice. */
static void check_copies(struct np_results_chk *c,
                         const struct np_results_set *s) {
  for (size_t k = 0; k < s->nconfigs; k++) {
    const struct np_results_config *cf = &s->configs[k];
    for (size_t i = 1; i < cf->nruns; i++)
      for (size_t j = 0; j < i; j++)
        if (strcmp(cf->runs[i].id, cf->runs[j].id) != 0 &&
            cJSON_Compare(cf->runs[i].doc, cf->runs[j].doc, 1)) {
          np_results_problem(c, cf->runs[i].file, "",
                             "same record as %s (one run recorded twice)",
                             cf->runs[j].file);
          break;
        }
  }
}

/* The number after tag in a '-'-separated id ("p1024" -> 1024), or NAN. */
static double id_number(const char *id, char tag) {
  for (const char *p = id; p != NULL; p = strchr(p, '-')) {
    if (*p == '-')
      p++;
    if (p[0] != tag || p[1] < '0' || p[1] > '9')
      continue;
    char *end;
    double v = strtod(p + 1, &end);
    if (*end == '-' || *end == '\0')
      return v;
  }
  return NAN;
}

static int id_has_token(const char *id, const char *tok) {
  size_t n = strlen(tok);
  for (const char *p = id; p != NULL; p = strchr(p, '-')) {
    if (*p == '-')
      p++;
    if (strncmp(p, tok, n) == 0 && (p[n] == '-' || p[n] == '\0'))
      return 1;
  }
  return 0;
}

static void check_config_matches_id(struct np_results_chk *c,
                                    const struct np_results_config *cf,
                                    const struct np_results_run *r) {
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r->doc, "config");
  static const struct {
    char tag;
    const char *key;
  } nums[] = {{'p', "payload"}, {'c', "clients"}, {'w', "window"}};
  for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
    double want = id_number(cf->id, nums[i].tag);
    double have = np_json_get_number(cfg, nums[i].key, NAN);
    if (isfinite(want) && isfinite(have) && want != have) {
      char ptr[64];
      snprintf(ptr, sizeof ptr, "/config/%s", nums[i].key);
      np_results_problem(c, r->file, ptr,
                         "%.0f, but the folder's configuration id %s says "
                         "%.0f",
                         have, cf->id, want);
    }
  }
  static const char *const words[] = {"protocol", "io_model", "backend"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    const char *v = np_json_get_string(cfg, words[i], NULL);
    if (v != NULL && !id_has_token(cf->id, v)) {
      char ptr[64];
      snprintf(ptr, sizeof ptr, "/config/%s", words[i]);
      np_results_problem(c, r->file, ptr,
                         "\"%s\" is not in the folder's configuration id %s", v,
                         cf->id);
    }
  }
}

/* Repetition numbers beyond what the plan asked for. */
static void check_planned(struct np_results_chk *c,
                          const struct np_results_set *s) {
  double reps = np_json_get_number(s->suite, "repetitions", NAN);
  if (!isfinite(reps))
    return;
  for (size_t i = 0; i < s->nruns; i++)
    if ((double)s->runs[i].rep > reps)
      np_results_problem(c, s->runs[i].file, "",
                         "repetition %ld was not planned (suite.json "
                         "repetitions: %.0f)",
                         s->runs[i].rep, reps);
  /* A complete suite has a summary entry for every planned configuration. */
  const char *status = np_json_get_string(s->suite, "status", "");
  double ncfg = np_json_get_number(s->suite, "configurations", NAN);
  const cJSON *sc =
      cJSON_GetObjectItemCaseSensitive(s->summary, "configurations");
  if (strcmp(status, "complete") == 0 && isfinite(ncfg) && sc != NULL &&
      (double)cJSON_GetArraySize(sc) != ncfg)
    np_results_problem(c, "summary.json", "/configurations",
                       "%d configurations, suite.json planned %.0f",
                       cJSON_GetArraySize(sc), ncfg);
  const cJSON *e;
  int idx = 0;
  cJSON_ArrayForEach(e, sc) {
    const cJSON *rl = cJSON_GetObjectItemCaseSensitive(e, "repetitions");
    if (strcmp(status, "complete") == 0 && cJSON_IsArray(rl) &&
        (double)cJSON_GetArraySize(rl) != reps) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/configurations/%d/repetitions", idx);
      np_results_problem(c, "summary.json", ptr,
                         "%d repetitions listed, the plan has %.0f (every "
                         "planned repetition is present or accounted for)",
                         cJSON_GetArraySize(rl), reps);
    }
    idx++;
  }
}

void np_results_check_identity(struct np_results_chk *c,
                               const struct np_results_set *s) {
  check_duplicate_ids(c, s);
  check_copies(c, s);
  for (size_t k = 0; k < s->nconfigs; k++)
    for (size_t i = 0; i < s->configs[k].nruns; i++)
      check_config_matches_id(c, &s->configs[k], &s->configs[k].runs[i]);
  check_planned(c, s);
}
