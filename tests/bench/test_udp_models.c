/* Short loopback runs of every IO model on one backend (argv[1]: uv|raw),
 * both address families: every invariant must hold and the record must
 * validate against schema/run.schema.json. */
#include "test_udp_common.h"

static void base(struct np_udp_config *cfg, enum np_udp_backend be) {
  np_udp_config_defaults(cfg);
  cfg->backend = be;
  cfg->clients = 8;
  cfg->window = 2;
  cfg->warmup = 0.05;
  cfg->seconds = 0.2;
  cfg->quiet = 1;
}

static void check_run(const struct np_udp_config *cfg) {
  struct udp_outcome o;
  udp_run(cfg, &o);
  udp_assert_all_passed(&o);
  const struct np_udp_counters *m = &o.res.measure, *w = &o.res.warmup;
  ASSERT_GT(m->received, 0);
  ASSERT_UINT_EQ(m->sent, m->received);
  ASSERT_UINT_EQ(m->server_received, m->server_replied);
  ASSERT_UINT_EQ(np_hist_count(o.res.rtt_ns), m->received);
  ASSERT_UINT_EQ(o.loss.kernel_drops, 0);
  ASSERT_TRUE(o.res.drain_complete);
  if (cfg->warmup > 0) {
    ASSERT_GT(w->sent, 0); /* warm-up counted, and separately */
    ASSERT_UINT_EQ(w->sent, w->received);
  }
  ASSERT_EQ(o.res.lanes, np_udp_config_lanes(cfg));
  /* where requests were served: single never crosses threads, split and
   * pool do, steered reuseport keeps every client on its own thread */
  if (cfg->payload >= 12) {
    if (cfg->io_model == NP_UDP_IO_SINGLE ||
        cfg->io_model == NP_UDP_IO_REUSEPORT)
      ASSERT_UINT_EQ(m->cross_thread, 0);
    else
      ASSERT_GT(m->cross_thread, 0);
  }
  if (cfg->io_model == NP_UDP_IO_REUSEPORT)
    ASSERT_EQ(o.res.reuseport_steered, cfg->io_threads > 1);
  /* buffers: requested and effective recorded; Linux doubles requests */
  ASSERT_EQ(o.res.socks[0].sndbuf_requested, cfg->send_buffer);
  ASSERT_GE(o.res.socks[0].sndbuf_effective, cfg->send_buffer);
  np_udp_result_free(&o.res);
}

int main(int argc, char **argv) {
  enum np_udp_backend be = udp_backend_arg(argc, argv);
  static const char *const addrs[] = {"127.0.0.1", "::1"};
  static const enum np_udp_io_model models[] = {
      NP_UDP_IO_SINGLE, NP_UDP_IO_SPLIT, NP_UDP_IO_POOL, NP_UDP_IO_REUSEPORT};
  struct np_udp_config cfg;
  for (int a = 0; a < 2; a++) {
    for (int m = 0; m < 4; m++) {
      base(&cfg, be);
      snprintf(cfg.address, sizeof cfg.address, "%s", addrs[a]);
      cfg.family = a ? AF_INET6 : AF_INET;
      cfg.io_model = models[m];
      cfg.io_threads = 2;
      check_run(&cfg);
    }
  }
  /* compact payloads (shorter than the 24-byte header), --work, no warm-up,
   * the largest IPv4 payload */
  static const uint32_t payloads[] = {1, 7, 20, 65507};
  for (int i = 0; i < 4; i++) {
    base(&cfg, be);
    cfg.payload = payloads[i];
    cfg.window = payloads[i] == 1 ? 200 : 4;
    cfg.clients = 4;
    cfg.work = 10;
    cfg.warmup = i == 3 ? 0 : 0.05;
    check_run(&cfg);
  }
  base(&cfg, be);
  snprintf(cfg.address, sizeof cfg.address, "::1");
  cfg.family = AF_INET6;
  cfg.payload = 65527;
  cfg.clients = 2;
  check_run(&cfg);
  return 0;
}
