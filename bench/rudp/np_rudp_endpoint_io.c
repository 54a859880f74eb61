/*
 * np_rudp_endpoint_io.c - recvmmsg / sendmmsg batches for the rudp
 * endpoints, every system call counted (see np_rudp_endpoint_io.h).
 */
/* recvmmsg, sendmmsg: _GNU_SOURCE comes from the build (CMakeLists.txt) */
#include "np_rudp_endpoint_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "np_err.h"

void np_rudp_io_add_delta(struct np_rudp_io_stats *acc,
                          const struct np_rudp_io_stats *a,
                          const struct np_rudp_io_stats *b) {
  acc->recv_calls += a->recv_calls - b->recv_calls;
  acc->recv_datagrams += a->recv_datagrams - b->recv_datagrams;
  acc->recv_empty += a->recv_empty - b->recv_empty;
  acc->send_calls += a->send_calls - b->send_calls;
  acc->send_datagrams += a->send_datagrams - b->send_datagrams;
  acc->send_failed += a->send_failed - b->send_failed;
  acc->truncated += a->truncated - b->truncated;
}

int np_rudp_txq_init(struct np_rudp_txq *q, int fd, unsigned cap,
                     uint32_t mtu, int addressed) {
  memset(q, 0, sizeof *q);
  q->fd = fd;
  q->cap = cap;
  q->mtu = mtu;
  q->buf = malloc((size_t)cap * mtu);
  q->len = calloc(cap, sizeof *q->len);
  q->hdr = calloc(cap, sizeof *q->hdr);
  q->iov = calloc(cap, sizeof *q->iov);
  if (addressed) {
    q->to = calloc(cap, sizeof *q->to);
    q->tolen = calloc(cap, sizeof *q->tolen);
  }
  if (!q->buf || !q->len || !q->hdr || !q->iov ||
      (addressed && (!q->to || !q->tolen))) {
    np_rudp_txq_free(q);
    return NP_ENOMEM;
  }
  return 0;
}

void np_rudp_txq_free(struct np_rudp_txq *q) {
  free(q->buf);
  free(q->len);
  free(q->hdr);
  free(q->iov);
  free(q->to);
  free(q->tolen);
  memset(q, 0, sizeof *q);
}

void np_rudp_txq_flush(struct np_rudp_txq *q, struct np_rudp_io_stats *st) {
  if (q->n == 0)
    return;
  for (unsigned i = 0; i < q->n; i++) {
    q->iov[i].iov_base = q->buf + (size_t)i * q->mtu;
    q->iov[i].iov_len = q->len[i];
    memset(&q->hdr[i], 0, sizeof q->hdr[i]);
    q->hdr[i].msg_hdr.msg_iov = &q->iov[i];
    q->hdr[i].msg_hdr.msg_iovlen = 1;
    if (q->to) {
      q->hdr[i].msg_hdr.msg_name = &q->to[i];
      q->hdr[i].msg_hdr.msg_namelen = q->tolen[i];
    }
  }
  unsigned done = 0;
  while (done < q->n) {
    int r = sendmmsg(q->fd, q->hdr + done, q->n - done, MSG_DONTWAIT);
    st->send_calls++;
    if (r > 0) {
      done += (unsigned)r;
      st->send_datagrams += (uint64_t)r;
      continue;
    }
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                  errno == ENOBUFS)) { /* the buffer is full: all lost */
      st->send_failed += q->n - done;
      break;
    }
    /* refused otherwise (ECONNREFUSED from an earlier ICMP error on a
     * connected socket): the first datagram is lost, the rest is tried */
    st->send_failed++;
    done++;
  }
  q->n = 0;
}

int np_rudp_txq_put(struct np_rudp_txq *q, const uint8_t *buf, size_t len,
                    const struct sockaddr *to, socklen_t tolen,
                    struct np_rudp_io_stats *st) {
  if (len > q->mtu)
    return NP_EMSGSIZE;
  memcpy(q->buf + (size_t)q->n * q->mtu, buf, len);
  q->len[q->n] = (uint32_t)len;
  if (q->to) {
    memcpy(&q->to[q->n], to, tolen);
    q->tolen[q->n] = tolen;
  }
  if (++q->n == q->cap)
    np_rudp_txq_flush(q, st);
  return 0;
}

int np_rudp_rxb_init(struct np_rudp_rxb *b, unsigned cap, uint32_t mtu) {
  memset(b, 0, sizeof *b);
  b->cap = cap;
  b->mtu = mtu;
  b->buf = malloc((size_t)cap * mtu);
  b->from = calloc(cap, sizeof *b->from);
  b->hdr = calloc(cap, sizeof *b->hdr);
  b->iov = calloc(cap, sizeof *b->iov);
  if (!b->buf || !b->from || !b->hdr || !b->iov) {
    np_rudp_rxb_free(b);
    return NP_ENOMEM;
  }
  return 0;
}

void np_rudp_rxb_free(struct np_rudp_rxb *b) {
  free(b->buf);
  free(b->from);
  free(b->hdr);
  free(b->iov);
  memset(b, 0, sizeof *b);
}

unsigned np_rudp_rxb_recv(struct np_rudp_rxb *b, int fd,
                          struct np_rudp_io_stats *st) {
  for (unsigned i = 0; i < b->cap; i++) {
    b->iov[i].iov_base = b->buf + (size_t)i * b->mtu;
    b->iov[i].iov_len = b->mtu;
    memset(&b->hdr[i], 0, sizeof b->hdr[i]);
    b->hdr[i].msg_hdr.msg_iov = &b->iov[i];
    b->hdr[i].msg_hdr.msg_iovlen = 1;
    b->hdr[i].msg_hdr.msg_name = &b->from[i];
    b->hdr[i].msg_hdr.msg_namelen = sizeof b->from[i];
  }
  int r;
  do {
    r = recvmmsg(fd, b->hdr, b->cap, MSG_DONTWAIT, NULL);
    st->recv_calls++;
  } while (r < 0 && errno == EINTR);
  if (r <= 0) { /* EAGAIN: nothing waiting; other errors: as nothing */
    st->recv_empty++;
    return 0;
  }
  st->recv_datagrams += (uint64_t)r;
  for (int i = 0; i < r; i++)
    if (b->hdr[i].msg_hdr.msg_flags & MSG_TRUNC) {
      st->truncated++;
      b->hdr[i].msg_len = 0;
    }
  return (unsigned)r;
}

const uint8_t *np_rudp_rxb_data(const struct np_rudp_rxb *b, unsigned i) {
  return b->buf + (size_t)i * b->mtu;
}

size_t np_rudp_rxb_len(const struct np_rudp_rxb *b, unsigned i) {
  return b->hdr[i].msg_len;
}

const struct sockaddr *np_rudp_rxb_from(const struct np_rudp_rxb *b,
                                        unsigned i, socklen_t *len) {
  *len = b->hdr[i].msg_hdr.msg_namelen;
  return (const struct sockaddr *)&b->from[i];
}
