/*
 * test_kernel.c - np_kernel: live snapshots, the raw-text round trip,
 * fixture texts (complete, snmp6 absent, garbled), deltas, broken section
 * structure, and that loopback overload shows up in Udp.RcvbufErrors.
 *
 * Usage: test_kernel DATA_DIR   (DATA_DIR/kernel/ holds the fixtures)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_kernel.h"
#include "np_test.h"

/* Read DATA_DIR/kernel/name into a malloc'd buffer. */
static char *read_fixture(const char *dir, const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/kernel/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    NP_TEST_FAIL_("cannot open %s: %s", path, strerror(errno));
  char *buf = malloc(1 << 20);
  ASSERT_NOT_NULL(buf);
  *len = fread(buf, 1, 1 << 20, f);
  fclose(f);
  return buf;
}

static struct np_kernel *load_fixture(const char *dir, const char *name) {
  size_t len;
  char *text = read_fixture(dir, name, &len);
  struct np_kernel *k = NULL;
  struct np_errbuf eb = {""};
  int rc = np_kernel_parse_raw(text, len, &k, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("%s: %s (%s)", name, np_err_name(rc), eb.msg);
  free(text);
  return k;
}

static int64_t get(const struct np_kernel *k, const char *name) {
  int64_t v = 0;
  int rc = np_kernel_get(k, name, &v);
  if (rc != 0)
    NP_TEST_FAIL_("counter %s: %s", name, np_err_name(rc));
  return v;
}

static void assert_absent(const struct np_kernel *k, const char *name) {
  int64_t v = 12345;
  ASSERT_EQ(np_kernel_get(k, name, &v), NP_ENOENT);
  ASSERT_EQ(v, 12345); /* out-parameter untouched */
}

/* to_json's "sources" entry for path equals want. */
static void assert_source(const struct np_kernel *k, const char *path,
                          const char *want) {
  cJSON *j = np_kernel_to_json(k);
  ASSERT_NOT_NULL(j);
  cJSON *s = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(j, "sources"), path);
  ASSERT_TRUE(cJSON_IsString(s));
  ASSERT_STR_EQ(s->valuestring, want);
  cJSON_Delete(j);
}

/* parse_raw(raw(k)) gives the same bytes and the same counters. */
static void assert_round_trip(const struct np_kernel *k) {
  size_t len, len2;
  const char *raw = np_kernel_raw(k, &len);
  struct np_kernel *k2 = NULL;
  struct np_errbuf eb = {""};
  int rc = np_kernel_parse_raw(raw, len, &k2, &eb);
  if (rc != 0)
    NP_TEST_FAIL_("round trip: %s (%s)", np_err_name(rc), eb.msg);
  const char *raw2 = np_kernel_raw(k2, &len2);
  ASSERT_EQ(len2, len);
  ASSERT_TRUE(memcmp(raw, raw2, len) == 0);
  cJSON *a = np_kernel_to_json(k), *b = np_kernel_to_json(k2);
  ASSERT_TRUE(a != NULL && b != NULL);
  ASSERT_TRUE(cJSON_Compare(a, b, 1));
  cJSON *c;
  int n = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(a, "counters")) {
    ASSERT_EQ(get(k2, c->string), get(k, c->string));
    n++;
  }
  ASSERT_GT(n, 0);
  cJSON_Delete(a);
  cJSON_Delete(b);
  np_kernel_free(k2);
}

static void test_live(void) {
  struct np_kernel *k = NULL;
  ASSERT_OK(np_kernel_take(&k));
  size_t len;
  const char *raw = np_kernel_raw(k, &len);
  ASSERT_EQ(strlen(raw), len);
  ASSERT_TRUE(strncmp(raw, "==> /proc/net/snmp <==\n", 23) == 0);
  assert_source(k, "/proc/net/snmp", "present");
  ASSERT_GE(get(k, "Udp.RcvbufErrors"), 0);
  ASSERT_GE(get(k, "Ip.ReasmReqds"), 0);
  ASSERT_GT(get(k, "sysctl.net.core.rmem_max"), 0);
  ASSERT_GT(get(k, "lo.mtu"), 0);
  assert_round_trip(k);
  cJSON *d = np_kernel_delta_json(k, k);
  ASSERT_NOT_NULL(d);
  ASSERT_EQ(
      cJSON_GetObjectItemCaseSensitive(d, "Udp.RcvbufErrors")->valuedouble, 0);
  cJSON_Delete(d);
  np_kernel_free(k);
}

static void test_fixture_values(const char *dir) {
  struct np_kernel *k = load_fixture(dir, "before.txt");
  ASSERT_EQ(get(k, "Ip.DefaultTTL"), 64);
  ASSERT_EQ(get(k, "Ip.ReasmReqds"), 40);
  ASSERT_EQ(get(k, "Ip.FragCreates"), 33);
  ASSERT_EQ(get(k, "Tcp.MaxConn"), -1);
  ASSERT_EQ(get(k, "IcmpMsg.InType3"), 1);
  ASSERT_EQ(get(k, "Udp.InDatagrams"), 5000000);
  ASSERT_EQ(get(k, "Udp.RcvbufErrors"), 650);
  ASSERT_EQ(get(k, "Udp.MemErrors"), 0);
  ASSERT_EQ(get(k, "Udp6.Udp6RcvbufErrors"), 5);
  ASSERT_EQ(get(k, "Ip6.Ip6ReasmReqds"), 8);
  ASSERT_EQ(get(k, "Icmp6.Icmp6OutType135"), 4);
  ASSERT_EQ(get(k, "UdpLite6.UdpLite6InDatagrams"), 0);
  ASSERT_EQ(get(k, "TcpExt.TW"), 11);
  ASSERT_EQ(get(k, "IpExt.InOctets"), 55040825);
  ASSERT_EQ(get(k, "softnet.processed"), 0x1000 + 0x2000 + 0x3000 + 0x4000);
  ASSERT_EQ(get(k, "softnet.dropped"), 3);
  ASSERT_EQ(get(k, "softnet.time_squeeze"), 10);
  ASSERT_EQ(get(k, "sysctl.net.core.rmem_max"), 4194304);
  ASSERT_EQ(get(k, "sysctl.net.core.netdev_max_backlog"), 1000);
  ASSERT_EQ(get(k, "sysctl.net.ipv4.udp_mem.min"), 575796);
  ASSERT_EQ(get(k, "sysctl.net.ipv4.udp_mem.pressure"), 767731);
  ASSERT_EQ(get(k, "sysctl.net.ipv4.udp_mem.max"), 1151592);
  ASSERT_EQ(get(k, "sysctl.net.ipv4.udp_rmem_min"), 4096);
  ASSERT_EQ(get(k, "lo.mtu"), 65536);
  assert_absent(k, "Udp.NoSuchCounter");
  assert_round_trip(k);
  np_kernel_free(k);
}

static void expect_delta(const cJSON *d, const char *name, int64_t want) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, name);
  if (!cJSON_IsNumber(v))
    NP_TEST_FAIL_("delta %s missing", name);
  ASSERT_EQ((int64_t)v->valuedouble, want);
}

static void test_delta(const char *dir) {
  struct np_kernel *b = load_fixture(dir, "before.txt");
  struct np_kernel *a = load_fixture(dir, "after.txt");
  cJSON *d = np_kernel_delta_json(b, a);
  ASSERT_NOT_NULL(d);
  ASSERT_EQ(cJSON_GetArraySize(d), 28); /* every listed counter present */
  expect_delta(d, "Udp.InDatagrams", 100000);
  expect_delta(d, "Udp.OutDatagrams", 100000);
  expect_delta(d, "Udp.RcvbufErrors", 250);
  expect_delta(d, "Udp.InErrors", 250);
  expect_delta(d, "Udp.SndbufErrors", 0);
  expect_delta(d, "Udp.NoPorts", 0);
  expect_delta(d, "Udp6.Udp6InDatagrams", 500);
  expect_delta(d, "Udp6.Udp6RcvbufErrors", 4);
  expect_delta(d, "Ip.ReasmReqds", 12);
  expect_delta(d, "Ip.ReasmOKs", 3);
  expect_delta(d, "Ip.ReasmFails", 1);
  expect_delta(d, "Ip.FragCreates", 0);
  expect_delta(d, "Ip6.Ip6FragOKs", 0);
  expect_delta(d, "softnet.processed", 4 * 0x100);
  expect_delta(d, "softnet.dropped", 3);
  expect_delta(d, "softnet.time_squeeze", 5);
  ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(d, "Tcp.InSegs") == NULL);
  cJSON_Delete(d);
  np_kernel_free(a);
  np_kernel_free(b);
}

static void test_absent(const char *dir) {
  struct np_kernel *k = load_fixture(dir, "no_snmp6.txt");
  struct np_kernel *a = load_fixture(dir, "after.txt");
  assert_source(k, "/proc/net/snmp6", "absent: No such file or directory");
  assert_source(k, "/sys/class/net/lo/mtu", "absent: Permission denied");
  assert_source(k, "/proc/net/netstat", "present");
  assert_absent(k, "Udp6.Udp6InDatagrams");
  assert_absent(k, "Ip6.Ip6ReasmReqds");
  assert_absent(k, "lo.mtu");
  ASSERT_EQ(get(k, "Udp.RcvbufErrors"), 650);
  assert_round_trip(k);
  /* deltas skip what is absent on either side, keep the rest */
  cJSON *d = np_kernel_delta_json(k, a);
  ASSERT_NOT_NULL(d);
  ASSERT_TRUE(cJSON_GetObjectItemCaseSensitive(d, "Udp6.Udp6InDatagrams") ==
              NULL);
  expect_delta(d, "Udp.RcvbufErrors", 250);
  ASSERT_EQ(cJSON_GetArraySize(d), 28 - 11);
  cJSON_Delete(d);
  np_kernel_free(a);
  np_kernel_free(k);
}

static void test_garbled(const char *dir) {
  struct np_kernel *k = load_fixture(dir, "garbled.txt");
  assert_source(k, "/proc/net/snmp", "present");
  assert_absent(k, "Ip.InReceives"); /* "88x2345" */
  ASSERT_EQ(get(k, "Ip.InDelivers"), 8812000);
  ASSERT_EQ(get(k, "Ip.ReasmReqds"), 40);
  assert_absent(k, "IcmpMsg.InType3"); /* value line garbled */
  ASSERT_EQ(get(k, "Udp.InDatagrams"), 5000000);
  ASSERT_EQ(get(k, "Udp.OutDatagrams"), 5100); /* truncated line */
  assert_absent(k, "Udp.RcvbufErrors");
  ASSERT_EQ(get(k, "UdpLite.InDatagrams"), 0); /* parsing resumed */
  ASSERT_EQ(get(k, "TcpExt.TW"), 11);
  assert_absent(k, "IpExt.OutOctets"); /* netstat cut mid-line */
  assert_absent(k, "MPTcpExt.MPCapableSYNRX");
  ASSERT_EQ(get(k, "softnet.processed"), 0x3000); /* bad line skipped */
  ASSERT_EQ(get(k, "softnet.dropped"), 1);
  ASSERT_EQ(get(k, "softnet.time_squeeze"), 3);
  assert_absent(k, "sysctl.net.ipv4.udp_mem.min"); /* two values, not 3 */
  assert_absent(k, "lo.mtu");                      /* "abc" */
  ASSERT_EQ(get(k, "sysctl.net.ipv4.udp_rmem_min"), 4096);
  assert_round_trip(k);
  np_kernel_free(k);
}

/* Broken section structure: NP_EPARSE and a message naming the problem. */
static void expect_eparse(const char *text, const char *needle) {
  struct np_kernel *k = NULL;
  struct np_errbuf eb = {""};
  ASSERT_EQ(np_kernel_parse_raw(text, strlen(text), &k, &eb), NP_EPARSE);
  ASSERT_TRUE(k == NULL);
  if (strstr(eb.msg, needle) == NULL)
    NP_TEST_FAIL_("message \"%s\" lacks \"%s\"", eb.msg, needle);
}

static void test_broken_structure(void) {
  expect_eparse("", "kernel raw text: empty");
  expect_eparse("garbage\nmore garbage\n",
                "kernel raw text: offset 0: expected a section header");
  expect_eparse("Udp: InDatagrams\nUdp: 1\n", "offset 0: expected");
  expect_eparse("==> /proc/net/snmp <==", "without a newline");
  expect_eparse("==> /etc/passwd <==\nroot\n", "unknown source '/etc/passwd'");
  expect_eparse("==> /proc/net/netstat <==\n==> /proc/net/snmp <==\n",
                "offset 26: section '/proc/net/snmp' repeated or out of order");
  expect_eparse("==> /proc/net/snmp <==\n==> /proc/net/snmp <==\n",
                "repeated or out of order");
  expect_eparse("==> /proc/net/snmp6 (absent: gone) <==\nIp6InReceives 1\n",
                "absent source '/proc/net/snmp6' has content");
  expect_eparse("==> /proc/net/snmp6 (absent: gone <==\n", "malformed");
  expect_eparse("==> /proc/net/snmp <==\nUdp: A\nUdp: 1\n==> junk <==\n",
                "offset 37: unknown source 'junk'");

  /* A group twice (damaged text): get and to_json both keep the first. */
  const char *twice = "==> /proc/net/snmp <==\nUdp: NoPorts\nUdp: 1\n"
                      "Udp: NoPorts\nUdp: 2\n";
  struct np_kernel *k = NULL;
  ASSERT_OK(np_kernel_parse_raw(twice, strlen(twice), &k, NULL));
  ASSERT_EQ(get(k, "Udp.NoPorts"), 1);
  cJSON *j = np_kernel_to_json(k);
  cJSON *ctr = cJSON_GetObjectItemCaseSensitive(j, "counters");
  ASSERT_EQ(cJSON_GetArraySize(ctr), 1);
  ASSERT_EQ(cJSON_GetObjectItemCaseSensitive(ctr, "Udp.NoPorts")->valuedouble,
            1);
  cJSON_Delete(j);
  np_kernel_free(k);

  /* A text with only some sections is fine; the rest are absent. */
  const char *part = "==> /sys/class/net/lo/mtu <==\n1500\n";
  k = NULL;
  ASSERT_OK(np_kernel_parse_raw(part, strlen(part), &k, NULL));
  ASSERT_EQ(get(k, "lo.mtu"), 1500);
  assert_source(k, "/proc/net/snmp", "absent: not in raw text");
  assert_absent(k, "Udp.RcvbufErrors");
  np_kernel_free(k);
  np_kernel_free(NULL);
}

/* Every prefix of a fixture, and each byte of it overwritten, parses or
 * fails with NP_EPARSE - never anything else, never a crash (ASan build). */
static void test_truncations(const char *dir) {
  size_t len;
  char *text = read_fixture(dir, "before.txt", &len);
  int ok = 0, bad = 0;
  for (size_t cut = 0; cut <= len; cut += 7) {
    struct np_kernel *k = NULL;
    char saved = cut < len ? text[cut] : 0;
    for (int pass = 0; pass < 2; pass++) {
      size_t n = pass == 0 ? cut : len;
      if (pass == 1 && cut < len)
        text[cut] = (char)(cut * 31 + 7);
      int rc = np_kernel_parse_raw(text, n, &k, NULL);
      ASSERT_TRUE(rc == 0 || rc == NP_EPARSE);
      rc == 0 ? ok++ : bad++;
      np_kernel_free(k);
      k = NULL;
    }
    if (cut < len)
      text[cut] = saved;
  }
  printf("mutations: %d parsed, %d rejected\n", ok, bad);
  ASSERT_GT(ok, 0);
  ASSERT_GT(bad, 0);
  free(text);
}

/* Flood a bound, never-read socket with a tiny receive buffer over
 * loopback: the kernel must count the drops in Udp.RcvbufErrors. */
static void test_rcvbuf_errors(void) {
  struct sockaddr_in addr = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof addr;
  int rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int small = 1; /* the kernel rounds up to its minimum (a few KiB) */
  char payload[1200];
  struct np_kernel *before = NULL, *after = NULL;
  ASSERT_TRUE(rx >= 0 && tx >= 0);
  ASSERT_OK(setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof small));
  ASSERT_OK(bind(rx, (struct sockaddr *)&addr, sizeof addr));
  ASSERT_OK(getsockname(rx, (struct sockaddr *)&addr, &alen));
  memset(payload, 'x', sizeof payload);
  ASSERT_OK(np_kernel_take(&before));
  int sent = 0;
  for (int i = 0; i < 2000; i++)
    if (sendto(tx, payload, sizeof payload, MSG_DONTWAIT,
               (struct sockaddr *)&addr,
               sizeof addr) == (ssize_t)sizeof payload)
      sent++;
  ASSERT_OK(np_kernel_take(&after));
  int64_t drops =
      get(after, "Udp.RcvbufErrors") - get(before, "Udp.RcvbufErrors");
  printf("sent %d datagrams of %zu bytes; Udp.RcvbufErrors +%" PRId64 "\n",
         sent, sizeof payload, drops);
  ASSERT_GT(sent, 0);
  ASSERT_GT(drops, 0);
  cJSON *d = np_kernel_delta_json(before, after);
  ASSERT_NOT_NULL(d);
  ASSERT_GE(
      cJSON_GetObjectItemCaseSensitive(d, "Udp.RcvbufErrors")->valuedouble, 1);
  cJSON_Delete(d);
  np_kernel_free(before);
  np_kernel_free(after);
  close(rx);
  close(tx);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  test_live();
  test_fixture_values(argv[1]);
  test_delta(argv[1]);
  test_absent(argv[1]);
  test_garbled(argv[1]);
  test_broken_structure();
  test_truncations(argv[1]);
  test_rcvbuf_errors();
  puts("test_kernel: ok");
  return 0;
}
