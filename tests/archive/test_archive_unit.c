/*
 * test_archive_unit.c - np_archive's pure pieces: RFC 3339 parsing, name
 * and path rules, manifest checking, evidence diff; and the inputs verify
 * cannot read at all (a folder, a missing file).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_archive.h"
#include "np_bag.h"
#include "np_bagit.h"
#include "np_evidence.h"
#include "np_test.h"

static void test_parse_time(void) {
  int64_t t = 0;
  ASSERT_OK(np_evidence_parse_time("1970-01-01T00:00:00Z", &t));
  ASSERT_EQ(t, 0);
  ASSERT_OK(np_evidence_parse_time("2023-11-14T22:13:20.123456Z", &t));
  ASSERT_EQ(t, 1700000000);
  ASSERT_OK(np_evidence_parse_time("2023-11-15T00:13:20+02:00", &t));
  ASSERT_EQ(t, 1700000000);
  ASSERT_EQ(np_evidence_parse_time("2023-11-14 22:13:20Z", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time("2023-11-14T22:13:20", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time("2023-13-14T22:13:20Z", &t), NP_EPARSE);
  ASSERT_EQ(np_evidence_parse_time(NULL, &t), NP_EPARSE);
}

static void test_names(void) {
  ASSERT_TRUE(np_bag_name_ok("quick"));
  ASSERT_TRUE(np_bag_name_ok("udp-p1024_c16.w1"));
  ASSERT_TRUE(!np_bag_name_ok(""));
  ASSERT_TRUE(!np_bag_name_ok(".."));
  ASSERT_TRUE(!np_bag_name_ok(".hidden"));
  ASSERT_TRUE(!np_bag_name_ok("a/b"));
  ASSERT_TRUE(!np_bag_name_ok("a b"));
  ASSERT_TRUE(np_bagit_path_ok("runs/x/rep-1.json"));
  ASSERT_TRUE(!np_bagit_path_ok("a%20b"));
  ASSERT_TRUE(!np_bagit_path_ok("a\\b"));
  ASSERT_TRUE(!np_bagit_path_ok("a\nb"));
}

static int n_problems;
static void count_cb(void *ctx, const char *file, const char *reason) {
  (void)ctx;
  (void)file;
  (void)reason;
  n_problems++;
}

static void test_manifest(void) {
  struct np_bag *b = NULL;
  struct np_ftree *t = NULL;
  struct np_bag_files f = {0};
  ASSERT_OK(np_bag_new("bag", &b));
  ASSERT_OK(np_bag_suite(b, "s", &t));
  ASSERT_OK(np_ftree_add(t, "a.txt", "abc", 3));
  ASSERT_OK(np_ftree_add(t, "b.txt", "", 0));
  ASSERT_OK(np_bag_files_list(b, 0, &f));
  ASSERT_EQ(f.n, 2);
  ASSERT_STR_EQ(f.v[0].path, "data/s/a.txt");
  ASSERT_STR_EQ(f.v[0].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  char *m = np_bagit_manifest(&f);
  ASSERT_NOT_NULL(m);
  n_problems = 0;
  ASSERT_EQ(np_bagit_check_manifest("manifest", m, strlen(m), &f, count_cb, NULL), 0);
  /* wrong hash */
  m[0] = m[0] == '0' ? '1' : '0';
  ASSERT_EQ(np_bagit_check_manifest("manifest", m, strlen(m), &f, count_cb, NULL), 1);
  /* a line dropped: the file is unlisted */
  char *second = strchr(m, '\n') + 1;
  ASSERT_EQ(np_bagit_check_manifest("manifest", second, strlen(second), &f,
                                    count_cb, NULL), 1);
  /* a malformed line and a line for a file that is not there */
  const char *bad = "xyz\n"
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  data/s/zz\n";
  ASSERT_EQ(np_bagit_check_manifest("manifest", bad, strlen(bad), &f, count_cb,
                                    NULL), 4);
  free(m);
  np_bag_files_free(&f);
  np_bag_free(b);
}

static void test_diff(void) {
  cJSON *a = cJSON_Parse("{\"x\":[1,{\"y\":2}],\"z\":\"q\"}");
  cJSON *b = cJSON_Parse("{\"x\":[1,{\"y\":3}],\"z\":\"q\"}");
  char ptr[256] = "";
  ASSERT_EQ(np_evidence_diff(a, a, ptr, sizeof(ptr)), 0);
  ASSERT_EQ(np_evidence_diff(a, b, ptr, sizeof(ptr)), 1);
  ASSERT_STR_EQ(ptr, "/x/1/y");
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void count_ctx_cb(void *ctx, const char *file, const char *reason) {
  (void)file;
  (void)reason;
  (*(int *)ctx)++;
}

/* Inputs that cannot be read as a bundle at all: each its own code and a
 * message naming the path and what it is, nothing reported as a problem. */
static void test_unreadable(void) {
  char dir[] = "/tmp/np_archive_unitXXXXXX";
  ASSERT_NOT_NULL(mkdtemp(dir));
  struct np_errbuf eb = {{0}};
  int problems = 0;
  ASSERT_EQ(np_archive_verify(dir, NULL, count_ctx_cb, &problems, &eb),
            NP_EISDIR);
  ASSERT_TRUE(strncmp(eb.msg, dir, strlen(dir)) == 0);
  ASSERT_TRUE(strstr(eb.msg, "is a folder") != NULL);
  char missing[512];
  snprintf(missing, sizeof missing, "%s/missing.tar.gz", dir);
  ASSERT_EQ(np_archive_verify(missing, NULL, count_ctx_cb, &problems, &eb),
            NP_ENOENT);
  ASSERT_TRUE(strncmp(eb.msg, missing, strlen(missing)) == 0);
  ASSERT_EQ(problems, 0);
  /* readable but not a bundle: a problem, not an error */
  ASSERT_EQ(np_archive_verify("/dev/null", NULL, count_ctx_cb, &problems, &eb),
            NP_ECORRUPT);
  ASSERT_GT(problems, 0);
  ASSERT_OK(rmdir(dir));
}

int main(void) {
  test_parse_time();
  test_names();
  test_manifest();
  test_diff();
  test_unreadable();
  return 0;
}
