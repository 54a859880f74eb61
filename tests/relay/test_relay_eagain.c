/*
 * test_relay_eagain.c - the relay's send path when a socket is full.  On
 * loopback a UDP send practically never meets a full socket buffer, so the
 * test interposes sendmmsg (the relay is linked statically into this
 * program; the real call is the raw system call): every third call sends
 * only part of its batch, every fifth refuses with EAGAIN.  The copies must
 * then wait on their socket, leave on EPOLLOUT, in order, exactly once:
 * every datagram comes back, in sequence, forwarded = received per route
 * and direction, and send_deferred counts the copies that waited.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_test.h"
#include "relay_echo.h"

/* Test-only counter; the library under test has no globals. */
static atomic_uint g_calls;

int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags) {
  unsigned k = atomic_fetch_add(&g_calls, 1) + 1;
  if (k % 5 == 0) {
    errno = EAGAIN;
    return -1;
  }
  if (k % 3 == 0 && n > 1)
    n /= 2;
  return (int)syscall(SYS_sendmmsg, fd, v, n, flags);
}

int main(void) {
  struct relay_echo echo;
  struct np_relay_config cfg;
  struct np_errbuf eb;
  struct np_relay *r = NULL;
  np_relay_config_init(&cfg);
  ASSERT_OK(relay_echo_start(&echo, 1));
  if (np_relay_create(&cfg, (struct sockaddr *)&echo.addr, 1, &r, &eb) != 0)
    NP_TEST_FAIL_("np_relay_create: %s", eb.msg);
  ASSERT_OK(np_relay_start(r, &eb));
  int fd = relay_client_open(1000);
  ASSERT_GE(fd, 0);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_route_addr(r, 0, &to));
  enum { TOTAL = 6000, BURST = 60 };
  uint32_t expect = 0;
  unsigned char buf[256];
  for (uint32_t s = 0; s < TOTAL; s += BURST) {
    for (uint32_t k = 0; k < BURST; k++) {
      uint32_t seq = s + k;
      memcpy(buf, &seq, sizeof seq);
      ASSERT_EQ(sendto(fd, buf, 64, 0, (struct sockaddr *)&to,
                       sizeof(struct sockaddr_in)), 64);
    }
    for (uint32_t k = 0; k < BURST; k++) {
      uint32_t seq;
      ASSERT_EQ(recv(fd, buf, sizeof buf, 0), 64);
      memcpy(&seq, buf, sizeof seq);
      ASSERT_EQ(seq, expect); /* in order, none lost, none twice */
      expect++;
    }
  }
  np_relay_stop(r);
  ASSERT_OK(np_relay_join(r));
  uint64_t deferred = 0;
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++) {
    struct np_relay_counts c;
    ASSERT_OK(np_relay_route_counts(r, 0, d, &c));
    ASSERT_UINT_EQ(c.received, TOTAL);
    ASSERT_UINT_EQ(c.forwarded, TOTAL);
    ASSERT_UINT_EQ(c.send_errors + c.dropped_at_stop, 0);
    deferred += c.send_deferred;
  }
  struct np_relay_io io;
  ASSERT_OK(np_relay_io_get(r, &io));
  printf("eagain: %u sendmmsg calls, %" PRIu64 " copies waited for "
         "EPOLLOUT, %" PRIu64 " datagrams sent\n", atomic_load(&g_calls),
         deferred, io.send_datagrams);
  ASSERT_GT(deferred, 100);
  ASSERT_UINT_EQ(io.send_datagrams, 2 * TOTAL);
  np_relay_destroy(r);
  relay_echo_stop(&echo);
  close(fd);
  puts("test_relay_eagain: ok");
  return 0;
}
