/* test_json.c - bounded, strict loading (size, depth, non-finite numbers,
 * syntax, duplicate names, UTF-8, control characters, number tags) and
 * atomic writing (no partial or temp file left on failure). */
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

/* parse that must fail with code and exactly message want. */
static void refused(const char *text, size_t len, int code, const char *want) {
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  int rc = np_json_parse(text, len, NULL, &doc, &eb);
  ASSERT_EQ(rc, code);
  ASSERT_TRUE(doc == NULL);
  ASSERT_STR_EQ(eb.msg, want);
}

#define REFUSED(lit, code, want) refused(lit, sizeof(lit) - 1, code, want)

/* One JSON, one meaning: what another reader would read differently. */
static void test_strict(void) {
  /* duplicate member names, compared decoded, at any depth */
  REFUSED("{\"median\":1,\"median\":1000000}", NP_EPARSE,
          "/median: duplicate member name");
  REFUSED("{\"a\":{\"s\":1,\"\\u0073\":2}}", NP_EPARSE,
          "/a/s: duplicate member name");
  REFUSED("[0,{\"x\":[{\"k\":1,\"j\":2,\"k\":3}]}]", NP_EPARSE,
          "/1/x/0/k: duplicate member name");
  /* a large object takes the sorted path; the later one is named */
  char big[2048] = "{";
  for (int i = 0; i < 40; i++)
    snprintf(big + strlen(big), sizeof(big) - strlen(big), "\"k%d\":%d,", i,
             i);
  strcat(big, "\"k7\":0}");
  refused(big, strlen(big), NP_EPARSE, "/k7: duplicate member name");
  /* two repeated names: the one repeated first in the text is named */
  big[strlen(big) - 7] = '\0';
  strcat(big, "\"k30\":0,\"k5\":0}");
  refused(big, strlen(big), NP_EPARSE, "/k30: duplicate member name");
  /* invalid UTF-8: stray continuation, overlong, surrogate, past U+10FFFF,
   * truncated sequence */
  REFUSED("{\"l\":\"a\x80\"}", NP_EPARSE,
          "/l: invalid UTF-8 in a string (byte 7)");
  REFUSED("{\"l\":\"\xc0\xaf\"}", NP_EPARSE,
          "/l: invalid UTF-8 in a string (byte 6)");
  REFUSED("{\"l\":\"\xed\xa0\x80\"}", NP_EPARSE,
          "/l: invalid UTF-8 in a string (byte 6)");
  REFUSED("{\"l\":\"\xf4\x90\x80\x80\"}", NP_EPARSE,
          "/l: invalid UTF-8 in a string (byte 6)");
  REFUSED("[\"\xe2\x82\"]", NP_EPARSE,
          "/0: invalid UTF-8 in a string (byte 2)");
  ASSERT_EQ(parse("[\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"]", NULL, NULL),
            0);
  /* control characters: raw in a value or a name; escaped they are fine */
  REFUSED("{\"l\":\"a\x1b[2J\"}", NP_EPARSE,
          "/l: unescaped control character in a string (byte 7)");
  REFUSED("{\"a\tb\":1}", NP_EPARSE,
          "/: unescaped control character in a string (byte 3)");
  ASSERT_EQ(parse("{\"l\":\"a\\u001b[2J\\n\"}", NULL, NULL), 0);
  /* \u0000 would cut a C string short: "a\u0000b" would read as "a" */
  REFUSED("{\"a\\u0000b\":1,\"a\":2}", NP_EPARSE,
          "/: \\u0000 (NUL) in a string (byte 3)");
  REFUSED("[\"\\ud800\"]", NP_EPARSE,
          "/0: lone UTF-16 surrogate in a string (byte 2)");
  REFUSED("[\"\\udc00\\ud800\"]", NP_EPARSE,
          "/0: lone UTF-16 surrogate in a string (byte 2)");
  ASSERT_EQ(parse("[\"\\ud834\\udd1e\"]", NULL, NULL), 0);
  /* a raw NUL byte anywhere */
  REFUSED("[1]\0", NP_EPARSE, "/: malformed JSON: trailing data (byte 3)");
  /* a name with an escaped control character is printed escaped */
  REFUSED("{\"\\u001b[2J\":1,\"\\u001b[2J\":2}", NP_EPARSE,
          "/\\x1b[2J: duplicate member name");
  REFUSED("{\"\\u009b2J\\u007f\":1,\"\\u009b2J\\u007f\":2}", NP_EPARSE,
          "/\\xc2\\x9b2J\\x7f: duplicate member name");
  /* syntax errors name their place too */
  REFUSED("{\"a\":[1,2,}", NP_EPARSE,
          "/a/2: malformed JSON: unexpected character (byte 10)");
  REFUSED("{\"a\":01}", NP_EPARSE,
          "/a: malformed JSON: expected ',' or '}' (byte 6)");
  REFUSED("{\"a\":1.}", NP_EPARSE,
          "/a: malformed JSON: invalid number (byte 7)");
  /* depth: the pointer of the container that goes too deep */
  struct np_json_limits lim = {.max_depth = 2};
  struct np_errbuf eb;
  ASSERT_EQ(parse("{\"a\":[{}]}", &lim, &eb), NP_ETOODEEP);
  ASSERT_STR_EQ(eb.msg, "/a/0: nesting deeper than 2 (byte 6)");
}

/* How numbers were written reaches the tree. */
static void test_number_tags(void) {
  const char *t = "[1, 1.0, 1e0, -0, 9007199254740991, 9007199254740992,"
                  " -9007199254740993, 12345678901234567890, 2.5E-3]";
  cJSON *doc = NULL;
  ASSERT_OK(np_json_parse(t, strlen(t), NULL, &doc, NULL));
  static const int exact[] = {1, 0, 0, 1, 1, 0, 0, 0, 0};
  int i = 0;
  for (const cJSON *c = doc->child; c != NULL; c = c->next, i++)
    ASSERT_EQ(np_json_is_exact_integer(c), exact[i]);
  ASSERT_EQ(i, 9);
  ASSERT_TRUE(cJSON_GetArrayItem(doc, 1)->type & NP_JSON_NUM_REAL_TEXT);
  ASSERT_TRUE(cJSON_GetArrayItem(doc, 5)->type & NP_JSON_NUM_INEXACT);
  /* the bits do not change cJSON's view of the type or the printed text */
  ASSERT_TRUE(cJSON_IsNumber(cJSON_GetArrayItem(doc, 1)));
  char *out = np_json_print(cJSON_GetArrayItem(doc, 1), 0);
  ASSERT_NOT_NULL(out);
  ASSERT_STR_EQ(out, "1\n");
  free(out);
  cJSON *copy = cJSON_Duplicate(doc, 1);
  ASSERT_EQ(np_json_is_exact_integer(cJSON_GetArrayItem(copy, 2)), 0);
  cJSON_Delete(copy);
  cJSON_Delete(doc);
  /* in memory: an integral double is an integer */
  cJSON *n = cJSON_CreateNumber(42);
  ASSERT_EQ(np_json_is_exact_integer(n), 1);
  cJSON_Delete(n);
}

int main(void) {
  test_strict();
  test_number_tags();
  test_bad_input();
  test_round_trip();
  test_files();
  puts("test_json: ok");
  return 0;
}
