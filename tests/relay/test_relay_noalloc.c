/*
 * test_relay_noalloc.c - no heap allocation per datagram in the live
 * relay's steady state.  malloc, calloc and realloc are interposed (glibc's
 * __libc_* do the work) and counted from every thread; after a warm-up, a
 * long run of datagrams through the relay - delayed, jittered, duplicated,
 * reordered, lost, through the heap, the pools and both batch paths - must
 * not allocate.  Both ways in: the in-process relay (np_relay_create, as
 * rudp uses it) and the standalone one (np_relay_listen, routes by source
 * address; opening a route may allocate, so the routes open in warm-up).
 *
 * The test's own traffic uses plain sendto/recv on blocking sockets, which
 * do not allocate either; nothing else runs in the window.
 */
#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_test.h"
#include "relay_echo.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);

/* Test-only counter; the library under test has no globals. */
static atomic_ulong g_allocs;

void *malloc(size_t n) {
  atomic_fetch_add(&g_allocs, 1);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  atomic_fetch_add(&g_allocs, 1);
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  atomic_fetch_add(&g_allocs, 1);
  return __libc_realloc(p, n);
}

#define CLIENTS 3

/* rounds of `burst` datagrams per client, echoes read back (what arrives
 * within the timeout; losses are expected). */
static uint64_t traffic(int *fd, const struct sockaddr_storage *to,
                        unsigned rounds, unsigned burst) {
  static unsigned char buf[2048];
  uint64_t got = 0;
  for (unsigned r = 0; r < rounds; r++) {
    for (unsigned c = 0; c < CLIENTS; c++)
      for (unsigned k = 0; k < burst; k++) {
        size_t len = 64 + (r * 131u + k * 17u) % 1400u;
        memset(buf, (int)(r + k), len);
        ASSERT_EQ(sendto(fd[c], buf, len, 0, (const struct sockaddr *)&to[c],
                         np_addr_sa_len((const struct sockaddr *)&to[c])),
                  (ssize_t)len);
      }
    usleep(3000); /* lets the delayed copies leave */
    for (unsigned c = 0; c < CLIENTS; c++)
      while (recv(fd[c], buf, sizeof buf, MSG_DONTWAIT) > 0)
        got++;
  }
  return got;
}

static void run(int standalone) {
  struct relay_echo echo;
  struct np_relay_config cfg;
  struct np_errbuf eb;
  struct np_relay *relay = NULL;
  np_relay_config_init(&cfg);
  const char *n[] = {"--delay-ms", "--jitter-ms",        "--loss-percent",
                     "--duplicate-percent", "--reorder-percent",
                     "--reorder-delay-ms"};
  const char *v[] = {"1", "0.5", "5", "10", "10", "1"};
  ASSERT_OK(np_relay_options_parse(&cfg, 6, n, v, &eb));
  ASSERT_OK(relay_echo_start(&echo, 1));
  if (standalone) {
    struct np_relay_listen_config lc;
    memset(&lc, 0, sizeof lc);
    struct sockaddr_in *l = (struct sockaddr_in *)&lc.listen;
    l->sin_family = AF_INET;
    l->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    lc.forward = echo.addr;
    lc.max_routes = 8;
    lc.socket_buffer = 1 << 20;
    if (np_relay_listen(&cfg, &lc, &relay, &eb) != 0)
      NP_TEST_FAIL_("np_relay_listen: %s", eb.msg);
  } else if (np_relay_create(&cfg, (struct sockaddr *)&echo.addr, CLIENTS,
                             &relay, &eb) != 0) {
    NP_TEST_FAIL_("np_relay_create: %s", eb.msg);
  }
  ASSERT_OK(np_relay_start(relay, &eb));
  int fd[CLIENTS];
  struct sockaddr_storage to[CLIENTS];
  for (unsigned c = 0; c < CLIENTS; c++) {
    fd[c] = relay_client_open(200);
    ASSERT_GE(fd[c], 0);
    ASSERT_OK(np_relay_route_addr(relay, c, &to[c]));
  }
  traffic(fd, to, 50, 16); /* warm-up: routes open, pools and heap touched */
  ASSERT_EQ(np_relay_route_count(relay), CLIENTS);
  usleep(20000);
  unsigned long before = atomic_load(&g_allocs);
  uint64_t got = traffic(fd, to, 400, 16);
  usleep(20000);
  unsigned long during = atomic_load(&g_allocs) - before;
  np_relay_stop(relay);
  ASSERT_OK(np_relay_join(relay));
  struct np_relay_counts c;
  struct np_relay_io io;
  uint64_t fwd = 0, dup = 0, lost = 0, reo = 0;
  for (unsigned r = 0; r < CLIENTS; r++)
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
      ASSERT_OK(np_relay_route_counts(relay, r, d, &c));
      fwd += c.forwarded;
      dup += c.duplicated;
      lost += c.lost_random;
      reo += c.reordered;
    }
  ASSERT_OK(np_relay_io_get(relay, &io));
  printf("%s: %lu allocations in steady state; %" PRIu64 " echoes back, "
         "%" PRIu64 " copies forwarded (%" PRIu64 " duplicated, %" PRIu64
         " lost, %" PRIu64 " reordered), %" PRIu64 " datagrams in %" PRIu64
         " recvmmsg, %" PRIu64 " in %" PRIu64 " sendmmsg\n",
         standalone ? "standalone" : "in-process", during, got, fwd, dup, lost,
         reo, io.recv_datagrams, io.recv_calls, io.send_datagrams,
         io.send_calls);
  ASSERT_EQ(during, 0);
  ASSERT_GT(got, 10000); /* the window did carry traffic ... */
  ASSERT_GT(dup, 100);   /* ... through every impairment */
  ASSERT_GT(lost, 100);
  ASSERT_GT(reo, 100);
  ASSERT_EQ(io.pool_full, 0);
  np_relay_destroy(relay);
  relay_echo_stop(&echo);
  for (unsigned k = 0; k < CLIENTS; k++)
    close(fd[k]);
}

int main(int argc, char **argv) {
  int standalone = argc > 1 && strcmp(argv[1], "standalone") == 0;
  run(standalone);
  printf("test_relay_noalloc %s: ok\n", standalone ? "standalone" : "in-process");
  return 0;
}
