/*
 * np_matrix_plan.c - load a suite plan, check it and expand it into
 * configurations (see np_matrix_plan.h for the model).
 *
 * Checking happens in two layers: structural checks against the
 * protocol's option table, which knows each option's type and range and so
 * catches what a generic schema cannot (an option name that does not exist
 * for the protocol), then the shipped JSON Schema (when the schema library
 * is linked) for everything else.  Either way the
 * first problem comes back as one line "plan.json: /pointer: reason".
 */
#include "np_matrix_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_matrix_options.h"
#include "np_schema.h"

#define NP_PLAN_TAG "netproof/plan/1"
/* Per repetition beyond warmup + seconds: process start, drain, kernel
 * snapshots, fsync'd files.  Measured with the quick plan on a shared
 * 2-core VM: 12 runs of 0.75 s took 12.3 s (docs/results-layout.md). */
#define NP_REP_OVERHEAD_S 0.3
/* Per rudp round beyond warmup + seconds: drain (~0.1 s without loss) and
 * orderly close; measured 1.35 s for 2 rounds of 0.2 + 0.3 s. */
#define NP_ROUND_OVERHEAD_S 0.2

/* Everything the expansion needs, passed down instead of globals. */
struct np_plan_ctx {
  const char *name;                     /* path for messages            */
  struct np_errbuf *eb;
  const struct np_matrix_option *tab;   /* protocol's option table      */
  size_t ntab;
  struct np_matrix_plan *plan;
  size_t cap;                           /* allocated configs            */
};

static int plan_err(struct np_plan_ctx *c, int code, const char *ptr,
                    const char *reason) {
  return np_errbuf_set(c->eb, code, "%s: %s: %s", c->name, ptr, reason);
}

/* ---- structural checks (mirror schema/plan.schema.json) ---------------- */

static int check_known_keys(struct np_plan_ctx *c, const cJSON *obj,
                            const char *ptr, const char *const *keys) {
  const cJSON *it;
  cJSON_ArrayForEach(it, obj) {
    int ok = 0;
    for (size_t i = 0; keys[i] != NULL; i++)
      ok |= strcmp(keys[i], it->string) == 0;
    if (!ok) {
      char p[256], r[256];
      snprintf(p, sizeof p, "%s/%s", ptr, it->string);
      snprintf(r, sizeof r, "unknown field \"%s\"", it->string);
      return plan_err(c, NP_ESCHEMA, p, r);
    }
  }
  return 0;
}

/* Check one option map (base, a dimension bundle, a row, a match). */
static int check_option_map(struct np_plan_ctx *c, const cJSON *obj,
                            const char *ptr) {
  char p[256], why[160], r[320];
  if (!cJSON_IsObject(obj))
    return plan_err(c, NP_ESCHEMA, ptr, "expected an object of options");
  const cJSON *it;
  cJSON_ArrayForEach(it, obj) {
    snprintf(p, sizeof p, "%s/%s", ptr, it->string);
    int i = np_matrix_option_index(c->tab, c->ntab, it->string);
    if (i < 0) {
      snprintf(r, sizeof r, "unknown %s option \"%s\"%s", c->plan->protocol,
               it->string,
               strcmp(it->string, "output") == 0 ? " (the runner sets it)"
                                                 : "");
      return plan_err(c, NP_ESCHEMA, p, r);
    }
    if (np_matrix_option_check(&c->tab[i], it, why, sizeof why) != 0) {
      snprintf(r, sizeof r, "--%s: %s", it->string, why);
      return plan_err(c, NP_ESCHEMA, p, r);
    }
  }
  return 0;
}

static int check_top(struct np_plan_ctx *c, const cJSON *d) {
  static const char *const keys[] = {
      "$schema", "schema", "suite", "description", "protocol", "repetitions",
      "timeout_seconds", "base", "dimensions", "configurations", "exclude",
      "expectations", "compare", NULL};
  if (!cJSON_IsObject(d))
    return plan_err(c, NP_ESCHEMA, "", "expected a JSON object");
  int rc = check_known_keys(c, d, "", keys);
  if (rc)
    return rc;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, "schema");
  if (!cJSON_IsString(v) || strcmp(v->valuestring, NP_PLAN_TAG) != 0)
    return plan_err(c, NP_ESCHEMA, "/schema", "expected \"" NP_PLAN_TAG "\"");
  v = cJSON_GetObjectItemCaseSensitive(d, "suite");
  if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
      strspn(v->valuestring, "abcdefghijklmnopqrstuvwxyz0123456789-_.") !=
          strlen(v->valuestring) || v->valuestring[0] == '.' ||
      strlen(v->valuestring) > 64)
    return plan_err(c, NP_ESCHEMA, "/suite",
                    "expected a name of 1-64 characters [a-z0-9._-]");
  v = cJSON_GetObjectItemCaseSensitive(d, "description");
  if (v != NULL && !cJSON_IsString(v))
    return plan_err(c, NP_ESCHEMA, "/description", "expected a string");
  v = cJSON_GetObjectItemCaseSensitive(d, "protocol");
  if (!cJSON_IsString(v) || (strcmp(v->valuestring, "udp") != 0 &&
                             strcmp(v->valuestring, "rudp") != 0))
    return plan_err(c, NP_ESCHEMA, "/protocol", "expected \"udp\" or \"rudp\"");
  v = cJSON_GetObjectItemCaseSensitive(d, "repetitions");
  if (v != NULL && (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
                    v->valuedouble > 1000 ||
                    v->valuedouble != floor(v->valuedouble)))
    return plan_err(c, NP_ESCHEMA, "/repetitions",
                    "expected an integer in 1..1000");
  v = cJSON_GetObjectItemCaseSensitive(d, "timeout_seconds");
  if (v != NULL && (!cJSON_IsNumber(v) || !(v->valuedouble > 0) ||
                    v->valuedouble > 86400))
    return plan_err(c, NP_ESCHEMA, "/timeout_seconds",
                    "expected a number in (0, 86400]");
  if (!cJSON_HasObjectItem(d, "dimensions") &&
      !cJSON_HasObjectItem(d, "configurations"))
    return plan_err(c, NP_ESCHEMA, "",
                    "needs \"dimensions\" or \"configurations\"");
  return 0;
}

static int check_lists(struct np_plan_ctx *c, const cJSON *d) {
  char p[256];
  int rc = 0;
  const cJSON *base = cJSON_GetObjectItemCaseSensitive(d, "base");
  if (base != NULL && (rc = check_option_map(c, base, "/base")) != 0)
    return rc;
  const cJSON *dims = cJSON_GetObjectItemCaseSensitive(d, "dimensions");
  if (dims != NULL && !cJSON_IsObject(dims))
    return plan_err(c, NP_ESCHEMA, "/dimensions", "expected an object");
  const cJSON *dim;
  cJSON_ArrayForEach(dim, dims) {
    snprintf(p, sizeof p, "/dimensions/%s", dim->string);
    if (!cJSON_IsArray(dim))
      return plan_err(c, NP_ESCHEMA, p, "expected a list of values");
    if (cJSON_GetArraySize(dim) == 0)
      return plan_err(c, NP_ESCHEMA, p,
                      "empty list: the product has no configurations");
    int k = 0;
    const cJSON *val;
    cJSON_ArrayForEach(val, dim) {
      char vp[300];
      snprintf(vp, sizeof vp, "%s/%d", p, k++);
      if (cJSON_IsObject(val)) {
        if (cJSON_GetArraySize(val) == 0)
          return plan_err(c, NP_ESCHEMA, vp, "empty option bundle");
        if ((rc = check_option_map(c, val, vp)) != 0)
          return rc;
      } else {
        int oi = np_matrix_option_index(c->tab, c->ntab, dim->string);
        char why[160], r[320];
        if (oi < 0) {
          snprintf(r, sizeof r, "unknown %s option \"%s\"", c->plan->protocol,
                   dim->string);
          return plan_err(c, NP_ESCHEMA, p, r);
        }
        if (np_matrix_option_check(&c->tab[oi], val, why, sizeof why) != 0) {
          snprintf(r, sizeof r, "--%s: %s", dim->string, why);
          return plan_err(c, NP_ESCHEMA, vp, r);
        }
      }
    }
  }
  static const char *const lists[] = {"configurations", "exclude", NULL};
  for (size_t l = 0; lists[l] != NULL; l++) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d, lists[l]);
    if (arr == NULL)
      continue;
    snprintf(p, sizeof p, "/%s", lists[l]);
    if (!cJSON_IsArray(arr))
      return plan_err(c, NP_ESCHEMA, p, "expected a list of option objects");
    int k = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, arr) {
      snprintf(p, sizeof p, "/%s/%d", lists[l], k++);
      if ((rc = check_option_map(c, row, p)) != 0)
        return rc;
    }
  }
  const cJSON *exps = cJSON_GetObjectItemCaseSensitive(d, "expectations");
  if (exps != NULL && !cJSON_IsArray(exps))
    return plan_err(c, NP_ESCHEMA, "/expectations", "expected a list");
  int k = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, exps) {
    static const char *const ekeys[] = {"match", "expect", "reason", NULL};
    snprintf(p, sizeof p, "/expectations/%d", k++);
    if (!cJSON_IsObject(e))
      return plan_err(c, NP_ESCHEMA, p, "expected an object");
    if ((rc = check_known_keys(c, e, p, ekeys)) != 0)
      return rc;
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(e, "expect");
    char ep[300];
    snprintf(ep, sizeof ep, "%s/expect", p);
    if (!cJSON_IsString(ex) || (strcmp(ex->valuestring, "fail") != 0 &&
                                strcmp(ex->valuestring, "pass") != 0))
      return plan_err(c, NP_ESCHEMA, ep, "expected \"fail\" or \"pass\"");
    snprintf(ep, sizeof ep, "%s/reason", p);
    const cJSON *re = cJSON_GetObjectItemCaseSensitive(e, "reason");
    if (re != NULL && !cJSON_IsString(re))
      return plan_err(c, NP_ESCHEMA, ep, "expected a string");
    snprintf(ep, sizeof ep, "%s/match", p);
    if ((rc = check_option_map(c, cJSON_GetObjectItemCaseSensitive(e, "match"),
                               ep)) != 0)
      return rc;
  }
  const cJSON *cmp = cJSON_GetObjectItemCaseSensitive(d, "compare");
  if (cmp != NULL && !cJSON_IsArray(cmp))
    return plan_err(c, NP_ESCHEMA, "/compare", "expected a list of options");
  k = 0;
  cJSON_ArrayForEach(e, cmp) {
    snprintf(p, sizeof p, "/compare/%d", k++);
    if (!cJSON_IsString(e) ||
        np_matrix_option_index(c->tab, c->ntab, e->valuestring) < 0)
      return plan_err(c, NP_ESCHEMA, p, "expected a known option name");
  }
  return 0;
}

/* ---- expansion ---------------------------------------------------------- */

/* Effective value of option i in row (explicit value, else its default). */
static const cJSON *row_value(const cJSON *row, const struct np_matrix_option *o,
                              cJSON **tmp) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, o->name);
  if (v != NULL || o->dflt == NULL)
    return v;
  *tmp = o->type == NP_MATRIX_OPT_STR ? cJSON_CreateString(o->dflt)
                                      : cJSON_CreateNumber(atof(o->dflt));
  return *tmp;
}

/* Every option in m equals the row's effective value. */
static int row_matches(struct np_plan_ctx *c, const cJSON *row,
                       const cJSON *m) {
  const cJSON *it;
  cJSON_ArrayForEach(it, m) {
    int i = np_matrix_option_index(c->tab, c->ntab, it->string);
    cJSON *tmp = NULL;
    const cJSON *v = row_value(row, &c->tab[i], &tmp);
    int eq = v != NULL && cJSON_Compare(v, it, 1);
    cJSON_Delete(tmp);
    if (!eq)
      return 0;
  }
  return 1;
}

static void id_append(char *id, size_t len, const struct np_matrix_option *o,
                      const cJSON *v) {
  char t[96];
  np_matrix_option_text(v, t, sizeof t);
  if (o->size_units && cJSON_IsNumber(v) && v->valuedouble >= 1024) {
    double d = v->valuedouble;
    if (fmod(d, 1048576.0) == 0)
      snprintf(t, sizeof t, "%.0fm", d / 1048576.0);
    else if (fmod(d, 1024.0) == 0)
      snprintf(t, sizeof t, "%.0fk", d / 1024.0);
  }
  if (strcmp(o->name, "address") == 0)
    snprintf(t, sizeof t, "%s", strchr(v->valuestring, ':') ? "ip6" : "ip4");
  for (char *s = t; *s; s++) {
    if (*s >= 'A' && *s <= 'Z')
      *s = (char)(*s - 'A' + 'a');
    if (strchr("abcdefghijklmnopqrstuvwxyz0123456789.", *s) == NULL)
      *s = '_';
  }
  size_t used = strlen(id);
  snprintf(id + used, len - used, "-%s%s", o->tag, t);
}

/* The protocol's default of a timing option (udp: warmup 0.25, seconds 1;
 * rudp: warmup 2, seconds 3, rounds 3), or fallback without one. */
static double table_default(const struct np_plan_ctx *c, const char *name,
                            double fallback) {
  int i = np_matrix_option_index(c->tab, c->ntab, name);
  return i >= 0 && c->tab[i].dflt != NULL ? atof(c->tab[i].dflt) : fallback;
}

/* Options that vary inside a ranking group: the plan's "compare" list, by
 * default the IO model (udp) or the FEC strategy (rudp). */
static int in_compare(const cJSON *cmp, const char *protocol,
                      const char *name) {
  if (cmp == NULL && strcmp(protocol, "rudp") == 0)
    return strcmp(name, "fec") == 0;
  if (cmp == NULL)
    return strcmp(name, "io-model") == 0 || strcmp(name, "backend") == 0 ||
           strcmp(name, "io-threads") == 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cmp) if (strcmp(it->valuestring, name) == 0) return 1;
  return 0;
}

/* Add one configuration from row; own lists which options the row (not the
 * base) set, so only those non-core options appear in the id. */
static int add_config(struct np_plan_ctx *c, const cJSON *row,
                      const cJSON *own, const char *ptr) {
  struct np_matrix_plan *p = c->plan;
  const cJSON *d = p->doc;
  const cJSON *ex;
  cJSON_ArrayForEach(ex, cJSON_GetObjectItemCaseSensitive(d, "exclude"))
    if (row_matches(c, row, ex))
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
      (cf->argv = calloc(2 * c->ntab + 1, sizeof *cf->argv)) == NULL) {
    cJSON_Delete(cf->options);
    return np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
  }
  p->nconfigs++; /* from here the plan owns cf and frees it on error */
  snprintf(cf->id, sizeof cf->id, "%s", p->protocol);
  const cJSON *cmp = cJSON_GetObjectItemCaseSensitive(d, "compare");
  double warm = table_default(c, "warmup", 0), secs = table_default(c, "seconds", 1);
  double rounds = table_default(c, "rounds", 1);
  for (size_t i = 0; i < c->ntab; i++) {
    const struct np_matrix_option *o = &c->tab[i];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, o->name);
    cJSON *dv = NULL;
    if (v == NULL && o->core)
      v = dv = o->type == NP_MATRIX_OPT_STR ? cJSON_CreateString(o->dflt)
                                            : cJSON_CreateNumber(atof(o->dflt));
    if (v == NULL)
      continue;
    char text[96], arg[128];
    np_matrix_option_text(v, text, sizeof text);
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
    if (o->core || cJSON_HasObjectItem(own, o->name))
      id_append(cf->id, sizeof cf->id, o, copy);
    if (!in_compare(cmp, p->protocol, o->name)) {
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
  /* rudp repeats warm-up + measurement per round, each with a drain and an
   * orderly close (NP_ROUND_OVERHEAD_S); udp has one "round" and none */
  double per_round = warm + secs + (rounds > 1 || strcmp(p->protocol, "rudp") == 0
                                        ? NP_ROUND_OVERHEAD_S : 0);
  cf->est_seconds = rounds * per_round + NP_REP_OVERHEAD_S;
  cf->timeout_seconds = p->timeout_seconds > 0 ? p->timeout_seconds
                                               : 2 * rounds * per_round + 15;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "expectations")) {
    if (row_matches(c, cf->options,
                    cJSON_GetObjectItemCaseSensitive(e, "match"))) {
      cf->expect_fail = strcmp(np_json_get_string(e, "expect", ""), "fail") == 0;
      cf->expect_reason = np_json_get_string(e, "reason", NULL);
      break;
    }
  }
  for (size_t i = 0; i + 1 < p->nconfigs; i++) {
    if (strcmp(p->configs[i].id, cf->id) == 0) {
      char r[300];
      snprintf(r, sizeof r, "duplicate configuration id %s", cf->id);
      return plan_err(c, NP_ESCHEMA, ptr, r);
    }
  }
  return 0;
}

/* Merge base, then src's options (a bundle, a scalar under key, or a row)
 * into row and own. */
static int merge_into(cJSON *row, cJSON *own, const cJSON *src,
                      const char *key) {
  if (cJSON_IsObject(src)) {
    const cJSON *it;
    cJSON_ArrayForEach(it, src) {
      if (merge_into(row, own, it, it->string) != 0)
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
  cJSON_DeleteItemFromObjectCaseSensitive(row, key);
  cJSON_DeleteItemFromObjectCaseSensitive(own, key);
  cJSON_AddItemToObject(row, key, a);
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
    cJSON *row = base ? cJSON_Duplicate(base, 1) : cJSON_CreateObject();
    cJSON *own = cJSON_CreateObject();
    int k = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, dims) {
      if (row != NULL && own != NULL &&
          merge_into(row, own, cJSON_GetArrayItem(dim, idx[k]), dim->string))
        rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
      k++;
    }
    if (row == NULL || own == NULL)
      rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    if (rc == 0)
      rc = add_config(c, row, own, "/dimensions");
    cJSON_Delete(row);
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
  int r = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(d, "configurations")) {
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/configurations/%d", r++);
    if (rc != 0)
      break;
    cJSON *row = base ? cJSON_Duplicate(base, 1) : cJSON_CreateObject();
    cJSON *own = cJSON_CreateObject();
    if (row == NULL || own == NULL || merge_into(row, own, it, NULL) != 0)
      rc = np_errbuf_set(c->eb, NP_ENOMEM, "out of memory");
    else
      rc = add_config(c, row, own, ptr);
    cJSON_Delete(row);
    cJSON_Delete(own);
  }
  if (rc == 0 && c->plan->nconfigs == 0)
    rc = plan_err(c, NP_ESCHEMA, "",
                  "empty product: no configuration left to run");
  return rc;
}

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
  if (np_schema_builtin("plan", &s, &seb) != 0)
    return 0; /* not embedded yet: the structural checks still apply */
  struct np_first_err f = {{0}, {0}, 0};
  int rc = np_schema_validate(s, doc, first_err, &f);
  np_schema_free(s);
  if (rc == NP_ESCHEMA)
    return plan_err(c, NP_ESCHEMA, f.ptr[0] ? f.ptr : "(root)", f.reason);
  return 0;
}

int np_matrix_plan_from_json(const cJSON *doc, const char *name,
                             struct np_matrix_plan **out,
                             struct np_errbuf *eb) {
  struct np_plan_ctx c = {name, eb, NULL, 0, NULL, 0};
  int rc = check_top(&c, doc);
  if (rc != 0)
    return rc;
  struct np_matrix_plan *p = calloc(1, sizeof *p);
  if (p == NULL || (p->doc = cJSON_Duplicate(doc, 1)) == NULL) {
    free(p);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  c.plan = p;
  p->suite = np_json_get_string(p->doc, "suite", "");
  p->protocol = np_json_get_string(p->doc, "protocol", "");
  p->repetitions = (int)np_json_get_number(p->doc, "repetitions", 3);
  p->timeout_seconds = np_json_get_number(p->doc, "timeout_seconds", 0);
  c.tab = np_matrix_options_for(p->protocol, &c.ntab);
  if (c.tab == NULL) {
    char r[128];
    snprintf(r, sizeof r, "protocol \"%s\" has no runner in this build",
             p->protocol);
    rc = plan_err(&c, NP_EUNSUPPORTED, "/protocol", r);
    goto fail_plan;
  }
  /* the option table first (it names the option and the allowed values),
   * then the schema for anything the table does not cover */
  if ((rc = check_lists(&c, p->doc)) != 0)
    goto fail_plan;
  if ((rc = schema_check(&c, p->doc)) != 0)
    goto fail_plan;
  if ((rc = expand(&c)) != 0)
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
