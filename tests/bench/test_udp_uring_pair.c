/* The uring transport's lock-step receives (np_udp_uring.c), driven
 * through the transport table alone, the way the connected IO model lays
 * out its sockets: a client A connected to a shared port P, its own server
 * socket B bound to P (SO_REUSEPORT) and connected to A, and the group's
 * unconnected socket U.  A and B pair up (paired_sockets 2, U not).
 *
 *  1. ping-pong: A sends PINGS numbered messages one at a time, B echoes
 *     each, A checks every reply is the one it waits for (no reply read
 *     twice, none left behind);
 *  2. a stray: a datagram to A that B did not send (from another socket
 *     of P's group, as the group's unconnected socket could send one) is
 *     read at the next wake-up at least 100 ms after the last re-read -
 *     no receive of A was waiting for it, so without the re-read it would
 *     stay queued and A would read every later reply one late;
 *  3. ping-pong again: the pair still answers in order after the stray.
 * Skips (77) where io_uring is refused. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np_test.h"
#include "np_udp_transport.h"

#define PINGS 2000
#define STRAY 0xFFFFFFFFu

enum { CMD_NONE, CMD_PING, CMD_STOP };

struct pair_test {
  const struct np_udp_transport *tp;
  struct np_udp_loop *loop;
  struct np_udp_sock *a, *b, *u;
  _Atomic int cmd;
  uint32_t next, goal;        /* loop thread: A's message in flight      */
  _Atomic uint32_t answered;  /* replies A checked                        */
  _Atomic int stray_seen;
  _Atomic int wrong;          /* a reply that was not the awaited one     */
};

static void send_u32(struct pair_test *t, struct np_udp_sock *s, uint32_t v) {
  struct np_udp_tx tx = {.data = &v, .len = sizeof v};
  unsigned n = 0;
  int errnum = 0;
  ASSERT_OK(t->tp->send_batch(s, &tx, 1, &n, &errnum));
  ASSERT_EQ(n, 1);
}

static void on_a(void *ctx, const struct np_udp_rx *rx, unsigned n) {
  struct pair_test *t = ctx;
  for (unsigned i = 0; i < n; i++) {
    uint32_t v = 0;
    if (rx[i].len == sizeof v)
      memcpy(&v, rx[i].data, sizeof v);
    if (v == STRAY) {
      atomic_store(&t->stray_seen, 1);
      continue;
    }
    if (rx[i].len != sizeof v || v != t->next) {
      atomic_store(&t->wrong, 1);
      continue;
    }
    atomic_fetch_add(&t->answered, 1);
    if (++t->next < t->goal)
      send_u32(t, t->a, t->next);
  }
}

static void on_b(void *ctx, const struct np_udp_rx *rx, unsigned n) {
  struct pair_test *t = ctx;
  for (unsigned i = 0; i < n; i++) {
    struct np_udp_tx tx = {.data = rx[i].data, .len = rx[i].len};
    unsigned sent = 0;
    int errnum = 0;
    ASSERT_OK(t->tp->send_batch(t->b, &tx, 1, &sent, &errnum));
  }
}

static void on_u(void *ctx, const struct np_udp_rx *rx, unsigned n) {
  (void)ctx;
  (void)rx;
  ASSERT_EQ(n, 0); /* nothing is sent to the unconnected socket */
}

static void on_wake(void *ctx) {
  struct pair_test *t = ctx;
  int c = atomic_exchange(&t->cmd, CMD_NONE);
  if (c == CMD_PING) {
    t->goal = t->next + PINGS;
    send_u32(t, t->a, t->next);
  } else if (c == CMD_STOP) {
    t->tp->loop_stop(t->loop);
  }
}

static void *run(void *arg) {
  struct pair_test *t = arg;
  ASSERT_OK(t->tp->loop_run(t->loop));
  return NULL;
}

static void open_sock(struct pair_test *t, const struct sockaddr_in *bind_to,
                      const struct sockaddr_in *peer, int reuse,
                      np_udp_recv_fn fn, struct np_udp_sock **out) {
  struct np_udp_sock_opts o;
  struct np_errbuf eb = {{0}};
  memset(&o, 0, sizeof o);
  memcpy(&o.bind_addr, bind_to, sizeof *bind_to);
  o.bind_len = sizeof *bind_to;
  if (peer) {
    memcpy(&o.peer, peer, sizeof *peer);
    o.peer_len = sizeof *peer;
  }
  o.reuseport = reuse;
  o.rcvbuf = o.sndbuf = 262144;
  o.rx_batch = 1;
  o.max_payload = 64;
  o.on_recv = fn;
  o.ctx = t;
  if (t->tp->sock_open(t->loop, &o, out, &eb))
    NP_TEST_FAIL_("sock_open: %s", eb.msg);
}

static struct sockaddr_in local_of(struct pair_test *t, struct np_udp_sock *s) {
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  ASSERT_OK(getsockname(t->tp->sock_fd(s), (struct sockaddr *)&a, &len));
  return a;
}

/* wait (bounded: 5 s) until *v reaches want */
static void wait_for(_Atomic uint32_t *v, uint32_t want) {
  for (int i = 0; i < 5000 && atomic_load(v) < want; i++)
    usleep(1000);
  ASSERT_UINT_EQ(atomic_load(v), want);
}

static void ping(struct pair_test *t, uint32_t want) {
  atomic_store(&t->cmd, CMD_PING);
  ASSERT_OK(t->tp->loop_wake(t->loop));
  wait_for(&t->answered, want);
  ASSERT_EQ(atomic_load(&t->wrong), 0);
}

int main(void) {
  struct np_errbuf eb = {{0}};
  if (np_udp_uring_available(&eb) != 0) {
    fprintf(stderr, "SKIP: %s\n", eb.msg);
    return 77;
  }
  static struct pair_test t;
  t.tp = &np_udp_transport_uring;
  ASSERT_OK(t.tp->loop_new(on_wake, &t, &t.loop, &eb));
  struct sockaddr_in any = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &any.sin_addr);
  open_sock(&t, &any, NULL, 1, on_u, &t.u);
  struct sockaddr_in p = local_of(&t, t.u);
  open_sock(&t, &any, &p, 0, on_a, &t.a);
  struct sockaddr_in a_addr = local_of(&t, t.a);
  open_sock(&t, &p, &a_addr, 1, on_b, &t.b);
  /* another member of P's group, outside the loop: the stray's source */
  int x = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
  ASSERT_TRUE(x >= 0);
  ASSERT_OK(setsockopt(x, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one));
  ASSERT_OK(bind(x, (struct sockaddr *)&p, sizeof p));
  pthread_t th;
  ASSERT_OK(pthread_create(&th, NULL, run, &t));

  ping(&t, PINGS);
  usleep(150000); /* past the 100 ms between re-reads */
  uint32_t stray = STRAY;
  ASSERT_EQ(sendto(x, &stray, sizeof stray, 0, (struct sockaddr *)&a_addr,
                   sizeof a_addr),
            (ssize_t)sizeof stray);
  usleep(10000);
  ASSERT_OK(t.tp->loop_wake(t.loop)); /* a wake-up with nothing to do */
  for (int i = 0; i < 2000 && !atomic_load(&t.stray_seen); i++)
    usleep(1000);
  ASSERT_EQ(atomic_load(&t.stray_seen), 1);
  ping(&t, 2 * PINGS);

  atomic_store(&t.cmd, CMD_STOP);
  ASSERT_OK(t.tp->loop_wake(t.loop));
  ASSERT_OK(pthread_join(th, NULL));
  struct np_udp_loop_info li;
  t.tp->loop_info(t.loop, &li);
  ASSERT_UINT_EQ(li.paired_sockets, 2); /* A and B; U has no peer */
  t.tp->sock_close(t.a);
  t.tp->sock_close(t.b);
  t.tp->sock_close(t.u);
  t.tp->loop_free(t.loop);
  close(x);
  printf("uring pair: %u replies in order, the stray read at a wake-up\n",
         2 * PINGS);
  return 0;
}
