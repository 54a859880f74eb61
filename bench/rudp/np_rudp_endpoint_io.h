/*
 * np_rudp_endpoint_io.h - batched datagram IO for the rudp endpoints
 * (issue 20): recvmmsg and sendmmsg on the sockets of the lane, with
 * every system call counted.
 *
 * Receive: a uv_poll handle watches each socket (the uv_udp handle only
 * binds, connects and closes it; its own receive path is never started,
 * so libuv never polls the same descriptor twice).  When readable, one
 * recvmmsg takes up to `batch` datagrams into the lane's buffers; a short
 * batch means the queue is empty (the poll is level-triggered and fires
 * again for anything newer), so no call is spent on EAGAIN.
 *
 * Send: datagrams queue per socket (copied, with their destination on the
 * server socket) and leave in one sendmmsg when the queue holds `batch`,
 * or when the lane flushes at the end of every loop callback that may
 * send (check, timer, wake-up).  With batch = 1 every datagram is its own
 * system call, as before issue 20.  A datagram the kernel refuses
 * (EAGAIN, ENOBUFS) is counted and dropped: the ARQ repairs it.
 *
 * One lane thread owns its queues and counters; nothing here is shared.
 */
#ifndef NP_RUDP_ENDPOINT_IO_H
#define NP_RUDP_ENDPOINT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_rudp_result.h" /* struct np_rudp_io_stats (model/rudp) */

struct mmsghdr;
struct iovec;

/* acc += a - b, field by field. */
void np_rudp_io_add_delta(struct np_rudp_io_stats *acc,
                          const struct np_rudp_io_stats *a,
                          const struct np_rudp_io_stats *b);

/* One socket's send queue. */
struct np_rudp_txq {
  int fd;                       /* the socket (owned by its uv_udp_t)     */
  unsigned n, cap;              /* queued datagrams, capacity (batch)     */
  uint32_t mtu;                 /* bytes per slot                         */
  uint8_t *buf;                 /* cap x mtu                              */
  uint32_t *len;                /* cap                                    */
  struct sockaddr_storage *to;  /* cap destinations; NULL when connected  */
  socklen_t *tolen;             /* cap; NULL when connected               */
  struct mmsghdr *hdr;          /* cap                                    */
  struct iovec *iov;            /* cap                                    */
};

/* cap datagrams of mtu bytes; addressed: every datagram has its own
 * destination (an unconnected socket).  NP_ENOMEM. */
int np_rudp_txq_init(struct np_rudp_txq *q, int fd, unsigned cap,
                     uint32_t mtu, int addressed);
void np_rudp_txq_free(struct np_rudp_txq *q); /* accepts a zeroed q */
/* Queue one datagram (to: NULL on a connected socket); sends the batch
 * when full.  NP_EMSGSIZE when len > mtu. */
int np_rudp_txq_put(struct np_rudp_txq *q, const uint8_t *buf, size_t len,
                    const struct sockaddr *to, socklen_t tolen,
                    struct np_rudp_io_stats *st);
/* Send everything queued (sendmmsg until done or refused). */
void np_rudp_txq_flush(struct np_rudp_txq *q, struct np_rudp_io_stats *st);

/* The lane's receive batch. */
struct np_rudp_rxb {
  unsigned cap;                 /* batch                                  */
  uint32_t mtu;
  uint8_t *buf;                 /* cap x mtu                              */
  struct sockaddr_storage *from;/* cap                                    */
  struct mmsghdr *hdr;          /* cap                                    */
  struct iovec *iov;            /* cap                                    */
};

int np_rudp_rxb_init(struct np_rudp_rxb *b, unsigned cap, uint32_t mtu);
void np_rudp_rxb_free(struct np_rudp_rxb *b); /* accepts a zeroed b */
/* One recvmmsg on fd: the number of datagrams now in b (0: none was
 * waiting).  Datagram i: np_rudp_rxb_data / _len / _from; a truncated one
 * has length 0 (counted in st->truncated). */
unsigned np_rudp_rxb_recv(struct np_rudp_rxb *b, int fd,
                          struct np_rudp_io_stats *st);
const uint8_t *np_rudp_rxb_data(const struct np_rudp_rxb *b, unsigned i);
size_t np_rudp_rxb_len(const struct np_rudp_rxb *b, unsigned i);
const struct sockaddr *np_rudp_rxb_from(const struct np_rudp_rxb *b,
                                        unsigned i, socklen_t *len);

#endif /* NP_RUDP_ENDPOINT_IO_H */
