/*
 * np_report_pages_sections.c - the parts of a performance page that the
 * index report does not have: the dates line, the lost-echoes pivot and
 * kernel evidence of the size-limits suite, the reproduce commands, the
 * links to the raw folders and the embedded hand-written reading.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_loss.h"
#include "np_report_int.h"
#include "np_report_refs.h"

void np_pages__dates_line(struct np_report_ctx *ctx) {
  char dates[256] = "";
  size_t runs = 0, passed = 0, k = 0;
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    const char *at = np_json_get_string(s->suite, "started_at", "");
    char d[16];
    snprintf(d, sizeof d, "%.10s", at[0] ? at : "undated");
    if (strstr(dates, d) == NULL)
      k += (size_t)snprintf(dates + k, k < sizeof dates ? sizeof dates - k : 0,
                            "%s%s", k ? ", " : "", d);
    runs += s->nruns;
    for (size_t c = 0; c < s->nconfigs; c++)
      passed += s->configs[c].npassed;
  }
  fprintf(ctx->md, "Measured on %s: %zu %s in %zu result %s (", dates, runs,
          np_report__plural(runs, "run", "runs"), ctx->nsets,
          np_report__plural(ctx->nsets, "set", "sets"));
  for (size_t i = 0; i < ctx->nsets; i++) {
    char name[300];
    np_report__md_text(name, sizeof name, ctx->info[i].name);
    fprintf(ctx->md, "%s%s: %zu", i ? ", " : "", name, ctx->sets[i]->nruns);
  }
  fprintf(ctx->md,
          "), %zu passed. Each run is an independent `netproof-bench` "
          "process; every figure below traces to its raw record.\n\n",
          passed);
}

/* Distinct sorted values of a numeric dimension. */
static size_t distinct(const struct np_results_set *s, enum np_results_dim d,
                       double *out) {
  size_t n = 0;
  for (size_t i = 0; i < s->nconfigs; i++) {
    double v = s->configs[i].dimv[d];
    size_t j = 0;
    while (j < n && out[j] < v)
      j++;
    if (j < n && out[j] == v)
      continue;
    memmove(out + j + 1, out + j, (n - j) * sizeof *out);
    out[j] = v;
    n++;
  }
  return n;
}

void np_pages__lost_table(struct np_report_ctx *ctx,
                          const struct np_results_set *s) {
  double *pays = calloc(s->nconfigs + 1, sizeof *pays),
         *wins = calloc(s->nconfigs + 1, sizeof *wins);
  if (pays == NULL || wins == NULL)
    goto done;
  size_t np = distinct(s, NP_D_PAYLOAD, pays), nw = distinct(s, NP_D_WINDOW, wins);
  fprintf(ctx->md, "| Payload / B |");
  for (size_t w = 0; w < nw; w++)
    fprintf(ctx->md, " Window %.0f: lost echoes per run (count; %% of sent) |",
            wins[w]);
  fprintf(ctx->md, "\n|---:|");
  for (size_t w = 0; w < nw; w++)
    fprintf(ctx->md, "---:|");
  fprintf(ctx->md, "\n");
  cJSON *rows = np_report__new_table(ctx, "lost_by_payload_window", s);
  for (size_t p = 0; p < np; p++) {
    char pay[32];
    np_fmt_num(pay, sizeof pay, pays[p], 0);
    fprintf(ctx->md, "| %s |", pay);
    for (size_t w = 0; w < nw; w++) {
      const struct np_results_config *c = NULL;
      for (size_t i = 0; i < s->nconfigs; i++)
        if (s->configs[i].dimv[NP_D_PAYLOAD] == pays[p] &&
            s->configs[i].dimv[NP_D_WINDOW] == wins[w])
          c = &s->configs[i];
      if (c == NULL) {
        fprintf(ctx->md, " not run |");
        continue;
      }
      double med, mn, mx, pct[3];
      char cell[160];
      np_results_stat(c, NP_M_LOST, 0, &med, &mn, &mx);
      np_report_loss_pct(c, 0, &pct[0], &pct[1], &pct[2]);
      np_report_loss_cell(cell, sizeof cell, (const double[3]){med, mn, mx},
                          pct);
      fprintf(ctx->md, " %s (%zu/%zu passed%s) |", cell, c->npassed,
              c->nruns, c->expect_fail ? ", fail expected" : "");
      cJSON *r = cJSON_CreateObject();
      cJSON_AddStringToObject(r, "config", c->id);
      np_json_add_number(r, "payload", pays[p]);
      np_json_add_number(r, "window", wins[w]);
      cJSON *o = cJSON_AddObjectToObject(r, "lost");
      np_json_add_number(o, "median", med);
      np_json_add_number(o, "min", mn);
      np_json_add_number(o, "max", mx);
      o = cJSON_AddObjectToObject(r, "lost_of_sent_percent");
      np_json_add_number(o, "median", pct[0]);
      np_json_add_number(o, "min", pct[1]);
      np_json_add_number(o, "max", pct[2]);
      cJSON_AddNumberToObject(r, "runs_passed", (double)c->npassed);
      cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
      cJSON_AddItemToArray(rows, r);
    }
    fprintf(ctx->md, "\n");
  }
  fprintf(ctx->md,
          "\nLost echoes counted in the measurement phase, median (min-max) "
          "over the repetitions, as a count and as a percentage of the echo "
          "requests each repetition sent. A configuration with any failed repetition "
          "is excluded from throughput comparisons; its records stay in the "
          "result set.\n\n");
done:
  free(pays);
  free(wins);
}

static void fmt_count(char *buf, size_t len, double v) {
  np_fmt_num(buf, len, v, 0);
}

/* Kernel counters over the whole suite (first snapshot before the first
 * run, last after the last) and summed per-run deltas. */
void np_pages__kernel_evidence(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  double first = NAN, last = NAN, sum[NP_K_COUNT_] = {0}, lost = 0, sent = 0;
  const char *ffile = NULL, *lfile = NULL;
  const char *fat = NULL, *lat = NULL;
  for (size_t i = 0; i < s->nruns; i++) {
    const struct np_results_run *r = &s->runs[i];
    const char *at = np_json_get_string(r->doc, "started_at", "");
    if (isfinite(r->kbefore[NP_K_RCVBUF]) && (fat == NULL || strcmp(at, fat) < 0)) {
      fat = at;
      first = r->kbefore[NP_K_RCVBUF];
      ffile = r->id;
    }
    if (isfinite(r->kafter[NP_K_RCVBUF]) && (lat == NULL || strcmp(at, lat) >= 0)) {
      lat = at;
      last = r->kafter[NP_K_RCVBUF];
      lfile = r->id;
    }
    for (int k = 0; k < NP_K_COUNT_; k++)
      sum[k] += isfinite(r->kafter[k] - r->kbefore[k])
                    ? r->kafter[k] - r->kbefore[k]
                    : 0;
    lost += isfinite(r->m[NP_M_LOST]) ? r->m[NP_M_LOST] : 0;
    double sn = np_json_get_number(
        cJSON_GetObjectItemCaseSensitive(r->doc, "counters"), "sent", NAN);
    sent += isfinite(sn) && isfinite(r->m[NP_M_LOST]) ? sn : 0;
  }
  char a[32], b[32], d[32], rq[32], ok[32], fc[32], l[160];
  fmt_count(a, sizeof a, first);
  fmt_count(b, sizeof b, last);
  fmt_count(d, sizeof d, sum[NP_K_RCVBUF]);
  fmt_count(rq, sizeof rq, sum[NP_K_REASM_REQDS]);
  fmt_count(ok, sizeof ok, sum[NP_K_REASM_OKS]);
  fmt_count(fc, sizeof fc, sum[NP_K_FRAG_CREATES]);
  double pct[3] = {sent > 0 ? 100 * lost / sent : NAN, NAN, NAN};
  np_report_loss_cell(l, sizeof l, (const double[3]){lost, NAN, NAN}, pct);
  fprintf(
      ctx->md,
      "| Suite | Udp RcvbufErrors: start → end | Sum of per-run Δ "
      "(runner's snapshots, warm-up included) | IPv4 "
      "ReasmReqds / ReasmOKs / FragCreates Δ | Lost echoes measured (count; "
      "%% of sent) |\n"
      "|---|---:|---:|---:|---:|\n"
      "| %s | %s → %s | %s | %s / %s / %s | %s |\n\n",
      np_report__info(ctx, s)->name, a, b, d, rq, ok, fc, l);
  fprintf(ctx->md,
          "Start is the runner's snapshot before `%s`, end the one after "
          "`%s` (`rep-N.kernel-before.txt` / `-after.txt`). The kernel "
          "counters are system-wide and cover warm-up too, so they can "
          "exceed the lost echoes counted in the measurement phase; a "
          "reassembly delta of zero means no IPv4 fragmentation took part "
          "in the loss. The loss table's `RcvbufErrors Δ` is another "
          "quantity: each run's delta over its measurement phase alone "
          "(median over the repetitions).\n\n",
          ffile ? ffile : "-", lfile ? lfile : "-");
  cJSON *rows = np_report__new_table(ctx, "kernel_evidence", s);
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToArray(rows, r);
  np_json_add_number(r, "udp_rcvbuf_errors_start", first);
  np_json_add_number(r, "udp_rcvbuf_errors_end", last);
  np_json_add_number(r, "udp_rcvbuf_errors_delta_sum", sum[NP_K_RCVBUF]);
  np_json_add_number(r, "ip_reasm_reqds_delta_sum", sum[NP_K_REASM_REQDS]);
  np_json_add_number(r, "ip_reasm_oks_delta_sum", sum[NP_K_REASM_OKS]);
  np_json_add_number(r, "ip_frag_creates_delta_sum", sum[NP_K_FRAG_CREATES]);
  np_json_add_number(r, "lost_sum", lost);
  np_json_add_number(r, "sent_sum", sent);
  np_json_add_number(r, "lost_of_sent_percent", pct[0]);
  cJSON_AddStringToObject(r, "start_run", ffile ? ffile : "");
  cJSON_AddStringToObject(r, "end_run", lfile ? lfile : "");
}

/* Options of configuration id in summary.json, or NULL. */
static const cJSON *options_of(const struct np_results_set *s, const char *id) {
  const cJSON *e, *cfgs = cJSON_GetObjectItemCaseSensitive(s->summary,
                                                           "configurations");
  cJSON_ArrayForEach(e, cfgs) {
    if (strcmp(np_json_get_string(e, "id", ""), id) == 0)
      return cJSON_GetObjectItemCaseSensitive(e, "options");
  }
  return NULL;
}

/* The one option a and b differ in (same keys otherwise), or NULL. */
static const cJSON *one_change(const cJSON *a, const cJSON *b) {
  const cJSON *diff = NULL, *o;
  if (a == NULL || b == NULL ||
      cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
    return NULL;
  cJSON_ArrayForEach(o, b) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, o->string);
    if (x == NULL)
      return NULL;
    if (!cJSON_Compare(x, o, 1)) {
      if (diff != NULL)
        return NULL;
      diff = o;
    }
  }
  return diff;
}

/* Passed configurations one option away from c, as "`--window 16`
 * (`id`)" items; their count. */
static size_t neighbours(const struct np_results_set *s,
                         const struct np_results_config *c, char *buf,
                         size_t len) {
  const cJSON *oc = options_of(s, c->id);
  size_t n = 0, k = 0;
  buf[0] = '\0';
  for (size_t i = 0; oc && i < s->nconfigs; i++) {
    const struct np_results_config *p = &s->configs[i];
    if (p == c || p->npassed != p->nruns || p->nruns == 0)
      continue;
    const cJSON *d = one_change(oc, options_of(s, p->id));
    if (d == NULL || strcmp(d->string, "seconds") == 0 ||
        strcmp(d->string, "warmup") == 0)
      continue;
    char v[64];
    if (cJSON_IsNumber(d))
      snprintf(v, sizeof v, "%g", d->valuedouble);
    else
      snprintf(v, sizeof v, "%s", cJSON_IsString(d) ? d->valuestring : "?");
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s`--%s %s` (`%s`)",
                          n ? ", or " : "", d->string, v, p->id);
    n++;
  }
  return n;
}

/* The run to show as the single-run example: an expected failure with
 * loss-free neighbours (the reference's overflow probe), else the first
 * expected failure, else the first run in plan order. */
static const struct np_results_run *
example_run(const struct np_results_set *s, const struct np_results_config **cf) {
  const struct np_results_config **v = np_report_plan_order(s);
  const struct np_results_run *r = NULL;
  char tmp[1024];
  for (int pass = 0; pass < 3 && r == NULL; pass++)
    for (size_t i = 0; v && i < s->nconfigs && r == NULL; i++) {
      const struct np_results_config *c = v[i];
      if (c->runs[0].cmd == NULL || (pass < 2 && !c->expect_fail) ||
          (pass == 0 && neighbours(s, c, tmp, sizeof tmp) == 0))
        continue;
      r = &c->runs[0];
      *cf = c;
    }
  free(v);
  return r;
}

void np_pages__reproduce(struct np_report_ctx *ctx, const char *results_rel) {
  (void)results_rel;
  fprintf(ctx->md, "## Reproduce\n\n"
                   "Build Release (`cmake -S . -B build -DCMAKE_BUILD_TYPE="
                   "Release && cmake --build build`), then run each suite; "
                   "every repetition is its own process:\n\n```sh\n");
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    char plan[300];
    if (!np_fmt_plan_path(plan, sizeof plan,
                          np_json_get_string(s->suite, "plan_file", NULL)))
      fprintf(ctx->md, "jq .plan results/%s/suite.json > %s  # not a "
              "shipped plan: its copy\n", s->label, plan);
    fprintf(ctx->md, "netproof-bench matrix %s --output results/%s\n", plan,
            s->label);
  }
  fprintf(ctx->md, "```\n\nOne run of each suite, exactly as the runner "
                   "started it (its record went to `--output`):\n\n```sh\n");
  char nb[4096] = "";
  size_t k = 0;
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_config *c = NULL;
    const struct np_results_run *r = example_run(ctx->sets[i], &c);
    if (r == NULL)
      continue;
    fprintf(ctx->md, "# %s%s\n%s\n", r->id,
            r->passed ? "" : " (this probe fails: non-zero exit status)",
            r->cmd);
    char list[1024];
    if (!r->passed && neighbours(ctx->sets[i], c, list, sizeof list) > 0)
      k += (size_t)snprintf(nb + k, k < sizeof nb ? sizeof nb - k : 0,
                            "- `%s` is expected to exit non-zero. Change "
                            "%s to reproduce the loss-free configurations "
                            "of the same suite.\n",
                            r->id, list);
  }
  fprintf(ctx->md, "```\n\n");
  if (k > 0)
    fprintf(ctx->md, "%s\n", nb);
  fprintf(ctx->md, "Regenerate this page and check the evidence:\n\n"
                   "```sh\nnetproof-report --pages");
  for (size_t i = 0; i < ctx->nsets; i++)
    fprintf(ctx->md, " --results results/%s", ctx->sets[i]->label);
  fprintf(ctx->md, " --output docs/performance\nnetproof-report --self-check");
  for (size_t i = 0; i < ctx->nsets; i++)
    fprintf(ctx->md, " --results results/%s", ctx->sets[i]->label);
  fprintf(ctx->md, "\n```\n\n");
}

void np_pages__links(struct np_report_ctx *ctx, const char *results_rel) {
  fprintf(ctx->md, "## Raw evidence\n\n");
  for (size_t i = 0; i < ctx->nsets; i++) {
    const char *l = ctx->sets[i]->label;
    fprintf(ctx->md,
            "- %s: [records, commands and machine](%s/%s/) · "
            "[per-run kernel snapshots and stderr](%s/%s/runs/) · "
            "[summary.json](%s/%s/summary.json)\n",
            ctx->info[i].name, results_rel, l, results_rel, l,
            results_rel, l);
  }
  fprintf(ctx->md, "\n");
}

int np_pages__reading(struct np_report_ctx *ctx, const char *text, size_t len,
                      const char *page, const char *file) {
  fprintf(ctx->md, "## Reading the results\n\n");
  if (text == NULL || len == 0) {
    fprintf(ctx->md,
            "_No reading yet: write it in `docs/performance/%s.reading.md`; "
            "it is embedded here on regeneration, its references expanded "
            "from the sets._\n\n",
            page);
    return 0;
  }
  int rc = np_report_refs_expand(text, len, file, ctx->sets, ctx->nsets,
                                 ctx->md, ctx->eb);
  if (rc != 0)
    return rc;
  if (text[len - 1] != '\n')
    fputc('\n', ctx->md);
  fputc('\n', ctx->md);
  return 0;
}
