/* Short loopback runs of every IO model on one backend (argv[1]:
 * uv|raw|uring; uring skips where io_uring is refused), both address
 * families: every invariant must hold and the record must validate against
 * schema/run.schema.json.  Also what each backend says about itself: which
 * sockets read SO_RXQ_OVFL, the system call count, the uring set-up. */
#include "test_udp_common.h"

static void base(struct np_udp_config *cfg, enum np_udp_backend be) {
  np_udp_config_defaults(cfg);
  cfg->backend = be;
  cfg->clients = 8;
  cfg->window = 2;
  cfg->warmup = 0.05;
  cfg->seconds = 0.2;
  cfg->quiet = 1;
  cfg->count_syscalls = 1;
}

/* The backend's own facts: drop sources per socket, syscalls, set-up. */
static void check_backend(const struct np_udp_config *cfg,
                          const struct udp_outcome *o) {
  for (uint32_t i = 0; i < o->res.nsocks; i++) {
    const struct np_udp_sock_report *r = &o->res.socks[i];
    /* SO_RXQ_OVFL only where it is read: raw's unconnected server sockets
     * (the first lanes' ones; connected sockets follow them) */
    int reads = cfg->backend == NP_UDP_BACKEND_RAW &&
                r->role == NP_UDP_ROLE_SERVER &&
                (cfg->io_model != NP_UDP_IO_CONNECTED ||
                 r->index < o->res.lanes);
    ASSERT_EQ(r->rxq_ovfl_last >= 0, reads);
  }
  const struct np_udp_syscount *a = &o->res.sys_before, *b = &o->res.sys_after;
  if (cfg->backend == NP_UDP_BACKEND_UV) {
    ASSERT_EQ(a->syscalls, -1);
    ASSERT_EQ(b->syscalls, -1);
  } else {
    ASSERT_GE(a->syscalls, 0);
    ASSERT_GT(b->syscalls, a->syscalls); /* at least one wait per lane */
  }
  ASSERT_GE(b->voluntary, a->voluntary);
  ASSERT_GE(b->involuntary, a->involuntary);
  const struct np_udp_loop_info *t = &o->res.transport;
  if (cfg->backend == NP_UDP_BACKEND_URING) {
    ASSERT_TRUE(t->setup_requested != 0);
    ASSERT_TRUE(t->setup_accepted != 0); /* CQSIZE is in every attempt */
    ASSERT_TRUE(t->buffer_ring);
    ASSERT_GE(t->buffers, 8);
    ASSERT_GT(t->ring_entries, 0);
    /* lock-step receives: the connected model's client and its own server
     * socket pair up in their lane (np_udp_uring.c); no other model has a
     * socket connected to another of the same loop */
    ASSERT_UINT_EQ(t->paired_sockets, cfg->io_model == NP_UDP_IO_CONNECTED
                                          ? 2 * cfg->clients
                                          : 0);
  } else {
    ASSERT_UINT_EQ(t->setup_requested, 0);
    ASSERT_UINT_EQ(t->sync_sends, 0);
  }
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
        cfg->io_model == NP_UDP_IO_REUSEPORT ||
        cfg->io_model == NP_UDP_IO_CONNECTED)
      ASSERT_UINT_EQ(m->cross_thread, 0);
    else
      ASSERT_GT(m->cross_thread, 0);
  }
  if (cfg->io_model == NP_UDP_IO_REUSEPORT)
    ASSERT_EQ(o.res.reuseport_steered, cfg->io_threads > 1);
  /* connected: a socket per lane, then one per client, then the clients */
  if (cfg->io_model == NP_UDP_IO_CONNECTED)
    ASSERT_UINT_EQ(o.res.nsocks, o.res.lanes + 2 * cfg->clients);
  check_backend(cfg, &o);
  /* buffers: requested and effective recorded; Linux doubles requests */
  ASSERT_EQ(o.res.socks[0].sndbuf_requested, cfg->send_buffer);
  ASSERT_GE(o.res.socks[0].sndbuf_effective, cfg->send_buffer);
  np_udp_result_free(&o.res);
}

int main(int argc, char **argv) {
  enum np_udp_backend be = udp_backend_arg(argc, argv);
  static const char *const addrs[] = {"127.0.0.1", "::1"};
  static const enum np_udp_io_model models[] = {
      NP_UDP_IO_SINGLE, NP_UDP_IO_SPLIT, NP_UDP_IO_POOL, NP_UDP_IO_REUSEPORT,
      NP_UDP_IO_CONNECTED};
  struct np_udp_config cfg;
  for (int a = 0; a < 2; a++) {
    for (int m = 0; m < 5; m++) {
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
  /* the connected model with short and large payloads, one thread */
  base(&cfg, be);
  cfg.io_model = NP_UDP_IO_CONNECTED;
  cfg.io_threads = 1;
  cfg.payload = 7;
  cfg.window = 16;
  check_run(&cfg);
  cfg.payload = 65507;
  cfg.window = 2;
  cfg.clients = 2;
  check_run(&cfg);
  /* the connected model at window 1 (uring: lock-step receives, one per
   * datagram) and in open loop, where a client may send again before its
   * reply came: every request still gets exactly one reply */
  base(&cfg, be);
  cfg.io_model = NP_UDP_IO_CONNECTED;
  cfg.io_threads = 2;
  cfg.window = 1;
  check_run(&cfg);
  cfg.rate = 20000;
  cfg.window = 8;
  check_run(&cfg);
  return 0;
}
