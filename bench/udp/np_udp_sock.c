/*
 * np_udp_sock.c - socket set-up and kernel queries common to every
 * transport, so uv, raw and uring sockets are configured identically.
 *
 * Drops: the kernel counts datagrams it could not queue on a socket in
 * sk->sk_drops.  SO_RXQ_OVFL attaches that counter to received datagrams as
 * a cmsg (the raw backend reads it on the sockets it enables it on: only
 * where the receive goes through a msghdr), but a cmsg only arrives with the next
 * datagram; SO_MEMINFO returns the same counter (SK_MEMINFO_DROPS) at any
 * moment, which is what phase-boundary snapshots need, for every backend.
 */
#include "np_udp_transport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

static int fail(struct np_errbuf *eb, int fd, const char *what) {
  int e = errno;
  if (fd >= 0)
    close(fd);
  return np_errbuf_set(eb, np_err_from_errno(e), "%s: %s", what, strerror(e));
}

/* "bind udp 127.0.0.1:9000" / "bind udp [::1]:9000": which address. */
static int bind_fail(struct np_errbuf *eb, int fd,
                     const struct sockaddr_storage *ss) {
  char host[INET6_ADDRSTRLEN] = "?", what[INET6_ADDRSTRLEN + 32];
  unsigned port = 0;
  int e = errno;
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
    snprintf(what, sizeof what, "bind udp %s:%u", host, port);
  } else {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
    snprintf(what, sizeof what, "bind udp [%s]:%u", host, port);
  }
  errno = e;
  return fail(eb, fd, what);
}

int np_udp_sock_create(const struct np_udp_sock_opts *o, int *fd_out,
                       struct np_errbuf *eb) {
  int one = 1;
  int fd = socket(o->bind_addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK |
                                              SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail(eb, -1, "socket");
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof o->rcvbuf))
    return fail(eb, fd, "setsockopt(SO_RCVBUF)");
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof o->sndbuf))
    return fail(eb, fd, "setsockopt(SO_SNDBUF)");
  if (o->reuseport &&
      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one))
    return fail(eb, fd, "setsockopt(SO_REUSEPORT)");
  if (o->rxq_ovfl && setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one))
    return fail(eb, fd, "setsockopt(SO_RXQ_OVFL)");
  if (bind(fd, (const struct sockaddr *)&o->bind_addr, o->bind_len))
    return bind_fail(eb, fd, &o->bind_addr);
  if (o->peer_len > 0 &&
      connect(fd, (const struct sockaddr *)&o->peer, o->peer_len))
    return fail(eb, fd, "connect");
  *fd_out = fd;
  return 0;
}

int np_udp_sock_steer_reuseport(int fd, unsigned n) {
  /* For UDP the program sees the datagram from its payload on (the UDP
   * header is pulled first), so byte 8 is the client id's low byte. */
  struct sock_filter code[] = {
      {BPF_LD | BPF_B | BPF_ABS, 0, 0, 8},
      {BPF_ALU | BPF_MOD | BPF_K, 0, 0, n},
      {BPF_RET | BPF_A, 0, 0, 0},
  };
  struct sock_fprog prog = {.len = 3, .filter = code};
  if (n == 0)
    return NP_EINVAL;
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
                 sizeof prog))
    return np_err_from_errno(errno);
  return 0;
}

int np_udp_sock_buffers(int fd, int *rcvbuf, int *sndbuf) {
  socklen_t len = sizeof *rcvbuf;
  if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, &len))
    return np_err_from_errno(errno);
  len = sizeof *sndbuf;
  if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, sndbuf, &len))
    return np_err_from_errno(errno);
  return 0;
}

int np_udp_sock_drops(int fd, uint64_t *drops) {
  uint32_t mem[SK_MEMINFO_VARS];
  socklen_t len = sizeof mem;
  memset(mem, 0, sizeof mem);
  if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len))
    return np_err_from_errno(errno);
  if (len < (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t))
    return NP_ENOTSUP;
  *drops = mem[SK_MEMINFO_DROPS];
  return 0;
}
