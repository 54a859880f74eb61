/*
 * test_procnet.c - np_procnet: /proc/net/udp(6) rows parsed from fixtures
 * (addresses, queues, inode, drops; a malformed row refused with its line),
 * which sockets a datagram to an address reaches (exact before wildcard,
 * IPv4 through a dual-stack ::, connected sockets never), local addresses
 * (no traffic is sent anywhere), and live: a socket of this process found
 * in the kernel's table by port with the inode fstat gives, its drop
 * counter equal to SO_MEMINFO's after an overflow, this process among its
 * holders, and its exe SHA-256 equal to /proc/self/exe's.
 */
#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "np_procnet.h"
#include "np_sha256.h"
#include "np_test.h"

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

static const char udp4[] =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
    "retrnsmt   uid  timeout inode ref pointer drops\n"
    "  118: 0100007F:2328 00000000:0000 07 00000000:00000000 00:00000000 "
    "00000000     0        0 4242 2 0000000000000000 0\n"
    "  119: 00000000:2328 00000000:0000 07 00000010:00000300 00:00000000 "
    "00000000  1000        0 4343 2 0000000000000000 17\n"
    "  120: 0100007F:2328 0100007F:D431 01 00000000:00000000 00:00000000 "
    "00000000     0        0 4444 2 0000000000000000 0\n"
    "  121: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 "
    "00000000     0        0 4545 2 0000000000000000 0\n";

static const char udp6[] =
    "  sl  local_address                         remote_address              "
    "          st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode ref pointer drops\n"
    "   10: 00000000000000000000000001000000:2328 "
    "00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 "
    "00000000     0        0 5151 2 0000000000000000 3\n"
    "   11: 00000000000000000000000000000000:2328 "
    "00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 "
    "00000000     0        0 5252 2 0000000000000000 0\n";

static void test_parse(void) {
  struct np_procnet_sock *s = NULL;
  size_t n = 0;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_procnet_udp_parse(udp4, AF_INET, &s, &n, &eb));
  ASSERT_EQ(n, 4);
  char t[80];
  np_procnet_local_text(&s[0], t, sizeof t);
  ASSERT_STR_EQ(t, "127.0.0.1:9000");
  ASSERT_UINT_EQ(s[0].inode, 4242);
  ASSERT_UINT_EQ(s[1].tx_queue, 0x10);
  ASSERT_UINT_EQ(s[1].rx_queue, 0x300);
  ASSERT_UINT_EQ(s[1].uid, 1000);
  ASSERT_UINT_EQ(s[1].drops, 17);
  ASSERT_EQ(s[2].remote_port, 0xD431);
  free(s);
  ASSERT_OK(np_procnet_udp_parse(udp6, AF_INET6, &s, &n, &eb));
  ASSERT_EQ(n, 2);
  np_procnet_local_text(&s[0], t, sizeof t);
  ASSERT_STR_EQ(t, "[::1]:9000");
  ASSERT_UINT_EQ(s[0].drops, 3);
  free(s);
  /* header only: no rows, no allocation */
  ASSERT_OK(np_procnet_udp_parse("  sl local_address\n", AF_INET, &s, &n, &eb));
  ASSERT_EQ(n, 0);
  ASSERT_TRUE(s == NULL);
  static const char bad[] = "  sl local\n  1: 0100007F 00000000:0000 07\n";
  ASSERT_EQ(np_procnet_udp_parse(bad, AF_INET, &s, &n, &eb), NP_EPARSE);
  ASSERT_TRUE(strstr(eb.msg, "line 2") != NULL);
}

static struct sockaddr_storage v4(const char *a, uint16_t port) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *s = (struct sockaddr_in *)&ss;
  s->sin_family = AF_INET;
  s->sin_port = htons(port);
  inet_pton(AF_INET, a, &s->sin_addr);
  return ss;
}

static struct sockaddr_storage v6(const char *a, uint16_t port) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
  s->sin6_family = AF_INET6;
  s->sin6_port = htons(port);
  inet_pton(AF_INET6, a, &s->sin6_addr);
  return ss;
}

static void test_match(void) {
  struct np_procnet_sock *a = NULL, *b = NULL, all[6];
  size_t na = 0, nb = 0, *idx = NULL, k = 0;
  ASSERT_OK(np_procnet_udp_parse(udp4, AF_INET, &a, &na, NULL));
  ASSERT_OK(np_procnet_udp_parse(udp6, AF_INET6, &b, &nb, NULL));
  memcpy(all, a, na * sizeof *a);
  memcpy(all + na, b, nb * sizeof *b);
  free(a);
  free(b);
  /* 127.0.0.1:9000: the exact socket, then 0.0.0.0 and the dual-stack ::;
   * never the one connected to 127.0.0.1:54321 nor port 53 */
  struct sockaddr_storage t = v4("127.0.0.1", 9000);
  ASSERT_OK(np_procnet_udp_match(all, 6, (struct sockaddr *)&t, &idx, &k));
  ASSERT_EQ(k, 3);
  ASSERT_UINT_EQ(all[idx[0]].inode, 4242);
  ASSERT_UINT_EQ(all[idx[1]].inode, 4343);
  ASSERT_UINT_EQ(all[idx[2]].inode, 5252);
  free(idx);
  t = v6("::1", 9000);
  ASSERT_OK(np_procnet_udp_match(all, 6, (struct sockaddr *)&t, &idx, &k));
  ASSERT_EQ(k, 2);
  ASSERT_UINT_EQ(all[idx[0]].inode, 5151);
  ASSERT_UINT_EQ(all[idx[1]].inode, 5252);
  free(idx);
  t = v4("127.0.0.1", 9001);
  ASSERT_OK(np_procnet_udp_match(all, 6, (struct sockaddr *)&t, &idx, &k));
  ASSERT_EQ(k, 0);
  ASSERT_TRUE(idx == NULL);
}

static void test_local(void) {
  char why[96];
  struct sockaddr_storage a = v4("127.0.0.1", 1);
  ASSERT_EQ(np_procnet_addr_is_local((struct sockaddr *)&a, why, sizeof why),
            1);
  ASSERT_STR_EQ(why, "loopback address");
  a = v6("::1", 1);
  ASSERT_EQ(np_procnet_addr_is_local((struct sockaddr *)&a, why, sizeof why),
            1);
  a = v4("192.0.2.1", 1); /* TEST-NET-1, never an interface's here */
  ASSERT_EQ(np_procnet_addr_is_local((struct sockaddr *)&a, why, sizeof why),
            0);
  ASSERT_STR_EQ(why, "not an address of this machine");
}

static void test_live(void) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  int small = 2048;
  ASSERT_TRUE(fd >= 0);
  ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small));
  struct sockaddr_storage a = v4("127.0.0.1", 0);
  ASSERT_OK(bind(fd, (struct sockaddr *)&a, sizeof(struct sockaddr_in)));
  socklen_t len = sizeof a;
  ASSERT_OK(getsockname(fd, (struct sockaddr *)&a, &len));
  /* overflow it from a second socket: drops > 0 */
  int tx = socket(AF_INET, SOCK_DGRAM, 0);
  char buf[1024] = {0};
  for (int i = 0; i < 64; i++)
    sendto(tx, buf, sizeof buf, 0, (struct sockaddr *)&a,
           sizeof(struct sockaddr_in));
  uint32_t mem[SK_MEMINFO_VARS] = {0};
  socklen_t ml = sizeof mem;
  ASSERT_OK(getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &ml));
  ASSERT_GT(mem[SK_MEMINFO_DROPS], 0);

  struct np_procnet_sock *rows = NULL;
  size_t n = 0, *idx = NULL, k = 0;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_procnet_udp_read(&rows, &n, &eb));
  ASSERT_OK(np_procnet_udp_match(rows, n, (struct sockaddr *)&a, &idx, &k));
  ASSERT_EQ(k, 1);
  struct stat st;
  ASSERT_OK(fstat(fd, &st));
  ASSERT_UINT_EQ(rows[idx[0]].inode, st.st_ino);
  ASSERT_UINT_EQ(rows[idx[0]].drops, mem[SK_MEMINFO_DROPS]);
  ASSERT_GT(rows[idx[0]].rx_queue, 0);

  pid_t *pids = NULL;
  size_t np = 0;
  ASSERT_OK(np_procnet_holders(rows[idx[0]].inode, 16, &pids, &np));
  ASSERT_EQ(np, 1);
  ASSERT_EQ(pids[0], getpid());
  struct np_procnet_proc *p = calloc(1, sizeof *p);
  ASSERT_NOT_NULL(p);
  ASSERT_OK(np_procnet_process(getpid(), p));
  char want[NP_SHA256_HEX_SIZE];
  ASSERT_OK(np_sha256_file("/proc/self/exe", want, NULL, NULL));
  ASSERT_STR_EQ(p->exe_sha256, want);
  ASSERT_TRUE(p->nargs >= 1);
  ASSERT_TRUE(strstr(p->args[0], "test_procnet") != NULL);
  free(p);
  free(pids);
  free(idx);
  free(rows);
  close(tx);
  close(fd);
}

/* /proc/net/tcp: LISTEN rows only, the same fields (a service's
 * tcp_connect readiness, runner/np_matrix_services.c). */
static const char tcp4[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
    "retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:1451 00000000:0000 0A 00000000:00000000 00:00000000 "
    "00000000  1000        0 7171 1 0000000000000000 100 0 0 10 0\n"
    "   1: 0100007F:1451 0100007F:C350 01 00000000:00000000 00:00000000 "
    "00000000  1000        0 7272 1 0000000000000000 20 4 30 10 -1\n";

static void test_tcp_listen(void) {
  struct np_procnet_sock *s = NULL;
  size_t n = 0, *idx = NULL, k = 0;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_procnet_tcp_listen_parse(tcp4, AF_INET, &s, &n, &eb));
  ASSERT_EQ(n, 1); /* the established row is not a listener */
  ASSERT_UINT_EQ(s[0].inode, 7171);
  ASSERT_EQ(s[0].local_port, 5201);
  ASSERT_UINT_EQ(s[0].drops, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(5201)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ASSERT_OK(np_procnet_udp_match(s, n, (struct sockaddr *)&a, &idx, &k));
  ASSERT_EQ(k, 1);
  free(idx);
  free(s);
  ASSERT_EQ(np_procnet_tcp_listen_parse("h\n 0: zz\n", AF_INET, &s, &n, &eb),
            NP_EPARSE);
  ASSERT_TRUE(strstr(eb.msg, "line 2: not a /proc/net/tcp row") != NULL);
  /* live: a listener of this process is found, and held by this pid */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  socklen_t al = sizeof a;
  a.sin_port = 0;
  ASSERT_OK(bind(fd, (struct sockaddr *)&a, sizeof a));
  ASSERT_OK(listen(fd, 1));
  ASSERT_OK(getsockname(fd, (struct sockaddr *)&a, &al));
  ASSERT_OK(np_procnet_tcp_listen_read(&s, &n, &eb));
  ASSERT_OK(np_procnet_udp_match(s, n, (struct sockaddr *)&a, &idx, &k));
  ASSERT_EQ(k, 1);
  struct stat st;
  ASSERT_OK(fstat(fd, &st));
  ASSERT_UINT_EQ(s[idx[0]].inode, st.st_ino);
  free(idx);
  free(s);
  close(fd);
}

/* A process is within itself and its ancestors' trees, not a sibling's. */
static void test_pid_within(void) {
  ASSERT_EQ(np_procnet_pid_within(getpid(), getpid()), 1);
  ASSERT_EQ(np_procnet_pid_within(getpid(), getppid()), 1);
  ASSERT_EQ(np_procnet_pid_within(getppid(), getpid()), 0);
  ASSERT_EQ(np_procnet_pid_within(getpid(), 0), 0);
  ASSERT_EQ(np_procnet_pid_within(0, getpid()), 0);
}

int main(void) {
  test_parse();
  test_match();
  test_local();
  test_live();
  test_tcp_listen();
  test_pid_within();
  puts("test_procnet: ok");
  return 0;
}
