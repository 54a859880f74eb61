/*
 * np_report_rudp_env.c - what a reliable-UDP reader must know to read the
 * numbers (reference 002's environment and "network conditions" tables):
 * the ARQ, FEC and relay parameters actually used, the fragment size that
 * follows from the MTU and the headers, the network conditions of every
 * relay profile exactly as configured, and the definitions of RTT, round
 * trips/s, RSS and FEC memory as the records state them.  Everything
 * comes from the records' config and rudp sections; a parameter that
 * differs between configurations lists each value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_fmt.h"
#include "np_report_int.h"
#include "np_report_rudp.h"

/* Which runs a value is taken from. */
enum which { ALL, FEC_ONLY, ARQ_ONLY };

static int wanted(const cJSON *d, enum which w) {
  int none = strcmp(np_json_get_string(np_json_pointer(d, "/config"), "fec",
                                       ""),
                    "none") == 0;
  return w == ALL || (w == FEC_ONLY && !none) || (w == ARQ_ONLY && none);
}

static double num(const cJSON *d, const char *p) {
  return np_results_num(d, p);
}

/* The distinct values of the number at ptr over the runs of s (scaled,
 * with thousands separators), joined by " / ": "5 / 0"; "-" when none. */
static const char *dv(char *out, size_t len, const struct np_results_set *s,
                      const char *ptr, enum which w, double scale) {
  double seen[16];
  size_t k = 0, ns = 0;
  out[0] = '\0';
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *d = s->runs[i].doc;
    double x = np_results_num(d, ptr) * scale;
    if (!wanted(d, w) || !isfinite(x))
      continue;
    int dup = 0;
    for (size_t j = 0; j < ns; j++)
      dup |= seen[j] == x;
    if (dup)
      continue;
    if (ns == 16) { /* more than 16 values: say so rather than list them */
      snprintf(out + k, k < len ? len - k : 0, " / ...");
      break;
    }
    seen[ns++] = x;
    char v[48];
    if (x == floor(x))
      np_fmt_num(v, sizeof v, x, 0);
    else
      snprintf(v, sizeof v, "%g", x);
    k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%s%s",
                          k ? " / " : "", v);
  }
  if (k == 0)
    snprintf(out, len, "-");
  return out;
}

/* The distinct strings at ptr, joined by " / ". */
static const char *ds(char *out, size_t len, const struct np_results_set *s,
                      const char *ptr) {
  size_t k = 0;
  out[0] = '\0';
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *v = np_json_pointer(s->runs[i].doc, ptr);
    if (!cJSON_IsString(v) || strstr(out, v->valuestring) != NULL)
      continue;
    k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%s%s",
                          k ? " / " : "", v->valuestring);
  }
  if (k == 0)
    snprintf(out, len, "-");
  return out;
}

static void row(struct np_report_ctx *ctx, cJSON *rows, const char *item,
                const char *value) {
  fprintf(ctx->md, "| %s | %s |\n", item, value);
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "item", item);
  cJSON_AddStringToObject(r, "value", value);
  cJSON_AddStringToObject(r, "source", "runs/*/rep-*.json /config");
  cJSON_AddItemToArray(rows, r);
}

void np_report_rudp_env_rows(struct np_report_ctx *ctx,
                             const struct np_results_set *s, cJSON *rows) {
  char v[1200], a[8][96];
  snprintf(v, sizeof v,
           "UDP MTU %s B; send / receive window %s / %s fragments; initial "
           "window %s; RTO %s to %s ms; reorder allowance up to %s ms; peer "
           "declared dead after %s ms; no periodic update tick (timers are "
           "event-driven: the earliest RTO, probe, reorder or ack deadline)",
           dv(a[0], 96, s, "/config/arq/mtu", ALL, 1),
           dv(a[1], 96, s, "/config/arq/send_window", ALL, 1),
           dv(a[2], 96, s, "/config/arq/receive_window", ALL, 1),
           dv(a[3], 96, s, "/config/arq/initial_cwnd", ALL, 1),
           dv(a[4], 96, s, "/config/arq/min_rto_ms", ALL, 1),
           dv(a[5], 96, s, "/config/arq/max_rto_ms", ALL, 1),
           dv(a[6], 96, s, "/config/arq/reorder_window_max_ms", ALL, 1),
           dv(a[7], 96, s, "/config/arq/dead_timeout_ms", ALL, 1));
  row(ctx, rows, "ARQ", v);
  row(ctx, rows, "Congestion control", ds(v, sizeof v, s, "/config/cc"));
  snprintf(v, sizeof v,
           "up to %s data shards per group; fixed parity %s; adaptive parity "
           "%s to %s, starting at %s, aiming at %s %% residual loss; a group "
           "waits at most %s ms to fill; loss reports every %s ms",
           dv(a[0], 96, s, "/config/fec_params/group", FEC_ONLY, 1),
           dv(a[1], 96, s, "/config/fec_params/parity", FEC_ONLY, 1),
           dv(a[2], 96, s, "/config/fec_params/policy/min_parity", FEC_ONLY, 1),
           dv(a[3], 96, s, "/config/fec_params/policy/max_parity", FEC_ONLY, 1),
           dv(a[4], 96, s, "/config/fec_params/policy/initial_parity",
              FEC_ONLY, 1),
           dv(a[5], 96, s, "/config/fec_params/policy/target", FEC_ONLY, 100),
           dv(a[6], 96, s, "/config/fec_params/wait_ms", FEC_ONLY, 1),
           dv(a[7], 96, s, "/config/fec_params/report_ms", FEC_ONLY, 1));
  row(ctx, rows, "FEC groups", v);
  snprintf(v, sizeof v,
           "%s KiB retained per endpoint; parity bytes of a group at most "
           "%s %% of its data bytes",
           dv(a[0], 96, s, "/config/fec_params/budget_bytes", FEC_ONLY,
              1.0 / 1024),
           dv(a[1], 96, s, "/config/fec_params/ratio_percent", FEC_ONLY, 1));
  row(ctx, rows, "FEC budget", v);
  snprintf(v, sizeof v,
           "at most %s B of message per fragment with FEC (the %s B MTU "
           "minus an ARQ header of up to %s B and a %s B FEC reserve), %s B "
           "ARQ only; FEC data / parity shard headers %s / %s B",
           dv(a[0], 96, s, "/rudp/header/fragment_max_bytes", FEC_ONLY, 1),
           dv(a[1], 96, s, "/config/arq/mtu", ALL, 1),
           dv(a[2], 96, s, "/rudp/header/max_bytes", ALL, 1),
           dv(a[3], 96, s, "/rudp/header/fec_reserve_bytes", FEC_ONLY, 1),
           dv(a[4], 96, s, "/rudp/header/fragment_max_bytes", ARQ_ONLY, 1),
           dv(a[5], 96, s, "/rudp/header/fec_data_header_bytes", FEC_ONLY, 1),
           dv(a[6], 96, s, "/rudp/header/fec_parity_header_bytes", FEC_ONLY,
              1));
  row(ctx, rows, "Fragments", v);
  snprintf(v, sizeof v,
           "%s KiB / %s packets of queue per route; its own thread; timer "
           "spin %s μs; seed %s + round, one random stream per route, "
           "direction and impairment",
           dv(a[0], 96, s, "/config/relay/capacity_bytes", ALL, 1.0 / 1024),
           dv(a[1], 96, s, "/config/relay/capacity_packets", ALL, 1),
           dv(a[2], 96, s, "/config/relay/timer_spin_us", ALL, 1),
           dv(a[3], 96, s, "/config/relay/seed", ALL, 1));
  row(ctx, rows, "Relay", v);
}

/* ---- network conditions -------------------------------------------------- */

static void pct(char *b, size_t n, double v) {
  if (!isfinite(v) || v == 0)
    snprintf(b, n, "0");
  else
    snprintf(b, n, "%g %%", v);
}

/* One direction's impairments as table cells. */
static void direction_cells(char *b, size_t n, const cJSON *dir) {
  char loss[32], dup[32], reo[64], burst[64], ge[160], rate[48];
  pct(loss, sizeof loss, num(dir, "/loss_percent"));
  pct(dup, sizeof dup, num(dir, "/duplicate_percent"));
  double bn = num(dir, "/burst_loss_n"), bm = num(dir, "/burst_loss_m");
  if (bn > 0)
    snprintf(burst, sizeof burst, "%.0f in a row every %.0f packets", bn, bm);
  else
    snprintf(burst, sizeof burst, "0");
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dir, "ge_enabled")))
    snprintf(ge, sizeof ge, "p %g %%, r %g %%, 1-h %g %%, 1-k %g %%",
             num(dir, "/ge_p_percent"), num(dir, "/ge_r_percent"),
             num(dir, "/ge_1_h_percent"), num(dir, "/ge_1_k_percent"));
  else
    snprintf(ge, sizeof ge, "off");
  double ro = num(dir, "/reorder_percent");
  if (ro > 0)
    snprintf(reo, sizeof reo, "%g %% (+%g ms)", ro,
             num(dir, "/reorder_delay_ms"));
  else
    snprintf(reo, sizeof reo, "0");
  double r = num(dir, "/rate_bytes_per_s");
  if (r > 0) {
    char x[32];
    np_fmt_bytes(x, sizeof x, r);
    snprintf(rate, sizeof rate, "%s/s", x);
  } else {
    snprintf(rate, sizeof rate, "unlimited");
  }
  snprintf(b, n, "%s | %s | %s | %g ms | %g ms | %s | %s | %s", loss, burst,
           ge, num(dir, "/delay_ms"), num(dir, "/jitter_ms"), dup, reo,
           rate);
}

void np_report_rudp_network(struct np_report_ctx *ctx,
                            const struct np_results_set *s) {
  fprintf(ctx->md,
          "**Network conditions, exactly as configured** (per relay "
          "profile; c2s = client to server, s2c = server to client)\n\n"
          "| Profile | Direction | Random loss | Burst loss | Gilbert-Elliott "
          "| One-way delay | Jitter | Duplication | Reordering (extra delay) "
          "| Rate |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
  cJSON *rows = np_report__new_table(ctx, "rudp_network_conditions", s);
  char seen[1024] = "";
  for (size_t i = 0; i < s->nruns; i++) {
    const cJSON *relay = np_json_pointer(s->runs[i].doc, "/config/relay");
    const char *prof = np_json_get_string(relay, "profile", "?");
    char key[80];
    snprintf(key, sizeof key, "|%s|", prof);
    if (relay == NULL || strstr(seen, key) != NULL)
      continue;
    if (strlen(seen) + strlen(key) < sizeof seen)
      strcat(seen, key);
    const cJSON *c2s = cJSON_GetObjectItemCaseSensitive(relay, "c2s");
    const cJSON *s2c = cJSON_GetObjectItemCaseSensitive(relay, "s2c");
    char a[512], b[512];
    direction_cells(a, sizeof a, c2s);
    direction_cells(b, sizeof b, s2c);
    if (strcmp(a, b) == 0)
      fprintf(ctx->md, "| %s | both | %s |\n", prof, a);
    else
      fprintf(ctx->md, "| %s | c2s | %s |\n| %s | s2c | %s |\n", prof, a,
              prof, b);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "profile", prof);
    cJSON_AddItemToObject(r, "c2s", cJSON_Duplicate(c2s, 1));
    cJSON_AddItemToObject(r, "s2c", cJSON_Duplicate(s2c, 1));
    cJSON_AddStringToObject(r, "source", s->runs[i].id);
    cJSON_AddItemToArray(rows, r);
  }
  const cJSON *d = s->runs[0].doc, *cfg = np_json_pointer(d, "/config");
  const char *order = np_json_get_string(
      np_json_pointer(d, "/rudp/rounds/0/relay/stats"), "order", "");
  fprintf(ctx->md,
          "\nThis is emulation by an in-process relay on loopback, not a WAN "
          "measurement%s%s. The IO model in the tables is the endpoints'; "
          "the relay always runs on its own thread.\n\n",
          order[0] ? "; impairments apply in this order: " : "", order);
  fprintf(ctx->md,
          "Definitions, as the records state them: **RTT** - %s. **Round "
          "trips/s** - %s. **RSS** - the process's peak resident set "
          "(getrusage `ru_maxrss`) over the whole run, every round and its "
          "warm-up, clients, server and relay together: not FEC memory "
          "alone. **FEC retained** - %s. **Seeds** - %s.\n\n",
          np_json_get_string(cfg, "rtt_rule", "-"),
          np_json_get_string(cfg, "roundtrip_rate_rule", "-"),
          np_json_get_string(
              np_json_pointer(d, "/rudp/rounds/0/fec/retained"), "rule",
              "bytes kept for FEC, summed over every endpoint"),
          np_json_get_string(cfg, "seed_rule", "-"));
}
