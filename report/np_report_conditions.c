/*
 * np_report_conditions.c - the conditions a reader needs next to every
 * number, generated from the records (reference 003's "Test Conditions",
 * 002's environment table).
 *
 * A page holds several sets: what all of them share (machine, OS, kernel,
 * toolchain, libraries) is one table at the top; each set then gets its
 * own table - plan, UTC start and end, address, timing, socket buffers,
 * round trips completed, kernel settings before and after, machine
 * stability, source and binary hashes.  A condition that differs between
 * runs of one set is never shown as a single value: the table says it
 * varies and the set's tables carry it as a column (and the charts as a
 * category line), from the one list below.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_report_rudp.h"
#include "np_results_exec.h"
#include "np_results_rudp.h"

enum cond_kind { K_STR, K_SEC, K_BYTES, K_NUM, K_COUNT };

/* The conditions a set may vary, one row each: the item its conditions
 * table shows, where a record keeps it, and the column it becomes. */
static const struct {
  const char *pointer;
  const char *column;
  enum cond_kind kind;
} cond_field[NP_C_COUNT_] = {
    [NP_C_ADDRESS] = {"/config/address", "Address", K_STR},
    [NP_C_SECONDS] = {"/config/seconds", "Measured / s", K_SEC},
    [NP_C_WARMUP] = {"/config/warmup_seconds", "Warm-up / s", K_SEC},
    [NP_C_SNDBUF] = {"/config/udp_send_buffer", "Send buffer", K_BYTES},
    [NP_C_RCVBUF] = {"/config/udp_receive_buffer", "Receive buffer", K_BYTES},
    [NP_C_WORK] = {"/config/work", "Work / rounds", K_NUM},
    [NP_C_RATE] = {"/config/rate", "Offered / s", K_COUNT},
    [NP_C_GSO] = {"/config/gso", "GSO / B", K_COUNT},
    [NP_C_GRO] = {"/config/gro", "GRO", K_NUM},
};

static const char *suite_of(const struct np_results_set *s) {
  return np_json_get_string(s->suite, "suite", s->label);
}

static void field_text(char *buf, size_t len, enum np_report_cond k,
                       const cJSON *doc) {
  const cJSON *v = np_json_pointer(doc, cond_field[k].pointer);
  if (cJSON_IsString(v)) {
    snprintf(buf, len, "%s", v->valuestring);
    return;
  }
  double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (cond_field[k].kind == K_BYTES)
    np_fmt_bytes(buf, len, x);
  else if (cond_field[k].kind == K_COUNT)
    np_fmt_num(buf, len, x, 0); /* "35,738"; "-" when not recorded */
  else if (isfinite(x))
    snprintf(buf, len, "%g", x);
  else
    snprintf(buf, len, "-");
}

unsigned np_report__cond_varying(const struct np_results_set *s) {
  unsigned m = 0;
  for (int k = 0; k < NP_C_COUNT_; k++) {
    char a[64], b[64];
    field_text(a, sizeof a, (enum np_report_cond)k, s->runs[0].doc);
    for (size_t i = 1; i < s->nruns; i++) {
      field_text(b, sizeof b, (enum np_report_cond)k, s->runs[i].doc);
      if (strcmp(a, b) != 0) {
        m |= 1u << k;
        break;
      }
    }
  }
  return m;
}

const char *np_report__cond_column(enum np_report_cond k) {
  return cond_field[k].column;
}

void np_report__cond_cell(char *buf, size_t len, enum np_report_cond k,
                          const struct np_results_config *c) {
  field_text(buf, len, k, c->runs[0].doc);
}

void np_report__cond_text(char *buf, size_t len, unsigned varying,
                          const struct np_results_config *c) {
  size_t n = 0;
  buf[0] = '\0';
  for (int k = 0; k < NP_C_COUNT_; k++) {
    if (!(varying & (1u << k)))
      continue;
    char v[64];
    field_text(v, sizeof v, (enum np_report_cond)k, c->runs[0].doc);
    const char *unit = cond_field[k].kind == K_SEC ? " s"
                       : k == NP_C_RATE               ? "/s"
                       : k == NP_C_GSO                ? " B GSO"
                       : k == NP_C_GRO                ? " GRO"
                                                      : "";
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s%s",
                          n ? ", " : "", v, unit);
  }
}

/* ---- what the sets of a page share ------------------------------------- */

enum common_item { CI_MACHINE, CI_OS, CI_KERNEL, CI_COMPILER, CI_BUILD,
                   CI_LIBS, CI_COUNT_ };
static const char *const common_name[CI_COUNT_] = {
    "Machine", "OS", "Kernel", "Compiler", "Build", "Libraries"};

static void common_value(char *buf, size_t len, enum common_item it,
                         const struct np_results_set *s) {
  const cJSON *d = s->runs[0].doc;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(d, "machine");
  const cJSON *tool = cJSON_GetObjectItemCaseSensitive(d, "tool");
  const cJSON *build = cJSON_GetObjectItemCaseSensitive(tool, "build");
  char cpus[32], mem[32];
  switch (it) {
  case CI_MACHINE:
    np_fmt_num(cpus, sizeof cpus, np_results_num(d, "/machine/logical_cores"),
               0);
    np_fmt_bytes(mem, sizeof mem,
                 np_results_num(d, "/machine/mem_total_bytes"));
    snprintf(buf, len, "%s, %s, %s logical CPUs, %s%s",
             np_json_get_string(m, "hostname", "-"),
             np_json_get_string(m, "cpu_model", "-"), cpus, mem,
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "hypervisor"))
                 ? ", virtual machine"
                 : "");
    break;
  case CI_OS:
    snprintf(buf, len, "%s, %s", np_json_get_string(m, "os_pretty_name", "-"),
             np_json_get_string(m, "arch", "-"));
    break;
  case CI_KERNEL:
    snprintf(buf, len, "%s, clock source %s",
             np_json_get_string(m, "kernel_release", "-"),
             np_json_get_string(m, "clocksource", "-"));
    break;
  case CI_COMPILER:
    snprintf(buf, len, "%s %s", np_json_get_string(build, "compiler", "-"),
             np_json_get_string(build, "compiler_version", ""));
    break;
  case CI_BUILD: {
    const char *flags = np_json_get_string(build, "c_flags", "-");
    while (*flags == ' ')
      flags++;
    snprintf(buf, len, "%s (`%s`), sanitizer: %s",
             np_json_get_string(build, "build_type", "-"), flags,
             np_json_get_string(build, "sanitizer", "")[0]
                 ? np_json_get_string(build, "sanitizer", "")
                 : "none");
    break;
  }
  default: {
    const cJSON *lib, *libo = cJSON_GetObjectItemCaseSensitive(tool,
                                                               "libraries");
    size_t k = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(lib, libo) {
      if (cJSON_IsString(lib))
        k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s %s",
                              k ? ", " : "", lib->string, lib->valuestring);
    }
    if (k == 0)
      snprintf(buf, len, "-");
  }
  }
}

static int common_same(const struct np_report_ctx *ctx, enum common_item it) {
  char a[512], b[512];
  common_value(a, sizeof a, it, ctx->sets[0]);
  for (size_t i = 1; i < ctx->nsets; i++) {
    common_value(b, sizeof b, it, ctx->sets[i]);
    if (strcmp(a, b) != 0)
      return 0;
  }
  return 1;
}

static void row(struct np_report_ctx *ctx, cJSON *rows, const char *item,
                const char *value, const char *source) {
  fprintf(ctx->md, "| %s | %s |\n", item, value);
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "item", item);
  cJSON_AddStringToObject(r, "value", value);
  cJSON_AddStringToObject(r, "source", source);
  cJSON_AddItemToArray(rows, r);
}

void np_report__conditions_common(struct np_report_ctx *ctx) {
  fprintf(ctx->md, "## Test conditions\n\n| Item | Configuration |\n"
                   "|---|---|\n");
  cJSON *rows = np_report__new_table(ctx, "conditions", NULL);
  for (int it = 0; it < CI_COUNT_; it++) {
    char v[512];
    if (common_same(ctx, (enum common_item)it))
      common_value(v, sizeof v, (enum common_item)it, ctx->sets[0]);
    else
      snprintf(v, sizeof v, "differs between the sets: see each set");
    row(ctx, rows, common_name[it], v, ctx->sets[0]->runs[0].id);
  }
  fprintf(ctx->md,
          "\nEvery run is an independent `netproof-bench` process; its "
          "record holds the machine, the full configuration, every counter "
          "and the kernel counters before and after it.\n\n");
}

/* ---- one set ----------------------------------------------------------- */

/* Are all runs of the set built from one source and one binary? */
static const char *shared_hash(const struct np_results_set *s,
                               const char *key) {
  const char *h0 = NULL;
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(s->runs[i].doc,
                                                         "tool");
    const char *h = np_json_get_string(tool, key, "-");
    if (h0 == NULL)
      h0 = h;
    else if (strcmp(h, h0) != 0)
      return "MIXED (see the self-check)";
  }
  return h0 ? h0 : "-";
}

/* Round trips completed in every measurement phase of the set. */
static double total_roundtrips(const struct np_results_set *s) {
  double sum = 0;
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *rounds = np_json_pointer(s->runs[i].doc, "/rudp/rounds");
    const cJSON *r;
    if (cJSON_IsArray(rounds)) {
      cJSON_ArrayForEach(r, rounds) {
        double x = np_results_num(r, "/measurement/roundtrips");
        sum += isfinite(x) ? x : 0;
      }
      continue;
    }
    double x = np_results_num(s->runs[i].doc, "/measurement/roundtrips");
    sum += isfinite(x) ? x : 0;
  }
  return sum;
}

/* Kernel settings (sysctl.* and lo.mtu) of the records' snapshots: their
 * values, and whether any changed within a run or between runs. */
static void kernel_settings(char *buf, size_t len,
                            const struct np_results_set *s) {
  static const char *const keys[] = {
      "sysctl.net.core.rmem_max", "sysctl.net.core.wmem_max",
      "sysctl.net.core.rmem_default", "sysctl.net.core.netdev_max_backlog",
      "sysctl.net.ipv4.udp_rmem_min", "lo.mtu"};
  size_t k = 0, changes = 0, runs = 0;
  char first_change[400] = "";
  buf[0] = '\0';
  for (size_t j = 0; j < sizeof keys / sizeof *keys; j++) {
    double v0 = NAN;
    for (size_t i = 0; i < s->nruns; i++) {
      const cJSON *kn = cJSON_GetObjectItemCaseSensitive(s->runs[i].doc,
                                                         "kernel");
      const cJSON *b = np_json_pointer(kn, "/before/counters");
      const cJSON *a = np_json_pointer(kn, "/after/counters");
      const cJSON *vb = cJSON_GetObjectItemCaseSensitive(b, keys[j]);
      const cJSON *va = cJSON_GetObjectItemCaseSensitive(a, keys[j]);
      if (!cJSON_IsNumber(vb) || !cJSON_IsNumber(va))
        continue;
      runs += j == 0;
      if (isnan(v0))
        v0 = vb->valuedouble;
      if (vb->valuedouble != va->valuedouble || vb->valuedouble != v0) {
        if (changes++ == 0)
          snprintf(first_change, sizeof first_change, "%s %.0f -> %.0f in %s",
                   keys[j], vb->valuedouble == v0 ? vb->valuedouble : v0,
                   vb->valuedouble == v0 ? va->valuedouble : vb->valuedouble,
                   s->runs[i].id);
      }
    }
    if (isnan(v0))
      continue;
    char num[32];
    np_fmt_num(num, sizeof num, v0, 0);
    const char *name = strncmp(keys[j], "sysctl.", 7) == 0 ? keys[j] + 7
                                                           : "lo MTU";
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s %s",
                          k ? ", " : "", name, num);
  }
  if (k == 0) {
    snprintf(buf, len, "not recorded");
    return;
  }
  if (changes == 0)
    snprintf(buf + k, k < len ? len - k : 0,
             "; unchanged before and after every one of the %zu runs",
             runs);
  else
    snprintf(buf + k, k < len ? len - k : 0, "; CHANGED %zu times (first: %s)",
             changes, first_change);
}

/* suite.json's stability record, as one sentence. */
static void stability(char *buf, size_t len, const struct np_report_ctx *ctx,
                      const struct np_results_set *s) {
  double load = 0, swin = 0, swout = 0;
  int gov_changed = 0, known = 0;
  const char *gov = "-";
  const cJSON *se, *sessions = cJSON_GetObjectItemCaseSensitive(s->suite,
                                                                "sessions");
  cJSON_ArrayForEach(se, sessions) {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(se, "stability");
    if (st == NULL)
      continue;
    known = 1;
    load = fmax(load, np_json_get_number(st, "load_max", 0));
    swin += np_json_get_number(st, "swap_in_delta", 0);
    swout += np_json_get_number(st, "swap_out_delta", 0);
    gov_changed |= cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(st, "governor_changed"));
    const cJSON *g = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(st, "governors"), 0);
    if (cJSON_IsString(g))
      gov = g->valuestring;
  }
  size_t unstable = 0;
  for (size_t i = 0; i < s->nconfigs; i++)
    unstable += (size_t)np_report__marked_unstable(ctx, s, &s->configs[i]);
  double cores = np_results_num(s->runs[0].doc, "/machine/logical_cores");
  size_t k = 0;
  if (known)
    k = (size_t)snprintf(
        buf, len,
        "load average up to %.2f on %.0f logical cores%s; swap in/out "
        "%.0f / %.0f pages; CPU governor %s%s; ",
        load, cores, load > cores ? " (above the core count)" : "", swin,
        swout, gov, gov_changed ? " (CHANGED)" : ", unchanged");
  snprintf(buf + k, k < len ? len - k : 0,
           "%zu of %zu configurations unstable (\xe2\x80\xa0: round trips/s "
           "spread over %.0f %% across runs)",
           unstable, s->nconfigs, np_report__spread_limit(s));
}

/* Requested and effective socket buffers (the first client socket). */
static void buffers(char *buf, size_t len, const struct np_results_set *s,
                    unsigned varying) {
  if (varying & ((1u << NP_C_SNDBUF) | (1u << NP_C_RCVBUF))) {
    snprintf(buf, len, "vary between configurations: see the tables");
    return;
  }
  const cJSON *d = s->runs[0].doc, *sk;
  char sb[32], rb[32], se[32] = "-", re[32] = "-";
  np_fmt_bytes(sb, sizeof sb, np_results_num(d, "/config/udp_send_buffer"));
  np_fmt_bytes(rb, sizeof rb, np_results_num(d, "/config/udp_receive_buffer"));
  cJSON_ArrayForEach(sk, np_json_pointer(d, "/sockets/list")) {
    if (strcmp(np_json_get_string(sk, "role", ""), "client") == 0) {
      np_fmt_bytes(se, sizeof se, np_results_num(sk, "/sndbuf_effective"));
      np_fmt_bytes(re, sizeof re, np_results_num(sk, "/rcvbuf_effective"));
      break;
    }
  }
  snprintf(buf, len,
           "%s send / %s receive requested; the kernel reports %s / %s "
           "(Linux doubles a request for its bookkeeping)",
           sb, rb, se, re);
}

void np_report__conditions_set(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  const struct np_report_setinfo *in = np_report__info(ctx, s);
  const cJSON *d = s->runs[0].doc;
  int rudp = np_results_is_rudp(s);
  unsigned vary = np_report__cond_varying(s);
  char v[768], plan[300], name[300];
  np_report__md_text(name, sizeof name, in->name);
  fprintf(ctx->md,
          "**Conditions: %s**\n\n| Item | Configuration |\n"
          "|---|---|\n",
          name);
  cJSON *rows = np_report__new_table(ctx, "set_conditions", s);
  char pname[200];
  if (!np_fmt_plan_path(pname, sizeof pname,
                        np_json_get_string(s->suite, "plan_file", NULL)))
    snprintf(plan, sizeof plan, "%s, not a shipped plan: its copy is "
             "suite.json's plan", pname);
  else
    snprintf(plan, sizeof plan, "%s", pname);
  double rounds = np_results_num(d, "/config/rounds");
  const cJSON *us = cJSON_GetObjectItemCaseSensitive(s->summary,
                                                    "until_stable");
  if (cJSON_IsObject(us))
    snprintf(v, sizeof v,
             "`%s` (%s): %zu %s × %g to %g repetitions, until the 95 %% "
             "interval of the median round trips/s is within %g %%%s",
             suite_of(s), plan, in->planned,
             np_report__plural(in->planned, "configuration", "configurations"),
             np_json_get_number(us, "min_repetitions", 0),
             np_json_get_number(us, "max_repetitions", 0),
             np_json_get_number(us, "ci_percent", 0),
             in->nmissing ? " planned; INCOMPLETE" : "");
  else
    snprintf(v, sizeof v, "`%s` (%s): %zu %s × %d %s%s", suite_of(s), plan,
             in->planned,
             np_report__plural(in->planned, "configuration", "configurations"),
             in->reps,
             np_report__plural((size_t)in->reps, "repetition", "repetitions"),
             in->nmissing ? " planned; INCOMPLETE" : "");
  row(ctx, rows, "Suite", v, "suite.json");
  snprintf(v, sizeof v, "%s → %s",
           np_json_get_string(s->suite, "started_at", "-"),
           np_json_get_string(s->suite, "ended_at", "-"));
  row(ctx, rows, "Started → ended (UTC)", v, "suite.json");
  for (int it = 0; ctx->nsets > 1 && it < CI_COUNT_; it++)
    if (!common_same(ctx, (enum common_item)it)) {
      common_value(v, sizeof v, (enum common_item)it, s);
      row(ctx, rows, common_name[it], v, s->runs[0].id);
    }
  if (vary & (1u << NP_C_ADDRESS)) {
    snprintf(v, sizeof v, "varies between configurations: see the Address "
                          "column");
  } else {
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
    const char *addr = np_json_get_string(cfg, "address", "-");
    const char *agent = np_json_get_string(cfg, "agent", NULL);
    int loop = strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0;
    const char *fam = strchr(addr, ':') ? "IPv6" : "IPv4";
    const struct np_kind *k =
        np_kind_find(np_json_get_string(cfg, "protocol", ""));
    const char *connect = np_json_get_string(cfg, "connect", NULL);
    if (rudp && (agent != NULL || connect != NULL))
      /* rudp --agent / --connect: config.address is the clients' side */
      snprintf(v, sizeof v, "the clients in this process, the server "
                            "endpoint %s %s; no CPU affinity",
               agent != NULL ? "(rudp-serve) started on the far host by "
                               "netproof-bench agent"
                             : "at",
               agent != NULL ? agent : connect);
    else if (k == NULL || !k->external_server)
      snprintf(v, sizeof v, "%s (%s loopback); %s in one process, no CPU "
                            "affinity",
               addr, fam,
               rudp ? np_kind_at(NP_KIND_RUDP)->in_process
               : k != NULL && k->in_process != NULL ? k->in_process
                                                    : "clients and server");
    else if (agent != NULL) /* udp --agent: the far host's own server */
      snprintf(v, sizeof v, "%s (%s%s); the clients in this process, the "
                            "echo server started on the far host by "
                            "netproof-bench agent %s; no CPU affinity",
               addr, fam, loop ? " loopback" : ", not loopback", agent);
    else /* udp --connect: someone's server, another process */
      snprintf(v, sizeof v, "%s (%s%s); the clients in this process, the "
                            "server another process (udp --connect); no "
                            "CPU affinity",
               addr, fam, loop ? " loopback" : ", not loopback");
  }
  row(ctx, rows, "Network", v, s->runs[0].id);
  if (vary & ((1u << NP_C_SECONDS) | (1u << NP_C_WARMUP))) {
    snprintf(v, sizeof v, "varies between configurations: see the tables");
  } else {
    char secs[32], warm[40];
    double w = np_results_num(d, "/config/warmup_seconds");
    snprintf(secs, sizeof secs, "%g s", np_results_num(d, "/config/seconds"));
    if (w > 0)
      snprintf(warm, sizeof warm, "%g s warm-up", w);
    else
      snprintf(warm, sizeof warm, "no warm-up");
    if (isfinite(rounds))
      snprintf(v, sizeof v,
               "%d independent %s per configuration, each of %.0f %s: %s "
               "then %s measurement per round",
               in->reps,
               np_report__plural((size_t)in->reps, "process", "processes"),
               rounds, np_report__plural((size_t)rounds, "round", "rounds"),
               warm, secs);
    if (rounds == 1)
      snprintf(v, sizeof v,
               "%d independent %s per configuration, each a single round: %s "
               "then %s measurement",
               in->reps,
               np_report__plural((size_t)in->reps, "process", "processes"),
               warm, secs);
    else
      snprintf(v, sizeof v,
               "%d independent %s per configuration; %s then %s "
               "measurement",
               in->reps,
               np_report__plural((size_t)in->reps, "process", "processes"),
               warm, secs);
  }
  row(ctx, rows, "Measurement", v, s->runs[0].id);
  buffers(v, sizeof v, s, vary);
  row(ctx, rows, "Socket buffers", v, s->runs[0].id);
  if (rudp)
    np_report_rudp_env_rows(ctx, s, rows);
  char tot[48];
  np_fmt_num(tot, sizeof tot, total_roundtrips(s), 0);
  snprintf(v, sizeof v,
           "%s completed in the measurement phases of the %zu "
           "%s%s",
           tot, s->nruns, np_report__plural(s->nruns, "run", "runs"),
           rudp ? " (every round)" : "");
  row(ctx, rows, "Round trips", v, "runs/*/rep-*.json");
  kernel_settings(v, sizeof v, s);
  row(ctx, rows, "Kernel settings", v, "runs/*/rep-*.json /kernel");
  stability(v, sizeof v, ctx, s);
  row(ctx, rows, "Machine stability", v, "suite.json, summary.json");
  snprintf(v, sizeof v, "`%s`", shared_hash(s, "source_sha256"));
  row(ctx, rows, "Source SHA-256", v, s->runs[0].id);
  snprintf(v, sizeof v, "`%s`", shared_hash(s, "binary_sha256"));
  row(ctx, rows, "Binary SHA-256", v, s->runs[0].id);
  fprintf(ctx->md, "\n");
}

/* ---- integrity ----------------------------------------------------------- */

static double sum_of(const struct np_results_set *s, const char *ptr) {
  double sum = 0;
  for (size_t i = 0; i < s->nruns; i++) {
    double x = np_results_num(s->runs[i].doc, ptr);
    sum += isfinite(x) ? x : 0;
  }
  return sum;
}

void np_report__integrity_line(struct np_report_ctx *ctx,
                               const struct np_results_set *s) {
  const struct np_report_setinfo *in = np_report__info(ctx, s);
  char name[300];
  np_report__md_text(name, sizeof name, in->name);
  if (np_results_is_exec(s)) { /* the program's own checks: its table */
    fprintf(ctx->md,
            "- %s: the program's own checks and bounds, per "
            "configuration in its table below.\n",
            name);
    return;
  }
  double ce = sum_of(s, "/counters/content_errors"),
         se = sum_of(s, "/counters/sequence_errors"),
         sd = sum_of(s, "/counters/send_errors"),
         ss = sum_of(s, "/counters/server_send_errors"),
         tr = sum_of(s, "/counters/truncated");
  cJSON *rows = np_report__new_table(ctx, "integrity", s);
  cJSON *r = cJSON_CreateObject();
  np_json_add_number(r, "content_errors", ce);
  np_json_add_number(r, "sequence_errors", se);
  np_json_add_number(r, "send_errors", sd + ss);
  np_json_add_number(r, "truncated", tr);
  cJSON_AddNumberToObject(r, "runs", (double)s->nruns);
  if (np_results_is_rudp(s)) {
    double re = 0, ov = 0;
    for (size_t i = 0; i < s->nruns; i++) {
      const cJSON *x, *rounds = np_json_pointer(s->runs[i].doc,
                                                "/rudp/rounds");
      cJSON_ArrayForEach(x, rounds) {
        double e = np_results_num(x, "/relay/errors"),
               o = np_results_num(x, "/relay/overflow");
        re += isfinite(e) ? e : 0;
        ov += isfinite(o) ? o : 0;
      }
    }
    np_json_add_number(r, "relay_errors", re);
    np_json_add_number(r, "relay_overflow", ov);
    cJSON_AddItemToArray(rows, r);
    fprintf(ctx->md,
            "- %s: content errors %.0f, sequence (order) errors %.0f, send "
            "errors %.0f, relay errors %.0f, relay capacity overflows %.0f "
            "in all %zu %s.\n",
            name, ce, se, sd, re, ov, s->nruns,
            np_report__plural(s->nruns, "run", "runs"));
    return;
  }
  /* the balances apply only to runs whose record counts both sides (a
   * one-way stream or an external server has no server counters) */
  size_t legs = 0, echo = 0, both = 0;
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *d = s->runs[i].doc;
    double sent = np_results_num(d, "/counters/sent"),
           srx = np_results_num(d, "/counters/server_received"),
           srp = np_results_num(d, "/counters/server_replied"),
           lreq = np_results_num(d, "/counters/lost_request_leg");
    if (!isfinite(sent) || !isfinite(srx) || !isfinite(srp))
      continue;
    both++;
    legs += sent - srx == lreq;
    echo += srx == srp;
  }
  cJSON_AddNumberToObject(r, "runs_request_leg_balanced", (double)legs);
  cJSON_AddNumberToObject(r, "runs_server_echoed_all", (double)echo);
  cJSON_AddItemToArray(rows, r);
  fprintf(ctx->md,
          "- %s: content errors %.0f, sequence errors %.0f, send errors "
          "%.0f (client) / %.0f (server), truncated datagrams %.0f in all "
          "%zu %s; ",
          name, ce, se, sd, ss, tr, s->nruns,
          np_report__plural(s->nruns, "run", "runs"));
  if (both == 0)
    fprintf(ctx->md, "the request-leg and echo balances do not apply (no "
                     "server counters in these records).\n");
  else
    fprintf(ctx->md,
            "client sends − server receives = lost request leg in %zu and "
            "server receives = server replies in %zu of %s.\n",
            legs, echo, both == s->nruns ? "them" : "the runs with server "
                                                    "counters");
}
