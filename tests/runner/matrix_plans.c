/*
 * matrix_plans.c - every shipped plan (bench/plans/ *.json) validates,
 * expands to the expected number of configurations with stable ids, and
 * `matrix --dry-run` prints it with an estimate.  The ids, argv, ranking
 * groups and expectations of every shipped plan are byte for byte those
 * in tests/runner/data/plan-configs.txt (written by the matrix before the
 * option tables moved into the benchmarks; regenerate on purpose with
 * `matrix_plans SRC --regen`), and those of every committed result set
 * (results/ * /summary.json ids, options and groups, each configuration's
 * rep-1.cmd.txt command line): the results stay keyed by their ids.
 * argv[1]: source tree.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_util.h"
#include "np_json.h"
#include "np_matrix_plan.h"
#include "np_test.h"

struct expect_plan {
  const char *file;
  size_t configs;   /* expected expansion                          */
  int reps;
  const char *an_id; /* one id that must exist                      */
  size_t expect_fail;
};

/* udp-io-models: 3 payloads x 2 client counts x 5 IO models x 3 backends
 * (every backend supports every model); payload-window: 3 x 4 x 3;
 * size-limits: 6 x 3; buffer-isolation: the reference's 7 rows; stress:
 * one 60 s run per backend; quick: 3 rows + the overflow probe. */
static const struct expect_plan plans[] = {
    {"udp-io-models.json", 90, 3, "udp-p1024-c16-w1-connected-uring-t2", 0},
    {"udp-payload-window.json", 36, 3, "udp-p16384-c16-w256-pool-uv-t2", 0},
    {"udp-size-limits.json", 18, 3, "udp-p65507-c16-w64-single-uv", 6},
    {"udp-buffer-isolation.json", 7, 3, "udp-p16384-c16-w64-single-uv-srb1m", 4},
    {"udp-stress.json", 2, 1, "udp-p1024-c16-w16-single-raw", 0},
    {"quick.json", 4, 3, "udp-p16384-c16-w64-single-uv-srb4m", 1},
    /* rudp-main: 4 strategies x 3 profiles x 2 IO models x 2 cc, one
     * process of 3 rounds each; payload-window: 3 x 2 x 3 strategies;
     * sustained: one 120 s run per strategy */
    {"rudp-main.json", 48, 1, "rudp-p1024-c4-w16-pool-t4-fecadaptive-newreno-burst",
     0},
    {"rudp-payload-window.json", 18, 1,
     "rudp-p64-c4-w1-single-fecadaptive-bbr-random", 0},
    {"rudp-sustained.json", 3, 1, "rudp-p4096-c4-w16-pool-fecfixed-bbr-sustained",
     0},
};

static void check_plan(const char *src, const struct expect_plan *e,
                       const char *tmp) {
  char path[4096], out[4096];
  snprintf(path, sizeof path, "%s/bench/plans/%s", src, e->file);
  struct np_matrix_plan *p = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_matrix_plan_load(path, &p, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  ASSERT_EQ(p->nconfigs, e->configs);
  ASSERT_EQ(p->repetitions, e->reps);
  ASSERT_NOT_NULL(np_matrix_plan_find(p, e->an_id));
  size_t nfail = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    nfail += p->configs[i].expect_fail != 0;
    const char *id = p->configs[i].id;
    ASSERT_EQ(strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789._-"),
              strlen(id));
  }
  ASSERT_EQ(nfail, e->expect_fail);
  /* the same plan twice: same ids, same hash (stable) */
  struct np_matrix_plan *q = NULL;
  ASSERT_OK(np_matrix_plan_load(path, &q, &eb));
  ASSERT_STR_EQ(p->hash, q->hash);
  for (size_t i = 0; i < p->nconfigs; i++)
    ASSERT_STR_EQ(p->configs[i].id, q->configs[i].id);
  np_matrix_plan_free(q);
  /* dry run: one line per configuration plus the estimate */
  snprintf(out, sizeof out, "%s/dry.txt", tmp);
  char *argv[] = {"matrix", path, "--dry-run", NULL};
  ASSERT_EQ(mx_run(argv, out, NULL), 0);
  char *text = mx_read(out);
  char want[128];
  snprintf(want, sizeof want, "%zu configurations x %d repetition%s",
           e->configs, e->reps, e->reps == 1 ? "" : "s");
  ASSERT_NOT_NULL(strstr(text, want));
  /* the estimate once, in words: "estimated 3 min 43 s", not "3m43s
   * (223 s)" (issue 14, defect 7) */
  const char *est = strstr(text, "estimated ");
  ASSERT_NOT_NULL(est);
  ASSERT_TRUE(strchr(est, '(') == NULL || strchr(est, '(') > strchr(est, '\n'));
  ASSERT_TRUE(est[10] >= '0' && est[10] <= '9');
  ASSERT_NOT_NULL(strstr(est, " s\n") ? est : strstr(est, " min\n"));
  ASSERT_NOT_NULL(strstr(text, e->an_id));
  ASSERT_TRUE(mx_empty_or_absent("DIR")); /* dry run creates nothing */
  printf("%s", strstr(text, "suite "));
  free(text);
  np_matrix_plan_free(p);
}

/* One plan as the golden file holds it. */
static void describe(FILE *fp, const char *file,
                     const struct np_matrix_plan *p) {
  fprintf(fp, "== %s\n", file);
  for (size_t i = 0; i < p->nconfigs; i++) {
    const struct np_matrix_config *c = &p->configs[i];
    fprintf(fp, "%s%s\n  argv:", c->id, c->expect_fail ? " (expect fail)" : "");
    for (size_t a = 0; a < c->argc; a++)
      fprintf(fp, " %s", c->argv[a]);
    if (c->ntail > 0) { /* exec plans: the substituted command */
      fprintf(fp, "\n  program:");
      for (size_t a = 0; a < c->ntail; a++)
        fprintf(fp, " %s", c->tail[a]);
    }
    fprintf(fp, "\n  group: %s\n", c->group);
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir ending in suffix (NULL-terminated, malloc'd). */
static char **list_dir(const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  ASSERT_NOT_NULL(d);
  char **names = calloc(256, sizeof *names);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 255) {
    size_t len = strlen(e->d_name), sl = strlen(suffix);
    if (e->d_name[0] != '.' && len > sl &&
        strcmp(e->d_name + len - sl, suffix) == 0)
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  return names;
}

static void free_list(char **names) {
  for (size_t i = 0; names[i] != NULL; i++)
    free(names[i]);
  free(names);
}

static void check_golden(const char *src, int regen) {
  char dir[2048], path[4096], golden[4096];
  snprintf(dir, sizeof dir, "%s/bench/plans", src);
  snprintf(golden, sizeof golden, "%s/tests/runner/data/plan-configs.txt", src);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  ASSERT_NOT_NULL(mem);
  char **files = list_dir(dir, ".json");
  for (size_t i = 0; files[i] != NULL; i++) {
    struct np_matrix_plan *p = NULL;
    struct np_errbuf eb = {{0}};
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    ASSERT_OK(np_matrix_plan_load(path, &p, &eb));
    describe(mem, files[i], p);
    np_matrix_plan_free(p);
  }
  free_list(files);
  fclose(mem);
  if (regen) {
    mx_write(golden, text);
    printf("wrote %s\n", golden);
  }
  char *want = mx_read(golden);
  if (strcmp(text, want) != 0) {
    size_t k = 0, line = 1;
    for (; text[k] && text[k] == want[k]; k++)
      line += text[k] == '\n';
    NP_TEST_FAIL_("shipped plans differ from %s at line %zu", golden, line);
  }
  printf("shipped plans: ids, argv and groups as in %s\n", golden);
  free(want);
  free(text);
}

/* The next shell word of *p (the runner quotes words with '...', a quote
 * inside as '\'', as the shell reads them) into out; NULL at the end. */
static char *shell_word(char **p, char *out) {
  char *s = *p, *o = out;
  while (*s == ' ')
    s++;
  if (*s == '\0')
    return NULL;
  while (*s != '\0' && *s != ' ') {
    if (*s == '\'') {
      for (s++; *s != '\0' && *s != '\''; s++)
        *o++ = *s;
      if (*s == '\'')
        s++;
    } else if (*s == '\\' && s[1] != '\0') {
      *o++ = s[1];
      s += 2;
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
  *p = s;
  return out;
}

/* "command: BIN PROTO --a 1 ... --output PATH" == argv of cf. */
static void check_command(const char *cmd_path,
                          const struct np_matrix_config *cf) {
  char *text = mx_read(cmd_path);
  ASSERT_EQ(strncmp(text, "command: ", 9), 0);
  char *nl = strchr(text, '\n');
  if (nl != NULL)
    *nl = '\0';
  char *word = malloc(strlen(text) + 1), *p = text + 9;
  ASSERT_TRUE(word != NULL);
  ASSERT_TRUE(shell_word(&p, word) != NULL); /* the binary */
  ASSERT_TRUE(shell_word(&p, word) != NULL); /* the protocol */
  size_t a = 0;
  for (char *t = shell_word(&p, word); t != NULL && strcmp(t, "--output") != 0;
       t = shell_word(&p, word)) {
    ASSERT_TRUE(a < cf->argc);
    const char *want = cf->argv[a];
    size_t wl = strlen(want);
    if (want[0] == '{' && wl > 9 && strcmp(want + wl - 9, "capacity}") == 0)
      /* a rate-fraction: the runner wrote the rate it resolved (the
       * self-check re-derives it from the capacity runs) */
      ASSERT_TRUE(strspn(t, "0123456789") == strlen(t) && t[0] != '\0');
    else
      ASSERT_STR_EQ(t, want);
    a++;
  }
  free(word);
  ASSERT_EQ(a, cf->argc);
  free(text);
}

/* Every committed result set: its plan expands to the ids, options and
 * groups of its summary and the commands its repetitions ran. */
static void check_results(const char *src) {
  char dir[2048], path[8192];
  snprintf(dir, sizeof dir, "%s/results", src);
  char **sets = list_dir(dir, "");
  size_t nsets = 0;
  for (size_t i = 0; sets[i] != NULL; i++) {
    struct np_errbuf eb = {{0}};
    cJSON *suite = NULL, *summary = NULL;
    snprintf(path, sizeof path, "%s/%s/suite.json", dir, sets[i]);
    if (!mx_exists(path))
      continue;
    ASSERT_OK(np_json_load_file(path, NULL, &suite, &eb));
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, sets[i]);
    ASSERT_OK(np_json_load_file(path, NULL, &summary, &eb));
    const char *pf = np_json_get_string(suite, "plan_file", "");
    const char *base = strrchr(pf, '/') ? strrchr(pf, '/') + 1 : pf;
    snprintf(path, sizeof path, "%s/bench/plans/%s", src, base);
    if (!mx_exists(path)) {
      /* a script's plan (udp-two-namespace): the self-check re-expands
       * the plan suite.json keeps; there is no shipped file to hold it to */
      printf("%s: plan %s is not shipped, skipped\n", sets[i], base);
      cJSON_Delete(suite);
      cJSON_Delete(summary);
      continue;
    }
    struct np_matrix_plan *p = NULL;
    ASSERT_OK(np_matrix_plan_load(path, &p, &eb));
    const cJSON *cfgs = cJSON_GetObjectItemCaseSensitive(summary,
                                                         "configurations");
    ASSERT_EQ((size_t)cJSON_GetArraySize(cfgs), p->nconfigs);
    const cJSON *c;
    cJSON_ArrayForEach(c, cfgs) {
      const char *id = np_json_get_string(c, "id", "");
      const struct np_matrix_config *cf = np_matrix_plan_find(p, id);
      if (cf == NULL)
        NP_TEST_FAIL_("%s: configuration %s is no longer in %s", sets[i], id,
                      base);
      ASSERT_TRUE(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(c, "options"),
                                cf->options, 1));
      ASSERT_STR_EQ(np_json_get_string(c, "group", ""), cf->group);
      snprintf(path, sizeof path, "%s/%s/runs/%s/rep-1.cmd.txt", dir, sets[i],
               id);
      check_command(path, cf);
    }
    printf("%s: %zu configurations keyed as committed\n", sets[i],
           p->nconfigs);
    nsets++;
    np_matrix_plan_free(p);
    cJSON_Delete(suite);
    cJSON_Delete(summary);
  }
  free_list(sets);
  ASSERT_GT(nsets, 0);
}

int main(int argc, char **argv) {
  ASSERT_TRUE(argc == 2 || (argc == 3 && strcmp(argv[2], "--regen") == 0));
  check_golden(argv[1], argc == 3);
  check_results(argv[1]);
  char tmp[256];
  mx_tmpdir(tmp, sizeof tmp);
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
    check_plan(argv[1], &plans[i], tmp);
  /* --only narrows a dry run */
  char path[4096], out[4096];
  snprintf(path, sizeof path, "%s/bench/plans/udp-io-models.json", argv[1]);
  snprintf(out, sizeof out, "%s/only.txt", tmp);
  char *a2[] = {"matrix", path, "--dry-run", "--only", "*-p64-c1-*-uv*", NULL};
  ASSERT_EQ(mx_run(a2, out, NULL), 0);
  char *text = mx_read(out);
  ASSERT_NOT_NULL(strstr(text, "5 configurations x 3 repetitions"));
  free(text);
  mx_rm_rf(tmp);
  return 0;
}
