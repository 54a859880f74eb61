/* test_addr.c - the one ADDR:PORT parser (common/np_addr.h): both
 * families, the port-0 rule, every refusal's wording, and the round trip
 * format(parse(x)) == x. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "np_addr.h"
#include "np_test.h"

/* text refused with flags, the message ending in reason. */
static void refused(const char *text, unsigned flags, const char *msg) {
  struct np_errbuf eb = {{0}};
  struct np_addr a;
  memset(&a, 0x5a, sizeof a);
  struct np_addr before = a;
  ASSERT_EQ(np_addr_parse("--listen", text, flags, &a, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, msg);
  ASSERT_TRUE(memcmp(&a, &before, sizeof a) == 0); /* untouched */
}

static void test_ipv4(void) {
  struct np_errbuf eb = {{0}};
  struct np_addr a;
  ASSERT_OK(np_addr_parse("--connect", "127.0.0.1:9000", 0, &a, &eb));
  ASSERT_EQ(np_addr_family(&a), AF_INET);
  ASSERT_EQ(a.len, (socklen_t)sizeof(struct sockaddr_in));
  ASSERT_EQ(np_addr_port(&a), 9000);
  const struct sockaddr_in *s = (const struct sockaddr_in *)&a.ss;
  ASSERT_UINT_EQ(ntohl(s->sin_addr.s_addr), 0x7f000001u);
  char host[64];
  np_addr_host(&a, host, sizeof host);
  ASSERT_STR_EQ(host, "127.0.0.1");
  ASSERT_EQ(np_addr_is_any(&a), 0);
  ASSERT_OK(np_addr_parse("--listen", "0.0.0.0:65535", 0, &a, &eb));
  ASSERT_EQ(np_addr_is_any(&a), 1);
  ASSERT_EQ(np_addr_port(&a), 65535);
}

static void test_ipv6(void) {
  struct np_errbuf eb = {{0}};
  struct np_addr a;
  ASSERT_OK(np_addr_parse("--connect", "[::1]:9", 0, &a, &eb));
  ASSERT_EQ(np_addr_family(&a), AF_INET6);
  ASSERT_EQ(a.len, (socklen_t)sizeof(struct sockaddr_in6));
  ASSERT_EQ(np_addr_port(&a), 9);
  ASSERT_TRUE(IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a.ss)->sin6_addr));
  char host[64];
  np_addr_host(&a, host, sizeof host);
  ASSERT_STR_EQ(host, "::1");
  ASSERT_OK(np_addr_parse("--listen", "[::]:0", NP_ADDR_ANY_PORT, &a, &eb));
  ASSERT_EQ(np_addr_is_any(&a), 1);
  ASSERT_EQ(np_addr_port(&a), 0);
}

static void test_refusals(void) {
  refused("127.0.0.1", 0,
          "--listen '127.0.0.1': expected ADDR:PORT such as 127.0.0.1:9000 "
          "or [::1]:9000");
  refused("127.0.0.1:", 0, "--listen '127.0.0.1:': no port after the address");
  refused("[::1]:", 0, "--listen '[::1]:': no port after the address");
  refused(":9000", 0, "--listen ':9000': no address before the port");
  refused("[]:9000", 0, "--listen '[]:9000': no address before the port");
  refused("", 0,
          "--listen '': expected ADDR:PORT such as 127.0.0.1:9000 or "
          "[::1]:9000");
  refused("[::1]9000", 0,
          "--listen '[::1]9000': expected [IPv6]:PORT such as [::1]:9000");
  refused("[::1", 0,
          "--listen '[::1': expected [IPv6]:PORT such as [::1]:9000");
  refused("::1:9000", 0,
          "--listen '::1:9000': expected ADDR:PORT such as 127.0.0.1:9000 "
          "or [::1]:9000 (IPv6 in brackets)");
  refused("localhost:9000", 0,
          "--listen 'localhost:9000': 'localhost' is not a literal IPv4 "
          "address or a bracketed IPv6 one (names are not looked up)");
  refused("[127.0.0.1]:9000", 0,
          "--listen '[127.0.0.1]:9000': '127.0.0.1' is not a literal IPv4 "
          "address or a bracketed IPv6 one (names are not looked up)");
  refused("127.0.0.256:1", 0,
          "--listen '127.0.0.256:1': '127.0.0.256' is not a literal IPv4 "
          "address or a bracketed IPv6 one (names are not looked up)");
  /* the port-0 rule both ways, and the range */
  refused("127.0.0.1:0", 0,
          "--listen '127.0.0.1:0': port out of range 1..65535");
  refused("127.0.0.1:65536", 0,
          "--listen '127.0.0.1:65536': port out of range 1..65535");
  refused("127.0.0.1:65536", NP_ADDR_ANY_PORT,
          "--listen '127.0.0.1:65536': port out of range 0..65535");
  refused("127.0.0.1:99999999999999999999", NP_ADDR_ANY_PORT,
          "--listen '127.0.0.1:99999999999999999999': port out of range "
          "0..65535");
  refused("127.0.0.1:+80", 0,
          "--listen '127.0.0.1:+80': port out of range 1..65535");
  refused("127.0.0.1:-1", NP_ADDR_ANY_PORT,
          "--listen '127.0.0.1:-1': port out of range 0..65535");
  refused("127.0.0.1: 80", 0,
          "--listen '127.0.0.1: 80': port out of range 1..65535");
  refused("127.0.0.1:80x", 0,
          "--listen '127.0.0.1:80x': port out of range 1..65535");
  refused("[::1]:0", 0, "--listen '[::1]:0': port out of range 1..65535");
  char big[200];
  memset(big, '1', sizeof big);
  big[150] = ':';
  big[151] = '1';
  big[152] = '\0';
  struct np_errbuf eb = {{0}};
  struct np_addr a;
  ASSERT_EQ(np_addr_parse("x", big, 0, &a, &eb), NP_EUSAGE);
  ASSERT_TRUE(strstr(eb.msg, "too long for a literal") != NULL);
  struct np_addr z;
  ASSERT_OK(np_addr_parse("x", "127.0.0.1:0", NP_ADDR_ANY_PORT, &z, &eb));
  ASSERT_EQ(np_addr_port(&z), 0);
}

static void test_round_trip(void) {
  static const char *const texts[] = {
      "127.0.0.1:9000", "10.0.0.2:1",  "0.0.0.0:0",        "[::1]:9000",
      "[::]:0",         "[fd00::2]:7000", "[2001:db8::1:2]:65535",
      "255.255.255.255:65535"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    struct np_errbuf eb = {{0}};
    struct np_addr a, b;
    char buf[NP_ADDR_TEXT];
    ASSERT_OK(np_addr_parse("x", texts[i], NP_ADDR_ANY_PORT, &a, &eb));
    np_addr_format(&a, buf, sizeof buf);
    ASSERT_STR_EQ(buf, texts[i]);
    ASSERT_OK(np_addr_parse("x", buf, NP_ADDR_ANY_PORT, &b, &eb));
    ASSERT_TRUE(np_addr_equal(&a, &b));
  }
  /* the longest IPv6 text fits NP_ADDR_TEXT */
  struct np_errbuf eb = {{0}};
  struct np_addr a;
  char buf[NP_ADDR_TEXT];
  const char *wide = "[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535";
  ASSERT_OK(np_addr_parse("x", wide, 0, &a, &eb));
  np_addr_format(&a, buf, sizeof buf);
  ASSERT_TRUE(strlen(buf) + 1 <= NP_ADDR_TEXT);
  ASSERT_TRUE(buf[strlen(buf) - 1] == '5');
}

static void test_equal(void) {
  struct np_errbuf eb = {{0}};
  struct np_addr a, b, c, d;
  ASSERT_OK(np_addr_parse("x", "127.0.0.1:9000", 0, &a, &eb));
  ASSERT_OK(np_addr_parse("x", "127.0.0.1:9001", 0, &b, &eb));
  ASSERT_OK(np_addr_parse("x", "[::1]:9000", 0, &c, &eb));
  ASSERT_OK(np_addr_parse("x", "[0:0::1]:9000", 0, &d, &eb));
  ASSERT_EQ(np_addr_equal(&a, &a), 1);
  ASSERT_EQ(np_addr_equal(&a, &b), 0);
  ASSERT_EQ(np_addr_equal_host(&a, &b), 1);
  ASSERT_EQ(np_addr_equal(&a, &c), 0);
  ASSERT_EQ(np_addr_equal(&c, &d), 1); /* one address, two spellings */
  np_addr_set_port(&b, 9000);
  ASSERT_EQ(np_addr_equal(&a, &b), 1);
  struct np_addr e;
  ASSERT_OK(np_addr_from_sa((const struct sockaddr *)&c.ss, &e));
  ASSERT_EQ(np_addr_equal(&c, &e), 1);
  ASSERT_EQ(e.len, c.len);
  struct sockaddr_storage none;
  memset(&none, 0, sizeof none);
  ASSERT_EQ(np_addr_from_sa((const struct sockaddr *)&none, &e), NP_EINVAL);
  char buf[NP_ADDR_TEXT];
  np_addr_sa_format((const struct sockaddr *)&none, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "(none)");
}

int main(void) {
  test_ipv4();
  test_ipv6();
  test_refusals();
  test_round_trip();
  test_equal();
  return 0;
}
