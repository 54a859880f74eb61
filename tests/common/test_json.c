/* test_json.c - bounded loading (size, depth, non-finite numbers, syntax)
 * and atomic writing (no partial or temp file left on failure). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_json.h"
#include "np_test.h"

static int parse(const char *s, const struct np_json_limits *lim,
                 struct np_errbuf *eb) {
  cJSON *doc = NULL;
  int rc = np_json_parse(s, strlen(s), lim, &doc, eb);
  if (rc == 0)
    cJSON_Delete(doc);
  else
    ASSERT_TRUE(doc == NULL);
  return rc;
}

static void test_bad_input(void) {
  struct np_errbuf eb;
  ASSERT_EQ(parse("{\"a\": [1, 2", NULL, &eb), NP_EPARSE);
  ASSERT_TRUE(strstr(eb.msg, "end of input") != NULL);
  ASSERT_EQ(parse("{\"a\": tru}", NULL, &eb), NP_EPARSE);
  ASSERT_EQ(parse("{\"a\": NaN}", NULL, &eb), NP_EPARSE);
  ASSERT_EQ(parse("{\"a\": Infinity}", NULL, &eb), NP_EPARSE);
  ASSERT_EQ(parse("{\"a\": -Infinity}", NULL, &eb), NP_EPARSE);
  ASSERT_EQ(parse("{\"a\": {\"b\": [0, 1e999]}}", NULL, &eb), NP_ENONFINITE);
  ASSERT_STR_EQ(eb.msg, "/a/b/1: number is not finite (NaN or Infinity)");
  ASSERT_EQ(parse("{} {}", NULL, &eb), NP_EPARSE);
  ASSERT_TRUE(strstr(eb.msg, "trailing") != NULL);
  ASSERT_EQ(parse("", NULL, &eb), NP_EPARSE);

  struct np_json_limits lim = {.max_bytes = 8, .max_depth = 3};
  ASSERT_EQ(parse("[1,2,3,4,5]", &lim, &eb), NP_ETOOBIG);
  ASSERT_EQ(parse("[[[1]]]", &lim, &eb), 0);
  ASSERT_EQ(parse("[[[[]]]]", &lim, &eb), NP_ETOODEEP);
  /* brackets inside strings do not count toward depth */
  lim.max_bytes = 0;
  ASSERT_EQ(parse("[\"[[[[[[\\\"[[[\"]", &lim, &eb), 0);

  /* the default depth limit protects against deeply nested input */
  size_t n = 100000;
  char *deep = malloc(2 * n + 1);
  ASSERT_NOT_NULL(deep);
  memset(deep, '[', n);
  memset(deep + n, ']', n);
  deep[2 * n] = '\0';
  ASSERT_EQ(parse(deep, NULL, &eb), NP_ETOODEEP);
  free(deep);
}

static void test_round_trip(void) {
  const char *text = "{\"z\":1,\"a\":0.1,\"m\":12345678901234,"
                     "\"e\":1.2345678901234567e-300,\"s\":\"\\u00e9\"}";
  cJSON *doc = NULL;
  ASSERT_OK(np_json_parse(text, strlen(text), NULL, &doc, NULL));
  char *out = np_json_print(doc, 0);
  ASSERT_NOT_NULL(out);
  cJSON *again = NULL;
  ASSERT_OK(np_json_parse(out, strlen(out), NULL, &again, NULL));
  /* key order is insertion order; doubles survive printing exactly */
  ASSERT_STR_EQ(again->child->string, "z");
  ASSERT_STR_EQ(again->child->next->string, "a");
  ASSERT_TRUE(cJSON_GetObjectItem(again, "a")->valuedouble == 0.1);
  ASSERT_TRUE(cJSON_GetObjectItem(again, "e")->valuedouble ==
              1.2345678901234567e-300);
  ASSERT_TRUE(cJSON_GetObjectItem(again, "m")->valuedouble ==
              12345678901234.0);
  ASSERT_DBL_NEAR(np_json_get_number(again, "missing", -1), -1, 0);
  free(out);
  cJSON_Delete(again);

  cJSON_AddNumberToObject(doc, "bad", NAN);
  ASSERT_TRUE(np_json_print(doc, 1) == NULL);
  cJSON_Delete(doc);
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ASSERT_NOT_NULL(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.')
      n++;
  closedir(d);
  return n;
}

static void test_files(void) {
  char dir[] = "/tmp/np_json_testXXXXXX";
  ASSERT_NOT_NULL(mkdtemp(dir));
  char path[512], sub[512];
  snprintf(path, sizeof(path), "%s/doc.json", dir);
  snprintf(sub, sizeof(sub), "%s/missing/doc.json", dir);
  struct np_errbuf eb;

  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "schema", "x");
  ASSERT_OK(np_json_write_atomic(path, doc, 1, &eb));
  ASSERT_EQ(count_entries(dir), 1);
  cJSON *back = NULL;
  ASSERT_OK(np_json_load_file(path, NULL, &back, &eb));
  ASSERT_STR_EQ(np_json_get_string(back, "schema", NULL), "x");
  cJSON_Delete(back);

  /* a failed write leaves the old file intact and no temp file behind */
  cJSON_AddNumberToObject(doc, "nan", NAN);
  ASSERT_EQ(np_json_write_atomic(path, doc, 1, &eb), NP_EINVAL);
  ASSERT_EQ(np_json_write_atomic(sub, doc, 1, &eb), NP_EINVAL);
  cJSON_DeleteItemFromObject(doc, "nan");
  ASSERT_EQ(np_json_write_atomic(sub, doc, 1, &eb), NP_ENOENT);
  ASSERT_TRUE(strstr(eb.msg, sub) != NULL);
  ASSERT_EQ(count_entries(dir), 1);
  ASSERT_OK(np_json_load_file(path, NULL, &back, &eb));
  ASSERT_TRUE(cJSON_GetObjectItem(back, "nan") == NULL);
  cJSON_Delete(back);
  cJSON_Delete(doc);

  /* unreadable inputs name the file */
  ASSERT_EQ(np_json_load_file(sub, NULL, &back, &eb), NP_ENOENT);
  ASSERT_TRUE(strncmp(eb.msg, sub, strlen(sub)) == 0);
  ASSERT_EQ(np_json_load_file(dir, NULL, &back, &eb), NP_EISDIR);
  struct np_json_limits lim = {.max_bytes = 4};
  ASSERT_EQ(np_json_load_file(path, &lim, &back, &eb), NP_ETOOBIG);
  ASSERT_TRUE(strstr(eb.msg, "exceeds the limit") != NULL);
  FILE *fp = fopen(path, "w");
  fputs("{\"a\": [1,", fp);
  fclose(fp);
  ASSERT_EQ(np_json_load_file(path, NULL, &back, &eb), NP_EPARSE);
  ASSERT_TRUE(strncmp(eb.msg, path, strlen(path)) == 0);

  unlink(path);
  rmdir(dir);
}

int main(void) {
  test_bad_input();
  test_round_trip();
  test_files();
  puts("test_json: ok");
  return 0;
}
