/*
 * np_udp_stream_run.c - set-up and phases of a stream run on the shared
 * controller (see np_udp_stream.h and np_udp_stream.c for the threads).
 * The socket options the kernel accepted are read back and recorded:
 * effective buffer sizes, UDP_GRO, and whether UDP_SEGMENT was taken (a
 * refused GSO send is a counted send error, the run fails).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "np_udp_stream_int.h"
#include "np_udp_transport.h"

static int sock_err(struct np_errbuf *eb, const char *what) {
  int e = errno;
  return np_errbuf_set(eb, np_err_from_errno(e), "stream: %s: %s", what,
                       strerror(e));
}

static void addr_of(const struct np_udp_config *cfg, uint16_t port,
                    struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (cfg->family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    inet_pton(AF_INET6, cfg->address, &a->sin6_addr);
    *len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    inet_pton(AF_INET, cfg->address, &a->sin_addr);
    *len = sizeof *a;
  }
}

static int open_socks(struct np_udp_st *s, struct np_errbuf *eb) {
  const struct np_udp_config *cfg = s->cfg;
  struct np_udp_stream_result *res = s->res;
  struct sockaddr_storage ss;
  socklen_t len;
  int one = 1;
  struct timeval rto = {0, 10000}, sto = {0, 100000};
  addr_of(cfg, 0, &ss, &len);
  if ((s->rx_fd = socket(cfg->family, SOCK_DGRAM, 0)) < 0)
    return sock_err(eb, "socket");
  setsockopt(s->rx_fd, SOL_SOCKET, SO_RCVBUF, &cfg->server_receive_buffer,
             sizeof(int));
  setsockopt(s->rx_fd, SOL_SOCKET, SO_RCVTIMEO, &rto, sizeof rto);
  if (setsockopt(s->rx_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one))
    return sock_err(eb, "SO_TIMESTAMPNS");
  if (cfg->gro) {
    int v = 0;
    socklen_t vl = sizeof v;
    if (setsockopt(s->rx_fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0 &&
        getsockopt(s->rx_fd, SOL_UDP, UDP_GRO, &v, &vl) == 0)
      res->gro_accepted = v != 0;
  }
  if (bind(s->rx_fd, (struct sockaddr *)&ss, len))
    return sock_err(eb, "bind");
  len = sizeof ss;
  if (getsockname(s->rx_fd, (struct sockaddr *)&ss, &len))
    return sock_err(eb, "getsockname");
  np_udp_sock_buffers(s->rx_fd, &res->rcvbuf_effective, &(int){0});
  for (uint32_t i = 0; i < cfg->clients; i++) {
    int fd = socket(cfg->family, SOCK_DGRAM, 0);
    if (fd < 0)
      return sock_err(eb, "socket");
    s->tx_fd[i] = fd;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg->send_buffer, sizeof(int));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sto, sizeof sto);
    if (connect(fd, (struct sockaddr *)&ss, len))
      return sock_err(eb, "connect");
    if (res->gso_segments) {
      int seg = (int)cfg->payload;
      if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg))
        res->gso_accepted = 0;
    }
  }
  np_udp_sock_buffers(s->tx_fd[0], &(int){0}, &res->sndbuf_effective);
  return 0;
}

static uint64_t drops_of(int fd) {
  uint64_t d = 0;
  np_udp_sock_drops(fd, &d);
  return d;
}

/* Sent datagrams of set all received or dropped by the receiver, or no
 * progress for 200 ms (at most 1 s, 100 ms after a signal). */
static int drain(struct np_udp_st *s, struct np_bench_ctl *bc, int set,
                 uint64_t drops0, double *took) {
  double t0 = np_time_mono_s(), tp = t0;
  uint64_t last = UINT64_MAX;
  int done = 0;
  for (;;) {
    /* idle first: the sender publishes pub_sent before it says idle, so a
     * count read after seeing idle is final (read before, it could miss
     * the sender's last batch and end the drain early) */
    int idle = atomic_load_explicit(&s->sender_idle, memory_order_acquire);
    uint64_t sent = atomic_load_explicit(&s->pub_sent[set],
                                         memory_order_acquire);
    uint64_t got = atomic_load_explicit(&s->pub_unique[set],
                                        memory_order_acquire);
    uint64_t dr = drops_of(s->rx_fd) - drops0;
    double now = np_time_mono_s();
    if (idle && got + dr >= sent) {
      done = 1;
      break;
    }
    if (got != last) {
      last = got;
      tp = now;
    }
    double bound = np_bench_ctl_signal(bc) ? 0.1 : 0.2;
    if (now - tp >= bound || now - t0 >= 1.0)
      break;
    np_bench_ctl_poll(bc, 1);
  }
  *took = np_time_mono_s() - t0;
  return done;
}

struct iv_ctx {
  struct np_udp_st *s;   /* the run          */
  struct np_hist *slice; /* handed-over slice */
};

static int iv_sample(void *ctx, struct np_bench_iv_sample *out) {
  struct iv_ctx *c = ctx;
  struct np_udp_st *s = c->s;
  atomic_fetch_add(&s->iv_req, 1);
  double t0 = np_time_mono_s();
  while (atomic_load(&s->iv_ack) != atomic_load(&s->iv_req) &&
         np_time_mono_s() - t0 < 0.2) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
  np_hist_reset(c->slice);
  pthread_mutex_lock(&s->iv_lock);
  np_hist_merge(c->slice, s->iv_pub);
  np_hist_reset(s->iv_pub);
  pthread_mutex_unlock(&s->iv_lock);
  out->ops = atomic_load(&s->pub_unique[1]);
  out->bytes = atomic_load(&s->pub_bytes);
  out->lost = atomic_load(&s->pub_skipped); /* never decreases */
  out->lat = c->slice;
  return 0;
}

static void sum_rx(struct np_udp_st *s) {
  for (int set = 0; set < 2; set++) {
    struct np_udp_stream_counters *c = &s->ctr[set];
    for (uint32_t i = 0; i < s->cfg->clients; i++) {
      const struct np_udp_stream_rx *r = &s->rx[set][i];
      c->received += r->received;
      c->unique += r->unique;
      c->duplicates += r->duplicates;
      c->out_of_order += r->out_of_order;
      c->too_late += r->too_late;
      c->gap_lost += r->gap_lost;
      c->negative_delay += r->negative_delay;
      if (r->max_displacement > c->max_displacement)
        c->max_displacement = r->max_displacement;
      if (set == 1)
        s->res->jitter_us += r->jitter_ns / 1e3 / s->cfg->clients;
    }
  }
  s->res->warmup = s->ctr[0];
  s->res->measure = s->ctr[1];
}

static int phases(struct np_udp_st *s, struct np_bench_ctl *bc,
                  struct np_errbuf *eb) {
  const struct np_udp_config *cfg = s->cfg;
  struct np_udp_stream_result *res = s->res;
  struct np_bench_cpu cpu0, cpu;
  double took;
  int rc;
  if (cfg->warmup > 0) {
    atomic_store(&s->phase, PH_WARMUP);
    res->warmup_seconds = np_bench_ctl_sleep(bc, cfg->warmup);
    atomic_store(&s->phase, PH_WDRAIN);
    drain(s, bc, 0, drops_of(s->rx_fd), &took);
  }
  if ((rc = np_bench_ctl_snapshot(bc, &res->run, NP_BENCH_SNAP_BEFORE, eb)))
    return rc;
  uint64_t rx0 = drops_of(s->rx_fd), tx0 = 0;
  for (uint32_t i = 0; i < cfg->clients; i++)
    tx0 += drops_of(s->tx_fd[i]);
  np_bench_cpu_now(&cpu0);
  struct iv_ctx iv = {.s = s};
  if (cfg->interval > 0 &&
      ((rc = np_bench_interval_init(&res->intervals, cfg->interval,
                                    cfg->seconds, "netproof-bench udp",
                                    "sequences skipped in the interval (one "
                                    "arriving later, out of order, is not "
                                    "taken back; gap_lost is)",
                                    cfg->quiet)) != 0 ||
       (rc = np_hist_new(1, 60000000000LL, 3, &iv.slice)) != 0))
    return np_errbuf_set(eb, rc, "interval: %s", np_strerror(rc));
  if (!np_bench_ctl_signal(bc))
    atomic_store(&s->phase, PH_MEASURE);
  res->measure_seconds = np_bench_interval_sleep(bc, cfg->seconds,
                                                 &res->intervals, iv_sample,
                                                 &iv);
  np_hist_free(iv.slice);
  atomic_store(&s->phase, PH_DRAIN);
  res->drain_complete = drain(s, bc, 1, rx0, &res->drain_seconds);
  atomic_store(&s->rx_stop, 1);
  np_bench_cpu_since(&cpu0, &cpu);
  res->cpu_user_seconds = cpu.user_seconds;
  res->cpu_sys_seconds = cpu.sys_seconds;
  res->rss_max_bytes = np_bench_rss_max_bytes();
  res->rx_drops = drops_of(s->rx_fd) - rx0;
  for (uint32_t i = 0; i < cfg->clients; i++)
    res->tx_drops += drops_of(s->tx_fd[i]);
  res->tx_drops -= tx0;
  return np_bench_ctl_snapshot(bc, &res->run, NP_BENCH_SNAP_AFTER, eb);
}

int np_udp_stream_run(const struct np_udp_config *cfg,
                      struct np_bench_ctl *bc,
                      struct np_udp_stream_result *res,
                      struct np_errbuf *eb) {
  struct np_udp_st s = {.cfg = cfg, .rx_fd = -1, .res = res};
  pthread_t tx, rx;
  int tx_on = 0, rx_on = 0, rc;
  memset(res, 0, sizeof *res);
  s.segs = cfg->gso ? (int)(cfg->gso / cfg->payload) : 1;
  res->gso_segments = cfg->gso ? s.segs : 0;
  res->gso_accepted = cfg->gso != 0;
  atomic_init(&s.phase, PH_IDLE);
  atomic_init(&s.sender_idle, 1);
  np_bench_ctl_start(bc, &res->run);
  s.tx_fd = malloc(cfg->clients * sizeof *s.tx_fd);
  s.rx[0] = calloc(cfg->clients, sizeof *s.rx[0]);
  s.rx[1] = calloc(cfg->clients, sizeof *s.rx[1]);
  if (!s.tx_fd || !s.rx[0] || !s.rx[1] ||
      np_hist_new(1, 60000000000LL, 3, &res->delay_ns) ||
      np_hist_new(1, 60000000000LL, 3, &res->transit_delta_ns) ||
      (cfg->interval > 0 &&
       (np_hist_new(1, 60000000000LL, 3, &s.iv_hist) ||
        np_hist_new(1, 60000000000LL, 3, &s.iv_pub)))) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto free_state;
  }
  pthread_mutex_init(&s.iv_lock, NULL);
  for (uint32_t i = 0; i < cfg->clients; i++)
    s.tx_fd[i] = -1;
  if ((rc = open_socks(&s, eb)) != 0)
    goto close_socks;
  if (pthread_create(&rx, NULL, np_udp__stream_receiver, &s) == 0)
    rx_on = 1;
  if (rx_on && pthread_create(&tx, NULL, np_udp__stream_sender, &s) == 0)
    tx_on = 1;
  rc = tx_on ? phases(&s, bc, eb)
             : np_errbuf_set(eb, NP_ESYS, "pthread_create failed");
  atomic_store(&s.phase, PH_STOP);
  atomic_store(&s.rx_stop, 1);
  if (tx_on)
    pthread_join(tx, NULL);
  if (rx_on)
    pthread_join(rx, NULL);
  sum_rx(&s);
close_socks:
  if (s.rx_fd >= 0)
    close(s.rx_fd);
  for (uint32_t i = 0; i < cfg->clients; i++)
    if (s.tx_fd[i] >= 0)
      close(s.tx_fd[i]);
  pthread_mutex_destroy(&s.iv_lock);
free_state:
  np_hist_free(s.iv_hist);
  np_hist_free(s.iv_pub);
  free(s.rx[0]);
  free(s.rx[1]);
  free(s.tx_fd);
  np_bench_ctl_finish(bc, &res->run);
  if (rc)
    np_udp_stream_result_free(res);
  return rc;
}

void np_udp_stream_result_free(struct np_udp_stream_result *res) {
  if (res == NULL)
    return;
  np_hist_free(res->delay_ns);
  np_hist_free(res->transit_delta_ns);
  np_bench_interval_free(&res->intervals);
  np_bench_run_free(&res->run);
  memset(res, 0, sizeof *res);
}
