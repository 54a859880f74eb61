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
#include "np_report_int.h"

/* "16M", "1.44M", "256K": sizes short enough for a category note. */
static void compact_bytes(char *buf, size_t len, double v) {
  if (!isfinite(v))
    snprintf(buf, len, "-");
  else if (v >= 1048576)
    snprintf(buf, len, "%.3gM", v / 1048576);
  else if (v >= 1024)
    snprintf(buf, len, "%.3gK", v / 1024);
  else
    snprintf(buf, len, "%.0f", v);
}

static double budget(const struct np_results_config *c) {
  return c->dimv[NP_D_PAYLOAD] * c->dimv[NP_D_CLIENTS] * c->dimv[NP_D_WINDOW];
}

int np_report_isolation_chart(struct np_report_ctx *ctx,
                              const struct np_results_set *s) {
  const struct np_results_config **v = np_report_plan_order(s);
  size_t n = s->nconfigs;
  const char **cats = calloc(n, sizeof *cats), **notes = calloc(n, sizeof *notes);
  char (*ctext)[96] = calloc(n, sizeof *ctext), (*ntext)[96] = calloc(n, sizeof *ntext);
  double *val = calloc(n * 6, sizeof *val);
  char *svg = NULL;
  int rc = 0;
  if (!v || !cats || !notes || !ctext || !ntext || !val) {
    rc = NP_ENOMEM;
    goto done;
  }
  size_t maxruns = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_results_config *c = v[i];
    char pay[32], b[32], r[32];
    snprintf(pay, sizeof pay, "%.0f", c->dimv[NP_D_PAYLOAD]);
    compact_bytes(b, sizeof b, budget(c));
    compact_bytes(r, sizeof r, c->dimv[NP_D_SRVBUF]);
    snprintf(ctext[i], sizeof ctext[i], "%s x%s", pay, c->dim[NP_D_WINDOW]);
    snprintf(ntext[i], sizeof ntext[i], "%s / %s", b, r);
    cats[i] = ctext[i];
    notes[i] = ntext[i];
    size_t k =
        np_results_stat(c, NP_M_LOST, 0, &val[i], &val[n + i], &val[2 * n + i]);
    np_results_stat(c, NP_M_KDROPS, 0, &val[3 * n + i], &val[4 * n + i],
                    &val[5 * n + i]);
    maxruns = k > maxruns ? k : maxruns;
    any |= val[2 * n + i] > 0 || val[5 * n + i] > 0;
  }
  if (!any || n < 2)
    goto done; /* nothing lost: the table says so, a chart would be empty */
  const struct np_chart_series ser[2] = {
      {"lost", &val[0], &val[n], &val[2 * n]},
      {"drops", &val[3 * n], &val[4 * n], &val[5 * n]}};
  const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(v[0]->runs[0].doc,
                                                     "machine");
  char subtitle[256];
  snprintf(subtitle, sizeof subtitle,
           "%s clients, IO model %s, backend %s, machine %s, %zu runs per bar",
           v[0]->dim[NP_D_CLIENTS], v[0]->dim[NP_D_MODEL],
           v[0]->dim[NP_D_BACKEND],
           np_json_get_string(m0, "hostname", "unknown"), maxruns);
  struct np_chart ch = {
      .title = "Receive-buffer isolation: lost echoes and kernel socket drops",
      .subtitle = subtitle,
      .xlabel = "payload (B) x window; below: in-flight budget / effective "
                "server rcvbuf",
      .ylabel = "datagrams per run (log)",
      .runs = (int)maxruns, .log_y = 1, .ncat = n, .categories = cats,
      .notes = notes, .nseries = 2, .series = ser};
  size_t len = 0;
  rc = np_chart_render_svg(&ch, &svg, &len, ctx->eb);
  cJSON *jc = NULL;
  char alt[512];
  snprintf(alt, sizeof alt, "%s: %s", ch.title, subtitle);
  if (rc == 0)
    rc = np_report_add_chart(ctx, "isolation-lost", svg, len, alt, &jc);
  if (rc != 0)
    goto done;
  cJSON_AddStringToObject(jc, "set", s->label);
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
  return rc;
}

void np_report_isolation_table(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  const struct np_results_config **v = np_report_plan_order(s);
  if (v == NULL)
    return;
  fprintf(ctx->md,
          "| Payload / B | Outstanding per client | Effective server receive "
          "buffer | Total outstanding payload budget | Runs passed | Loss per "
          "run | Kernel socket drops | RcvbufErrors Δ |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  cJSON *t = cJSON_CreateObject();
  cJSON_AddStringToObject(t, "name", "buffer_isolation");
  cJSON_AddStringToObject(t, "set", s->label);
  cJSON_AddItemToArray(ctx->jtables, t);
  cJSON *rows = cJSON_AddArrayToObject(t, "rows");
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = v[i];
    double med[3], mn[3], mx[3];
    const enum np_results_metric ms[3] = {NP_M_LOST, NP_M_KDROPS, NP_M_RCVBUF};
    char pay[32], win[32], srv[32], bud[32], cell[3][64];
    for (int k = 0; k < 3; k++) {
      np_results_stat(c, ms[k], 0, &med[k], &mn[k], &mx[k]);
      np_fmt_range(cell[k], sizeof cell[k], med[k], mn[k], mx[k], 0);
    }
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    np_fmt_num(win, sizeof win, c->dimv[NP_D_WINDOW], 0);
    np_fmt_bytes(srv, sizeof srv, c->dimv[NP_D_SRVBUF]);
    np_fmt_bytes(bud, sizeof bud, budget(c));
    fprintf(ctx->md, "| %s | %s | %s | %s | %zu / %zu%s | %s | %s | %s |\n",
            pay, win, srv, bud, c->npassed, c->nruns,
            c->expect_fail ? " (fail expected)" : "", cell[0], cell[1],
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
    o = cJSON_AddObjectToObject(r, "kernel_drops");
    np_json_add_number(o, "median", med[1]);
    np_json_add_number(o, "min", mn[1]);
    np_json_add_number(o, "max", mx[1]);
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(rows, r);
  }
  fprintf(ctx->md,
          "\nLoss per run: median (min-max) over the repetitions. The budget "
          "is clients × window × payload, not an exact queue length; the "
          "effective buffer is what the kernel reports for the server socket "
          "(Linux doubles the request for its own bookkeeping). RcvbufErrors "
          "is machine-wide.\n\n");
  free(v);
}
