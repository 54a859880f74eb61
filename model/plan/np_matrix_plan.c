/*
 * np_matrix_plan.c - load a suite plan, check it and expand it into
 * configurations (see np_matrix_plan.h for the model).
 *
 * The matrix keeps no copy of any benchmark's options: the plan's
 * protocol names a benchmark command, and that command's option table
 * (common/np_bench_opt.h) gives the names a plan may set, their
 * values, defaults, id tags and order.  Checks, in order, each failing
 * with one line "plan.json: /pointer: reason":
 *   1. option names against the table ("unknown udp option \"x\"") - a
 *      generic schema cannot know them;
 *   2. the shipped JSON Schema (schema/plan.schema.json) for the rest of
 *      the structure;
 *   3. every option value through the command's own value parser, with
 *      the command's message ("--io-threads 256: out of range 1..64");
 *   4. after expansion, every configuration's argv through the command's
 *      whole parser and cross-field rules, in-process - so a plan is
 *      refused exactly when its child would be.
 */
#include "np_matrix_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_opt.h"
#include "np_exec_options.h"
#include "np_json.h"
#include "np_matrix_capacity.h"
#include "np_matrix_exec.h"
#include "np_opt.h"
#include "np_rudp_options.h"
#include "np_schema.h"
#include "np_udp_options.h"

/* Per repetition beyond warmup + seconds: process start, drain, kernel
 * snapshots, fsync'd files.  Measured with the quick plan on a shared
 * 2-core VM: 12 runs of 0.75 s took 12.3 s (docs/results-layout.md). */
#define NP_REP_OVERHEAD_S 0.3
/* Per rudp round beyond warmup + seconds: drain (~0.1 s without loss) and
 * orderly close; measured 1.35 s for 2 rounds of 0.2 + 0.3 s. */
#define NP_ROUND_OVERHEAD_S 0.2

/* The benchmark commands a plan's "protocol" may name. */
static const struct np_bench_optset *const np_plan_benches[] = {
    &np_udp_optset, &np_rudp_optset, &np_exec_optset};

/* Everything the checks and the expansion need, passed down. */
struct np_plan_ctx {
  const char *name;                  /* path for messages               */
  struct np_errbuf *eb;
  const cJSON *doc;                  /* the plan document being checked  */
  const struct np_bench_optset *set; /* the protocol's option table      */
  const char *protocol;              /* the plan's protocol (doc-owned)   */
  struct np_matrix_plan *plan;       /* NULL until the checks passed     */
  size_t cap;                        /* allocated configs                */
};

static int plan_err(struct np_plan_ctx *c, int code, const char *ptr,
                    const char *reason) {
  return np_errbuf_set(c->eb, code, "%s: %s: %s", c->name,
                       ptr[0] ? ptr : "(root)", reason);
}

/* ptr + "/" + key as a JSON pointer (RFC 6901: ~ -> ~0, / -> ~1). */
static void ptr_join(char *buf, size_t len, const char *ptr, const char *key) {
  size_t o = (size_t)snprintf(buf, len, "%s/", ptr);
  for (const char *k = key; *k && o + 3 < len; k++) {
    if (*k == '~' || *k == '/') {
      buf[o++] = '~';
      buf[o++] = *k == '~' ? '0' : '1';
    } else {
      buf[o++] = *k;
    }
  }
  buf[o < len ? o : len - 1] = '\0';
}

static void ptr_index(char *buf, size_t len, const char *ptr, int i) {
  size_t o = (size_t)snprintf(buf, len, "%s", ptr);
  if (o < len)
    snprintf(buf + o, len - o, "/%d", i);
}

/* v when it is an array (an object), else NULL: walks skip the rest. */
static const cJSON *array_or_null(const cJSON *v) {
  return cJSON_IsArray(v) ? v : NULL;
}

static const cJSON *object_or_null(const cJSON *v) {
  return cJSON_IsObject(v) ? v : NULL;
}

/* Text of v as it goes on the command line ("1024", "0.25", "uv"). */
static void value_text(const cJSON *v, char *buf, size_t len) {
  if (cJSON_IsString(v)) {
    snprintf(buf, len, "%s", v->valuestring);
  } else if (cJSON_IsNumber(v)) {
    double d = v->valuedouble;
    if (d == floor(d) && fabs(d) < 9007199254740992.0)
      snprintf(buf, len, "%.0f", d);
    else
      snprintf(buf, len, "%.15g", d);
  } else {
    snprintf(buf, len, "?");
  }
}

static const struct np_bench_opt *row(const struct np_plan_ctx *c, int i) {
  return np_bench_opt_at(c->set, (size_t)i, NULL);
}

/* ---- 1. option names (before the schema) -------------------------------- */

static int name_ok(struct np_plan_ctx *c, const char *name, const char *ptr) {
  if (np_matrix_capacity_name(c->doc, c->protocol, name))
    return 0; /* "rate-fraction": the runner's (np_matrix_capacity.c) */
  int i = np_bench_opt_find(c->set, name);
  if (i >= 0 && !(row(c, i)->flags & NP_BENCH_OPT_NOPLAN))
    return 0;
  int exec = np_matrix_exec_is(c->doc);
  if (i < 0 && exec && np_matrix_exec_placeholder(c->doc, name))
    return 0; /* an exec plan's {placeholder} */
  char r[320], hint[96] = "";
  if (i < 0) { /* "did you mean": among the options a plan may set */
    const char *names[NP_BENCH_OPT_MAX];
    size_t n = 0, count = np_bench_opt_count(c->set);
    for (size_t k = 0; k < count && n < NP_BENCH_OPT_MAX; k++)
      if (!(row(c, (int)k)->flags & NP_BENCH_OPT_NOPLAN))
        names[n++] = row(c, (int)k)->name;
    const char *s = np_opt_suggest(name, names, n);
    if (s != NULL)
      snprintf(hint, sizeof hint, "; did you mean \"%s\"?", s);
  }
  snprintf(r, sizeof r, "unknown %s option \"%s\"%s%s", c->protocol, name,
           i >= 0 ? (exec ? " (exec plans give it in \"exec\")"
                          : " (the runner sets it)")
           : exec ? " (nor a {placeholder} of exec.command)"
                  : "", hint);
  return plan_err(c, NP_ESCHEMA, ptr, r);
}

/* Calls f(c, name, value, pointer) for every option of an option map; the
 * structure is the schema's to judge, so anything else is skipped. */
typedef int (*opt_fn)(struct np_plan_ctx *c, const char *name,
                      const cJSON *v, const char *ptr);

static int each_in_map(struct np_plan_ctx *c, const cJSON *obj,
                       const char *ptr, opt_fn f) {
  char p[512];
  const cJSON *it;
  int rc = 0;
  if (!cJSON_IsObject(obj))
    return 0;
  cJSON_ArrayForEach(it, obj) {
    ptr_join(p, sizeof p, ptr, it->string);
    if ((rc = f(c, it->string, it, p)) != 0)
      return rc;
  }
  return 0;
}

/* Every option a plan sets: base, dimension values (a scalar sets the
 * option the dimension is named after), rows, exclusions, matches. */
static int each_option(struct np_plan_ctx *c, const cJSON *d, opt_fn f) {
  char p[512], q[512];
  int rc, k;
  if ((rc = each_in_map(c, cJSON_GetObjectItemCaseSensitive(d, "base"),
                        "/base", f)) != 0)
    return rc;
  const cJSON *dims = cJSON_GetObjectItemCaseSensitive(d, "dimensions"), *dim;
  cJSON_ArrayForEach(dim, object_or_null(dims)) {
    const cJSON *val;
    ptr_join(p, sizeof p, "/dimensions", dim->string);
    k = 0;
    cJSON_ArrayForEach(val, array_or_null(dim)) {
      ptr_index(q, sizeof q, p, k++);
      rc = cJSON_IsObject(val) ? each_in_map(c, val, q, f)
                               : f(c, dim->string, val, q);
      if (rc != 0)
        return rc;
    }
  }
  static const char *const lists[] = {"configurations", "exclude"};
  for (size_t l = 0; l < 2; l++) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d, lists[l]), *it;
    snprintf(p, sizeof p, "/%s", lists[l]);
    k = 0;
    cJSON_ArrayForEach(it, array_or_null(arr)) {
      ptr_index(q, sizeof q, p, k++);
      if ((rc = each_in_map(c, it, q, f)) != 0)
        return rc;
    }
  }
  const cJSON *exps = cJSON_GetObjectItemCaseSensitive(d, "expectations"), *e;
  k = 0;
  cJSON_ArrayForEach(e, array_or_null(exps)) {
    snprintf(q, sizeof q, "/expectations/%d/match", k++);
    if ((rc = each_in_map(c, cJSON_GetObjectItemCaseSensitive(e, "match"), q,
                          f)) != 0)
      return rc;
  }
  return 0;
}

/* A dimension's key names an option only where it holds a scalar; report
 * an unknown one at the dimension itself, like an unknown map key. */
static int name_at(struct np_plan_ctx *c, const char *name, const cJSON *v,
                   const char *ptr) {
  char p[512];
  snprintf(p, sizeof p, "%s", ptr);
  if (v->string == NULL) { /* a scalar of a dimension: /dimensions/K/i */
    char *slash = strrchr(p, '/');
    if (slash != NULL)
      *slash = '\0';
  }
  return name_ok(c, name, p);
}

static int check_names(struct np_plan_ctx *c, const cJSON *d) {
  int rc = each_option(c, d, name_at);
  const cJSON *cmp = cJSON_GetObjectItemCaseSensitive(d, "compare"), *e;
  int k = 0;
  cJSON_ArrayForEach(e, array_or_null(rc == 0 ? cmp : NULL)) {
    char p[64];
    ptr_index(p, sizeof p, "/compare", k++);
    if (cJSON_IsString(e) && (rc = name_ok(c, e->valuestring, p)) != 0)
      break;
  }
  return rc;
}

/* ---- 2. the schema ------------------------------------------------------ */

struct np_first_err {
  char ptr[256];
  char reason[256];
  int seen;
};

static void first_err(void *ctx, const char *pointer, const char *keyword,
                      const char *reason) {
  struct np_first_err *f = ctx;
  if (f->seen++)
    return;
  snprintf(f->ptr, sizeof f->ptr, "%s", pointer);
  snprintf(f->reason, sizeof f->reason, "%s: %s", keyword, reason);
}

static int schema_check(struct np_plan_ctx *c, const cJSON *doc) {
  struct np_schema *s = NULL;
  struct np_errbuf seb;
  int rc = np_schema_builtin("plan", &s, &seb);
  if (rc != 0)
    return np_errbuf_set(c->eb, rc, "%s: the plan schema: %s", c->name,
                         seb.msg);
  struct np_first_err f = {{0}, {0}, 0};
  rc = np_schema_validate(s, doc, first_err, &f);
  np_schema_free(s);
  if (rc == NP_ESCHEMA)
    return plan_err(c, NP_ESCHEMA, f.ptr, f.reason);
  if (rc != 0)
    return np_errbuf_set(c->eb, rc, "%s: schema validation failed", c->name);
  return 0;
}

/* ---- 3. option values, by the command's own value parser ---------------- */

static int value_ok(struct np_plan_ctx *c, const char *name, const cJSON *v,
                    const char *ptr) {
  if (np_matrix_capacity_name(c->doc, c->protocol, name)) {
    char r[300];
    if (np_matrix_capacity_value_ok(v, r, sizeof r))
      return 0;
    return plan_err(c, NP_ESCHEMA, ptr, r);
  }
  int i = np_bench_opt_find(c->set, name);
  if (i < 0)
    return 0; /* an exec placeholder: any string or number (the schema) */
  const struct np_bench_opt *o = row(c, i);
  int numeric = o->type == NP_BENCH_OPT_UINT || o->type == NP_BENCH_OPT_SIZE ||
                o->type == NP_BENCH_OPT_NUM;
  char text[128], r[600];
  if (numeric != cJSON_IsNumber(v)) {
    snprintf(r, sizeof r, "--%s: expected a JSON %s", name,
             numeric ? "number" : "string");
    return plan_err(c, NP_ESCHEMA, ptr, r);
  }
  value_text(v, text, sizeof text);
  struct np_errbuf eb;
  int rc = np_bench_opt_try(c->set, (size_t)i, text, &eb);
  if (rc == 0)
    return 0;
  return plan_err(c, rc == NP_EUSAGE ? NP_ESCHEMA : rc, ptr, eb.msg);
}

/* ---- 4. expansion ------------------------------------------------------- */

/* o's default as a plan value, or NULL without one (caller deletes). */
static cJSON *default_value(const struct np_bench_opt *o) {
  if (o->dflt == NULL)
    return NULL;
  if (o->type == NP_BENCH_OPT_UINT || o->type == NP_BENCH_OPT_SIZE ||
      o->type == NP_BENCH_OPT_NUM)
    return cJSON_CreateNumber(strtod(o->dflt, NULL));
  return cJSON_CreateString(o->dflt);
}

/* Every option in m equals the row's effective value (explicit, else the
 * command's default). */
static int row_matches(struct np_plan_ctx *c, const cJSON *r,
                       const cJSON *m) {
  const cJSON *it;
  cJSON_ArrayForEach(it, m) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, it->string);
    cJSON *tmp = NULL;
    int i = np_bench_opt_find(c->set, it->string);
    if (v == NULL && i >= 0)
      v = tmp = default_value(row(c, i));
    int eq = v != NULL && cJSON_Compare(v, it, 1);
    cJSON_Delete(tmp);
    if (!eq)
      return 0;
  }
  return 1;
}

static void id_append(char *id, size_t len, const struct np_bench_opt *o,
                      const cJSON *v) {
  char t[96];
  value_text(v, t, sizeof t);
  if (o->type == NP_BENCH_OPT_SIZE && cJSON_IsNumber(v) &&
      v->valuedouble >= 1024) {
    double d = v->valuedouble;
    if (fmod(d, 1048576.0) == 0)
      snprintf(t, sizeof t, "%.0fm", d / 1048576.0);
    else if (fmod(d, 1024.0) == 0)
      snprintf(t, sizeof t, "%.0fk", d / 1024.0);
  }
  if (o->type == NP_BENCH_OPT_ADDR)
    snprintf(t, sizeof t, "%s", strchr(v->valuestring, ':') ? "ip6" : "ip4");
  for (char *s = t; *s; s++) {
    if (*s >= 'A' && *s <= 'Z')
      *s = (char)(*s - 'A' + 'a');
    if (strchr("abcdefghijklmnopqrstuvwxyz0123456789.", *s) == NULL)
      *s = '_';
  }
  size_t used = strlen(id);
  snprintf(id + used, len - used, "-%s%s", o->tag ? o->tag : "", t);
}

/* The command's default of a timing option, or fallback without one. */
static double table_default(const struct np_plan_ctx *c, const char *name,
                            double fallback) {
  int i = np_bench_opt_find(c->set, name);
  return i >= 0 && row(c, i)->dflt != NULL ? strtod(row(c, i)->dflt, NULL)
                                           : fallback;
}

/* Options that vary inside a ranking group: the plan's "compare" list, by
 * default the rows the table marks COMPARE (udp: IO model, backend,
 * threads; rudp: the FEC strategy). */
static int in_compare(const cJSON *cmp, const struct np_bench_opt *o) {
  const cJSON *it;
  if (cmp == NULL)
    return (o->flags & NP_BENCH_OPT_COMPARE) != 0;
  cJSON_ArrayForEach(it, cmp) {
    if (strcmp(it->valuestring, o->name) == 0)
      return 1;
  }
  return 0;
}

/* The whole argv through the command's parser, as the child will get it. */
static int config_ok(struct np_plan_ctx *c, const struct np_matrix_config *cf,
                     const char *ptr) {
  char **av = calloc(cf->argc + 2, sizeof *av);
  struct np_errbuf eb;
  if (av == NULL)
    return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
  av[0] = (char *)c->protocol;
  memcpy(av + 1, cf->argv, cf->argc * sizeof *av);
  int rc = np_bench_opt_check(c->set, (int)cf->argc + 1, av, &eb);
  free(av);
  if (rc == 0)
    return 0;
  char r[700];
  snprintf(r, sizeof r, "%s: %s", cf->id, eb.msg);
  return plan_err(c, rc == NP_EUSAGE ? NP_ESCHEMA : rc, ptr, r);
}

/* Add one configuration from row r; own lists which options the row (not
 * the base) set, so only those non-core options appear in the id. */
static int add_config(struct np_plan_ctx *c, const cJSON *r,
                      const cJSON *own, const char *ptr) {
  struct np_matrix_plan *p = c->plan;
  const cJSON *d = p->doc;
  const cJSON *ex;
  size_t nrows = np_bench_opt_count(c->set);
  cJSON_ArrayForEach(ex, cJSON_GetObjectItemCaseSensitive(d, "exclude"))
    if (row_matches(c, r, ex))
      return 0;
  if (p->nconfigs == c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 16;
    void *n = realloc(p->configs, ncap * sizeof *p->configs);
    if (n == NULL)
      return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    p->configs = n;
    c->cap = ncap;
  }
  struct np_matrix_config *cf = &p->configs[p->nconfigs];
  memset(cf, 0, sizeof *cf);
  if ((cf->options = cJSON_CreateObject()) == NULL ||
      (cf->argv = calloc(2 * nrows + 1, sizeof *cf->argv)) == NULL) {
    cJSON_Delete(cf->options);
    return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
  }
  p->nconfigs++; /* from here the plan owns cf and frees it on error */
  snprintf(cf->id, sizeof cf->id, "%s", p->protocol);
  /* udp --connect measures someone else's server, udp --agent a server on
   * another host: their records are of kind udp-external
   * (config.protocol), and so is their id's first word */
  if (strcmp(p->protocol, "udp") == 0 &&
      (cJSON_HasObjectItem(r, "connect") || cJSON_HasObjectItem(r, "agent")))
    snprintf(cf->id, sizeof cf->id, "udp-external");
  /* and udp --mode stream's are of kind udp-stream */
  const cJSON *mode = cJSON_GetObjectItemCaseSensitive(r, "mode");
  if (strcmp(p->protocol, "udp") == 0 && cJSON_IsString(mode) &&
      strcmp(mode->valuestring, "stream") == 0)
    snprintf(cf->id, sizeof cf->id, "udp-stream");
  const cJSON *cmp = cJSON_GetObjectItemCaseSensitive(d, "compare");
  double warm = table_default(c, "warmup", 0);
  double secs = table_default(c, "seconds", 1);
  double rounds = table_default(c, "rounds", 1);
  for (size_t i = 0; i < nrows; i++) {
    const struct np_bench_opt *o = row(c, (int)i);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, o->name);
    cJSON *dv = NULL;
    if (v == NULL && (o->flags & NP_BENCH_OPT_CORE))
      v = dv = default_value(o);
    if (v == NULL)
      continue;
    char text[96], arg[128];
    value_text(v, text, sizeof text);
    cJSON *copy = cJSON_Duplicate(v, 1);
    snprintf(arg, sizeof arg, "--%s", o->name);
    cf->argv[cf->argc] = strdup(arg);
    cf->argv[cf->argc + 1] = strdup(text);
    cJSON_Delete(dv);
    if (copy == NULL || !cJSON_AddItemToObject(cf->options, o->name, copy) ||
        cf->argv[cf->argc] == NULL || cf->argv[cf->argc + 1] == NULL) {
      cf->argc += 2;
      return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    }
    cf->argc += 2;
    if ((o->flags & NP_BENCH_OPT_CORE) || cJSON_HasObjectItem(own, o->name))
      id_append(cf->id, sizeof cf->id, o, copy);
    if (!in_compare(cmp, o)) {
      size_t used = strlen(cf->group);
      snprintf(cf->group + used, sizeof cf->group - used, "%s%s=%s",
               used ? " " : "", o->name, text);
    }
    if (strcmp(o->name, "warmup") == 0)
      warm = copy->valuedouble;
    if (strcmp(o->name, "seconds") == 0)
      secs = copy->valuedouble;
    if (strcmp(o->name, "rounds") == 0)
      rounds = copy->valuedouble;
  }
  /* a command with rounds repeats warm-up + measurement per round, each
   * with a drain and an orderly close (NP_ROUND_OVERHEAD_S); udp has one
   * "round" and none */
  int rc = np_matrix_capacity_config(r, cf, c->eb);
  if (rc != 0)
    return rc;
  int has_rounds = np_bench_opt_find(c->set, "rounds") >= 0;
  double per_round = warm + secs + (rounds > 1 || has_rounds
                                        ? NP_ROUND_OVERHEAD_S : 0);
  cf->est_seconds = rounds * per_round + NP_REP_OVERHEAD_S;
  cf->timeout_seconds = p->timeout_seconds > 0 ? p->timeout_seconds
                                               : 2 * rounds * per_round + 15;
  rc = np_matrix_exec_is(d) ? np_matrix_exec_config(d, c->name, r, cf,
                                                    p->timeout_seconds, c->eb)
                            : 0;
  if (rc != 0)
    return rc;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "expectations")) {
    if (row_matches(c, cf->options,
                    cJSON_GetObjectItemCaseSensitive(e, "match"))) {
      cf->expect_fail =
          strcmp(np_json_get_string(e, "expect", ""), "fail") == 0;
      cf->expect_reason = np_json_get_string(e, "reason", NULL);
      break;
    }
  }
  for (size_t i = 0; i + 1 < p->nconfigs; i++) {
    if (strcmp(p->configs[i].id, cf->id) == 0) {
      char msg[300];
      snprintf(msg, sizeof msg, "duplicate configuration id %s", cf->id);
      return plan_err(c, NP_ESCHEMA, ptr, msg);
    }
  }
  if ((rc = config_ok(c, cf, ptr)) != 0)
    return rc;
  return np_matrix_capacity_placeholder(cf, c->eb);
}

/* Merge src's options (a bundle, a scalar under key, or a row) into r and
 * own. */
static int merge_into(cJSON *r, cJSON *own, const cJSON *src,
                      const char *key) {
  if (cJSON_IsObject(src)) {
    const cJSON *it;
    cJSON_ArrayForEach(it, src) {
      if (merge_into(r, own, it, it->string) != 0)
        return -1;
    }
    return 0;
  }
  cJSON *a = cJSON_Duplicate(src, 1), *b = cJSON_Duplicate(src, 1);
  if (a == NULL || b == NULL) {
    cJSON_Delete(a);
    cJSON_Delete(b);
    return -1;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(r, key);
  cJSON_DeleteItemFromObjectCaseSensitive(own, key);
  cJSON_AddItemToObject(r, key, a);
  cJSON_AddItemToObject(own, key, b);
  return 0;
}

static int expand(struct np_plan_ctx *c) {
  const cJSON *d = c->plan->doc;
  const cJSON *base = cJSON_GetObjectItemCaseSensitive(d, "base");
  const cJSON *dims = cJSON_GetObjectItemCaseSensitive(d, "dimensions");
  int ndims = dims ? cJSON_GetArraySize(dims) : 0;
  int rc = 0;
  int *idx = calloc((size_t)ndims + 1, sizeof *idx);
  if (idx == NULL)
    return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
  for (int done = (dims == NULL); !done && rc == 0;) {
    cJSON *r = base ? cJSON_Duplicate(base, 1) : cJSON_CreateObject();
    cJSON *own = cJSON_CreateObject();
    int k = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, dims) {
      if (r != NULL && own != NULL &&
          merge_into(r, own, cJSON_GetArrayItem(dim, idx[k]), dim->string))
        rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
      k++;
    }
    if (r == NULL || own == NULL)
      rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    if (rc == 0)
      rc = add_config(c, r, own, "/dimensions");
    cJSON_Delete(r);
    cJSON_Delete(own);
    /* advance the mixed-radix counter, last dimension fastest */
    k = ndims - 1;
    for (; k >= 0; k--) {
      if (++idx[k] < cJSON_GetArraySize(cJSON_GetArrayItem(dims, k)))
        break;
      idx[k] = 0;
    }
    done = k < 0;
  }
  free(idx);
  int n = 0;
  const cJSON *it;
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(d, "configurations");
  cJSON_ArrayForEach(it, rows) {
    char ptr[64];
    ptr_index(ptr, sizeof ptr, "/configurations", n++);
    if (rc != 0)
      break;
    cJSON *r = base ? cJSON_Duplicate(base, 1) : cJSON_CreateObject();
    cJSON *own = cJSON_CreateObject();
    if (r == NULL || own == NULL || merge_into(r, own, it, NULL) != 0)
      rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    else
      rc = add_config(c, r, own, ptr);
    cJSON_Delete(r);
    cJSON_Delete(own);
  }
  if (rc == 0 && c->plan->nconfigs == 0)
    rc = plan_err(c, NP_ESCHEMA, "",
                  "empty product: no configuration left to run");
  return rc;
}

/* ---- the plan ----------------------------------------------------------- */

/* "capacity": the configuration its "match" selects (the first without a
 * rate fraction), which must come before every rate-fraction one. */
static int capacity_ref(struct np_plan_ctx *c) {
  struct np_matrix_plan *p = c->plan;
  const cJSON *cap = cJSON_GetObjectItemCaseSensitive(p->doc, "capacity");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(cap, "match");
  p->capacity_ref = -1;
  if (cap == NULL)
    return 0;
  if (p->until_stable) /* fractions must see the capacity's every run */
    return plan_err(c, NP_ESCHEMA, "/capacity",
                    "not with until_stable (its rounds would run a "
                    "fraction before the capacity's repetitions are done)");
  for (size_t i = 0; i < p->nconfigs; i++) {
    const struct np_matrix_config *cf = &p->configs[i];
    if (cf->rate_fraction > 0) {
      if (p->capacity_ref < 0)
        return plan_err(c, NP_ESCHEMA, "/capacity/match",
                        "no configuration before the first rate-fraction "
                        "one matches it (the capacity is measured first)");
      continue;
    }
    if (p->capacity_ref < 0 && row_matches(c, cf->options, m))
      p->capacity_ref = (long)i;
  }
  if (p->capacity_ref < 0)
    return plan_err(c, NP_ESCHEMA, "/capacity/match",
                    "matches no configuration");
  return 0;
}

/* "until_stable" (the schema checked its fields): repetitions becomes its
 * maximum; the target is about round trips/s, which exec plans lack. */
static int until_stable(struct np_plan_ctx *c) {
  struct np_matrix_plan *p = c->plan;
  const cJSON *us = cJSON_GetObjectItemCaseSensitive(p->doc, "until_stable");
  if (us == NULL)
    return 0;
  if (np_matrix_exec_is(p->doc))
    return plan_err(c, NP_ESCHEMA, "/until_stable",
                    "an exec plan has no round trips/s to make stable (the "
                    "target is the interval of their median)");
  p->until_stable = 1;
  p->stable_ci_percent = np_json_get_number(us, "ci_percent", 0);
  p->min_repetitions = (int)np_json_get_number(us, "min_repetitions", 5);
  p->repetitions = (int)np_json_get_number(us, "max_repetitions", 5);
  if (p->repetitions < p->min_repetitions) {
    char r[160];
    snprintf(r, sizeof r, "%d, below min_repetitions %d", p->repetitions,
             p->min_repetitions);
    return plan_err(c, NP_ESCHEMA, "/until_stable/max_repetitions", r);
  }
  return 0;
}

int np_matrix_plan_from_json(const cJSON *doc, const char *name,
                             struct np_matrix_plan **out,
                             struct np_errbuf *eb) {
  struct np_plan_ctx c = {name, eb, doc, NULL, "", NULL, 0};
  int rc;
  const cJSON *proto = cJSON_GetObjectItemCaseSensitive(doc, "protocol");
  if (cJSON_IsString(proto)) {
    c.protocol = proto->valuestring;
    for (size_t i = 0; i < sizeof np_plan_benches / sizeof np_plan_benches[0];
         i++)
      if (strcmp(np_plan_benches[i]->command, c.protocol) == 0)
        c.set = np_plan_benches[i];
  }
  /* option names first (the table knows them, a generic schema cannot),
   * then the schema, then the values through the command's parser */
  if (c.set != NULL && cJSON_IsObject(doc) &&
      (rc = check_names(&c, doc)) != 0)
    return rc;
  if ((rc = schema_check(&c, doc)) != 0)
    return rc;
  if (c.set == NULL) {
    char r[128];
    snprintf(r, sizeof r, "protocol \"%s\" has no runner in this build",
             c.protocol);
    return plan_err(&c, NP_EUNSUPPORTED, "/protocol", r);
  }
  if ((rc = each_option(&c, doc, value_ok)) != 0)
    return rc;
  struct np_matrix_plan *p = calloc(1, sizeof *p);
  if (p == NULL || (p->doc = cJSON_Duplicate(doc, 1)) == NULL) {
    free(p);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  c.plan = p;
  p->bench = c.set;
  p->suite = np_json_get_string(p->doc, "suite", "");
  p->protocol = np_json_get_string(p->doc, "protocol", "");
  c.protocol = p->protocol;
  p->repetitions = (int)np_json_get_number(p->doc, "repetitions", 3);
  p->timeout_seconds = np_json_get_number(p->doc, "timeout_seconds", 0);
  if ((rc = until_stable(&c)) != 0)
    goto fail_plan;
  if ((rc = expand(&c)) != 0 || (rc = capacity_ref(&c)) != 0)
    goto fail_plan;
  char *compact = cJSON_PrintUnformatted(p->doc);
  if (compact == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto fail_plan;
  }
  rc = np_sha256_buf(compact, strlen(compact), p->hash);
  free(compact);
  if (rc != 0) {
    np_errbuf_set(eb, rc, "%s: cannot hash the plan", name);
    goto fail_plan;
  }
  *out = p;
  return 0;
fail_plan:
  np_matrix_plan_free(p);
  return rc;
}

int np_matrix_plan_load(const char *path, struct np_matrix_plan **out,
                        struct np_errbuf *eb) {
  cJSON *doc = NULL;
  int rc = np_json_load_file(path, NULL, &doc, eb);
  if (rc != 0)
    return rc;
  rc = np_matrix_plan_from_json(doc, path, out, eb);
  cJSON_Delete(doc);
  return rc;
}

void np_matrix_plan_free(struct np_matrix_plan *p) {
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->nconfigs; i++) {
    cJSON_Delete(p->configs[i].options);
    for (size_t a = 0; p->configs[i].argv && a < p->configs[i].argc; a++)
      free(p->configs[i].argv[a]);
    free(p->configs[i].argv);
    for (size_t a = 0; p->configs[i].tail && a < p->configs[i].ntail; a++)
      free(p->configs[i].tail[a]);
    free(p->configs[i].tail);
  }
  free(p->configs);
  cJSON_Delete(p->doc);
  free(p);
}

const struct np_matrix_config *
np_matrix_plan_find(const struct np_matrix_plan *p, const char *id) {
  for (size_t i = 0; i < p->nconfigs; i++)
    if (strcmp(p->configs[i].id, id) == 0)
      return &p->configs[i];
  return NULL;
}
