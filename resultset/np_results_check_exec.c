/*
 * np_results_check_exec.c - the self-check's rules for exec records
 * (`netproof-bench exec`, any benchmark program).  Nothing is taken on
 * trust from the record:
 *   - each kept file (stdout, stderr, the files metrics read) is in the
 *     set beside the record, with the recorded size and SHA-256, and its
 *     truncation flag agrees with its sizes;
 *   - every metric is evaluated again from those kept bytes, by the same
 *     code the benchmark used (model/exec/np_exec_metric.c): the value, or
 *     the kind of failure, must be the record's;
 *   - every bound is held again against the metric and the record's own
 *     kernel delta, and every check's verdict (completed, exit_status,
 *     output_complete, metric_NAME, bound_K) follows from the record;
 *   - every --interval-metric series is scanned again from the kept stdout
 *     by the benchmark's own code (model/exec/np_exec_series.c): the same
 *     lines with the same values, unparsed and over-limit counts; the
 *     times, which only the run could see, must rise with the line number
 *     and lie within [0, wall_seconds]; the intervals are rebuilt from
 *     those and must be the record's; series_NAME's verdict follows;
 *   - what the program left running (exec.leftovers, 0.3 on; required
 *     from record version 0.3.0): the count is the list's, allowed is
 *     the command's --allow-leftovers, and no_leftover_processes follows
 *     from them (a record without the section is not judged on it);
 *   - summary.json's "exec.NAME" statistics come from the shared summary
 *     builder (np_results_summary.c), rebuilt and compared at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_exec_metric.h"
#include "np_exec_series.h"
#include "np_json.h"
#include "np_results_exec.h"
#include "np_results_check_int.h"
#include "np_sha256.h"

/* The record's verdict for check name, or -1 when it has none. */
static int check_verdict(const cJSON *d, const char *name) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
    if (strcmp(np_json_get_string(c, "name", ""), name) == 0)
      return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed"));
  }
  return -1;
}

static void want_verdict(struct np_results_check *c, const char *f,
                         const cJSON *d, const char *name, int want,
                         const char *why) {
  int have = check_verdict(d, name);
  if (have < 0)
    np_chk__problem(c, f, "/checks", "no %s check", name);
  else if (have != want)
    np_chk__problem(c, f, "/checks", "%s says %s, but %s", name,
                    have ? "passed" : "failed", why);
}

/* The set's path of kept entry k of record f into path (the record's
 * folder + its "file"). */
static const char *kept_path(const char *f, const cJSON *k, char *path,
                             size_t len) {
  const char *name = np_json_get_string(k, "file", NULL);
  const char *slash = strrchr(f, '/');
  if (name == NULL || strchr(name, '/') != NULL)
    return NULL;
  snprintf(path, len, "%.*s%s", slash ? (int)(slash - f + 1) : 0, f, name);
  return path;
}

/* A kept file's bytes among the repetition's files, or NULL. */
static const char *kept_data(struct np_chk_cur *cur, const char *f,
                             const cJSON *k, size_t *len) {
  char path[NP_CHK_PATH_MAX + 64];
  return kept_path(f, k, path, sizeof path) ? np_chk__cur_other(cur, path, len)
                                            : NULL;
}

/* A kept file: present beside the record, size and SHA-256 as recorded.
 * Returns its bytes or NULL. */
static const char *kept_file(struct np_results_check *c,
                             struct np_chk_cur *cur, const char *f,
                             const cJSON *k, const char *ptr, size_t *len) {
  char path[NP_CHK_PATH_MAX + 64], hex[NP_SHA256_HEX_SIZE];
  if (kept_path(f, k, path, sizeof path) == NULL)
    return NULL;
  const char *data = np_chk__cur_other(cur, path, len);
  if (data == NULL) {
    np_chk__problem(c, path, "", "missing (%s names it at %s)", f, ptr);
    return NULL;
  }
  double bytes = np_json_get_number(k, "bytes", NAN),
         total = np_json_get_number(k, "total_bytes", NAN);
  int trunc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "truncated"));
  if (bytes != (double)*len)
    np_chk__problem(c, path, "", "%zu bytes, but %s says %.0f at %s/bytes",
                    *len, f, bytes, ptr);
  if (np_sha256_buf(data, *len, hex) == 0 &&
      strcmp(hex, np_json_get_string(k, "sha256", "")) != 0)
    np_chk__problem(c, path, "", "SHA-256 %s, but %s says %s at %s/sha256", hex,
                    f, np_json_get_string(k, "sha256", "?"), ptr);
  if (isfinite(total) && isfinite(bytes) && trunc != (total > bytes))
    np_chk__problem(c, f, ptr, "truncated is %s with %.0f of %.0f bytes kept",
                    trunc ? "true" : "false", bytes, total);
  return data;
}

/* Evaluate metric m (record entry, index i) again from the kept bytes. */
static void check_metric(struct np_results_check *c, struct np_chk_cur *t,
                         const char *f,
                         const cJSON *d, const cJSON *m, int i) {
  char ptr[96], text[2048], name[64];
  snprintf(ptr, sizeof ptr, "/exec/metrics/%d", i);
  snprintf(text, sizeof text, "%s=%s", np_json_get_string(m, "name", ""),
           np_json_get_string(m, "spec", ""));
  struct np_exec_metric_spec spec;
  struct np_errbuf eb = {{0}};
  if (np_exec_metric_parse(text, &spec, &eb) != 0) {
    np_chk__problem(c, f, ptr, "spec does not parse: %s", eb.msg);
    return;
  }
  if (strcmp(spec.expr, np_json_get_string(m, "expr", "")) != 0 ||
      strcmp(spec.unit, np_json_get_string(m, "unit", "")) != 0)
    np_chk__problem(c, f, ptr, "expr or unit differ from its spec");
  const char *data = NULL;
  size_t len = 0;
  int trunc = 0, readable = 1;
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, "exec");
  if (spec.source == NP_EXEC_SOURCE_STDOUT) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(x, "stdout");
    data = kept_data(t, f, k, &len);
    trunc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "truncated"));
    if (data == NULL)
      return;
  } else {
    const cJSON *e, *hit = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "files")) {
      if (hit == NULL &&
          strcmp(np_json_get_string(e, "path", ""), spec.path) == 0)
        hit = e;
    }
    if (hit == NULL) {
      np_chk__problem(c, f, ptr, "reads %s, which /exec/files lacks",
                      spec.path);
      return;
    }
    readable = cJSON_GetObjectItemCaseSensitive(hit, "error") == NULL;
    if (readable) {
      data = kept_data(t, f, hit, &len);
      trunc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hit, "truncated"));
      if (data == NULL)
        return;
    }
  }
  struct np_exec_metric_val v;
  if (!readable)
    np_exec_metric_unreadable(&spec, "unreadable", &v);
  else if (np_exec_metric_eval(&spec, data, len, trunc, &v) != 0)
    return; /* out of memory: nothing to compare */
  const char *fail = np_json_get_string(m, "failure", NULL);
  const cJSON *val = cJSON_GetObjectItemCaseSensitive(m, "value");
  const char *now = v.fail == NP_EXEC_OK ? NULL : np_exec_fail_name(v.fail);
  if ((fail == NULL) != (now == NULL) ||
      (fail != NULL && strcmp(fail, now) != 0))
    np_chk__problem(c, f, ptr,
                    "re-derived from the kept output: %s%s, but the "
                    "record says %s",
                    now ? now : "the value ", now ? "" : v.raw,
                    fail ? fail : "it has a value");
  else if (now == NULL && (!cJSON_IsNumber(val) || val->valuedouble != v.value))
    np_chk__problem(c, f, ptr,
                    "re-derived value %.17g from the kept "
                    "output, but the record says %.17g",
                    v.value, cJSON_IsNumber(val) ? val->valuedouble : NAN);
  snprintf(name, sizeof name, "metric_%s", spec.name);
  want_verdict(c, f, d, name, now == NULL,
               now == NULL ? "the metric has its value" : "it has none");
}

/* Bound b (index i): its right side from the record's kernel delta, its
 * verdict from the metric's value. */
static void check_bound(struct np_results_check *c, const char *f,
                        const cJSON *d, const cJSON *b, int i) {
  char ptr[64], name[32], detail[320];
  snprintf(ptr, sizeof ptr, "/exec/bounds/%d", i);
  struct np_exec_bound bound;
  if (np_exec_bound_parse(np_json_get_string(b, "check", ""), &bound, NULL)) {
    np_chk__problem(c, f, ptr, "check does not parse");
    return;
  }
  double rhs = bound.value;
  if (bound.kernel) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(
        np_json_pointer(d, "/kernel/delta"), bound.counter);
    rhs = cJSON_IsNumber(k) ? k->valuedouble : NAN;
  }
  double have = np_json_get_number(b, "rhs", NAN);
  if (isfinite(rhs) != isfinite(have) || (isfinite(rhs) && rhs != have))
    np_chk__problem(c, f, ptr, "rhs %.17g, but %s gives %.17g", have,
                    bound.kernel ? "kernel.delta" : "the check", rhs);
  double lhs = np_results_exec_value(d, bound.metric);
  int ok = np_exec_bound_eval(&bound, lhs, rhs, detail, sizeof detail);
  snprintf(name, sizeof name, "bound_%d", i + 1);
  want_verdict(c, f, d, name, ok, detail);
}

/* The intervals of a series (recorded times, re-derived values) against
 * the record's. */
static void check_intervals(struct np_results_check *c, const char *f,
                            const char *ptr, const cJSON *m,
                            const struct np_exec_series *s, double interval,
                            double wall) {
  size_t k = np_exec_series_nintervals(interval, wall);
  const cJSON *ia = cJSON_GetObjectItemCaseSensitive(m, "intervals");
  if ((size_t)cJSON_GetArraySize(ia) != k) {
    np_chk__problem(c, f, ptr, "%d intervals, but %g s of %g s make %zu",
                    cJSON_GetArraySize(ia), wall, interval, k);
    return;
  }
  struct np_exec_interval *iv = calloc(k, sizeof *iv);
  if (iv == NULL)
    return;
  np_exec_series_intervals(s, interval, wall, iv);
  static const char *const key[] = {"start", "end", "count", "mean", "min",
                                    "max"};
  for (size_t i = 0; i < k; i++) {
    const cJSON *x = cJSON_GetArrayItem(ia, (int)i);
    double want[6] = {iv[i].start, iv[i].end, (double)iv[i].count,
                      iv[i].mean, iv[i].min, iv[i].max};
    for (int j = 0; j < 6; j++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, key[j]);
      int same = isfinite(want[j]) ? cJSON_IsNumber(v) &&
                                         v->valuedouble == want[j]
                                   : cJSON_IsNull(v);
      if (!same) {
        np_chk__problem(c, f, ptr,
                        "intervals/%zu/%s: rebuilt %.17g from the "
                        "samples, the record says %.17g",
                        i, key[j], want[j],
                        cJSON_IsNumber(v) ? v->valuedouble : NAN);
        free(iv);
        return;
      }
    }
  }
  free(iv);
}

/* Series m (index i) scanned again from the kept stdout. */
static void check_series(struct np_results_check *c, struct np_chk_cur *t,
                         const char *f, const cJSON *d, const cJSON *m,
                         double interval, int i) {
  char ptr[96], text[2048], name[64];
  snprintf(ptr, sizeof ptr, "/exec/series/metrics/%d", i);
  snprintf(text, sizeof text, "%s=%s", np_json_get_string(m, "name", ""),
           np_json_get_string(m, "spec", ""));
  struct np_exec_metric_spec spec;
  struct np_errbuf eb = {{0}};
  if (np_exec_metric_parse(text, &spec, &eb) != 0) {
    np_chk__problem(c, f, ptr, "spec does not parse: %s", eb.msg);
    return;
  }
  if (spec.source != NP_EXEC_SOURCE_STDOUT || spec.kind != NP_EXEC_KIND_REGEX ||
      strcmp(spec.expr, np_json_get_string(m, "expr", "")) != 0 ||
      strcmp(spec.unit, np_json_get_string(m, "unit", "")) != 0) {
    np_chk__problem(c, f, ptr,
                    "not a regex on stdout, or expr or unit differ "
                    "from its spec");
    return;
  }
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, "exec");
  size_t len = 0;
  const char *data = kept_data(t, f, cJSON_GetObjectItemCaseSensitive(x,
                                                                 "stdout"),
                               &len);
  if (data == NULL)
    return; /* kept_file said so */
  struct np_exec_series s;
  if (np_exec_series_scan(&spec, data, len, NULL, 0, &s) != 0)
    return; /* out of memory: nothing to compare */
  const cJSON *sa = cJSON_GetObjectItemCaseSensitive(m, "samples");
  double wall = np_json_get_number(x, "wall_seconds", NAN), prev = 0;
  if ((size_t)cJSON_GetArraySize(sa) != s.n) {
    np_chk__problem(c, f, ptr,
                    "%d samples, but the kept stdout has %zu "
                    "matching lines",
                    cJSON_GetArraySize(sa), s.n);
    goto done;
  }
  for (size_t j = 0; j < s.n; j++) {
    const cJSON *row = cJSON_GetArrayItem(sa, (int)j);
    const cJSON *ln = cJSON_GetArrayItem(row, 0), *tt = cJSON_GetArrayItem(row, 1),
                *vv = cJSON_GetArrayItem(row, 2);
    if (!cJSON_IsNumber(ln) || ln->valuedouble != s.v[j].line ||
        !cJSON_IsNumber(vv) || vv->valuedouble != s.v[j].value) {
      np_chk__problem(c, f, ptr,
                      "samples/%zu: the kept stdout gives line %u "
                      "value %.17g",
                      j, s.v[j].line, s.v[j].value);
      goto done;
    }
    double tv = cJSON_IsNumber(tt) ? tt->valuedouble : NAN;
    if (!(tv >= prev) || !(tv <= wall)) {
      np_chk__problem(c, f, ptr,
                      "samples/%zu: time %.17g is not within "
                      "[%.17g, wall_seconds %.17g]",
                      j, tv, prev, wall);
      goto done;
    }
    prev = tv;
    s.v[j].t = tv; /* the one thing only the run could know */
  }
  if (np_json_get_number(m, "unparsed", NAN) != (double)s.unparsed ||
      np_json_get_number(m, "over_limit", NAN) != (double)s.over_limit)
    np_chk__problem(c, f, ptr,
                    "unparsed / over_limit: the kept stdout gives "
                    "%llu / %llu",
                    (unsigned long long)s.unparsed,
                    (unsigned long long)s.over_limit);
  check_intervals(c, f, ptr, m, &s, interval, wall);
  snprintf(name, sizeof name, "series_%s", spec.name);
  want_verdict(c, f, d, name, s.n > 0 && s.unparsed == 0 && s.over_limit == 0,
               "the kept stdout says otherwise");
done:
  np_exec_series_free(&s);
}

/* 1 when the record's command has the flag opt before its "--". */
static int command_has(const cJSON *d, const char *opt) {
  char **argv = NULL;
  int argc = 0, hit = 0;
  if (np_chk__record_argv(d, &argv, &argc) != 0)
    return -1;
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    hit |= strcmp(argv[i], opt) == 0;
  np_chk__argv_free(argv, argc);
  return hit;
}

/* exec.leftovers against itself, the command and the check's verdict. */
static void check_leftovers(struct np_results_check *c, const char *f,
                            const cJSON *d, const cJSON *x) {
  const cJSON *lo = cJSON_GetObjectItemCaseSensitive(x, "leftovers"), *p;
  const char *ver =
      np_json_get_string(np_json_pointer(d, "/tool"), "version", "");
  if (lo == NULL) {
    if (!np_chk__version_before(ver, "0.3.0"))
      np_chk__problem(c, f, "/exec", "no leftovers (required from 0.3.0)");
    return;
  }
  const cJSON *procs = cJSON_GetObjectItemCaseSensitive(lo, "processes");
  double count = np_json_get_number(lo, "count", NAN);
  int n = cJSON_GetArraySize(procs), survived = 0;
  if (count != (double)n)
    np_chk__problem(c, f, "/exec/leftovers/count",
                    "%.0f, but the list holds %d processes", count, n);
  cJSON_ArrayForEach(p, procs) {
    survived += strcmp(np_json_get_string(p, "fate", ""), "survived") == 0;
  }
  int allowed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lo, "allowed"));
  int given = command_has(d, "--allow-leftovers");
  if (given >= 0 && given != allowed)
    np_chk__problem(c, f, "/exec/leftovers/allowed",
                    "%s, but the command %s --allow-leftovers",
                    allowed ? "true" : "false", given ? "has" : "lacks");
  int complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lo, "complete"));
  int ok = complete && (n == 0 || (allowed && survived == 0));
  char why[160];
  snprintf(why, sizeof why, "%d left running (%d survived), %s%s", n,
           survived, allowed ? "allowed" : "not allowed",
           complete ? "" : ", search incomplete");
  want_verdict(c, f, d, "no_leftover_processes", ok, why);
}

void np_chk__exec_record(const struct np_chk_rec *r) {
  struct np_results_check *c = r->c;
  struct np_chk_cur *t = r->cur;
  const char *f = r->file;
  const cJSON *d = r->doc;
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, "exec"), *e;
  if (x == NULL)
    return;
  size_t len;
  kept_file(c, t, f, cJSON_GetObjectItemCaseSensitive(x, "stdout"),
            "/exec/stdout", &len);
  kept_file(c, t, f, cJSON_GetObjectItemCaseSensitive(x, "stderr"),
            "/exec/stderr", &len);
  int i = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "files")) {
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/exec/files/%d", i++);
    if (cJSON_GetObjectItemCaseSensitive(e, "error") == NULL)
      kept_file(c, t, f, e, ptr, &len);
  }
  i = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "metrics"))
    check_metric(c, t, f, d, e, i++);
  i = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "bounds"))
    check_bound(c, f, d, e, i++);
  const cJSON *series = cJSON_GetObjectItemCaseSensitive(x, "series");
  double interval = np_json_get_number(series, "interval_seconds", NAN);
  /* the interval is the one the command asked for (config.command is held
   * to cmd.txt elsewhere); a series without --interval is forged */
  double asked = NAN;
  const cJSON *cmd = np_json_pointer(d, "/config/command"), *a, *prev = NULL;
  cJSON_ArrayForEach(a, cmd) {
    if (!cJSON_IsString(a) || strcmp(a->valuestring, "--") == 0)
      break;
    if (prev != NULL && strcmp(prev->valuestring, "--interval") == 0)
      asked = strtod(a->valuestring, NULL);
    else if (strncmp(a->valuestring, "--interval=", 11) == 0)
      asked = strtod(a->valuestring + 11, NULL);
    prev = a;
  }
  if (series != NULL && !(interval == asked))
    np_chk__problem(c, f, "/exec/series/interval_seconds",
                    "%.17g, but the command asked for --interval %.17g",
                    interval, asked);
  i = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(series, "metrics"))
    check_series(c, t, f, d, e, interval, i++);
  const cJSON *oc = cJSON_GetObjectItemCaseSensitive(x, "outcome");
  const char *kind = np_json_get_string(oc, "kind", "");
  double code = np_json_get_number(oc, "exit_code", NAN),
         want = np_json_get_number(oc, "expected_exit", NAN);
  want_verdict(c, f, d, "completed",
               strcmp(kind, "timeout") != 0 && strcmp(kind, "interrupted") != 0,
               "the outcome says otherwise");
  want_verdict(c, f, d, "exit_status",
               strcmp(kind, "exited") == 0 && code == want,
               "the outcome says otherwise");
  int trunc =
      cJSON_IsTrue(np_json_pointer(x, "/stdout/truncated")) ||
      cJSON_IsTrue(np_json_pointer(x, "/stderr/truncated"));
  want_verdict(c, f, d, "output_complete", !trunc,
               "the kept output says otherwise");
  check_leftovers(c, f, d, x);
}
