/*
 * np_matrix_run.c - the matrix runner: check everything first, take the
 * output folder's lock, then run each selected configuration's repetitions
 * as child processes, keep suite.json current, and finish with
 * summary.json and the end summary.
 *
 * Signals: SIGINT/SIGTERM are blocked for the whole run and collected with
 * sigtimedwait while a child runs (np_matrix_rep.c), so no handler or global
 * flag is needed; between children sigpending() is polled.  The old mask is
 * restored before returning.
 */
#include "np_matrix.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_identity.h"
#include "np_file.h"
#include "np_json.h"
#include "np_ksnap.h"
#include "np_matrix_capacity.h"
#include "np_matrix_int.h"
#include "np_matrix_services.h"
#include "np_matrix_shard.h"
#include "np_matrix_summary.h"
#include "np_results_stable.h"
#include "np_results_stats.h"
#include "np_sysinfo.h"
#include "np_time.h"

/* Refuse a folder holding another suite, or this one without --resume.
 * *old receives the existing suite.json when resuming. */
static int check_out_dir(const struct np_matrix_opts *o,
                         const struct np_matrix_plan *p, cJSON **old,
                         struct np_errbuf *eb) {
  char sp[NP_MATRIX_PATH_MAX];
  struct stat st;
  if (stat(o->out_dir, &st) != 0)
    return 0;
  if (!S_ISDIR(st.st_mode))
    return np_errbuf_set(eb, NP_ENOTDIR, "%s: not a folder", o->out_dir);
  snprintf(sp, sizeof sp, "%s/suite.json", o->out_dir);
  if (stat(sp, &st) != 0) {
    DIR *d = opendir(o->out_dir);
    struct dirent *e;
    int empty = 1;
    while (d && (e = readdir(d)) != NULL)
      empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
               strcmp(e->d_name, NP_MATRIX_LOCK_FILE) == 0; /* ours */
    if (d)
      closedir(d);
    return empty ? 0
                 : np_errbuf_set(eb, NP_EEXIST,
                                 "%s: folder is not empty and holds no "
                                 "suite.json; choose an empty or new folder",
                                 o->out_dir);
  }
  cJSON *s = NULL;
  int rc = np_json_load_file(sp, NULL, &s, eb);
  if (rc != 0)
    return rc;
  const char *h = np_json_get_string(s, "plan_sha256", "");
  if (strcmp(h, p->hash) != 0) {
    rc = np_errbuf_set(eb, NP_EEXIST,
                       "%s: holds suite \"%s\" of another plan (sha256 %.12s, "
                       "this plan %.12s); choose another folder",
                       sp, np_json_get_string(s, "suite", "?"), h, p->hash);
  } else if (!o->resume) {
    rc = np_errbuf_set(eb, NP_EEXIST,
                       "%s: already holds this suite; add --resume to "
                       "continue it or choose another folder",
                       sp);
  } else {
    /* a slice resumes as the same slice */
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(s, "shard");
    unsigned k = 0, n = 0;
    struct np_errbuf seb = {{0}};
    if (sh != NULL && np_matrix_shard_read(sh, &k, &n, &seb) != 0)
      rc = np_errbuf_set(eb, NP_EUSAGE, "%s: %s", sp, seb.msg);
    else if ((sh != NULL) != (o->shard_count != 0) ||
             (sh && (k != o->shard_index || n != o->shard_count))) {
      char have[48] = "the whole plan", want[48] = "the whole plan";
      if (sh)
        snprintf(have, sizeof have, "shard %u/%u", k, n);
      if (o->shard_count)
        snprintf(want, sizeof want, "shard %u/%u", o->shard_index,
                 o->shard_count);
      rc = np_errbuf_set(eb, NP_EEXIST,
                         "%s: holds %s of this suite, not %s; resume it with "
                         "the same --shard",
                         sp, have, want);
    }
  }
  if (rc == 0)
    *old = s;
  else
    cJSON_Delete(s);
  return rc;
}

/* The plan, with --until-stable's rule in place of its repetitions when
 * given (so suite.json's copy, and its hash, say what ran). */
static int load_plan(const struct np_matrix_opts *o,
                     struct np_matrix_plan **out, struct np_errbuf *eb) {
  if (o->until_stable <= 0)
    return np_matrix_plan_load(o->plan_path, out, eb);
  cJSON *doc = NULL, *us = NULL;
  int rc = np_json_load_file(o->plan_path, NULL, &doc, eb);
  if (rc != 0)
    return rc;
  if (cJSON_IsObject(doc) && (us = cJSON_CreateObject()) != NULL) {
    cJSON_AddNumberToObject(us, "ci_percent", o->until_stable);
    cJSON_AddNumberToObject(us, "min_repetitions", o->min_reps);
    cJSON_AddNumberToObject(us, "max_repetitions", o->max_reps);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "repetitions");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "until_stable");
    cJSON_AddItemToObject(doc, "until_stable", us);
  }
  rc = np_matrix_plan_from_json(doc, o->plan_path, out, eb);
  cJSON_Delete(doc);
  return rc;
}

/* suite.json: plan copy, identity, machine, sessions, stability. */
static cJSON *suite_new(const struct np_matrix_opts *o,
                        const struct np_matrix_plan *p, const char *binary,
                        const char *now) {
  cJSON *s = cJSON_CreateObject();
  if (s == NULL)
    return NULL;
  cJSON_AddStringToObject(s, "schema", "netproof/suite/1");
  cJSON_AddStringToObject(s, "suite", p->suite);
  cJSON_AddStringToObject(s, "description",
                          np_json_get_string(p->doc, "description", ""));
  cJSON_AddStringToObject(s, "protocol", p->protocol);
  cJSON_AddStringToObject(s, "plan_sha256", p->hash);
  cJSON_AddStringToObject(s, "plan_file", o->plan_path);
  cJSON_AddItemToObject(s, "plan", cJSON_Duplicate(p->doc, 1));
  cJSON_AddNumberToObject(s, "configurations", (double)p->nconfigs);
  cJSON_AddNumberToObject(s, "repetitions", p->repetitions);
  cJSON_AddStringToObject(s, "bench_binary", binary);
  cJSON_AddStringToObject(s, "started_at", now);
  cJSON_AddNullToObject(s, "ended_at");
  cJSON_AddStringToObject(s, "status", "running");
  cJSON *tool = np_identity_tool_json("netproof-bench");
  cJSON *mach = np_sysinfo_machine_json();
  if (tool == NULL || mach == NULL ||
      cJSON_AddArrayToObject(s, "sessions") == NULL) {
    cJSON_Delete(tool);
    cJSON_Delete(mach);
    cJSON_Delete(s);
    return NULL;
  }
  cJSON_AddItemToObject(s, "tool", tool);
  cJSON_AddItemToObject(s, "machine", mach);
  if (o->shard_count) {
    cJSON *sh = np_matrix_shard_json(p, o->shard_index, o->shard_count, NULL);
    if (sh == NULL) {
      cJSON_Delete(s);
      return NULL;
    }
    cJSON_AddItemToObject(s, "shard", sh);
  }
  return s;
}

/* Context of one invocation, handed to the repetition loop. */
struct np_run_ctx {
  const struct np_matrix_opts *o;
  const struct np_matrix_plan *p;
  const char *sel;
  const char *binary;
  char *const *envp;           /* the children's environment              */
  sigset_t blocked, oldmask;
  struct np_matrix_stability *stab;
  struct np_matrix_result *res;
  cJSON *session;              /* this invocation's entry in suite.json   */
  struct np_matrix_progress pg;
  struct np_matrix_services *services; /* the plan's services, running     */
};

/* The environment of every child: the runner's own, with
 * NETPROOF_RUNNER_SESSION set to this session and NETPROOF_KERNEL_SNAPSHOTS
 * to the set's kernel-snapshots/ (where the child stores the snapshots
 * its record refers to, np_ksnap.h); kv and snap are their storage.  The
 * array is malloc'd; its strings are borrowed. */
static char **child_env(const char *session, const char *out_dir, char *kv,
                        size_t kv_len, char *snap, size_t snap_len) {
  static const char key[] = NP_MATRIX_SESSION_ENV "=";
  static const char skey[] = NP_KSNAP_ENV "=";
  static const char bkey[] = NP_KSNAP_BASE_ENV "="; /* set per repetition */
  size_t n = 0, k = 0;
  while (environ != NULL && environ[n] != NULL)
    n++;
  char **env = calloc(n + 3, sizeof *env);
  if (env == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], key, sizeof key - 1) != 0 &&
        strncmp(environ[i], skey, sizeof skey - 1) != 0 &&
        strncmp(environ[i], bkey, sizeof bkey - 1) != 0)
      env[k++] = environ[i];
  snprintf(kv, kv_len, "%s%s", key, session);
  env[k++] = kv;
  if ((size_t)snprintf(snap, snap_len, "%s%s/%s", skey, out_dir,
                       NP_KSNAP_DIR) < snap_len)
    env[k++] = snap; /* too long a path: the records keep them inline */
  env[k] = NULL;
  return env;
}

/* Count what is kept and what is left to run before anything runs, so the
 * estimate and the first line are right from the start. */
static int count_work(struct np_run_ctx *c, size_t *to_run,
                      struct np_errbuf *eb) {
  const struct np_matrix_plan *p = c->p;
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (!c->sel[i])
      continue;
    c->res->configs++;
    for (int n = 1; n <= p->repetitions; n++) {
      struct np_matrix_rep r = {.cf = &p->configs[i], .n = n};
      if (np_matrix__rep_paths(&r, c->o->out_dir) != 0)
        return np_errbuf_set(eb, NP_ERANGE, "%s: path too long",
                             c->o->out_dir);
      if (np_matrix__rep_complete(&r)) {
        c->res->reps_kept++;
      } else if (!p->until_stable || n <= p->min_repetitions) {
        /* until_stable: the rest are counted when the rule asks */
        (*to_run)++;
        c->pg.est_left += r.cf->est_seconds;
      }
    }
  }
  c->pg.total = *to_run;
  return 0;
}

/* A record moved to kept/: into the session's kept_records, and said. */
static int note_kept(struct np_run_ctx *c, const struct np_matrix_rep *r,
                     const char *rel, const char *what,
                     struct np_errbuf *eb) {
  cJSON *list = cJSON_GetObjectItemCaseSensitive(c->session, "kept_records");
  if (list == NULL)
    list = cJSON_AddArrayToObject(c->session, "kept_records");
  cJSON *item = cJSON_CreateString(rel);
  if (list == NULL || item == NULL || !cJSON_AddItemToArray(list, item)) {
    cJSON_Delete(item);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  np_matrix__progress_note(&c->pg, "netproof-bench matrix: %s rep %d: %s %s/%s",
                           r->cf->id, r->n, what, c->o->out_dir, rel);
  return 0;
}

/* A complete record left in rep-N.json.tmp by a runner that stopped goes
 * to kept/ before its repetition is redone (or, beside a complete
 * repetition, instead of being deleted). */
static int keep_stray(struct np_run_ctx *c, const struct np_matrix_rep *r,
                      struct np_errbuf *eb) {
  char rel[NP_MATRIX_PATH_MAX];
  int rc = np_matrix__rep_keep(r, rel, sizeof rel, eb);
  if (rc <= 0)
    return rc;
  return note_kept(c, r, rel,
                   "the complete record a stopped runner left is now", eb);
}

/* Repetition n of configuration i (the ci-th of nsel selected): kept
 * when complete, else run.  Sets res->interrupted and returns 0 when a
 * signal stops the suite. */
static int run_rep(struct np_run_ctx *c, size_t i, size_t ci, size_t nsel,
                   int n, int *resolved, struct np_errbuf *eb) {
  const struct np_matrix_plan *p = c->p;
  struct np_matrix_rep r = {.cf = &p->configs[i],
                            .protocol = p->protocol,
                            .binary = c->binary,
                            .n = n,
                            .blocked = &c->blocked,
                            .oldmask = &c->oldmask,
                            .session = c->res->session,
                            .envp = c->envp,
                            .services = c->services};
  int rc = np_matrix__rep_paths(&r, c->o->out_dir);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "%s: path too long", c->o->out_dir);
  if (np_matrix__rep_complete(&r)) {
    /* a runner of a version that copied records, killed between writing
     * rep-N.json and removing the child's temporary record, left the
     * latter behind: set aside, never deleted */
    return keep_stray(c, &r, eb);
  }
  if (resolved && !*resolved && /* before the first repetition it runs */
      (rc = np_matrix_capacity_resolve(p, i, c->o->out_dir, stderr, eb)) != 0)
    return rc;
  if (resolved)
    *resolved = 1;
  sigset_t pend;
  sigpending(&pend);
  if (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM)) {
    c->res->interrupted = sigismember(&pend, SIGINT) ? SIGINT : SIGTERM;
    return 0;
  }
  if ((rc = keep_stray(c, &r, eb)) != 0 ||
      (rc = np_matrix__rep_discard(&r, eb)) != 0 ||
      (rc = np_matrix__mkdir_p(r.dir, eb)) != 0)
    return rc;
  if ((rc = np_matrix_services_check(c->services, eb)) != 0)
    return rc; /* a service ended or lost its port: the suite fails */
  np_matrix__stability_sample(c->stab);
  np_matrix__progress_live(&c->pg, ci, nsel, r.cf, n, p->repetitions);
  struct np_matrix_outcome oc;
  struct np_matrix_rep_end end;
  rc = np_matrix__rep_run(&r, &oc, &end, eb);
  if (rc == NP_EINTR) {
    c->res->interrupted = oc.interrupted;
    return 0;
  }
  if (rc != 0)
    return rc;
  if (end.kept[0] &&
      (rc = note_kept(c, &r, end.kept,
                      end.lost[0] ? "not counted: a service it measured "
                                    "ended during it; its record is kept at"
                                  : "its child ended without a clean exit "
                                    "after writing a complete record; it is "
                                    "kept at",
                      eb)) != 0)
    return rc;
  if (end.lost[0])
    return np_errbuf_set(eb, NP_ECHILD,
                         "%s; repetition %d of %s is not counted and the "
                         "repetitions left are not run",
                         end.lost, n, r.cf->id);
  c->res->reps_run++;
  c->res->reps_passed += strcmp(end.status, "passed") == 0;
  c->pg.done++;
  c->pg.est_left -= r.cf->est_seconds;
  c->pg.est_done += r.cf->est_seconds;
  np_matrix__progress_rep(&c->pg, ci, nsel, r.cf, n, p->repetitions, &oc,
                          &end);
  return 0;
}

/* A fixed number of repetitions: configuration by configuration. */
static int run_all(struct np_run_ctx *c, struct np_errbuf *eb) {
  const struct np_matrix_plan *p = c->p;
  size_t nsel = 0, ci = 0;
  for (size_t i = 0; i < p->nconfigs; i++)
    nsel += c->sel[i] != 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (!c->sel[i])
      continue;
    ci++;
    int resolved = 0; /* rate-fraction: --rate set from the capacity */
    for (int n = 1; n <= p->repetitions && !c->res->interrupted; n++) {
      int rc = run_rep(c, i, ci, nsel, n, &resolved, eb);
      if (rc != 0)
        return rc;
    }
    if (c->res->interrupted)
      return 0;
  }
  return 0;
}

/* 1 when the until-stable rule stops configuration i after its first n
 * repetitions (np_results_stable_eval over their records), 0 when it asks
 * for more, or a negative NP_E* code. */
static int stable_stop(struct np_run_ctx *c, size_t i, int n) {
  const struct np_matrix_plan *p = c->p;
  double *rps = malloc((size_t)n * sizeof *rps);
  int rc = rps == NULL ? NP_ENOMEM : 0;
  size_t k = 0;
  for (; rc == 0 && k < (size_t)n; k++) {
    rc = np_matrix_summary_rps(c->o->out_dir, p, &p->configs[i], (int)k + 1,
                               &rps[k]);
    if (rc == 0)
      break; /* no record (an interrupted run): the prefix ends here */
    rc = rc < 0 ? rc : 0;
  }
  struct np_results_stable_eval e;
  if (rc == 0)
    rc = np_results_stable_eval(p, rps, k, np_results_seed_of(p->configs[i].id),
                                &e);
  free(rps);
  return rc < 0 ? rc : e.decided && e.needed <= (size_t)n;
}

/* until_stable: round by round - repetition n of every selected
 * configuration the rule has not stopped, in plan order - so drift over
 * time spreads over all of them (np_results_stable.h). */
static int run_stable(struct np_run_ctx *c, struct np_errbuf *eb) {
  const struct np_matrix_plan *p = c->p;
  size_t nsel = 0;
  size_t *pos = calloc(p->nconfigs + 1, sizeof *pos);
  char *stopped = calloc(p->nconfigs + 1, 1);
  int rc = pos == NULL || stopped == NULL
               ? np_errbuf_set(eb, NP_ENOMEM, "out of memory")
               : 0;
  for (size_t i = 0; rc == 0 && i < p->nconfigs; i++)
    pos[i] = c->sel[i] ? ++nsel : 0;
  for (int n = 1; rc == 0 && n <= p->repetitions && !c->res->interrupted;
       n++) {
    for (size_t i = 0; rc == 0 && i < p->nconfigs; i++) {
      if (!c->sel[i] || stopped[i])
        continue;
      if (n > p->min_repetitions) { /* the rule asked for this one */
        struct np_matrix_rep r = {.cf = &p->configs[i], .n = n};
        if (np_matrix__rep_paths(&r, c->o->out_dir) == 0 &&
            !np_matrix__rep_complete(&r)) {
          c->pg.total++;
          c->pg.est_left += r.cf->est_seconds;
        }
      }
      /* NULL: the plan refuses a capacity with until_stable */
      if ((rc = run_rep(c, i, pos[i], nsel, n, NULL, eb)) != 0 ||
          c->res->interrupted)
        break;
      int stop = stable_stop(c, i, n);
      if (stop < 0)
        rc = np_errbuf_set(eb, stop, "%s: the until-stable rule: %s",
                           p->configs[i].id, np_strerror(stop));
      stopped[i] = stop > 0;
    }
  }
  free(pos);
  free(stopped);
  return rc;
}

static const cJSON *get_flags(const cJSON *session) {
  return cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(session, "stability"), "flags");
}

/* The status this invocation ends with. */
static const char *end_status(const struct np_run_ctx *c, int run_rc) {
  return run_rc != 0                                  ? "error"
         : c->res->interrupted                        ? "interrupted"
         : c->o->only != NULL || c->o->shard_count    ? "partial"
                                                      : "complete";
}

/* Close the session in suite.json, write summary.json (*sum receives it,
 * or NULL), count bad configs. */
static int finish(struct np_run_ctx *c, cJSON *suite, int run_rc, cJSON **sum,
                  struct np_errbuf *eb) {
  char now[NP_TIME_TEXT_MAX], sp[NP_MATRIX_PATH_MAX];
  cJSON *session = c->session;
  np_time_utc_now(now, sizeof now);
  const char *st = end_status(c, run_rc);
  *sum = NULL;
  cJSON_AddStringToObject(session, "ended_at", now);
  cJSON_AddStringToObject(session, "status", st);
  cJSON_AddNumberToObject(session, "repetitions_run", (double)c->res->reps_run);
  cJSON_AddNumberToObject(session, "repetitions_kept",
                          (double)c->res->reps_kept);
  cJSON *stab = np_matrix__stability_json(c->stab);
  if (stab)
    cJSON_AddItemToObject(session, "stability", stab);
  cJSON_ReplaceItemInObject(suite, "ended_at", cJSON_CreateString(now));
  cJSON_ReplaceItemInObject(suite, "status", cJSON_CreateString(st));
  /* the suite's flags: every flag any session raised */
  cJSON *flags = cJSON_CreateArray();
  const cJSON *ses, *f;
  cJSON_ArrayForEach(ses, cJSON_GetObjectItemCaseSensitive(suite, "sessions")) {
    cJSON_ArrayForEach(f, get_flags(ses)) {
      int dup = 0;
      const cJSON *g;
      cJSON_ArrayForEach(g, flags) dup |= cJSON_Compare(f, g, 1);
      if (!dup && flags)
        cJSON_AddItemToArray(flags, cJSON_Duplicate(f, 1));
    }
  }
  cJSON_DeleteItemFromObjectCaseSensitive(suite, "stability_flags");
  if (flags)
    cJSON_AddItemToObject(suite, "stability_flags", flags);
  snprintf(sp, sizeof sp, "%s/suite.json", c->o->out_dir);
  int rc = np_json_write_atomic(sp, suite, 1, eb);
  cJSON *s = NULL;
  /* snapshots of repetitions redone or discarded: nothing refers to them */
  if (rc == 0)
    rc = np_matrix__snap_sweep(c->o->out_dir, eb);
  if (rc == 0)
    rc = np_matrix_summarize(c->o->out_dir, &s, eb);
  if (rc == 0) {
    snprintf(sp, sizeof sp, "%s/summary.json", c->o->out_dir);
    rc = np_json_write_atomic(sp, s, 1, eb);
    const cJSON *cf;
    cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(s,
                                                            "configurations")) {
      const struct np_matrix_config *pc =
          np_matrix_plan_find(c->p, np_json_get_string(cf, "id", ""));
      const char *cs = np_json_get_string(cf, "status", "");
      if (pc && c->sel[pc - c->p->configs] &&
          (strcmp(cs, "failed") == 0 || strcmp(cs, "unexpected-pass") == 0))
        c->res->configs_bad++;
    }
  }
  if (rc == 0)
    *sum = s;
  else
    cJSON_Delete(s);
  return rc;
}

static int select_configs(const struct np_matrix_opts *o,
                          const struct np_matrix_plan *p, char *sel,
                          struct np_errbuf *eb) {
  size_t n = 0;
  if (o->shard_count && p->capacity_ref >= 0)
    /* the cut by time would part the capacity configuration from the
     * rate fractions whose --rate its records give: their slices fail */
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--shard %u/%u: the plan's /capacity configuration "
                         "%s must run in the same process as its "
                         "rate-fraction configurations; run it unsharded",
                         o->shard_index, o->shard_count,
                         p->configs[p->capacity_ref].id);
  if (o->shard_count) {
    unsigned *of = calloc(p->nconfigs, sizeof *of);
    if (of == NULL)
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    int rc = np_matrix_shard_assign(p, o->shard_count, of, NULL, eb);
    for (size_t i = 0; rc == 0 && i < p->nconfigs; i++)
      sel[i] = of[i] == o->shard_index;
    free(of);
    return rc;
  }
  for (size_t i = 0; i < p->nconfigs; i++) {
    sel[i] = o->only == NULL || fnmatch(o->only, p->configs[i].id, 0) == 0;
    n += sel[i] != 0;
  }
  if (n == 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--only '%s' matches none of the %zu configurations "
                         "(see --dry-run for their ids)",
                         o->only, p->nconfigs);
  return 0;
}

/* The folder exists (created when missing, but only as the last
 * component: a misspelt parent is a usage error, nothing created). */
static int make_out_dir(const char *dir, struct np_errbuf *eb) {
  struct stat st;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return np_errbuf_set(eb, NP_ENOTDIR, "%s: not a folder", dir);
  int rc = np_file_check_out_dir("--output", dir, eb);
  return rc != 0 ? rc : np_matrix__mkdir_p(dir, eb);
}

/* The session's entry in suite.json, appended to its sessions[]. */
static int session_new(const struct np_matrix_opts *o, cJSON *suite,
                       const char *id, const char *now, cJSON **out,
                       struct np_errbuf *eb) {
  cJSON *session = cJSON_CreateObject();
  if (session == NULL ||
      !cJSON_AddItemToArray(
          cJSON_GetObjectItemCaseSensitive(suite, "sessions"), session)) {
    cJSON_Delete(session);
    return np_errbuf_set(eb, session ? NP_ESCHEMA : NP_ENOMEM,
                         "%s/suite.json: no \"sessions\" list or no memory",
                         o->out_dir);
  }
  cJSON_AddStringToObject(session, "session", id);
  cJSON_AddStringToObject(session, "started_at", now);
  cJSON_AddBoolToObject(session, "resume", o->resume);
  if (o->only)
    cJSON_AddStringToObject(session, "only", o->only);
  *out = session;
  return 0;
}

/* Run the loop with SIGINT/SIGTERM/SIGCHLD blocked, then finish; the
 * caller's mask and SIGCHLD action are restored. */
static int run_and_finish(struct np_run_ctx *c, cJSON *suite, cJSON **sum,
                          struct np_errbuf *eb) {
  sigemptyset(&c->blocked);
  sigaddset(&c->blocked, SIGINT);
  sigaddset(&c->blocked, SIGTERM);
  sigaddset(&c->blocked, SIGCHLD);
  /* an inherited SIG_IGN for SIGCHLD makes the kernel reap children
   * itself, and waitpid could never report their exit: use the default
   * for the run, restore the caller's action after it */
  struct sigaction dfl, oldchld;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &oldchld);
  sigprocmask(SIG_BLOCK, &c->blocked, &c->oldmask);
  /* the plan's services run for the whole loop (np_matrix_services.h) */
  int run_rc = np_matrix_services_start(c->p, c->o->out_dir, c->binary,
                                        c->envp, &c->oldmask, &c->services,
                                        eb);
  if (run_rc == 0)
    run_rc = c->p->until_stable ? run_stable(c, eb) : run_all(c, eb);
  np_matrix_services_stop(c->services, c->session);
  c->services = NULL;
  struct np_errbuf feb;
  int rc = finish(c, suite, run_rc, sum, &feb);
  if (run_rc != 0)
    rc = run_rc;
  else if (rc != 0 && eb)
    *eb = feb;
  /* drop signals that arrived while blocked before restoring the mask */
  struct timespec zero = {0, 0};
  while (sigtimedwait(&c->blocked, NULL, &zero) > 0)
    ;
  sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
  sigaction(SIGCHLD, &oldchld, NULL);
  return rc;
}

int np_matrix_run(const struct np_matrix_opts *o, FILE *out,
                  struct np_matrix_result *res, struct np_errbuf *eb) {
  struct np_matrix_plan *p = NULL;
  struct np_matrix_result local;
  struct np_matrix_lock *lock = NULL;
  char binary[PATH_MAX], now[NP_TIME_TEXT_MAX], sp[NP_MATRIX_PATH_MAX];
  char env_kv[sizeof NP_MATRIX_SESSION_ENV + NP_MATRIX_SESSION_LEN + 2];
  char env_snap[sizeof NP_KSNAP_ENV + NP_MATRIX_PATH_MAX + 32];
  cJSON *suite = NULL, *sum = NULL;
  char **envp = NULL;
  char *sel = NULL;
  struct np_run_ctx c;
  memset(&c, 0, sizeof c);
  if (res == NULL)
    res = &local;
  memset(res, 0, sizeof *res);
  int rc = load_plan(o, &p, eb);
  if (rc != 0)
    return rc;
  rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if ((sel = calloc(p->nconfigs, 1)) == NULL)
    goto cleanup_plan;
  if ((rc = select_configs(o, p, sel, eb)) != 0)
    goto cleanup_plan;
  const char *want = o->bench_binary ? o->bench_binary : "/proc/self/exe";
  if (realpath(want, binary) == NULL || access(binary, X_OK) != 0) {
    rc = np_errbuf_set(eb, NP_ENOENT, "%s: cannot execute benchmark program: %s",
                       want, strerror(errno));
    goto cleanup_plan;
  }
  if (o->dry_run) {
    np_matrix__dry_run(o, p, binary, sel, out);
    rc = 0;
    goto cleanup_plan;
  }
  /* the until-stable rule tests intervals by the set's own method */
  p->ci_method = np_matrix_ci_method(o->out_dir);
  if (o->out_dir == NULL || o->out_dir[0] == '\0') {
    rc = np_errbuf_set(eb, NP_EUSAGE, "--output DIR is required");
    goto cleanup_plan;
  }
  /* the lock comes before any other file: a second runner is refused
   * before it looks at, let alone writes, the folder */
  if ((rc = np_matrix__session_new(res->session, eb)) != 0 ||
      (rc = make_out_dir(o->out_dir, eb)) != 0 ||
      (rc = np_matrix__lock_take(o->out_dir, res->session, &lock, eb)) != 0 ||
      (rc = check_out_dir(o, p, &suite, eb)) != 0)
    goto cleanup_lock;
  np_time_utc_now(now, sizeof now);
  rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if ((suite == NULL && (suite = suite_new(o, p, binary, now)) == NULL) ||
      (envp = child_env(res->session, o->out_dir, env_kv, sizeof env_kv,
                         env_snap, sizeof env_snap)) == NULL)
    goto cleanup_lock;
  c.o = o;
  c.p = p;
  c.sel = sel;
  c.binary = binary;
  c.envp = envp;
  c.res = res;
  c.pg.fp = stderr;
  c.pg.quiet = o->quiet;
  c.pg.tty = isatty(2);
  c.pg.t0 = np_time_mono_s();
  size_t to_run = 0;
  if ((rc = session_new(o, suite, res->session, now, &c.session, eb)) != 0 ||
      (rc = count_work(&c, &to_run, eb)) != 0 ||
      (rc = np_matrix__stability_new(&c.stab)) != 0)
    goto cleanup_lock;
  cJSON_ReplaceItemInObject(suite, "status", cJSON_CreateString("running"));
  snprintf(sp, sizeof sp, "%s/suite.json", o->out_dir);
  res->started = 1;
  if ((rc = np_json_write_atomic(sp, suite, 1, eb)) != 0)
    goto cleanup_lock;
  if (to_run == 0 && !p->until_stable)
    np_matrix__progress_note(&c.pg,
                             "netproof-bench matrix: suite %s is already "
                             "complete: all %zu repetitions kept, nothing to "
                             "run",
                             p->suite, res->reps_kept);
  else if (p->until_stable)
    np_matrix__progress_note(&c.pg,
                             "netproof-bench matrix: suite %s: %zu repetitions "
                             "to run, then more until the 95 %% interval of "
                             "each configuration's median round trips/s is "
                             "within %g %% of it (at most %d each), %zu kept "
                             "from before, into %s (session %s)",
                             p->suite, to_run, p->stable_ci_percent,
                             p->repetitions, res->reps_kept, o->out_dir,
                             res->session);
  else
    np_matrix__progress_note(&c.pg,
                             "netproof-bench matrix: suite %s: %zu %s "
                             "to run, %zu kept from before, into %s (session "
                             "%s)",
                            p->suite, to_run,
                            to_run == 1 ? "repetition" : "repetitions",
                            res->reps_kept, o->out_dir, res->session);
  rc = run_and_finish(&c, suite, &sum, eb);
  res->wall = np_time_mono_s() - c.pg.t0;
  np_matrix__progress_summary(&c.pg, p->suite, end_status(&c, rc), sum, res,
                              o->out_dir);
  if (res->interrupted)
    fprintf(stderr,
            "netproof-bench matrix: interrupted; %zu repetitions finished, "
            "summary written.\n  resume with: netproof-bench matrix %s "
            "--output %s --resume%s%s%s\n",
            res->reps_run + res->reps_kept, o->plan_path, o->out_dir,
            o->only ? " --only '" : "", o->only ? o->only : "",
            o->only ? "'" : "");
cleanup_lock:
  np_matrix__stability_free(c.stab);
  cJSON_Delete(sum);
  free(envp);
  np_matrix__lock_release(lock);
cleanup_plan:
  cJSON_Delete(suite);
  free(sel);
  np_matrix_plan_free(p);
  return rc;
}
