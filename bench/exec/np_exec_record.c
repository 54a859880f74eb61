/*
 * np_exec_record.c - an exec run as a run record: the shared envelope
 * (model/core/np_bench_record.c) with config.protocol "exec", then the
 * "exec" section ($defs/exec of schema/run.schema.json).  Every number
 * goes through cJSON's typed calls; a value the run does not have is
 * null, never 0.
 */
#include "np_exec_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

static cJSON *config_json(const struct np_exec_config *cfg, int argc,
                          char **argv) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "protocol", "exec");
  NUM(o, "timeout_seconds", cfg->timeout);
  NUM(o, "expect_exit", cfg->expect_exit);
  NUM(o, "output_limit_bytes", cfg->output_limit);
  if (argv)
    cJSON_AddItemToObject(o, "command", np_bench_record_command(argc, argv));
  return o;
}

static cJSON *kept_json(const struct np_exec_kept *k) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "file", k->name);
  NUM(o, "bytes", k->bytes);
  NUM(o, "total_bytes", k->total);
  cJSON_AddBoolToObject(o, "truncated", k->truncated);
  cJSON_AddStringToObject(o, "sha256", k->sha256);
  return o;
}

static cJSON *program_json(const struct np_exec_config *cfg,
                           const struct np_exec_run_result *r) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "given", cfg->prog_argv[0]);
  cJSON_AddStringToObject(o, "path", cfg->path);
  cJSON_AddStringToObject(o, "sha256", r->exe_sha256);
  NUM(o, "bytes", r->exe_bytes);
  return o;
}

/* 1 when name=... came from our environment (--keep-env) and no --env
 * replaced it: its value is ours, recorded only with --record-env-values. */
static int kept_value(const struct np_exec_config *cfg, const char *name,
                      size_t nlen) {
  int kept = 0;
  for (unsigned i = 0; i < cfg->nkeep_env; i++)
    kept |= strlen(cfg->keep_env[i]) == nlen &&
            strncmp(cfg->keep_env[i], name, nlen) == 0;
  for (unsigned i = 0; kept && i < cfg->nenv; i++)
    kept = !(strncmp(cfg->env[i], name, nlen) == 0 && cfg->env[i][nlen] == '=');
  return kept;
}

/* environment (values), environment_kept (names of --keep-env variables
 * passed on) into o. */
static void env_json(cJSON *o, const struct np_exec_config *cfg,
                     const struct np_exec_run_result *r) {
  cJSON *e = cJSON_AddObjectToObject(o, "environment");
  cJSON *k = cJSON_AddArrayToObject(o, "environment_kept");
  for (size_t i = 0; e != NULL && k != NULL && i < r->env.n; i++) {
    const char *v = r->env.vars[i], *eq = strchr(v, '=');
    char name[256];
    size_t nlen = (size_t)(eq - v);
    snprintf(name, sizeof name, "%.*s", (int)nlen, v);
    int ours = kept_value(cfg, v, nlen);
    if (ours)
      cJSON_AddItemToArray(k, cJSON_CreateString(name));
    if (!ours || cfg->record_env_values)
      cJSON_AddStringToObject(e, name, eq + 1);
  }
  cJSON_AddBoolToObject(o, "environment_kept_values", cfg->record_env_values);
}

/* What the program left running (np_exec_tree.h). */
static cJSON *leftovers_json(const struct np_exec_config *cfg,
                             const struct np_exec_result *x) {
  const struct np_exec_tree *t = &x->leftovers;
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(
      o, "method",
      "after the program's main process ended: every live descendant of "
      "netproof-bench (a child subreaper) by /proc/<pid>/stat parent "
      "chains, the program's own process group excluded after a timeout "
      "or interruption kill; each signalled through a pidfd, SIGTERM, "
      "then SIGKILL");
  NUM(o, "term_seconds", NP_EXEC_TREE_TERM_S);
  NUM(o, "kill_seconds", NP_EXEC_TREE_KILL_S);
  NUM(o, "rounds", t->rounds);
  cJSON_AddBoolToObject(o, "complete",
                        !x->leftovers_incomplete && t->scan_error == 0);
  cJSON_AddBoolToObject(o, "allowed", cfg->allow_leftovers);
  NUM(o, "count", t->n);
  cJSON *a = cJSON_AddArrayToObject(o, "processes");
  for (size_t i = 0; a != NULL && i < t->n; i++) {
    const struct np_exec_tree_proc *p = &t->procs[i];
    cJSON *e = cJSON_CreateObject();
    if (e == NULL || !cJSON_AddItemToArray(a, e)) {
      cJSON_Delete(e);
      cJSON_Delete(o);
      return NULL;
    }
    NUM(e, "pid", p->pid);
    NUM(e, "ppid", p->ppid);
    NUM(e, "pgid", p->pgid);
    NUM(e, "sid", p->sid);
    cJSON_AddStringToObject(e, "comm", p->comm);
    cJSON_AddStringToObject(e, "fate", np_exec_tree_fate_name(p->fate));
  }
  if (a == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *outcome_json(const struct np_exec_config *cfg,
                           const struct np_exec_result *x) {
  static const char *const kinds[] = {"exited", "signaled", "timeout",
                                      "interrupted"};
  char sig[32];
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "kind", kinds[x->end]);
  if (x->exit_code >= 0)
    NUM(o, "exit_code", x->exit_code);
  else
    cJSON_AddNullToObject(o, "exit_code");
  if (x->signo)
    cJSON_AddStringToObject(o, "signal",
                            np_exec_signal_name(x->signo, sig, sizeof sig));
  else
    cJSON_AddNullToObject(o, "signal");
  NUM(o, "expected_exit", cfg->expect_exit);
  return o;
}

static cJSON *rusage_json(const struct np_exec_result *x) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(
      o, "scope",
      "getrusage(RUSAGE_CHILDREN) over the run: the program and every "
      "descendant reaped by it or by netproof-bench (its subreaper)");
  NUM(o, "user_seconds", x->user_seconds);
  NUM(o, "sys_seconds", x->sys_seconds);
  NUM(o, "max_rss_bytes", x->max_rss_bytes);
  NUM(o, "voluntary_context_switches", x->voluntary_cs);
  NUM(o, "involuntary_context_switches", x->involuntary_cs);
  NUM(o, "descendants_reaped", x->descendants_reaped);
  return o;
}

static cJSON *files_json(const struct np_exec_run_result *r) {
  cJSON *a = cJSON_CreateArray();
  for (unsigned i = 0; a != NULL && i < r->nfiles; i++) {
    const struct np_exec_source_file *f = &r->files[i];
    cJSON *o = f->ok ? kept_json(&f->kept) : cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(a, o)) {
      cJSON_Delete(o);
      cJSON_Delete(a);
      return NULL;
    }
    cJSON_AddStringToObject(o, "path", f->given);
    if (!f->ok)
      cJSON_AddStringToObject(o, "error", f->error);
  }
  return a;
}

static cJSON *metrics_json(const struct np_exec_config *cfg,
                           const struct np_exec_run_result *r) {
  cJSON *a = cJSON_CreateArray();
  char spec[NP_EXEC_EXPR_MAX + NP_EXEC_PATH_MAX + 64];
  for (unsigned i = 0; a != NULL && i < cfg->nmetric; i++) {
    const struct np_exec_metric_spec *m = &cfg->metric[i];
    const struct np_exec_metric_val *v = &r->val[i];
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(a, o)) {
      cJSON_Delete(o);
      cJSON_Delete(a);
      return NULL;
    }
    np_exec_metric_spec_text(m, spec, sizeof spec);
    cJSON_AddStringToObject(o, "name", m->name);
    cJSON_AddStringToObject(o, "spec", spec);
    cJSON_AddStringToObject(o, "source", m->source == NP_EXEC_SOURCE_FILE
                                             ? "file" : "stdout");
    cJSON_AddStringToObject(o, "kind", m->kind == NP_EXEC_KIND_JSON
                                           ? "json" : "regex");
    cJSON_AddStringToObject(o, "expr", m->expr);
    if (m->source == NP_EXEC_SOURCE_FILE)
      cJSON_AddStringToObject(o, "path", m->path);
    cJSON_AddStringToObject(o, "unit", m->unit);
    if (v->fail == NP_EXEC_OK) {
      NUM(o, "value", v->value);
      cJSON_AddNullToObject(o, "failure");
    } else {
      cJSON_AddNullToObject(o, "value");
      cJSON_AddStringToObject(o, "failure", np_exec_fail_name(v->fail));
      cJSON_AddStringToObject(o, "reason", v->reason);
    }
    if (v->raw[0])
      cJSON_AddStringToObject(o, "raw", v->raw);
    else
      cJSON_AddNullToObject(o, "raw");
    if (m->kind == NP_EXEC_KIND_REGEX)
      NUM(o, "matches", v->matches);
  }
  return a;
}

static cJSON *bounds_json(const struct np_exec_config *cfg,
                          const struct np_exec_run_result *r) {
  cJSON *a = cJSON_CreateArray();
  char text[160];
  for (unsigned i = 0; a != NULL && i < cfg->nbound; i++) {
    const struct np_exec_bound *b = &cfg->bound[i];
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(a, o)) {
      cJSON_Delete(o);
      cJSON_Delete(a);
      return NULL;
    }
    np_exec_bound_text(b, text, sizeof text);
    cJSON_AddStringToObject(o, "check", text);
    cJSON_AddStringToObject(o, "metric", b->metric);
    cJSON_AddStringToObject(o, "op", np_exec_op_text(b->op));
    if (b->kernel) {
      cJSON_AddStringToObject(o, "kernel_counter", b->counter);
    } else {
      NUM(o, "value", b->value);
    }
    NUM(o, "rhs", r->bound_rhs[i]); /* null when the counter is absent */
  }
  return a;
}

/* One series: its samples as [line, t, value] and its intervals. */
static cJSON *series_one_json(const struct np_exec_config *cfg,
                              const struct np_exec_metric_spec *m,
                              const struct np_exec_series *s, double wall) {
  char spec[NP_EXEC_EXPR_MAX + 64];
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  np_exec_metric_spec_text(m, spec, sizeof spec);
  cJSON_AddStringToObject(o, "name", m->name);
  cJSON_AddStringToObject(o, "spec", spec);
  cJSON_AddStringToObject(o, "expr", m->expr);
  cJSON_AddStringToObject(o, "unit", m->unit);
  cJSON *a = cJSON_AddArrayToObject(o, "samples");
  for (size_t j = 0; a != NULL && j < s->n; j++) {
    cJSON *row = cJSON_CreateArray();
    if (row == NULL || !cJSON_AddItemToArray(a, row)) {
      cJSON_Delete(row);
      a = NULL;
      break;
    }
    cJSON_AddItemToArray(row, cJSON_CreateNumber(s->v[j].line));
    cJSON_AddItemToArray(row, isfinite(s->v[j].t)
                                  ? cJSON_CreateNumber(s->v[j].t)
                                  : cJSON_CreateNull());
    cJSON_AddItemToArray(row, cJSON_CreateNumber(s->v[j].value));
  }
  NUM(o, "unparsed", s->unparsed);
  if (s->unparsed > 0) {
    cJSON *u = cJSON_AddObjectToObject(o, "unparsed_first");
    NUM(u, "line", s->unparsed_line);
    cJSON_AddStringToObject(u, "reason", s->unparsed_reason);
  } else {
    cJSON_AddNullToObject(o, "unparsed_first");
  }
  NUM(o, "over_limit", s->over_limit);
  size_t k = np_exec_series_nintervals(cfg->interval, wall);
  struct np_exec_interval *iv = calloc(k, sizeof *iv);
  cJSON *ia = cJSON_AddArrayToObject(o, "intervals");
  if (iv == NULL || ia == NULL || a == NULL) {
    free(iv);
    cJSON_Delete(o);
    return NULL;
  }
  np_exec_series_intervals(s, cfg->interval, wall, iv);
  for (size_t i = 0; i < k; i++) {
    cJSON *x = cJSON_CreateObject();
    if (x == NULL || !cJSON_AddItemToArray(ia, x)) {
      cJSON_Delete(x);
      free(iv);
      cJSON_Delete(o);
      return NULL;
    }
    NUM(x, "start", iv[i].start);
    NUM(x, "end", iv[i].end);
    NUM(x, "count", iv[i].count);
    NUM(x, "mean", iv[i].mean);
    NUM(x, "min", iv[i].min);
    NUM(x, "max", iv[i].max);
  }
  free(iv);
  return o;
}

/* exec.series: every --interval-metric, or NULL when none was given. */
static cJSON *series_json(const struct np_exec_config *cfg,
                          const struct np_exec_run_result *r) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "interval_seconds", cfg->interval);
  cJSON_AddStringToObject(
      o, "clock",
      "each sample's t is when netproof-bench read its line from the "
      "program's stdout pipe, seconds from the fork (CLOCK_MONOTONIC); "
      "intervals cut [0, wall_seconds) into interval_seconds pieces");
  cJSON *a = cJSON_AddArrayToObject(o, "metrics");
  for (unsigned i = 0; a != NULL && i < cfg->nseries; i++) {
    cJSON *one = series_one_json(cfg, &cfg->series[i], &r->series[i],
                                 r->res.wall_seconds);
    if (one == NULL || !cJSON_AddItemToArray(a, one)) {
      cJSON_Delete(one);
      cJSON_Delete(o);
      return NULL;
    }
  }
  return o;
}

static cJSON *exec_json(const struct np_exec_config *cfg,
                        const struct np_exec_run_result *r) {
  cJSON *o = cJSON_CreateObject(), *argv, *unset;
  if (o == NULL)
    return NULL;
  cJSON_AddItemToObject(o, "program", program_json(cfg, r));
  argv = cJSON_AddArrayToObject(o, "argv");
  for (int i = 0; argv != NULL && i < cfg->prog_argc; i++)
    cJSON_AddItemToArray(argv, cJSON_CreateString(cfg->prog_argv[i]));
  cJSON_AddStringToObject(o, "cwd", r->cwd);
  env_json(o, cfg, r);
  unset = cJSON_AddArrayToObject(o, "environment_unset");
  for (size_t i = 0; unset != NULL && i < r->env.nunset; i++)
    cJSON_AddItemToArray(unset, cJSON_CreateString(r->env.unset[i]));
  cJSON_AddStringToObject(
      o, "environment_rule",
      "PATH=" NP_EXEC_DEFAULT_PATH ", HOME (ours, or /), LC_ALL=C; then "
      "--keep-env copies (environment_kept: their names; their values "
      "only with --record-env-values; environment_unset: named but not "
      "set); then --env; nothing else");
  NUM(o, "timeout_seconds", cfg->timeout);
  cJSON_AddItemToObject(o, "outcome", outcome_json(cfg, &r->res));
  NUM(o, "wall_seconds", r->res.wall_seconds);
  cJSON_AddItemToObject(o, "rusage", rusage_json(&r->res));
  NUM(o, "output_limit_bytes", cfg->output_limit);
  cJSON_AddBoolToObject(o, "output_drained", r->res.output_drained);
  cJSON_AddItemToObject(o, "leftovers", leftovers_json(cfg, &r->res));
  cJSON_AddItemToObject(o, "stdout", kept_json(&r->out));
  cJSON_AddItemToObject(o, "stderr", kept_json(&r->err));
  cJSON_AddItemToObject(o, "files", files_json(r));
  cJSON_AddItemToObject(o, "metrics", metrics_json(cfg, r));
  cJSON_AddItemToObject(o, "bounds", bounds_json(cfg, r));
  if (cfg->nseries > 0 &&
      !cJSON_AddItemToObject(o, "series", series_json(cfg, r))) {
    cJSON_Delete(o);
    return NULL;
  }
  static const char *const need[] = {
      "program", "argv", "environment", "environment_kept", "outcome",
      "rusage", "leftovers", "stdout", "stderr", "files", "metrics",
      "bounds"};
  if (np_bench_record_require(o, need, sizeof need / sizeof need[0], NULL)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int np_exec_record_build(const struct np_exec_config *cfg,
                         const struct np_exec_run_result *r, int argc,
                         char **argv, cJSON **out, struct np_bench_verdict *v,
                         struct np_errbuf *eb) {
  struct np_bench_verdict verdict;
  cJSON *doc = NULL;
  struct np_bench_envelope env = {.run = &r->run,
                                  .checks = r->checks,
                                  .nchecks = r->nchecks,
                                  .config = config_json(cfg, argc, argv)};
  int rc = np_bench_record_new(&env, &doc, &verdict, eb);
  if (rc != 0)
    return rc;
  cJSON *x = exec_json(cfg, r);
  if (x == NULL || !cJSON_AddItemToObject(doc, "exec", x)) {
    cJSON_Delete(x);
    cJSON_Delete(doc);
    return np_errbuf_set(eb, NP_ENOMEM, "record: out of memory");
  }
  static const char *const need[] = {"config", "exec"};
  if ((rc = np_bench_record_require(doc, need, 2, eb)) != 0) {
    cJSON_Delete(doc);
    return rc;
  }
  *out = doc;
  if (v)
    *v = verdict;
  return 0;
}
