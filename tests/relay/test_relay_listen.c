/*
 * test_relay_listen.c - the standalone relay (np_relay_listen) on
 * loopback: one scenario per invocation (argv[1]):
 *   routes   3 clients on one listen socket: 3 routes by source address,
 *            the server sees 3 distinct sources, every echo returns to
 *            its own client, per-route counts exact
 *   bound    --max-routes 2 and 3 clients: the third client's datagrams
 *            are refused and counted, exactly, and nothing of it is sent
 *   ipv6     the same path on [::1]
 *   tcp      passthrough: 300 KB echoed through the relay byte for byte,
 *            counted both ways; the connection ends in order
 *   tcp_bound  --tcp-max-connections 1: a second connection is refused
 *            and counted while the first is open
 *   tcp_limit  --tcp-max-bytes 10000: the connection is closed at the
 *            limit and counted
 *   tcp_down   nothing listens at --forward: counted as connect_failed
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_schema.h"
#include "np_test.h"
#include "relay_echo.h"

static struct np_relay *listen_up(const struct sockaddr_storage *forward,
                                  int family, unsigned max_routes, int tcp,
                                  uint32_t tcp_conns, uint64_t tcp_bytes) {
  struct np_relay_config cfg;
  struct np_relay_listen_config lc;
  struct np_errbuf eb;
  struct np_relay *r = NULL;
  np_relay_config_init(&cfg);
  memset(&lc, 0, sizeof lc);
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&lc.listen;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&lc.listen;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  lc.forward = *forward;
  lc.max_routes = max_routes;
  lc.socket_buffer = 1 << 20;
  lc.tcp_passthrough = tcp;
  lc.tcp_max_connections = tcp_conns;
  lc.tcp_max_bytes = tcp_bytes;
  if (np_relay_listen(&cfg, &lc, &r, &eb) != 0)
    NP_TEST_FAIL_("np_relay_listen: %s", eb.msg);
  ASSERT_OK(np_relay_start(r, &eb));
  return r;
}

static void udp_routes(int family, unsigned max_routes) {
  struct relay_echo echo;
  ASSERT_OK(relay_echo_start_family(&echo, 1, family));
  struct np_relay *r = listen_up(&echo.addr, family, max_routes, 0, 0, 0);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  enum { CLIENTS = 3, N = 500 };
  int fd[CLIENTS];
  for (unsigned c = 0; c < CLIENTS; c++) {
    fd[c] = relay_client_open_family(c < max_routes ? 1000 : 100, family);
    ASSERT_GE(fd[c], 0);
  }
  unsigned char buf[256];
  uint64_t back[CLIENTS] = {0};
  for (uint32_t s = 0; s < N; s++)
    for (unsigned c = 0; c < CLIENTS; c++) {
      uint32_t tag = s * 8u + c;
      memcpy(buf, &tag, sizeof tag);
      ASSERT_EQ(sendto(fd[c], buf, 100, 0, (struct sockaddr *)&to,
                       np_addr_sa_len((struct sockaddr *)&to)),
                100);
      if (c >= max_routes)
        continue;
      ssize_t n = recv(fd[c], buf, sizeof buf, 0);
      ASSERT_EQ(n, 100);
      memcpy(&tag, buf, sizeof tag);
      ASSERT_EQ(tag, s * 8u + c); /* its own echo, in order */
      back[c]++;
    }
  unsigned refused_client = max_routes < CLIENTS ? max_routes : CLIENTS;
  if (refused_client < CLIENTS) /* nothing comes back to a refused client */
    ASSERT_LT(recv(fd[refused_client], buf, sizeof buf, 0), 0);
  np_relay_stop(r);
  ASSERT_OK(np_relay_join(r));
  relay_echo_stop(&echo);
  unsigned open = max_routes < CLIENTS ? max_routes : CLIENTS;
  ASSERT_EQ(np_relay_route_count(r), open);
  ASSERT_EQ(relay_echo_sources(&echo), open); /* one source per route */
  ASSERT_UINT_EQ(echo.packets, (uint64_t)open * N);
  for (unsigned i = 0; i < open; i++) {
    struct sockaddr_storage client, mine;
    socklen_t len = sizeof mine;
    ASSERT_OK(np_relay_route_client(r, i, &client));
    ASSERT_EQ(getsockname(fd[i], (struct sockaddr *)&mine, &len), 0);
    ASSERT_TRUE(np_addr_sa_equal((struct sockaddr *)&client,
                                    (struct sockaddr *)&mine));
    ASSERT_UINT_EQ(back[i], N);
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      struct np_relay_counts c;
      ASSERT_OK(np_relay_route_counts(r, i, d, &c));
      ASSERT_UINT_EQ(c.received, N);
      ASSERT_UINT_EQ(c.forwarded, N);
      ASSERT_UINT_EQ(c.forwarded_bytes, 100u * N);
      ASSERT_UINT_EQ(c.foreign + np_relay_counts_errors(&c), 0);
    }
  }
  struct np_relay_io io;
  ASSERT_OK(np_relay_io_get(r, &io));
  ASSERT_UINT_EQ(io.routes_refused, (uint64_t)(CLIENTS - open) * N);
  ASSERT_UINT_EQ(io.recv_datagrams, (uint64_t)CLIENTS * N + (uint64_t)open * N);
  ASSERT_UINT_EQ(io.send_datagrams, 2ull * open * N);
  ASSERT_UINT_EQ(io.route_errors + io.pool_full + io.recv_errors, 0);
  cJSON *j = np_relay_stats_json(r);
  ASSERT_NOT_NULL(j);
  struct np_errbuf eb = {{0}};
  if (np_schema_validate_tagged(j, &eb) != 0)
    NP_TEST_FAIL_("stats: %s", eb.msg);
  ASSERT_STR_EQ(cJSON_GetObjectItem(j, "mode")->valuestring, "standalone");
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "routes")), (int)open);
  cJSON_Delete(j);
  uint64_t drops = 99;
  cJSON *socks = np_relay_sockets_json(r, &drops);
  ASSERT_EQ(cJSON_GetArraySize(socks), (int)open + 1); /* listen + backs */
  ASSERT_UINT_EQ(drops, 0);
  cJSON_Delete(socks);
  np_relay_destroy(r);
  for (unsigned c = 0; c < CLIENTS; c++)
    close(fd[c]);
}

static int tcp_connect(const struct sockaddr_storage *to) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  struct timeval tv = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ASSERT_EQ(connect(fd, (const struct sockaddr *)to, sizeof(struct sockaddr_in)),
            0);
  return fd;
}

/* Send len bytes and read back what returns (until len or EOF/timeout). */
static size_t tcp_echo(int fd, size_t len) {
  static unsigned char out[300000], in[300000];
  for (size_t i = 0; i < len; i++)
    out[i] = (unsigned char)(i * 7u);
  size_t sent = 0, got = 0;
  while (got < len) {
    if (sent < len) {
      ssize_t w = send(fd, out + sent, len - sent > 8192 ? 8192 : len - sent,
                       MSG_NOSIGNAL);
      if (w > 0)
        sent += (size_t)w;
      else if (w < 0 && errno == EPIPE)
        break;
    }
    ssize_t n = recv(fd, in + got, len - got, sent < len ? MSG_DONTWAIT : 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
      break;
    if (n > 0)
      got += (size_t)n;
  }
  ASSERT_EQ(memcmp(in, out, got), 0);
  return got;
}

/* Wait (up to 2 s) until the relay counts `closed` connections. */
static void wait_closed(struct np_relay *r, uint64_t closed,
                        struct np_relay_tcp_stats *st) {
  for (int i = 0; i < 200; i++) {
    ASSERT_OK(np_relay_tcp_get(r, st));
    if (st->closed + st->connect_failed >= closed)
      return;
    usleep(10000);
  }
}

static void test_tcp(const char *mode) {
  struct relay_echo udp;
  struct relay_tcp_echo tcp;
  ASSERT_OK(relay_echo_start(&udp, 1));
  ASSERT_OK(relay_tcp_echo_start(&tcp));
  struct sockaddr_storage fwd = tcp.addr;
  /* the UDP echo has its own port: forward UDP and TCP to the same port */
  ((struct sockaddr_in *)&fwd)->sin_port =
      strcmp(mode, "tcp_down") == 0 ? ((struct sockaddr_in *)&udp.addr)->sin_port
                                    : ((struct sockaddr_in *)&tcp.addr)->sin_port;
  uint32_t conns = strcmp(mode, "tcp_bound") == 0 ? 1 : 4;
  uint64_t limit = strcmp(mode, "tcp_limit") == 0 ? 10000 : 1u << 30;
  struct np_relay *r = listen_up(&fwd, AF_INET, 4, 1, conns, limit);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  struct np_relay_tcp_stats st;
  int fd = tcp_connect(&to);
  if (strcmp(mode, "tcp") == 0) {
    ASSERT_UINT_EQ(tcp_echo(fd, 300000), 300000);
    shutdown(fd, SHUT_WR);
    unsigned char b;
    ASSERT_EQ(recv(fd, &b, 1, 0), 0); /* the server's FIN came through */
    close(fd);
    wait_closed(r, 1, &st);
    ASSERT_UINT_EQ(st.accepted, 1);
    ASSERT_UINT_EQ(st.closed, 1);
    ASSERT_UINT_EQ(st.bytes_c2s, 300000);
    ASSERT_UINT_EQ(st.bytes_s2c, 300000);
    ASSERT_UINT_EQ(st.refused + st.connect_failed + st.resets +
                       st.byte_limit_closes, 0);
    ASSERT_UINT_EQ(st.active, 0);
  } else if (strcmp(mode, "tcp_bound") == 0) {
    ASSERT_UINT_EQ(tcp_echo(fd, 1000), 1000);
    int fd2 = tcp_connect(&to); /* the kernel accepts; the relay closes */
    unsigned char b;
    ASSERT_LE(recv(fd2, &b, 1, 0), 0);
    close(fd2);
    ASSERT_UINT_EQ(tcp_echo(fd, 1000), 1000); /* the first one still works */
    ASSERT_OK(np_relay_tcp_get(r, &st));
    ASSERT_UINT_EQ(st.accepted, 1);
    ASSERT_UINT_EQ(st.refused, 1);
    ASSERT_UINT_EQ(st.peak_active, 1);
    close(fd);
  } else if (strcmp(mode, "tcp_limit") == 0) {
    size_t got = tcp_echo(fd, 100000);
    close(fd);
    wait_closed(r, 1, &st);
    ASSERT_UINT_EQ(st.byte_limit_closes, 1);
    ASSERT_UINT_EQ(st.closed, 1);
    ASSERT_GE(st.bytes_c2s + st.bytes_s2c, 10000);
    ASSERT_LT(got, 100000);
    printf("tcp_limit: closed after %" PRIu64 " + %" PRIu64 " bytes, client "
           "got %zu back\n", st.bytes_c2s, st.bytes_s2c, got);
  } else { /* tcp_down: nothing listens on TCP at the UDP echo's port */
    unsigned char b;
    ASSERT_LE(recv(fd, &b, 1, 0), 0);
    close(fd);
    wait_closed(r, 1, &st);
    ASSERT_UINT_EQ(st.accepted, 1);
    ASSERT_UINT_EQ(st.connect_failed, 1);
    ASSERT_UINT_EQ(st.closed, 0);
  }
  np_relay_destroy(r);
  relay_tcp_echo_stop(&tcp);
  relay_echo_stop(&udp);
}

int main(int argc, char **argv) {
  const char *t = argc > 1 ? argv[1] : "";
  if (strcmp(t, "routes") == 0)
    udp_routes(AF_INET, 8);
  else if (strcmp(t, "bound") == 0)
    udp_routes(AF_INET, 2);
  else if (strcmp(t, "ipv6") == 0)
    udp_routes(AF_INET6, 8);
  else if (strncmp(t, "tcp", 3) == 0)
    test_tcp(t);
  else {
    fprintf(stderr, "usage: %s routes|bound|ipv6|tcp|tcp_bound|tcp_limit|"
                    "tcp_down\n", argv[0]);
    return 2;
  }
  printf("relay listen %s: ok\n", t);
  return 0;
}
