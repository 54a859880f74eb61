/*
 * np_report_marks.c - what the report says about a set beyond its numbers:
 * its display name and file slug (unique in a build, so two sets of one
 * plan never share a chart), whether it failed its self-check, which
 * configurations are unstable (summary.json), excluded (and why: the
 * failed checks) or missing (an incomplete set), the banners that say so,
 * and the one style (colour + hatch) each series name keeps on every
 * chart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_stats.h"
#include "np_report_int.h"

/* Series styles fixed by name (np_chart.c: colour = style % 8, hatch =
 * style % 5), so a series looks the same on every chart of every page. */
static const struct {
  const char *name;
  int style;
} known_styles[] = {
    {"uv", 0},          {"raw", 1},         {"ARQ only", 0},
    {"fixed FEC", 1},   {"adaptive FEC", 2}, {"window 1", 2},
    {"window 16", 3},   {"window 64", 4},   {"window 256", 5},
    {"lost echoes", 6}, {"kernel socket drops", 7},
};

int np_report__style(struct np_report_ctx *ctx, const char *name) {
  for (size_t i = 0; i < sizeof known_styles / sizeof *known_styles; i++)
    if (strcmp(known_styles[i].name, name) == 0)
      return known_styles[i].style;
  for (size_t i = 0; i < ctx->nstyles; i++)
    if (strcmp(ctx->styles[i], name) == 0)
      return (int)(8 + i) % NP_CHART_STYLES;
  if (ctx->nstyles == NP_REPORT_MAX_STYLES)
    return 8;
  snprintf(ctx->styles[ctx->nstyles], sizeof ctx->styles[0], "%s", name);
  return (int)(8 + ctx->nstyles++) % NP_CHART_STYLES;
}

const char *np_report__plural(size_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

void np_report__md_text(char *buf, size_t len, const char *s) {
  size_t k = 0;
  for (; s && *s && k + 6 < len; s++) {
    if (*s == '<') {
      memcpy(buf + k, "&lt;", 4);
      k += 4;
      continue;
    }
    if (*s == '>') {
      memcpy(buf + k, "&gt;", 4);
      k += 4;
      continue;
    }
    if (*s == '&') {
      memcpy(buf + k, "&amp;", 5);
      k += 5;
      continue;
    }
    if (strchr("|[]`*_\\", *s) != NULL)
      buf[k++] = '\\';
    buf[k++] = *s;
  }
  if (len > 0)
    buf[k < len ? k : len - 1] = '\0';
}

void np_report__md_cell(char *buf, size_t len, const char *s, int code) {
  size_t k = 0;
  for (; s && *s && k + 6 < len; s++) {
    const char *rep = *s == '|'                  ? "\\|"
                      : *s == '\n' || *s == '\r' ? " "
                      : code && *s == '`'        ? "'"
                      : code                     ? NULL
                      : *s == '<'                ? "&lt;"
                      : *s == '>'                ? "&gt;"
                      : *s == '&'                ? "&amp;"
                                                 : NULL;
    if (rep != NULL) {
      memcpy(buf + k, rep, strlen(rep));
      k += strlen(rep);
    } else {
      buf[k++] = *s;
    }
  }
  if (len > 0)
    buf[k < len ? k : len - 1] = '\0';
}

void np_report__md_alt(char *buf, size_t len, const char *s) {
  size_t k = 0;
  for (; s && *s && k + 6 < len; s++) {
    const char *ent = *s == '<'   ? "&lt;"
                      : *s == '>' ? "&gt;"
                      : *s == '&' ? "&amp;"
                                  : NULL;
    if (ent != NULL) {
      memcpy(buf + k, ent, strlen(ent));
      k += strlen(ent);
      continue;
    }
    if (strchr("[]\\", *s) != NULL)
      buf[k++] = '\\';
    buf[k++] = *s;
  }
  if (len > 0)
    buf[k < len ? k : len - 1] = '\0';
}

static const char *suite_of(const struct np_results_set *s) {
  return np_json_get_string(s->suite, "suite", s->label);
}

static void slug_of(char *buf, size_t len, const char *name) {
  size_t k = 0;
  for (const char *p = name; *p && k + 1 < len; p++) {
    char ch = *p;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
             (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_';
    buf[k++] = ok ? ch : '_';
  }
  buf[k] = '\0';
  if (k == 0)
    snprintf(buf, len, "set");
}

static const struct np_results_config *config_of(
    const struct np_results_set *s, const char *id) {
  for (size_t i = 0; i < s->nconfigs; i++)
    if (strcmp(s->configs[i].id, id) == 0)
      return &s->configs[i];
  return NULL;
}

/* The repetitions configuration id is planned to have: reps (suite.json),
 * or in an until-stable set where its rule stopped (summary.json's
 * until_stable.repetitions_needed; reps, its maximum, when the runs ended
 * before the rule decided). */
static size_t planned_reps(const struct np_results_set *s, const char *id,
                           int reps) {
  const cJSON *e;
  if (!cJSON_HasObjectItem(s->summary, "until_stable"))
    return (size_t)reps;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s->summary,
                                                         "configurations")) {
    if (strcmp(np_json_get_string(e, "id", ""), id) != 0)
      continue;
    double n = np_json_pointer(e, "/until_stable/repetitions_needed") &&
                       cJSON_IsNumber(np_json_pointer(
                           e, "/until_stable/repetitions_needed"))
                   ? np_json_pointer(e, "/until_stable/repetitions_needed")
                         ->valuedouble
                   : reps;
    return n >= 1 && n <= reps ? (size_t)n : (size_t)reps;
  }
  return (size_t)reps;
}

/* How many planned configurations are short of repetitions (fewer runs on
 * disk than planned) or absent (planned, no run at all). */
static size_t count_missing(const struct np_results_set *s, size_t planned,
                            int reps) {
  size_t shortn = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    shortn += s->configs[i].nruns < planned_reps(s, s->configs[i].id, reps);
  return shortn + (planned > s->nconfigs ? planned - s->nconfigs : 0);
}

int np_report__info_init(struct np_report_ctx *ctx, const char *const *labels,
                         const unsigned char *failed) {
  ctx->info = calloc(ctx->nsets + 1, sizeof *ctx->info);
  if (ctx->info == NULL)
    return NP_ENOMEM;
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    struct np_report_setinfo *in = &ctx->info[i];
    int unique = 1;
    for (size_t j = 0; j < ctx->nsets; j++)
      unique &= j == i || strcmp(suite_of(ctx->sets[j]), suite_of(s)) != 0;
    const char *name = labels && labels[i] ? labels[i]
                       : ctx->pages && unique ? suite_of(s)
                                              : s->label;
    snprintf(in->name, sizeof in->name, "%s", name);
    /* two folders of one name (a/x, b/x): the second is "x (2)" */
    for (size_t j = 0, n = 2; j < i; j++)
      if (strcmp(ctx->info[j].name, in->name) == 0) {
        snprintf(in->name, sizeof in->name, "%.200s (%zu)", name, n++);
        j = (size_t)-1; /* look again from the first set */
      }
    slug_of(in->slug, sizeof in->slug, in->name);
    for (size_t j = 0, n = 2; j < i; j++)
      if (strcmp(ctx->info[j].slug, in->slug) == 0) {
        char base[140];
        snprintf(base, sizeof base, "%.130s", in->slug);
        snprintf(in->slug, sizeof in->slug, "%s-%zu", base, n++);
        j = (size_t)-1; /* look again from the first set */
      }
    in->check_failed = failed ? failed[i] : 0;
    double reps = np_json_get_number(s->suite, "repetitions", NAN);
    if (!isfinite(reps))
      reps = np_json_get_number(s->summary, "repetitions", 0);
    size_t most = 1;
    for (size_t c = 0; c < s->nconfigs; c++)
      most = s->configs[c].nruns > most ? s->configs[c].nruns : most;
    in->reps = reps >= 1 ? (int)reps : (int)most;
    double planned = np_json_get_number(s->suite, "configurations", 0);
    in->planned = planned > 0 ? (size_t)planned : s->nconfigs;
    in->nmissing = count_missing(s, in->planned, in->reps);
  }
  return 0;
}

const struct np_report_setinfo *
np_report__info(const struct np_report_ctx *ctx,
                const struct np_results_set *s) {
  static const struct np_report_setinfo none = {
      .name = "", .slug = "set", .reps = 1};
  for (size_t i = 0; ctx->info && i < ctx->nsets; i++)
    if (ctx->sets[i] == s)
      return &ctx->info[i];
  return &none;
}

const char *np_report__stamp(const struct np_report_ctx *ctx,
                             const struct np_results_set *s) {
  return np_report__info(ctx, s)->check_failed
             ? "SELF-CHECK FAILED: rendered with --force, not evidence"
             : NULL;
}

static const cJSON *summary_entry(const struct np_results_set *s,
                                  const char *id) {
  const cJSON *e, *cfgs =
                      cJSON_GetObjectItemCaseSensitive(s->summary,
                                                       "configurations");
  cJSON_ArrayForEach(e, cfgs) {
    if (strcmp(np_json_get_string(e, "id", ""), id) == 0)
      return e;
  }
  return NULL;
}

int np_report__unstable(const struct np_results_set *s, const char *id) {
  return cJSON_IsTrue(
      cJSON_GetObjectItemCaseSensitive(summary_entry(s, id), "unstable"));
}

int np_report__marked_unstable(const struct np_report_ctx *ctx,
                               const struct np_results_set *s,
                               const struct np_results_config *c) {
  return c->npassed == c->nruns && !np_report__short(ctx, s, c) &&
         np_report__unstable(s, c->id);
}

double np_report__spread_limit(const struct np_results_set *s) {
  return 100 * np_json_get_number(s->summary, "spread_limit", 0.1);
}

int np_report__ci_bars(const struct np_report_ctx *ctx,
                       const struct np_results_set *s) {
  if (ctx->error_bars != NP_REPORT_EB_AUTO)
    return ctx->error_bars == NP_REPORT_EB_CI95;
  for (size_t i = 0; i < s->nconfigs; i++)
    if (s->configs[i].nruns < NP_STATS_MIN_CI_N)
      return 0;
  return s->nconfigs > 0;
}

int np_report__target_missed(const struct np_results_set *s, const char *id) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s->summary, "configura"
                                                                     "tion"
                                                                     "s")) if (
      strcmp(np_json_get_string(e, "id", ""), id) ==
      0) return cJSON_IsFalse(np_json_pointer(e, "/until_stable/met")) &&
      cJSON_IsNumber(np_json_pointer(e, "/until_stable/repetitions_needed"));
  return 0;
}

int np_report__short(const struct np_report_ctx *ctx,
                     const struct np_results_set *s,
                     const struct np_results_config *c) {
  return c->nruns < planned_reps(s, c->id, np_report__info(ctx, s)->reps);
}

void np_report__fail_reason(const struct np_results_config *c, char *buf,
                            size_t len) {
  size_t k = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_results_run *r = &c->runs[i];
    if (r->passed)
      continue;
    const cJSON *ch, *checks = cJSON_GetObjectItemCaseSensitive(r->doc,
                                                                "checks");
    int named = 0;
    cJSON_ArrayForEach(ch, checks) {
      if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "passed")))
        continue;
      const char *n = np_json_get_string(ch, "name", "?");
      named = 1;
      char key[80];
      snprintf(key, sizeof key, "%s", n);
      if (strstr(buf, key) == NULL && k + strlen(key) + 3 < len)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", key);
    }
    if (!named) {
      const char *why = np_json_get_string(
          cJSON_GetObjectItemCaseSensitive(r->doc, "failure"), "reason",
          r->status);
      if (strstr(buf, why) == NULL && k + 3 < len)
        k += (size_t)snprintf(buf + k, len - k, "%s%.60s", k ? ", " : "",
                              why);
    }
  }
}

void np_report__banners(struct np_report_ctx *ctx) {
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    const struct np_report_setinfo *in = &ctx->info[i];
    char name[300];
    np_report__md_text(name, sizeof name, in->name);
    if (in->check_failed)
      fprintf(ctx->md,
              "> **Self-check failed: %s.** This set was rendered with "
              "`--force`; every chart and table of it is stamped \"self-check "
              "failed\". Its figures are not evidence: `netproof-report "
              "--self-check --results %s` lists the problems.\n\n",
              name, s->label);
    if (in->nmissing == 0)
      continue;
    fprintf(ctx->md,
            "> **Incomplete result set: %s** (suite status: %s). %zu of %zu "
            "planned configurations %s short of their %d %s or absent; "
            "their rows and bars are marked \"missing\":",
            name, np_json_get_string(s->suite, "status", "unknown"),
            in->nmissing, in->planned, in->nmissing == 1 ? "is" : "are",
            in->reps,
            np_report__plural((size_t)in->reps, "repetition", "repetitions"));
    size_t shown = 0;
    for (size_t c = 0; c < s->nconfigs; c++) {
      size_t want = planned_reps(s, s->configs[c].id, in->reps);
      if (s->configs[c].nruns >= want)
        continue;
      if (shown++ < 12)
        fprintf(ctx->md, "%s `%s` (%zu of %zu)", shown > 1 ? "," : "",
                s->configs[c].id, s->configs[c].nruns, want);
    }
    const cJSON *e, *cfgs =
                        cJSON_GetObjectItemCaseSensitive(s->summary,
                                                         "configurations");
    cJSON_ArrayForEach(e, cfgs) { /* planned, not a single run on disk */
      const char *id = np_json_get_string(e, "id", "?");
      if (config_of(s, id) != NULL)
        continue;
      if (shown++ < 12)
        fprintf(ctx->md, "%s `%s` (0 of %d)", shown > 1 ? "," : "", id,
                in->reps);
    }
    if (shown > 12)
      fprintf(ctx->md, " and %zu more", shown - 12);
    fprintf(ctx->md, ".\n\n");
  }
}

const char *const *np_report__chart_notes(const struct np_results_set *s,
                                          char (*buf)[200], const char **v,
                                          size_t max) {
  size_t n = 0;
  const cJSON *f, *flags =
                      cJSON_GetObjectItemCaseSensitive(s->suite,
                                                       "stability_flags");
  double cores = np_results_num(s->runs[0].doc, "/machine/logical_cores");
  cJSON_ArrayForEach(f, flags) {
    if (!cJSON_IsString(f) || n + 1 >= max)
      continue;
    if (strcmp(f->valuestring, "load-above-cores") == 0)
      snprintf(buf[n], 200,
               "machine: load average above its %.0f logical cores during "
               "this suite; compare bars within one chart",
               cores);
    else if (strcmp(f->valuestring, "swap-activity") == 0)
      snprintf(buf[n], 200, "machine: swap activity during this suite");
    else if (strcmp(f->valuestring, "governor-changed") == 0)
      snprintf(buf[n], 200,
               "machine: CPU frequency governor changed during this suite");
    else
      snprintf(buf[n], 200, "machine: %s", f->valuestring);
    v[n] = buf[n];
    n++;
  }
  v[n] = NULL;
  return v;
}
