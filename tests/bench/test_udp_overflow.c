/* The overflow probe, explained by skb truesize accounting (see
 * docs/socket-buffers-truesize.md), on one backend (argv[1]: uv|raw).
 *
 * The test first measures this kernel's truesize for the payload (queue
 * datagrams on an unread socket and divide SO_MEMINFO's rmem_alloc), then
 * predicts from it, for the single model with no warm-up:
 *   cap      = floor(rcvbuf_eff / truesize)    datagrams a full queue holds
 *   deferral = ceil((rcvbuf_eff / 4) / truesize) read-but-uncharged room UDP
 *              may still hold (udp_rmem_release frees in quarters)
 *   burst    = clients x window
 *   burst <= 0.75 rcvbuf_eff / truesize  -> no loss, certainly
 *   burst >  cap + 1                     -> loss in [burst - cap - 1,
 *                                                    burst - cap + deferral]
 * and every loss must equal the per-socket kernel drop count exactly. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test_udp_common.h"

#define QUEUED 40

static int64_t measure_truesize(uint32_t payload) {
  int rcvbuf = 4194304; /* room for QUEUED datagrams of any size */
  int r = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  ASSERT_TRUE(r >= 0 && s >= 0);
  ASSERT_OK(setsockopt(r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf));
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  ASSERT_OK(bind(r, (struct sockaddr *)&a, sizeof a));
  socklen_t len = sizeof a;
  ASSERT_OK(getsockname(r, (struct sockaddr *)&a, &len));
  ASSERT_OK(connect(s, (struct sockaddr *)&a, sizeof a));
  char *buf = calloc(1, payload);
  ASSERT_NOT_NULL(buf);
  for (int i = 0; i < QUEUED; i++)
    ASSERT_EQ(send(s, buf, payload, 0), (ssize_t)payload);
  uint32_t mem[SK_MEMINFO_VARS] = {0};
  for (int tries = 0; tries < 100; tries++) { /* let loopback deliver */
    len = sizeof mem;
    ASSERT_OK(getsockopt(r, SOL_SOCKET, 55 /* SO_MEMINFO */, mem, &len));
    if (mem[SK_MEMINFO_RMEM_ALLOC] % QUEUED == 0 &&
        mem[SK_MEMINFO_RMEM_ALLOC] > 0)
      break;
    usleep(1000);
  }
  ASSERT_EQ(mem[SK_MEMINFO_DROPS], 0);
  free(buf);
  close(r);
  close(s);
  return mem[SK_MEMINFO_RMEM_ALLOC] / QUEUED;
}

static void probe_cfg(struct np_udp_config *cfg, enum np_udp_backend be,
                      uint32_t payload, uint32_t clients, uint32_t window,
                      int server_rcvbuf) {
  np_udp_config_defaults(cfg);
  cfg->backend = be;
  cfg->payload = payload;
  cfg->clients = clients;
  cfg->window = window;
  cfg->server_receive_buffer = server_rcvbuf;
  cfg->server_receive_buffer_set = 1;
  cfg->warmup = 0;
  cfg->seconds = 0.3;
  cfg->quiet = 1;
}

struct prediction {
  int64_t truesize, rcvbuf_eff, cap, deferral;
};

static void predict(const struct np_udp_config *cfg, struct prediction *p) {
  p->truesize = measure_truesize(cfg->payload);
  /* effective = what the kernel grants; read back from a probe socket */
  int fd = socket(AF_INET, SOCK_DGRAM, 0), v = cfg->server_receive_buffer;
  socklen_t len = sizeof v;
  ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
  ASSERT_OK(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len));
  close(fd);
  p->rcvbuf_eff = v;
  p->cap = p->rcvbuf_eff / p->truesize;
  p->deferral = ((p->rcvbuf_eff >> 2) + p->truesize - 1) / p->truesize;
  fprintf(stderr,
          "payload %u: truesize %lld, rcvbuf %lld, cap %lld, deferral %lld\n",
          cfg->payload, (long long)p->truesize, (long long)p->rcvbuf_eff,
          (long long)p->cap, (long long)p->deferral);
}

/* A run that must lose: loss within the predicted range, all of it seen
 * by the server socket's kernel counter. */
static void expect_overflow(const struct np_udp_config *cfg) {
  struct prediction p;
  struct udp_outcome o;
  predict(cfg, &p);
  int64_t burst = (int64_t)cfg->clients * cfg->window;
  ASSERT_GT(burst, p.cap + 1);
  udp_run(cfg, &o);
  ASSERT_GE(o.loss.lost, burst - p.cap - 1);
  ASSERT_LE(o.loss.lost, burst - p.cap + p.deferral);
  ASSERT_EQ(o.loss.lost, (int64_t)o.loss.kernel_drops);
  ASSERT_EQ(o.loss.request_leg, (int64_t)o.loss.server_drops);
  ASSERT_TRUE(!udp_check_passed(&o, "no_loss"));
  ASSERT_TRUE(udp_check_passed(&o, "loss_matches_kernel_drops"));
  ASSERT_TRUE(udp_check_passed(&o, "loss_attributed"));
  ASSERT_TRUE(udp_check_passed(&o, "request_leg_matches_server_drops"));
  ASSERT_TRUE(udp_check_passed(&o, "reply_leg_matches_client_drops"));
  ASSERT_TRUE(udp_check_passed(&o, "no_content_errors"));
  ASSERT_TRUE(udp_check_passed(&o, "no_sequence_errors"));
  ASSERT_UINT_EQ(o.res.measure.server_received, o.res.measure.server_replied);
  np_udp_result_free(&o.res);
}

/* A run that must not lose: the burst fits even with maximal deferral. */
static void expect_clean(const struct np_udp_config *cfg) {
  struct prediction p;
  struct udp_outcome o;
  predict(cfg, &p);
  int64_t burst = (int64_t)cfg->clients * cfg->window;
  ASSERT_LE(burst * p.truesize, p.rcvbuf_eff - (p.rcvbuf_eff >> 2));
  udp_run(cfg, &o);
  udp_assert_all_passed(&o);
  ASSERT_EQ(o.loss.lost, 0);
  np_udp_result_free(&o.res);
}

int main(int argc, char **argv) {
  enum np_udp_backend be = udp_backend_arg(argc, argv);
  struct np_udp_config cfg;
  struct prediction p;
  /* fast and certain: a 128 KiB (effective) server queue, 64 x 16 KiB */
  probe_cfg(&cfg, be, 16384, 4, 16, 65536);
  expect_overflow(&cfg);
  /* the reference probe and its passing variants */
  probe_cfg(&cfg, be, 16384, 16, 64, 4194304);
  expect_overflow(&cfg);
  probe_cfg(&cfg, be, 16384, 16, 16, 4194304);
  expect_clean(&cfg);
  probe_cfg(&cfg, be, 1472, 16, 64, 4194304);
  expect_clean(&cfg);
  /* the explained boundary: largest certain-pass and smallest
   * certain-fail window for 16 clients x 16 KiB */
  probe_cfg(&cfg, be, 16384, 16, 1, 4194304);
  predict(&cfg, &p);
  uint32_t w_pass = (uint32_t)((p.rcvbuf_eff - (p.rcvbuf_eff >> 2)) /
                               p.truesize / 16);
  uint32_t w_fail = (uint32_t)((p.cap + 1) / 16 + 1);
  fprintf(stderr, "boundary: window %u passes, window %u fails\n", w_pass,
          w_fail);
  cfg.window = w_pass;
  expect_clean(&cfg);
  cfg.window = w_fail;
  expect_overflow(&cfg);
  return 0;
}
