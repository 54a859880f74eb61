/*
 * np_exec_run.c - identity, snapshots, the program, kept output, metrics
 * and checks of one exec run (see np_exec_run.h).
 *
 * The checks, in record order:
 *   completed        the program ended before the time bound
 *   exit_status      it exited with --expect-exit (not a signal)
 *   output_complete  stdout and stderr were kept whole (not cut at
 *                    --output-limit)
 *   no_leftover_processes  nothing the program started was still running
 *                    once it had ended (np_exec_tree.h); with
 *                    --allow-leftovers it passes when every one of them
 *                    was ended
 *   metric_NAME      one per --metric: exactly one finite value
 *   bound_K          one per --check (K from 1): the bound holds
 *   series_NAME      one per --interval-metric: at least one sample, no
 *                    matching line unparsed, none past the sample bound
 * A metric is evaluated from the kept bytes, the same bytes the
 * self-check reads again, never from anything it cannot see.
 */
#include "np_exec_run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "np_file.h"
#include "np_kernel.h"

/* A file older than the run by more than this was not written by it. */
#define NP_EXEC_STALE_S 0.05

const char *np_exec_signal_name(int signo, char *buf, size_t len) {
  const char *a = sigabbrev_np(signo);
  snprintf(buf, len, "SIG%s", a != NULL ? a : "?");
  return buf;
}

void np_exec_run_free(struct np_exec_run_result *r) {
  if (r == NULL)
    return;
  np_bench_run_free(&r->run);
  np_exec_env_free(&r->env);
  np_exec_result_free(&r->res);
  for (unsigned i = 0; i < r->nfiles; i++)
    free(r->files[i].data);
  r->nfiles = 0;
  for (unsigned i = 0; i < NP_EXEC_MAX_SERIES; i++)
    np_exec_series_free(&r->series[i]);
}

/* prefix + suffix into k->path, k->name its last component. */
static int kept_name(struct np_exec_kept *k, const char *prefix,
                     const char *suffix) {
  int n = snprintf(k->path, sizeof k->path, "%s%s", prefix, suffix);
  if (n < 0 || (size_t)n >= sizeof k->path)
    return NP_ERANGE;
  const char *slash = strrchr(k->path, '/');
  k->name = slash != NULL ? slash + 1 : k->path;
  return 0;
}

static int keep(struct np_exec_kept *k, const char *data, size_t len,
                uint64_t total, struct np_errbuf *eb) {
  k->bytes = len;
  k->total = total;
  k->truncated = total > len;
  int rc = np_sha256_buf(data != NULL ? data : "", len, k->sha256);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "%s: SHA-256 failed", k->path);
  return np_file_write_atomic(k->path, data != NULL ? data : "", len, eb);
}

/* Read at most limit bytes of path (relative to cwd), noting the size. */
static void read_source(struct np_exec_source_file *f, const char *cwd,
                        size_t limit, double started_real) {
  char p[PATH_MAX * 2];
  struct stat st;
  if (f->given[0] == '/')
    snprintf(p, sizeof p, "%s", f->given);
  else
    snprintf(p, sizeof p, "%s/%s", cwd, f->given);
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(f->error, sizeof f->error, "%s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return;
  }
  double mtime = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
  if (!S_ISREG(st.st_mode)) {
    snprintf(f->error, sizeof f->error, "not a regular file");
  } else if (mtime < started_real - NP_EXEC_STALE_S) {
    snprintf(f->error, sizeof f->error,
             "not written during the run (modified %.3f s before it began)",
             started_real - mtime);
  } else if ((f->data = malloc(limit + 1)) == NULL) {
    snprintf(f->error, sizeof f->error, "out of memory");
  } else {
    size_t got = 0;
    uint64_t total = 0;
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
      size_t k = (size_t)n < limit - got ? (size_t)n : limit - got;
      memcpy(f->data + got, buf, k);
      got += k;
      total += (uint64_t)n;
    }
    if (n < 0) {
      snprintf(f->error, sizeof f->error, "read: %s", strerror(errno));
    } else {
      f->ok = 1;
      f->kept.bytes = got;
      f->kept.total = total;
    }
  }
  close(fd);
}

/* Copy every distinct file a metric reads beside the record. */
static int keep_sources(const struct np_exec_config *cfg,
                        struct np_exec_run_result *r, double started_real,
                        struct np_errbuf *eb) {
  for (unsigned i = 0; i < cfg->nmetric; i++) {
    const struct np_exec_metric_spec *m = &cfg->metric[i];
    r->metric_file[i] = -1;
    if (m->source != NP_EXEC_SOURCE_FILE)
      continue;
    unsigned k = 0;
    while (k < r->nfiles && strcmp(r->files[k].given, m->path) != 0)
      k++;
    r->metric_file[i] = (int)k;
    if (k < r->nfiles)
      continue;
    struct np_exec_source_file *f = &r->files[r->nfiles++];
    char suffix[32];
    f->given = m->path;
    read_source(f, r->cwd, cfg->output_limit, started_real);
    if (!f->ok)
      continue;
    snprintf(suffix, sizeof suffix, ".file-%u.txt", k + 1);
    int rc = kept_name(&f->kept, cfg->keep_prefix, suffix);
    if (rc == 0)
      rc = keep(&f->kept, f->data, f->kept.bytes, f->kept.total, eb);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static void add_check(struct np_exec_run_result *r, const char *name,
                      int passed, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_check(struct np_exec_run_result *r, const char *name,
                      int passed, const char *fmt, ...) {
  unsigned i = r->nchecks++;
  va_list ap;
  snprintf(r->check_name[i], sizeof r->check_name[i], "%s", name);
  va_start(ap, fmt);
  vsnprintf(r->check_detail[i], sizeof r->check_detail[i], fmt, ap);
  va_end(ap);
  r->checks[i] = (struct np_bench_check){r->check_name[i], passed,
                                         r->check_detail[i]};
}

/* The delta of a kernel counter over the run, or NAN. */
static double kernel_delta(const struct np_bench_run *run, const char *name) {
  int64_t a, b;
  if (np_kernel_get(run->kernel_before, name, &a) != 0 ||
      np_kernel_get(run->kernel_after, name, &b) != 0)
    return NAN;
  return (double)(b - a);
}

/* no_leftover_processes: what was left, how it ended, whether allowed. */
static void leftover_check(const struct np_exec_config *cfg,
                           struct np_exec_run_result *r) {
  const struct np_exec_tree *t = &r->res.leftovers;
  char list[200] = "";
  size_t used = 0, survived = 0;
  for (size_t i = 0; i < t->n; i++) {
    const struct np_exec_tree_proc *p = &t->procs[i];
    survived += p->fate == NP_EXEC_TREE_SURVIVED;
    if (used < sizeof list - 1) {
      int k = snprintf(list + used, sizeof list - used, "%s%s (pid %d) %s",
                       i ? ", " : ": ", p->comm, (int)p->pid,
                       np_exec_tree_fate_name(p->fate));
      used = k > 0 && (size_t)k < sizeof list - used ? used + (size_t)k
                                                      : sizeof list - 1;
    }
  }
  int complete = !r->res.leftovers_incomplete && t->scan_error == 0;
  int ok = complete && (t->n == 0 || (cfg->allow_leftovers && survived == 0));
  add_check(r, "no_leftover_processes", ok,
            "%zu process%s left running%s%s%s", t->n, t->n == 1 ? "" : "es",
            list, !complete ? "; the search was incomplete" : "",
            t->n && cfg->allow_leftovers ? "; allowed by --allow-leftovers"
                                         : "");
}

static void evaluate(const struct np_exec_config *cfg,
                     struct np_exec_run_result *r) {
  const struct np_exec_result *x = &r->res;
  char sig[32];
  add_check(r, "completed",
            x->end != NP_EXEC_TIMEOUT && x->end != NP_EXEC_INTERRUPTED,
            "%s after %.3f s (bound %g s)",
            x->end == NP_EXEC_TIMEOUT       ? "killed at the time bound"
            : x->end == NP_EXEC_INTERRUPTED ? "killed on interruption"
                                            : "ended by itself",
            x->wall_seconds, cfg->timeout);
  if (x->end == NP_EXEC_EXITED)
    add_check(r, "exit_status", (uint32_t)x->exit_code == cfg->expect_exit,
              "exit %d, expected %u", x->exit_code, cfg->expect_exit);
  else
    add_check(r, "exit_status", 0, "ended by %s, expected exit %u",
              np_exec_signal_name(x->signo, sig, sizeof sig),
              cfg->expect_exit);
  add_check(r, "output_complete", !r->out.truncated && !r->err.truncated,
            "stdout %llu of %llu bytes kept, stderr %llu of %llu (bound "
            "%llu each)",
            (unsigned long long)r->out.bytes, (unsigned long long)r->out.total,
            (unsigned long long)r->err.bytes, (unsigned long long)r->err.total,
            (unsigned long long)cfg->output_limit);
  leftover_check(cfg, r);
}

static int eval_metrics(const struct np_exec_config *cfg,
                        struct np_exec_run_result *r, struct np_errbuf *eb) {
  char name[64];
  for (unsigned i = 0; i < cfg->nmetric; i++) {
    const struct np_exec_metric_spec *m = &cfg->metric[i];
    struct np_exec_metric_val *v = &r->val[i];
    int rc = 0;
    if (m->source == NP_EXEC_SOURCE_STDOUT) {
      rc = np_exec_metric_eval(m, r->res.out.data, r->res.out.kept,
                               r->out.truncated, v);
    } else {
      const struct np_exec_source_file *f = &r->files[r->metric_file[i]];
      if (f->ok)
        rc = np_exec_metric_eval(m, f->data, f->kept.bytes,
                                 f->kept.truncated, v);
      else
        np_exec_metric_unreadable(m, f->error, v);
    }
    if (rc != 0)
      return np_errbuf_set(eb, rc, "metric %s: %s", m->name, np_strerror(rc));
    snprintf(name, sizeof name, "metric_%s", m->name);
    if (v->fail == NP_EXEC_OK)
      add_check(r, name, 1, "%s = %s%s%s", m->name, v->raw,
                m->unit[0] ? " " : "", m->unit);
    else
      add_check(r, name, 0, "%s %s: %s", m->name, np_exec_fail_name(v->fail),
                v->reason);
  }
  for (unsigned i = 0; i < cfg->nbound; i++) {
    const struct np_exec_bound *b = &cfg->bound[i];
    const struct np_exec_metric_spec *m = np_exec_config_metric(cfg, b->metric);
    const struct np_exec_metric_val *v = &r->val[m - cfg->metric];
    double lhs = v->fail == NP_EXEC_OK ? v->value : NAN;
    r->bound_rhs[i] = b->kernel ? kernel_delta(&r->run, b->counter) : b->value;
    char detail[320];
    int ok = np_exec_bound_eval(b, lhs, r->bound_rhs[i], detail, sizeof detail);
    snprintf(name, sizeof name, "bound_%u", i + 1);
    add_check(r, name, ok, "%s", detail);
  }
  return 0;
}

/* The samples of every --interval-metric, from the kept stdout and the
 * time each of its lines was read, and one check per series. */
static int eval_series(const struct np_exec_config *cfg,
                       struct np_exec_run_result *r, struct np_errbuf *eb) {
  char name[64];
  for (unsigned i = 0; i < cfg->nseries; i++) {
    const struct np_exec_metric_spec *m = &cfg->series[i];
    struct np_exec_series *s = &r->series[i];
    int rc = np_exec_series_scan(m, r->res.out.data, r->res.out.kept,
                                 r->res.out.line_t, r->res.out.nlines, s);
    if (rc != 0)
      return np_errbuf_set(eb, rc, "series %s: %s", m->name, np_strerror(rc));
    snprintf(name, sizeof name, "series_%s", m->name);
    size_t k = np_exec_series_nintervals(cfg->interval, r->res.wall_seconds);
    if (s->unparsed > 0)
      add_check(r, name, 0, "%llu matching lines not a number, first line "
                "%u: %s", (unsigned long long)s->unparsed, s->unparsed_line,
                s->unparsed_reason);
    else if (s->over_limit > 0)
      add_check(r, name, 0, "%llu samples past the bound of %u",
                (unsigned long long)s->over_limit, NP_EXEC_SERIES_MAX_SAMPLES);
    else
      add_check(r, name, s->n > 0, "%zu samples over %zu intervals of %g s",
                s->n, k, cfg->interval);
  }
  return 0;
}

int np_exec_run(const struct np_exec_config *cfg, struct np_bench_ctl *ctl,
                struct np_exec_run_result *r, struct np_errbuf *eb) {
  struct timespec now;
  int rc;
  memset(r, 0, sizeof *r);
  if (cfg->cwd != NULL) {
    if (realpath(cfg->cwd, r->cwd) == NULL)
      return np_errbuf_set(eb, np_err_from_errno(errno), "--cwd %s: %s",
                           cfg->cwd, strerror(errno));
  } else if (getcwd(r->cwd, sizeof r->cwd) == NULL) {
    return np_errbuf_set(eb, np_err_from_errno(errno), "getcwd: %s",
                         strerror(errno));
  }
  if ((rc = np_sha256_file(cfg->path, r->exe_sha256, &r->exe_bytes, eb)) != 0)
    return rc;
  if ((rc = np_exec_env_build(cfg, &r->env, eb)) != 0)
    return rc;
  np_bench_ctl_start(ctl, &r->run);
  clock_gettime(CLOCK_REALTIME, &now);
  double started_real = (double)now.tv_sec + now.tv_nsec / 1e9;
  if ((rc = np_bench_ctl_snapshot(ctl, &r->run, NP_BENCH_SNAP_BEFORE, eb)) != 0)
    goto fail;
  struct np_exec_spawn_req rq = {.path = cfg->path,
                                 .argv = cfg->prog_argv,
                                 .envp = r->env.vars,
                                 .cwd = r->cwd,
                                 .timeout = cfg->timeout,
                                 .limit = (size_t)cfg->output_limit,
                                 .line_times = cfg->nseries > 0};
  if ((rc = np_exec_spawn(ctl, &rq, &r->res, eb)) != 0)
    goto fail;
  if ((rc = np_bench_ctl_snapshot(ctl, &r->run, NP_BENCH_SNAP_AFTER, eb)) != 0)
    goto fail;
  np_bench_ctl_finish(ctl, &r->run);
  if ((rc = kept_name(&r->out, cfg->keep_prefix, ".stdout.txt")) != 0 ||
      (rc = kept_name(&r->err, cfg->keep_prefix, ".stderr.txt")) != 0) {
    np_errbuf_set(eb, rc, "--keep %s: too long", cfg->keep_prefix);
    goto fail;
  }
  if ((rc = keep(&r->out, r->res.out.data, r->res.out.kept, r->res.out.total,
                 eb)) != 0 ||
      (rc = keep(&r->err, r->res.err.data, r->res.err.kept, r->res.err.total,
                 eb)) != 0 ||
      (rc = keep_sources(cfg, r, started_real, eb)) != 0)
    goto fail;
  evaluate(cfg, r);
  if ((rc = eval_metrics(cfg, r, eb)) != 0 ||
      (rc = eval_series(cfg, r, eb)) != 0)
    goto fail;
  return 0;
fail:
  np_exec_run_free(r);
  return rc;
}
