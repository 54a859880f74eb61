/*
 * test_schema_unit - np_schema behaviour the official suite does not pin
 * down: compile-time errors and their messages, error locations and
 * keywords, recursion limits, ECMA-262 regex flavour, code-point lengths,
 * JSON equality, URI resolution and the embedded shipped schemas.
 */
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_schema.h"
#include "np_schema_int.h"
#include "np_test.h"

static cJSON *parse(const char *text) {
  cJSON *doc = NULL;
  struct np_errbuf eb;
  int rc = np_json_parse(text, strlen(text), NULL, &doc, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("bad test JSON (%s): %s", eb.msg, text);
  return doc;
}

/* Compile schema_text; returns the code and leaves the message in eb. */
static int compile_text(const char *schema_text, struct np_schema **out,
                        struct np_errbuf *eb) {
  cJSON *doc = parse(schema_text);
  int rc = np_schema_compile(doc, out, eb);
  cJSON_Delete(doc);
  return rc;
}

struct collected {
  char lines[16][200];
  int n;
};

static void collect(void *ctx, const char *pointer, const char *keyword,
                    const char *reason) {
  struct collected *c = ctx;
  (void)reason;
  if (c->n < 16)
    snprintf(c->lines[c->n], sizeof(c->lines[0]), "%s %s", pointer, keyword);
  c->n++;
}

static bool has_line(const struct collected *c, const char *want) {
  for (int i = 0; i < c->n && i < 16; i++)
    if (strcmp(c->lines[i], want) == 0)
      return true;
  return false;
}

/* Validate instance_text against schema_text; returns the code. */
static int check(const char *schema_text, const char *instance_text,
                 struct collected *c) {
  struct np_schema *s = NULL;
  struct np_errbuf eb = {{0}};
  int rc = compile_text(schema_text, &s, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("compile failed: %s", eb.msg);
  cJSON *inst = parse(instance_text);
  rc = np_schema_validate(s, inst, c ? collect : NULL, c);
  cJSON_Delete(inst);
  np_schema_free(s);
  return rc;
}

static void expect_compile_error(const char *schema_text, int code,
                                 const char *needle) {
  struct np_schema *s = NULL;
  struct np_errbuf eb = {{0}};
  int rc = compile_text(schema_text, &s, &eb);
  ASSERT_EQ(rc, code);
  ASSERT_TRUE(s == NULL);
  if (!strstr(eb.msg, needle))
    NP_TEST_FAIL_("message \"%s\" lacks \"%s\"", eb.msg, needle);
}

static void test_compile_errors(void) {
  expect_compile_error("{\"properties\": {\"a\": {\"frobnicate\": 1}}}",
                       NP_EUNSUPPORTED, "#/properties/a: frobnicate");
  expect_compile_error("{\"unevaluatedProperties\": false}", NP_EUNSUPPORTED,
                       "unevaluatedProperties");
  expect_compile_error("{\"$dynamicRef\": \"#x\"}", NP_EUNSUPPORTED,
                       "$dynamicRef");
  expect_compile_error("{\"$vocabulary\": {}}", NP_EUNSUPPORTED,
                       "$vocabulary");
  expect_compile_error("{\"$ref\": \"#/$defs/missing\"}", NP_EREF,
                       "#/$defs/missing");
  expect_compile_error("{\"$ref\": \"http://example.com/other.json\"}",
                       NP_EREF, "remote");
  expect_compile_error("{\"$ref\": \"#nope\"}", NP_EREF, "#nope");
  expect_compile_error("{\"$ref\": \"#/enum\", \"enum\": [1]}", NP_EREF,
                       "does not point to a schema");
  expect_compile_error("{\"pattern\": \"(\"}", NP_EPARSE, "bad regex");
  expect_compile_error("{\"minLength\": -1}", NP_EPARSE, "minLength");
  expect_compile_error("{\"type\": \"integr\"}", NP_EPARSE, "type");
  expect_compile_error("{\"items\": 3}", NP_EPARSE, "#/items");
  expect_compile_error("{\"$schema\": \"http://json-schema.org/draft-07/schema#\"}",
                       NP_EUNSUPPORTED, "2020-12");
}

static void test_error_locations(void) {
  const char *schema =
      "{\"type\": \"object\", \"required\": [\"z\"],"
      " \"properties\": {\"a\": {\"type\": \"integer\"},"
      "   \"b/c\": {\"minimum\": 10},"
      "   \"list\": {\"items\": {\"maxLength\": 2}}},"
      " \"additionalProperties\": false}";
  struct collected c = {0};
  int rc = check(schema,
                 "{\"a\": 1.5, \"b/c\": 5, \"extra\": 1,"
                 " \"list\": [\"ok\", \"tooo\"]}",
                 &c);
  ASSERT_EQ(rc, NP_ESCHEMA);
  ASSERT_EQ(c.n, 5);
  ASSERT_TRUE(has_line(&c, " required"));
  ASSERT_TRUE(has_line(&c, "/a type"));
  ASSERT_TRUE(has_line(&c, "/b~1c minimum"));
  ASSERT_TRUE(has_line(&c, "/extra additionalProperties"));
  ASSERT_TRUE(has_line(&c, "/list/1 maxLength"));

  /* anyOf reports one summary, not its alternatives' errors */
  memset(&c, 0, sizeof(c));
  rc = check("{\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 3}]}", "1",
             &c);
  ASSERT_EQ(rc, NP_ESCHEMA);
  ASSERT_EQ(c.n, 1);
  ASSERT_TRUE(has_line(&c, " anyOf"));
  ASSERT_OK(check("{\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 3}]}",
                  "4", NULL));
}

static void test_limits(void) {
  struct collected c = {0};
  ASSERT_EQ(check("{\"$ref\": \"#\"}", "1", &c), NP_ETOODEEP);
  ASSERT_EQ(c.n, 1);
  ASSERT_EQ(check("{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"},"
                  " \"b\": {\"not\": {\"$ref\": \"#/$defs/a\"}}},"
                  " \"$ref\": \"#/$defs/a\"}",
                  "{}", NULL),
            NP_ETOODEEP);
  /* recursion that descends into the instance is fine */
  ASSERT_OK(check("{\"properties\": {\"n\": {\"$ref\": \"#\"}}}",
                  "{\"n\": {\"n\": {\"n\": {}}}}", NULL));
}

static void test_strings_and_numbers(void) {
  /* \d is ASCII only (ECMA-262 without the u-flag's Unicode classes) */
  ASSERT_OK(check("{\"pattern\": \"^\\\\d+$\"}", "\"042\"", NULL));
  ASSERT_EQ(check("{\"pattern\": \"^\\\\d$\"}", "\"\\u0663\"", NULL),
            NP_ESCHEMA);
  /* $ matches only at the very end */
  ASSERT_EQ(check("{\"pattern\": \"^a$\"}", "\"a\\n\"", NULL), NP_ESCHEMA);
  /* lengths in code points: e-acute, euro sign, G clef = 3 */
  ASSERT_OK(check("{\"maxLength\": 3, \"minLength\": 3}",
                  "\"\\u00e9\\u20ac\\ud834\\udd1e\"", NULL));
  /* "integer" is exact as written (stricter than 2020-12 on purpose):
   * 1.0, 1e0 and integers past 2^53-1 are refused; 2^53-1 is not */
  ASSERT_EQ(check("{\"type\": \"integer\"}", "1.0", NULL), NP_ESCHEMA);
  ASSERT_EQ(check("{\"type\": \"integer\"}", "1.0e0", NULL), NP_ESCHEMA);
  ASSERT_EQ(check("{\"type\": \"integer\"}", "1E2", NULL), NP_ESCHEMA);
  ASSERT_EQ(check("{\"type\": \"integer\"}", "9007199254740993", NULL),
            NP_ESCHEMA);
  ASSERT_EQ(check("{\"type\": \"integer\"}", "-9007199254740992", NULL),
            NP_ESCHEMA);
  ASSERT_OK(check("{\"type\": \"integer\"}", "9007199254740991", NULL));
  ASSERT_OK(check("{\"type\": \"integer\"}", "-0", NULL));
  ASSERT_OK(check("{\"type\": \"number\"}", "1.0e0", NULL));
  ASSERT_EQ(check("{\"type\": \"integer\"}", "1.5", NULL), NP_ESCHEMA);
  ASSERT_OK(check("{\"enum\": [1, {\"a\": 1, \"b\": [2]}]}",
                  "{\"b\": [2.0], \"a\": 1}", NULL));
  ASSERT_EQ(check("{\"const\": false}", "0", NULL), NP_ESCHEMA);
  ASSERT_EQ(check("{\"uniqueItems\": true}", "[1, {\"x\": 1}, {\"x\": 1.0}]",
                  NULL),
            NP_ESCHEMA);
  ASSERT_OK(check("{\"multipleOf\": 0.01}", "19.99", NULL));
  ASSERT_EQ(check("{\"multipleOf\": 0.01}", "19.995", NULL), NP_ESCHEMA);
}

static void test_uri(void) {
  static const char *const cases[][3] = {
      {"http://a/b/c/d;p?q", "g", "http://a/b/c/g"},
      {"http://a/b/c/d;p?q", "../g", "http://a/b/g"},
      {"http://a/b/c/d;p?q", "/g", "http://a/g"},
      {"http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"},
      {"http://a/b/c/d;p?q", "../../../g", "http://a/g"},
      {"http://a/b/c/d;p?q", "./g/.", "http://a/b/c/g/"},
      {"urn:uuid:deadbeef", "#/$defs/x", "urn:uuid:deadbeef#/$defs/x"},
      {"", "#foo", "#foo"},
      {"", "node", "node"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *r = np_schema__uri_resolve(cases[i][0], cases[i][1]);
    ASSERT_STR_EQ(r, cases[i][2]);
    free(r);
  }
}

static void test_builtin(void) {
  struct np_schema *s = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_EQ(np_schema_builtin("netproof/no-such/1", &s, &eb), NP_ENOENT);
  ASSERT_EQ(np_schema_builtin("../etc/passwd", &s, &eb), NP_ENOENT);
  ASSERT_TRUE(s == NULL);
  int n = 0;
  for (const struct np_schema_embedded *e = np_schema__embedded; e->name;
       e++, n++) {
    char tag[200];
    snprintf(tag, sizeof(tag), "netproof/%s/1", e->name);
    if (np_schema_builtin(e->name, &s, &eb) != 0)
      NP_TEST_FAIL_("shipped schema %s: %s", e->name, eb.msg);
    np_schema_free(s);
    s = NULL;
    ASSERT_OK(np_schema_builtin(tag, &s, &eb));
    np_schema_free(s);
    s = NULL;
  }
  printf("embedded schemas: %d\n", n);

  cJSON *doc = parse("{\"x\": 1}");
  ASSERT_EQ(np_schema_validate_tagged(doc, &eb), NP_ENOENT);
  ASSERT_TRUE(strstr(eb.msg, "/schema") != NULL);
  cJSON_Delete(doc);
  doc = parse("{\"schema\": \"netproof/zzz/1\"}");
  ASSERT_EQ(np_schema_validate_tagged(doc, &eb), NP_ENOENT);
  cJSON_Delete(doc);
  np_schema_free(NULL);
}

int main(void) {
  test_compile_errors();
  test_error_locations();
  test_limits();
  test_strings_and_numbers();
  test_uri();
  test_builtin();
  printf("test_schema_unit: ok\n");
  return 0;
}
