/*
 * test_relay_expire.c - a standalone relay that lives long, on loopback:
 * one scenario per invocation (argv[1]):
 *   expire    --max-routes 64, --route-idle-seconds 3: 64 clients (each
 *             its own 127.0.1.x address) fill every route, a 65th is
 *             refused; once the 64 have been idle for the bound their
 *             routes expire and 64 new clients are served; counters of
 *             the expired routes stay in the totals
 *   loop      a datagram whose source is the forward address reaches the
 *             listen socket: dropped and counted (refused_loop), nothing
 *             forwarded, while the forward target echoes everything it
 *             gets (the old relay forwarded its own output for ever);
 *             and a relay forwarding to its own listen address refuses
 *             the copy its back socket sent there
 *   memory    8 routes, 64 MiB capacity each, a 10 s delay so copies
 *             stay queued, --max-memory-bytes 1 MiB: the queued copies
 *             never take more than 1 MiB of pool memory (512 chunks of
 *             2 KiB); the rest is each route's overflow, counted as
 *             memory_overflow, exactly
 *   tcp_idle  TCP passthrough, --tcp-idle-seconds 0.5, a server that
 *             never reads nor closes: after the client's FIN the slot is
 *             freed within the bound (idle_closes)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "np_relay.h"
#include "np_relay_pool.h"
#include "np_schema.h"
#include "np_test.h"
#include "relay_echo.h"

struct up {
  double idle;            /* route_idle_seconds            */
  uint64_t memory;        /* max_memory_bytes              */
  int tcp;                /* tcp_passthrough               */
  double tcp_idle;        /* tcp_idle_seconds              */
  unsigned max_routes;
};

static struct np_relay *relay_up(const struct sockaddr_storage *forward,
                                 const struct up *u,
                                 struct np_relay_config *cfg) {
  struct np_relay_listen_config lc;
  struct np_errbuf eb;
  struct np_relay *r = NULL;
  memset(&lc, 0, sizeof lc);
  struct sockaddr_in *a = (struct sockaddr_in *)&lc.listen;
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  lc.forward = *forward;
  lc.max_routes = u->max_routes;
  lc.socket_buffer = 1 << 20;
  lc.tcp_passthrough = u->tcp;
  lc.tcp_max_connections = 4;
  lc.tcp_max_bytes = 1u << 30;
  lc.route_idle_seconds = u->idle;
  lc.max_memory_bytes = u->memory;
  lc.tcp_idle_seconds = u->tcp_idle;
  if (np_relay_listen(cfg, &lc, &r, &eb) != 0)
    NP_TEST_FAIL_("np_relay_listen: %s", eb.msg);
  ASSERT_OK(np_relay_start(r, &eb));
  return r;
}

/* A client socket on 127.0.1.host, port 0, receive timeout ms. */
static int client_at(unsigned host, int ms) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(0x7f000100u | host);
  ASSERT_EQ(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* One datagram from fd through the relay; 1 when its echo came back. */
static int echo_once(int fd, const struct sockaddr_storage *to, uint32_t tag) {
  uint32_t back = 0;
  ASSERT_EQ(sendto(fd, &tag, sizeof tag, 0, (const struct sockaddr *)to,
                   sizeof(struct sockaddr_in)),
            (ssize_t)sizeof tag);
  ssize_t n = recv(fd, &back, sizeof back, 0);
  return n == (ssize_t)sizeof back && back == tag;
}

static void test_expire(void) {
  struct relay_echo echo;
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  ASSERT_OK(relay_echo_start(&echo, 1));
  /* 3 s: the 64 routes must all be open at once, even on a slow (TSan,
   * loaded) machine */
  struct up u = {.idle = 3.0, .max_routes = 64};
  struct np_relay *r = relay_up(&echo.addr, &u, &cfg);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  enum { N = 64 };
  int fd[2 * N + 1];
  for (unsigned c = 0; c < N; c++) { /* every route taken */
    fd[c] = client_at(c + 1, 1000);
    ASSERT_TRUE(echo_once(fd[c], &to, c));
  }
  ASSERT_EQ(np_relay_route_count(r), N);
  uint64_t t_last = relay_now_ns();
  fd[2 * N] = client_at(2 * N + 1, 200); /* the 65th, while all are busy */
  ASSERT_EQ(echo_once(fd[2 * N], &to, 999), 0);
  struct np_relay_io io;
  ASSERT_OK(np_relay_io_get(r, &io));
  ASSERT_UINT_EQ(io.routes_refused, 1);
  /* wait (at most 8 s) until the 64 idle routes have expired */
  for (int i = 0; i < 800; i++) {
    ASSERT_OK(np_relay_io_get(r, &io));
    if (io.routes_expired >= N)
      break;
    sleep_ms(10);
  }
  double idle_s = (double)(relay_now_ns() - t_last) / 1e9;
  printf("expire: %" PRIu64 " routes expired after %.2f s idle\n",
         io.routes_expired, idle_s);
  ASSERT_UINT_EQ(io.routes_expired, N);
  ASSERT_GE(idle_s, 3.0); /* not before the bound */
  ASSERT_EQ(np_relay_route_count(r), 0);
  for (unsigned c = N; c < 2 * N; c++) { /* 64 new clients are served */
    fd[c] = client_at(c + 1, 1000);
    ASSERT_TRUE(echo_once(fd[c], &to, c));
  }
  ASSERT_EQ(np_relay_route_count(r), N);
  np_relay_stop(r);
  ASSERT_OK(np_relay_join(r));
  relay_echo_stop(&echo);
  ASSERT_OK(np_relay_io_get(r, &io));
  ASSERT_UINT_EQ(io.routes_opened, 2 * N);
  ASSERT_UINT_EQ(io.routes_refused, 1);
  ASSERT_UINT_EQ(echo.packets, 2 * N);
  /* the expired routes' counters are in the totals */
  cJSON *j = np_relay_stats_json(r);
  ASSERT_NOT_NULL(j);
  struct np_errbuf eb = {{0}};
  if (np_schema_validate_tagged(j, &eb) != 0)
    NP_TEST_FAIL_("stats: %s", eb.msg);
  const cJSON *ex = cJSON_GetObjectItem(j, "expired");
  ASSERT_NOT_NULL(ex);
  ASSERT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(ex, "routes")), N);
  ASSERT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(
                cJSON_GetObjectItem(ex, "c2s"), "forwarded")), N);
  ASSERT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"), "s2c"),
                "forwarded")), 2 * N);
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(j, "routes")), N);
  cJSON_Delete(j);
  np_relay_destroy(r);
  for (unsigned c = 0; c <= 2 * N; c++)
    close(fd[c]);
}

static void test_loop(void) {
  /* the forward target is a socket of ours that echoes whatever it gets */
  int target = relay_client_open(20);
  ASSERT_GE(target, 0);
  struct sockaddr_storage fwd;
  socklen_t flen = sizeof fwd;
  ASSERT_EQ(getsockname(target, (struct sockaddr *)&fwd, &flen), 0);
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  struct up u = {.idle = 30, .max_routes = 8};
  struct np_relay *r = relay_up(&fwd, &u, &cfg);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  /* one datagram from the forward address to the listen port */
  ASSERT_EQ(sendto(target, "x", 1, 0, (struct sockaddr *)&to,
                   sizeof(struct sockaddr_in)), 1);
  uint64_t until = relay_now_ns() + 500000000ull, echoed = 0;
  unsigned char buf[2048];
  while (relay_now_ns() < until && echoed < 100000) {
    struct sockaddr_storage from;
    socklen_t len = sizeof from;
    ssize_t n = recvfrom(target, buf, sizeof buf, 0, (struct sockaddr *)&from,
                         &len);
    if (n < 0)
      continue; /* 20 ms timeout */
    sendto(target, buf, (size_t)n, 0, (struct sockaddr *)&from, len);
    echoed++;
  }
  struct np_relay_io io;
  ASSERT_OK(np_relay_io_get(r, &io));
  printf("loop: target echoed %" PRIu64 " datagrams in 0.5 s, relay sent %"
         PRIu64 ", refused_loop %" PRIu64 "\n",
         echoed, io.send_datagrams, io.refused_loop);
  ASSERT_UINT_EQ(echoed, 0);
  ASSERT_UINT_EQ(io.send_datagrams, 0);
  ASSERT_UINT_EQ(io.refused_loop, 1);
  ASSERT_EQ(np_relay_route_count(r), 0);
  /* an ordinary client is still served (the target echoes it) */
  int c = relay_client_open(1000);
  ASSERT_EQ(sendto(c, "hello", 5, 0, (struct sockaddr *)&to,
                   sizeof(struct sockaddr_in)), 5);
  struct sockaddr_storage from;
  socklen_t len = sizeof from;
  ssize_t n;
  while ((n = recvfrom(target, buf, sizeof buf, 0, (struct sockaddr *)&from,
                       &len)) < 0 && (errno == EAGAIN || errno == EINTR))
    len = sizeof from; /* 20 ms each; the relay sends at once */
  ASSERT_EQ(n, 5);
  ASSERT_EQ(sendto(target, buf, 5, 0, (struct sockaddr *)&from, len), 5);
  ASSERT_EQ(recv(c, buf, sizeof buf, 0), 5);
  ASSERT_EQ(memcmp(buf, "hello", 5), 0);
  np_relay_destroy(r);
  close(c);
  close(target);

  /* forwarding to itself: what a back socket sends reaches the listen
   * socket, and is refused there, once */
  int probe = relay_client_open(20); /* a free port for --listen */
  struct sockaddr_storage self;
  socklen_t slen = sizeof self;
  ASSERT_EQ(getsockname(probe, (struct sockaddr *)&self, &slen), 0);
  close(probe);
  struct np_relay_listen_config lc;
  struct np_errbuf eb;
  memset(&lc, 0, sizeof lc);
  lc.listen = self;
  lc.forward = self;
  lc.max_routes = 4;
  lc.socket_buffer = 1 << 20;
  if (np_relay_listen(&cfg, &lc, &r, &eb) != 0)
    NP_TEST_FAIL_("np_relay_listen: %s", eb.msg);
  ASSERT_OK(np_relay_start(r, &eb));
  c = relay_client_open(200);
  ASSERT_EQ(sendto(c, "again", 5, 0, (struct sockaddr *)&self,
                   sizeof(struct sockaddr_in)), 5);
  sleep_ms(300);
  ASSERT_OK(np_relay_io_get(r, &io));
  printf("loop: forwarding to itself: sent %" PRIu64 ", refused_loop %" PRIu64
         ", routes %" PRIu64 "\n", io.send_datagrams, io.refused_loop,
         io.routes_opened);
  ASSERT_UINT_EQ(io.send_datagrams, 1); /* the client's, once */
  ASSERT_UINT_EQ(io.refused_loop, 1);   /* its copy from the back socket */
  ASSERT_UINT_EQ(io.routes_opened, 1);
  np_relay_destroy(r);
  close(c);
}

static void test_memory(void) {
  int target = relay_client_open(20); /* never read: copies are delayed */
  ASSERT_GE(target, 0);
  struct sockaddr_storage fwd;
  socklen_t flen = sizeof fwd;
  ASSERT_EQ(getsockname(target, (struct sockaddr *)&fwd, &flen), 0);
  struct np_relay_config cfg;
  struct np_errbuf eb = {{0}};
  np_relay_config_init(&cfg);
  ASSERT_OK(np_relay_option_set(&cfg, "--delay-ms", "10000", &eb));
  ASSERT_OK(np_relay_option_set(&cfg, "--relay-capacity-bytes", "67108864",
                                &eb));
  enum { CLIENTS = 8, PER = 200, LEN = 1400, BOUND = 1 << 20 };
  struct up u = {.idle = 30, .memory = BOUND, .max_routes = CLIENTS};
  struct np_relay *r = relay_up(&fwd, &u, &cfg);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  int fd[CLIENTS];
  unsigned char buf[LEN] = {0};
  for (unsigned c = 0; c < CLIENTS; c++)
    fd[c] = client_at(c + 1, 100);
  struct np_relay_io io;
  for (unsigned k = 0; k < PER; k++)
    for (unsigned c = 0; c < CLIENTS; c++) {
      ASSERT_EQ(sendto(fd[c], buf, LEN, 0, (struct sockaddr *)&to,
                       sizeof(struct sockaddr_in)), LEN);
      if (c == 0 && k % 16 == 15) { /* pace: stay under the socket buffer */
        for (int i = 0; i < 100; i++) {
          ASSERT_OK(np_relay_io_get(r, &io));
          if (io.recv_datagrams >= (uint64_t)(k + 1) * CLIENTS - CLIENTS)
            break;
          sleep_ms(1);
        }
      }
    }
  for (int i = 0; i < 300; i++) { /* at most 3 s for the relay to read all */
    ASSERT_OK(np_relay_io_get(r, &io));
    if (io.recv_datagrams >= CLIENTS * PER)
      break;
    sleep_ms(10);
  }
  ASSERT_UINT_EQ(io.recv_datagrams, CLIENTS * PER);
  /* a 1,400-byte copy takes one 2 KiB chunk of pool memory */
  uint64_t fit = BOUND / NP_RELAY_CHUNK; /* copies the bound holds */
  printf("memory: %u copies of %u bytes, bound %u: peak %" PRIu64
         " bytes of pool memory queued, %" PRIu64 " dropped at the bound\n",
         CLIENTS * PER, LEN, BOUND, io.queued_memory_peak, io.memory_overflow);
  ASSERT_LE(io.queued_memory_peak, BOUND);
  ASSERT_UINT_EQ(io.queued_memory, fit * NP_RELAY_CHUNK);
  ASSERT_UINT_EQ(io.queued_bytes, fit * LEN);
  ASSERT_UINT_EQ(io.memory_overflow, CLIENTS * PER - fit);
  uint64_t overflow = 0, queued = 0, received = 0;
  for (unsigned i = 0; i < CLIENTS; i++) {
    struct np_relay_counts c;
    ASSERT_OK(np_relay_route_counts(r, i, NP_RELAY_C2S, &c));
    ASSERT_UINT_EQ(c.received, PER);
    ASSERT_UINT_EQ(c.loss_stage, c.overflow + c.queued);
    overflow += c.overflow;
    queued += c.queued;
    received += c.received;
  }
  ASSERT_UINT_EQ(overflow, io.memory_overflow); /* never silent */
  ASSERT_UINT_EQ(queued, fit);
  ASSERT_UINT_EQ(received, CLIENTS * PER);
  np_relay_destroy(r);
  for (unsigned c = 0; c < CLIENTS; c++)
    close(fd[c]);
  close(target);
}

static void test_tcp_idle(void) {
  /* a server that accepts (in the kernel's backlog) but never reads or
   * closes */
  int srv = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(srv, (struct sockaddr *)&a, sizeof a), 0);
  ASSERT_EQ(listen(srv, 4), 0);
  struct sockaddr_storage fwd;
  socklen_t flen = sizeof fwd;
  ASSERT_EQ(getsockname(srv, (struct sockaddr *)&fwd, &flen), 0);
  struct np_relay_config cfg;
  np_relay_config_init(&cfg);
  struct up u = {.idle = 30, .tcp = 1, .tcp_idle = 0.5, .max_routes = 4};
  struct np_relay *r = relay_up(&fwd, &u, &cfg);
  struct sockaddr_storage to;
  ASSERT_OK(np_relay_listen_addr(r, &to));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(fd, (struct sockaddr *)&to, sizeof(struct sockaddr_in)), 0);
  ASSERT_EQ(send(fd, "0123456789", 10, MSG_NOSIGNAL), 10);
  ASSERT_EQ(shutdown(fd, SHUT_WR), 0);
  uint64_t t0 = relay_now_ns();
  struct np_relay_tcp_stats st;
  sleep_ms(200);
  ASSERT_OK(np_relay_tcp_get(r, &st));
  ASSERT_UINT_EQ(st.active, 1); /* half-closed, within the bound */
  for (int i = 0; i < 300; i++) { /* at most 3 s */
    ASSERT_OK(np_relay_tcp_get(r, &st));
    if (st.active == 0)
      break;
    sleep_ms(10);
  }
  double s = (double)(relay_now_ns() - t0) / 1e9;
  printf("tcp_idle: slot freed %.2f s after the client's FIN (bound 0.5 s)\n",
         s);
  ASSERT_UINT_EQ(st.active, 0);
  ASSERT_UINT_EQ(st.idle_closes, 1);
  ASSERT_UINT_EQ(st.closed, 1);
  ASSERT_UINT_EQ(st.bytes_c2s, 10);
  ASSERT_GE(s, 0.5);
  unsigned char b;
  struct timeval tv = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ASSERT_LE(recv(fd, &b, 1, 0), 0); /* the client sees the end */
  close(fd);
  np_relay_destroy(r);
  close(srv);
}

int main(int argc, char **argv) {
  const char *t = argc > 1 ? argv[1] : "";
  if (strcmp(t, "expire") == 0)
    test_expire();
  else if (strcmp(t, "loop") == 0)
    test_loop();
  else if (strcmp(t, "memory") == 0)
    test_memory();
  else if (strcmp(t, "tcp_idle") == 0)
    test_tcp_idle();
  else {
    fprintf(stderr, "usage: %s expire|loop|memory|tcp_idle\n", argv[0]);
    return 2;
  }
  printf("relay %s: ok\n", t);
  return 0;
}
