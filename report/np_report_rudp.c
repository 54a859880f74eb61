/*
 * np_report_rudp.c - reliable-UDP values and charts (see np_report_rudp.h).
 *
 * Charts put the network condition on the x axis and one bar per strategy
 * (ARQ only, fixed FEC, adaptive FEC).  Besides the relay profile, the
 * delivery order, IO model, payload and window join the category label
 * when they vary in the set, so the main suite gives one chart per metric
 * and congestion controller, and the payload x window suite one chart per
 * metric; all other dimensions split charts and are stated in the subtitle
 * (unordered delivery too, when the whole set uses it).
 */
#include "np_report_rudp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_int.h"

const char *np_report_rudp_strategy_label(const struct np_report_rudp_view *v) {
  static const char *const names[] = {"ARQ only", "fixed FEC",
                                      "adaptive FEC"};
  return v->strategy < 3 ? names[v->strategy] : v->fec;
}

int np_report_rudp_views(const struct np_results_set *s,
                         struct np_report_rudp_view **out, size_t *n) {
  const struct np_results_config **order = np_report_plan_order(s);
  struct np_report_rudp_view *v = calloc(s->nconfigs + 1, sizeof *v);
  if (order == NULL || v == NULL) {
    free(order);
    free(v);
    return NP_ENOMEM;
  }
  size_t k = 0;
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = order[i];
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(c->runs[0].doc,
                                                        "config");
    if (strcmp(np_json_get_string(cfg, "protocol", ""), "rudp") != 0)
      continue;
    struct np_report_rudp_view *w = &v[k++];
    w->c = c;
    w->fec = np_json_get_string(cfg, "fec", "?");
    w->strategy = strcmp(w->fec, "none") == 0    ? 0
                  : strcmp(w->fec, "fixed") == 0 ? 1
                  : strcmp(w->fec, "adaptive") == 0 ? 2 : 3;
    w->profile = np_json_get_string(
        cJSON_GetObjectItemCaseSensitive(cfg, "relay"), "profile", "?");
    w->cc = np_json_get_string(cfg, "cc", "?");
    /* records before --delivery existed delivered in order */
    w->delivery = np_json_get_string(cfg, "delivery", "ordered");
    const char *model = np_json_get_string(cfg, "io_model", "?");
    double threads = np_json_get_number(cfg, "io_threads", 1);
    if (strcmp(model, "single") == 0)
      snprintf(w->model, sizeof w->model, "%s", model);
    else
      snprintf(w->model, sizeof w->model, "%s %.0f", model, threads);
    w->payload = np_json_get_number(cfg, "payload", NAN);
    w->clients = np_json_get_number(cfg, "clients", NAN);
    w->window = np_json_get_number(cfg, "window", NAN);
    w->seconds = np_json_get_number(cfg, "seconds", NAN);
    w->rounds = np_json_get_number(cfg, "rounds", NAN);
    snprintf(w->address, sizeof w->address, "%s",
             np_json_get_string(cfg, "address", "-"));
    w->excluded = c->npassed < c->nruns;
  }
  free(order);
  *out = v;
  *n = k;
  return 0;
}

/* Does field f (0 payload, 1 window, 2 clients, 3 model, 4 cc, 5 seconds,
 * 6 profile, 7 address, 8 delivery) vary among vs? */
static int varies(const struct np_report_rudp_view *vs, size_t n, int f) {
  for (size_t i = 1; i < n; i++) {
    const struct np_report_rudp_view *a = &vs[0], *b = &vs[i];
    int d = f == 0   ? a->payload != b->payload
            : f == 1 ? a->window != b->window
            : f == 2 ? a->clients != b->clients
            : f == 3 ? strcmp(a->model, b->model) != 0
            : f == 4 ? strcmp(a->cc, b->cc) != 0
            : f == 5 ? a->seconds != b->seconds || a->rounds != b->rounds
            : f == 7 ? strcmp(a->address, b->address) != 0
            : f == 8 ? strcmp(a->delivery, b->delivery) != 0
                     : strcmp(a->profile, b->profile) != 0;
    if (d)
      return 1;
  }
  return 0;
}

static void field_text(char *buf, size_t len,
                       const struct np_report_rudp_view *v, int f) {
  char num[48];
  switch (f) {
  case 0:
    np_fmt_num(num, sizeof num, v->payload, 0);
    snprintf(buf, len, "%s B", num);
    break;
  case 1:
    snprintf(buf, len, "window %.0f", v->window);
    break;
  case 2:
    snprintf(buf, len, "%.0f clients", v->clients);
    break;
  case 3:
    snprintf(buf, len, "%s", v->model);
    break;
  case 4:
    snprintf(buf, len, "%s", v->cc);
    break;
  case 5:
    snprintf(buf, len, "%.0f x %g s", v->rounds, v->seconds);
    break;
  case 7:
    snprintf(buf, len, "%s", v->address);
    break;
  case 8:
    snprintf(buf, len, "%s", v->delivery);
    break;
  default:
    snprintf(buf, len, "%s", v->profile);
  }
}

void np_report_rudp_condition(char *buf, size_t len,
                              const struct np_report_rudp_view *v,
                              const struct np_report_rudp_view *vs, size_t n,
                              unsigned skip) {
  size_t k = (size_t)snprintf(buf, len, "%s", v->profile);
  static const int order[] = {8, 0, 1, 2, 3, 4, 5, 7};
  for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
    int f = order[i];
    if (!varies(vs, n, f) || (f < 6 && (skip & (1u << f))))
      continue;
    char t[64];
    field_text(t, sizeof t, v, f);
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, ", %s", t);
  }
}

/* ---- charts ------------------------------------------------------------ */

struct rudp_chart {
  const char *stem, *title, *ylabel;
  enum np_results_rudp_metric m;
  double scale;
  int split_clean; /* profile "none" gets its own chart: unimpaired rates
                    * are ~20x the impaired ones and would flatten them */
};

static const struct rudp_chart np_rcharts[] = {
    {"rudp-throughput", "Reliable UDP round trips/s by strategy and condition",
     "round trips / s", NP_R_RPS, 1, 1},
    {"rudp-p99", "Reliable UDP p99 round-trip time by strategy and condition",
     "p99 RTT / ms", NP_R_P99, 1e-3, 0},
    {"rudp-cpu", "Process CPU by strategy and condition",
     "process CPU / % (one core = 100)", NP_R_CPU, 1, 0},
    {"rudp-overhead", "Network overhead by strategy and condition",
     "network overhead / %", NP_R_OVERHEAD, 1, 0},
    {"rudp-recoveries", "FEC recoveries per 1,000 round trips",
     "recovered fragments / 1,000 round trips", NP_R_RECOV, 1, 0},
    {"rudp-retransmits", "ARQ retransmits per 1,000 round trips",
     "retransmits / 1,000 round trips", NP_R_RETX, 1, 0},
    {"rudp-fec-retained", "FEC retained memory, peak (sum over endpoints)",
     "FEC retained peak / KiB", NP_R_RETAINED, 1.0 / 1024, 0},
    {"rudp-relay-peak", "Relay queue peak (sum over routes)",
     "relay route peak sum / KiB", NP_R_RELAY, 1.0 / 1024, 0},
    {"rudp-rss", "Process peak resident memory", "max RSS / MiB", NP_R_RSS,
     1.0 / 1048576, 0},
};

/* Fields that split charts (not on the x axis): clients, cc, timing. */
static int same_chart(const struct np_report_rudp_view *a,
                      const struct np_report_rudp_view *b) {
  return a->clients == b->clients && strcmp(a->cc, b->cc) == 0 &&
         a->seconds == b->seconds && a->rounds == b->rounds;
}

static void subtitle_of(char *buf, size_t len,
                        const struct np_report_rudp_view *v,
                        const struct np_report_rudp_view *vs, size_t n,
                        const char *set, const char *machine) {
  char t[64];
  size_t k = 0;
  buf[0] = '\0';
  static const int fields[] = {0, 1, 2, 3, 4, 5, 7, 8};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    int f = fields[i];
    /* payload, window, model and delivery vary on the axis; the rest split
     * charts; in-order delivery, the default, goes unsaid */
    if (f <= 1 || f == 3 || f == 7 ? varies(vs, n, f) : 0)
      continue;
    if (f == 8 && (varies(vs, n, f) || strcmp(v->delivery, "ordered") == 0))
      continue;
    field_text(t, sizeof t, v, f);
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s%s",
                          k ? ", " : "", f == 5 ? "rounds " : "", t);
  }
  snprintf(buf + k, k < len ? len - k : 0, "%sset %s, machine %s",
           k ? ", " : "", set, machine);
}

/* One chart over the views g[0..ng) (same_chart), metric sp. */
static int emit(struct np_report_ctx *ctx, const struct np_results_set *s,
                const struct rudp_chart *sp,
                const struct np_report_rudp_view *all, size_t nall,
                const struct np_report_rudp_view **g, size_t ng,
                const char *stem_pre) {
  const char **cats = calloc(ng, sizeof *cats), **notes = calloc(ng, sizeof *notes);
  char (*ctext)[128] = calloc(ng, sizeof *ctext), (*cshow)[128] = calloc(ng, sizeof *cshow);
  double *val = malloc(4 * 3 * ng * sizeof *val);
  unsigned char *mark = calloc(4 * ng, 1);
  size_t *ci = calloc(ng, sizeof *ci), *nv = calloc(4 * ng, sizeof *nv);
  double *mm = malloc(2 * 4 * ng * sizeof *mm); /* min, max per cell */
  char *svg = NULL;
  int rc = 0;
  if (cats == NULL || notes == NULL || ctext == NULL || cshow == NULL ||
      val == NULL || mark == NULL || ci == NULL || nv == NULL || mm == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  size_t nc = 0, maxn = 0, minn = 0;
  int used[4] = {0}, use_ci = np_report_ci_bars(ctx, s);
  char reasons[256] = "";
  for (size_t i = 0; i < 4 * 3 * ng; i++)
    val[i] = NAN;
  for (size_t i = 0; i < ng; i++) {
    char t[128];
    np_report_rudp_condition(t, sizeof t, g[i], all, nall,
                             NP_RF_CLIENTS | NP_RF_CC | NP_RF_TIMING);
    size_t j = 0;
    while (j < nc && strcmp(ctext[j], t) != 0)
      j++;
    if (j == nc) {
      /* the profile on the axis, the rest (IO model, payload, window,
       * address) on lines of their own under it */
      snprintf(ctext[nc], sizeof ctext[nc], "%s", t);
      snprintf(cshow[nc], sizeof cshow[nc], "%s", t);
      char *comma = strstr(cshow[nc], ", ");
      if (comma != NULL)
        *comma = '\0';
      cats[nc] = cshow[nc];
      notes[nc] = comma != NULL ? comma + 2 : "";
      nc++;
    }
    ci[i] = j;
    int st = g[i]->strategy;
    used[st] = 1;
    size_t cell = (size_t)st * ng + j;
    if (np_report_short(ctx, s, g[i]->c)) {
      mark[cell] = NP_CHART_MISSING;
      continue;
    }
    if (g[i]->excluded) {
      mark[cell] = NP_CHART_EXCLUDED;
      char r[160];
      np_report_fail_reason(g[i]->c, r, sizeof r);
      if (r[0] && strstr(reasons, r) == NULL &&
          strlen(reasons) + strlen(r) + 3 < sizeof reasons)
        snprintf(reasons + strlen(reasons), sizeof reasons - strlen(reasons),
                 "%s%s", reasons[0] ? "; " : "", r);
      continue;
    }
    double med, mn, mx;
    size_t n;
    np_results_rudp_stat(g[i]->c, sp->m, &med, &mn, &mx, &n);
    maxn = n > maxn ? n : maxn;
    minn = minn == 0 || (n > 0 && n < minn) ? n : minn;
    double *v = &val[((size_t)st * 3) * ng];
    v[j] = med * sp->scale;
    v[ng + j] = n > 1 ? mn * sp->scale : NAN;
    v[2 * ng + j] = n > 1 ? mx * sp->scale : NAN;
    nv[cell] = n;
    double lo, hi; /* --error-bars ci95: min / max kept for report.json */
    mm[2 * cell] = v[ng + j];
    mm[2 * cell + 1] = v[2 * ng + j];
    if (use_ci) {
      int cr = np_results_rudp_ci(g[i]->c, sp->m, &lo, &hi);
      v[ng + j] = cr == 0 ? lo * sp->scale : NAN;
      v[2 * ng + j] = cr == 0 ? hi * sp->scale : NAN;
    }
    if (np_report_unstable(s, g[i]->c->id))
      mark[cell] |= NP_CHART_UNSTABLE;
    if (np_report_target_missed(s, g[i]->c->id))
      mark[cell] |= NP_CHART_MISSED;
  }
  struct np_chart_series ser[4];
  static const char *const sname[4] = {"ARQ only", "fixed FEC",
                                       "adaptive FEC", "other"};
  size_t ns = 0;
  for (int k = 0; k < 4; k++)
    if (used[k])
      ser[ns++] = (struct np_chart_series){
          sname[k], &val[(size_t)k * 3 * ng], &val[(size_t)k * 3 * ng + ng],
          &val[(size_t)k * 3 * ng + 2 * ng], &mark[(size_t)k * ng],
          np_report_style(ctx, sname[k])};
  const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(g[0]->c->runs[0].doc,
                                                     "machine");
  const struct np_report_setinfo *in = np_report_info(ctx, s);
  char subtitle[512], stem[300], caption[200], alt[800], excl[400], nb[4][200];
  const char *nvp[5];
  subtitle_of(subtitle, sizeof subtitle, g[0], all, nall, in->name,
              np_json_get_string(m0, "hostname", "unknown"));
  int by_rounds = g[0]->c->nruns == 1;
  if (use_ci)
    np_chart_ci_caption(caption, sizeof caption, minn, maxn,
                        by_rounds ? "round" : "run", by_rounds);
  else
    np_chart_runs_caption(caption, sizeof caption, minn, maxn,
                          by_rounds ? "round" : "run", by_rounds);
  snprintf(excl, sizeof excl,
           "excluded: a repetition failed (%s); its records are kept, it is "
           "not ranked",
           reasons[0] ? reasons : "see the table");
  /* chart file: stem plus what splits the set's charts (the set's slug
   * prefixes it, np_report_add_chart) */
  size_t k = (size_t)snprintf(stem, sizeof stem, "%s%s",
                              stem_pre ? stem_pre : "", sp->stem);
  if (varies(all, nall, 4))
    k += (size_t)snprintf(stem + k, sizeof stem - k, "-%s", g[0]->cc);
  if (varies(all, nall, 2))
    k += (size_t)snprintf(stem + k, sizeof stem - k, "-c%.0f", g[0]->clients);
  if (varies(all, nall, 5))
    k += (size_t)snprintf(stem + k, sizeof stem - k, "-s%g", g[0]->seconds);
  if (sp->split_clean && strcmp(g[0]->profile, "none") == 0 &&
      varies(all, nall, 6))
    snprintf(stem + k, sizeof stem - k, "-unimpaired");
  int any_note = 0;
  for (size_t i = 0; i < nc; i++)
    any_note |= notes[i][0] != '\0';
  char xlabel[160];
  snprintf(xlabel, sizeof xlabel,
           "network condition: relay profile%s%s%s%s%s",
           varies(all, nall, 8) ? ", delivery" : "",
           varies(all, nall, 0) ? ", payload" : "",
           varies(all, nall, 1) ? ", window" : "",
           varies(all, nall, 3) ? ", IO model" : "",
           varies(all, nall, 7) ? ", address" : "");
  char unst[200];
  snprintf(unst, sizeof unst,
           "\xe2\x80\xa0 dashed outline: unstable, round trips/s spread over "
           "%.0f %% across %s",
           np_report_spread_limit(s), by_rounds ? "rounds" : "runs");
  struct np_chart ch = {.title = sp->title, .subtitle = subtitle,
                        .xlabel = xlabel, .ylabel = sp->ylabel,
                        .caption = caption, .unstable_note = unst,
                        .excluded_note = excl,
                        .notes_extra = np_report_chart_notes(s, nb, nvp, 5),
                        .stamp = np_report_stamp(ctx, s),
                        .ncat = nc, .categories = cats,
                        .notes = any_note ? notes : NULL,
                        .nseries = ns, .series = ser};
  size_t len = 0;
  cJSON *jc = NULL;
  snprintf(alt, sizeof alt, "%s: %s", sp->title, subtitle);
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  if (rc == 0)
    rc = np_report_add_chart(ctx, stem, svg, len, alt, &jc);
  if (rc != 0)
    goto done;
  cJSON_AddStringToObject(jc, "set", in->name);
  cJSON_AddStringToObject(jc, "title", sp->title);
  cJSON_AddStringToObject(jc, "subtitle", subtitle);
  cJSON_AddStringToObject(jc, "y_label", sp->ylabel);
  cJSON_AddBoolToObject(jc, "log_y", 0);
  cJSON_AddStringToObject(jc, "caption", caption);
  cJSON_AddStringToObject(jc, "metric", np_results_rudp_metric_key(sp->m));
  if (use_ci)
    cJSON_AddStringToObject(jc, "error_bars", "ci95");
  cJSON *js = cJSON_AddArrayToObject(jc, "series");
  for (size_t i = 0; i < ng && js != NULL; i++) {
    size_t cell = (size_t)g[i]->strategy * ng + ci[i];
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "series", np_report_rudp_strategy_label(g[i]));
    cJSON_AddStringToObject(b, "category", ctext[ci[i]]);
    cJSON_AddStringToObject(b, "config", g[i]->c->id);
    cJSON_AddBoolToObject(b, "excluded", (mark[cell] & NP_CHART_EXCLUDED) != 0);
    cJSON_AddBoolToObject(b, "missing", (mark[cell] & NP_CHART_MISSING) != 0);
    cJSON_AddBoolToObject(b, "unstable", (mark[cell] & NP_CHART_UNSTABLE) != 0);
    double *v = &val[((size_t)g[i]->strategy * 3) * ng];
    int one = nv[cell] <= 1;
    np_json_add_number(b, "median", v[ci[i]]);
    np_json_add_number(b, "min", one ? v[ci[i]] : mm[2 * cell]);
    np_json_add_number(b, "max", one ? v[ci[i]] : mm[2 * cell + 1]);
    if (use_ci && isfinite(v[ng + ci[i]])) {
      cJSON *iv = cJSON_AddObjectToObject(b, "ci95");
      np_json_add_number(iv, "lo", v[ng + ci[i]]);
      np_json_add_number(iv, "hi", v[2 * ng + ci[i]]);
    } else if (use_ci) {
      cJSON_AddNullToObject(b, "ci95");
    }
    cJSON_AddItemToObject(b, "runs", np_report_run_ids(g[i]->c, 0));
    cJSON_AddItemToArray(js, b);
  }
done:
  free(svg);
  free(cats);
  free(notes);
  free(ctext);
  free(cshow);
  free(val);
  free(mark);
  free(ci);
  free(nv);
  free(mm);
  return rc;
}

int np_report_rudp_charts_of(struct np_report_ctx *ctx,
                             const struct np_results_set *s,
                             const struct np_results_config *const *sel,
                             size_t nsel, const char *stem_pre) {
  struct np_report_rudp_view *vs = NULL;
  size_t n = 0;
  int rc = np_report_rudp_views(s, &vs, &n);
  if (rc == 0 && sel != NULL) { /* keep the selected views, in plan order */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < nsel; j++)
        if (vs[i].c == sel[j]) {
          vs[k++] = vs[i];
          break;
        }
    n = k;
  }
  const struct np_report_rudp_view **g = calloc(n + 1, sizeof *g);
  char *used = calloc(n + 1, 1);
  if (rc == 0 && (g == NULL || used == NULL))
    rc = NP_ENOMEM;
  for (size_t k = 0; rc == 0 && k < sizeof np_rcharts / sizeof *np_rcharts;
       k++) {
    if (sel != NULL && np_rcharts[k].m != NP_R_RPS &&
        np_rcharts[k].m != NP_R_P99)
      continue; /* a headline shows throughput and p99 only */
    memset(used, 0, n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
      if (used[i])
        continue;
      size_t ng = 0;
      for (size_t j = i; j < n; j++)
        if (!used[j] && same_chart(&vs[i], &vs[j]) &&
            (!np_rcharts[k].split_clean ||
             (strcmp(vs[i].profile, "none") == 0) ==
                 (strcmp(vs[j].profile, "none") == 0))) {
          used[j] = 1;
          g[ng++] = &vs[j];
        }
      if (ng > 1)
        rc = emit(ctx, s, &np_rcharts[k], vs, n, g, ng, stem_pre);
    }
  }
  free(g);
  free(used);
  free(vs);
  return rc;
}

int np_report_rudp_charts(struct np_report_ctx *ctx,
                          const struct np_results_set *s) {
  return np_report_rudp_charts_of(ctx, s, NULL, 0, NULL);
}
