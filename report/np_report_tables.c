/*
 * np_report_tables.c - the Markdown tables of the reference pages.
 *
 * Each table is written to index.md and, with the run ids behind every
 * cell, into report.json's "tables" array so any figure on the page can be
 * traced back to the records it came from.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_int.h"

static void rounds_text(char *buf, size_t len, const struct np_results_set *s);

/* A string field of the first run's record ("tool/compiler") or "-". */
static const char *first_str(const struct np_results_set *s, const char *obj,
                             const char *key) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(s->runs[0].doc, obj);
  return np_json_get_string(o, key, "-");
}

static cJSON *new_table(struct np_report_ctx *ctx, const char *name,
                        const char *set) {
  cJSON *t = cJSON_CreateObject();
  cJSON_AddStringToObject(t, "name", name);
  cJSON_AddStringToObject(t, "set", set);
  cJSON_AddItemToArray(ctx->jtables, t);
  return cJSON_AddArrayToObject(t, "rows");
}

/* Are all runs of the set built from one source and one binary? */
static int shared_hash(const struct np_results_set *s, const char *key,
                       const char **out) {
  const char *h0 = NULL;
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(s->runs[i].doc, "tool");
    const char *h = np_json_get_string(tool, key, "-");
    if (h0 == NULL)
      h0 = h;
    else if (strcmp(h, h0) != 0) {
      *out = "MIXED (see self-check)";
      return 0;
    }
  }
  *out = h0 ? h0 : "-";
  return 1;
}

void np_report_tables_conditions(struct np_report_ctx *ctx,
                                 const struct np_results_set *s) {
  const cJSON *d = s->runs[0].doc;
  char cpus[64], mem[64], warm[64], secs[64], sb[64], rb[64], machine[512],
      libs[512];
  np_fmt_num(cpus, sizeof cpus, np_results_num(d, "/machine/logical_cores"), 0);
  np_fmt_bytes(mem, sizeof mem, np_results_num(d, "/machine/mem_total_bytes"));
  np_fmt_num(warm, sizeof warm, np_results_num(d, "/config/warmup_seconds"), 2);
  np_fmt_num(secs, sizeof secs, np_results_num(d, "/config/seconds"), 2);
  np_fmt_bytes(sb, sizeof sb, np_results_num(d, "/config/udp_send_buffer"));
  np_fmt_bytes(rb, sizeof rb, np_results_num(d, "/config/udp_receive_buffer"));
  snprintf(machine, sizeof machine, "%s, %s, %s logical CPUs, %s",
           first_str(s, "machine", "hostname"),
           first_str(s, "machine", "cpu_model"), cpus, mem);
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(d, "tool");
  const cJSON *lib, *libo = cJSON_GetObjectItemCaseSensitive(tool, "libraries");
  size_t k = 0;
  libs[0] = '\0';
  cJSON_ArrayForEach(lib, libo) {
    if (cJSON_IsString(lib))
      k += (size_t)snprintf(libs + k, k < sizeof libs ? sizeof libs - k : 0,
                            "%s%s %s", k ? ", " : "", lib->string,
                            lib->valuestring);
  }
  const cJSON *build = cJSON_GetObjectItemCaseSensitive(tool, "build");
  char compiler[128];
  snprintf(compiler, sizeof compiler, "%s %s",
           np_json_get_string(build, "compiler", "-"),
           np_json_get_string(build, "compiler_version", ""));
  const char *src, *bin;
  shared_hash(s, "source_sha256", &src);
  shared_hash(s, "binary_sha256", &bin);
  const char *suite = np_json_get_string(s->suite, "suite", s->label);
  fprintf(ctx->md, "## Test conditions: %s\n\n", suite);
  fprintf(ctx->md, "| Item | Configuration |\n|---|---|\n");
  const char *rows[][2] = {
      {"Machine", machine},
      {"OS", first_str(s, "machine", "os_pretty_name")},
      {"Kernel", first_str(s, "machine", "kernel_release")},
      {"Compiler", compiler},
      {"Build", np_json_get_string(build, "build_type", "-")},
      {"Libraries", k ? libs : "-"},
      {"Network", np_json_get_string(
                      cJSON_GetObjectItemCaseSensitive(d, "config"),
                      "address", "-")},
  };
  cJSON *jrows = new_table(ctx, "conditions", s->label);
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    fprintf(ctx->md, "| %s | %s |\n", rows[i][0], rows[i][1]);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "item", rows[i][0]);
    cJSON_AddStringToObject(r, "value", rows[i][1]);
    cJSON_AddStringToObject(r, "source", s->runs[0].id);
    cJSON_AddItemToArray(jrows, r);
  }
  size_t reps = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    reps = s->configs[i].nruns > reps ? s->configs[i].nruns : reps;
  char rounds[96] = "";
  rounds_text(rounds, sizeof rounds, s);
  fprintf(ctx->md,
          "| Measurement | %zu independent processes per configuration%s; "
          "%s s measurement, %s s warm-up%s |\n",
          reps, rounds, secs, warm, rounds[0] ? " per round" : "");
  fprintf(ctx->md, "| Socket buffers | %s send / %s receive (requested) |\n",
          sb, rb);
  fprintf(ctx->md, "\nSource SHA-256: `%s`. Binary SHA-256: `%s`.\n\n", src,
          bin);
}

/* ", each 3 rounds" for rudp records (config.rounds), else "". */
static void rounds_text(char *buf, size_t len, const struct np_results_set *s) {
  double r = np_results_num(s->runs[0].doc, "/config/rounds");
  buf[0] = '\0';
  if (isfinite(r))
    snprintf(buf, len, ", each of %.0f round%s", r, r == 1 ? "" : "s");
}

void np_report_tables_conditions_short(struct np_report_ctx *ctx,
                                       const struct np_results_set *s) {
  const cJSON *d = s->runs[0].doc;
  char warm[32], secs[32];
  size_t reps = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    reps = s->configs[i].nruns > reps ? s->configs[i].nruns : reps;
  np_fmt_num(warm, sizeof warm, np_results_num(d, "/config/warmup_seconds"), 2);
  np_fmt_num(secs, sizeof secs, np_results_num(d, "/config/seconds"), 2);
  const char *src;
  shared_hash(s, "source_sha256", &src);
  char plan[300];
  np_fmt_plan_path(plan, sizeof plan,
                   np_json_get_string(s->suite, "plan_file", NULL));
  char rounds[96] = "";
  rounds_text(rounds, sizeof rounds, s);
  fprintf(ctx->md,
          "Suite `%s` (%s): %zu configurations × %zu repetitions%s, %s s "
          "measurement, %s s warm-up%s, source SHA-256 `%.12s…`.\n\n",
          np_json_get_string(s->suite, "suite", s->label),
          plan, s->nconfigs, reps, rounds,
          secs, warm, rounds[0] ? " per round" : "", src);
}

void np_report_tables_correctness(struct np_report_ctx *ctx) {
  fprintf(ctx->md, "## Correctness and load range\n\n");
  fprintf(ctx->md, "| Group | Configurations | Runs passed | Failed "
                   "configurations |\n|---|---:|---:|---|\n");
  cJSON *jrows = new_table(ctx, "correctness", "");
  for (size_t i = 0; i < ctx->nsets; i++) {
    const struct np_results_set *s = ctx->sets[i];
    size_t passed = 0, confirmed = 0;
    char failed[2048];
    size_t k = 0;
    failed[0] = '\0';
    cJSON *jfail = cJSON_CreateArray();
    for (size_t c = 0; c < s->nconfigs; c++) {
      const struct np_results_config *cf = &s->configs[c];
      passed += cf->npassed;
      if (cf->expect_fail && cf->npassed == 0)
        confirmed++;
      if (cf->npassed < cf->nruns) {
        cJSON_AddItemToArray(jfail, cJSON_CreateString(cf->id));
        k += (size_t)snprintf(failed + k, k < sizeof failed ? sizeof failed - k : 0,
                              "%s`%s`%s", k ? ", " : "", cf->id,
                              cf->expect_fail ? " (expected)" : "");
      }
    }
    if (k >= sizeof failed)
      snprintf(failed + sizeof failed - 6, 6, " ...");
    const char *suite = np_json_get_string(s->suite, "suite", s->label);
    fprintf(ctx->md, "| %s | %zu | %zu / %zu passed | %s |\n", suite,
            s->nconfigs, passed, s->nruns, k ? failed : "none");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "group", suite);
    cJSON_AddNumberToObject(r, "configurations", (double)s->nconfigs);
    cJSON_AddNumberToObject(r, "runs_passed", (double)passed);
    cJSON_AddNumberToObject(r, "runs_total", (double)s->nruns);
    cJSON_AddNumberToObject(r, "expected_failures_confirmed",
                            (double)confirmed);
    cJSON_AddItemToObject(r, "failed_configurations", jfail);
    cJSON_AddItemToArray(jrows, r);
  }
  fprintf(ctx->md,
          "\nAll failed records remain in the result set. A failed repetition "
          "excludes every run of that configuration from throughput "
          "rankings and charts.\n\n");
}

static void add_stat(cJSON *r, const char *key, double med, double mn,
                     double mx) {
  cJSON *o = cJSON_AddObjectToObject(r, key);
  np_json_add_number(o, "median", med);
  np_json_add_number(o, "min", mn);
  np_json_add_number(o, "max", mx);
}

void np_report_tables_perf(struct np_report_ctx *ctx,
                           const struct np_results_set *s) {
  const struct np_results_config **v = np_report_sorted_configs(s);
  if (v == NULL)
    return;
  fprintf(ctx->md, "### Throughput, latency and CPU\n\n");
  fprintf(ctx->md,
          "| Payload / B | Clients | Window | IO model | Backend | Runs "
          "passed | Round trips / s | p50 RTT / μs | p99 RTT / μs | Process "
          "CPU / %% | Max RSS / MiB |\n"
          "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  cJSON *jrows = new_table(ctx, "throughput_latency_cpu", s->label);
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = v[i];
    double med[5], mn[5], mx[5];
    const enum np_results_metric ms[5] = {NP_M_RPS, NP_M_P50, NP_M_P99,
                                          NP_M_CPU, NP_M_RSS};
    for (int k = 0; k < 5; k++)
      np_results_stat(c, ms[k], 1, &med[k], &mn[k], &mx[k]);
    char pay[32], rps[48], p50[48], p99[48], cpu[48], rss[48];
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    int excluded = c->npassed < c->nruns;
    if (excluded) {
      snprintf(rps, sizeof rps, "excluded");
      snprintf(p50, sizeof p50, "-");
      snprintf(p99, sizeof p99, "-");
      snprintf(cpu, sizeof cpu, "-");
      snprintf(rss, sizeof rss, "-");
    } else {
      np_fmt_num(rps, sizeof rps, med[0], 0);
      np_fmt_num(p50, sizeof p50, med[1], 2);
      np_fmt_num(p99, sizeof p99, med[2], 2);
      np_fmt_num(cpu, sizeof cpu, med[3], 1);
      np_fmt_num(rss, sizeof rss, med[4] / 1048576.0, 1);
    }
    fprintf(ctx->md, "| %s | %s | %s | %s | %s | %zu / %zu | %s | %s | %s | %s | %s |\n",
            pay, c->dim[NP_D_CLIENTS], c->dim[NP_D_WINDOW], c->dim[NP_D_MODEL],
            c->dim[NP_D_BACKEND], c->npassed, c->nruns, rps, p50, p99, cpu, rss);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "config", c->id);
    cJSON_AddNumberToObject(r, "runs_passed", (double)c->npassed);
    cJSON_AddNumberToObject(r, "runs_total", (double)c->nruns);
    cJSON_AddBoolToObject(r, "excluded", excluded);
    if (!excluded) {
      add_stat(r, "roundtrips_per_sec", med[0], mn[0], mx[0]);
      add_stat(r, "rtt_p50_us", med[1], mn[1], mx[1]);
      add_stat(r, "rtt_p99_us", med[2], mn[2], mx[2]);
      add_stat(r, "cpu_percent", med[3], mn[3], mx[3]);
      add_stat(r, "rss_max_bytes", med[4], mn[4], mx[4]);
    }
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(jrows, r);
  }
  fprintf(ctx->md,
          "\nValues are medians of the passed repetitions; the charts show "
          "their min/max. CPU counts one core as 100 %% and includes clients "
          "and server in one process.\n\n");
  free(v);
}

/* Size limits and buffer isolation: loss, with the kernel's own counters. */
void np_report_tables_limits(struct np_report_ctx *ctx,
                             const struct np_results_set *s) {
  int any = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    any |= s->configs[i].expect_fail || s->configs[i].npassed < s->configs[i].nruns;
  if (!any)
    return;
  const struct np_results_config **v = np_report_sorted_configs(s);
  if (v == NULL)
    return;
  fprintf(ctx->md, "### Size limits and receive-buffer isolation\n\n");
  fprintf(ctx->md,
          "| Payload / B | Clients | Window | IO model | Backend | Effective "
          "server receive buffer | Outstanding payload budget | Runs passed "
          "| Lost echoes per run | Kernel socket drops | RcvbufErrors Δ | "
          "IPv4 reassembly Δ |\n"
          "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  cJSON *jrows = new_table(ctx, "size_limits_buffer_isolation", s->label);
  for (size_t i = 0; i < s->nconfigs; i++) {
    const struct np_results_config *c = v[i];
    double med[4], mn[4], mx[4];
    const enum np_results_metric ms[4] = {NP_M_LOST, NP_M_KDROPS, NP_M_RCVBUF,
                                          NP_M_REASM};
    for (int k = 0; k < 4; k++)
      np_results_stat(c, ms[k], 0, &med[k], &mn[k], &mx[k]);
    char pay[32], srv[32], bud[32], cell[4][64];
    np_fmt_num(pay, sizeof pay, c->dimv[NP_D_PAYLOAD], 0);
    np_fmt_bytes(srv, sizeof srv, c->dimv[NP_D_SRVBUF]);
    np_fmt_bytes(bud, sizeof bud,
                 c->dimv[NP_D_PAYLOAD] * c->dimv[NP_D_CLIENTS] *
                     c->dimv[NP_D_WINDOW]);
    for (int k = 0; k < 4; k++)
      np_fmt_range(cell[k], sizeof cell[k], med[k], mn[k], mx[k], 0);
    fprintf(ctx->md,
            "| %s | %s | %s | %s | %s | %s | %s | %zu / %zu%s | %s | %s | %s | %s |\n",
            pay, c->dim[NP_D_CLIENTS], c->dim[NP_D_WINDOW], c->dim[NP_D_MODEL],
            c->dim[NP_D_BACKEND], srv, bud, c->npassed, c->nruns,
            c->expect_fail ? " (fail expected)" : "", cell[0], cell[1],
            cell[2], cell[3]);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "config", c->id);
    cJSON_AddBoolToObject(r, "expect_fail", c->expect_fail);
    np_json_add_number(r, "budget_bytes", c->dimv[NP_D_PAYLOAD] *
                                              c->dimv[NP_D_CLIENTS] *
                                              c->dimv[NP_D_WINDOW]);
    add_stat(r, "lost", med[0], mn[0], mx[0]);
    add_stat(r, "kernel_drops", med[1], mn[1], mx[1]);
    add_stat(r, "udp_rcvbuf_errors_delta", med[2], mn[2], mx[2]);
    add_stat(r, "ip_reasm_reqds_delta", med[3], mn[3], mx[3]);
    cJSON_AddItemToObject(r, "runs", np_report_run_ids(c, 0));
    cJSON_AddItemToArray(jrows, r);
  }
  fprintf(ctx->md,
          "\nLost echoes: median (min-max) over every repetition, failed ones "
          "included. Kernel columns are per-run deltas of the socket drop "
          "counter (SO_RXQ_OVFL) and of /proc/net/snmp; the snmp counters "
          "are machine-wide. The budget is clients × window × payload, not "
          "an exact queue length.\n\n");
  free(v);
}

void np_report_tables_mtu(struct np_report_ctx *ctx) {
  fprintf(ctx->md,
          "## Payload and MTU limits\n\n"
          "| Plain UDP payload | IPv4 | IPv6 |\n|---|---:|---:|\n"
          "| Protocol maximum | 65,507 = 65,535 − 20 − 8 | 65,527 = 65,535 − 8 |\n"
          "| Unfragmented at MTU 1,500 | 1,472 = 1,500 − 20 − 8 | 1,452 = 1,500 − 40 − 8 |\n"
          "| Arithmetic budget at MTU 16,384 | 16,356 | 16,336 |\n"
          "| Arithmetic budget at MTU 65,536 (Linux lo) | 65,508 (capped at 65,507) | 65,488 |\n\n"
          "Assumes a 20-byte IPv4 header, a 40-byte IPv6 base header and an "
          "8-byte UDP header; IP options and extension headers reduce the "
          "payload, IPv6 jumbograms are not included.\n\n");
}
