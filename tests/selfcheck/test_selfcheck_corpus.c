/*
 * test_selfcheck_corpus.c - the tampering corpus: every kind of edit in
 * corpus.txt is applied to an in-memory copy of one of the real result
 * sets beside it (fixture-*, written by make-fixtures.sh) and the
 * self-check must report each of the kind's exact problem lines
 * ("file: /pointer: reason", as netproof-report prints them) and end with
 * the kind's return code; every untouched set must be clean (or, for the
 * incomplete ones, incomplete and nothing else).
 *
 * corpus.txt, one directive per line ('#' comments):
 *   kind NAME                 a new case
 *   set NAME                  the fixture it edits (fixture-NAME)
 *   json FILE PTR VALUE       set the JSON value at PTR (VALUE is JSON)
 *   add FILE PTR NUMBER       add to the number at PTR
 *   mul FILE PTR NUMBER       multiply the number at PTR
 *   del FILE PTR              remove the member at PTR
 *   text FILE FROM => TO      replace the first FROM by TO (bytes)
 *   textall FILE FROM => TO   replace every FROM
 *   cut FILE N                keep the first N bytes
 *   rm FILE                   remove the file
 *   cp FROM TO                copy a file of the set
 *   import SET FILE TO        copy FILE of another fixture in as TO
 *   rc check|incomplete|clean the expected return (default check)
 *   line TEXT                 a problem line that must be reported
 *
 * usage: test_selfcheck_corpus DIR [--print]   (DIR holds corpus.txt and
 * the fixtures; --print shows every case's lines, for writing the corpus)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "np_ftree.h"
#include "np_json.h"
#include "np_results_selfcheck.h"
#include "np_test.h"

#define MAX_LINES 512

struct seen {
  char (*lines)[1024];
  size_t n;
};

static void collect(void *ctx, const char *file, const char *ptr,
                    const char *reason) {
  struct seen *s = ctx;
  if (s->n < MAX_LINES)
    snprintf(s->lines[s->n], sizeof s->lines[0], "%s: %s: %s", file,
             ptr[0] ? ptr : "/", reason);
  s->n++;
}

static struct np_ftree *load_set(const char *dir, const char *name) {
  char p[2048];
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  snprintf(p, sizeof p, "%s/fixture-%s", dir, name);
  if (np_ftree_load_dir(p, 0, &t, &eb) != 0)
    NP_TEST_FAIL_("%s", eb.msg);
  return t;
}

/* A copy of t with path replaced by data (NULL: removed). */
static struct np_ftree *with_file(struct np_ftree *t, const char *path,
                                  const char *data, size_t len) {
  struct np_ftree *o = NULL;
  ASSERT_OK(np_ftree_new(&o));
  int done = 0;
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t l;
    const char *d = np_ftree_get(t, p, &l);
    if (strcmp(p, path) == 0) {
      done = 1;
      if (data != NULL)
        ASSERT_OK(np_ftree_add(o, p, data, len));
    } else {
      ASSERT_OK(np_ftree_add(o, p, d, l));
    }
  }
  if (!done && data != NULL)
    ASSERT_OK(np_ftree_add(o, path, data, len));
  np_ftree_free(t);
  return o;
}

/* The parent of the member PTR names, and its last token (unescaped). */
static cJSON *parent_of(cJSON *doc, const char *ptr, char *last,
                        size_t len) {
  const char *slash = strrchr(ptr, '/');
  if (slash == NULL)
    return NULL;
  char up[1024];
  snprintf(up, sizeof up, "%.*s", (int)(slash - ptr), ptr);
  size_t o = 0;
  for (const char *k = slash + 1; *k && o + 1 < len; k++) {
    if (k[0] == '~' && (k[1] == '0' || k[1] == '1')) {
      last[o++] = k[1] == '0' ? '~' : '/';
      k++;
    } else {
      last[o++] = *k;
    }
  }
  last[o] = '\0';
  return (cJSON *)np_json_pointer(doc, up);
}

static void set_member(cJSON *parent, const char *key, cJSON *v) {
  if (cJSON_IsArray(parent)) {
    int i = atoi(key);
    if (i < cJSON_GetArraySize(parent))
      cJSON_ReplaceItemInArray(parent, i, v);
    else
      cJSON_AddItemToArray(parent, v);
  } else if (cJSON_HasObjectItem(parent, key)) {
    cJSON_ReplaceItemInObjectCaseSensitive(parent, key, v);
  } else {
    cJSON_AddItemToObject(parent, key, v);
  }
}

/* One JSON edit (op: json, add, mul, del) of file in t. */
static struct np_ftree *edit_json(struct np_ftree *t, const char *op,
                                  const char *file, const char *ptr,
                                  const char *arg) {
  size_t len;
  const char *data = np_ftree_get(t, file, &len);
  if (data == NULL)
    NP_TEST_FAIL_("%s: no such file in the set", file);
  cJSON *doc = cJSON_ParseWithLength(data, len);
  ASSERT_NOT_NULL(doc);
  char key[256];
  cJSON *parent = parent_of(doc, ptr, key, sizeof key);
  if (parent == NULL)
    NP_TEST_FAIL_("%s: %s: no parent", file, ptr);
  if (strcmp(op, "json") == 0) {
    cJSON *v = cJSON_Parse(arg);
    if (v == NULL)
      NP_TEST_FAIL_("%s: not JSON", arg);
    set_member(parent, key, v);
  } else if (strcmp(op, "del") == 0) {
    if (cJSON_IsArray(parent))
      cJSON_DeleteItemFromArray(parent, atoi(key));
    else
      cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
  } else {
    cJSON *v = (cJSON *)np_json_pointer(doc, ptr);
    if (!cJSON_IsNumber(v))
      NP_TEST_FAIL_("%s: %s: not a number", file, ptr);
    double x = strtod(arg, NULL);
    cJSON_SetNumberValue(v, strcmp(op, "add") == 0 ? v->valuedouble + x
                                                   : v->valuedouble * x);
  }
  char *text = cJSON_Print(doc);
  t = with_file(t, file, text, strlen(text));
  free(text);
  cJSON_Delete(doc);
  return t;
}

static struct np_ftree *edit_text(struct np_ftree *t, const char *file,
                                  const char *spec, int all) {
  const char *sep = strstr(spec, " => ");
  if (sep == NULL)
    NP_TEST_FAIL_("text: %s: no \" => \"", spec);
  char from[1024], to[1024];
  snprintf(from, sizeof from, "%.*s", (int)(sep - spec), spec);
  snprintf(to, sizeof to, "%s", sep + 4);
  size_t len;
  const char *d = np_ftree_get(t, file, &len);
  if (d == NULL)
    NP_TEST_FAIL_("%s: no such file in the set", file);
  size_t fl = strlen(from), tl = strlen(to), cap = len * 2 + 4096, o = 0;
  char *buf = malloc(cap);
  ASSERT_NOT_NULL(buf);
  int n = 0;
  for (size_t i = 0; i < len;) {
    if ((all || n == 0) && i + fl <= len && memcmp(d + i, from, fl) == 0) {
      if (o + tl >= cap)
        NP_TEST_FAIL_("text: result too long");
      memcpy(buf + o, to, tl);
      o += tl;
      i += fl;
      n++;
    } else {
      buf[o++] = d[i++];
    }
  }
  if (n == 0)
    NP_TEST_FAIL_("%s: \"%s\" not found", file, from);
  t = with_file(t, file, buf, o);
  free(buf);
  return t;
}

struct kase {
  char name[256];
  char set[64];
  struct np_ftree *t;
  int want_rc;
  char *lines[64];
  size_t nlines;
};

static size_t run_case(struct kase *k, int print) {
  struct seen s = {malloc(MAX_LINES * sizeof *s.lines), 0};
  ASSERT_NOT_NULL(s.lines);
  int rc = np_results_self_check(k->t, "fx", collect, &s);
  size_t missing = 0;
  for (size_t i = 0; i < k->nlines; i++) {
    int found = 0;
    for (size_t j = 0; j < s.n && j < MAX_LINES && !found; j++)
      found = strcmp(s.lines[j], k->lines[i]) == 0;
    if (!found) {
      fprintf(stderr, "kind \"%s\": missing line:\n  %s\n", k->name,
              k->lines[i]);
      missing++;
    }
  }
  if (rc != k->want_rc) {
    fprintf(stderr, "kind \"%s\": rc %d (%s), wanted %d\n", k->name, rc,
            np_err_name(rc), k->want_rc);
    missing++;
  }
  if (k->want_rc == 0 && s.n != 0)
    missing++;
  if (print || missing) {
    printf("== %s (%s, rc %s, %zu lines)\n", k->name, k->set, np_err_name(rc),
           s.n);
    for (size_t j = 0; j < s.n && j < MAX_LINES; j++)
      printf("   %s\n", s.lines[j]);
  }
  free(s.lines);
  fflush(stdout);
  return missing;
}

static int rc_of(const char *w) {
  return strcmp(w, "clean") == 0        ? 0
         : strcmp(w, "incomplete") == 0 ? NP_EINCOMPLETE
                                        : NP_ECHECK;
}

int main(int argc, char **argv) {
  ASSERT_TRUE(argc == 2 || argc == 3);
  const char *dir = argv[1];
  int print = argc == 3 && strcmp(argv[2], "--print") == 0;
  char path[2048];
  snprintf(path, sizeof path, "%s/corpus.txt", dir);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    NP_TEST_FAIL_("%s: cannot open", path);
  char line[4096];
  struct kase k = {.want_rc = NP_ECHECK};
  size_t kinds = 0, failures = 0;
  for (int more = 1; more;) {
    more = fgets(line, sizeof line, f) != NULL;
    line[strcspn(line, "\n")] = '\0';
    if (more && (line[0] == '#' || line[0] == '\0'))
      continue;
    char op[16] = "", a[1024] = "", b[1024] = "";
    int used = 0;
    if (more)
      sscanf(line, "%15s %n", op, &used);
    const char *rest = line + used;
    if (!more || strcmp(op, "kind") == 0) {
      if (k.t != NULL) {
        failures += run_case(&k, print) != 0;
        kinds++;
        np_ftree_free(k.t);
        for (size_t i = 0; i < k.nlines; i++)
          free(k.lines[i]);
      }
      memset(&k, 0, sizeof k);
      k.want_rc = NP_ECHECK;
      snprintf(k.name, sizeof k.name, "%.200s", rest);
      continue;
    }
    if (strcmp(op, "set") == 0) {
      snprintf(k.set, sizeof k.set, "%.60s", rest);
      k.t = load_set(dir, rest);
      continue;
    }
    if (k.t == NULL)
      NP_TEST_FAIL_("%s: \"%s\" before \"set\"", k.name, line);
    if (strcmp(op, "rc") == 0) {
      k.want_rc = rc_of(rest);
    } else if (strcmp(op, "line") == 0) {
      ASSERT_TRUE(k.nlines < 64);
      k.lines[k.nlines++] = strdup(rest);
    } else if (strcmp(op, "rm") == 0) {
      k.t = with_file(k.t, rest, NULL, 0);
    } else if (strcmp(op, "cut") == 0) {
      long n = 0;
      sscanf(rest, "%1023s %ld", a, &n);
      size_t len;
      const char *d = np_ftree_get(k.t, a, &len);
      ASSERT_NOT_NULL(d);
      char *copy = strndup(d, (size_t)n);
      k.t = with_file(k.t, a, copy, strlen(copy));
      free(copy);
    } else if (strcmp(op, "cp") == 0) {
      sscanf(rest, "%1023s %1023s", a, b);
      size_t len;
      const char *d = np_ftree_get(k.t, a, &len);
      if (d == NULL)
        NP_TEST_FAIL_("%s: cp %s: no such file", k.name, a);
      char *copy = malloc(len + 1);
      memcpy(copy, d, len);
      k.t = with_file(k.t, b, copy, len);
      free(copy);
    } else if (strcmp(op, "import") == 0) {
      char set[64];
      sscanf(rest, "%63s %1023s %1023s", set, a, b);
      struct np_ftree *o = load_set(dir, set);
      size_t len;
      const char *d = np_ftree_get(o, a, &len);
      if (d == NULL)
        NP_TEST_FAIL_("%s: import %s %s: no such file", k.name, set, a);
      k.t = with_file(k.t, b, d, len);
      np_ftree_free(o);
    } else if (strcmp(op, "text") == 0 || strcmp(op, "textall") == 0) {
      int n2 = 0;
      sscanf(rest, "%1023s %n", a, &n2);
      k.t = edit_text(k.t, a, rest + n2, op[4] == 'a');
    } else if (strcmp(op, "json") == 0 || strcmp(op, "add") == 0 ||
               strcmp(op, "mul") == 0 || strcmp(op, "del") == 0) {
      int n2 = 0;
      sscanf(rest, "%1023s %1023s %n", a, b, &n2);
      k.t = edit_json(k.t, op, a, b, rest + n2);
    } else {
      NP_TEST_FAIL_("%s: unknown directive \"%s\"", k.name, op);
    }
  }
  fclose(f);
  printf("test_selfcheck_corpus: %zu kinds, %zu failed\n", kinds, failures);
  fflush(stdout);
  ASSERT_EQ(failures, 0);
  ASSERT_TRUE(print || kinds >= 40);
  return 0;
}
