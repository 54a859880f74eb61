/*
 * np_bench_record.c - the envelope of every run record, its status rule,
 * the runner session and validation (see np_bench_record.h).  Everything
 * goes through cJSON's typed calls.
 */
#include "np_bench_record.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_identity.h"
#include "np_kernel.h"
#include "np_ksnap.h"
#include "np_schema.h"
#include "np_sysinfo.h"

#define SESSION_LEN 32

void np_bench_run_free(struct np_bench_run *run) {
  if (run == NULL)
    return;
  np_kernel_free(run->kernel_before);
  np_kernel_free(run->kernel_after);
  memset(run, 0, sizeof *run);
}

enum np_bench_status np_bench_status_of(const struct np_bench_check *checks,
                                        unsigned n, int signal) {
  if (signal)
    return NP_BENCH_INTERRUPTED;
  for (unsigned i = 0; i < n; i++)
    if (!checks[i].passed)
      return NP_BENCH_FAILED;
  return NP_BENCH_PASSED;
}

const char *np_bench_status_name(enum np_bench_status s) {
  switch (s) {
  case NP_BENCH_PASSED:
    return "passed";
  case NP_BENCH_FAILED:
    return "failed";
  default:
    return "interrupted";
  }
}

int np_bench_exit_code(enum np_bench_status s, int signal) {
  switch (s) {
  case NP_BENCH_PASSED:
    return NP_EXIT_OK;
  case NP_BENCH_FAILED:
    return NP_EXIT_FAIL;
  default:
    return 128 + signal;
  }
}

int np_bench_runner_session_ok(const char *s) {
  if (s == NULL || strlen(s) != SESSION_LEN)
    return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return 0;
  return 1;
}

cJSON *np_bench_record_checks(const struct np_bench_check *c, unsigned n) {
  cJSON *a = cJSON_CreateArray();
  for (unsigned i = 0; a && i < n; i++) {
    /* filled first, then added: a failed add leaves e ours to free, an
     * added e belongs to a (freeing both would free e twice) */
    cJSON *e = cJSON_CreateObject();
    if (!e || !cJSON_AddStringToObject(e, "name", c[i].name) ||
        !cJSON_AddBoolToObject(e, "passed", c[i].passed) ||
        !cJSON_AddStringToObject(e, "detail", c[i].detail) ||
        !cJSON_AddItemToArray(a, e)) {
      cJSON_Delete(e);
      cJSON_Delete(a);
      return NULL;
    }
  }
  return a;
}

cJSON *np_bench_record_command(int argc, char **argv) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < argc; i++)
    if (!cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]))) {
      cJSON_Delete(a);
      return NULL;
    }
  return a;
}

const char *np_bench_signal_reason(int signal) {
  return signal == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM";
}

cJSON *np_bench_record_reasons(const struct np_bench_check *checks,
                               unsigned nchecks, int sig, cJSON *kind) {
  cJSON *a = cJSON_CreateArray();
  if (a == NULL)
    goto fail_kind;
  if (sig && !cJSON_AddItemToArray(
                 a, cJSON_CreateString(np_bench_signal_reason(sig))))
    goto fail_array;
  if (kind) {
    cJSON *r;
    while ((r = cJSON_DetachItemFromArray(kind, 0)) != NULL)
      cJSON_AddItemToArray(a, r);
    cJSON_Delete(kind);
    return a;
  }
  for (unsigned i = 0; i < nchecks; i++) {
    const struct np_bench_check *c = &checks[i];
    if (c->passed)
      continue;
    char buf[400];
    snprintf(buf, sizeof buf, "%s: %s", c->name, c->detail);
    if (!cJSON_AddItemToArray(a, cJSON_CreateString(buf)))
      goto fail_array;
  }
  return a;
fail_array:
  cJSON_Delete(a);
fail_kind:
  cJSON_Delete(kind);
  return NULL;
}

/* kernel {before, after, delta}: under the runner (its session, the
 * set's snapshot folder and the runner's snapshot before this child in the
 * environment) the two snapshots refer to the runner's by hash with the
 * counters that changed since (np_ksnap.h); a standalone run keeps them
 * inline.  The delta is always inline. */
static cJSON *kernel_json(const struct np_bench_run *run) {
  int runner = np_bench_runner_session_ok(getenv(NP_BENCH_RUNNER_ENV));
  const char *dir = runner ? getenv(NP_KSNAP_ENV) : NULL;
  const char *base = runner ? getenv(NP_KSNAP_BASE_ENV) : NULL;
  cJSON *k = cJSON_CreateObject();
  if (k == NULL ||
      !cJSON_AddItemToObject(k, "before",
                             np_ksnap_record_json(run->kernel_before, dir, base)) ||
      !cJSON_AddItemToObject(k, "after",
                             np_ksnap_record_json(run->kernel_after, dir, base)) ||
      !cJSON_AddItemToObject(k, "delta", np_kernel_delta_json(
                                              run->kernel_before,
                                              run->kernel_after))) {
    cJSON_Delete(k);
    return NULL;
  }
  return k;
}

int np_bench_record_new(struct np_bench_envelope *env, cJSON **out,
                        struct np_bench_verdict *v, struct np_errbuf *eb) {
  const struct np_bench_run *run = env->run;
  cJSON *config = env->config, *kind_reasons = env->reasons;
  cJSON *doc = NULL;
  int rc;
  env->config = env->reasons = NULL;
  if (run->kernel_before == NULL || run->kernel_after == NULL) {
    rc = np_errbuf_set(eb, NP_EINVAL, "record: a kernel snapshot is missing");
    goto fail_inputs;
  }
  enum np_bench_status status =
      np_bench_status_of(env->checks, env->nchecks, run->signal);
  doc = cJSON_CreateObject();
  if (doc == NULL)
    goto fail_nomem;
  cJSON_AddStringToObject(doc, "schema", "netproof/run/1");
  cJSON_AddStringToObject(doc, "status", np_bench_status_name(status));
  if (status != NP_BENCH_PASSED) {
    cJSON *why = np_bench_record_reasons(env->checks, env->nchecks,
                                         run->signal, kind_reasons);
    kind_reasons = NULL;
    if (!cJSON_AddItemToObject(doc, "reasons", why)) {
      cJSON_Delete(why);
      goto fail_nomem;
    }
  }
  cJSON_AddItemToObject(doc, "tool", np_identity_tool_json("netproof-bench"));
  cJSON_AddItemToObject(doc, "machine", np_sysinfo_machine_json());
  cJSON_AddStringToObject(doc, "started_at", run->started_at);
  cJSON_AddStringToObject(doc, "ended_at", run->ended_at);
  const char *session = getenv(NP_BENCH_RUNNER_ENV);
  if (np_bench_runner_session_ok(session)) {
    cJSON *r = cJSON_AddObjectToObject(doc, "runner");
    if (!r || !cJSON_AddStringToObject(r, "session", session))
      goto fail_nomem;
  }
  if (!cJSON_AddItemToObject(doc, "config", config))
    goto fail_nomem;
  config = NULL;
  cJSON_AddItemToObject(doc, "kernel", kernel_json(run));
  cJSON_AddItemToObject(doc, "checks", np_bench_record_checks(env->checks, env->nchecks));
  static const char *const need[] = {"schema", "status", "tool", "machine",
                                     "started_at", "ended_at", "kernel",
                                     "checks"};
  if ((rc = np_bench_record_require(doc, need, sizeof need / sizeof need[0],
                                    eb)) != 0)
    goto fail_inputs;
  cJSON_Delete(kind_reasons);
  *out = doc;
  v->status = status;
  v->exit_code = np_bench_exit_code(status, run->signal);
  return 0;
fail_nomem:
  rc = np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
fail_inputs:
  cJSON_Delete(doc);
  cJSON_Delete(config);
  cJSON_Delete(kind_reasons);
  return rc;
}

int np_bench_record_require(const cJSON *doc, const char *const *keys,
                            size_t n, struct np_errbuf *eb) {
  for (size_t i = 0; i < n; i++)
    if (!cJSON_GetObjectItemCaseSensitive(doc, keys[i]))
      return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  return 0;
}

int np_bench_record_validate(const cJSON *doc, struct np_errbuf *eb) {
  struct np_errbuf inner = {{0}};
  int rc = np_schema_validate_tagged(doc, &inner);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "record: %s", inner.msg);
  return 0;
}
