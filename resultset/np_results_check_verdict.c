/*
 * np_results_check_verdict.c - a record's verdict re-derived with the
 * benchmark's own code: checks[] (name, passed, detail) as
 * np_bench_record_checks writes them from the derived checks, the status
 * by np_bench_status_of (the signal named by the record's first reason),
 * reasons[] by np_bench_record_reasons, and the lines the command printed
 * on stderr.  Shared by the udp and rudp parts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_record.h"
#include "np_json.h"
#include "np_results_check_int.h"

/* The signal an interrupted record's first reason names (0: none). */
static int record_signal(const cJSON *doc) {
  if (strcmp(np_json_get_string(doc, "status", ""), "interrupted") != 0)
    return 0;
  const cJSON *r0 =
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "reasons"), 0);
  const char *why = cJSON_IsString(r0) ? r0->valuestring : "";
  if (strcmp(why, np_bench_signal_reason(2)) == 0)
    return 2;
  if (strcmp(why, np_bench_signal_reason(15)) == 0)
    return 15;
  return 0;
}

void np_chk__verdict(const struct np_chk_rec *r,
                     const struct np_bench_check *checks, unsigned n,
                     cJSON *kind_reasons) {
  struct np_results_check *c = r->c;
  const cJSON *doc = r->doc;
  cJSON *want = np_bench_record_checks(checks, n);
  if (want == NULL) {
    c->oom = 1;
    cJSON_Delete(kind_reasons);
    return;
  }
  np_chk__diff(c, r->file, "/checks",
               cJSON_GetObjectItemCaseSensitive(doc, "checks"), want,
               "re-deriving the checks from the record's counters", 24);
  cJSON_Delete(want);
  const char *have = np_json_get_string(doc, "status", "");
  int sig = record_signal(doc);
  if (strcmp(have, "interrupted") == 0 && sig == 0)
    np_chk__problem(c, r->file, "/reasons/0",
                    "an interrupted record's first reason names its signal "
                    "(\"%s\" or \"%s\")",
                    np_bench_signal_reason(2), np_bench_signal_reason(15));
  enum np_bench_status st = np_bench_status_of(checks, n, sig);
  const char *derived = np_bench_status_name(st);
  unsigned failed = 0;
  for (unsigned i = 0; i < n; i++)
    failed += !checks[i].passed;
  if (strcmp(have, derived) != 0 &&
      !(strcmp(have, "interrupted") == 0 && sig == 0))
    np_chk__problem(c, r->file, "/status",
                    "\"%s\", but its counters give \"%s\" (%u of %u checks "
                    "fail when re-derived)",
                    have, derived, failed, n);
  cJSON *reasons = NULL;
  if (st != NP_BENCH_PASSED)
    reasons = np_bench_record_reasons(checks, n, sig, kind_reasons);
  else
    cJSON_Delete(kind_reasons);
  const cJSON *hr = cJSON_GetObjectItemCaseSensitive(doc, "reasons");
  if (st == NP_BENCH_PASSED && hr != NULL && strcmp(have, "passed") == 0)
    np_chk__problem(c, r->file, "/reasons", "a passed record has no reasons");
  else if (reasons != NULL && strcmp(have, derived) == 0)
    np_chk__diff(c, r->file, "/reasons", hr, reasons,
                 "re-deriving the reasons from the checks", 8);
  cJSON_Delete(reasons);
}

int np_chk__stderr_has_sub(const struct np_chk_rec *r, const char *prefix,
                           const char *sub) {
  size_t pl = strlen(prefix), sl = strlen(sub);
  for (const char *l = r->stderr_text; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t ll = e ? (size_t)(e - l) : strlen(l);
    if (ll >= pl && memcmp(l, prefix, pl) == 0)
      for (size_t i = pl; i + sl <= ll; i++)
        if (memcmp(l + i, sub, sl) == 0)
          return 1;
    l = e ? e + 1 : NULL;
  }
  return 0;
}

void np_chk__stderr_lines(const struct np_chk_rec *r, char *const *want,
                          size_t n, const char *prefix) {
  char f[NP_CHK_PATH_MAX + 32];
  snprintf(f, sizeof f, "%s.stderr.txt", r->stem);
  if (r->stderr_text == NULL)
    return; /* reported as a missing file */
  for (size_t i = 0; i < n; i++) {
    size_t wl = strlen(want[i]);
    int found = 0;
    for (const char *l = r->stderr_text; l && *l && !found;) {
      const char *e = strchr(l, '\n');
      size_t ll = e ? (size_t)(e - l) : strlen(l);
      found = ll == wl && memcmp(l, want[i], wl) == 0;
      l = e ? e + 1 : NULL;
    }
    if (found)
      continue;
    /* show the line that stands where the record's should be */
    char near[300] = "no such line";
    for (const char *l = r->stderr_text; l && *l;) {
      const char *e = strchr(l, '\n');
      size_t ll = e ? (size_t)(e - l) : strlen(l);
      size_t pl = strlen(prefix);
      if (ll >= pl && memcmp(l, prefix, pl) == 0 &&
          (i > 0 || strstr(want[i], ": check ") == NULL)) {
        snprintf(near, sizeof near, "has \"%.*s\"", (int)(ll > 260 ? 260 : ll),
                 l);
        if (i == 0)
          break;
      }
      l = e ? e + 1 : NULL;
    }
    np_chk__problem(r->c, f, "",
                    "lacks the line the record implies: \"%s\" (%s)", want[i],
                    near);
  }
}

int np_chk__record_argv(const cJSON *doc, char ***argv, int *argc) {
  const cJSON *cmd = np_json_pointer(doc, "/config/command");
  int n = cJSON_GetArraySize(cmd), k = 0;
  char **v = calloc((size_t)n + 1, sizeof *v);
  if (v == NULL)
    return NP_ENOMEM;
  const cJSON *it;
  cJSON_ArrayForEach(it, cmd) {
    if (!cJSON_IsString(it) || (v[k] = strdup(it->valuestring)) == NULL) {
      int rc = cJSON_IsString(it) ? NP_ENOMEM : NP_EPARSE;
      np_chk__argv_free(v, k);
      return rc;
    }
    k++;
  }
  *argv = v;
  *argc = k;
  return 0;
}

void np_chk__phase_seconds(const struct np_chk_rec *r, const char *ptr,
                           double measured, double configured) {
  if (!(measured == measured) || !(configured == configured))
    return;
  int interrupted =
      strcmp(np_json_get_string(r->doc, "status", ""), "interrupted") == 0;
  double hi = configured * 1.05 + 0.5;
  if (measured > hi || (!interrupted && measured < configured - 0.001))
    np_chk__problem(r->c, r->file, ptr,
                    "%.6g s, but the configuration asks for %.6g s (a phase "
                    "lasts its configured time, at most 5 %% + 0.5 s more; "
                    "less only when interrupted)",
                    measured, configured);
}
