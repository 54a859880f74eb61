/*
 * np_relay_tcp.c - TCP passthrough on the relay's loop (see
 * np_relay_tcp.h): accept on the listen address, connect to the forward
 * address without blocking, then copy bytes both ways through two rings
 * per connection, with half-close (a FIN from one side becomes
 * shutdown(SHUT_WR) towards the other once its ring is empty; a
 * connection still not done tcp_idle_seconds after the first FIN is
 * closed, so a peer that never closes or never reads cannot hold a slot
 * for ever).  epoll is
 * level-triggered; each side's interest follows its rings: read while
 * there is room and no FIN, write while the other ring holds data.
 */
#include "np_relay_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

int np_relay__tcp_open(struct np_relay *r,
                       const struct np_relay_listen_config *lc,
                       struct np_errbuf *eb) {
  struct np_relay_tcp *t = &r->tcp;
  int one = 1;
  t->ev.kind = NP_RELAY_EV_TCP_LISTEN;
  t->max_conns = lc->tcp_max_connections;
  t->max_bytes = lc->tcp_max_bytes;
  if (t->max_conns == 0)
    return np_errbuf_set(eb, NP_EINVAL, "relay: tcp: no connection slots");
  t->conns = calloc(t->max_conns, sizeof *t->conns);
  t->bufmem = malloc((size_t)t->max_conns * 2 * NP_RELAY_TCP_BUF);
  if (t->conns == NULL || t->bufmem == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "relay: tcp: out of memory");
  for (uint32_t i = 0; i < t->max_conns; i++)
    for (unsigned d = 0; d < 2; d++) {
      t->conns[i].buf[d] = t->bufmem + ((size_t)i * 2 + d) * NP_RELAY_TCP_BUF;
      t->conns[i].side[d].fd = -1;
    }
  const struct sockaddr *at = (const struct sockaddr *)&r->listen_addr;
  t->listen_fd = socket(at->sa_family,
                        SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (t->listen_fd < 0)
    return np_errbuf_set(eb, np_err_from_errno(errno), "relay: tcp socket: %s",
                         strerror(errno));
  setsockopt(t->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(t->listen_fd, at, np_addr_sa_len(at)) != 0 ||
      listen(t->listen_fd, 64) != 0) {
    char txt[NP_ADDR_TEXT];
    int e = errno;
    np_addr_sa_format(at, txt, sizeof txt);
    return np_errbuf_set(eb, np_err_from_errno(e), "relay: bind tcp %s: %s",
                         txt, strerror(e));
  }
  int rc = np_relay__epoll_add(r, t->listen_fd, EPOLLIN, &t->ev);
  return rc ? np_errbuf_set(eb, rc, "relay: epoll: %s", np_strerror(rc)) : 0;
}

static void side_close(struct np_relay_tcp_side *s) {
  if (s->fd >= 0)
    close(s->fd); /* also leaves the epoll set */
  s->fd = -1;
  s->events = 0;
}

enum end_why { END_ORDERLY, END_BYTE_LIMIT, END_RESET, END_CONNECT, END_IDLE };

/* End an accepted connection and count why. */
static void conn_end(struct np_relay *r, struct np_relay_tcp_conn *c,
                     enum end_why why) {
  side_close(&c->side[0]);
  side_close(&c->side[1]);
  c->used = 0;
  pthread_mutex_lock(&r->mu);
  r->tcp.st.active--;
  if (why == END_CONNECT) {
    r->tcp.st.connect_failed++;
  } else {
    r->tcp.st.closed++;
    r->tcp.st.byte_limit_closes += why == END_BYTE_LIMIT;
    r->tcp.st.resets += why == END_RESET;
    r->tcp.st.idle_closes += why == END_IDLE;
  }
  pthread_mutex_unlock(&r->mu);
}

static void side_interest(struct np_relay *r, struct np_relay_tcp_conn *c,
                          unsigned w) {
  struct np_relay_tcp_side *s = &c->side[w];
  uint32_t ev = 0;
  if (s->fd < 0)
    return;
  if (w == 1 && c->connecting) {
    ev = EPOLLOUT;
  } else {
    if (!c->eof[w] && c->len[w] < NP_RELAY_TCP_BUF)
      ev |= EPOLLIN;
    if (c->len[1 - w] > 0)
      ev |= EPOLLOUT;
  }
  if (ev == s->events)
    return;
  struct epoll_event e = {.events = ev, .data.ptr = &s->ev};
  if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, s->fd, &e) == 0)
    s->events = ev;
}

/* Read side d into ring d.  0, or 2 on an error (reset). */
static int pump_in(struct np_relay_tcp_conn *c, unsigned d) {
  while (!c->eof[d] && c->len[d] < NP_RELAY_TCP_BUF) {
    uint32_t tail = (c->head[d] + c->len[d]) % NP_RELAY_TCP_BUF;
    uint32_t room = NP_RELAY_TCP_BUF - c->len[d];
    if (room > NP_RELAY_TCP_BUF - tail)
      room = NP_RELAY_TCP_BUF - tail;
    ssize_t n = recv(c->side[d].fd, c->buf[d] + tail, room, 0);
    if (n > 0)
      c->len[d] += (uint32_t)n;
    else if (n == 0)
      c->eof[d] = 1;
    else if (errno == EAGAIN || errno == EWOULDBLOCK)
      return 0;
    else if (errno != EINTR)
      return 2;
  }
  return 0;
}

/* Write ring d to the other side.  0, or 2 on an error. */
static int pump_out(struct np_relay *r, struct np_relay_tcp_conn *c,
                    unsigned d) {
  int to = (int)(1 - d);
  while (c->len[d] > 0) {
    uint32_t chunk = c->len[d];
    if (chunk > NP_RELAY_TCP_BUF - c->head[d])
      chunk = NP_RELAY_TCP_BUF - c->head[d];
    ssize_t n = send(c->side[to].fd, c->buf[d] + c->head[d], chunk,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->head[d] = (c->head[d] + (uint32_t)n) % NP_RELAY_TCP_BUF;
      c->len[d] -= (uint32_t)n;
      c->bytes += (uint64_t)n;
      pthread_mutex_lock(&r->mu);
      if (d == 0)
        r->tcp.st.bytes_c2s += (uint64_t)n;
      else
        r->tcp.st.bytes_s2c += (uint64_t)n;
      pthread_mutex_unlock(&r->mu);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return 0;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return 2;
    }
  }
  return 0;
}

static void conn_pump(struct np_relay *r, struct np_relay_tcp_conn *c) {
  int bad = 0;
  if (c->connecting) { /* buffer what the client sends meanwhile */
    if (pump_in(c, 0) != 0) {
      conn_end(r, c, END_RESET);
      return;
    }
    side_interest(r, c, 0);
    return;
  }
  for (unsigned d = 0; d < 2 && !bad; d++) {
    bad = pump_in(c, d);
    if (!bad)
      bad = pump_out(r, c, d);
    if (!bad && c->eof[d] && c->len[d] == 0 && !c->shut[1 - d]) {
      shutdown(c->side[1 - d].fd, SHUT_WR);
      c->shut[1 - d] = 1;
    }
  }
  if (bad) {
    conn_end(r, c, END_RESET);
  } else if (r->tcp.max_bytes && c->bytes >= r->tcp.max_bytes) {
    conn_end(r, c, END_BYTE_LIMIT);
  } else if (c->shut[0] && c->shut[1]) {
    conn_end(r, c, END_ORDERLY);
  } else {
    if (c->half_ns == 0 && (c->eof[0] || c->eof[1]))
      c->half_ns = np_relay_now_ns(); /* the idle bound starts */
    side_interest(r, c, 0);
    side_interest(r, c, 1);
  }
}

void np_relay__tcp_sweep(struct np_relay *r, uint64_t now) {
  struct np_relay_tcp *t = &r->tcp;
  for (uint32_t i = 0; t->idle_ns && t->conns && i < t->max_conns; i++) {
    struct np_relay_tcp_conn *c = &t->conns[i];
    if (c->used && c->half_ns && now - c->half_ns >= t->idle_ns)
      conn_end(r, c, END_IDLE);
  }
}

void np_relay__tcp_event(struct np_relay *r, struct np_relay_tcp_side *s,
                         uint32_t events) {
  struct np_relay_tcp_conn *c = s->conn;
  if (!c->used || s->fd < 0)
    return; /* ended earlier in this batch of events */
  if (s->which == 1 && c->connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
      return;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err) {
      conn_end(r, c, END_CONNECT);
      return;
    }
    c->connecting = 0;
  }
  conn_pump(r, c);
}

void np_relay__tcp_accept(struct np_relay *r) {
  struct np_relay_tcp *t = &r->tcp;
  for (int k = 0; k < 16; k++) {
    int fd = accept4(t->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    struct np_relay_tcp_conn *c = NULL;
    for (uint32_t i = 0; i < t->max_conns && c == NULL; i++)
      if (!t->conns[i].used)
        c = &t->conns[i];
    if (c == NULL) {
      close(fd);
      pthread_mutex_lock(&r->mu);
      t->st.refused++;
      pthread_mutex_unlock(&r->mu);
      continue;
    }
    const struct sockaddr *to = (const struct sockaddr *)&r->server;
    int up = socket(to->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    0);
    int one = 1;
    if (up >= 0) {
      setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (up < 0 || (connect(up, to, np_addr_sa_len(to)) != 0 &&
                   errno != EINPROGRESS)) {
      if (up >= 0)
        close(up);
      close(fd);
      pthread_mutex_lock(&r->mu);
      t->st.accepted++;
      t->st.connect_failed++;
      pthread_mutex_unlock(&r->mu);
      continue;
    }
    memset(c->head, 0, sizeof c->head);
    memset(c->len, 0, sizeof c->len);
    memset(c->eof, 0, sizeof c->eof);
    memset(c->shut, 0, sizeof c->shut);
    c->bytes = 0;
    c->half_ns = 0;
    c->used = 1;
    c->connecting = 1;
    int fds[2] = {fd, up};
    for (unsigned w = 0; w < 2; w++) {
      c->side[w].ev.kind = NP_RELAY_EV_TCP_SIDE;
      c->side[w].conn = c;
      c->side[w].which = w;
      c->side[w].fd = fds[w];
      c->side[w].events = w == 0 ? (uint32_t)EPOLLIN : (uint32_t)EPOLLOUT;
      np_relay__epoll_add(r, fds[w], c->side[w].events, &c->side[w].ev);
    }
    pthread_mutex_lock(&r->mu);
    t->st.accepted++;
    if (++t->st.active > t->st.peak_active)
      t->st.peak_active = t->st.active;
    pthread_mutex_unlock(&r->mu);
  }
}

void np_relay__tcp_close(struct np_relay *r) {
  struct np_relay_tcp *t = &r->tcp;
  for (uint32_t i = 0; t->conns && i < t->max_conns; i++)
    if (t->conns[i].used) {
      side_close(&t->conns[i].side[0]);
      side_close(&t->conns[i].side[1]);
      t->conns[i].used = 0;
    }
  if (t->listen_fd >= 0)
    close(t->listen_fd);
  t->listen_fd = -1;
  free(t->conns);
  free(t->bufmem);
  t->conns = NULL;
  t->bufmem = NULL;
}
