/*
 * np_report_isolation.c - the receive-buffer isolation experiment
 * (reference 003's "Receive Buffer Isolation"): per plan row, how many
 * echoes were lost, next to how much payload the clients may have in
 * flight (clients x window x payload) and how large the server's receive
 * buffer really was (the effective size the kernel reports, which on
 * Linux is twice the request).  The chart shows lost echoes and the
 * kernel's own per-socket drop count as two series on one log axis (both
 * are datagrams per run), with "budget / buffer" under each row label.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_chart.h"
#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_loss.h"
#include "np_report_int.h"

/* "16 MiB", "1.44 MiB", "256 KiB": sizes short enough for a category
 * note, with their unit. */
static void compact_bytes(char *buf, size_t len, double v) {
  if (!isfinite(v))
    snprintf(buf, len, "-");
  else if (v >= 1048576)
    snprintf(buf, len, "%.3g MiB", v / 1048576);
  else if (v >= 1024)
    snprintf(buf, len, "%.3g KiB", v / 1024);
  else
    snprintf(buf, len, "%.0f B", v);
}

static double budget(const struct np_results_config *c) {
  return c->dimv[NP_D_PAYLOAD] * c->dimv[NP_D_CLIENTS] * c->dimv[NP_D_WINDOW];
}

int np_report__isolation_chart(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  const struct np_results_config **v = np_report_plan_order(s);
  size_t n = s->nconfigs;
  const char **cats = calloc(n, sizeof *cats), **notes = calloc(n, sizeof *notes);
  char (*ctext)[96] = calloc(n, sizeof *ctext), (*ntext)[160] = calloc(n, sizeof *ntext);
  double *val = calloc(n * 6, sizeof *val);
  unsigned char *marks = calloc(2 * n + 1, 1);
  char *svg = NULL;
  int rc = 0;
  if (!v || !cats || !notes || !ctext || !ntext || !val || !marks) {
    rc = NP_ENOMEM;
    goto done;
  }
  size_t maxruns = 0, minruns = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_results_config *c = v[i];
    char pay[32], b[32], r[32];
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    compact_bytes(b, sizeof b, budget(c));
    compact_bytes(r, sizeof r, c->dimv[NP_D_SRVBUF]);
    snprintf(ctext[i], sizeof ctext[i], "%s B", pay);
    snprintf(ntext[i], sizeof ntext[i], "window %s, %s / %s",
             c->dim[NP_D_WINDOW], b, r);
    cats[i] = ctext[i];
    notes[i] = ntext[i];
    size_t k =
        np_results_stat(c, NP_M_LOST, 0, &val[i], &val[n + i], &val[2 * n + i]);
    np_results_stat(c, NP_M_KDROPS, 0, &val[3 * n + i], &val[4 * n + i],
                    &val[5 * n + i]);
    if (np_report__short(ctx, s, c))
      marks[i] = marks[n + i] = NP_CHART_MISSING;
    minruns = minruns == 0 || (k > 0 && k < minruns) ? k : minruns;
    maxruns = k > maxruns ? k : maxruns;
    any |= val[2 * n + i] > 0 || val[5 * n + i] > 0;
  }
  if (!any || n < 2)
    goto done; /* nothing lost: the table says so, a chart would be empty */
  const struct np_chart_series ser[2] = {
      {"lost echoes", &val[0], &val[n], &val[2 * n], marks,
       np_report__style(ctx, "lost echoes")},
      {"kernel socket drops", &val[3 * n], &val[4 * n], &val[5 * n], marks + n,
       np_report__style(ctx, "kernel socket drops")}};
  const cJSON *m0 =
      cJSON_GetObjectItemCaseSensitive(v[0]->runs[0].doc, "machine");
  char subtitle[700], caption[200], nb[4][200];
  const char *nv[5];
  snprintf(subtitle, sizeof subtitle,
           "%s clients, IO model %s, backend %s, %g s measured, %s, set %s, "
           "machine %s",
           v[0]->dim[NP_D_CLIENTS], v[0]->dim[NP_D_MODEL],
           v[0]->dim[NP_D_BACKEND],
           np_results_num(v[0]->runs[0].doc, "/config/seconds"),
           np_json_get_string(np_json_pointer(v[0]->runs[0].doc, "/config"),
                              "address", "-"),
           np_report__info(ctx, s)->name,
           np_json_get_string(m0, "hostname", "unknown"));
  np_chart_runs_caption(caption, sizeof caption, minruns, maxruns, "run", 0);
  struct np_chart ch = {
      .title = "Receive-buffer isolation: lost echoes and kernel socket drops",
      .subtitle = subtitle,
      .xlabel = "payload; below: window, in-flight budget / effective server "
                "rcvbuf",
      .ylabel = "datagrams per run (log)",
      .caption = caption,
      .notes_extra = np_report__chart_notes(s, nb, nv, 5),
      .stamp = np_report__stamp(ctx, s),
      .log_y = 1,
      .ncat = n,
      .categories = cats,
      .notes = notes,
      .nseries = 2,
      .series = ser};
  size_t len = 0;
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  cJSON *jc = NULL;
  char alt[800];
  snprintf(alt, sizeof alt, "%s: %s", ch.title, subtitle);
  if (rc == 0)
    rc = np_report_add_chart(ctx, "isolation-lost", svg, len, alt, &jc);
  if (rc != 0)
    goto done;
  cJSON_AddStringToObject(jc, "set", np_report__info(ctx, s)->name);
  cJSON_AddStringToObject(jc, "title", ch.title);
  cJSON_AddStringToObject(jc, "subtitle", subtitle);
  cJSON_AddStringToObject(jc, "y_label", ch.ylabel);
  cJSON_AddBoolToObject(jc, "log_y", 1);
  cJSON *js = cJSON_AddArrayToObject(jc, "series");
  for (size_t k = 0; k < 2; k++)
    for (size_t i = 0; i < n; i++) {
      cJSON *b = cJSON_CreateObject();
      cJSON_AddStringToObject(b, "series", ser[k].name);
      cJSON_AddStringToObject(b, "category", cats[i]);
      cJSON_AddStringToObject(b, "note", notes[i]);
      cJSON_AddStringToObject(b, "config", v[i]->id);
      cJSON_AddBoolToObject(b, "excluded", 0);
      cJSON_AddBoolToObject(b, "missing", (marks[k * n + i] & NP_CHART_MISSING) != 0);
      np_json_add_number(b, "median", ser[k].mid[i]);
      np_json_add_number(b, "min", ser[k].lo[i]);
      np_json_add_number(b, "max", ser[k].hi[i]);
      cJSON_AddItemToObject(b, "runs", np_report_run_ids(v[i], 0));
      cJSON_AddItemToArray(js, b);
    }
done:
  free(svg);
  free(v);
  free(cats);
  free(notes);
  free(ctext);
  free(ntext);
  free(val);
  free(marks);
  return rc;
}

void np_report__isolation_table(struct np_report_ctx *ctx,
                                const struct np_results_set *s) {
  const struct np_results_config **v = np_report_plan_order(s);
  if (v == NULL)
    return;
  fprintf(ctx->md,
          "| Payload / B | Outstanding per client | Effective server receive "
          "buffer | Total outstanding payload budget | Runs passed | Loss per "
          "run (count; %% of sent) | Kernel socket drops | RcvbufErrors Δ |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, "buffer_isolation", s);
  size_t same = 0;
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = v[i];
    double med[3], mn[3], mx[3];
    const enum np_results_metric ms[3] = {NP_M_LOST, NP_M_KDROPS, NP_M_RCVBUF};
    char pay[32], win[32], srv[32], bud[32], cell[3][64];
    for (int k = 0; k < 3; k++) {
      np_results_stat(c, ms[k], 0, &med[k], &mn[k], &mx[k]);
      np_fmt_range(cell[k], sizeof cell[k], med[k], mn[k], mx[k], 0);
    }
    double pct[3], cnt[3] = {med[0], mn[0], mx[0]};
    char lost[160];
    np_report_loss_pct(c, 0, &pct[0], &pct[1], &pct[2]);
    np_report_loss_cell(lost, sizeof lost, cnt, pct);
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    np_fmt_num(win, sizeof win, c->dimv[NP_D_WINDOW], 0);
    np_fmt_bytes(srv, sizeof srv, c->dimv[NP_D_SRVBUF]);
    np_fmt_bytes(bud, sizeof bud, budget(c));
    same += mn[0] == mx[0];
    fprintf(ctx->md, "| %s | %s | %s | %s | %zu / %zu%s%s | %s | %s | %s |\n",
            pay, win, srv, bud, c->npassed, c->nruns,
            c->expect_fail ? " (fail expected)" : "",
            np_report__short(ctx, s, c) ? " (missing runs)" : "", lost, cell[1],
            cell[2]);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "config", c->id);
    np_json_add_number(r, "server_rcvbuf_effective_bytes", c->dimv[NP_D_SRVBUF]);
    np_json_add_number(r, "budget_bytes", budget(c));
    cJSON_AddBoolToObject(r, "expect_fail", c->expect_fail);
    cJSON *o = cJSON_AddObjectToObject(r, "lost");
    np_json_add_number(o, "median", med[0]);
    np_json_add_number(o, "min", mn[0]);
    np_json_add_number(o, "max", mx[0]);
    o = cJSON_AddObjectToObject(r, "lost_of_sent_percent");
    np_json_add_number(o, "median", pct[0]);
    np_json_add_number(o, "min", pct[1]);
    np_json_add_number(o, "max", pct[2]);
    o = cJSON_AddObjectToObject(r, "kernel_drops");
    np_json_add_number(o, "median", med[1]);
    np_json_add_number(o, "min", mn[1]);
    np_json_add_number(o, "max", mx[1]);
    o = cJSON_AddObjectToObject(r, "udp_rcvbuf_errors_delta");
    np_json_add_number(o, "median", med[2]);
    np_json_add_number(o, "min", mn[2]);
    np_json_add_number(o, "max", mx[2]);
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(rows, r);
  }
  if (same == s->nconfigs)
    fprintf(ctx->md, "\nThe loss per run is identical across the "
                     "repetitions of every row.\n");
  else
    fprintf(ctx->md, "\nThe loss per run is identical across the "
                     "repetitions in %zu of %zu rows; the others show "
                     "their range.\n", same, s->nconfigs);
  fprintf(ctx->md,
          "\nLoss per run: median (min-max) over the repetitions. The budget "
          "is clients × window × payload, not an exact queue length; the "
          "effective buffer is what the kernel reports for the server socket "
          "(Linux doubles the request for its own bookkeeping). RcvbufErrors "
          "is machine-wide.\n\n");
  free(v);
}

/* The first run of the plan that lost echoes and has the record's own
 * kernel snapshots: Udp RcvbufErrors before -> after against its loss. */
void np_report__kernel_example(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  const struct np_results_config **v = np_report_plan_order(s);
  for (size_t i = 0; v && i < s->nconfigs; i++)
    for (size_t k = 0; k < v[i]->nruns; k++) {
      const struct np_results_run *r = &v[i]->runs[k];
      double b = np_results_num(r->doc,
                                "/kernel/before/counters/Udp.RcvbufErrors");
      double a = np_results_num(r->doc,
                                "/kernel/after/counters/Udp.RcvbufErrors");
      double rq = np_results_num(r->doc, "/kernel/delta/Ip.ReasmReqds");
      double fc = np_results_num(r->doc, "/kernel/delta/Ip.FragCreates");
      if (!(r->m[NP_M_LOST] > 0) || !isfinite(a) || !isfinite(b))
        continue;
      char bs[32], as[32], ds[32], ls[32], ks[32];
      np_fmt_num(bs, sizeof bs, b, 0);
      np_fmt_num(as, sizeof as, a, 0);
      np_fmt_num(ds, sizeof ds, a - b, 0);
      np_fmt_num(ls, sizeof ls, r->m[NP_M_LOST], 0);
      np_fmt_num(ks, sizeof ks, r->m[NP_M_KDROPS], 0);
      fprintf(ctx->md,
              "In `%s` the kernel's machine-wide `Udp RcvbufErrors` "
              "(datagrams dropped because a socket's receive buffer was "
              "full) went from %s to %s: +%s, %s the run's %s lost echoes "
              "(the server socket's own drop counter: %s). IPv4 reassembly "
              "and fragmentation in that run: %.0f / %.0f.\n\n",
              r->id, bs, as, ds,
              a - b == r->m[NP_M_LOST] ? "exactly" : "against", ls, ks,
              isfinite(rq) ? rq : 0, isfinite(fc) ? fc : 0);
      cJSON *rows = np_report__new_table(ctx, "kernel_example", s);
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "run", r->id);
      np_json_add_number(o, "udp_rcvbuf_errors_before", b);
      np_json_add_number(o, "udp_rcvbuf_errors_after", a);
      np_json_add_number(o, "lost", r->m[NP_M_LOST]);
      np_json_add_number(o, "kernel_drops", r->m[NP_M_KDROPS]);
      cJSON_AddItemToArray(rows, o);
      free(v);
      return;
    }
  free(v);
}
