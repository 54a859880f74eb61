/*
 * np_matrix_exec.c - exec plans: placeholders, the quoting rules, the
 * exec options of each configuration and the metric statistics of
 * summary.json (see np_matrix_exec.h).  Kept apart from the udp/rudp
 * expansion in np_matrix_plan.c, which calls in here for exec plans only.
 */
#include "np_matrix_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"

/* What a row's value may hold inside a `sh -c` script. */
#define NP_SHELL_SAFE                                                        \
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._,:+=@%/-"

static const cJSON *exec_obj(const cJSON *doc) {
  return cJSON_GetObjectItemCaseSensitive(doc, "exec");
}

int np_matrix_exec_is(const cJSON *doc) {
  return strcmp(np_json_get_string(doc, "protocol", ""), "exec") == 0;
}

/* Calls f for every {name} of s (skipping {{ and }}); stops at f != 0. */
static int each_placeholder(const char *s,
                            int (*f)(void *arg, const char *name, size_t n),
                            void *arg) {
  for (const char *p = s; *p; p++) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      p++;
      continue;
    }
    if (*p != '{')
      continue;
    const char *end = strchr(p + 1, '}');
    if (end == NULL)
      return 0;
    int rc = f(arg, p + 1, (size_t)(end - p - 1));
    if (rc != 0)
      return rc;
    p = end;
  }
  return 0;
}

struct find_arg {
  const char *name; /* the placeholder looked for */
};

static int find_one(void *arg, const char *name, size_t n) {
  const struct find_arg *a = arg;
  return strlen(a->name) == n && strncmp(a->name, name, n) == 0;
}

int np_matrix_exec_placeholder(const cJSON *doc, const char *name) {
  const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(exec_obj(doc), "command");
  const cJSON *e;
  struct find_arg a = {name};
  if (!cJSON_IsArray(cmd))
    return 0;
  cJSON_ArrayForEach(e, cmd) {
    if (cJSON_IsString(e) && each_placeholder(e->valuestring, find_one, &a))
      return 1;
  }
  return 0;
}

/* A plan value as it goes on a command line ("1024", "0.5", "10M"). */
static void value_text(const cJSON *v, char *buf, size_t len) {
  if (cJSON_IsString(v))
    snprintf(buf, len, "%s", v->valuestring);
  else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 9007199254740992.0)
    snprintf(buf, len, "%.0f", v->valuedouble);
  else if (cJSON_IsNumber(v))
    snprintf(buf, len, "%.15g", v->valuedouble);
  else
    snprintf(buf, len, "?");
}

/* Interpreters whose arguments can be program text, and the options that
 * take it.  A shell's option may be combined (-ec, -lc); the others take
 * the text as the next argument or attached (-c'print(1)'). */
static const struct {
  const char *name;      /* basename, or its prefix for "python3.11" etc. */
  int prefix;            /* name may be followed by a version             */
  int shell;             /* -[a-z]*c[a-z]* takes the script               */
  const char *flags[4];  /* otherwise: these options take program text    */
} interpreters[] = {
    {"sh", 0, 1, {NULL}},      {"bash", 0, 1, {NULL}},
    {"dash", 0, 1, {NULL}},    {"ksh", 0, 1, {NULL}},
    {"mksh", 0, 1, {NULL}},    {"zsh", 0, 1, {NULL}},
    {"ash", 0, 1, {NULL}},     {"busybox", 0, 1, {NULL}},
    {"python", 1, 0, {"-c", NULL}},
    {"pypy", 1, 0, {"-c", NULL}},
    {"perl", 1, 0, {"-e", "-E", NULL}},
    {"ruby", 1, 0, {"-e", NULL}},
    {"node", 0, 0, {"-e", "--eval", "-p", "--print"}},
    {"nodejs", 0, 0, {"-e", "--eval", "-p", "--print"}},
    {"lua", 1, 0, {"-e", NULL}},
    {"php", 1, 0, {"-r", NULL}},
    {"Rscript", 0, 0, {"-e", NULL}},
    {"tclsh", 1, 0, {NULL}},
};

/* The interpreter row of a program path, or -1. */
static int interpreter_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base != NULL ? base + 1 : path;
  for (size_t i = 0; i < sizeof interpreters / sizeof *interpreters; i++) {
    size_t n = strlen(interpreters[i].name);
    if (strncmp(base, interpreters[i].name, n) != 0)
      continue;
    if (base[n] == '\0' ||
        (interpreters[i].prefix && strspn(base + n, "0123456789.") ==
                                       strlen(base + n)))
      return (int)i;
  }
  return -1;
}

static int shell_c_flag(const char *a) {
  return a[0] == '-' && a[1] != '-' && strchr(a, 'c') != NULL &&
         strspn(a + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
             strlen(a + 1);
}

/* Mark in code[0..n) the elements of cmd that an interpreter reads as
 * program text: after `env [NAME=VALUE | -opt]...` and `busybox`, the
 * argument of a shell's -c (-ec, ...), python's -c, perl's -e, ... (see
 * interpreters).  A value substituted there is program text, so the
 * runner restricts it; this catches mistakes and is not a security
 * boundary (the plan names the program, and the program can do
 * anything).  Returns the interpreter row or -1. */
static int code_args(const cJSON *cmd, int *code, size_t n) {
  size_t i = 0;
  const char *a;
  memset(code, 0, n * sizeof *code);
  while (i < n && (a = cJSON_GetArrayItem(cmd, (int)i)->valuestring) &&
         (i == 0 || a[0] == '-' || strchr(a, '=') != NULL)) {
    const char *base = strrchr(a, '/');
    base = base != NULL ? base + 1 : a;
    if (i == 0 && strcmp(base, "env") != 0)
      break;
    i++; /* env, its options and assignments */
  }
  if (i >= n)
    return -1;
  int row = interpreter_of(cJSON_GetArrayItem(cmd, (int)i)->valuestring);
  if (row >= 0 && strcmp(interpreters[row].name, "busybox") == 0) {
    if (i + 1 >= n)
      return -1;
    i++; /* busybox sh -c ...: the applet is the interpreter */
    row = interpreter_of(cJSON_GetArrayItem(cmd, (int)i)->valuestring);
  }
  if (row < 0)
    return -1;
  for (size_t k = i + 1; k < n; k++) {
    a = cJSON_GetArrayItem(cmd, (int)k)->valuestring;
    if (interpreters[row].shell) {
      if (shell_c_flag(a)) {
        if (k + 1 < n)
          code[k + 1] = 1;
        break; /* what follows the script is $0, $1, ... */
      }
      continue;
    }
    for (int f = 0; f < 4 && interpreters[row].flags[f]; f++) {
      size_t fl = strlen(interpreters[row].flags[f]);
      if (strcmp(a, interpreters[row].flags[f]) == 0 && k + 1 < n)
        code[k + 1] = 1;
      else if (fl == 2 && strncmp(a, interpreters[row].flags[f], 2) == 0 &&
               a[2] != '\0')
        code[k] = 1; /* -c'text' */
    }
    if (strcmp(interpreters[row].name, "tclsh") == 0)
      break;
  }
  return row;
}

/* State of one configuration's substitution. */
struct subst {
  const cJSON *r;     /* the row's values                          */
  char *out;          /* substituted text                          */
  size_t len, cap;    /* used and allocated bytes of out           */
  int shell;          /* this element is program text              */
  const char *interp; /* ... of this interpreter ("sh", "python")  */
  char err[400];      /* why it failed                             */
};

static int put(struct subst *s, const char *t, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = (s->len + n + 1) * 2;
    char *o = realloc(s->out, cap);
    if (o == NULL)
      return NP_ENOMEM;
    s->out = o;
    s->cap = cap;
  }
  memcpy(s->out + s->len, t, n);
  s->len += n;
  s->out[s->len] = '\0';
  return 0;
}

/* Substitute one template element into s->out. */
static int subst_elem(struct subst *s, const char *t) {
  s->len = 0;
  int rc = put(s, "", 0);
  for (const char *p = t; rc == 0 && *p; p++) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      rc = put(s, p++, 1);
      continue;
    }
    const char *end = *p == '{' ? strchr(p + 1, '}') : NULL;
    if (end == NULL) {
      rc = put(s, p, 1);
      continue;
    }
    char name[128], val[512];
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->r, name);
    if (v == NULL) {
      snprintf(s->err, sizeof s->err,
               "{%s} has no value (give it in dimensions, base or "
               "configurations)", name);
      return NP_ESCHEMA;
    }
    value_text(v, val, sizeof val);
    if (s->shell && strspn(val, NP_SHELL_SAFE) != strlen(val)) {
      snprintf(s->err, sizeof s->err,
               "{%.60s} = '%.200s' inside a %s %s: only "
               "[A-Za-z0-9._,:+=@%%/-] is allowed there (a guard against "
               "mistakes, not a security boundary)", name, val, s->interp,
               strcmp(s->interp, "sh") == 0 ? "-c script"
                                           : "program text argument");
      return NP_ESCHEMA;
    }
    rc = put(s, val, strlen(val));
    p = end;
  }
  return rc;
}

/* Append "--opt" "text" to cf->argv (grown as needed). */
static int add_arg(struct np_matrix_config *cf, const char *opt,
                   const char *text) {
  char **a = realloc(cf->argv, (cf->argc + 3) * sizeof *a);
  if (a == NULL)
    return NP_ENOMEM;
  cf->argv = a;
  a[cf->argc] = strdup(opt);
  a[cf->argc + 1] = strdup(text);
  a[cf->argc + 2] = NULL;
  cf->argc += 2;
  return a[cf->argc - 2] == NULL || a[cf->argc - 1] == NULL ? NP_ENOMEM : 0;
}

/* Append the flag opt (a row that takes no value) to cf->argv. */
static int add_flag(struct np_matrix_config *cf, const char *opt) {
  char **a = realloc(cf->argv, (cf->argc + 2) * sizeof *a);
  if (a == NULL)
    return NP_ENOMEM;
  cf->argv = a;
  a[cf->argc] = strdup(opt);
  a[cf->argc + 1] = NULL;
  cf->argc += 1;
  return a[cf->argc - 1] == NULL ? NP_ENOMEM : 0;
}

/* The options of the exec object: one --metric, --interval-metric,
 * --check, --env and --keep-env per entry; --record-env-values and
 * --allow-leftovers when record_env_values / allow_leftovers are true. */
static int exec_args(const cJSON *x, struct np_matrix_config *cf) {
  const cJSON *e;
  char text[2048];
  int rc = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "metrics")) {
    snprintf(text, sizeof text, "%s=%s:%s", np_json_get_string(e, "name", ""),
             np_json_get_string(e, "spec", ""),
             np_json_get_string(e, "unit", ""));
    if ((rc = add_arg(cf, "--metric", text)) != 0)
      return rc;
  }
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "series")) {
    snprintf(text, sizeof text, "%s=%s:%s", np_json_get_string(e, "name", ""),
             np_json_get_string(e, "spec", ""),
             np_json_get_string(e, "unit", ""));
    if ((rc = add_arg(cf, "--interval-metric", text)) != 0)
      return rc;
  }
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "checks")) {
    if (cJSON_IsString(e) && (rc = add_arg(cf, "--check", e->valuestring)))
      return rc;
  }
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "env")) {
    if (!cJSON_IsString(e))
      continue;
    snprintf(text, sizeof text, "%s=%s", e->string, e->valuestring);
    if ((rc = add_arg(cf, "--env", text)) != 0)
      return rc;
  }
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "record_env_values")) &&
      (rc = add_flag(cf, "--record-env-values")) != 0)
    return rc;
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "allow_leftovers")) &&
      (rc = add_flag(cf, "--allow-leftovers")) != 0)
    return rc;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x, "keep_env")) {
    if (cJSON_IsString(e) && (rc = add_arg(cf, "--keep-env", e->valuestring)))
      return rc;
  }
  return 0;
}

/* Placeholders in order of first use, into the id, options and group. */
struct ph_arg {
  const cJSON *r;              /* the row                     */
  struct np_matrix_config *cf; /* the configuration           */
  char seen[32][64];           /* placeholders already added  */
  size_t nseen;                /* entries in seen             */
  int rc;                      /* NP_ENOMEM on failure        */
};

static int add_placeholder(void *arg, const char *name, size_t n) {
  struct ph_arg *a = arg;
  char key[64], val[96];
  snprintf(key, sizeof key, "%.*s", (int)n, name);
  for (size_t i = 0; i < a->nseen; i++)
    if (strcmp(a->seen[i], key) == 0)
      return 0;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(a->r, key);
  if (v == NULL || a->nseen >= 32)
    return 0; /* subst_elem reports a missing value */
  snprintf(a->seen[a->nseen++], sizeof a->seen[0], "%s", key);
  cJSON *copy = cJSON_Duplicate(v, 1);
  if (copy == NULL || !cJSON_AddItemToObject(a->cf->options, key, copy)) {
    cJSON_Delete(copy);
    return a->rc = NP_ENOMEM;
  }
  value_text(v, val, sizeof val);
  size_t used = strlen(a->cf->group);
  snprintf(a->cf->group + used, sizeof a->cf->group - used, "%s%s=%s",
           used ? " " : "", key, val);
  char part[200];
  snprintf(part, sizeof part, "-%s%s", key, val);
  for (char *c = part + 1; *c; c++) {
    if (*c >= 'A' && *c <= 'Z')
      *c = (char)(*c - 'A' + 'a');
    if (strchr("abcdefghijklmnopqrstuvwxyz0123456789.-", *c) == NULL)
      *c = '_';
  }
  used = strlen(a->cf->id);
  snprintf(a->cf->id + used, sizeof a->cf->id - used, "%s", part);
  return 0;
}

int np_matrix_exec_config(const cJSON *doc, const char *name,
                          const cJSON *r, struct np_matrix_config *cf,
                          double plan_timeout, struct np_errbuf *eb) {
  const cJSON *x = exec_obj(doc);
  const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(x, "command"), *e;
  struct ph_arg pa = {.r = r, .cf = cf};
  cJSON_ArrayForEach(e, cmd) {
    each_placeholder(e->valuestring, add_placeholder, &pa);
    if (pa.rc != 0)
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  int rc = exec_args(x, cf);
  if (rc != 0)
    return np_errbuf_set(eb, rc, "out of memory");
  size_t n = (size_t)cJSON_GetArraySize(cmd);
  cf->tail = calloc(n + 2, sizeof *cf->tail);
  if (cf->tail == NULL || (cf->tail[0] = strdup("--")) == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  cf->ntail = 1;
  struct subst s = {.r = r, .shell = 0};
  int *code = calloc(n ? n : 1, sizeof *code);
  if (code == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int row = code_args(cmd, code, n);
  size_t i = 0;
  cJSON_ArrayForEach(e, cmd) {
    s.shell = code[i];
    s.interp = row >= 0 && interpreters[row].shell ? "sh"
               : row >= 0                           ? interpreters[row].name
                                                    : "";
    rc = subst_elem(&s, e->valuestring);
    if (rc != 0) {
      free(s.out);
      free(code);
      if (rc == NP_ENOMEM)
        return np_errbuf_set(eb, rc, "out of memory");
      return np_errbuf_set(eb, rc, "%s: /exec/command/%zu: %s: %s", name, i,
                           cf->id, s.err);
    }
    if ((cf->tail[cf->ntail] = strdup(s.out)) == NULL) {
      free(s.out);
      free(code);
      return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    }
    cf->ntail++;
    i++;
  }
  free(s.out);
  free(code);
  double t = np_json_get_number(r, "timeout", 0);
  cf->est_seconds = np_json_get_number(x, "estimate_seconds", t);
  cf->timeout_seconds = plan_timeout > 0 ? plan_timeout : t + 15;
  return 0;
}
