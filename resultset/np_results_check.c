/*
 * np_results_check.c - the streaming self-check's engine: files arrive in
 * sorted path order; the files of one repetition (runs/<id>/rep-<n>.*)
 * are gathered and checked together as soon as the next repetition
 * starts, leaving a compact struct np_chk_run; suite.json and summary.json
 * (last in that order) are kept parsed; finish runs the cross-file checks.
 * Memory: one repetition's files, the compact runs, suite.json and
 * summary.json.  The folder and tree wrappers feed it.
 */
#include "np_results_selfcheck.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "np_file.h"
#include "np_json.h"
#include "np_ksnap.h"
#include "np_results_check_int.h"
#include "np_results_stats.h"

int np_results_check_new(const char *label, np_results_problem_fn on_problem,
                         void *ctx, struct np_results_check **out) {
  struct np_results_check *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NP_ENOMEM;
  snprintf(c->label, sizeof c->label, "%s", label ? label : "");
  c->fn = on_problem;
  c->ctx = ctx;
  *out = c;
  return 0;
}

static void cur_reset(struct np_chk_cur *cur) {
  for (int i = 0; i < NP_CHK_NFILES; i++)
    free(cur->data[i]);
  for (size_t i = 0; i < cur->nother; i++)
    free(cur->other[i].data);
  memset(cur, 0, sizeof *cur);
}

const char *np_chk__cur_other(struct np_chk_cur *cur, const char *path,
                              size_t *len) {
  size_t sl = strlen(cur->stem);
  if (strncmp(path, cur->stem, sl) != 0)
    return NULL;
  for (size_t i = 0; i < cur->nother; i++)
    if (strcmp(cur->other[i].suffix, path + sl) == 0) {
      cur->other[i].used = 1;
      *len = cur->other[i].len;
      return cur->other[i].data;
    }
  return NULL;
}

static void run_free(struct np_chk_run *r) {
  free(r->args);
  free(r->rec_args);
  free(r->out_prefix);
  free(r->binary);
  free(r->identity);
  cJSON_Delete(r->options);
  cJSON_Delete(r->entry);
}

/* Check the gathered repetition and keep its compact summary. */
static void flush(struct np_results_check *c) {
  if (!c->cur.active)
    return;
  if (c->nruns == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    struct np_chk_run *n = realloc(c->runs, cap * sizeof *n);
    if (n == NULL) {
      c->oom = 1;
      cur_reset(&c->cur);
      return;
    }
    c->runs = n;
    c->cap = cap;
  }
  struct np_chk_run *r = &c->runs[c->nruns++];
  memset(r, 0, sizeof *r);
  np_chk__run_check(c, &c->cur, r);
  cur_reset(&c->cur);
}

/* "runs/<cid>/rep-<n><rest>" -> cid, n, the stem and rest; 0 otherwise. */
static int run_path(const char *path, struct np_chk_cur *k, const char **rest) {
  if (strncmp(path, "runs/", 5) != 0)
    return 0;
  const char *cid = path + 5, *slash = strchr(cid, '/');
  if (slash == NULL || slash == cid ||
      (size_t)(slash - cid) >= sizeof k->cid)
    return 0;
  const char *f = slash + 1;
  if (strncmp(f, "rep-", 4) != 0 || strchr(f, '/') != NULL ||
      f[4] < '0' || f[4] > '9')
    return 0;
  char *end;
  long n = strtol(f + 4, &end, 10);
  if (n < 1 || (*end != '.' && *end != '\0') ||
      (size_t)(end - path) >= sizeof k->stem)
    return 0;
  memcpy(k->cid, cid, (size_t)(slash - cid));
  k->cid[slash - cid] = '\0';
  k->rep = n;
  memcpy(k->stem, path, (size_t)(end - path));
  k->stem[end - path] = '\0';
  *rest = end;
  return 1;
}

/* A file of a repetition: into the current gathering. */
static int add_run_file(struct np_results_check *c, const char *path,
                        const void *data, size_t len) {
  struct np_chk_cur k;
  const char *rest;
  memset(&k, 0, sizeof k);
  if (!run_path(path, &k, &rest)) {
    flush(c);
    np_chk__problem(c, path, "",
                    "not a file of a repetition (runs/<config-id>/rep-<n>.*)");
    return 0;
  }
  if (!c->cur.active || strcmp(c->cur.stem, k.stem) != 0) {
    flush(c);
    c->cur.active = 1;
    snprintf(c->cur.stem, sizeof c->cur.stem, "%s", k.stem);
    snprintf(c->cur.cid, sizeof c->cur.cid, "%s", k.cid);
    c->cur.rep = k.rep;
  }
  if (strcmp(rest, ".json.tmp") == 0) {
    c->cur.tmp_record = 1;
    return 0;
  }
  if (strncmp(rest, ".json.tmp.tmp.", 14) == 0) {
    c->cur.child_tmp = 1;
    return 0;
  }
  for (int i = 0; i < NP_CHK_NFILES; i++) {
    if (strcmp(rest, np_chk__suffix[i]) != 0)
      continue;
    char *copy = malloc(len + 1);
    if (copy == NULL)
      return NP_ENOMEM;
    memcpy(copy, data, len);
    copy[len] = '\0';
    free(c->cur.data[i]);
    c->cur.data[i] = copy;
    c->cur.len[i] = len;
    return 0;
  }
  /* another file of the repetition: kept for the record to name (an exec
   * record's kept output), reported at the check when none does */
  struct np_chk_cur *cur = &c->cur;
  if (cur->nother == NP_CHK_OTHERS || strlen(rest) >= sizeof cur->other[0].suffix) {
    np_chk__problem(c, path, "",
                    "not a file of a repetition (rep-N.json, "
                    ".cmd.txt, .stderr.txt, .kernel-before.txt, "
                    ".kernel-after.txt, kept output)");
    return 0;
  }
  struct np_chk_other *o = &cur->other[cur->nother];
  if ((o->data = malloc(len + 1)) == NULL)
    return NP_ENOMEM;
  memcpy(o->data, data, len);
  o->data[len] = '\0';
  o->len = len;
  o->used = 0;
  snprintf(o->suffix, sizeof o->suffix, "%s", rest);
  cur->nother++;
  return 0;
}

/* suite.json / summary.json: parsed and validated, kept for the end. */
static void add_doc(struct np_results_check *c, const char *path,
                    const void *data, size_t len, const char *tag,
                    cJSON **slot, int *seen) {
  int valid;
  *seen = 1;
  cJSON_Delete(*slot);
  *slot = np_chk__json(c, path, data, len, tag, &valid);
  (void)valid;
}

int np_results_check_file(struct np_results_check *c, const char *path,
                          const void *data, size_t len) {
  if (c->finished)
    return NP_EINVAL;
  if (c->last[0] && strcmp(path, c->last) <= 0)
    np_chk__problem(c, path, "",
                    "fed out of order or twice (after %s): the self-check "
                    "reads a set in sorted path order",
                    c->last);
  snprintf(c->last, sizeof c->last, "%s", path);
  if (strncmp(path, "runs/", 5) == 0)
    return add_run_file(c, path, data, len);
  flush(c);
  if (strncmp(path, NP_KSNAP_DIR "/", sizeof NP_KSNAP_DIR) == 0)
    return np_chk__snap_add(c, path, data, len);
  if (strcmp(path, "suite.json") == 0) {
    add_doc(c, path, data, len, "netproof/suite/1", &c->suite, &c->suite_seen);
  } else if (strcmp(path, "summary.json") == 0) {
    add_doc(c, path, data, len, "netproof/summary/1", &c->summary,
            &c->summary_seen);
  } else if (strncmp(path, "kept/", 5) == 0) {
    char **n = realloc(c->kept, (c->nkept + 1) * sizeof *n);
    if (n == NULL || (n[c->nkept] = strdup(path)) == NULL) {
      if (n != NULL)
        c->kept = n;
      return NP_ENOMEM;
    }
    c->kept = n;
    c->nkept++;
  } else if (strcmp(path, ".netproof-matrix.lock") == 0) {
    c->lock_seen = 1;
  }
  /* anything else (a README, the report of the set) is not the set's */
  return 0;
}

int np_results_check_finish(struct np_results_check *c,
                            struct np_results_outcome *out) {
  struct np_results_outcome local;
  if (out == NULL)
    out = &local;
  memset(out, 0, sizeof *out);
  if (c->finished)
    return NP_EINVAL;
  flush(c);
  c->finished = 1;
  if (c->oom)
    return NP_ENOMEM;
  np_chk__snap_finish(c);
  struct np_matrix_plan *plan = NULL;
  const cJSON *pd = cJSON_GetObjectItemCaseSensitive(c->suite, "plan");
  struct np_errbuf eb = {{0}};
  if (c->suite != NULL && cJSON_IsObject(pd) &&
      np_matrix_plan_from_json(pd, "suite.json", &plan, &eb) != 0) {
    /* "suite.json: /dimensions/...: reason": the plan's own pointer */
    const char *why = strncmp(eb.msg, "suite.json: ", 12) == 0 ? eb.msg + 12
                                                               : eb.msg;
    np_chk__problem(c, "suite.json", "/plan",
                    "does not expand with this build's plan rules: %s", why);
    plan = NULL;
  }
  if (plan != NULL) /* the summary states how its intervals were made */
    plan->ci_method = (int)np_results_ci_method_of(c->summary);
  np_chk__plan_index_all(c, plan);
  np_chk__ids(c);
  np_chk__suite(c, plan, out);
  if (plan != NULL)
    np_chk__summary(c, plan);
  np_matrix_plan_free(plan);
  if (c->oom)
    return NP_ENOMEM;
  out->problems = c->problems;
  return c->problems ? NP_ECHECK : out->incomplete ? NP_EINCOMPLETE : 0;
}

void np_results_check_free(struct np_results_check *c) {
  if (c == NULL)
    return;
  cur_reset(&c->cur);
  for (size_t i = 0; i < c->nruns; i++)
    run_free(&c->runs[i]);
  free(c->runs);
  for (size_t i = 0; i < c->nkept; i++)
    free(c->kept[i]);
  free(c->kept);
  for (size_t i = 0; i < c->nhashes; i++)
    free(c->hashes[i]);
  free(c->hashes);
  np_chk__snap_free(c);
  cJSON_Delete(c->suite);
  cJSON_Delete(c->summary);
  np_schema_free(c->schema_run);
  np_schema_free(c->schema_suite);
  np_schema_free(c->schema_summary);
  free(c);
}

/* ---- wrappers ----------------------------------------------------------- */

/* A file found under the set's folder: a regular file with its size, or
 * a special one (kind says which) that is reported, never opened. */
struct path_ent {
  char *path;       /* relative to the set's folder       */
  off_t size;       /* regular files                      */
  const char *kind; /* NULL, or "a FIFO (named pipe)", ... */
};

struct path_list {
  struct path_ent *v;
  size_t n, cap;
};

static int list_add(struct path_list *l, const char *p, off_t size,
                    const char *kind) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    struct path_ent *n = realloc(l->v, cap * sizeof *n);
    if (n == NULL)
      return NP_ENOMEM;
    l->v = n;
    l->cap = cap;
  }
  if ((l->v[l->n].path = strdup(p)) == NULL)
    return NP_ENOMEM;
  l->v[l->n].size = size;
  l->v[l->n].kind = kind;
  l->n++;
  return 0;
}

/* What a file that is neither regular, a folder nor a link is. */
static const char *special_kind(mode_t m) {
  return S_ISFIFO(m)   ? "a FIFO (named pipe)"
         : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
                       : "a special file";
}

/* Every file under root/rel into l (relative paths). */
static int walk(const char *root, const char *rel, struct path_list *l,
                int depth, struct np_errbuf *eb) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
  if (depth > 16)
    return np_errbuf_set(eb, NP_ETOODEEP, "%s: folders nested too deep", dir);
  DIR *d = opendir(dir);
  if (d == NULL)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                         strerror(errno));
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat st;
    if (lstat(full, &st) != 0)
      rc = np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", full,
                         strerror(errno));
    else if (S_ISLNK(st.st_mode))
      rc = np_errbuf_set(eb, NP_EINVAL,
                         "%s: a symbolic link (a result set holds files)",
                         full);
    else if (S_ISDIR(st.st_mode))
      rc = walk(root, sub, l, depth + 1, eb);
    else if ((rc = list_add(l, sub, st.st_size,
                            S_ISREG(st.st_mode) ? NULL
                                                : special_kind(st.st_mode))) !=
             0)
      np_errbuf_set(eb, rc, "%s: out of memory", full);
  }
  closedir(d);
  return rc;
}

static int cmp_ent(const void *a, const void *b) {
  return strcmp(((const struct path_ent *)a)->path,
                ((const struct path_ent *)b)->path);
}

int np_results_check_refuse(struct np_results_check *c, const char *path,
                            const char *reason) {
  if (c->finished)
    return NP_EINVAL;
  np_chk__problem(c, path, "", "%s", reason);
  return 0;
}

/* One entry of the folder into the check: read (its size checked first)
 * or refused. */
static int check_ent(struct np_results_check *c, const char *dir,
                     const struct path_ent *e, struct np_errbuf *eb) {
  char why[200];
  if (e->kind != NULL) {
    snprintf(why, sizeof why,
             "%s: a result set holds regular files only (not opened)",
             e->kind);
    return np_results_check_refuse(c, e->path, why);
  }
  if ((uint64_t)e->size > NP_RESULTS_MAX_FILE_BYTES) {
    snprintf(why, sizeof why,
             "%lld bytes, more than a file of a result set can hold (%zu); "
             "not read",
             (long long)e->size, NP_RESULTS_MAX_FILE_BYTES);
    return np_results_check_refuse(c, e->path, why);
  }
  char full[8192], *buf = NULL;
  size_t len = 0;
  snprintf(full, sizeof full, "%s/%s", dir, e->path);
  int rc = np_file_read_all(full, NP_RESULTS_MAX_FILE_BYTES, &buf, &len, eb);
  if (rc == 0)
    rc = np_results_check_file(c, e->path, buf, len);
  free(buf);
  return rc;
}

int np_results_check_dir(const char *dir, const char *label,
                         np_results_problem_fn on_problem, void *ctx,
                         struct np_results_outcome *out, struct np_errbuf *eb) {
  struct path_list l = {0};
  struct np_results_check *c = NULL;
  struct stat st;
  int rc;
  if (stat(dir, &st) != 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "%s: %s", dir,
                         strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return np_errbuf_set(eb, NP_ENOTDIR, "%s: not a folder", dir);
  if ((rc = walk(dir, "", &l, 0, eb)) != 0)
    goto cleanup_list;
  qsort(l.v, l.n, sizeof *l.v, cmp_ent);
  if ((rc = np_results_check_new(label, on_problem, ctx, &c)) != 0)
    goto cleanup_list;
  for (size_t i = 0; i < l.n && rc == 0; i++)
    rc = check_ent(c, dir, &l.v[i], eb);
  if (rc == 0)
    rc = np_results_check_finish(c, out);
cleanup_list:
  np_results_check_free(c);
  for (size_t i = 0; i < l.n; i++)
    free(l.v[i].path);
  free(l.v);
  return rc;
}

int np_results_check_tree(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx,
                          struct np_results_outcome *out) {
  struct np_results_check *c = NULL;
  int rc = np_results_check_new(label, on_problem, ctx, &c);
  for (size_t i = 0; rc == 0 && i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t len;
    const char *d = np_ftree_get(t, p, &len);
    rc = np_results_check_file(c, p, d, len);
  }
  if (rc == 0)
    rc = np_results_check_finish(c, out);
  np_results_check_free(c);
  return rc;
}

int np_results_self_check(const struct np_ftree *t, const char *label,
                          np_results_problem_fn on_problem, void *ctx) {
  struct np_results_outcome o;
  int rc = np_results_check_tree(t, label, on_problem, ctx, &o);
  if (o.incomplete && on_problem != NULL && (rc == NP_EINCOMPLETE ||
                                             rc == NP_ECHECK)) {
    char file[300];
    snprintf(file, sizeof file, "%s%ssuite.json", label ? label : "",
             label && label[0] ? "/" : "");
    on_problem(ctx, file, "/status", o.note);
  }
  return rc;
}
