/*
 * np_matrix_run.c - the matrix runner: check everything first, then run
 * each selected configuration's repetitions as child processes, keep
 * suite.json current, and finish with summary.json.
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
#include "np_json.h"
#include "np_matrix_int.h"
#include "np_matrix_summary.h"
#include "np_sysinfo.h"

/* Progress state for the stderr line. */
struct np_progress {
  int quiet, tty;
  size_t total, done;    /* repetitions to run now / finished            */
  double t0;             /* monotonic start                             */
  double est_left;       /* estimated seconds of the remaining runs     */
  double est_done;       /* estimated seconds of the finished runs      */
};

static void fmt_dur(double s, char *buf, size_t len) {
  long t = s < 0 ? 0 : (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf(buf, len, "%lds", t);
}

static void progress(const struct np_progress *pg, size_t ci, size_t nc,
                     const struct np_matrix_config *cf, int rep, int reps,
                     const char *last) {
  if (pg->quiet)
    return;
  char el[32], eta[32];
  double elapsed = np_matrix_mono() - pg->t0;
  double ratio = pg->est_done > 0 ? elapsed / pg->est_done : 1;
  fmt_dur(elapsed, el, sizeof el);
  fmt_dur(pg->est_left * ratio, eta, sizeof eta);
  fprintf(stderr, "%s[%zu/%zu] %s rep %d/%d  elapsed %s  eta %s%s%s%s",
          pg->tty ? "\r\033[K" : "", ci, nc, cf->id, rep, reps, el, eta,
          last[0] ? "  last: " : "", last, pg->tty ? "" : "\n");
  fflush(stderr);
}

static int mkdir_p(const char *path, struct np_errbuf *eb) {
  char tmp[NP_MATRIX_PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *s = tmp + 1;; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", tmp,
                             strerror(errno));
      if (c == '\0')
        break;
      *s = c;
    }
  }
  return 0;
}

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
      empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
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
  }
  if (rc == 0)
    *old = s;
  else
    cJSON_Delete(s);
  return rc;
}

static void dry_run(const struct np_matrix_opts *o,
                    const struct np_matrix_plan *p, const char *binary,
                    const char *sel, FILE *out) {
  double est = 0;
  size_t n = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (!sel[i])
      continue;
    const struct np_matrix_config *cf = &p->configs[i];
    n++;
    est += cf->est_seconds * p->repetitions;
    fprintf(out, "%s%s\n  %s %s", cf->id,
            cf->expect_fail ? "  (expect: fail)" : "", binary, p->protocol);
    for (size_t a = 0; a < cf->argc; a++)
      fprintf(out, " %s", cf->argv[a]);
    fprintf(out, " --output %s/runs/%s/rep-N.json.tmp\n",
            o->out_dir ? o->out_dir : "DIR", cf->id);
  }
  char d[32];
  fmt_dur(est, d, sizeof d);
  fprintf(out,
          "suite %s: %zu configurations x %d repetitions = %zu runs, "
          "estimated %s (%.0f s)\nplan sha256 %s\n",
          p->suite, n, p->repetitions, n * (size_t)p->repetitions, d, est,
          p->hash);
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
  return s;
}

/* Context of one invocation, handed to the repetition loop. */
struct np_run_ctx {
  const struct np_matrix_opts *o;
  const struct np_matrix_plan *p;
  const char *sel;
  const char *binary;
  sigset_t blocked, oldmask;
  struct np_matrix_stability *stab;
  struct np_matrix_result *res;
  struct np_progress pg;
};

static int run_all(struct np_run_ctx *c, struct np_errbuf *eb) {
  const struct np_matrix_plan *p = c->p;
  size_t nsel = 0, ci = 0;
  for (size_t i = 0; i < p->nconfigs; i++)
    nsel += c->sel[i] != 0;
  char last[96] = "";
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (!c->sel[i])
      continue;
    ci++;
    for (int n = 1; n <= p->repetitions; n++) {
      struct np_matrix_rep r = {&p->configs[i], p->protocol, c->binary, n,
                                "", "", &c->blocked, &c->oldmask};
      int rc = np_matrix_rep_paths(&r, c->o->out_dir);
      if (rc != 0)
        return np_errbuf_set(eb, rc, "%s: path too long", c->o->out_dir);
      if (np_matrix_rep_complete(&r)) {
        /* a runner killed between writing rep-N.json and removing the
         * child's temporary record leaves the latter behind */
        char tmp[NP_MATRIX_PATH_MAX];
        np_matrix_rep_file(&r, ".json.tmp", tmp, sizeof tmp);
        unlink(tmp);
        c->res->reps_kept++;
        c->pg.est_left -= r.cf->est_seconds; /* not to run: not in the ETA */
        continue;
      }
      sigset_t pend;
      sigpending(&pend);
      if (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM)) {
        c->res->interrupted = sigismember(&pend, SIGINT) ? SIGINT : SIGTERM;
        return 0;
      }
      if ((rc = np_matrix_rep_discard(&r, eb)) != 0 ||
          (rc = mkdir_p(r.dir, eb)) != 0)
        return rc;
      np_matrix_stability_sample(c->stab);
      progress(&c->pg, ci, nsel, r.cf, n, p->repetitions, last);
      struct np_matrix_outcome oc;
      char status[32] = "?";
      double head = -1;
      rc = np_matrix_rep_run(&r, &oc, status, sizeof status, &head, eb);
      if (rc == NP_EINTR) {
        c->res->interrupted = oc.interrupted;
        return 0;
      }
      if (rc != 0)
        return rc;
      c->res->reps_run++;
      c->pg.done++;
      c->pg.est_left -= r.cf->est_seconds;
      c->pg.est_done += r.cf->est_seconds;
      if (head >= 0)
        snprintf(last, sizeof last, "%.0f rt/s %s", head, status);
      else
        snprintf(last, sizeof last, "%s", status);
    }
  }
  return 0;
}

static const cJSON *get_flags(const cJSON *session) {
  return cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(session, "stability"), "flags");
}

/* Close the session in suite.json, write summary.json, count bad configs. */
static int finish(struct np_run_ctx *c, cJSON *suite, cJSON *session,
                  int run_rc, struct np_errbuf *eb) {
  char now[32], sp[NP_MATRIX_PATH_MAX];
  np_matrix_utc_now(now, sizeof now);
  const char *st = run_rc != 0            ? "error"
                   : c->res->interrupted  ? "interrupted"
                   : c->o->only != NULL   ? "partial"
                                          : "complete";
  cJSON_AddStringToObject(session, "ended_at", now);
  cJSON_AddStringToObject(session, "status", st);
  cJSON_AddNumberToObject(session, "repetitions_run", (double)c->res->reps_run);
  cJSON_AddNumberToObject(session, "repetitions_kept",
                          (double)c->res->reps_kept);
  cJSON *stab = np_matrix_stability_json(c->stab);
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
  cJSON *sum = NULL;
  if (rc == 0)
    rc = np_matrix_summarize(c->o->out_dir, &sum, eb);
  if (rc == 0) {
    snprintf(sp, sizeof sp, "%s/summary.json", c->o->out_dir);
    rc = np_json_write_atomic(sp, sum, 1, eb);
    const cJSON *cf;
    cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(sum,
                                                            "configurations")) {
      const struct np_matrix_config *pc =
          np_matrix_plan_find(c->p, np_json_get_string(cf, "id", ""));
      const char *s = np_json_get_string(cf, "status", "");
      if (pc && c->sel[pc - c->p->configs] &&
          (strcmp(s, "failed") == 0 || strcmp(s, "unexpected-pass") == 0))
        c->res->configs_bad++;
    }
  }
  cJSON_Delete(sum);
  return rc;
}

static int select_configs(const struct np_matrix_opts *o,
                          const struct np_matrix_plan *p, char *sel,
                          struct np_errbuf *eb) {
  size_t n = 0;
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

int np_matrix_run(const struct np_matrix_opts *o, FILE *out,
                  struct np_matrix_result *res, struct np_errbuf *eb) {
  struct np_matrix_plan *p = NULL;
  struct np_matrix_result local;
  char binary[PATH_MAX], now[32], sp[NP_MATRIX_PATH_MAX];
  cJSON *suite = NULL;
  char *sel = NULL;
  int rc = np_matrix_plan_load(o->plan_path, &p, eb);
  if (rc != 0)
    return rc;
  if (res == NULL)
    res = &local;
  memset(res, 0, sizeof *res);
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
    dry_run(o, p, binary, sel, out);
    rc = 0;
    goto cleanup_plan;
  }
  if (o->out_dir == NULL || o->out_dir[0] == '\0') {
    rc = np_errbuf_set(eb, NP_EUSAGE, "--output DIR is required");
    goto cleanup_plan;
  }
  if ((rc = check_out_dir(o, p, &suite, eb)) != 0 ||
      (rc = mkdir_p(o->out_dir, eb)) != 0)
    goto cleanup_plan;
  np_matrix_utc_now(now, sizeof now);
  if (suite == NULL && (suite = suite_new(o, p, binary, now)) == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_plan;
  }
  cJSON *session = cJSON_CreateObject();
  if (session == NULL ||
      !cJSON_AddItemToArray(
          cJSON_GetObjectItemCaseSensitive(suite, "sessions"), session)) {
    rc = np_errbuf_set(eb, session ? NP_ESCHEMA : NP_ENOMEM,
                       "%s/suite.json: no \"sessions\" list or no memory",
                       o->out_dir);
    cJSON_Delete(session);
    goto cleanup_plan;
  }
  cJSON_AddStringToObject(session, "started_at", now);
  cJSON_AddBoolToObject(session, "resume", o->resume);
  if (o->only)
    cJSON_AddStringToObject(session, "only", o->only);
  cJSON_ReplaceItemInObject(suite, "status", cJSON_CreateString("running"));
  snprintf(sp, sizeof sp, "%s/suite.json", o->out_dir);
  if ((rc = np_json_write_atomic(sp, suite, 1, eb)) != 0)
    goto cleanup_plan;
  struct np_run_ctx c;
  memset(&c, 0, sizeof c);
  c.o = o;
  c.p = p;
  c.sel = sel;
  c.binary = binary;
  c.res = res;
  c.pg.quiet = o->quiet;
  c.pg.tty = isatty(2);
  c.pg.t0 = np_matrix_mono();
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (sel[i]) {
      res->configs++;
      c.pg.total += (size_t)p->repetitions;
      c.pg.est_left += p->configs[i].est_seconds * p->repetitions;
    }
  }
  if ((rc = np_matrix_stability_new(&c.stab)) != 0)
    goto cleanup_plan;
  sigemptyset(&c.blocked);
  sigaddset(&c.blocked, SIGINT);
  sigaddset(&c.blocked, SIGTERM);
  sigaddset(&c.blocked, SIGCHLD);
  /* an inherited SIG_IGN for SIGCHLD makes the kernel reap children
   * itself, and waitpid could never report their exit: use the default
   * for the run, restore the caller's action after it */
  struct sigaction dfl, oldchld;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &oldchld);
  sigprocmask(SIG_BLOCK, &c.blocked, &c.oldmask);
  int run_rc = run_all(&c, eb);
  if (c.pg.tty && !o->quiet)
    fputc('\n', stderr);
  struct np_errbuf feb;
  rc = finish(&c, suite, session, run_rc, &feb);
  if (run_rc != 0)
    rc = run_rc;
  else if (rc != 0 && eb)
    *eb = feb;
  /* drop signals that arrived while blocked before restoring the mask */
  struct timespec zero = {0, 0};
  while (sigtimedwait(&c.blocked, NULL, &zero) > 0)
    ;
  sigprocmask(SIG_SETMASK, &c.oldmask, NULL);
  sigaction(SIGCHLD, &oldchld, NULL);
  np_matrix_stability_free(c.stab);
  if (res->interrupted)
    fprintf(stderr,
            "netproof-bench matrix: interrupted; %zu repetitions finished, "
            "summary written.\n  resume with: netproof-bench matrix %s "
            "--output %s --resume%s%s%s\n",
            res->reps_run + res->reps_kept, o->plan_path, o->out_dir,
            o->only ? " --only '" : "", o->only ? o->only : "",
            o->only ? "'" : "");
cleanup_plan:
  cJSON_Delete(suite);
  free(sel);
  np_matrix_plan_free(p);
  return rc;
}
