/*
 * np_results_load.c - load a results tree into runs and configurations.
 *
 * Run records are found by path shape alone (runs/<config-id>/rep-<n>.json)
 * so a stray file never becomes a run; the self-check is what complains
 * about stray or missing files.  Runs are ordered by configuration id, then
 * repetition number (numerically: rep-2 before rep-10).
 */
#include "np_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kernel.h"
#include "np_results_stats.h"
#include "np_ksnap.h"

static const char *const metric_path[NP_M_COUNT_] = {
    [NP_M_RPS] = "/measurement/roundtrips_per_sec",
    [NP_M_P50] = "/measurement/rtt_us/p50",
    [NP_M_P99] = "/measurement/rtt_us/p99",
    [NP_M_CPU] = "/measurement/cpu_percent",
    [NP_M_RSS] = "/measurement/rss_max_bytes",
    [NP_M_LOST] = "/counters/lost",
    [NP_M_KDROPS] = "/sockets/kernel_drops",
    [NP_M_RCVBUF] = "/kernel/delta/Udp.RcvbufErrors",
    [NP_M_REASM] = "/kernel/delta/Ip.ReasmReqds",
};

/* "runs/<cid>/rep-<n>.json" -> cid and n; 0 when path has another shape. */
static int parse_run_path(const char *path, char *cid, size_t cidlen,
                          long *rep) {
  if (strncmp(path, "runs/", 5) != 0)
    return 0;
  const char *c = path + 5, *slash = strchr(c, '/');
  if (slash == NULL || slash == c || (size_t)(slash - c) >= cidlen)
    return 0;
  const char *f = slash + 1;
  if (strncmp(f, "rep-", 4) != 0 || strchr(f, '/') != NULL)
    return 0;
  char *end;
  long n = strtol(f + 4, &end, 10);
  if (end == f + 4 || strcmp(end, ".json") != 0 || n < 1)
    return 0;
  memcpy(cid, c, (size_t)(slash - c));
  cid[slash - c] = '\0';
  *rep = n;
  return 1;
}

static const char *const kcounter_name[NP_K_COUNT_] = {
    [NP_K_RCVBUF] = "Udp.RcvbufErrors",
    [NP_K_REASM_REQDS] = "Ip.ReasmReqds",
    [NP_K_REASM_OKS] = "Ip.ReasmOKs",
    [NP_K_FRAG_CREATES] = "Ip.FragCreates",
};

/* Counters of the runner's snapshot before or after the repetition stem
 * (np_ksnap_tree_get: referenced or a 0.2 set's file) into v (NAN when the
 * file or a counter is absent or unreadable: the self-check says why). */
static void read_kernel(const struct np_ftree *t, const char *stem,
                        int after, double *v) {
  size_t len = 0;
  for (int k = 0; k < NP_K_COUNT_; k++)
    v[k] = NAN;
  const char *text = np_ksnap_tree_get(t, stem, after, &len);
  struct np_kernel *kn = NULL;
  struct np_errbuf eb = {{0}};
  if (text == NULL || np_kernel_parse_raw(text, len, &kn, &eb) != 0)
    return;
  for (int k = 0; k < NP_K_COUNT_; k++) {
    int64_t x;
    if (np_kernel_get(kn, kcounter_name[k], &x) == 0)
      v[k] = (double)x;
  }
  np_kernel_free(kn);
}

/* The command of rep-<n>.cmd.txt for a reader to paste: the binary named
 * by its file name, the per-run --output replaced by "run.json" (no
 * absolute path of the machine that ran it). */
static char *read_command(const struct np_ftree *t, const char *stem) {
  char p[1100];
  size_t len;
  snprintf(p, sizeof p, "%s.cmd.txt", stem);
  const char *text = np_ftree_get(t, p, &len);
  if (text == NULL || len < 9 || strncmp(text, "command: ", 9) != 0)
    return NULL;
  const char *b = text + 9, *e = memchr(b, '\n', len - 9);
  size_t n = e ? (size_t)(e - b) : len - 9;
  const char *sp = memchr(b, ' ', n), *base = b;
  for (const char *q = b; q < (sp ? sp : b + n); q++)
    if (*q == '/')
      base = q + 1;
  char *out = malloc(n + 16);
  if (out == NULL)
    return NULL;
  memcpy(out, base, (size_t)(b + n - base));
  out[b + n - base] = '\0';
  char *o = strstr(out, " --output ");
  if (o != NULL) {
    char *v = o + 10, *end = strchr(v, ' ');
    size_t tail = end ? strlen(end) : 0;
    memmove(v + 8, end ? end : v + strlen(v), tail + 1);
    memcpy(v, "run.json", 8);
  }
  return out;
}

/* Sort key: config id, then repetition number, kept beside each run. */
struct keyed_run {
  struct np_results_run run;
  long rep;
  char cid[NP_RESULTS_ID_MAX];
};

static int cmp_keyed(const void *a, const void *b) {
  const struct keyed_run *x = a, *y = b;
  int c = strcmp(x->cid, y->cid);
  if (c != 0)
    return c;
  return (x->rep > y->rep) - (x->rep < y->rep);
}

static void fill_dims(struct np_results_config *c) {
  const cJSON *d = c->runs[0].doc;
  double payload = np_results_num(d, "/config/payload");
  double clients = np_results_num(d, "/config/clients");
  double window = np_results_num(d, "/config/window");
  double threads = np_results_num(d, "/config/io_threads");
  /* Effective server receive buffer: the first server socket's. */
  double srv = NAN;
  const cJSON *sk, *list = cJSON_GetObjectItemCaseSensitive(
                       cJSON_GetObjectItemCaseSensitive(d, "sockets"), "list");
  cJSON_ArrayForEach(sk, list) {
    if (strcmp(np_json_get_string(sk, "role", ""), "server") == 0) {
      srv = np_results_num(sk, "/rcvbuf_effective");
      break;
    }
  }
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config");
  const char *model = np_json_get_string(cfg, "io_model", "-");
  const char *backend = np_json_get_string(cfg, "backend", "-");
  static const char *const models[] = {"single", "split", "pool", "reuseport",
                                       "connected"};
  double mrank = 9;
  for (size_t i = 0; i < 5; i++)
    if (strcmp(model, models[i]) == 0)
      mrank = (double)i;
  c->dimv[NP_D_PAYLOAD] = payload;
  c->dimv[NP_D_CLIENTS] = clients;
  c->dimv[NP_D_WINDOW] = window;
  c->dimv[NP_D_MODEL] = mrank * 1000 + (isfinite(threads) ? threads : 0);
  c->dimv[NP_D_BACKEND] = strcmp(backend, "uv") == 0    ? 0
                          : strcmp(backend, "raw") == 0 ? 1
                                                        : 2;
  c->dimv[NP_D_SRVBUF] = srv;
  snprintf(c->dim[NP_D_PAYLOAD], 48, "%.0f", payload);
  snprintf(c->dim[NP_D_CLIENTS], 48, "%.0f", clients);
  snprintf(c->dim[NP_D_WINDOW], 48, "%.0f", window);
  if (isfinite(threads) && threads > 1)
    snprintf(c->dim[NP_D_MODEL], 48, "%s/%.0f", model, threads);
  else
    snprintf(c->dim[NP_D_MODEL], 48, "%s", model);
  snprintf(c->dim[NP_D_BACKEND], 48, "%s", backend);
  snprintf(c->dim[NP_D_SRVBUF], 48, "%.0f", srv);
}

/* Mark configurations expected to fail: summary.json's configurations[]
 * carry "expect" (from the plan); suite.json's plan is the fallback. */
static void mark_expected(struct np_results_set *s) {
  const cJSON *cfgs =
      cJSON_GetObjectItemCaseSensitive(s->summary, "configurations");
  if (cfgs == NULL)
    cfgs = cJSON_GetObjectItemCaseSensitive(s->suite, "configs");
  const cJSON *e;
  cJSON_ArrayForEach(e, cfgs) {
    const char *id = np_json_get_string(e, "id", NULL);
    const char *ex = np_json_get_string(e, "expect", "pass");
    for (size_t i = 0; id && i < s->nconfigs; i++)
      if (strcmp(s->configs[i].id, id) == 0)
        s->configs[i].expect_fail = strcmp(ex, "fail") == 0;
  }
}

/* A record's kernel.before / kernel.after that refer to the set's
 * kernel-snapshots/ (np_ksnap.h) replaced by the snapshot inline, so
 * readers of /kernel/<which>/counters see one form.  A reference that
 * does not resolve is left as it is (the self-check reports it). */
static void inline_kernel_refs(const struct np_ftree *t, cJSON *doc) {
  static const char *const which[] = {"before", "after"};
  cJSON *kj = cJSON_GetObjectItemCaseSensitive(doc, "kernel");
  for (size_t i = 0; kj && i < 2; i++) {
    char hex[NP_SHA256_HEX_SIZE], p[128];
    size_t len = 0;
    struct np_kernel *k = NULL;
    if (np_ksnap_record_ref(cJSON_GetObjectItemCaseSensitive(kj, which[i]),
                            hex) != 1)
      continue;
    snprintf(p, sizeof p, "%s/%s.txt", NP_KSNAP_DIR, hex);
    const char *text = np_ftree_get(t, p, &len);
    if (text == NULL ||
        np_ksnap_record_resolve(cJSON_GetObjectItemCaseSensitive(kj,
                                                                  which[i]),
                                text, len, &k, NULL) != 0)
      continue;
    cJSON *j = np_kernel_to_json(k);
    np_kernel_free(k);
    if (j != NULL)
      cJSON_ReplaceItemInObjectCaseSensitive(kj, which[i], j);
  }
}

static int parse_file(const struct np_ftree *t, const char *path,
                      const char *label, cJSON **out, struct np_errbuf *eb) {
  size_t len;
  const char *data = np_ftree_get(t, path, &len);
  if (data == NULL)
    return NP_ENOENT;
  struct np_errbuf jeb = {{0}};
  int rc = np_json_parse(data, len, NULL, out, &jeb);
  if (rc != 0)
    np_errbuf_set(eb, rc, "%s/%s: %s", label, path, jeb.msg);
  return rc;
}

int np_results_load(const struct np_ftree *t, const char *label,
                    struct np_results_set **out, struct np_errbuf *eb) {
  int rc = 0;
  struct keyed_run *kr = NULL;
  struct np_results_set *s = calloc(1, sizeof *s);
  size_t n = np_ftree_count(t), nk = 0;
  if (s == NULL || (kr = calloc(n ? n : 1, sizeof *kr)) == NULL) {
    rc = NP_ENOMEM;
    goto fail;
  }
  snprintf(s->label, sizeof s->label, "%s", label);
  rc = parse_file(t, "suite.json", label, &s->suite, eb);
  if (rc != 0 && rc != NP_ENOENT)
    goto fail;
  rc = parse_file(t, "summary.json", label, &s->summary, eb);
  if (rc != 0 && rc != NP_ENOENT)
    goto fail;
  rc = 0;
  for (size_t i = 0; i < n; i++) {
    const char *path = np_ftree_path_at(t, i);
    struct keyed_run *k = &kr[nk];
    if (!parse_run_path(path, k->cid, sizeof k->cid, &k->rep))
      continue;
    rc = parse_file(t, path, label, &k->run.doc, eb);
    if (rc != 0)
      goto fail;
    inline_kernel_refs(t, k->run.doc);
    nk++;
    k->run.file = path;
    k->run.rep = k->rep;
    snprintf(k->run.id, sizeof k->run.id, "%s/rep-%ld", k->cid, k->rep);
    char stem[1024];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(path) - 5), path);
    read_kernel(t, stem, 0, k->run.kbefore);
    read_kernel(t, stem, 1, k->run.kafter);
    k->run.cmd = read_command(t, stem);
    k->run.status = np_json_get_string(k->run.doc, "status", "unknown");
    k->run.passed = strcmp(k->run.status, "passed") == 0;
    for (int m = 0; m < NP_M_COUNT_; m++)
      k->run.m[m] = np_results_num(k->run.doc, metric_path[m]);
  }
  if (nk == 0) {
    rc = np_errbuf_set(eb, NP_ENOENT, "%s: no runs/<config>/rep-<n>.json",
                       label);
    goto fail;
  }
  qsort(kr, nk, sizeof *kr, cmp_keyed);
  s->runs = calloc(nk, sizeof *s->runs);
  s->configs = calloc(nk, sizeof *s->configs);
  if (s->runs == NULL || s->configs == NULL) {
    rc = NP_ENOMEM;
    goto fail;
  }
  for (size_t i = 0; i < nk; i++) {
    s->runs[i] = kr[i].run;
    kr[i].run.doc = NULL; /* moved */
    kr[i].run.cmd = NULL;
    if (i == 0 || strcmp(kr[i].cid, kr[i - 1].cid) != 0) {
      struct np_results_config *c = &s->configs[s->nconfigs++];
      snprintf(c->id, sizeof c->id, "%s", kr[i].cid);
      c->runs = &s->runs[i];
      c->ci_method = (int)np_results_ci_method_of(s->summary);
    }
    struct np_results_config *c = &s->configs[s->nconfigs - 1];
    c->nruns++;
    c->npassed += (size_t)s->runs[i].passed;
  }
  s->nruns = nk;
  for (size_t i = 0; i < s->nconfigs; i++)
    fill_dims(&s->configs[i]);
  mark_expected(s);
  free(kr);
  *out = s;
  return 0;
fail:
  for (size_t i = 0; kr && i < nk; i++) {
    cJSON_Delete(kr[i].run.doc);
    free(kr[i].run.cmd);
  }
  free(kr);
  if (rc == NP_ENOMEM)
    np_errbuf_set(eb, rc, "%s: out of memory", label);
  np_results_free(s);
  return rc;
}

void np_results_free(struct np_results_set *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->nruns; i++) {
    cJSON_Delete(s->runs[i].doc);
    free(s->runs[i].cmd);
  }
  cJSON_Delete(s->suite);
  cJSON_Delete(s->summary);
  free(s->runs);
  free(s->configs);
  free(s);
}
