/*
 * test_plan_find.c - where `netproof-bench matrix NAME` reads its plan
 * (runner/np_matrix_find.h), each step of the lookup pointed at
 * folders of the test's own: a path read as given; --plans-dir and only
 * it; a build tree (the netproof-source-dir mark) reading its source
 * tree's bench/plans and nothing else; an install found beside the
 * program, then at the compiled-in path; the order between those two; bad
 * names, names found nowhere (every folder tried named), --plans-dir with
 * a path; and the compiled-in defaults.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_matrix_find.h"
#include "np_test.h"

/* the test folder; short, so every path below it fits PATH_MAX */
static char root[256];

static void mkdirs(const char *rel) {
  char path[PATH_MAX], *p;
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    (void)mkdir(path, 0755);
    *p = '/';
  }
  (void)mkdir(path, 0755);
}

static void put(const char *rel, const char *text) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "w");
  ASSERT_NOT_NULL(f);
  fputs(text, f);
  ASSERT_EQ(fclose(f), 0);
}

/* root/rel in a slot of its own: every path the test makes stays valid
 * (the lookup structs hold them) */
static char slots[64][512];
static size_t nslots;

static const char *at(const char *rel) {
  ASSERT_LT(nslots, sizeof slots / sizeof slots[0]);
  char *p = slots[nslots++];
  ASSERT_LT((size_t)snprintf(p, sizeof slots[0], "%s/%s", root, rel),
            sizeof slots[0]);
  return p;
}

static int find(const struct np_matrix_find_dirs *d, const char *arg,
                char *out, struct np_errbuf *eb) {
  memset(eb, 0, sizeof *eb);
  strcpy(out, "untouched");
  return np_matrix_find_plan(arg, d, out, PATH_MAX, eb);
}

static void names_and_paths(void) {
  ASSERT_EQ(np_matrix_find_is_name("quick"), 1);
  ASSERT_EQ(np_matrix_find_is_name("udp-io-models"), 1);
  ASSERT_EQ(np_matrix_find_is_name("quick.json"), 0);
  ASSERT_EQ(np_matrix_find_is_name("plans/quick"), 0);
  ASSERT_EQ(np_matrix_find_is_name("./quick"), 0);

  struct np_matrix_find_dirs d = {NULL, at("none/bin/x"), NULL, NULL};
  struct np_errbuf eb;
  char out[PATH_MAX];
  ASSERT_OK(find(&d, "my/plan.json", out, &eb));
  ASSERT_STR_EQ(out, "my/plan.json");
  ASSERT_OK(find(&d, "plan.json", out, &eb)); /* a file in the cwd */
  ASSERT_STR_EQ(out, "plan.json");

  /* --plans-dir applies to names only */
  d.override = at("mine");
  ASSERT_EQ(find(&d, "x/plan.json", out, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(out, "untouched");
  ASSERT_NOT_NULL(strstr(eb.msg, "--plans-dir "));
  ASSERT_NOT_NULL(strstr(eb.msg, "'x/plan.json' is a path"));

  static const char *const bad[] = {".hidden", "..", "a b", "a$b", "é"};
  d.override = NULL;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ASSERT_EQ(find(&d, bad[i], out, &eb), NP_EUSAGE);
    ASSERT_STR_EQ(out, "untouched");
    ASSERT_NOT_NULL(strstr(eb.msg, "plan name '"));
  }
}

static void override_only(void) {
  mkdirs("mine");
  put("mine/q.json", "{}");
  mkdirs("inst/share/netproof/plans");
  put("inst/share/netproof/plans/other.json", "{}");
  struct np_matrix_find_dirs d = {at("mine"), at("inst/bin/netproof-bench"),
                                  "../share/netproof/plans",
                                  at("inst/share/netproof/plans")};
  struct np_errbuf eb;
  char out[PATH_MAX];
  ASSERT_OK(find(&d, "q", out, &eb));
  ASSERT_STR_EQ(out, at("mine/q.json"));
  /* installed plans are not looked at when --plans-dir is given */
  ASSERT_EQ(find(&d, "other", out, &eb), NP_ENOENT);
  ASSERT_STR_EQ(out, "untouched");
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "plan 'other': no other.json in %s (",
           at("mine"));
  ASSERT_NOT_NULL(strstr(eb.msg, want));
}

static void build_tree(void) {
  /* build/bench/netproof-bench beside its mark; src/bench/plans */
  mkdirs("build/bench");
  put("build/bench/netproof-bench", "");
  mkdirs("src/bench/plans");
  put("src/bench/plans/quick.json", "{}");
  char mark[PATH_MAX + 2];
  snprintf(mark, sizeof mark, "%s\n", at("src"));
  put("build/bench/" NP_MATRIX_SOURCE_MARK, mark);
  /* an installed copy that must not win */
  mkdirs("usr/share/netproof/plans");
  put("usr/share/netproof/plans/quick.json", "{}");
  put("usr/share/netproof/plans/only-installed.json", "{}");
  struct np_matrix_find_dirs d = {NULL, at("build/bench/netproof-bench"),
                                  "../share/netproof/plans",
                                  at("usr/share/netproof/plans")};
  struct np_errbuf eb;
  char out[PATH_MAX];
  ASSERT_OK(find(&d, "quick", out, &eb));
  ASSERT_STR_EQ(out, at("src/bench/plans/quick.json"));
  ASSERT_EQ(find(&d, "only-installed", out, &eb), NP_ENOENT);
  ASSERT_NOT_NULL(strstr(eb.msg, at("src/bench/plans")));
  ASSERT_TRUE(strstr(eb.msg, at("usr/share")) == NULL);
  /* a mark that is not an absolute path is no build tree */
  put("build/bench/" NP_MATRIX_SOURCE_MARK, "relative/src\n");
  ASSERT_OK(find(&d, "only-installed", out, &eb));
  ASSERT_STR_EQ(out, at("usr/share/netproof/plans/only-installed.json"));
}

static void installed(void) {
  /* a staged install: plans beside the program win over the compiled-in
   * folder, which is the fallback */
  mkdirs("stage/usr/bin");
  put("stage/usr/bin/netproof-bench", "");
  mkdirs("stage/usr/share/netproof/plans");
  put("stage/usr/share/netproof/plans/quick.json", "{}");
  mkdirs("compiled/plans");
  put("compiled/plans/quick.json", "{}");
  put("compiled/plans/fallback.json", "{}");
  struct np_matrix_find_dirs d = {NULL, at("stage/usr/bin/netproof-bench"),
                                  "../share/netproof/plans",
                                  at("compiled/plans")};
  struct np_errbuf eb;
  char out[PATH_MAX];
  ASSERT_OK(find(&d, "quick", out, &eb));
  ASSERT_STR_EQ(out, at("stage/usr/bin/../share/netproof/plans/quick.json"));
  ASSERT_OK(find(&d, "fallback", out, &eb));
  ASSERT_STR_EQ(out, at("compiled/plans/fallback.json"));
  ASSERT_EQ(find(&d, "nosuch", out, &eb), NP_ENOENT);
  char want[3 * PATH_MAX];
  snprintf(want, sizeof want, "in %s, %s (",
           at("stage/usr/bin/../share/netproof/plans"), at("compiled/plans"));
  ASSERT_NOT_NULL(strstr(eb.msg, want));
  /* the two folders are one: named once */
  d.installed = at("stage/usr/share/netproof/plans");
  ASSERT_EQ(find(&d, "nosuch", out, &eb), NP_ENOENT);
  snprintf(want, sizeof want, "in %s (",
           at("stage/usr/bin/../share/netproof/plans"));
  ASSERT_NOT_NULL(strstr(eb.msg, want));
}

static void defaults(void) {
  struct np_matrix_find_dirs d;
  np_matrix_find_dirs_default(&d, "x");
  ASSERT_STR_EQ(d.override, "x");
  ASSERT_TRUE(d.exe == NULL);
  ASSERT_STR_EQ(d.rel, "../share/netproof/plans");
  ASSERT_EQ(d.installed[0], '/');
  ASSERT_NOT_NULL(strstr(d.installed, "/share/netproof/plans"));
  /* this test program runs from the build tree but has no mark beside it:
   * the installed folders are tried */
  d.override = NULL;
  struct np_errbuf eb;
  char out[PATH_MAX];
  ASSERT_EQ(find(&d, "no-such-plan-anywhere", out, &eb), NP_ENOENT);
  ASSERT_NOT_NULL(strstr(eb.msg, d.installed));
}

int main(void) {
  char tmpl[] = "/tmp/np-plan-find-XXXXXX";
  ASSERT_NOT_NULL(mkdtemp(tmpl));
  char real[PATH_MAX];
  ASSERT_NOT_NULL(realpath(tmpl, real));
  ASSERT_LT(strlen(real), sizeof root);
  strcpy(root, real);
  names_and_paths();
  override_only();
  build_tree();
  installed();
  defaults();
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ASSERT_EQ(system(cmd), 0);
  printf("test_plan_find: ok\n");
  return 0;
}
