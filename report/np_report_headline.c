/*
 * np_report_headline.c - the focused comparison a reader sees first
 * (reference 003's four-row "Throughput and Latency" table with its two
 * charts), chosen by the plan, not by the report: a plan's "headline"
 * entry names a title and rows, each a set of options; a configuration
 * whose options (summary.json) hold every option of a row is that row.
 * The headline gets its own table and the throughput / p99 charts of the
 * same configurations, ahead of the full grid.  A row no configuration
 * matches is said so, never dropped silently.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_int.h"
#include "np_report_rudp.h"
#include "np_results_rudp.h"

static const cJSON *headline_of(const struct np_results_set *s) {
  return np_json_pointer(s->suite, "/plan/headline");
}

/* Every option of row has the same value in opts. */
static int row_matches(const cJSON *row, const cJSON *opts) {
  const cJSON *o;
  cJSON_ArrayForEach(o, row) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(opts, o->string);
    if (v == NULL)
      return 0;
    if (cJSON_IsNumber(o) && !(cJSON_IsNumber(v) &&
                               v->valuedouble == o->valuedouble))
      return 0;
    if (cJSON_IsString(o) &&
        !(cJSON_IsString(v) && strcmp(v->valuestring, o->valuestring) == 0))
      return 0;
  }
  return 1;
}

static const struct np_results_config *config_by_id(
    const struct np_results_set *s, const char *id) {
  for (size_t i = 0; i < s->nconfigs; i++)
    if (strcmp(s->configs[i].id, id) == 0)
      return &s->configs[i];
  return NULL;
}

/* Matches of row in plan order into v (not already there); their count. */
static size_t match_row(const struct np_results_set *s, const cJSON *row,
                        const struct np_results_config **v, size_t n,
                        size_t max) {
  const cJSON *e, *cfgs = cJSON_GetObjectItemCaseSensitive(s->summary,
                                                           "configurations");
  cJSON_ArrayForEach(e, cfgs) {
    if (!row_matches(row, cJSON_GetObjectItemCaseSensitive(e, "options")))
      continue;
    const struct np_results_config *c =
        config_by_id(s, np_json_get_string(e, "id", ""));
    if (c == NULL)
      continue;
    int dup = 0;
    for (size_t i = 0; i < n; i++)
      dup |= v[i] == c;
    if (!dup && n < max)
      v[n++] = c;
  }
  return n;
}

size_t np_report__headline_configs(const struct np_results_set *s,
                                   const struct np_results_config **v,
                                   size_t max) {
  size_t n = 0;
  const cJSON *row, *rows = cJSON_GetObjectItemCaseSensitive(headline_of(s),
                                                             "rows");
  cJSON_ArrayForEach(row, rows) { n = match_row(s, row, v, n, max); }
  return n;
}

#define LEFT_MAX 16

/* Append v to the list l[0..*n) unless it is there; 0 when full. */
static int list_add(const char *l[LEFT_MAX], size_t *n, const char *v) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(l[i], v) == 0)
      return 1;
  if (*n == LEFT_MAX)
    return 0;
  l[(*n)++] = v;
  return 1;
}

static void list_print(FILE *f, const char *const *l, size_t n) {
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", l[i]);
}

/* For each text option the headline's rows fix, the values the set ran
 * that no row shows: a title that says "on each backend" over rows of
 * two of three backends must not read as the whole story (issue 33). */
static void headline_leaves_out(struct np_report_ctx *ctx,
                                const struct np_results_set *s,
                                const cJSON *rows) {
  const char *keys[LEFT_MAX];
  size_t nk = 0;
  const cJSON *row, *o, *e;
  cJSON_ArrayForEach(row, rows) {
    cJSON_ArrayForEach(o, row) {
      if (cJSON_IsString(o) && !list_add(keys, &nk, o->string))
        break;
    }
  }
  for (size_t k = 0; k < nk; k++) {
    const char *shown[LEFT_MAX], *left[LEFT_MAX];
    size_t ns = 0, nl = 0;
    cJSON_ArrayForEach(row, rows) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, keys[k]);
      if (cJSON_IsString(v))
        list_add(shown, &ns, v->valuestring);
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s->summary,
                                                           "configurations")) {
      const cJSON *v = np_json_pointer(e, "/options");
      v = v ? cJSON_GetObjectItemCaseSensitive(v, keys[k]) : NULL;
      size_t before = ns;
      if (cJSON_IsString(v) && list_add(shown, &ns, v->valuestring) &&
          ns > before) {
        ns = before; /* not shown: count it as left out instead */
        list_add(left, &nl, v->valuestring);
      }
    }
    if (nl == 0)
      continue;
    fprintf(ctx->md, "The headline's rows show %s ", keys[k]);
    list_print(ctx->md, shown, ns);
    fprintf(ctx->md, " only; the set also ran ");
    list_print(ctx->md, left, nl);
    fprintf(ctx->md, ", in the full grid below.\n\n");
  }
}

int np_report__headline(struct np_report_ctx *ctx,
                        const struct np_results_set *s) {
  const cJSON *h = headline_of(s);
  if (h == NULL)
    return 0;
  const struct np_results_config **v = calloc(s->nconfigs + 1, sizeof *v);
  if (v == NULL)
    return NP_ENOMEM;
  char title[512];
  np_report__md_text(title, sizeof title,
                     np_json_get_string(h, "title", "the plan's comparison"));
  fprintf(ctx->md, "### Headline: %s\n\n", title);
  size_t n = 0, r = 0;
  const cJSON *row, *rows = cJSON_GetObjectItemCaseSensitive(h, "rows");
  cJSON_ArrayForEach(row, rows) {
    size_t before = n;
    n = match_row(s, row, v, n, s->nconfigs);
    r++;
    if (n == before) {
      char *txt = cJSON_PrintUnformatted(row);
      fprintf(ctx->md, "Headline row %zu (`%s`) matches no configuration of "
                       "this set.\n\n",
              r, txt ? txt : "?");
      free(txt);
    }
  }
  int rc = 0;
  if (n > 0 && np_results_is_rudp(s)) {
    rc = np_report_rudp_charts_of(ctx, s, v, n, "headline-");
    if (rc == 0)
      np_report_rudp_table_of(ctx, s, v, n, "headline");
  } else if (n > 0) {
    rc = np_report__charts_of(ctx, s, "io", v, n, "headline-");
    if (rc == 0)
      np_report__tables_perf_of(ctx, s, v, n, "headline");
  }
  headline_leaves_out(ctx, s, rows);
  fprintf(ctx->md, "The full grid follows.\n\n");
  free(v);
  return rc;
}
