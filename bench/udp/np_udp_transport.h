/*
 * np_udp_transport.h - the socket layer behind the echo loop, as a small
 * table of function pointers (iperf3's struct protocol is the model).
 *
 * A transport owns event loops and UDP sockets.  The echo logic hands each
 * socket a receive callback that gets datagrams in batches, and sends
 * batches back through send_batch; it never sees libuv or epoll.  Two
 * implementations: np_udp_transport_uv (libuv, UV_UDP_RECVMMSG,
 * uv_udp_try_send) and np_udp_transport_raw (epoll, recvmmsg, sendmmsg,
 * SO_RXQ_OVFL cmsg).
 *
 * Threading: sockets are opened and started from the thread that created
 * the loop before loop_run starts in its own thread; from then on only
 * that thread touches them, except loop_wake (any thread) and np_udp_sock
 * getsockopt helpers on the fd (read-only kernel queries).  loop_stop is
 * called from inside the loop thread (typically in the wake callback).
 * Close every socket, then free the loop, after loop_run has returned.
 */
#ifndef NP_UDP_TRANSPORT_H
#define NP_UDP_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_err.h"

struct np_udp_loop;
struct np_udp_sock;

/* One received datagram; data and from are valid only during the callback. */
struct np_udp_rx {
  uint8_t *data;
  size_t len;
  const struct sockaddr *from;
  socklen_t fromlen;
  int truncated; /* the datagram was larger than the buffer (MSG_TRUNC) */
};

/* One datagram to send; to == NULL on a connected socket. */
struct np_udp_tx {
  const void *data;
  size_t len;
  const struct sockaddr *to;
  socklen_t tolen;
};

typedef void (*np_udp_recv_fn)(void *ctx, const struct np_udp_rx *rx,
                               unsigned n);
typedef void (*np_udp_wake_fn)(void *ctx);

struct np_udp_sock_opts {
  struct sockaddr_storage bind_addr; /* port 0 = any                       */
  socklen_t bind_len;
  struct sockaddr_storage peer;      /* connect() target when peer_len > 0 */
  socklen_t peer_len;
  int reuseport;                     /* set SO_REUSEPORT before bind       */
  int rcvbuf, sndbuf;                /* requested SO_RCVBUF / SO_SNDBUF    */
  unsigned rx_batch;                 /* datagrams per receive call         */
  size_t max_payload;                /* largest datagram expected          */
  np_udp_recv_fn on_recv;
  void *ctx;
};

struct np_udp_transport {
  const char *name;
  int (*loop_new)(np_udp_wake_fn on_wake, void *ctx, struct np_udp_loop **out,
                  struct np_errbuf *eb);
  int (*loop_run)(struct np_udp_loop *l);  /* returns after loop_stop      */
  void (*loop_stop)(struct np_udp_loop *l);
  int (*loop_wake)(struct np_udp_loop *l); /* thread-safe                   */
  void (*loop_free)(struct np_udp_loop *l); /* accepts NULL                 */
  int (*sock_open)(struct np_udp_loop *l, const struct np_udp_sock_opts *o,
                   struct np_udp_sock **out, struct np_errbuf *eb);
  /* Send tx[0..n) in order; stops at the first failure.  *nsent gets the
   * count sent; on failure returns a negative NP_E* code and *errnum the
   * errno of the datagram tx[*nsent], which was not sent. */
  int (*send_batch)(struct np_udp_sock *s, const struct np_udp_tx *tx,
                    unsigned n, unsigned *nsent, int *errnum);
  int (*sock_fd)(const struct np_udp_sock *s);
  /* Latest SO_RXQ_OVFL value seen in a cmsg; -1 when the backend cannot
   * see control messages (libuv). */
  int64_t (*sock_rxq_ovfl)(const struct np_udp_sock *s);
  void (*sock_close)(struct np_udp_sock *s); /* accepts NULL */
};

extern const struct np_udp_transport np_udp_transport_uv;
extern const struct np_udp_transport np_udp_transport_raw;

/* --- fd-level helpers shared by both backends (np_udp_sock.c) --- */

/* socket(), SO_RCVBUF/SO_SNDBUF, SO_REUSEPORT, bind, connect, optional
 * SO_RXQ_OVFL; non-blocking.  *fd written on success. */
int np_udp_sock_create(const struct np_udp_sock_opts *o, int rxq_ovfl,
                       int *fd, struct np_errbuf *eb);

/* Steer datagrams among the n sockets of fd's SO_REUSEPORT group by the
 * low byte of the benchmark's client id (payload byte 8) modulo n, with a
 * classic BPF program (SO_ATTACH_REUSEPORT_CBPF).  Socket k of the group
 * is the k-th that bound.  Needs payloads of at least 9 bytes. */
int np_udp_sock_steer_reuseport(int fd, unsigned n);

/* Effective SO_RCVBUF / SO_SNDBUF as getsockopt reports them. */
int np_udp_sock_buffers(int fd, int *rcvbuf, int *sndbuf);

/* The socket's kernel drop counter (sk_drops: the value SO_RXQ_OVFL
 * reports), read at any moment through SO_MEMINFO. */
int np_udp_sock_drops(int fd, uint64_t *drops);

#endif /* NP_UDP_TRANSPORT_H */
