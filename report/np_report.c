/*
 * np_report.c - assemble index.md and report.json from the parts, and
 * write the finished tree to disk.
 *
 * Each set is its own section, named by its display name (--label, else
 * its folder), with its own conditions, headline, charts and tables; its
 * chart files start with its slug, so sets of one plan never collide.
 */
#include "np_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "np_file.h"
#include "np_json.h"
#include "np_report_exec.h"
#include "np_report_latency.h"
#include "np_report_int.h"
#include "np_outdir.h"
#include "np_report_rudp.h"
#include "np_results_exec.h"
#include "np_results_rudp.h"

/* The default title names what the sets measured (a set of someone
 * else's server is titled by np_report__title_default instead). */
static const char *default_title(struct np_results_set *const *sets,
                                 size_t nsets) {
  size_t rudp = 0, exec = 0;
  for (size_t i = 0; i < nsets; i++) {
    rudp += (size_t)np_results_is_rudp(sets[i]);
    exec += (size_t)np_results_is_exec(sets[i]);
  }
  if (exec == nsets)
    return "netproof benchmark evidence report";
  return rudp == nsets - exec ? "netproof reliable-UDP performance report"
         : rudp == 0          ? "netproof UDP performance report"
                 : "netproof UDP and reliable-UDP performance report";
}

static void md_intro(struct np_report_ctx *ctx, const char *title) {
  size_t runs = 0, configs = 0;
  for (size_t i = 0; i < ctx->nsets; i++) {
    runs += ctx->sets[i]->nruns;
    configs += ctx->sets[i]->nconfigs;
  }
  char t[600];
  np_report__md_text(t, sizeof t, title);
  fprintf(ctx->md, "# %s\n\n", t);
  fprintf(ctx->md,
          "%zu %s of %zu %s in %zu result %s, each run an independent "
          "process (conditions below). Every figure below is traceable to "
          "its run records through report.json.\n\n",
          runs, np_report__plural(runs, "run", "runs"), configs,
          np_report__plural(configs, "configuration", "configurations"),
          ctx->nsets, np_report__plural(ctx->nsets, "set", "sets"));
}

static int build_set(struct np_report_ctx *ctx,
                     const struct np_results_set *s) {
  const struct np_report_setinfo *in = np_report__info(ctx, s);
  char prefix[200], name[300];
  snprintf(prefix, sizeof prefix, "%s-", in->slug);
  ctx->asset_prefix = prefix;
  np_report__md_text(name, sizeof name, in->name);
  if (np_results_is_exec(s)) /* any benchmark program: its own section */
    return np_report_exec(ctx, s);
  if (np_results_is_rudp(s)) {
    fprintf(ctx->md, "## Reliable UDP: %s\n\n", name);
    np_report__conditions_set(ctx, s);
    np_report_rudp_network(ctx, s);
    int rc = np_report__headline(ctx, s);
    if (rc == 0)
      rc = np_report_rudp_charts(ctx, s);
    if (rc == 0)
      np_report_rudp_tables(ctx, s);
    if (rc == 0) /* --interval series where recorded */
      rc = np_report_latency_series(ctx, s);
    return rc;
  }
  fprintf(ctx->md, "## Throughput and latency: %s\n\n", name);
  np_report__conditions_set(ctx, s);
  int rc = np_report__headline(ctx, s);
  if (np_report_is_stream(s)) /* no round trips: the streams table */
    return rc == 0 ? np_report_latency(ctx, s) : rc;
  if (rc == 0)
    rc = np_report__charts(ctx, s, "io");
  if (rc == 0)
    rc = np_report__charts(ctx, s, "grid");
  if (rc != 0)
    return rc;
  np_report__tables_perf(ctx, s);
  rc = np_report__charts(ctx, s, "limits");
  if (rc != 0)
    return rc;
  np_report__tables_limits(ctx, s);
  if (strcmp(np_json_get_string(s->suite, "suite", ""),
             "udp-buffer-isolation") == 0) {
    fprintf(ctx->md, "### Receive buffer isolation\n\n");
    rc = np_report__isolation_chart(ctx, s);
    if (rc == 0)
      np_report__isolation_table(ctx, s);
  }
  np_report__kernel_example(ctx, s);
  return np_report_latency(ctx, s); /* open loop, distributions, series */
}

int np_report_build(struct np_results_set *const *sets, size_t nsets,
                    const struct np_report_opts *opts, struct np_ftree **out,
                    struct np_errbuf *eb) {
  if (sets == NULL || nsets == 0 || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "report: no result sets");
  char server_title[512];
  const char *title =
      opts && opts->title ? opts->title
      : np_report__title_default(sets, nsets, server_title, sizeof server_title)
          ? server_title
          : default_title(sets, nsets);
  struct np_report_ctx ctx = {.sets = sets, .nsets = nsets, .opts = opts,
                              .eb = eb,
                              .error_bars = opts ? opts->error_bars
                                                 : NP_REPORT_EB_AUTO};
  char *md = NULL, *js = NULL;
  size_t mdlen = 0;
  int rc = np_ftree_new(&ctx.out);
  if (rc != 0)
    return rc;
  rc = np_report__info_init(&ctx, opts ? opts->labels : NULL,
                            opts ? opts->check_failed : NULL);
  ctx.json = cJSON_CreateObject();
  ctx.md = open_memstream(&md, &mdlen);
  if (rc != 0 || ctx.json == NULL || ctx.md == NULL) {
    rc = NP_ENOMEM;
    goto fail;
  }
  cJSON_AddStringToObject(ctx.json, "schema", "netproof/report/1");
  cJSON_AddStringToObject(ctx.json, "title", title);
  cJSON *jsets = cJSON_AddArrayToObject(ctx.json, "sets");
  for (size_t i = 0; i < nsets; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "label", ctx.info[i].name);
    cJSON_AddStringToObject(j, "folder", sets[i]->label);
    cJSON_AddStringToObject(j, "suite",
                            np_json_get_string(sets[i]->suite, "suite", ""));
    cJSON_AddNumberToObject(j, "runs", (double)sets[i]->nruns);
    cJSON_AddNumberToObject(j, "configurations", (double)sets[i]->nconfigs);
    cJSON_AddNumberToObject(j, "configurations_missing",
                            (double)ctx.info[i].nmissing);
    cJSON_AddBoolToObject(j, "self_check_failed", ctx.info[i].check_failed);
    cJSON_AddItemToArray(jsets, j);
  }
  ctx.jtables = cJSON_AddArrayToObject(ctx.json, "tables");
  ctx.jcharts = cJSON_AddArrayToObject(ctx.json, "charts");
  md_intro(&ctx, title);
  np_report__banners(&ctx);
  np_report__tables_correctness(&ctx);
  np_report__conditions_common(&ctx);
  int any_udp = 0;
  for (size_t i = 0; i < nsets && rc == 0; i++) {
    rc = build_set(&ctx, sets[i]);
    any_udp |= !np_results_is_rudp(sets[i]) && !np_results_is_exec(sets[i]);
  }
  if (rc != 0)
    goto fail;
  if (any_udp)
    np_report__tables_mtu(&ctx);
  if (fclose(ctx.md) != 0) {
    ctx.md = NULL;
    rc = NP_ENOMEM;
    goto fail;
  }
  ctx.md = NULL;
  js = np_json_print(ctx.json, 1);
  if (js == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "report: printing report.json failed");
    goto fail;
  }
  rc = np_ftree_add(ctx.out, "index.md", md, mdlen);
  if (rc == 0)
    rc = np_ftree_add(ctx.out, "report.json", js, strlen(js));
  if (rc != 0)
    goto fail;
  free(md);
  free(js);
  free(ctx.info);
  cJSON_Delete(ctx.json);
  *out = ctx.out;
  return 0;
fail:
  if (ctx.md != NULL)
    fclose(ctx.md);
  free(md);
  free(js);
  free(ctx.info);
  cJSON_Delete(ctx.json);
  np_ftree_free(ctx.out);
  if (rc == NP_ENOMEM)
    np_errbuf_set(eb, rc, "report: out of memory");
  else if (rc == NP_EEXIST)
    np_errbuf_set(eb, rc, "report: two charts with one file name (a bug)");
  return rc;
}

int np_report_write_tree(const struct np_ftree *t, const char *outdir,
                         struct np_errbuf *eb) {
  struct np_outdir *o = NULL;
  int rc = np_outdir_open(outdir, &o, eb);
  for (size_t i = 0; rc == 0 && i < np_ftree_count(t); i++) {
    const char *rel = np_ftree_path_at(t, i);
    size_t len;
    const char *data = np_ftree_get(t, rel, &len);
    rc = np_outdir_write(o, rel, data, len, eb);
  }
  np_outdir_close(o);
  return rc;
}
