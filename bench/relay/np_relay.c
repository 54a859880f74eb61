/*
 * np_relay.c - the live relay's set-up and lifecycle: the epoll set, the
 * timerfd and stop eventfd, routes (their sockets, pools and seeded
 * impairment state), the source-address table of the standalone relay,
 * start / stop / join / destroy.  The loop itself is np_relay_loop.c.
 *
 * A route's back socket binds the loopback address of the server's family
 * when the server is on loopback (the wildcard otherwise), port 0, so each
 * client appears to the server as its own source.  Everything a route
 * needs - two sockets, its pool, room in the release heap - is reserved
 * when it opens (in-process: at create; standalone: on the first datagram
 * of a new source), never per datagram.
 */
#include "np_relay_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

uint64_t np_relay_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int sys_fail(struct np_errbuf *eb, const char *what) {
  int e = errno;
  return np_errbuf_set(eb, np_err_from_errno(e), "relay: %s: %s", what,
                       strerror(e));
}

int np_relay__epoll_add(struct np_relay *r, int fd, uint32_t events,
                        struct np_relay_ev *ev) {
  struct epoll_event e = {.events = events, .data.ptr = ev};
  return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e) == 0
             ? 0
             : np_err_from_errno(errno);
}

static int is_loopback(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET6)
    return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
  return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
}

/* Port 0 on the loopback address of family (or the wildcard). */
static void local_any(int family, int loopback, struct sockaddr_storage *out) {
  memset(out, 0, sizeof *out);
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)out;
    a->sin6_family = AF_INET6;
    a->sin6_addr = loopback ? in6addr_loopback : in6addr_any;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)out;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(loopback ? INADDR_LOOPBACK : INADDR_ANY);
  }
}

static uint16_t addr_port(const struct sockaddr *sa) {
  return ntohs(sa->sa_family == AF_INET6
                   ? ((const struct sockaddr_in6 *)sa)->sin6_port
                   : ((const struct sockaddr_in *)sa)->sin_port);
}

static int is_wildcard(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET6)
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
  return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* A non-blocking UDP socket bound to at, in the epoll set. */
static int sock_open(struct np_relay *r, struct np_relay_sock *s,
                     const struct sockaddr *at, enum np_relay_sock_role role,
                     uint32_t route, struct np_errbuf *eb) {
  s->ev.kind = NP_RELAY_EV_UDP;
  s->gso = 1; /* until the kernel refuses it (np_relay_loop.c) */
  s->role = role;
  s->route = route;
  s->fd = socket(at->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->fd < 0)
    return sys_fail(eb, "udp socket");
  int sz = r->socket_buffer;
  setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
  if (bind(s->fd, at, np_addr_sa_len(at)) != 0) {
    char txt[NP_ADDR_TEXT];
    int e = errno;
    np_addr_sa_format(at, txt, sizeof txt);
    return np_errbuf_set(eb, np_err_from_errno(e), "relay: bind udp %s: %s",
                         txt, strerror(e));
  }
  socklen_t len = sizeof s->rcvbuf;
  getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &s->rcvbuf, &len);
  len = sizeof s->sndbuf;
  getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &s->sndbuf, &len);
  int rc = np_relay__epoll_add(r, s->fd, EPOLLIN, &s->ev);
  return rc ? np_errbuf_set(eb, rc, "relay: epoll: %s", np_strerror(rc)) : 0;
}

static void sock_close(struct np_relay_sock *s) {
  if (s->fd >= 0)
    close(s->fd);
  s->fd = -1;
}

int np_relay__route_open(struct np_relay *r, unsigned i,
                         const struct sockaddr *client, struct np_errbuf *eb) {
  struct np_relay_route *rt = &r->routes[i];
  struct sockaddr_storage at;
  int rc;
  pthread_mutex_lock(&r->mu); /* a closed slot: readers skip it, but its */
  memset(rt, 0, sizeof *rt);  /* open flag is theirs to read under mu   */
  pthread_mutex_unlock(&r->mu);
  rt->index = i;
  rt->serial = r->standalone ? (uint32_t)r->io.routes_opened : i;
  rt->front.fd = rt->back.fd = -1;
  if ((rc = np_relay_pool_init(&rt->pool, r->route_packets, r->route_bytes)))
    return np_errbuf_set(eb, rc, "relay: route %u: queue pool: %s", i,
                         np_strerror(rc));
  if ((rc = np_relay_heap_reserve(&r->heap,
                                  (size_t)(i + 1) * r->route_packets)) != 0) {
    np_errbuf_set(eb, rc, "relay: route %u: release heap: %s", i,
                  np_strerror(rc));
    goto free_pool;
  }
  int loop = is_loopback((const struct sockaddr *)&r->server);
  if (!r->standalone) {
    local_any(r->server.ss_family, 1, &at);
    if ((rc = sock_open(r, &rt->front, (const struct sockaddr *)&at,
                        NP_RELAY_SOCK_FRONT, i, eb)) != 0)
      goto close_socks;
    socklen_t len = sizeof rt->front_addr;
    if (getsockname(rt->front.fd, (struct sockaddr *)&rt->front_addr, &len)) {
      rc = sys_fail(eb, "getsockname");
      goto close_socks;
    }
  } else {
    rt->front_addr = r->listen_addr;
    memcpy(&rt->client, client, np_addr_sa_len(client));
    rt->client_known = 1;
  }
  local_any(r->server.ss_family, loop, &at);
  if ((rc = sock_open(r, &rt->back, (const struct sockaddr *)&at,
                      NP_RELAY_SOCK_BACK, i, eb)) != 0)
    goto close_socks;
  socklen_t blen = sizeof rt->back_addr;
  if (getsockname(rt->back.fd, (struct sockaddr *)&rt->back_addr, &blen)) {
    rc = sys_fail(eb, "getsockname");
    goto close_socks;
  }
  uint16_t port = addr_port((const struct sockaddr *)&rt->back_addr);
  r->back_ports[port >> 3] |= (unsigned char)(1u << (port & 7));
  rt->occ.cap_bytes = r->route_bytes;
  rt->occ.cap_packets = r->route_packets;
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
    np_relay_dir_init(&rt->dir[d], &r->cfg.dir[d], r->cfg.seed, rt->serial,
                      d);
  rt->last_ns = np_relay_now_ns();
  rt->opened_s = r->start_ns ? (double)(rt->last_ns - r->start_ns) / 1e9
                             : 0.0;
  pthread_mutex_lock(&r->mu);
  rt->open = 1;
  r->nopen++;
  if (i + 1 > r->nslots)
    r->nslots = i + 1;
  r->io.routes_opened++;
  pthread_mutex_unlock(&r->mu);
  return 0;

close_socks:
  sock_close(&rt->front);
  sock_close(&rt->back);
free_pool:
  np_relay_pool_free(&rt->pool);
  return rc;
}

/* ---- the standalone relay's source table ---- */

static uint32_t addr_hash(const struct sockaddr *sa) {
  const unsigned char *p;
  size_t n;
  uint16_t port;
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *)sa;
    p = (const unsigned char *)&a->sin6_addr;
    n = sizeof a->sin6_addr;
    port = a->sin6_port;
  } else {
    const struct sockaddr_in *a = (const void *)sa;
    p = (const unsigned char *)&a->sin_addr;
    n = sizeof a->sin_addr;
    port = a->sin_port;
  }
  uint32_t h = 2166136261u ^ port; /* FNV-1a over address, then the port */
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  h = (h ^ (port >> 8)) * 16777619u;
  return h ^ (h >> 15);
}

struct np_relay_route *np_relay__route_of(struct np_relay *r,
                                          const struct sockaddr *src) {
  uint32_t k = addr_hash(src) & r->hash_mask;
  for (;; k = (k + 1) & r->hash_mask) {
    uint32_t v = r->hash[k];
    if (v == 0)
      break;
    struct np_relay_route *rt = &r->routes[v - 1];
    if (np_addr_sa_equal((const struct sockaddr *)&rt->client, src))
      return rt;
  }
  struct np_errbuf eb;
  unsigned slot = r->nfree ? r->free_slots[r->nfree - 1] : r->nslots;
  int rc = r->nopen >= r->max_routes
               ? NP_ERANGE
               : np_relay__route_open(r, slot, src, &eb);
  if (rc != 0) {
    pthread_mutex_lock(&r->mu);
    if (rc == NP_ERANGE)
      r->io.routes_refused++;
    else
      r->io.route_errors++;
    pthread_mutex_unlock(&r->mu);
    return NULL;
  }
  if (r->nfree && r->free_slots[r->nfree - 1] == slot)
    r->nfree--;
  r->hash[k] = slot + 1;
  return &r->routes[slot];
}

/* Remove the entry of route slot from the source table (linear probing:
 * later entries of the same run shift back over the hole). */
static void hash_remove(struct np_relay *r, unsigned slot) {
  const struct sockaddr *src = (const struct sockaddr *)&r->routes[slot].client;
  uint32_t m = r->hash_mask, k = addr_hash(src) & m;
  while (r->hash[k] != 0 && r->hash[k] != slot + 1)
    k = (k + 1) & m;
  if (r->hash[k] == 0)
    return; /* not there: cannot happen */
  r->hash[k] = 0;
  for (uint32_t j = (k + 1) & m; r->hash[j] != 0; j = (j + 1) & m) {
    uint32_t h = addr_hash((const struct sockaddr *)&r->routes[r->hash[j] - 1]
                               .client) & m;
    /* the entry at j may stay when its home h lies cyclically in (k, j] */
    int stays = k < j ? (h > k && h <= j) : (h > k || h <= j);
    if (!stays) {
      r->hash[k] = r->hash[j];
      r->hash[j] = 0;
      k = j;
    }
  }
}

/* Expire an idle route (nothing queued): fold its counters into the
 * expired totals, free its socket and pool, give its slot back. */
static void route_expire(struct np_relay *r, struct np_relay_route *rt) {
  uint64_t drops = np_relay__sock_drops(rt->back.fd);
  hash_remove(r, rt->index);
  pthread_mutex_lock(&r->mu);
  rt->open = 0;
  r->nopen--;
  for (unsigned d = 0; d < NP_RELAY_DIRS; d++)
    np_relay_counts_add(&r->expired[d], &rt->dir[d].counts);
  r->expired_peak_bytes += rt->peak_bytes;
  r->expired_peak_packets += rt->peak_packets;
  r->expired_drops += drops;
  r->io.routes_expired++;
  pthread_mutex_unlock(&r->mu);
  uint16_t port = addr_port((const struct sockaddr *)&rt->back_addr);
  r->back_ports[port >> 3] &= (unsigned char)~(1u << (port & 7));
  sock_close(&rt->back); /* also leaves the epoll set */
  np_relay_pool_free(&rt->pool);
  r->free_slots[r->nfree++] = rt->index;
}

void np_relay__sweep(struct np_relay *r, uint64_t now) {
  if (r->sweep_ns == 0 || now < r->next_sweep_ns)
    return;
  r->next_sweep_ns = now + r->sweep_ns;
  for (unsigned i = 0; r->idle_ns && i < r->nslots; i++) {
    struct np_relay_route *rt = &r->routes[i];
    if (rt->open && rt->occ.packets == 0 && now - rt->last_ns >= r->idle_ns)
      route_expire(r, rt);
  }
  np_relay__tcp_sweep(r, now);
}

/* Is src the socket bound at own?  A socket bound to the wildcard sends
 * from one of the host's addresses: counted as its own when src is on
 * loopback (the only addresses the relay can tell are the host's). */
static int from_socket(const struct sockaddr *src, const struct sockaddr *own) {
  if (addr_port(src) != addr_port(own))
    return 0;
  return is_wildcard(own) ? is_loopback(src) : np_addr_sa_equal(src, own);
}

int np_relay__is_own(const struct np_relay *r, const struct sockaddr *src) {
  if (np_addr_sa_equal(src, (const struct sockaddr *)&r->server) ||
      from_socket(src, (const struct sockaddr *)&r->listen_addr))
    return 1;
  uint16_t port = addr_port(src);
  if (!(r->back_ports[port >> 3] & (1u << (port & 7))))
    return 0;
  for (unsigned i = 0; i < r->nslots; i++) {
    const struct np_relay_route *rt = &r->routes[i];
    if (rt->open && from_socket(src, (const struct sockaddr *)&rt->back_addr))
      return 1;
  }
  return 0;
}

/* ---- create, listen, lifecycle ---- */

static int base_init(struct np_relay *r, const struct np_relay_config *cfg,
                     const struct sockaddr *server, unsigned max_routes,
                     int sockbuf, struct np_errbuf *eb) {
  r->cfg = *cfg;
  r->epfd = r->timer_fd = r->stop_fd = -1;
  r->listen.fd = r->tcp.listen_fd = -1;
  memcpy(&r->server, server, np_addr_sa_len(server));
  r->max_routes = max_routes;
  r->socket_buffer = sockbuf;
  r->route_bytes = cfg->capacity_bytes ? cfg->capacity_bytes
                                       : NP_RELAY_CAP_BYTES_MAX;
  r->route_packets = cfg->capacity_packets ? cfg->capacity_packets
                                           : NP_RELAY_CAP_PACKETS_MAX;
  np_relay_heap_init(&r->heap);
  pthread_mutex_init(&r->mu, NULL);
  r->routes = calloc(max_routes, sizeof *r->routes);
  r->rxmem = malloc((size_t)NP_RELAY_BATCH * NP_RELAY_MAX_DATAGRAM);
  if (r->routes == NULL || r->rxmem == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
  for (unsigned i = 0; i < max_routes; i++)
    r->routes[i].front.fd = r->routes[i].back.fd = -1;
  for (unsigned i = 0; i < NP_RELAY_BATCH; i++) {
    r->rxiov[i].iov_base = r->rxmem + (size_t)i * NP_RELAY_MAX_DATAGRAM;
    r->rxiov[i].iov_len = NP_RELAY_MAX_DATAGRAM;
  }
  if ((r->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
    return sys_fail(eb, "epoll_create1");
  r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (r->timer_fd < 0)
    return sys_fail(eb, "timerfd");
  r->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (r->stop_fd < 0)
    return sys_fail(eb, "eventfd");
  r->timer_ev.kind = NP_RELAY_EV_TIMER;
  r->stop_ev.kind = NP_RELAY_EV_STOP;
  int rc = np_relay__epoll_add(r, r->timer_fd, EPOLLIN, &r->timer_ev);
  if (rc == 0)
    rc = np_relay__epoll_add(r, r->stop_fd, EPOLLIN, &r->stop_ev);
  return rc ? np_errbuf_set(eb, rc, "relay: epoll: %s", np_strerror(rc)) : 0;
}

static void relay_free(struct np_relay *r) {
  np_relay__tcp_close(r);
  for (unsigned i = 0; r->routes && i < r->max_routes; i++) {
    sock_close(&r->routes[i].front);
    sock_close(&r->routes[i].back);
    np_relay_pool_free(&r->routes[i].pool);
  }
  sock_close(&r->listen);
  if (r->epfd >= 0)
    close(r->epfd);
  if (r->timer_fd >= 0)
    close(r->timer_fd);
  if (r->stop_fd >= 0)
    close(r->stop_fd);
  free(r->routes);
  free(r->free_slots);
  free(r->hash);
  free(r->rxmem);
  np_relay_heap_free(&r->heap);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

int np_relay_create(const struct np_relay_config *cfg,
                    const struct sockaddr *server, unsigned nroutes,
                    struct np_relay **out, struct np_errbuf *eb) {
  int rc = np_relay_config_validate(cfg, eb);
  if (rc != 0)
    return rc;
  if (server == NULL ||
      (server->sa_family != AF_INET && server->sa_family != AF_INET6))
    return np_errbuf_set(eb, NP_EINVAL,
                         "relay: server address must be IPv4 or IPv6");
  if (nroutes == 0 || nroutes > NP_RELAY_MAX_ROUTES)
    return np_errbuf_set(eb, NP_ERANGE, "relay: routes must be 1..%u",
                         NP_RELAY_MAX_ROUTES);
  struct np_relay *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
  if ((rc = base_init(r, cfg, server, nroutes, NP_RELAY_SOCKBUF, eb)) != 0)
    goto free_relay;
  for (unsigned i = 0; i < nroutes; i++)
    if ((rc = np_relay__route_open(r, i, NULL, eb)) != 0)
      goto free_relay;
  *out = r;
  return 0;
free_relay:
  relay_free(r);
  return rc;
}

int np_relay_listen(const struct np_relay_config *cfg,
                    const struct np_relay_listen_config *lc,
                    struct np_relay **out, struct np_errbuf *eb) {
  int rc = np_relay_config_validate(cfg, eb);
  if (rc != 0)
    return rc;
  int fam = lc->forward.ss_family;
  if ((fam != AF_INET && fam != AF_INET6) || lc->listen.ss_family != fam)
    return np_errbuf_set(eb, NP_EINVAL,
                         "relay: listen and forward must be IPv4 or IPv6, "
                         "of the same family");
  if (lc->max_routes == 0 || lc->max_routes > NP_RELAY_MAX_ROUTES)
    return np_errbuf_set(eb, NP_ERANGE, "relay: routes must be 1..%u",
                         NP_RELAY_MAX_ROUTES);
  struct np_relay *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
  r->standalone = 1;
  if ((rc = base_init(r, cfg, (const struct sockaddr *)&lc->forward,
                      lc->max_routes, lc->socket_buffer, eb)) != 0)
    goto free_relay;
  uint32_t slots = 4;
  while (slots < 2u * lc->max_routes)
    slots <<= 1;
  r->hash = calloc(slots, sizeof *r->hash);
  if (r->hash == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
    goto free_relay;
  }
  r->hash_mask = slots - 1;
  r->free_slots = calloc(lc->max_routes, sizeof *r->free_slots);
  if (r->free_slots == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
    goto free_relay;
  }
  r->idle_ns = (uint64_t)(lc->route_idle_seconds * 1e9);
  r->tcp.idle_ns = lc->tcp_passthrough
                       ? (uint64_t)(lc->tcp_idle_seconds * 1e9) : 0;
  r->max_memory = lc->max_memory_bytes;
  /* look for idle routes and connections 4 times per bound (10 ms .. 1 s) */
  uint64_t bound = r->idle_ns;
  if (r->tcp.idle_ns && (bound == 0 || r->tcp.idle_ns < bound))
    bound = r->tcp.idle_ns;
  r->sweep_ns = bound == 0 ? 0 : bound / 4 < 10000000u ? 10000000u
                               : bound / 4 > 1000000000u ? 1000000000u
                                                         : bound / 4;
  if ((rc = sock_open(r, &r->listen, (const struct sockaddr *)&lc->listen,
                      NP_RELAY_SOCK_LISTEN, UINT32_MAX, eb)) != 0)
    goto free_relay;
  socklen_t len = sizeof r->listen_addr;
  if (getsockname(r->listen.fd, (struct sockaddr *)&r->listen_addr, &len)) {
    rc = sys_fail(eb, "getsockname");
    goto free_relay;
  }
  if (lc->tcp_passthrough && (rc = np_relay__tcp_open(r, lc, eb)) != 0)
    goto free_relay;
  *out = r;
  return 0;
free_relay:
  relay_free(r);
  return rc;
}

int np_relay_route_addr(const struct np_relay *r, unsigned route,
                        struct sockaddr_storage *out) {
  if (r == NULL || route >= r->max_routes)
    return NP_EINVAL;
  *out = r->standalone ? r->listen_addr : r->routes[route].front_addr;
  return 0;
}

int np_relay_listen_addr(const struct np_relay *r,
                         struct sockaddr_storage *out) {
  if (r == NULL || !r->standalone)
    return NP_EINVAL;
  *out = r->listen_addr;
  return 0;
}

int np_relay_route_client(const struct np_relay *r, unsigned route,
                          struct sockaddr_storage *out) {
  pthread_mutex_t *mu = (pthread_mutex_t *)&r->mu;
  int rc = NP_ENOENT;
  pthread_mutex_lock(mu);
  if (route < r->nslots && r->routes[route].open &&
      r->routes[route].client_known) {
    *out = r->routes[route].client;
    rc = 0;
  }
  pthread_mutex_unlock(mu);
  return rc;
}

unsigned np_relay_route_count(const struct np_relay *r) {
  pthread_mutex_t *mu = (pthread_mutex_t *)&r->mu;
  pthread_mutex_lock(mu);
  unsigned n = r->nopen;
  pthread_mutex_unlock(mu);
  return n;
}

int np_relay_start(struct np_relay *r, struct np_errbuf *eb) {
  if (r->started)
    return np_errbuf_set(eb, NP_EINVAL, "relay: already started");
  r->start_ns = np_relay_now_ns();
  int rc = pthread_create(&r->thread, NULL, np_relay__thread_main, r);
  if (rc != 0)
    return np_errbuf_set(eb, np_err_from_errno(rc), "relay: thread: %s",
                         strerror(rc));
  r->started = 1;
  return 0;
}

void np_relay_stop(struct np_relay *r) {
  if (r == NULL)
    return;
  pthread_mutex_lock(&r->mu);
  if (r->started && !r->stop_sent) {
    uint64_t one = 1;
    r->stop_sent = 1;
    if (write(r->stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
      r->loop_rc = NP_ELOOP; /* cannot happen with an eventfd */
  }
  pthread_mutex_unlock(&r->mu);
}

int np_relay_join(struct np_relay *r) {
  if (!r->started || r->joined)
    return 0;
  pthread_join(r->thread, NULL);
  r->joined = 1;
  return r->loop_rc == 0 ? 0 : NP_ELOOP;
}

void np_relay_destroy(struct np_relay *r) {
  if (r == NULL)
    return;
  if (r->started) {
    np_relay_stop(r);
    np_relay_join(r);
  }
  relay_free(r);
}
