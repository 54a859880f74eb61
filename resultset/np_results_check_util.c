/*
 * np_results_check_util.c - what every part of the self-check uses:
 * problem lines, JSON files parsed and validated against their schema
 * (each schema compiled once per check), timestamps, a JSON tree
 * comparison that names every difference by its pointer, interned hashes,
 * and rep-N.cmd.txt read back (the runner's shell quoting undone).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"
#include "np_time.h"

const char *const np_chk__suffix[NP_CHK_NFILES] = {
    [NP_CHK_CMD] = ".cmd.txt",
    [NP_CHK_JSON] = ".json",
    [NP_CHK_KAFTER] = ".kernel-after.txt",
    [NP_CHK_KBEFORE] = ".kernel-before.txt",
    [NP_CHK_STDERR] = ".stderr.txt",
};

void np_chk__problem(struct np_results_check *c, const char *file,
                     const char *ptr, const char *fmt, ...) {
  char reason[768], path[1400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (c->label[0])
    snprintf(path, sizeof path, "%s/%s", c->label, file);
  else
    snprintf(path, sizeof path, "%s", file);
  c->problems++;
  if (c->fn)
    c->fn(c->ctx, path, ptr, reason);
}

static void on_schema_error(void *ctx, const char *pointer, const char *keyword,
                            const char *reason) {
  struct np_results_check *c = ctx;
  np_chk__problem(c, c->vfile, pointer, "schema: %s: %s", keyword, reason);
}

/* The compiled schema for tag, compiled on first use. */
static struct np_schema *schema_for(struct np_results_check *c,
                                    const char *tag, struct np_errbuf *eb) {
  struct np_schema **slot = strcmp(tag, "netproof/run/1") == 0 ? &c->schema_run
                            : strcmp(tag, "netproof/suite/1") == 0
                                ? &c->schema_suite
                                : &c->schema_summary;
  if (*slot == NULL && np_schema_builtin(tag, slot, eb) != 0)
    *slot = NULL;
  return *slot;
}

cJSON *np_chk__json(struct np_results_check *c, const char *file,
                    const char *data, size_t len, const char *tag, int *valid) {
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  *valid = 0;
  struct np_json_error jerr;
  if (np_json_parse_at(data, len, NULL, &doc, &jerr) != 0) {
    np_chk__problem(c, file, jerr.pointer, "%s", jerr.reason);
    return NULL;
  }
  const char *have = np_json_get_string(doc, "schema", NULL);
  if (have == NULL || strcmp(have, tag) != 0) {
    np_chk__problem(c, file, "/schema", "expected \"%s\"", tag);
    return doc;
  }
  /* every tag the self-check asks for is shipped; a build without it is
   * broken, and saying so beats skipping the validation */
  struct np_schema *s = schema_for(c, tag, &eb);
  if (s == NULL) {
    np_chk__problem(c, file, "/schema", "cannot be validated: %s", eb.msg);
    return doc;
  }
  size_t before = c->problems;
  c->vfile = file;
  np_schema_validate(s, doc, on_schema_error, c);
  *valid = c->problems == before;
  return doc;
}

int64_t np_chk__time(const char *s, int *whole) {
  int64_t ms;
  if (whole)
    *whole = 0;
  if (s == NULL || np_time_parse(s, &ms) != 0)
    return NP_CHK_NO_TIME;
  if (whole)
    *whole = strchr(s, '.') == NULL;
  return ms;
}

int np_chk__time_le(int64_t a, int a_whole, int64_t b, int b_whole) {
  (void)a_whole;
  /* a whole-second b stands for [b, b + 1 s) */
  return a <= b + (b_whole ? 999 : 0);
}

void np_chk__ptr(char *buf, size_t len, const char *base, const char *key) {
  size_t o = (size_t)snprintf(buf, len, "%s/", base);
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

/* A short rendering of v for a message. */
static void show(const cJSON *v, char *buf, size_t len) {
  if (v == NULL) {
    snprintf(buf, len, "absent");
  } else if (cJSON_IsNumber(v)) {
    snprintf(buf, len, "%.10g", v->valuedouble);
  } else if (cJSON_IsString(v)) {
    snprintf(buf, len, "\"%.*s\"", (int)(len > 80 ? 76 : len - 4),
             v->valuestring);
  } else if (cJSON_IsBool(v)) {
    snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
  } else if (cJSON_IsNull(v)) {
    snprintf(buf, len, "null");
  } else {
    char *t = cJSON_PrintUnformatted(v);
    snprintf(buf, len, "%.*s%s", 60, t ? t : "?",
             t && strlen(t) > 60 ? "..." : "");
    free(t);
  }
}

static int same_scalar(const cJSON *a, const cJSON *b) {
  if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
    double x = a->valuedouble, y = b->valuedouble;
    return x == y || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
  }
  return cJSON_Compare(a, b, 1);
}

struct diff_state {
  struct np_results_check *c;
  const char *file, *what;
  size_t n, max;
  int subset;     /* only what have holds; "*_rule" texts skipped     */
  char ptr[1024]; /* the pointer of the node being compared           */
  size_t plen;    /* its length                                       */
};

/* A rule stated in words ("drain_rule"): documentation of the version
 * that wrote the record, not a value. */
static int is_rule_text(const char *key) {
  size_t n = key ? strlen(key) : 0;
  return (n > 5 && strcmp(key + n - 5, "_rule") == 0) ||
         (key && strcmp(key, "work_unit") == 0);
}

static void diff_one(struct diff_state *d, const cJSON *have,
                     const cJSON *want) {
  if (d->n++ >= d->max)
    return;
  char h[128], w[128];
  show(have, h, sizeof h);
  show(want, w, sizeof w);
  np_chk__problem(d->c, d->file, d->ptr, "%s, but %s gives %s", h, d->what, w);
}

/* Append "/" + escaped key (or the index when key is NULL) to d->ptr;
 * returns the old length for diff_pop. */
static size_t diff_push(struct diff_state *d, const char *key, int index) {
  size_t old = d->plen, cap = sizeof d->ptr - 4;
  if (d->plen < cap)
    d->ptr[d->plen++] = '/';
  if (key == NULL) {
    char t[16];
    int n = snprintf(t, sizeof t, "%d", index);
    for (int i = 0; i < n && d->plen < cap; i++)
      d->ptr[d->plen++] = t[i];
  } else {
    for (const char *k = key; *k && d->plen < cap; k++) {
      if (*k == '~' || *k == '/') {
        d->ptr[d->plen++] = '~';
        d->ptr[d->plen++] = *k == '~' ? '0' : '1';
      } else {
        d->ptr[d->plen++] = *k;
      }
    }
  }
  d->ptr[d->plen] = '\0';
  return old;
}

static void diff_pop(struct diff_state *d, size_t old) {
  d->plen = old;
  d->ptr[old] = '\0';
}

static void diff_walk(struct diff_state *d, const cJSON *have,
                      const cJSON *want) {
  if (cJSON_IsObject(have) && cJSON_IsObject(want)) {
    /* the same keys in the same order (files written by the same code):
     * walk both lists together, falling back to a lookup */
    const cJSON *it, *h = have->child;
    cJSON_ArrayForEach(it, want) {
      const cJSON *hv = h != NULL && h->string != NULL &&
                                strcmp(h->string, it->string) == 0
                            ? h
                            : cJSON_GetObjectItemCaseSensitive(have,
                                                               it->string);
      h = hv != NULL ? hv->next : NULL;
      if (d->subset && (hv == NULL || is_rule_text(it->string)))
        continue;
      size_t old = diff_push(d, it->string, 0);
      diff_walk(d, hv, it);
      diff_pop(d, old);
    }
    cJSON_ArrayForEach(it, have) {
      if (cJSON_GetObjectItemCaseSensitive(want, it->string) == NULL) {
        size_t old = diff_push(d, it->string, 0);
        diff_one(d, it, NULL);
        diff_pop(d, old);
      }
    }
    return;
  }
  if (cJSON_IsArray(have) && cJSON_IsArray(want)) {
    int nh = cJSON_GetArraySize(have), nw = cJSON_GetArraySize(want);
    if (nh != nw && d->n++ < d->max)
      np_chk__problem(d->c, d->file, d->ptr, "%d entries, but %s gives %d", nh,
                      d->what, nw);
    const cJSON *a = have->child, *b = want->child;
    for (int i = 0; a != NULL && b != NULL; i++, a = a->next, b = b->next) {
      size_t old = diff_push(d, NULL, i);
      diff_walk(d, a, b);
      diff_pop(d, old);
    }
    return;
  }
  if (have == NULL || want == NULL || !same_scalar(have, want))
    diff_one(d, have, want);
}

static size_t diff_run(struct np_results_check *c, const char *file,
                       const char *base, const cJSON *have, const cJSON *want,
                       const char *what, size_t max, int subset) {
  struct diff_state *d = calloc(1, sizeof *d);
  if (d == NULL) {
    c->oom = 1;
    return 0;
  }
  *d = (struct diff_state){c, file, what, 0, max, subset, {0}, 0};
  snprintf(d->ptr, sizeof d->ptr, "%s", base);
  d->plen = strlen(d->ptr);
  diff_walk(d, have, want);
  size_t n = d->n;
  free(d);
  if (n > max)
    np_chk__problem(c, file, base, "%zu more differences from what %s gives",
                    n - max, what);
  return n;
}

size_t np_chk__diff(struct np_results_check *c, const char *file,
                    const char *base, const cJSON *have, const cJSON *want,
                    const char *what, size_t max) {
  return diff_run(c, file, base, have, want, what, max, 0);
}

size_t np_chk__diff_subset(struct np_results_check *c, const char *file,
                           const char *base, const cJSON *have,
                           const cJSON *want, const char *what, size_t max) {
  return diff_run(c, file, base, have, want, what, max, 1);
}

int np_chk__intern(struct np_results_check *c, const char *s) {
  if (s == NULL)
    return -1;
  for (size_t i = 0; i < c->nhashes; i++)
    if (strcmp(c->hashes[i], s) == 0)
      return (int)i;
  char **n = realloc(c->hashes, (c->nhashes + 1) * sizeof *n);
  if (n == NULL || (n[c->nhashes] = strdup(s)) == NULL) {
    if (n != NULL)
      c->hashes = n;
    c->oom = 1;
    return -1;
  }
  c->hashes = n;
  return (int)c->nhashes++;
}

void np_chk__argv_free(char **argv, int argc) {
  for (int i = 0; argv && i < argc; i++)
    free(argv[i]);
  free(argv);
}

int np_chk__shell_split(const char *line, char ***argv_out, int *argc_out) {
  size_t n = strlen(line);
  char **argv = calloc(n / 2 + 2, sizeof *argv);
  char *word = malloc(n + 1);
  int argc = 0, rc = NP_ENOMEM;
  if (argv == NULL || word == NULL)
    goto fail;
  const char *p = line;
  while (*p) {
    while (*p == ' ')
      p++;
    if (*p == '\0')
      break;
    size_t w = 0;
    while (*p && *p != ' ') {
      if (*p == '\'') {
        const char *q = strchr(p + 1, '\'');
        if (q == NULL) {
          rc = NP_EPARSE;
          goto fail;
        }
        memcpy(word + w, p + 1, (size_t)(q - p - 1));
        w += (size_t)(q - p - 1);
        p = q + 1;
      } else if (*p == '\\' && p[1]) {
        word[w++] = p[1];
        p += 2;
      } else {
        word[w++] = *p++;
      }
    }
    word[w] = '\0';
    if ((argv[argc] = strdup(word)) == NULL)
      goto fail;
    argc++;
  }
  free(word);
  *argv_out = argv;
  *argc_out = argc;
  return 0;
fail:
  free(word);
  np_chk__argv_free(argv, argc);
  return rc;
}

/* The value of "key: value" lines: pointer into text (up to '\n'). */
static const char *field(const char *text, const char *key, size_t *n) {
  size_t k = strlen(key);
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
    if (strncmp(l, key, k) == 0 && l[k] == ':' && l[k + 1] == ' ') {
      const char *v = l + k + 2, *e = strchr(v, '\n');
      *n = e ? (size_t)(e - v) : strlen(v);
      return v;
    }
  return NULL;
}

void np_chk__cmd_parse(const char *text, size_t len, struct np_chk_cmd *out) {
  (void)len;
  memset(out, 0, sizeof *out);
  out->start = out->end = NP_CHK_NO_TIME;
  out->wall = NAN;
  size_t n;
  char buf[64];
  const char *v = field(text, "command", &n);
  if (v == NULL || strncmp(text, "command: ", 9) != 0)
    return;
  char *line = strndup(v, n);
  if (line == NULL || np_chk__shell_split(line, &out->argv, &out->argc) != 0) {
    free(line);
    return;
  }
  free(line);
  out->ok = 1;
  if ((v = field(text, "started_at", &n)) != NULL && n < sizeof buf) {
    snprintf(buf, sizeof buf, "%.*s", (int)n, v);
    out->start = np_chk__time(buf, &out->start_whole);
  }
  if ((v = field(text, "ended_at", &n)) != NULL && n < sizeof buf) {
    snprintf(buf, sizeof buf, "%.*s", (int)n, v);
    out->end = np_chk__time(buf, &out->end_whole);
  }
  if ((v = field(text, "wall_seconds", &n)) != NULL && n < sizeof buf) {
    char *end;
    snprintf(buf, sizeof buf, "%.*s", (int)n, v);
    double w = strtod(buf, &end);
    if (end != buf && *end == '\0')
      out->wall = w;
  }
  if ((v = field(text, "outcome", &n)) != NULL)
    snprintf(out->outcome, sizeof out->outcome, "%.*s", (int)n, v);
}

void np_chk__cmd_free(struct np_chk_cmd *cmd) {
  np_chk__argv_free(cmd->argv, cmd->argc);
  cmd->argv = NULL;
  cmd->argc = 0;
}

/* The fields that name one machine, '\x1f'-joined (loadavg, vmstat and
 * the governor change from run to run; these do not). */
char *np_chk__identity(const cJSON *machine) {
  static const char *const keys[] = {
      "hostname",       "cpu_model",      "logical_cores", "mem_total_bytes",
      "kernel_release", "os_pretty_name", "arch",          "hypervisor"};
  char buf[2048];
  size_t o = 0;
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(machine, keys[i]);
    char t[512];
    if (cJSON_IsString(v))
      snprintf(t, sizeof t, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
      snprintf(t, sizeof t, "%.0f", v->valuedouble);
    else if (cJSON_IsBool(v))
      snprintf(t, sizeof t, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
      snprintf(t, sizeof t, "null");
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s=%s",
                          i ? "\x1f" : "", keys[i], t);
    if (o >= sizeof buf)
      break;
  }
  return strdup(buf);
}

/* Plan configuration indices sorted by id, for np_chk__plan_index_all. */
struct id_ref {
  const char *id;
  long index;
};

static int cmp_ref(const void *a, const void *b) {
  return strcmp(((const struct id_ref *)a)->id, ((const struct id_ref *)b)->id);
}

void np_chk__plan_index_all(struct np_results_check *c,
                            const struct np_matrix_plan *p) {
  size_t n = p ? p->nconfigs : 0;
  struct id_ref *refs = calloc(n ? n : 1, sizeof *refs);
  if (refs == NULL) {
    c->oom = 1;
    return;
  }
  for (size_t i = 0; i < n; i++)
    refs[i] = (struct id_ref){p->configs[i].id, (long)i};
  qsort(refs, n, sizeof *refs, cmp_ref);
  for (size_t i = 0; i < c->nruns; i++) {
    struct id_ref key = {c->runs[i].cid, -1};
    const struct id_ref *hit =
        n ? bsearch(&key, refs, n, sizeof *refs, cmp_ref) : NULL;
    c->runs[i].plan_idx = hit ? hit->index : -1;
  }
  free(refs);
}

int np_chk__version_before(const char *v, const char *ref) {
  for (;;) {
    char *ev, *er;
    long a = strtol(v, &ev, 10), b = strtol(ref, &er, 10);
    if (ev == v)
      return er != ref; /* v unreadable: older, unless both end here */
    if (a != b)
      return a < b;
    if (*ev != '.' || *er != '.')
      return *er == '.'; /* "0.2" is older than "0.2.1" */
    v = ev + 1;
    ref = er + 1;
  }
}
