/*
 * np_udp_uv.c - the libuv transport: uv_udp_t opened over a socket that
 * np_udp_sock_create configured, UV_UDP_RECVMMSG, uv_udp_try_send.
 *
 * Receive: with UV_UDP_RECVMMSG libuv reads up to 20 datagrams per
 * recvmmsg into 64 KiB chunks of the buffer alloc_cb hands out, calls
 * recv_cb once per datagram with UV_UDP_MMSG_CHUNK, then once more with
 * UV_UDP_MMSG_FREE.  We collect the chunks and hand the whole batch to the
 * echo logic on the FREE call, so every backend sees batches.  The buffer is
 * preallocated per socket; nothing is allocated per datagram.
 * Drops: libuv does not expose control messages, so SO_RXQ_OVFL cmsgs are
 * unavailable; drop counts come from SO_MEMINFO (np_udp_sock_drops), which
 * reads the same kernel counter.
 */
#include "np_udp_transport.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#define UV_CHUNK (64u * 1024u) /* libuv's UV__UDP_DGRAM_MAXSIZE */
#define UV_MAX_CHUNKS 20u      /* libuv's recvmmsg width        */

struct np_udp_loop {
  uv_loop_t loop;
  uv_async_t wake;
  np_udp_wake_fn on_wake;
  void *ctx;
};

struct np_udp_sock {
  uv_udp_t h;
  int fd;
  uint8_t *buf;          /* chunks * UV_CHUNK                           */
  size_t buflen;
  struct np_udp_rx *rx;  /* chunks entries                              */
  unsigned nrx;          /* datagrams collected for the current batch   */
  unsigned chunks;
  int connected;         /* libuv refuses an address on a connected one */
  np_udp_recv_fn on_recv;
  void *ctx;
};

static void uv_on_wake(uv_async_t *a) {
  struct np_udp_loop *l = a->data;
  l->on_wake(l->ctx);
}

static int uvt_loop_new(np_udp_wake_fn on_wake, void *ctx,
                        struct np_udp_loop **out, struct np_errbuf *eb) {
  struct np_udp_loop *l = calloc(1, sizeof *l);
  if (!l)
    return np_errbuf_set(eb, NP_ENOMEM, "uv loop: out of memory");
  l->on_wake = on_wake;
  l->ctx = ctx;
  int r = uv_loop_init(&l->loop);
  if (r) {
    free(l);
    return np_errbuf_set(eb, NP_ELOOP, "uv_loop_init: %s", uv_strerror(r));
  }
  r = uv_async_init(&l->loop, &l->wake, uv_on_wake);
  if (r) {
    uv_loop_close(&l->loop);
    free(l);
    return np_errbuf_set(eb, NP_ELOOP, "uv_async_init: %s", uv_strerror(r));
  }
  l->wake.data = l;
  *out = l;
  return 0;
}

static int uvt_loop_run(struct np_udp_loop *l) {
  int r = uv_run(&l->loop, UV_RUN_DEFAULT);
  (void)r; /* returns non-zero after uv_stop while handles are active */
  return 0;
}

static void uvt_loop_stop(struct np_udp_loop *l) { uv_stop(&l->loop); }

static int uvt_loop_wake(struct np_udp_loop *l) {
  return uv_async_send(&l->wake) ? NP_ELOOP : 0;
}

static void uvt_loop_free(struct np_udp_loop *l) {
  if (!l)
    return;
  uv_close((uv_handle_t *)&l->wake, NULL);
  uv_run(&l->loop, UV_RUN_DEFAULT); /* finish pending closes */
  uv_loop_close(&l->loop);
  free(l);
}

static void uv_on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  struct np_udp_sock *s = h->data;
  (void)suggested;
  buf->base = (char *)s->buf;
  buf->len = s->buflen;
}

static void uv_on_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
                       const struct sockaddr *addr, unsigned flags) {
  struct np_udp_sock *s = h->data;
  if (nread > 0 && addr) {
    if (s->nrx < s->chunks) {
      struct np_udp_rx *r = &s->rx[s->nrx++];
      r->data = (uint8_t *)buf->base;
      r->len = (size_t)nread;
      r->from = addr;
      r->fromlen = addr->sa_family == AF_INET6
                       ? sizeof(struct sockaddr_in6)
                       : sizeof(struct sockaddr_in);
      r->truncated = (flags & UV_UDP_PARTIAL) != 0;
    }
    if (flags & UV_UDP_MMSG_CHUNK)
      return; /* more of this batch follows; FREE ends it */
  }
  if (s->nrx > 0 && (nread > 0 || (flags & UV_UDP_MMSG_FREE))) {
    unsigned n = s->nrx;
    s->nrx = 0;
    s->on_recv(s->ctx, s->rx, n);
  }
}

static void uv_on_close(uv_handle_t *h) {
  struct np_udp_sock *s = h->data;
  free(s->buf);
  free(s->rx);
  free(s);
}

static int uvt_sock_open(struct np_udp_loop *l, const struct np_udp_sock_opts *o,
                         struct np_udp_sock **out, struct np_errbuf *eb) {
  struct np_udp_sock *s = calloc(1, sizeof *s);
  if (!s)
    return np_errbuf_set(eb, NP_ENOMEM, "uv socket: out of memory");
  s->chunks = o->rx_batch < 1 ? 1 : o->rx_batch;
  if (s->chunks > UV_MAX_CHUNKS)
    s->chunks = UV_MAX_CHUNKS;
  s->buflen = (size_t)s->chunks * UV_CHUNK;
  s->buf = malloc(s->buflen);
  s->rx = calloc(s->chunks, sizeof *s->rx);
  s->on_recv = o->on_recv;
  s->ctx = o->ctx;
  s->connected = o->peer_len > 0;
  if (!s->buf || !s->rx) {
    free(s->buf);
    free(s->rx);
    free(s);
    return np_errbuf_set(eb, NP_ENOMEM, "uv socket: out of memory");
  }
  struct np_udp_sock_opts so = *o;
  so.rxq_ovfl = 0; /* libuv does not hand us control messages */
  int rc = np_udp_sock_create(&so, &s->fd, eb);
  if (rc) {
    free(s->buf);
    free(s->rx);
    free(s);
    return rc;
  }
  int r = uv_udp_init_ex(&l->loop, &s->h, AF_UNSPEC | UV_UDP_RECVMMSG);
  if (r) {
    close(s->fd);
    free(s->buf);
    free(s->rx);
    free(s);
    return np_errbuf_set(eb, NP_ELOOP, "uv_udp_init_ex: %s", uv_strerror(r));
  }
  s->h.data = s;
  r = uv_udp_open(&s->h, s->fd);
  if (r != 0)
    close(s->fd); /* a failed uv_udp_open does not take the fd */
  else
    r = uv_udp_recv_start(&s->h, uv_on_alloc, uv_on_recv);
  if (r) {
    uv_close((uv_handle_t *)&s->h, uv_on_close); /* closes fd once opened */
    return np_errbuf_set(eb, NP_ELOOP, "uv_udp_open/recv_start: %s",
                         uv_strerror(r));
  }
  *out = s;
  return 0;
}

static int uvt_send_batch(struct np_udp_sock *s, const struct np_udp_tx *tx,
                          unsigned n, unsigned *nsent, int *errnum) {
  for (unsigned i = 0; i < n; i++) {
    uv_buf_t b = uv_buf_init((char *)tx[i].data, (unsigned)tx[i].len);
    int r = uv_udp_try_send(&s->h, &b, 1, s->connected ? NULL : tx[i].to);
    if (r < 0) {
      *nsent = i;
      *errnum = -r; /* libuv errors are negated errno values on Unix */
      return np_err_from_errno(-r);
    }
  }
  *nsent = n;
  return 0;
}

static int uvt_sock_fd(const struct np_udp_sock *s) { return s->fd; }

static int64_t uvt_sock_rxq_ovfl(const struct np_udp_sock *s) {
  (void)s;
  return -1;
}

static void uvt_sock_close(struct np_udp_sock *s) {
  if (s)
    uv_close((uv_handle_t *)&s->h, uv_on_close);
}

static int64_t uvt_loop_syscalls(const struct np_udp_loop *l) {
  (void)l;
  return -1; /* libuv makes its own system calls */
}

static void uvt_loop_info(const struct np_udp_loop *l,
                          struct np_udp_loop_info *out) {
  (void)l;
  memset(out, 0, sizeof *out);
}

const struct np_udp_transport np_udp_transport_uv = {
    .name = "uv",
    .loop_new = uvt_loop_new,
    .loop_run = uvt_loop_run,
    .loop_stop = uvt_loop_stop,
    .loop_wake = uvt_loop_wake,
    .loop_free = uvt_loop_free,
    .sock_open = uvt_sock_open,
    .send_batch = uvt_send_batch,
    .sock_fd = uvt_sock_fd,
    .sock_rxq_ovfl = uvt_sock_rxq_ovfl,
    .sock_close = uvt_sock_close,
    .loop_syscalls = uvt_loop_syscalls,
    .loop_info = uvt_loop_info,
};
