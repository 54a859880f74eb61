/*
 * test_schema_suite - runs the official JSON-Schema-Test-Suite draft2020-12
 * files (Debian package libtest-json-schema-acceptance-perl) through
 * np_schema and requires every case to pass, except the cases listed in
 * the exclusion file (JSON array of {file, group, test, reason}; group and
 * test "*" exclude a whole file and are only for files about an
 * unsupported feature).  An exclusion that matches no case fails the test
 * too, so the list cannot go stale.  optional/ is not run.
 *
 *   test_schema_suite SUITE_DIR EXCLUSIONS.json
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_file.h"
#include "np_json.h"
#include "np_schema.h"
#include "np_test.h"

struct exclusion {
  const char *file, *group, *test;
  int used;
};

struct tally {
  int passed, failed, excluded;
};

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct exclusion *find_excl(struct exclusion *ex, int n,
                                   const char *file, const char *group,
                                   const char *test) {
  for (int i = 0; i < n; i++) {
    if (strcmp(ex[i].file, file) != 0)
      continue;
    if (strcmp(ex[i].group, "*") == 0 ||
        (strcmp(ex[i].group, group) == 0 &&
         (strcmp(ex[i].test, "*") == 0 || strcmp(ex[i].test, test) == 0)))
      return &ex[i];
  }
  return NULL;
}

static void run_group(const char *file, const cJSON *group,
                      struct exclusion *ex, int nex, struct tally *t) {
  const char *gdesc = np_json_get_string(group, "description", "?");
  const cJSON *tests = cJSON_GetObjectItemCaseSensitive(group, "tests");
  struct np_schema *s = NULL;
  struct np_errbuf eb = {{0}};
  int crc = np_schema_compile(cJSON_GetObjectItemCaseSensitive(group, "schema"),
                              &s, &eb);
  const cJSON *tc;
  cJSON_ArrayForEach(tc, tests) {
    const char *tdesc = np_json_get_string(tc, "description", "?");
    bool want = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tc, "valid"));
    struct exclusion *e = find_excl(ex, nex, file, gdesc, tdesc);
    if (e) {
      e->used++;
      t->excluded++;
      continue;
    }
    if (crc != 0) {
      printf("FAIL %s | %s | %s: schema did not compile: %s\n", file, gdesc,
             tdesc, eb.msg);
      t->failed++;
      continue;
    }
    int vrc = np_schema_validate(
        s, cJSON_GetObjectItemCaseSensitive(tc, "data"), NULL, NULL);
    bool got = vrc == 0;
    if (vrc != 0 && vrc != NP_ESCHEMA) {
      printf("FAIL %s | %s | %s: validate returned %s\n", file, gdesc, tdesc,
             np_err_name(vrc));
      t->failed++;
    } else if (got != want) {
      printf("FAIL %s | %s | %s: expected %s, got %s\n", file, gdesc, tdesc,
             want ? "valid" : "invalid", got ? "valid" : "invalid");
      t->failed++;
    } else {
      t->passed++;
    }
  }
  np_schema_free(s);
}

static void run_file(const char *dir, const char *name, struct exclusion *ex,
                     int nex, struct tally *t) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  struct np_json_limits lim = {0, 256};
  int rc = np_json_load_file(path, &lim, &doc, &eb);
  if (rc == NP_EPARSE && strstr(eb.msg, "\\u0000") != NULL) {
    /* np_json refuses "\u0000" (cJSON would cut the string there); the
     * suite's "nul characters" groups are excluded, the rest of the file
     * still runs, parsed by cJSON alone (the suite is trusted input). */
    char *text = NULL;
    size_t len = 0;
    if (np_file_read_all(path, (size_t)64 << 20, &text, &len, &eb) == 0) {
      doc = cJSON_ParseWithLength(text, len);
      free(text);
    }
    rc = doc != NULL ? 0 : NP_EPARSE;
  }
  if (rc != 0) {
    printf("FAIL %s: %s\n", name, eb.msg);
    t->failed++;
    return;
  }
  const cJSON *group;
  cJSON_ArrayForEach(group, doc) run_group(name, group, ex, nex, t);
  cJSON_Delete(doc);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_schema_suite SUITE_DIR EXCLUSIONS.json\n");
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr,
            "%s: JSON-Schema-Test-Suite not found; install the Debian "
            "package libtest-json-schema-acceptance-perl "
            "(scripts/install-deps.sh --test)\n",
            argv[1]);
    return 1;
  }
  char *names[256];
  int nnames = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && nnames < 256) {
    size_t l = strlen(de->d_name);
    if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0)
      names[nnames++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)nnames, sizeof(names[0]), by_name);
  ASSERT_GT(nnames, 30);

  cJSON *exdoc = NULL;
  struct np_errbuf eb = {{0}};
  if (np_json_load_file(argv[2], NULL, &exdoc, &eb) != 0) {
    fprintf(stderr, "%s\n", eb.msg);
    return 1;
  }
  int nex = cJSON_GetArraySize(exdoc);
  struct exclusion *ex = calloc((size_t)nex + 1, sizeof(*ex));
  ASSERT_NOT_NULL(ex);
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, exdoc) {
    ex[i].file = np_json_get_string(e, "file", "");
    ex[i].group = np_json_get_string(e, "group", "");
    ex[i].test = np_json_get_string(e, "test", "");
    ASSERT_TRUE(strlen(np_json_get_string(e, "reason", "")) > 0);
    i++;
  }

  struct tally t = {0, 0, 0};
  for (i = 0; i < nnames; i++) {
    run_file(argv[1], names[i], ex, nex, &t);
    free(names[i]);
  }
  int stale = 0;
  for (i = 0; i < nex; i++)
    if (ex[i].used == 0) {
      printf("STALE exclusion matches no case: %s | %s | %s\n", ex[i].file,
             ex[i].group, ex[i].test);
      stale++;
    }
  printf("suite: %d passed, %d failed, %d excluded, %d stale exclusions\n",
         t.passed, t.failed, t.excluded, stale);
  free(ex);
  cJSON_Delete(exdoc);
  ASSERT_EQ(t.failed, 0);
  ASSERT_EQ(stale, 0);
  ASSERT_GT(t.passed, 850);
  return 0;
}
