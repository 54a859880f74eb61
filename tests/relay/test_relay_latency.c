/*
 * test_relay_latency.c - the relay's own added latency with zero
 * impairment.  One client does sequential ping-pongs (one datagram in
 * flight) to an echo server, alternating blocks of direct and via-relay
 * round trips so both see the same machine load.  A round trip through the
 * relay crosses it twice, so the added latency per traversal is
 * (RTT_relay - RTT_direct) / 2 at each percentile.
 *
 * usage: test_relay_latency [samples] [payload]   (defaults 5000, 1024)
 * Prints one summary line (bench/scripts/relay_latency.sh shows it) and
 * fails only on gross regressions (p50 added > 1 ms per traversal).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_test.h"
#include "relay_echo.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p) {
  size_t i = (size_t)(p / 100.0 * (double)n);
  if (i >= n)
    i = n - 1;
  return (double)v[i] / 1e3; /* us */
}

static uint64_t ping(int fd, const struct sockaddr_storage *to, size_t len) {
  unsigned char buf[65536];
  memset(buf, 0x5A, len);
  uint64_t t0 = relay_now_ns();
  ssize_t n = sendto(fd, buf, len, 0, (const struct sockaddr *)to,
                     sizeof(struct sockaddr_in));
  ASSERT_EQ(n, (ssize_t)len);
  n = recv(fd, buf, sizeof(buf), 0);
  if (n != (ssize_t)len)
    NP_TEST_FAIL_("no echo within the timeout (n=%zd)", n);
  return relay_now_ns() - t0;
}

int main(int argc, char **argv) {
  size_t samples = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
  size_t payload = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
  if (samples < 100 || samples > 1000000 || payload < 1 || payload > 60000) {
    fprintf(stderr, "usage: %s [samples 100..1000000] [payload 1..60000]\n",
            argv[0]);
    return 2;
  }
  struct relay_echo echo;
  ASSERT_OK(relay_echo_start(&echo, 1));
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  struct np_relay *relay = NULL;
  struct np_errbuf eb;
  if (np_relay_create(&cfg, (struct sockaddr *)&echo.addr, 1, &relay, &eb) != 0)
    NP_TEST_FAIL_("np_relay_create: %s", eb.msg);
  ASSERT_OK(np_relay_start(relay, &eb));
  struct sockaddr_storage via;
  ASSERT_OK(np_relay_route_addr(relay, 0, &via));
  int fd_direct = relay_client_open(1000), fd_relay = relay_client_open(1000);
  ASSERT_GE(fd_direct, 0);
  ASSERT_GE(fd_relay, 0);

  uint64_t *direct = calloc(samples, sizeof(uint64_t));
  uint64_t *relayed = calloc(samples, sizeof(uint64_t));
  ASSERT_NOT_NULL(direct);
  ASSERT_NOT_NULL(relayed);
  for (int w = 0; w < 200; w++) { /* warm-up: caches, scheduler, ARP-free */
    ping(fd_direct, &echo.addr, payload);
    ping(fd_relay, &via, payload);
  }
  const size_t block = 100;
  for (size_t i = 0; i < samples; i += block) {
    for (size_t k = i; k < i + block && k < samples; k++)
      direct[k] = ping(fd_direct, &echo.addr, payload);
    for (size_t k = i; k < i + block && k < samples; k++)
      relayed[k] = ping(fd_relay, &via, payload);
  }
  np_relay_stop(relay);
  ASSERT_OK(np_relay_join(relay));
  relay_echo_stop(&echo);
  close(fd_direct);
  close(fd_relay);

  struct np_relay_timing t;
  ASSERT_OK(np_relay_timing_get(relay, &t));
  qsort(direct, samples, sizeof(uint64_t), cmp_u64);
  qsort(relayed, samples, sizeof(uint64_t), cmp_u64);
  double d50 = pct(direct, samples, 50), d99 = pct(direct, samples, 99);
  double r50 = pct(relayed, samples, 50), r99 = pct(relayed, samples, 99);
  printf("relay added latency (zero impairment, %zu sequential round trips, "
         "%zu B): RTT direct p50 %.1f us p99 %.1f us; via relay p50 %.1f us "
         "p99 %.1f us; added per traversal p50 %.1f us p99 %.1f us; "
         "relay release lateness mean %.2f us max %.1f us\n",
         samples, payload, d50, d99, r50, r99, (r50 - d50) / 2,
         (r99 - d99) / 2,
         t.releases ? (double)t.late_sum_ns / (double)t.releases / 1e3 : 0.0,
         (double)t.late_max_ns / 1e3);
  ASSERT_LT((r50 - d50) / 2, 1000.0);
  free(direct);
  free(relayed);
  np_relay_destroy(relay);
  return 0;
}
