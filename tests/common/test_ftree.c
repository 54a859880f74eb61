/*
 * test_ftree.c - np_ftree: add/get/order, path rules, duplicate refusal,
 * loading a folder (nested files, empty file, symlink refusal, size limit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_ftree.h"
#include "np_test.h"

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ASSERT_NOT_NULL(f);
  ASSERT_EQ(fwrite(text, 1, strlen(text), f), strlen(text));
  ASSERT_EQ(fclose(f), 0);
}

static void test_add_get_order(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  ASSERT_OK(np_ftree_add(t, "runs/b/rep-1.json", "{}", 2));
  ASSERT_OK(np_ftree_add(t, "suite.json", "{\"a\":1}", 7));
  ASSERT_OK(np_ftree_add(t, "runs/a/rep-1.json", "x", 1));
  ASSERT_OK(np_ftree_add(t, "empty.txt", NULL, 0));
  ASSERT_EQ(np_ftree_count(t), 4);
  ASSERT_STR_EQ(np_ftree_path_at(t, 0), "empty.txt");
  ASSERT_STR_EQ(np_ftree_path_at(t, 1), "runs/a/rep-1.json");
  ASSERT_STR_EQ(np_ftree_path_at(t, 2), "runs/b/rep-1.json");
  ASSERT_STR_EQ(np_ftree_path_at(t, 3), "suite.json");
  ASSERT_TRUE(np_ftree_path_at(t, 4) == NULL);
  size_t len = 99;
  const char *d = np_ftree_get(t, "suite.json", &len);
  ASSERT_EQ(len, 7);
  ASSERT_STR_EQ(d, "{\"a\":1}"); /* NUL-terminated */
  d = np_ftree_get(t, "empty.txt", &len);
  ASSERT_NOT_NULL(d);
  ASSERT_EQ(len, 0);
  ASSERT_TRUE(np_ftree_get(t, "missing", &len) == NULL);
  ASSERT_EQ(np_ftree_add(t, "suite.json", "y", 1), NP_EEXIST);
  np_ftree_free(t);
  np_ftree_free(NULL);
}

static void test_path_rules(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  const char *bad[] = {"", "/abs", "a/../b", "..", ".", "./a", "a/.",
                       "a//b", "a/", NULL};
  for (size_t i = 0; bad[i] != NULL; i++)
    ASSERT_EQ(np_ftree_add(t, bad[i], "x", 1), NP_EINVAL);
  ASSERT_EQ(np_ftree_add(t, NULL, "x", 1), NP_EINVAL);
  ASSERT_OK(np_ftree_add(t, "a/..b/.c", "x", 1)); /* dots inside names ok */
  ASSERT_EQ(np_ftree_count(t), 1);
  np_ftree_free(t);
}

static void test_many(void) {
  struct np_ftree *t = NULL;
  ASSERT_OK(np_ftree_new(&t));
  char p[64];
  for (int i = 999; i >= 0; i--) {
    snprintf(p, sizeof p, "f%04d", (i * 7919) % 1000);
    ASSERT_OK(np_ftree_add(t, p, p, strlen(p)));
  }
  ASSERT_EQ(np_ftree_count(t), 1000);
  for (size_t i = 1; i < 1000; i++)
    ASSERT_LT(strcmp(np_ftree_path_at(t, i - 1), np_ftree_path_at(t, i)), 0);
  np_ftree_free(t);
}

static void test_load_dir(void) {
  char dir[] = "/tmp/np_ftree_XXXXXX";
  ASSERT_NOT_NULL(mkdtemp(dir));
  char p[512];
  snprintf(p, sizeof p, "%s/runs", dir);
  ASSERT_EQ(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/runs/c1", dir);
  ASSERT_EQ(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/runs/c1/rep-1.json", dir);
  write_file(p, "{\"n\":1}\n");
  snprintf(p, sizeof p, "%s/suite.json", dir);
  write_file(p, "{}");
  snprintf(p, sizeof p, "%s/empty", dir);
  write_file(p, "");

  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_ftree_load_dir(dir, 0, &t, &eb));
  ASSERT_EQ(np_ftree_count(t), 3);
  ASSERT_STR_EQ(np_ftree_path_at(t, 0), "empty");
  ASSERT_STR_EQ(np_ftree_path_at(t, 1), "runs/c1/rep-1.json");
  ASSERT_STR_EQ(np_ftree_get(t, "runs/c1/rep-1.json", NULL), "{\"n\":1}\n");
  np_ftree_free(t);

  /* Listed, not read: the same paths with their sizes, no bytes; the
   * limits apply to the sizes (pack lists, then streams). */
  t = NULL;
  ASSERT_OK(np_ftree_list_dir(dir, 0, 0, &t, &eb));
  ASSERT_EQ(np_ftree_count(t), 3);
  ASSERT_STR_EQ(np_ftree_path_at(t, 1), "runs/c1/rep-1.json");
  ASSERT_EQ(np_ftree_len_at(t, 0), 0);
  ASSERT_EQ(np_ftree_len_at(t, 1), 8);
  ASSERT_EQ(np_ftree_len_at(t, 2), 2);
  ASSERT_TRUE(np_ftree_has(t, "suite.json"));
  ASSERT_TRUE(!np_ftree_has(t, "runs"));
  ASSERT_TRUE(np_ftree_get(t, "suite.json", NULL) == NULL);
  np_ftree_free(t);
  t = NULL;
  ASSERT_EQ(np_ftree_list_dir(dir, 9, 0, &t, &eb), NP_ETOOBIG);
  ASSERT_TRUE(t == NULL);
  ASSERT_EQ(np_ftree_list_dir(dir, 0, 7, &t, &eb), NP_ETOOBIG);
  ASSERT_TRUE(strstr(eb.msg, "rep-1.json") != NULL);
  ASSERT_TRUE(t == NULL);

  /* Size limit: 10 bytes in total, limit 9. */
  t = NULL;
  ASSERT_EQ(np_ftree_load_dir(dir, 9, &t, &eb), NP_ETOOBIG);
  ASSERT_TRUE(t == NULL);
  ASSERT_TRUE(strstr(eb.msg, "limit") != NULL);

  /* Symlinks are refused. */
  char link[512];
  snprintf(link, sizeof link, "%s/link", dir);
  ASSERT_EQ(symlink("suite.json", link), 0);
  ASSERT_EQ(np_ftree_load_dir(dir, 0, &t, &eb), NP_EINVAL);
  ASSERT_TRUE(strstr(eb.msg, "symbolic link") != NULL);
  ASSERT_TRUE(t == NULL);

  /* Missing folder. */
  ASSERT_EQ(np_ftree_load_dir("/nonexistent/np_ftree", 0, &t, &eb),
            NP_ENOENT);

  unlink(link);
  snprintf(p, sizeof p, "%s/runs/c1/rep-1.json", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/runs/c1", dir);
  rmdir(p);
  snprintf(p, sizeof p, "%s/runs", dir);
  rmdir(p);
  snprintf(p, sizeof p, "%s/suite.json", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/empty", dir);
  unlink(p);
  rmdir(dir);
}

int main(void) {
  test_add_get_order();
  test_path_rules();
  test_many();
  test_load_dir();
  puts("test_ftree: ok");
  return 0;
}
