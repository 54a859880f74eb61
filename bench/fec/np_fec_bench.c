/*
 * np_fec_bench.c - FEC throughput measurements (see header).
 */
#include "np_fec_bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "np_fec.h"
#include "np_fec_rs.h"
#include "np_json.h"

void np_fec_bench_config_defaults(struct np_fec_bench_config *cfg) {
  cfg->k = 8;
  cfg->m = 2;
  cfg->shard = 1194;
  cfg->lose = 2;
  cfg->seconds = 1.0;
}

static uint64_t bench_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct bench_clock {
  uint64_t wall0, cpu0, wall, cpu;
};
static void clock_start(struct bench_clock *c) {
  c->wall0 = bench_ns(CLOCK_MONOTONIC);
  c->cpu0 = bench_ns(CLOCK_PROCESS_CPUTIME_ID);
}
static void clock_stop(struct bench_clock *c) {
  c->wall = bench_ns(CLOCK_MONOTONIC) - c->wall0;
  c->cpu = bench_ns(CLOCK_PROCESS_CPUTIME_ID) - c->cpu0;
}
static int clock_expired(const struct bench_clock *c, double seconds) {
  return (double)(bench_ns(CLOCK_MONOTONIC) - c->wall0) >= seconds * 1e9;
}

/* One result object: datagrams, data bytes, MB/s, ns per datagram. */
static cJSON *bench_result(const char *name, uint64_t datagrams,
                           uint64_t bytes, const struct bench_clock *c) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "name", name);
  np_json_add_number(o, "datagrams", (double)datagrams);
  np_json_add_number(o, "data_bytes", (double)bytes);
  np_json_add_number(o, "wall_s", (double)c->wall / 1e9);
  np_json_add_number(o, "mb_per_s", (double)bytes / ((double)c->wall / 1e9) / 1e6);
  /* Per CPU second: steadier than wall time on a shared machine. */
  np_json_add_number(o, "mb_per_cpu_s",
                     (double)bytes / ((double)c->cpu / 1e9) / 1e6);
  np_json_add_number(o, "wall_ns_per_datagram",
                     (double)c->wall / (double)datagrams);
  np_json_add_number(o, "cpu_ns_per_datagram",
                     (double)c->cpu / (double)datagrams);
  return o;
}

/* Bare RS encode / decode over fixed buffers. */
static int bench_rs(const struct np_fec_bench_config *cfg, cJSON *arr) {
  unsigned k = cfg->k, m = cfg->m, n = k + m;
  size_t L = cfg->shard + 2u;
  uint8_t *mem = malloc(L * (n + k));
  struct np_fec_rs *rs = NULL;
  int rc = NP_ENOMEM;
  if (mem == NULL || np_fec_rs_new(0, &rs) != 0)
    goto cleanup_mem;
  uint8_t *sh[NP_FEC_RS_MAX_N], *out[NP_FEC_RS_MAX_N] = {0};
  for (unsigned i = 0; i < n; i++)
    sh[i] = mem + i * L;
  for (size_t i = 0; i < L * k; i++)
    mem[i] = (uint8_t)(i * 131u + 7u);
  struct bench_clock c;
  uint64_t groups = 0;
  clock_start(&c);
  while (groups < 100000000ull && !clock_expired(&c, cfg->seconds)) {
    for (int j = 0; j < 256; j++, groups++)
      np_fec_rs_encode(rs, k, m, L, sh, sh + k);
  }
  clock_stop(&c);
  cJSON *r = bench_result("rs_encode", groups * k, groups * k * cfg->shard, &c);
  if (r == NULL || !cJSON_AddItemToArray(arr, r))
    goto cleanup_rs;
  /* Decode: lose the first `lose` data shards. */
  uint8_t *in[NP_FEC_RS_MAX_N];
  for (unsigned i = 0; i < n; i++)
    in[i] = i < cfg->lose ? NULL : sh[i];
  for (unsigned i = 0; i < cfg->lose; i++)
    out[i] = mem + (n + i) * L;
  groups = 0;
  clock_start(&c);
  while (groups < 100000000ull && !clock_expired(&c, cfg->seconds)) {
    for (int j = 0; j < 256; j++, groups++)
      if (np_fec_rs_decode(rs, k, m, L, in, out) != 0)
        goto cleanup_rs;
  }
  clock_stop(&c);
  if (memcmp(out[0], sh[0], L) != 0) {
    rc = NP_ECHECK;
    goto cleanup_rs;
  }
  r = bench_result("rs_decode", groups * k, groups * k * cfg->shard, &c);
  if (r == NULL || !cJSON_AddItemToArray(arr, r))
    goto cleanup_rs;
  rc = 0;
cleanup_rs:
  np_fec_rs_free(rs);
cleanup_mem:
  free(mem);
  return rc;
}

/* Endpoint path: the sender's output is recorded for the decode pass. */
struct bench_capture {
  uint8_t *buf;   /* n slots of mtu bytes                                 */
  size_t *len;
  size_t n, cap, mtu;
  uint64_t recovered;
};
static int cap_output(void *ud, const uint8_t *b, size_t len) {
  struct bench_capture *c = ud;
  if (c->n < c->cap) {
    memcpy(c->buf + c->n * c->mtu, b, len);
    c->len[c->n++] = len;
  }
  return 0;
}
static int null_output(void *ud, const uint8_t *b, size_t len) {
  (void)ud, (void)b, (void)len;
  return 0;
}
static void cap_recovered(void *ud, const uint8_t *b, size_t len) {
  struct bench_capture *c = ud;
  (void)b, (void)len;
  c->recovered++;
}

static int bench_endpoint(const struct np_fec_bench_config *cfg, cJSON *arr) {
  struct np_fec_config fc;
  np_fec_config_defaults(&fc);
  fc.group = cfg->k;
  fc.parity = cfg->m;
  fc.mtu = cfg->shard + NP_FEC_RESERVE;
  fc.ratio_pct = 400; /* measure the shape asked for */
  fc.wait_ns = 1000000000ull;
  struct bench_capture cap = {0};
  cap.mtu = fc.mtu;
  cap.cap = (size_t)(cfg->k + cfg->m) * 64;
  cap.buf = malloc(cap.cap * cap.mtu);
  cap.len = malloc(cap.cap * sizeof *cap.len);
  uint8_t *msg = malloc(cfg->shard);
  struct np_fec *tx = NULL, *rx = NULL, *rec = NULL;
  int rc = NP_ENOMEM;
  if (cap.buf == NULL || cap.len == NULL || msg == NULL)
    goto cleanup;
  struct np_fec_callbacks cbn = {null_output, NULL, NULL, NULL};
  struct np_fec_callbacks cbc = {cap_output, NULL, &cap, NULL};
  struct np_fec_callbacks cbr = {null_output, cap_recovered, &cap, NULL};
  if ((rc = np_fec_new(&fc, &cbn, 0, &tx, NULL)) != 0 ||
      (rc = np_fec_new(&fc, &cbc, 0, &rec, NULL)) != 0 ||
      (rc = np_fec_new(&fc, &cbr, 0, &rx, NULL)) != 0)
    goto cleanup;
  for (unsigned i = 0; i < cfg->shard; i++)
    msg[i] = (uint8_t)(i * 31u + 1u);
  msg[0] = 0x01; /* no FEC mark, like an ARQ data datagram */
  struct bench_clock c;
  uint64_t n = 0, now = 0;
  clock_start(&c);
  while (n < 100000000ull && !clock_expired(&c, cfg->seconds)) {
    for (int j = 0; j < 256; j++, n++)
      np_fec_send(tx, msg, cfg->shard, now += 1000);
  }
  clock_stop(&c);
  cJSON *r = bench_result("endpoint_send", n, n * cfg->shard, &c);
  if (r == NULL || !cJSON_AddItemToArray(arr, r))
    goto cleanup;
  /* Record 64 groups once, replay them with `lose` data shards missing;
   * group ids are rewritten so every pass looks new to the decoder. */
  for (unsigned i = 0; i < 64 * cfg->k; i++)
    np_fec_send(rec, msg, cfg->shard, 0);
  size_t per = cfg->k + cfg->m;
  uint16_t gid = 0;
  n = 0;
  uint64_t bytes = 0;
  const uint8_t *o;
  size_t olen;
  clock_start(&c);
  while (n < 100000000ull && !clock_expired(&c, cfg->seconds)) {
    for (size_t g = 0; g < cap.n / per; g++, gid++) {
      for (size_t s = 0; s < per; s++) {
        uint8_t *d = cap.buf + (g * per + s) * cap.mtu;
        d[1] = (uint8_t)(gid >> 8);
        d[2] = (uint8_t)gid;
        if (s < cfg->lose)
          continue;
        int kind = np_fec_input(rx, d, cap.len[g * per + s], now += 1000, &o,
                                &olen);
        if (kind == NP_FEC_IN_DATA)
          n++, bytes += olen;
      }
    }
    np_fec_on_timer(rx, now);
  }
  clock_stop(&c);
  uint64_t total = n + cap.recovered;
  r = bench_result("endpoint_input", total, bytes + cap.recovered * cfg->shard,
                   &c);
  if (r == NULL || !cJSON_AddItemToArray(arr, r))
    goto cleanup;
  np_json_add_number(r, "recovered", (double)cap.recovered);
  struct np_fec_stats st;
  np_fec_get_stats(rx, &st);
  np_json_add_number(r, "unrecoverable", (double)st.unrecoverable);
  np_json_add_number(r, "decode_cache_hits", (double)st.cache_hits);
  rc = 0;
cleanup:
  np_fec_free(tx);
  np_fec_free(rec);
  np_fec_free(rx);
  free(msg);
  free(cap.buf);
  free(cap.len);
  return rc;
}

int np_fec_bench_run(const struct np_fec_bench_config *cfg, cJSON **out,
                     struct np_errbuf *eb) {
  if (cfg->k < 1 || cfg->k > NP_FEC_RS_MAX_K || cfg->m < 1 ||
      cfg->m > NP_FEC_RS_MAX_M || cfg->lose > cfg->m || cfg->lose > cfg->k ||
      cfg->shard < 16 || cfg->shard > 9000 || !(cfg->seconds > 0) ||
      cfg->seconds > 60)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "fec-bench: need 1<=k<=8, 1<=m<=4, lose<=m, "
                         "16<=shard<=9000, 0<seconds<=60");
  cJSON *doc = cJSON_CreateObject();
  cJSON *conf = cJSON_CreateObject();
  cJSON *arr = cJSON_CreateArray();
  int rc = NP_ENOMEM;
  if (doc == NULL || conf == NULL || arr == NULL)
    goto fail;
  np_json_add_number(conf, "k", cfg->k);
  np_json_add_number(conf, "m", cfg->m);
  np_json_add_number(conf, "datagram_bytes", cfg->shard);
  np_json_add_number(conf, "shard_bytes", cfg->shard + 2.0);
  np_json_add_number(conf, "lost_per_group", cfg->lose);
  np_json_add_number(conf, "seconds_per_measurement", cfg->seconds);
  cJSON_AddItemToObject(doc, "config", conf);
  conf = NULL;
  cJSON_AddItemToObject(doc, "results", arr);
  cJSON *res = arr;
  arr = NULL;
  if ((rc = bench_rs(cfg, res)) != 0 || (rc = bench_endpoint(cfg, res)) != 0)
    goto fail;
  *out = doc;
  return 0;
fail:
  cJSON_Delete(conf);
  cJSON_Delete(arr);
  cJSON_Delete(doc);
  return np_errbuf_set(eb, rc, "fec-bench: %s", np_strerror(rc));
}
