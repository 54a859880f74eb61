/*
 * np_relay_stats.c - snapshots of the relay's counters and their JSON form
 * ("netproof/relay-stats/1", schema/relay-stats.schema.json): what was
 * configured, what was actually applied per route and direction, how
 * precisely the timer released copies, what the socket layer did, and the
 * relay's sockets for a record's `sockets` list.
 */
#include "np_relay_int.h"

#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_record_sections.h"
#include "np_json.h"

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

#define MU(r) ((pthread_mutex_t *)&(r)->mu)
#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))

int np_relay_route_counts(const struct np_relay *r, unsigned route,
                          unsigned dir, struct np_relay_counts *out) {
  if (r == NULL || dir >= NP_RELAY_DIRS)
    return NP_EINVAL;
  int rc = NP_EINVAL;
  pthread_mutex_lock(MU(r));
  if (route < r->nslots && r->routes[route].open) {
    *out = r->routes[route].dir[dir].counts;
    rc = 0;
  }
  pthread_mutex_unlock(MU(r));
  return rc;
}

int np_relay_route_peak(const struct np_relay *r, unsigned route,
                        uint64_t *peak_bytes, uint64_t *peak_packets) {
  if (r == NULL)
    return NP_EINVAL;
  int rc = NP_EINVAL;
  pthread_mutex_lock(MU(r));
  if (route < r->nslots && r->routes[route].open) {
    *peak_bytes = r->routes[route].peak_bytes;
    *peak_packets = r->routes[route].peak_packets;
    rc = 0;
  }
  pthread_mutex_unlock(MU(r));
  return rc;
}

int np_relay_timing_get(const struct np_relay *r, struct np_relay_timing *out) {
  if (r == NULL)
    return NP_EINVAL;
  pthread_mutex_lock(MU(r));
  *out = r->timing;
  pthread_mutex_unlock(MU(r));
  return 0;
}

int np_relay_io_get(const struct np_relay *r, struct np_relay_io *out) {
  if (r == NULL)
    return NP_EINVAL;
  pthread_mutex_lock(MU(r));
  *out = r->io;
  pthread_mutex_unlock(MU(r));
  return 0;
}

int np_relay_tcp_get(const struct np_relay *r, struct np_relay_tcp_stats *out) {
  if (r == NULL)
    return NP_EINVAL;
  pthread_mutex_lock(MU(r));
  *out = r->tcp.st;
  pthread_mutex_unlock(MU(r));
  return 0;
}

void np_relay_counts_add(struct np_relay_counts *acc,
                         const struct np_relay_counts *c) {
  /* Every field is a uint64_t counter or a peak; peaks are summed too. */
  uint64_t *a = (uint64_t *)acc;
  const uint64_t *b = (const uint64_t *)c;
  for (size_t i = 0; i < sizeof(*acc) / sizeof(uint64_t); i++)
    a[i] += b[i];
}

static double ratio(uint64_t num, uint64_t den) {
  return den ? (double)num / (double)den : 0.0;
}

static cJSON *counts_json(const struct np_relay_counts *c) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
#define F(name) NUM(o, #name, c->name);
  NP_RELAY_COUNT_FIELDS(F)
#undef F
  NUM(o, "relay_errors", np_relay_counts_errors(c));
  /* Observed rates, each over the packets that model could act on. */
  cJSON *obs = cJSON_AddObjectToObject(o, "observed");
  if (obs == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  uint64_t after_burst = c->loss_stage - c->lost_burst;
  uint64_t after_ge = after_burst - c->lost_ge;
  NUM(obs, "duplicate_rate", ratio(c->duplicated, c->received));
  NUM(obs, "burst_loss_rate", ratio(c->lost_burst, c->loss_stage));
  NUM(obs, "ge_loss_rate", ratio(c->lost_ge, after_burst));
  NUM(obs, "random_loss_rate", ratio(c->lost_random, after_ge));
  NUM(obs, "total_loss_rate",
      ratio(c->lost_burst + c->lost_ge + c->lost_random, c->loss_stage));
  NUM(obs, "reorder_rate", ratio(c->reordered, c->queued));
  return o;
}

static cJSON *timing_json(const struct np_relay_timing *t) {
  static const char *const names[8] = {"lt_10us",  "lt_20us",  "lt_50us",
                                       "lt_100us", "lt_200us", "lt_500us",
                                       "lt_1ms",   "ge_1ms"};
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddStringToObject(o, "mechanism",
                          "binary min-heap + timerfd (CLOCK_MONOTONIC, "
                          "absolute) in the relay's epoll set, then a "
                          "zero-timeout poll for the last spin interval");
  NUM(o, "releases", t->releases);
  NUM(o, "timer_wakeups", t->timer_wakeups);
  NUM(o, "late_mean_ns",
      t->releases ? (double)t->late_sum_ns / (double)t->releases : 0.0);
  NUM(o, "late_max_ns", t->late_max_ns);
  NUM(o, "late_over_100us", t->late_over_100us);
  cJSON *h = cJSON_AddObjectToObject(o, "late_histogram");
  if (h == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  for (int i = 0; i < 8; i++)
    NUM(h, names[i], t->late_hist[i]);
  return o;
}

static cJSON *io_json(const struct np_relay *r, const struct np_relay_io *io) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  NUM(o, "batch_max", NP_RELAY_BATCH);
  NUM(o, "recv_calls", io->recv_calls);
  NUM(o, "recv_datagrams", io->recv_datagrams);
  NUM(o, "send_calls", io->send_calls);
  NUM(o, "send_datagrams", io->send_datagrams);
  NUM(o, "recv_errors", io->recv_errors);
  NUM(o, "routes_refused", io->routes_refused);
  NUM(o, "routes_opened", io->routes_opened);
  NUM(o, "routes_expired", io->routes_expired);
  NUM(o, "route_idle_seconds", (double)r->idle_ns / 1e9);
  NUM(o, "refused_loop", io->refused_loop);
  NUM(o, "max_memory_bytes", r->max_memory);
  NUM(o, "memory_overflow", io->memory_overflow);
  NUM(o, "queued_bytes", io->queued_bytes);
  NUM(o, "queued_memory_bytes", io->queued_memory);
  NUM(o, "queued_memory_peak_bytes", io->queued_memory_peak);
  NUM(o, "route_errors", io->route_errors);
  NUM(o, "pool_full", io->pool_full);
  NUM(o, "gso_sends", io->gso_sends);
  NUM(o, "gso_datagrams", io->gso_datagrams);
  NUM(o, "gso_refused", io->gso_refused);
  NUM(o, "thread_cpu_seconds", (double)io->thread_cpu_ns / 1e9);
  NUM(o, "pool_chunk_bytes", NP_RELAY_CHUNK);
  NUM(o, "pool_route_packets", r->route_packets);
  NUM(o, "pool_route_bytes", r->route_bytes);
  NUM(o, "pool_route_chunks",
      np_relay_pool_chunks_for(r->route_packets, r->route_bytes));
  return o;
}

static cJSON *tcp_json(const struct np_relay *r,
                       const struct np_relay_tcp_stats *t) {
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  cJSON_AddBoolToObject(o, "enabled", r->tcp.listen_fd >= 0);
  NUM(o, "max_connections", r->tcp.max_conns);
  NUM(o, "max_bytes", r->tcp.max_bytes);
  NUM(o, "accepted", t->accepted);
  NUM(o, "refused", t->refused);
  NUM(o, "connect_failed", t->connect_failed);
  NUM(o, "closed", t->closed);
  NUM(o, "byte_limit_closes", t->byte_limit_closes);
  NUM(o, "resets", t->resets);
  NUM(o, "idle_seconds", (double)r->tcp.idle_ns / 1e9);
  NUM(o, "idle_closes", t->idle_closes);
  NUM(o, "bytes_c2s", t->bytes_c2s);
  NUM(o, "bytes_s2c", t->bytes_s2c);
  NUM(o, "active", t->active);
  NUM(o, "peak_active", t->peak_active);
  return o;
}

/* Adds child to parent under key; on NULL child returns -1. */
static int add(cJSON *parent, const char *key, cJSON *child) {
  if (child == NULL || !cJSON_AddItemToObject(parent, key, child)) {
    cJSON_Delete(child);
    return -1;
  }
  return 0;
}

/* What one route looked like, copied under the lock. */
struct route_snap {
  unsigned index;
  struct np_relay_counts c[NP_RELAY_DIRS];
  uint64_t peak_bytes, peak_packets;
  struct sockaddr_storage client, front;
  int client_known;
  double opened_s;
};

static cJSON *route_json(unsigned i, const struct route_snap *s) {
  static const char *const dname[NP_RELAY_DIRS] = {"c2s", "s2c"};
  char txt[NP_ADDR_TEXT];
  cJSON *ro = cJSON_CreateObject();
  if (ro == NULL)
    return NULL;
  NUM(ro, "route", i);
  np_addr_sa_format((const struct sockaddr *)&s->front, txt, sizeof txt);
  cJSON_AddStringToObject(ro, "front", txt);
  if (s->client_known) {
    np_addr_sa_format((const struct sockaddr *)&s->client, txt, sizeof txt);
    cJSON_AddStringToObject(ro, "client", txt);
  } else {
    cJSON_AddNullToObject(ro, "client");
  }
  NUM(ro, "opened_seconds", s->opened_s);
  NUM(ro, "peak_queue_bytes", s->peak_bytes);
  NUM(ro, "peak_queue_packets", s->peak_packets);
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
    if (add(ro, dname[d], counts_json(&s->c[d])) != 0) {
      cJSON_Delete(ro);
      return NULL;
    }
  return ro;
}

cJSON *np_relay_stats_json(const struct np_relay *r) {
  static const char *const dname[NP_RELAY_DIRS] = {"c2s", "s2c"};
  if (r == NULL)
    return NULL;
  char txt[NP_ADDR_TEXT];
  struct np_relay_timing timing;
  struct np_relay_io io;
  struct np_relay_tcp_stats tcp;
  struct np_relay_counts expired[NP_RELAY_DIRS];
  uint64_t exp_peak_bytes, exp_peak_packets;
  pthread_mutex_lock(MU(r));
  unsigned n = 0;
  struct route_snap *snap = calloc(r->nopen ? r->nopen : 1, sizeof *snap);
  for (unsigned i = 0; snap && i < r->nslots; i++) {
    const struct np_relay_route *rt = &r->routes[i];
    if (!rt->open)
      continue;
    snap[n].index = i;
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      snap[n].c[d] = rt->dir[d].counts;
    snap[n].peak_bytes = rt->peak_bytes;
    snap[n].peak_packets = rt->peak_packets;
    snap[n].client = rt->client;
    snap[n].client_known = rt->client_known;
    snap[n].front = rt->front_addr;
    snap[n].opened_s = rt->opened_s;
    n++;
  }
  memcpy(expired, r->expired, sizeof expired);
  exp_peak_bytes = r->expired_peak_bytes;
  exp_peak_packets = r->expired_peak_packets;
  timing = r->timing;
  io = r->io;
  tcp = r->tcp.st;
  pthread_mutex_unlock(MU(r));
  cJSON *o = cJSON_CreateObject();
  if (snap == NULL || o == NULL)
    goto delete_doc;

  cJSON_AddStringToObject(o, "schema", "netproof/relay-stats/1");
  cJSON_AddStringToObject(o, "mode", r->standalone ? "standalone" : "in-process");
  if (add(o, "config", np_relay_config_json(&r->cfg)) != 0)
    goto delete_doc;
  np_addr_sa_format((const struct sockaddr *)&r->server, txt, sizeof txt);
  cJSON_AddStringToObject(o, "forward", txt);
  if (r->standalone) {
    np_addr_sa_format((const struct sockaddr *)&r->listen_addr, txt,
                         sizeof txt);
    cJSON_AddStringToObject(o, "listen", txt);
  } else {
    cJSON_AddNullToObject(o, "listen");
  }
  cJSON_AddStringToObject(
      o, "topology",
      r->standalone
          ? "one listen socket; a route per client source address, opened "
            "on its first datagram with its own back socket (port 0), up "
            "to routes_max open at once; a route idle for "
            "io.route_idle_seconds expires (its counters go to expired)"
          : "one route per client: front socket (client side) and back "
            "socket (server side), loopback port 0");
  cJSON_AddStringToObject(o, "streams",
                          "xoshiro256** per (route, direction, impairment); "
                          "state = splitmix64 outputs from seed ^ (key * "
                          "0xD1B54A32D192ED03), key = ((route*2+dir)*8+stream)+1");
  cJSON_AddStringToObject(o, "order",
                          "duplicate, loss (burst, gemodel, random), queue "
                          "limit, delay+jitter, rate, reorder extra delay");
  NUM(o, "routes_max", r->max_routes);
  NUM(o, "routes_count", n);
  if (add(o, "timer", timing_json(&timing)) != 0 ||
      add(o, "io", io_json(r, &io)) != 0)
    goto delete_doc;
  if (r->standalone && add(o, "tcp", tcp_json(r, &tcp)) != 0)
    goto delete_doc;

  cJSON *routes = cJSON_AddArrayToObject(o, "routes");
  if (routes == NULL)
    goto delete_doc;
  struct np_relay_counts tot[NP_RELAY_DIRS];
  memset(tot, 0, sizeof(tot));
  uint64_t peak_bytes_sum = 0, peak_packets_sum = 0;
  for (unsigned i = 0; i < n; i++) {
    cJSON *ro = route_json(snap[i].index, &snap[i]);
    if (ro == NULL || !cJSON_AddItemToArray(routes, ro)) {
      cJSON_Delete(ro);
      goto delete_doc;
    }
    peak_bytes_sum += snap[i].peak_bytes;
    peak_packets_sum += snap[i].peak_packets;
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      np_relay_counts_add(&tot[d], &snap[i].c[d]);
  }
  if (r->standalone) { /* routes closed by expiry, summed */
    cJSON *ex = cJSON_AddObjectToObject(o, "expired");
    if (ex == NULL)
      goto delete_doc;
    NUM(ex, "routes", io.routes_expired);
    NUM(ex, "peak_queue_bytes_sum", exp_peak_bytes);
    NUM(ex, "peak_queue_packets_sum", exp_peak_packets);
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      if (add(ex, dname[d], counts_json(&expired[d])) != 0)
        goto delete_doc;
    peak_bytes_sum += exp_peak_bytes;
    peak_packets_sum += exp_peak_packets;
    for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
      np_relay_counts_add(&tot[d], &expired[d]);
  }
  cJSON *totals = cJSON_AddObjectToObject(o, "totals");
  if (totals == NULL)
    goto delete_doc;
  NUM(totals, "peak_queue_bytes_sum", peak_bytes_sum);
  NUM(totals, "peak_queue_packets_sum", peak_packets_sum);
  NUM(totals, "overflow", tot[0].overflow + tot[1].overflow);
  NUM(totals, "relay_errors", np_relay_counts_errors(&tot[0]) +
                                  np_relay_counts_errors(&tot[1]) +
                                  io.recv_errors + io.route_errors +
                                  io.pool_full);
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
    if (add(totals, dname[d], counts_json(&tot[d])) != 0)
      goto delete_doc;
  free(snap);
  return o;

delete_doc:
  cJSON_Delete(o);
  free(snap);
  return NULL;
}

uint64_t np_relay__sock_drops(int fd) {
  uint32_t mi[SK_MEMINFO_VARS];
  socklen_t len = sizeof mi;
  if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) != 0 ||
      len < sizeof(uint32_t) * (SK_MEMINFO_DROPS + 1))
    return 0;
  return mi[SK_MEMINFO_DROPS];
}

static int sock_entry(cJSON *list, const struct np_relay *r,
                      const struct np_relay_sock *s, uint32_t index,
                      uint64_t *drops) {
  struct np_bench_socket e = {
      .role = "relay",
      .index = index,
      .thread = 0,
      .rcvbuf_requested = r->socket_buffer,
      .rcvbuf_effective = s->rcvbuf,
      .sndbuf_requested = r->socket_buffer,
      .sndbuf_effective = s->sndbuf,
      .drops = np_relay__sock_drops(s->fd),
      .rxq_ovfl_last = -1,
  };
  *drops += e.drops;
  cJSON *j = np_bench_record_socket(&e);
  if (j == NULL || !cJSON_AddItemToArray(list, j)) {
    cJSON_Delete(j);
    return -1;
  }
  return 0;
}

cJSON *np_relay_sockets_json(const struct np_relay *r, uint64_t *drops) {
  uint64_t sum = 0;
  uint32_t k = 0;
  cJSON *list = cJSON_CreateArray();
  if (list == NULL)
    return NULL;
  pthread_mutex_lock(MU(r));
  int bad = 0;
  if (r->standalone)
    bad |= sock_entry(list, r, &r->listen, k++, &sum);
  for (unsigned i = 0; !r->standalone && i < r->nslots; i++)
    bad |= sock_entry(list, r, &r->routes[i].front, k++, &sum);
  for (unsigned i = 0; i < r->nslots; i++)
    if (r->routes[i].open)
      bad |= sock_entry(list, r, &r->routes[i].back, k++, &sum);
  sum += r->expired_drops; /* sockets of expired routes, at their close */
  pthread_mutex_unlock(MU(r));
  if (bad) {
    cJSON_Delete(list);
    return NULL;
  }
  if (drops)
    *drops = sum;
  return list;
}
