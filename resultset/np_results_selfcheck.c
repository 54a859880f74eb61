/*
 * np_results_selfcheck.c - check a result set without running anything.
 *
 * Every file is looked at and every problem reported (see the header for
 * the list of checks).  Summary values are recomputed here from the runs
 * rather than by calling np_matrix_summarize, because that function reads a
 * folder on disk and the self-check must also work on an archive held in
 * memory; the recomputation uses the same rule (median/min/max over the
 * repetitions that have the value) and compares within rounding.
 */
#include "np_results_selfcheck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results.h"
#include "np_results_selfcheck_int.h"
#include "np_schema.h"

void np_results_problem(struct np_results_chk *c, const char *file,
                        const char *ptr, const char *fmt, ...) {
  char reason[512], path[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (c->label && c->label[0])
    snprintf(path, sizeof path, "%s/%s", c->label, file);
  else
    snprintf(path, sizeof path, "%s", file);
  c->problems++;
  if (c->fn)
    c->fn(c->ctx, path, ptr, reason);
}

static void on_schema_error(void *ctx, const char *pointer, const char *keyword,
                            const char *reason) {
  struct np_results_chk *c = ctx;
  np_results_problem(c, c->file, pointer, "schema: %s: %s", keyword, reason);
}

/* Parse and schema-check one JSON file; *out NULL when it does not parse. */
static void load_json(struct np_results_chk *c, const struct np_ftree *t,
                      const char *path, const char *want_tag, cJSON **out) {
  size_t len;
  const char *data = np_ftree_get(t, path, &len);
  *out = NULL;
  if (data == NULL) {
    np_results_problem(c, path, "", "missing");
    return;
  }
  struct np_errbuf eb = {{0}};
  if (np_json_parse(data, len, NULL, out, &eb) != 0) {
    np_results_problem(c, path, "", "%s", eb.msg);
    return;
  }
  const char *tag = np_json_get_string(*out, "schema", NULL);
  if (tag == NULL || strcmp(tag, want_tag) != 0) {
    np_results_problem(c, path, "/schema", "expected \"%s\"", want_tag);
    return;
  }
  struct np_schema *s = NULL;
  /* Every tag the self-check asks for is shipped; a build without it is
   * broken, and saying so beats skipping the validation. */
  if (np_schema_builtin(tag, &s, &eb) != 0) {
    np_results_problem(c, path, "/schema", "cannot be validated: %s", eb.msg);
    return;
  }
  c->file = path;
  np_schema_validate(s, *out, on_schema_error, c);
  np_schema_free(s);
}

/* Any negative number directly under obj (counters are never negative). */
static void no_negatives(struct np_results_chk *c, const char *file,
                         const cJSON *obj, const char *base) {
  const cJSON *e;
  cJSON_ArrayForEach(e, obj) {
    if (cJSON_IsNumber(e) && e->valuedouble < 0) {
      char p[256];
      snprintf(p, sizeof p, "%s/%s", base, e->string);
      np_results_problem(c, file, p, "negative count %g", e->valuedouble);
    }
  }
}

static int near(double a, double b, double rel) {
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-9;
}

/* Invariants of one run record. */
static void check_run(struct np_results_chk *c, const char *f, const cJSON *d) {
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(d, "counters");
  no_negatives(c, f, cn, "/counters");
  double sent = np_results_num(d, "/counters/sent"),
         srecv = np_results_num(d, "/counters/server_received"),
         srepl = np_results_num(d, "/counters/server_replied"),
         recv = np_results_num(d, "/counters/received"),
         lost = np_results_num(d, "/counters/lost"),
         lreq = np_results_num(d, "/counters/lost_request_leg"),
         lsrv = np_results_num(d, "/counters/lost_at_server"),
         lresp = np_results_num(d, "/counters/lost_reply_leg");
  if (isfinite(srecv) && isfinite(srepl) && srecv != srepl)
    np_results_problem(c, f, "/counters/server_replied",
                       "server_received %.0f != server_replied %.0f", srecv,
                       srepl);
  if (isfinite(sent) && isfinite(srecv) && isfinite(lreq) &&
      sent - srecv != lreq)
    np_results_problem(c, f, "/counters/lost_request_leg",
                       "sent - server_received = %.0f, record says %.0f",
                       sent - srecv, lreq);
  if (isfinite(sent) && isfinite(recv) && isfinite(lost) && sent - recv != lost)
    np_results_problem(c, f, "/counters/lost",
                       "sent - received = %.0f, record says %.0f", sent - recv,
                       lost);
  if (isfinite(lreq) && isfinite(lsrv) && isfinite(lresp) && isfinite(lost) &&
      lreq + lsrv + lresp != lost)
    np_results_problem(
        c, f, "/counters/lost",
        "request leg + server + reply leg = %.0f, not %.0f (every loss "
        "belongs to one leg)",
        lreq + lsrv + lresp, lost);
  if (isfinite(recv) && isfinite(srepl) && recv > srepl)
    np_results_problem(
        c, f, "/counters/received",
        "more echoes received (%.0f) than the server sent (%.0f)", recv, srepl);

  static const char *const pct[] = {"min", "p50", "p90", "p99", "p999", "max"};
  double prev = NAN;
  const char *prevk = NULL;
  for (size_t i = 0; i < sizeof pct / sizeof *pct; i++) {
    char key[64];
    snprintf(key, sizeof key, "/measurement/rtt_us/%s", pct[i]);
    double v = np_results_num(d, key);
    if (!isfinite(v))
      continue;
    if (v < 0)
      np_results_problem(c, f, "/measurement/rtt_us", "%s is negative", pct[i]);
    if (isfinite(prev) && v < prev)
      np_results_problem(c, f, "/measurement/rtt_us",
                         "percentiles not monotone: %s %g < %s %g", pct[i], v,
                         prevk, prev);
    prev = v;
    prevk = pct[i];
  }
  double rt = np_results_num(d, "/measurement/roundtrips"),
         rps = np_results_num(d, "/measurement/roundtrips_per_sec"),
         secs = np_results_num(d, "/measurement/seconds"),
         drain = np_results_num(d, "/measurement/drain_seconds");
  if (isfinite(rt) && isfinite(rps) && isfinite(secs) && secs > 0) {
    double a = rt / secs, b = isfinite(drain) ? rt / (secs + drain) : a;
    if (!near(rps, a, 0.005) && !near(rps, b, 0.005))
      np_results_problem(
          c, f, "/measurement/roundtrips_per_sec",
          "%.3f is not roundtrips / seconds (%.3f) within 0.5 %%", rps, b);
  }
  if (isfinite(rt) && rt < 0)
    np_results_problem(c, f, "/measurement/roundtrips", "negative count");
}

/* The evidence files beside rep-<n>.json. */
static void check_siblings(struct np_results_chk *c, const struct np_ftree *t,
                           const char *json) {
  static const char *const ext[] = {".stderr.txt", ".cmd.txt",
                                    ".kernel-before.txt", ".kernel-after.txt"};
  char p[1024];
  size_t stem = strlen(json) - 5; /* drop ".json" */
  for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
    snprintf(p, sizeof p, "%.*s%s", (int)stem, json, ext[i]);
    if (np_ftree_get(t, p, NULL) == NULL)
      np_results_problem(c, p, "", "missing (every run keeps its %s file)",
                         ext[i] + 1);
  }
}

/* Tool hashes must be one build across the set. */
static void check_hashes(struct np_results_chk *c,
                         const struct np_results_set *s) {
  static const char *const keys[] = {"source_sha256", "binary_sha256"};
  for (int k = 0; k < 2; k++) {
    const char *ref = NULL, *reffile = NULL;
    for (size_t i = 0; i < s->nruns; i++) {
      const cJSON *tool =
          cJSON_GetObjectItemCaseSensitive(s->runs[i].doc, "tool");
      const char *h = np_json_get_string(tool, keys[k], NULL);
      char ptr[64];
      snprintf(ptr, sizeof ptr, "/tool/%s", keys[k]);
      if (h == NULL)
        np_results_problem(c, s->runs[i].file, ptr, "missing");
      else if (ref == NULL) {
        ref = h;
        reffile = s->runs[i].file;
      } else if (strcmp(h, ref) != 0)
        np_results_problem(
            c, s->runs[i].file, ptr,
            "differs from %s (mixed builds are not one experiment)", reffile);
    }
  }
}

/* The run stored at tree path f, or NULL. */
static const struct np_results_run *find_run(const struct np_results_config *cf,
                                             const char *f) {
  for (size_t k = 0; cf && k < cf->nruns; k++)
    if (strcmp(cf->runs[k].file, f) == 0)
      return &cf->runs[k];
  return NULL;
}

static const struct np_results_config *
find_config(const struct np_results_set *s, const char *id) {
  for (size_t i = 0; i < s->nconfigs; i++)
    if (strcmp(s->configs[i].id, id) == 0)
      return &s->configs[i];
  return NULL;
}

/* Issue 4's status rule recomputed from the runs: incomplete (records
 * missing), confirmed / unexpected-pass (expected to fail), failed (any
 * repetition not passed) or passed.  "expect" is taken from the summary
 * entry (the plan's expansion is the runner's business). */
static void check_config_status(struct np_results_chk *c,
                                const struct np_results_set *s,
                                const struct np_results_config *cf,
                                const cJSON *e, int idx) {
  const char *have = np_json_get_string(e, "status", NULL);
  double reps = np_json_get_number(s->suite, "repetitions", NAN);
  if (have == NULL || !isfinite(reps))
    return;
  int expect_fail =
      strcmp(np_json_get_string(e, "expect", "pass"), "fail") == 0;
  const char *want = (double)cf->nruns < reps ? "incomplete"
                     : expect_fail
                         ? (cf->npassed == 0 ? "confirmed" : "unexpected-pass")
                     : cf->npassed == cf->nruns ? "passed"
                                                : "failed";
  if (strcmp(have, want) != 0) {
    char ptr[96];
    snprintf(ptr, sizeof ptr, "/configurations/%d/status", idx);
    np_results_problem(c, "summary.json", ptr,
                       "\"%s\", but its runs make it \"%s\" (%zu of %zu "
                       "passed)",
                       have, want, cf->npassed, cf->nruns);
  }
}

/* The reference's ranking rule: only configurations whose every planned
 * repetition passed are ranked; one failed run excludes all of them. */
static void check_rankings(struct np_results_chk *c,
                           const struct np_results_set *s) {
  double reps = np_json_get_number(s->suite, "repetitions", NAN);
  const cJSON *g, *e;
  int gi = 0;
  cJSON_ArrayForEach(g,
                     cJSON_GetObjectItemCaseSensitive(s->summary, "rankings")) {
    int ri = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(g, "ranked")) {
      const char *id = np_json_get_string(e, "id", "");
      const struct np_results_config *cf = find_config(s, id);
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/rankings/%d/ranked/%d", gi, ri++);
      if (cf == NULL)
        np_results_problem(c, "summary.json", ptr,
                           "ranks %s, which has no runs", id);
      else if (cf->npassed != cf->nruns ||
               (isfinite(reps) && (double)cf->nruns < reps))
        np_results_problem(c, "summary.json", ptr,
                           "ranks %s although only %zu of %.0f repetitions "
                           "passed (a configuration with any failed "
                           "repetition is excluded)",
                           id, cf->npassed,
                           isfinite(reps) ? reps : (double)cf->nruns);
      else if (cf->expect_fail)
        np_results_problem(c, "summary.json", ptr,
                           "ranks %s, which is expected to fail", id);
    }
    gi++;
  }
}

/* summary.json against the runs. */
static void check_summary(struct np_results_chk *c,
                          const struct np_results_set *s) {
  const cJSON *cfgs =
      cJSON_GetObjectItemCaseSensitive(s->summary, "configurations");
  int complete =
      strcmp(np_json_get_string(s->suite, "status", ""), "complete") == 0;
  const cJSON *e;
  int idx = 0;
  cJSON_ArrayForEach(e, cfgs) {
    char ptr[128];
    const char *id = np_json_get_string(e, "id", "");
    const struct np_results_config *cf = find_config(s, id);
    const cJSON *reps = cJSON_GetObjectItemCaseSensitive(e, "repetitions");
    const cJSON *r;
    int ri = 0;
    cJSON_ArrayForEach(r, reps) {
      int n = (int)np_json_get_number(r, "n", ri + 1);
      const char *st = np_json_get_string(r, "status", "");
      char f[512];
      snprintf(f, sizeof f, "runs/%s/rep-%d.json", id, n);
      const struct np_results_run *run = find_run(cf, f);
      int have = run != NULL;
      if (!have && strcmp(st, "missing") != 0)
        np_results_problem(c, f, "", "missing (summary.json lists it as %s)",
                           st[0] ? st : "present");
      else if (!have && complete)
        np_results_problem(c, f, "",
                           "missing, but suite.json says the suite is "
                           "complete (every repetition leaves a record)");
      if (run != NULL && run->status != NULL && strcmp(st, run->status) != 0) {
        snprintf(ptr, sizeof ptr, "/configurations/%d/repetitions/%d/status",
                 idx, ri);
        np_results_problem(c, "summary.json", ptr, "\"%s\", but %s says \"%s\"",
                           st, f, run->status);
      }
      ri++;
    }
    if (cf == NULL) {
      if (ri == 0)
        np_results_problem(c, "summary.json", "",
                           "configuration %s has no runs", id);
      idx++;
      continue;
    }
    const cJSON *stats = cJSON_GetObjectItemCaseSensitive(e, "stats");
    const char *names[] = {"lost", "roundtrips_per_sec", "rtt_p99_us",
                           "cpu_percent"};
    const enum np_results_metric ms[] = {NP_M_LOST, NP_M_RPS, NP_M_P99,
                                         NP_M_CPU};
    /* rudp statistics follow their own basis (rounds or repetitions) */
    int nk = np_results_check_rudp_stats(c, cf, e, idx) ? 1 : 4;
    np_results_check_exec_stats(c, cf, e, idx);
    for (int k = 0; k < nk; k++) {
      const cJSON *st = cJSON_GetObjectItemCaseSensitive(stats, names[k]);
      if (st == NULL)
        continue;
      double med, mn, mx, med2, mn2, mx2;
      np_results_stat(cf, ms[k], 0, &med, &mn, &mx);
      np_results_stat(cf, ms[k], 1, &med2, &mn2, &mx2);
      /* median, min and max all recomputable (all repetitions, or the
       * passed ones, whichever the summary used) */
      const char *fields[] = {"median", "min", "max"};
      const double all[] = {med, mn, mx}, pas[] = {med2, mn2, mx2};
      for (int j = 0; j < 3; j++) {
        double sm = np_json_get_number(st, fields[j], NAN);
        if (!isfinite(sm))
          continue;
        if (!near(sm, all[j], 1e-6) && !near(sm, pas[j], 1e-6)) {
          snprintf(ptr, sizeof ptr, "/configurations/%d/stats/%s/%s", idx,
                   names[k], fields[j]);
          np_results_problem(c, "summary.json", ptr,
                             "%.6g does not match the runs' %s %.6g", sm,
                             fields[j], all[j]);
        }
      }
    }
    check_config_status(c, s, cf, e, idx);
    idx++;
  }
  for (size_t i = 0; cfgs && i < s->nconfigs; i++) {
    int listed = 0;
    cJSON_ArrayForEach(e, cfgs) listed |=
        strcmp(np_json_get_string(e, "id", ""), s->configs[i].id) == 0;
    if (!listed)
      np_results_problem(c, s->configs[i].runs[0].file, "",
                         "configuration %s is not in summary.json",
                         s->configs[i].id);
  }
  check_rankings(c, s);
}

int np_results_self_check(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx) {
  struct np_results_chk c = {.label = label, .fn = on_problem, .ctx = ctx};
  cJSON *suite = NULL, *summary = NULL;
  load_json(&c, t, "suite.json", "netproof/suite/1", &suite);
  load_json(&c, t, "summary.json", "netproof/summary/1", &summary);
  cJSON_Delete(suite);
  cJSON_Delete(summary);
  int all_parse = 1;
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t n = strlen(p);
    if (strncmp(p, "runs/", 5) != 0)
      continue;
    if (n > 5 && strcmp(p + n - 5, ".json") == 0) {
      cJSON *d = NULL;
      load_json(&c, t, p, "netproof/run/1", &d);
      if (d == NULL) {
        all_parse = 0;
        continue;
      }
      check_run(&c, p, d);
      np_results_check_rudp_run(&c, p, d);
      np_results_check_external_run(&c, p, d);
      np_results_check_far_run(&c, p, d);
      np_results_check_exec_run(&c, t, p, d);
      cJSON_Delete(d);
      check_siblings(&c, t, p);
    }
  }
  /* Cross-file checks need every record parsed. */
  struct np_results_set *s = NULL;
  struct np_errbuf eb = {{0}};
  if (all_parse && np_results_load(t, "", &s, &eb) == 0) {
    check_hashes(&c, s);
    np_results_check_identity(&c, s);
    if (s->summary)
      check_summary(&c, s);
    np_results_free(s);
  } else if (all_parse) {
    np_results_problem(&c, "runs", "", "%s", eb.msg);
  }
  return c.problems ? NP_ECHECK : 0;
}
