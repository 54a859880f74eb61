/* test_json_pointer.c - np_json_pointer against RFC 6901 section 5's
 * document and pointers, the order of "~1" / "~0" decoding, array indexes
 * and pointers that must not resolve. */
#include "np_json.h"
#include "np_test.h"

/* RFC 6901, section 5. */
static const char rfc_doc[] =
    "{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, "
    "\"e^f\": 3, \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, "
    "\"m~n\": 8}";

static cJSON *parse(const char *s) {
  cJSON *doc = NULL;
  ASSERT_OK(np_json_parse(s, strlen(s), NULL, &doc, NULL));
  return doc;
}

static void assert_number(const cJSON *doc, const char *ptr, double want) {
  const cJSON *v = np_json_pointer(doc, ptr);
  if (!cJSON_IsNumber(v))
    NP_TEST_FAIL_("pointer \"%s\" does not give a number", ptr);
  ASSERT_DBL_NEAR(v->valuedouble, want, 0);
}

static void test_rfc_examples(void) {
  cJSON *doc = parse(rfc_doc);
  ASSERT_TRUE(np_json_pointer(doc, "") == doc);
  const cJSON *foo = np_json_pointer(doc, "/foo");
  ASSERT_TRUE(cJSON_IsArray(foo));
  ASSERT_EQ(cJSON_GetArraySize(foo), 2);
  ASSERT_STR_EQ(cJSON_GetStringValue(np_json_pointer(doc, "/foo/0")), "bar");
  ASSERT_STR_EQ(cJSON_GetStringValue(np_json_pointer(doc, "/foo/1")), "baz");
  static const struct {
    const char *ptr;
    double value;
  } cases[] = {
      {"/", 0},      {"/a~1b", 1}, {"/c%d", 2},   {"/e^f", 3},
      {"/g|h", 4},   {"/i\\j", 5}, {"/k\"l", 6},  {"/ ", 7},
      {"/m~0n", 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_number(doc, cases[i].ptr, cases[i].value);
  cJSON_Delete(doc);
}

static void test_escapes_and_nesting(void) {
  cJSON *doc = parse("{\"~1\": 1, \"/\": 2, \"~\": 3, \"~0\": 4, "
                     "\"a\": {\"b\": [10, {\"c\": [20, 21]}]}, "
                     "\"Udp.RcvbufErrors\": 5, \"x\": {\"\": {\"\": 6}}}");
  /* "~01" is "~1" (decode ~1 first would give "/"): RFC 6901 section 4 */
  assert_number(doc, "/~01", 1);
  assert_number(doc, "/~1", 2);
  assert_number(doc, "/~0", 3);
  assert_number(doc, "/~00", 4);
  assert_number(doc, "/a/b/0", 10);
  assert_number(doc, "/a/b/1/c/1", 21);
  assert_number(doc, "/Udp.RcvbufErrors", 5);
  assert_number(doc, "/x//", 6);
  ASSERT_TRUE(cJSON_IsObject(np_json_pointer(doc, "/x/")));
  cJSON_Delete(doc);

  /* the first of duplicate keys, as cJSON's own lookup (a tree built
   * without np_json_parse, which refuses such text) */
  doc = cJSON_Parse("{\"k\": 1, \"k\": 2}");
  ASSERT_NOT_NULL(doc);
  assert_number(doc, "/k", 1);
  cJSON_Delete(doc);

  /* indexes past a single digit */
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < 12; i++)
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(100 + i));
  assert_number(arr, "/11", 111);
  assert_number(arr, "/10", 110);
  ASSERT_TRUE(np_json_pointer(arr, "/12") == NULL);
  cJSON_Delete(arr);
}

static void test_bad_pointers(void) {
  cJSON *doc = parse(rfc_doc);
  static const char *const bad[] = {
      "foo",        /* no leading '/'                      */
      "#/foo",      /* URI fragment form is not a pointer  */
      "/m~2n",      /* '~' must be followed by 0 or 1      */
      "/m~",        /* '~' at the end                      */
      "/~",         /* '~' alone                           */
      "/foo/2",     /* past the end                        */
      "/foo/-",     /* "-" names no element                */
      "/foo/01",    /* leading zero                        */
      "/foo/+1",    /* not a decimal                       */
      "/foo/-1",    /* negative                            */
      "/foo/1e0",   /* not a decimal                       */
      "/foo/",      /* empty token on an array             */
      "/foo/0/x",   /* step into a string                  */
      "/a~1b/0",    /* step into a number                  */
      "/a/b",       /* "a" is absent ("a/b" is one key)    */
      "/missing",   /* absent member                       */
      "/foo/99999999999", /* more digits than an index      */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (np_json_pointer(doc, bad[i]) != NULL)
      NP_TEST_FAIL_("pointer \"%s\" resolved", bad[i]);
  ASSERT_TRUE(np_json_pointer(NULL, "") == NULL);
  ASSERT_TRUE(np_json_pointer(doc, NULL) == NULL);
  cJSON_Delete(doc);
}

int main(void) {
  test_rfc_examples();
  test_escapes_and_nesting();
  test_bad_pointers();
  puts("test_json_pointer: ok");
  return 0;
}
