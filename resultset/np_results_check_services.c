/*
 * np_results_check_services.c - the services a session ran (suite.json
 * sessions[].services, written by the matrix since the service lifecycle
 * of issue 26; runner/np_matrix_services.h) against its runs:
 *   - the plan's services, each once, in plan order;
 *   - every passed repetition of the session inside the window of each:
 *     started no earlier than its ready_at, ended no later than its
 *     ended_at (a repetition outside measured something else, or
 *     nothing);
 *   - a service that ended by itself or was lost mid-suite, in a session
 *     that says "complete": the runner fails such a session.
 * A session without the list is accepted from builds before 0.3 (older
 * sets have none); from 0.3 on, a plan with services needs it.
 */
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"

#define NP_SERVICES_SINCE "0.3.0"

/* The run's start and end (cmd.txt's window, else the record's). */
static void run_window(const struct np_chk_run *r, int64_t *a, int64_t *b,
                       int *whole) {
  *a = r->cmd_start != NP_CHK_NO_TIME ? r->cmd_start : r->rec_start;
  *b = r->cmd_end != NP_CHK_NO_TIME ? r->cmd_end : r->rec_end;
  *whole = r->cmd_start != NP_CHK_NO_TIME ? r->cmd_whole : r->rec_whole;
}

/* The plan's service names, each in order, against the session's. */
static void check_names(struct np_results_check *c, const cJSON *planned,
                        const cJSON *list, const char *ptr) {
  int n = cJSON_GetArraySize(planned), ok = n == cJSON_GetArraySize(list);
  for (int k = 0; ok && k < n; k++) {
    const char *a = np_json_get_string(cJSON_GetArrayItem(planned, k),
                                       "name", "");
    const char *b = np_json_get_string(cJSON_GetArrayItem(list, k), "name",
                                       NULL);
    ok = b != NULL && strcmp(a, b) == 0;
  }
  if (!ok)
    np_chk__problem(c, "suite.json", ptr,
                    "%d services, but the plan names %d (each once, in plan "
                    "order): the session did not run the plan's services",
                    cJSON_GetArraySize(list), n);
}

/* Every passed run of session si inside service k's window. */
static void check_window(struct np_results_check *c, const cJSON *svc,
                         const char *ptr, const long *of, long si) {
  int rw = 0, ew = 0;
  const char *rs = np_json_get_string(svc, "ready_at", NULL);
  const char *es = np_json_get_string(svc, "ended_at", NULL);
  int64_t ready = np_chk__time(rs, &rw), ended = np_chk__time(es, &ew);
  size_t early = 0, late = 0;
  const char *first_early = NULL, *first_late = NULL;
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_chk_run *r = &c->runs[i];
    int64_t a, b;
    int w;
    if (of[i] != si || !r->have_record || strcmp(r->status, "passed") != 0)
      continue;
    run_window(r, &a, &b, &w);
    if (ready == NP_CHK_NO_TIME || a == NP_CHK_NO_TIME ||
        !np_chk__time_le(ready, rw, a, w)) {
      if (early++ == 0)
        first_early = r->file;
    }
    if (ended == NP_CHK_NO_TIME || b == NP_CHK_NO_TIME ||
        !np_chk__time_le(b, w, ended, ew)) {
      if (late++ == 0)
        first_late = r->file;
    }
  }
  char p[128];
  if (early > 0) {
    snprintf(p, sizeof p, "%s/ready_at", ptr);
    np_chk__problem(c, "suite.json", p,
                    "%s, but %zu passed repetition%s of the session (first "
                    "%s) started %s: outside the window where the service "
                    "was ready, a repetition does not measure it",
                    rs ? rs : "missing", early, early == 1 ? "" : "s",
                    first_early, rs ? "before it" : "anyway");
  }
  if (late > 0) {
    snprintf(p, sizeof p, "%s/ended_at", ptr);
    np_chk__problem(c, "suite.json", p,
                    "%s, but %zu passed repetition%s of the session (first "
                    "%s) ended %s: outside the window where the service was "
                    "alive, a repetition does not measure it",
                    es ? es : "missing", late, late == 1 ? "" : "s", first_late,
                    es ? "after it" : "anyway");
  }
}

void np_chk__services(struct np_results_check *c, const long *of) {
  const cJSON *planned = np_json_pointer(c->suite, "/plan/services");
  const char *ver = np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(c->suite, "tool"), "version", "");
  const cJSON *ses;
  long si = 0;
  cJSON_ArrayForEach(ses, cJSON_GetObjectItemCaseSensitive(c->suite,
                                                           "sessions")) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(ses, "services");
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/sessions/%ld/services", si);
    if (list == NULL) {
      if (cJSON_GetArraySize(planned) > 0 &&
          !np_chk__version_before(ver, NP_SERVICES_SINCE))
        np_chk__problem(c, "suite.json", ptr,
                        "missing: the plan has services and netproof %s "
                        "records each session's (since %s)",
                        ver, NP_SERVICES_SINCE);
      si++;
      continue;
    }
    check_names(c, planned, list, ptr);
    const char *status = np_json_get_string(ses, "status", "");
    const cJSON *svc;
    int k = 0;
    cJSON_ArrayForEach(svc, list) {
      char sp[96];
      snprintf(sp, sizeof sp, "%s/%d", ptr, k++);
      check_window(c, svc, sp, of, si);
      const cJSON *end = cJSON_GetObjectItemCaseSensitive(svc, "ended");
      int itself = strcmp(np_json_get_string(end, "by", ""), "itself") == 0;
      if (strcmp(status, "complete") == 0 &&
          (itself || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                         svc, "lost_during_suite")))) {
        char ep[112];
        snprintf(ep, sizeof ep, "%s/ended", sp);
        np_chk__problem(c, "suite.json", ep,
                        "%s (%s), but the session says \"complete\": a "
                        "service that ends before the suite fails it",
                        itself ? "ended by itself" : "lost during the suite",
                        np_json_get_string(end, "reason", "?"));
      }
    }
    si++;
  }
}
