/*
 * test_rudp_io.c - the endpoints' batched system calls (issue 20,
 * bench/rudp/np_rudp_endpoint_io.c) on two loopback sockets: datagrams
 * queued for a connected and for an unconnected socket leave in one
 * sendmmsg and arrive in one recvmmsg when more than one is ready, byte
 * for byte and with their sender's address; batch 1 is one call per
 * datagram; a full batch leaves by itself; nothing waiting costs one
 * empty call; an oversized datagram is refused at the queue and a
 * truncated one is counted.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_err.h"
#include "np_rudp_endpoint_io.h"
#include "np_test.h"

static int udp_bound(struct sockaddr_in *addr) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(0x7f000001);
  ASSERT_OK(bind(fd, (struct sockaddr *)&a, sizeof a));
  socklen_t l = sizeof *addr;
  ASSERT_OK(getsockname(fd, (struct sockaddr *)addr, &l));
  return fd;
}

static void fill(uint8_t *b, size_t n, unsigned k) {
  for (size_t i = 0; i < n; i++)
    b[i] = (uint8_t)(k * 31u + i);
}

/* k datagrams of 100 + k bytes queued on q, flushed; then read back. */
static void round_trip(struct np_rudp_txq *q, int rx_fd, unsigned k,
                       const struct sockaddr_in *to,
                       const struct sockaddr_in *from_want,
                       unsigned expect_send_calls) {
  struct np_rudp_io_stats st = {0};
  uint8_t b[300];
  for (unsigned i = 0; i < k; i++) {
    fill(b, 100 + i, i);
    ASSERT_OK(np_rudp_txq_put(q, b, 100 + i, (const struct sockaddr *)to,
                              to ? sizeof *to : 0, &st));
  }
  np_rudp_txq_flush(q, &st);
  ASSERT_EQ(st.send_calls, expect_send_calls);
  ASSERT_EQ(st.send_datagrams, k);
  ASSERT_EQ(st.send_failed, 0);
  ASSERT_EQ(q->n, 0);
  struct np_rudp_rxb rx;
  ASSERT_OK(np_rudp_rxb_init(&rx, 32, 1200));
  struct np_rudp_io_stats rs = {0};
  unsigned n = np_rudp_rxb_recv(&rx, rx_fd, &rs);
  ASSERT_EQ(n, k); /* every ready datagram in one call */
  ASSERT_EQ(rs.recv_calls, 1);
  ASSERT_EQ(rs.recv_datagrams, k);
  for (unsigned i = 0; i < n; i++) {
    fill(b, 100 + i, i);
    ASSERT_EQ(np_rudp_rxb_len(&rx, i), 100 + i);
    ASSERT_EQ(memcmp(np_rudp_rxb_data(&rx, i), b, 100 + i), 0);
    socklen_t fl;
    const struct sockaddr_in *f =
        (const struct sockaddr_in *)np_rudp_rxb_from(&rx, i, &fl);
    ASSERT_EQ(fl, sizeof *f);
    ASSERT_EQ(f->sin_port, from_want->sin_port);
  }
  ASSERT_EQ(np_rudp_rxb_recv(&rx, rx_fd, &rs), 0); /* drained */
  ASSERT_EQ(rs.recv_calls, 2);
  ASSERT_EQ(rs.recv_empty, 1);
  np_rudp_rxb_free(&rx);
}

int main(void) {
  struct sockaddr_in a_addr, b_addr;
  int a = udp_bound(&a_addr), b = udp_bound(&b_addr);
  /* a connected (client-like), b unconnected (server-like) */
  ASSERT_OK(connect(a, (struct sockaddr *)&b_addr, sizeof b_addr));
  struct np_rudp_txq qa, qb, q1;
  ASSERT_OK(np_rudp_txq_init(&qa, a, 32, 1200, 0));
  ASSERT_OK(np_rudp_txq_init(&qb, b, 32, 1200, 1));
  round_trip(&qa, b, 7, NULL, &a_addr, 1);     /* 7 datagrams, 1 call */
  round_trip(&qb, a, 5, &a_addr, &b_addr, 1);  /* addressed, 1 call   */
  /* batch 1: one call per datagram, leaving as each is queued */
  ASSERT_OK(np_rudp_txq_init(&q1, a, 1, 1200, 0));
  round_trip(&q1, b, 4, NULL, &a_addr, 4);
  /* a full batch leaves by itself */
  struct np_rudp_io_stats st = {0};
  uint8_t d[1300] = {0};
  struct np_rudp_txq q3;
  ASSERT_OK(np_rudp_txq_init(&q3, a, 3, 1200, 0));
  for (int i = 0; i < 3; i++)
    ASSERT_OK(np_rudp_txq_put(&q3, d, 10, NULL, 0, &st));
  ASSERT_EQ(st.send_calls, 1);
  ASSERT_EQ(st.send_datagrams, 3);
  ASSERT_EQ(q3.n, 0);
  ASSERT_EQ(np_rudp_txq_put(&q3, d, 1201, NULL, 0, &st), NP_EMSGSIZE);
  /* longer than the receive slot: truncated, counted, length 0 */
  ASSERT_EQ(send(a, d, 1300, 0), 1300);
  usleep(10000);
  struct np_rudp_rxb rx;
  struct np_rudp_io_stats rs = {0};
  ASSERT_OK(np_rudp_rxb_init(&rx, 8, 1200));
  ASSERT_EQ(np_rudp_rxb_recv(&rx, b, &rs), 4); /* 3 of q3 + the long one */
  ASSERT_EQ(rs.truncated, 1);
  ASSERT_EQ(np_rudp_rxb_len(&rx, 3), 0);
  np_rudp_rxb_free(&rx);
  np_rudp_txq_free(&qa);
  np_rudp_txq_free(&qb);
  np_rudp_txq_free(&q1);
  np_rudp_txq_free(&q3);
  close(a);
  close(b);
  puts("test_rudp_io: ok");
  return 0;
}
