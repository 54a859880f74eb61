/*
 * test_agent_wire.c - the control channel's messages: the 0.2 refusal's
 * bytes and its recognition, length bounds from the header alone, every
 * message type parsed,
 * each kind of bad message refused with its code (size, depth, syntax,
 * non-finite numbers, schema: wrong tag, extra field, unknown action,
 * arguments of another shape, a 0.2 message), encoding limits, framing
 * byte by byte and of several messages in one piece, hex; peer bytes in
 * error lines (member names, schema pointers) escaped to printable ASCII.
 */
#include <string.h>

#include "np_agent_wire.h"
#include "np_test.h"

static struct np_agent_schema *S;

static int parse(const char *text, enum np_agent_type *t) {
  cJSON *m = NULL;
  struct np_errbuf eb = {{0}};
  enum np_agent_type tt = NP_AGENT_REFUSED;
  int rc = np_agent_msg_parse(S, text, strlen(text), &m, &tt, &eb);
  if (rc == 0) {
    ASSERT_NOT_NULL(m);
    cJSON_Delete(m);
    if (t)
      *t = tt;
  } else {
    ASSERT_TRUE(eb.msg[0] != '\0');
  }
  return rc;
}

#define HELLO                                                                  \
  "{\"schema\":\"netproof/agent/2\",\"type\":\"hello\",\"version\":2,"         \
  "\"params\":{\"client\":\"t 1\",\"agent\":"                                 \
  "\"127.0.0.1:7000\",\"purpose\":\"udp\"}}"
#define N64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define REQ(action, args)                                                      \
  "{\"schema\":\"netproof/agent/2\",\"type\":\"request\",\"id\":1,"            \
  "\"action\":\"" action "\",\"args\":" args "}"

static void test_refusal_and_header(void) {
  size_t len = 0;
  const unsigned char *r = np_agent_refusal_v1(&len);
  const char *body = "{\"schema\":\"netproof/agent/1\",\"type\":\"refused\"}";
  ASSERT_EQ(len, 4 + strlen(body));
  ASSERT_EQ(np_agent_hdr_len(r), strlen(body));
  ASSERT_EQ(memcmp(r + 4, body, strlen(body)), 0);
  /* a 0.2 frame is recognised (to be refused by name), nothing else */
  ASSERT_TRUE(np_agent_is_v1(r, len));
  ASSERT_TRUE(!np_agent_is_v1(r, 20));
  static const unsigned char tls[] = "\x16\x03\x01\x00\xc8\x01\x00\x00"
                                     "\xc4\x03\x03....................";
  ASSERT_TRUE(!np_agent_is_v1(tls, sizeof tls - 1));
  enum np_agent_type t;
  /* a 0.2 message is not a message of this protocol */
  ASSERT_EQ(parse(body, &t), NP_ESCHEMA);
  ASSERT_OK(parse("{\"schema\":\"netproof/agent/2\",\"type\":\"refused\","
                  "\"reason\":\"x\"}", &t));
  ASSERT_EQ(t, NP_AGENT_REFUSED);
  const unsigned char zero[4] = {0, 0, 0, 0}, max[4] = {0, 1, 0, 0},
                      over[4] = {0, 1, 0, 1}, huge[4] = {255, 255, 255, 255};
  ASSERT_EQ(np_agent_hdr_len(zero), 0);
  ASSERT_EQ(np_agent_hdr_len(max), 65536);
  ASSERT_EQ(np_agent_hdr_len(over), 0);
  ASSERT_EQ(np_agent_hdr_len(huge), 0);
}

static void test_types(void) {
  static const struct {
    const char *text;
    enum np_agent_type type;
  } ok[] = {
      {HELLO, NP_AGENT_HELLO},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"welcome\",\"version\":2,"
       "\"session\":\"0123456789abcdef0123456789abcdef\",\"agent\":"
       "\"127.0.0.1:7000\",\"listening\":\"0.0.0.0:7000\",\"limits\":{"
       "\"max_message_bytes\":65536,\"max_messages\":10,"
       "\"session_idle_seconds\":60,\"message_seconds\":10,"
       "\"max_output_bytes\":262144}}",
       NP_AGENT_WELCOME},
      {REQ("identify", "{}"), NP_AGENT_REQUEST},
      {REQ("snapshot", "{\"services\":[\"s1\"],\"processes\":true}"),
       NP_AGENT_REQUEST},
      {REQ("start", "{\"service\":\"serve\",\"options\":{\"listen\":"
                    "\"127.0.0.1:0\",\"work\":3,\"quiet\":true},"
                    "\"lifetime_seconds\":5}"),
       NP_AGENT_REQUEST},
      {REQ("record", "{\"service_id\":\"s12\",\"offset\":0}"),
       NP_AGENT_REQUEST},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"response\",\"id\":1,"
       "\"ok\":false,\"error\":{\"code\":\"NP_EUSAGE\",\"message\":\"x\"}}",
       NP_AGENT_RESPONSE},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    enum np_agent_type t;
    if (parse(ok[i].text, &t) != 0)
      NP_TEST_FAIL_("refused: %s", ok[i].text);
    ASSERT_EQ(t, ok[i].type);
  }
}

static void test_refused(void) {
  static const struct {
    const char *text;
    int code;
  } bad[] = {
      {"{\"schema\":\"netproof/agent/2\",\"type\":", NP_EPARSE},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"refused\","
       "\"reason\":1e999}",
       NP_ENONFINITE},
      {"{\"schema\":\"netproof/agent/1\",\"type\":\"refused\"}", NP_ESCHEMA},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"auth\",\"mac\":\"" N64
       "\"}", NP_ESCHEMA},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"refused\",\"x\":1}",
       NP_ESCHEMA},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"shell\"}", NP_ESCHEMA},
      /* found by the fuzzer: a name twice, the validator and a reader could
       * see different values */
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"auth\",\"mac\":\"" N64
       "\",\"mac\":\"x\"}",
       NP_EPARSE},
      {REQ("start", "{\"service\":\"serve\",\"options\":{\"listen\":"
                    "\"127.0.0.1:0\",\"listen\":\"0.0.0.0:1\"},"
                    "\"lifetime_seconds\":1}"),
       NP_EPARSE},
      {"[1,2,3]", NP_ESCHEMA},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"auth\",\"mac\":\"00\"}",
       NP_ESCHEMA},
      {REQ("exec", "{\"command\":\"/bin/sh\"}"), NP_ESCHEMA},
      {REQ("identify", "{\"x\":1}"), NP_ESCHEMA},
      {REQ("start", "{\"service\":\"serve\",\"options\":{}}"), NP_ESCHEMA},
      {REQ("start", "{\"service\":\"sh\",\"options\":{},"
                    "\"lifetime_seconds\":1}"),
       NP_ESCHEMA},
      {REQ("start", "{\"service\":\"serve\",\"options\":{\"--x\":1},"
                    "\"lifetime_seconds\":1}"),
       NP_ESCHEMA},
      {REQ("start", "{\"service\":\"serve\",\"options\":{\"listen\":[1]},"
                    "\"lifetime_seconds\":1}"),
       NP_ESCHEMA},
      {REQ("start", "{\"service\":\"serve\",\"options\":{},"
                    "\"lifetime_seconds\":100000}"),
       NP_ESCHEMA},
      {REQ("stop", "{\"service_id\":\"../etc\"}"), NP_ESCHEMA},
      {REQ("record", "{\"service_id\":\"s1\"}"), NP_ESCHEMA},
      {"{\"schema\":\"netproof/agent/2\",\"type\":\"response\",\"id\":1,"
       "\"ok\":true}",
       NP_ESCHEMA},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = parse(bad[i].text, NULL);
    if (rc != bad[i].code)
      NP_TEST_FAIL_("%s: %d, want %d", bad[i].text, rc, bad[i].code);
  }
  /* depth and size, before cJSON */
  char deep[200];
  memset(deep, '[', 40);
  memset(deep + 40, ']', 40);
  deep[80] = '\0';
  ASSERT_EQ(parse(deep, NULL), NP_ETOODEEP);
  ASSERT_EQ(parse("", NULL), NP_ETOOBIG);
  size_t big = NP_AGENT_MSG_MAX + 1;
  char *b = malloc(big + 1);
  ASSERT_NOT_NULL(b);
  memset(b, ' ', big);
  b[0] = '{';
  b[big - 1] = '}';
  b[big] = '\0';
  cJSON *m = NULL;
  enum np_agent_type t;
  struct np_errbuf eb;
  ASSERT_EQ(np_agent_msg_parse(S, b, big, &m, &t, &eb), NP_ETOOBIG);
  free(b);
}

static void test_encode_and_rx(void) {
  cJSON *m = np_agent_msg_new(NP_AGENT_REFUSED);
  unsigned char *buf = NULL;
  size_t len = 0;
  struct np_errbuf eb;
  ASSERT_OK(np_agent_msg_encode(m, &buf, &len, &eb));
  /* byte by byte: one whole message at the end */
  struct np_agent_rx rx;
  ASSERT_OK(np_agent_rx_init(&rx));
  for (size_t i = 0; i < len; i++) {
    size_t used = 0;
    int got = np_agent_rx_feed(&rx, buf + i, 1, &used);
    ASSERT_EQ(used, 1);
    ASSERT_EQ(got, i + 1 == len ? 1 : 0);
    ASSERT_EQ(np_agent_rx_started(&rx), 1);
  }
  ASSERT_EQ(rx.len, len - 4);
  ASSERT_EQ(memcmp(rx.body, buf + 4, rx.len), 0);
  /* two messages in one piece: the first ends where it ends */
  unsigned char two[256];
  memcpy(two, buf, len);
  memcpy(two + len, buf, len);
  np_agent_rx_reset(&rx);
  ASSERT_EQ(np_agent_rx_started(&rx), 0);
  size_t used = 0;
  ASSERT_EQ(np_agent_rx_feed(&rx, two, 2 * len, &used), 1);
  ASSERT_EQ(used, len);
  np_agent_rx_reset(&rx);
  ASSERT_EQ(np_agent_rx_feed(&rx, two + len, len, &used), 1);
  ASSERT_EQ(used, len);
  /* an oversized length is refused from its header */
  np_agent_rx_reset(&rx);
  const unsigned char over[6] = {0, 1, 0, 1, '{', '}'};
  ASSERT_EQ(np_agent_rx_feed(&rx, over, 6, &used), NP_ETOOBIG);
  ASSERT_EQ(used, 4);
  np_agent_rx_free(&rx);
  free(buf);
  /* a message over 64 KiB cannot be encoded */
  char *pad = malloc(NP_AGENT_MSG_MAX + 1);
  ASSERT_NOT_NULL(pad);
  memset(pad, 'x', NP_AGENT_MSG_MAX);
  pad[NP_AGENT_MSG_MAX] = '\0';
  cJSON_AddStringToObject(m, "pad", pad);
  ASSERT_EQ(np_agent_msg_encode(m, &buf, &len, &eb), NP_ETOOBIG);
  free(pad);
  cJSON_Delete(m);
}

/* Peer bytes in error lines: printable ASCII only, escapes for the rest. */
static int printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
      return 0;
  return 1;
}

static void test_text_safe(void) {
  char out[64];
  ASSERT_EQ(np_agent_text_safe("a\nb\x1b[31m\x7f\xc3\xa9\\ ok", 100, out,
                               sizeof out),
            strlen(out));
  ASSERT_STR_EQ(out, "a\\x0ab\\x1b[31m\\x7f\\xc3\\xa9\\ ok");
  /* whole escapes only, within in_len and out_len */
  np_agent_text_safe("ab\ncd", 100, out, 6);
  ASSERT_STR_EQ(out, "ab");
  np_agent_text_safe("ab\ncd", 2, out, sizeof out);
  ASSERT_STR_EQ(out, "ab");
  np_agent_text_safe("ab", 2, out, 1);
  ASSERT_STR_EQ(out, "");
  /* a member name twice, with a forged log line in it */
  cJSON *m = NULL;
  enum np_agent_type t;
  struct np_errbuf eb = {{0}};
  static const char dup[] =
      "{\"schema\":\"netproof/agent/2\",\"type\":\"hello\","
      "\"a\\nnetproof-bench agent: forged\\u001b\xc3\xa9\":1,"
      "\"a\\nnetproof-bench agent: forged\\u001b\xc3\xa9\":2}";
  ASSERT_EQ(np_agent_msg_parse(S, dup, strlen(dup), &m, &t, &eb), NP_EPARSE);
  if (!printable(eb.msg) ||
      strstr(eb.msg, "a\\x0anetproof-bench agent: forged\\x1b\\xc3\\xa9") ==
          NULL)
    NP_TEST_FAIL_("duplicate member: '%s'", eb.msg);
  /* a member the schema does not know, named with control bytes */
  static const char extra[] =
      "{\"schema\":\"netproof/agent/2\",\"type\":\"refused\","
      "\"x\\r\\ny\\u0007\":{\"z\\n\":1}}";
  memset(&eb, 0, sizeof eb);
  ASSERT_EQ(np_agent_msg_parse(S, extra, strlen(extra), &m, &t, &eb),
            NP_ESCHEMA);
  if (!printable(eb.msg))
    NP_TEST_FAIL_("schema error: '%s'", eb.msg);
}

static void test_hex(void) {
  unsigned char b[4] = {0x00, 0x7f, 0x80, 0xff}, back[4];
  char hex[9];
  np_agent_hex(b, 4, hex);
  ASSERT_STR_EQ(hex, "007f80ff");
  ASSERT_OK(np_agent_unhex("007F80ff", back, 4));
  ASSERT_EQ(memcmp(b, back, 4), 0);
  ASSERT_EQ(np_agent_unhex("007f80f", back, 4), NP_EPARSE);
  ASSERT_EQ(np_agent_unhex("007f80fg", back, 4), NP_EPARSE);
}

int main(void) {
  struct np_errbuf eb;
  ASSERT_OK(np_agent_schema_new(&S, &eb));
  test_refusal_and_header();
  test_types();
  test_refused();
  test_encode_and_rx();
  test_text_safe();
  test_hex();
  np_agent_schema_free(S);
  return 0;
}
