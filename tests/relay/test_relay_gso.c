/*
 * test_relay_gso.c - the relay's grouped sends (UDP_SEGMENT) against
 * ground truth, one scenario per invocation (argv[1]):
 *   in-process   2 routes, each with its own front socket
 *   standalone   2 clients on one listen socket, so the replies of both
 *                routes leave through the same socket and a group must
 *                never mix them
 *   refused      in-process, with sendmmsg interposed to refuse every
 *                grouped message with EIO (what a kernel without checksum
 *                offload on the way out says): each socket falls back to
 *                one datagram per message and everything still arrives
 *
 * Two clients send bursts of datagrams whose sizes make runs of equal
 * size ended by a shorter one and broken by a longer one; the first burst
 * is queued before the relay starts, so its first read takes it whole and
 * its copies leave in groups.  The way back is delayed (2 ms, no spin:
 * the timer's lateness lets the copies of both routes fall due together).
 * Then: every echo comes back to its own client, in order, byte for byte
 * at its own length; the echo server counted what the relay says it
 * forwarded towards it; per route and direction received = forwarded and
 * the bytes match the clients' own sums; the relay sent some datagrams in
 * groups (io.gso_datagrams > 0, the kernel refused none; refused: none
 * sent, each of the 4 sockets fell back at most once, no send error) and
 * its thread's CPU time is counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_schema.h"
#include "np_test.h"
#include "relay_echo.h"

enum { CLIENTS = 2, BURSTS = 40, BURST = 24, MAXLEN = 1400 };

/* Test-only switch (the library under test has no globals): refuse
 * grouped messages.  The relay is linked statically, so this sendmmsg is
 * the one it calls; the real one is the raw system call.  Like the
 * kernel, it sends the messages before the first refused one and fails
 * only when that is the first. */
static atomic_int g_refuse;

int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags) {
  if (atomic_load(&g_refuse))
    for (unsigned i = 0; i < n; i++)
      if (v[i].msg_hdr.msg_controllen > 0) {
        if (i == 0) {
          errno = EIO;
          return -1;
        }
        n = i;
        break;
      }
  return (int)syscall(SYS_sendmmsg, fd, v, n, flags);
}

/* Runs of 1,000 B ended by a shorter datagram, broken by a longer one. */
static size_t size_of(uint32_t seq) {
  if (seq % 8 == 7)
    return 200 + seq % 37;
  return seq % 11 == 5 ? 1300 : 1000;
}

static void fill(unsigned char *buf, unsigned client, uint32_t seq,
                 size_t len) {
  memcpy(buf, &seq, sizeof seq);
  buf[4] = (unsigned char)client;
  for (size_t i = 5; i < len; i++)
    buf[i] = (unsigned char)(seq * 31u + i * 7u + client);
}

static struct np_relay *relay_up(int standalone,
                                 const struct sockaddr_storage *server) {
  struct np_relay_config cfg;
  struct np_errbuf eb;
  struct np_relay *r = NULL;
  np_relay_config_init(&cfg);
  cfg.dir[NP_RELAY_S2C].delay_ns = 2000000u;
  cfg.timer_spin_ns = 0;
  if (!standalone) {
    if (np_relay_create(&cfg, (const struct sockaddr *)server, CLIENTS, &r,
                        &eb) != 0)
      NP_TEST_FAIL_("np_relay_create: %s", eb.msg);
    return r;
  }
  struct np_relay_listen_config lc;
  memset(&lc, 0, sizeof lc);
  struct sockaddr_in *a = (struct sockaddr_in *)&lc.listen;
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  lc.forward = *server;
  lc.max_routes = CLIENTS;
  lc.socket_buffer = 1 << 20;
  if (np_relay_listen(&cfg, &lc, &r, &eb) != 0)
    NP_TEST_FAIL_("np_relay_listen: %s", eb.msg);
  return r;
}

static void send_burst(const int *fd, const struct sockaddr_storage *to,
                       uint32_t first, uint64_t *bytes) {
  unsigned char buf[MAXLEN];
  for (uint32_t k = 0; k < BURST; k++)
    for (unsigned c = 0; c < CLIENTS; c++) { /* interleaved */
      size_t len = size_of(first + k);
      fill(buf, c, first + k, len);
      ASSERT_EQ(sendto(fd[c], buf, len, 0, (const struct sockaddr *)&to[c],
                       np_addr_sa_len((const struct sockaddr *)&to[c])),
                (ssize_t)len);
      bytes[c] += len;
    }
}

static void recv_burst(const int *fd, uint32_t first) {
  unsigned char buf[MAXLEN + 100], want[MAXLEN];
  for (unsigned c = 0; c < CLIENTS; c++)
    for (uint32_t k = 0; k < BURST; k++) {
      size_t len = size_of(first + k);
      ssize_t n = recv(fd[c], buf, sizeof buf, 0);
      ASSERT_EQ(n, (ssize_t)len); /* its own length: boundaries kept */
      fill(want, c, first + k, len);
      if (memcmp(buf, want, len) != 0) /* its own client, in order */
        NP_TEST_FAIL_("client %u: echo %u differs (got seq %u of client %u)",
                      c, first + k, *(uint32_t *)buf, buf[4]);
    }
}

static void check_counts(struct np_relay *r, const uint64_t *bytes) {
  for (unsigned i = 0; i < CLIENTS; i++)
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      struct np_relay_counts c;
      ASSERT_OK(np_relay_route_counts(r, i, d, &c));
      ASSERT_UINT_EQ(c.received, (uint64_t)BURSTS * BURST);
      ASSERT_UINT_EQ(c.forwarded, c.received);
      ASSERT_UINT_EQ(c.received_bytes, c.forwarded_bytes);
      ASSERT_UINT_EQ(c.foreign + c.dropped_at_stop +
                         np_relay_counts_errors(&c), 0);
    }
  /* routes open in the order their clients' first datagrams came: the
   * sums per route are the clients' sums in some order */
  struct np_relay_counts c0, c1;
  ASSERT_OK(np_relay_route_counts(r, 0, NP_RELAY_C2S, &c0));
  ASSERT_OK(np_relay_route_counts(r, 1, NP_RELAY_C2S, &c1));
  ASSERT_UINT_EQ(c0.forwarded_bytes + c1.forwarded_bytes, bytes[0] + bytes[1]);
  ASSERT_TRUE((c0.forwarded_bytes == bytes[0] &&
               c1.forwarded_bytes == bytes[1]) ||
              (c0.forwarded_bytes == bytes[1] &&
               c1.forwarded_bytes == bytes[0]));
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "in-process") != 0 &&
                    strcmp(argv[1], "standalone") != 0 &&
                    strcmp(argv[1], "refused") != 0)) {
    fprintf(stderr, "usage: test_relay_gso in-process|standalone|refused\n");
    return 2;
  }
  int standalone = strcmp(argv[1], "standalone") == 0;
  int refused = strcmp(argv[1], "refused") == 0;
  atomic_store(&g_refuse, refused);
  struct relay_echo echo;
  struct np_errbuf eb;
  ASSERT_OK(relay_echo_start(&echo, 1));
  struct np_relay *r = relay_up(standalone, &echo.addr);
  int fd[CLIENTS];
  struct sockaddr_storage to[CLIENTS];
  uint64_t bytes[CLIENTS] = {0};
  for (unsigned c = 0; c < CLIENTS; c++) {
    fd[c] = relay_client_open(2000);
    ASSERT_GE(fd[c], 0);
    ASSERT_OK(np_relay_route_addr(r, c, &to[c]));
  }
  send_burst(fd, to, 0, bytes); /* queued before the relay reads */
  ASSERT_OK(np_relay_start(r, &eb));
  recv_burst(fd, 0);
  for (uint32_t b = 1; b < BURSTS; b++) {
    send_burst(fd, to, b * BURST, bytes);
    recv_burst(fd, b * BURST);
  }
  np_relay_stop(r);
  ASSERT_OK(np_relay_join(r));
  relay_echo_stop(&echo);
  const uint64_t total = (uint64_t)CLIENTS * BURSTS * BURST;
  ASSERT_UINT_EQ(echo.packets, total); /* the server's own count */
  ASSERT_UINT_EQ(echo.bytes, bytes[0] + bytes[1]);
  check_counts(r, bytes);
  struct np_relay_io io;
  ASSERT_OK(np_relay_io_get(r, &io));
  printf("%s: %" PRIu64 " datagrams sent in %" PRIu64 " sendmmsg calls, %"
         PRIu64 " of them in %" PRIu64 " UDP_SEGMENT groups; relay thread "
         "%.3f ms CPU\n", argv[1], io.send_datagrams, io.send_calls,
         io.gso_datagrams, io.gso_sends, (double)io.thread_cpu_ns / 1e6);
  ASSERT_UINT_EQ(io.send_datagrams, 2 * total);
  ASSERT_UINT_EQ(io.recv_datagrams, 2 * total);
  if (refused) { /* every socket that tried fell back, once */
    ASSERT_UINT_EQ(io.gso_sends + io.gso_datagrams, 0);
    ASSERT_GE(io.gso_refused, 1);
    ASSERT_LE(io.gso_refused, 2 * CLIENTS); /* front + back per route */
  } else {
    ASSERT_GT(io.gso_sends, 0);
    ASSERT_GE(io.gso_datagrams, 2 * io.gso_sends);
    ASSERT_LE(io.gso_datagrams, io.send_datagrams);
    ASSERT_UINT_EQ(io.gso_refused, 0);
  }
  ASSERT_GT(io.thread_cpu_ns, 0);
  cJSON *j = np_relay_stats_json(r);
  ASSERT_NOT_NULL(j);
  if (np_schema_validate_tagged(j, &eb) != 0)
    NP_TEST_FAIL_("stats: %s", eb.msg);
  cJSON *jio = cJSON_GetObjectItem(j, "io");
  ASSERT_UINT_EQ(cJSON_GetObjectItem(jio, "gso_datagrams")->valuedouble,
                 io.gso_datagrams);
  cJSON_Delete(j);
  np_relay_destroy(r);
  for (unsigned c = 0; c < CLIENTS; c++)
    close(fd[c]);
  return 0;
}
