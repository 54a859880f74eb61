/*
 * np_udp_transport.h - the socket layer behind the echo loop, as a small
 * table of function pointers (iperf3's struct protocol is the model).
 *
 * A transport owns event loops and UDP sockets.  The echo logic hands each
 * socket a receive callback that gets datagrams in batches, and sends
 * batches back through send_batch; it never sees libuv, epoll or io_uring.
 * Three implementations: np_udp_transport_uv (libuv, UV_UDP_RECVMMSG,
 * uv_udp_try_send), np_udp_transport_raw (epoll; recv/send for one
 * datagram, recvmmsg/sendmmsg for batches; SO_RXQ_OVFL cmsg on the server
 * sockets that read it) and np_udp_transport_uring (io_uring: sends queued
 * and submitted together with the wait for completions, multishot receives
 * into a registered buffer ring, registered files; np_udp_uring.c).
 *
 * Sends may complete after send_batch returns (uring): the transport copies
 * what it needs, and a send the kernel refuses later is reported through
 * the socket's on_send_fail (on the loop's thread), never silently.
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
#include "np_udp_result.h" /* struct np_udp_loop_info */

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
/* A send that send_batch had accepted failed later with errnum. */
typedef void (*np_udp_send_fail_fn)(void *ctx, int errnum);

struct np_udp_sock_opts {
  struct sockaddr_storage bind_addr; /* port 0 = any                       */
  socklen_t bind_len;
  struct sockaddr_storage peer;      /* connect() target when peer_len > 0 */
  socklen_t peer_len;
  int reuseport;                     /* set SO_REUSEPORT before bind       */
  int rcvbuf, sndbuf;                /* requested SO_RCVBUF / SO_SNDBUF    */
  unsigned rx_batch;                 /* datagrams per receive call         */
  size_t max_payload;                /* largest datagram expected          */
  int rxq_ovfl;                      /* read SO_RXQ_OVFL cmsgs (raw, on
                                        sockets received through msghdr) */
  np_udp_recv_fn on_recv;
  np_udp_send_fail_fn on_send_fail;  /* deferred send failures (uring)    */
  void *ctx;                         /* for on_recv and on_send_fail      */
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
  /* Latest SO_RXQ_OVFL value seen in a cmsg (0 until one came); -1 when
   * the socket does not read them (libuv, uring, raw sockets that receive
   * without a msghdr). */
  int64_t (*sock_rxq_ovfl)(const struct np_udp_sock *s);
  void (*sock_close)(struct np_udp_sock *s); /* accepts NULL */
  /* System calls the loop's thread has made so far, counted at each call
   * site (the loop makes every system call of its thread; clock_gettime
   * is in the vDSO); thread-safe; -1 when the backend cannot count them
   * (libuv makes its own). */
  int64_t (*loop_syscalls)(const struct np_udp_loop *l);
  /* Fill *out (zeroes where the backend has nothing to say). */
  void (*loop_info)(const struct np_udp_loop *l, struct np_udp_loop_info *out);
};

extern const struct np_udp_transport np_udp_transport_uv;
extern const struct np_udp_transport np_udp_transport_raw;
extern const struct np_udp_transport np_udp_transport_uring;

/* 0 when this process can create an io_uring with what the uring transport
 * needs; else NP_ENOTSUP / NP_EACCES / NP_ENOMEM with one line in eb naming
 * the reason (kernel too old, io_uring disabled by sysctl, seccomp or a
 * container's policy).  Tests skip on failure. */
int np_udp_uring_available(struct np_errbuf *eb);

/* --- fd-level helpers shared by every backend (np_udp_sock.c) --- */

/* socket(), SO_RCVBUF/SO_SNDBUF, SO_REUSEPORT, bind, connect, SO_RXQ_OVFL
 * when o->rxq_ovfl; non-blocking.  *fd written on success. */
int np_udp_sock_create(const struct np_udp_sock_opts *o, int *fd,
                       struct np_errbuf *eb);

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
