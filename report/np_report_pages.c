/*
 * np_report_pages.c - assemble docs/performance/<page>.md from result sets
 * (layout in np_report_pages.h).  Each page is built like the index
 * report, into its own Markdown stream and report.json document, from the
 * same table and chart parts; only the order and the page-specific
 * sections differ.  Every set gets its own conditions; the page's top
 * table holds only what all its sets share.
 */
#include "np_report_pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_int.h"
#include "np_report_exec.h"
#include "np_report_latency.h"
#include "np_report_mdx.h"
#include "np_results_exec.h"
#include "np_report_rudp.h"

enum page { PAGE_UDP, PAGE_LIMITS, PAGE_RUDP, PAGE_COUNT_ };

static const char *const page_name[PAGE_COUNT_] = {"udp", "udp-limits",
                                                   "rudp"};
static const char *const page_title[PAGE_COUNT_] = {
    "UDP loopback performance", "UDP payload size limits and burst loss",
    "Reliable UDP (ARQ and FEC) performance"};

static const char *suite_of(const struct np_results_set *s) {
  return np_json_get_string(s->suite, "suite", s->label);
}

static enum page page_of(const struct np_results_set *s) {
  const char *n = suite_of(s);
  if (strncmp(n, "udp-size-limits", 15) == 0)
    return PAGE_LIMITS;
  if (strncmp(n, "rudp", 4) == 0)
    return PAGE_RUDP;
  return PAGE_UDP;
}

static const char *host_of(const struct np_results_set *s) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, "machine");
  return np_json_get_string(m, "hostname", "unknown");
}

/* "## <heading>" of a set: the suite's own heading, plus the set's name
 * when it is not the suite's (two sets of one suite on the page). */
static void heading(struct np_report_ctx *ctx, const struct np_results_set *s,
                    const char *what) {
  const struct np_report_setinfo *in = np_report__info(ctx, s);
  char name[300];
  np_report__md_text(name, sizeof name, in->name);
  if (strcmp(in->name, suite_of(s)) == 0 && what != NULL)
    fprintf(ctx->md, "## %s\n\n", what);
  else
    fprintf(ctx->md, "## %s: %s\n\n", what ? what : "Throughput and latency",
            name);
}

/* The throughput / latency part of one UDP set. */
static int udp_set(struct np_report_ctx *ctx, const struct np_results_set *s) {
  const char *n = suite_of(s);
  int rc = 0;
  if (np_results_is_exec(s)) /* any benchmark program: its own section */
    return np_report_exec(ctx, s);
  if (strcmp(n, "udp-buffer-isolation") == 0) {
    heading(ctx, s, "Receive buffer isolation");
    np_report__conditions_set(ctx, s);
    rc = np_report__isolation_chart(ctx, s);
    if (rc == 0)
      np_report__isolation_table(ctx, s);
    np_report__kernel_example(ctx, s);
    return rc;
  }
  if (strcmp(n, "udp-payload-window") == 0)
    heading(ctx, s, "Payload and outstanding window");
  else if (strcmp(n, "udp-stress") == 0)
    heading(ctx, s, "Sustained load");
  else if (strcmp(n, "udp-latency-load") == 0)
    heading(ctx, s, "Latency under load");
  else if (strcmp(n, "udp-stream") == 0)
    heading(ctx, s, "One-way streams");
  else
    heading(ctx, s, NULL);
  np_report__conditions_set(ctx, s);
  rc = np_report__headline(ctx, s);
  if (np_report_is_stream(s)) /* no round trips: the streams table */
    return rc == 0 ? np_report_latency(ctx, s) : rc;
  if (rc == 0 && strcmp(n, "udp-payload-window") != 0)
    rc = np_report__charts(ctx, s, "io");
  if (rc == 0 && strcmp(n, "udp-io-models") != 0)
    rc = np_report__charts(ctx, s, "grid");
  if (rc == 0)
    np_report__tables_perf(ctx, s);
  if (rc == 0)
    np_report__kernel_example(ctx, s);
  if (rc == 0) /* open loop, distributions, time series where recorded */
    rc = np_report_latency(ctx, s);
  return rc;
}

static int limits_set(struct np_report_ctx *ctx,
                      const struct np_results_set *s) {
  heading(ctx, s, "Lost echoes by payload and window");
  np_report__conditions_set(ctx, s);
  int rc = np_report__charts(ctx, s, "limits");
  if (rc != 0)
    return rc;
  np_pages__lost_table(ctx, s);
  fprintf(ctx->md, "## Kernel evidence\n\n");
  np_pages__kernel_evidence(ctx, s);
  np_report__kernel_example(ctx, s);
  np_report__tables_limits(ctx, s);
  return 0;
}

/* Reliable UDP (issue 8): network conditions, headline, charts by
 * strategy x condition, then the results, payload x window, sustained and
 * "wins where" tables. */
static int rudp_set(struct np_report_ctx *ctx, const struct np_results_set *s) {
  const char *n = suite_of(s);
  if (strcmp(n, "rudp-payload-window") == 0)
    heading(ctx, s, "Payload and outstanding window");
  else if (strcmp(n, "rudp-sustained") == 0)
    heading(ctx, s, "Sustained test");
  else
    heading(ctx, s, "Strategies by network condition");
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

/* Links to the other pages of this build and to the socket-buffer guide. */
static void see_also(struct np_report_ctx *ctx, enum page pg,
                     const int *present, const char *ext) {
  static const char *const link_text[PAGE_COUNT_] = {
      "UDP loopback performance", "UDP payload size limits and burst loss",
      "Reliable UDP (ARQ and FEC)"};
  fprintf(ctx->md, "See also:");
  for (int p = 0; p < PAGE_COUNT_; p++)
    if (p != (int)pg && present[p])
      fprintf(ctx->md, " [%s](%s.%s) ·", link_text[p], page_name[p], ext);
  fprintf(ctx->md, " [Socket buffers on Linux: why bursts overflow and how to "
                   "size buffers](../guides/socket-buffers.md).\n\n");
}

/* One page from its sets into out as <page>.md (or .mdx) and
 * assets/<page>-report.json. */
static int build_page(enum page pg, struct np_results_set *const *sets,
                      size_t nsets, const struct np_report_pages_opts *o,
                      const int *present, struct np_ftree *out,
                      struct np_errbuf *eb,
                      const char *const *labels,
                      const unsigned char *failed) {
  const char *rel = o && o->results_rel ? o->results_rel : "../../results";
  int mdx = o && o->mdx;
  const char *ext = mdx ? "mdx" : "md";
  char *md = NULL, *js = NULL, *page = NULL, prefix[300], path[64],
       title[400], comment[300];
  size_t mdlen = 0, plen = 0;
  int rc = 0;
  struct np_report_ctx ctx = {.sets = sets, .nsets = nsets, .out = out,
                              .eb = eb, .pages = 1,
                              .error_bars = o ? o->error_bars
                                              : NP_REPORT_EB_AUTO,
                              .measuring_changes =
                                  o ? o->measuring_changes : NULL};
  rc = np_report__info_init(&ctx, labels, failed);
  ctx.json = cJSON_CreateObject();
  ctx.md = open_memstream(&md, &mdlen);
  if (rc != 0 || ctx.json == NULL || ctx.md == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  snprintf(title, sizeof title, "%s: %s", page_title[pg], host_of(sets[0]));
  cJSON_AddStringToObject(ctx.json, "schema", "netproof/report/1");
  cJSON_AddStringToObject(ctx.json, "title", page_title[pg]);
  cJSON *jsets = cJSON_AddArrayToObject(ctx.json, "sets");
  for (size_t i = 0; i < nsets; i++) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "label", ctx.info[i].name);
    cJSON_AddStringToObject(j, "folder", sets[i]->label);
    cJSON_AddStringToObject(j, "suite", suite_of(sets[i]));
    cJSON_AddNumberToObject(j, "runs", (double)sets[i]->nruns);
    cJSON_AddNumberToObject(j, "configurations", (double)sets[i]->nconfigs);
    cJSON_AddNumberToObject(j, "configurations_missing",
                            (double)ctx.info[i].nmissing);
    cJSON_AddBoolToObject(j, "self_check_failed", ctx.info[i].check_failed);
    cJSON_AddItemToArray(jsets, j);
  }
  ctx.jtables = cJSON_AddArrayToObject(ctx.json, "tables");
  ctx.jcharts = cJSON_AddArrayToObject(ctx.json, "charts");
  snprintf(comment, sizeof comment,
           "Generated by netproof-report --pages from the result sets linked "
           "below; edit %s.reading.md, not this file.",
           page_name[pg]);
  if (!mdx)
    fprintf(ctx.md, "<!-- %s -->\n\n", comment);
  fprintf(ctx.md, "# %s\n\n", title);
  np_pages__dates_line(&ctx);
  np_report__measuring(&ctx);
  np_report__banners(&ctx);
  see_also(&ctx, pg, present, ext);
  np_report__tables_correctness(&ctx);
  np_report__conditions_common(&ctx);
  for (size_t i = 0; i < nsets && rc == 0; i++) {
    snprintf(prefix, sizeof prefix, "%s-", ctx.info[i].slug);
    ctx.asset_prefix = prefix;
    rc = pg == PAGE_UDP    ? udp_set(&ctx, sets[i])
         : pg == PAGE_LIMITS ? limits_set(&ctx, sets[i])
                             : rudp_set(&ctx, sets[i]);
  }
  if (rc != 0)
    goto done;
  if (pg == PAGE_LIMITS) {
    np_report__tables_mtu(&ctx);
  } else {
    fprintf(ctx.md, "## Scope\n\n");
    np_report__scope(&ctx);
  }
  snprintf(path, sizeof path, "%s.reading.md", page_name[pg]);
  size_t rlen = 0;
  const char *reading = o && o->readings
                            ? np_ftree_get(o->readings, path, &rlen)
                            : NULL;
  char rfile[600];
  snprintf(rfile, sizeof rfile, "%s%s%s", o && o->readings_dir
                                              ? o->readings_dir : "",
           o && o->readings_dir ? "/" : "", path);
  rc = np_pages__reading(&ctx, reading, reading ? rlen : 0, page_name[pg],
                         rfile);
  if (rc != 0)
    goto done;
  np_pages__reproduce(&ctx, rel);
  np_pages__links(&ctx, rel);
  fprintf(ctx.md,
          "Every value on this page, with the run ids behind it: "
          "[assets/%s-report.json](assets/%s-report.json).\n",
          page_name[pg], page_name[pg]);
  if (fclose(ctx.md) != 0) {
    ctx.md = NULL;
    rc = NP_ENOMEM;
    goto done;
  }
  ctx.md = NULL;
  js = np_json_print(ctx.json, 1);
  if (js == NULL) {
    rc = NP_ENOMEM;
    goto done;
  }
  if (mdx && np_report_mdx_page(md, mdlen, title, comment, &page, &plen) != 0) {
    rc = NP_ENOMEM;
    goto done;
  }
  snprintf(path, sizeof path, "%s.%s", page_name[pg], ext);
  rc = mdx ? np_ftree_add(out, path, page, plen)
           : np_ftree_add(out, path, md, mdlen);
  snprintf(path, sizeof path, "assets/%s-report.json", page_name[pg]);
  if (rc == 0)
    rc = np_ftree_add(out, path, js, strlen(js));
done:
  if (ctx.md != NULL)
    fclose(ctx.md);
  free(md);
  free(page);
  free(js);
  free(ctx.info);
  cJSON_Delete(ctx.json);
  if (rc == NP_ENOMEM)
    np_errbuf_set(eb, rc, "pages: out of memory");
  else if (rc == NP_EEXIST)
    np_errbuf_set(eb, rc, "pages: two charts of page %s have one file name "
                          "(a bug)", page_name[pg]);
  return rc;
}

int np_report_pages_build(struct np_results_set *const *sets, size_t nsets,
                          const struct np_report_pages_opts *o,
                          struct np_ftree **out, struct np_errbuf *eb) {
  if (sets == NULL || nsets == 0 || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "pages: no result sets");
  struct np_results_set **mine = calloc(nsets, sizeof *mine);
  const char **lab = calloc(nsets, sizeof *lab);
  unsigned char *fail = calloc(nsets, 1);
  struct np_ftree *t = NULL;
  int present[PAGE_COUNT_] = {0};
  for (size_t i = 0; i < nsets; i++)
    present[page_of(sets[i])] = 1;
  int rc = mine && lab && fail ? np_ftree_new(&t) : NP_ENOMEM;
  for (int pg = 0; pg < PAGE_COUNT_ && rc == 0; pg++) {
    size_t n = 0;
    for (size_t i = 0; i < nsets; i++)
      if (page_of(sets[i]) == (enum page)pg) {
        lab[n] = o && o->labels ? o->labels[i] : NULL;
        fail[n] = o && o->check_failed ? o->check_failed[i] : 0;
        mine[n++] = sets[i];
      }
    if (n > 0)
      rc = build_page((enum page)pg, mine, n, o, present, t, eb, lab, fail);
  }
  free(mine);
  free(lab);
  free(fail);
  if (rc != 0) {
    np_ftree_free(t);
    if (rc == NP_ENOMEM)
      np_errbuf_set(eb, rc, "pages: out of memory");
    return rc;
  }
  *out = t;
  return 0;
}
