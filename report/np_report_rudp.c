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
#include "np_kind.h"
#include "np_report_chartb.h"
#include "np_report_fmt.h"
#include "np_report_int.h"

const struct np_report_rudp_strategy
    np_report_rudp_strategies[NP_REPORT_RUDP_NSTRAT] = {
        {"none", "ARQ only"},
        {"fixed", "fixed FEC"},
        {"adaptive", "adaptive FEC"},
        {"window", "sliding-window FEC"},
        {NULL, "other"}};

const char *np_report_rudp_strategy_label(const struct np_report_rudp_view *v) {
  return v->strategy < NP_REPORT_RUDP_OTHER
             ? np_report_rudp_strategies[v->strategy].label
             : v->fec;
}

static int strategy_of(const char *fec) {
  int st = 0;
  while (st < NP_REPORT_RUDP_OTHER &&
         strcmp(np_report_rudp_strategies[st].fec, fec) != 0)
    st++;
  return st;
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
    if (!np_kind_is(np_json_get_string(cfg, "protocol", ""), NP_KIND_RUDP))
      continue;
    struct np_report_rudp_view *w = &v[k++];
    w->c = c;
    w->fec = np_json_get_string(cfg, "fec", "?");
    w->strategy = strategy_of(w->fec);
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

/* The bar of view w in a chart of metric sp: its category is the
 * condition (the profile on the axis, the rest on lines under it). */
static void rudp_bar(struct np_report_ctx *ctx, const struct np_results_set *s,
                     const struct rudp_chart *sp,
                     const struct np_report_rudp_view *w, int use_ci,
                     char *key, char *label, struct np_report_cbar *r) {
  char *comma = strstr(label, ", ");
  if (comma != NULL)
    *comma = '\0';
  *r = (struct np_report_cbar){
      .key = key, .label = label, .note = comma != NULL ? comma + 2 : "",
      .jcat = key, .series = np_report_rudp_strategies[w->strategy].label,
      .jseries = np_report_rudp_strategy_label(w), .rank = w->strategy,
      .cfg = w->c, .med = NAN, .mn = NAN, .mx = NAN, .clo = NAN, .chi = NAN};
  if (np_report__short(ctx, s, w->c)) {
    r->mark = NP_CHART_MISSING;
    return;
  }
  if (w->excluded) {
    r->mark = NP_CHART_EXCLUDED;
    return;
  }
  double med, mn, mx, lo, hi;
  np_results_rudp_stat(w->c, sp->m, &med, &mn, &mx, &r->n);
  r->med = med * sp->scale;
  r->mn = mn * sp->scale;
  r->mx = mx * sp->scale;
  if (use_ci && np_results_rudp_ci(w->c, sp->m, &lo, &hi) == 0) {
    r->clo = lo * sp->scale;
    r->chi = hi * sp->scale;
  }
  if (np_report__unstable(s, w->c->id))
    r->mark |= NP_CHART_UNSTABLE;
  if (np_report__target_missed(s, w->c->id))
    r->mark |= NP_CHART_MISSED;
}

/* One chart over the views g[0..ng) (same_chart), metric sp. */
static int emit(struct np_report_ctx *ctx, const struct np_results_set *s,
                const struct rudp_chart *sp,
                const struct np_report_rudp_view *all, size_t nall,
                const struct np_report_rudp_view **g, size_t ng,
                const char *stem_pre) {
  struct np_report_cbar *b = calloc(ng, sizeof *b);
  char (*key)[128] = calloc(ng, sizeof *key), (*label)[128] = calloc(ng, sizeof *label);
  int rc = 0, use_ci = np_report__ci_bars(ctx, s);
  if (b == NULL || key == NULL || label == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < ng; i++) {
    np_report_rudp_condition(key[i], sizeof key[i], g[i], all, nall,
                             NP_RF_CLIENTS | NP_RF_CC | NP_RF_TIMING);
    snprintf(label[i], sizeof label[i], "%s", key[i]);
    rudp_bar(ctx, s, sp, g[i], use_ci, key[i], label[i], &b[i]);
  }
  const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(g[0]->c->runs[0].doc,
                                                     "machine");
  char subtitle[512], stem[300];
  subtitle_of(subtitle, sizeof subtitle, g[0], all, nall,
              np_report__info(ctx, s)->name,
              np_json_get_string(m0, "hostname", "unknown"));
  int by_rounds = g[0]->c->nruns == 1;
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
  char xlabel[160];
  snprintf(xlabel, sizeof xlabel,
           "network condition: relay profile%s%s%s%s%s",
           varies(all, nall, 8) ? ", delivery" : "",
           varies(all, nall, 0) ? ", payload" : "",
           varies(all, nall, 1) ? ", window" : "",
           varies(all, nall, 3) ? ", IO model" : "",
           varies(all, nall, 7) ? ", address" : "");
  struct np_report_cchart ch = {
      .title = sp->title, .subtitle = subtitle, .xlabel = xlabel,
      .ylabel = sp->ylabel, .stem = stem,
      .unit = by_rounds ? "round" : "run", .of_one_process = by_rounds,
      .unstable_note = 1, .metric = np_results_rudp_metric_key(sp->m),
      .json = NP_CJ_CAPTION | NP_CJ_MARKS};
  rc = np_report_chartb_emit(ctx, s, &ch, b, ng);
done:
  free(b);
  free(key);
  free(label);
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
