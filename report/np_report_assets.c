/*
 * np_report_assets.c - helpers every part of a report shares: the order
 * configurations are shown in (the plan's, or by dimension values), the
 * run ids a value was computed from, and registering a rendered chart
 * (assets/<stem>.svg, its Markdown link and its report.json entry).
 */
#include "np_report_assets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_int.h"

static int cmp_id(const void *a, const void *b) {
  const struct np_results_config *x =
      *(const struct np_results_config *const *)a;
  const struct np_results_config *y =
      *(const struct np_results_config *const *)b;
  return strcmp(x->id, y->id);
}

const struct np_results_config **
np_report_plan_order(const struct np_results_set *s) {
  const struct np_results_config **v = malloc((s->nconfigs + 1) * sizeof *v);
  char *used = calloc(s->nconfigs + 1, 1);
  size_t n = 0;
  if (v == NULL || used == NULL) {
    free(v);
    free(used);
    return NULL;
  }
  const cJSON *e,
      *cfgs = cJSON_GetObjectItemCaseSensitive(s->summary, "configurations");
  cJSON_ArrayForEach(e, cfgs) {
    const char *id = np_json_get_string(e, "id", "");
    for (size_t i = 0; i < s->nconfigs; i++)
      if (!used[i] && strcmp(s->configs[i].id, id) == 0) {
        used[i] = 1;
        v[n++] = &s->configs[i];
      }
  }
  size_t first_rest = n;
  for (size_t i = 0; i < s->nconfigs; i++)
    if (!used[i])
      v[n++] = &s->configs[i];
  qsort(v + first_rest, n - first_rest, sizeof *v, cmp_id);
  free(used);
  return v;
}

static int cmp_cfg_dims(const void *a, const void *b) {
  const struct np_results_config *x =
      *(const struct np_results_config *const *)a;
  const struct np_results_config *y =
      *(const struct np_results_config *const *)b;
  for (int d = 0; d < NP_D_COUNT_; d++) {
    double u = x->dimv[d], v = y->dimv[d];
    if (u != v && !(isnan(u) && isnan(v)))
      return isnan(u) ? 1 : isnan(v) ? -1 : (u > v) - (u < v);
  }
  return strcmp(x->id, y->id);
}

const struct np_results_config **
np_report_sorted_configs(const struct np_results_set *s) {
  const struct np_results_config **v = malloc((s->nconfigs + 1) * sizeof *v);
  if (v == NULL)
    return NULL;
  for (size_t i = 0; i < s->nconfigs; i++)
    v[i] = &s->configs[i];
  qsort(v, s->nconfigs, sizeof *v, cmp_cfg_dims);
  return v;
}

cJSON *np_report_run_ids(const struct np_results_config *c, int passed_only) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; a && i < c->nruns; i++)
    if (!passed_only || c->runs[i].passed)
      cJSON_AddItemToArray(a, cJSON_CreateString(c->runs[i].id));
  return a;
}

int np_report_add_chart(struct np_report_ctx *ctx, const char *stem,
                        const char *svg, size_t len, const char *alt,
                        cJSON **entry) {
  char file[512];
  snprintf(file, sizeof file, "assets/%s%s.svg",
           ctx->asset_prefix ? ctx->asset_prefix : "", stem);
  int rc = np_ftree_add(ctx->out, file, svg, len);
  if (rc != 0)
    return rc;
  char safe[2048];
  np_report__md_alt(safe, sizeof safe, alt);
  fprintf(ctx->md, "![%s](%s)\n\n", safe, file);
  cJSON *jc = cJSON_CreateObject();
  cJSON_AddStringToObject(jc, "file", file);
  cJSON_AddItemToArray(ctx->jcharts, jc);
  *entry = jc;
  return 0;
}
