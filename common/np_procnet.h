/*
 * np_procnet.h - UDP sockets of this machine as the kernel lists them, and
 * the processes that hold them, read without their cooperation.
 *
 * `netproof-bench udp --connect` measures a server it did not start.  When
 * the target address is local, the kernel still knows everything about the
 * server's socket: /proc/net/udp and /proc/net/udp6 list every UDP socket
 * with its queues and its drop counter (sk_drops, the counter SO_RXQ_OVFL
 * reports), and the socket's inode appears as "socket:[INODE]" among the
 * /proc/PID/fd links of every process holding it.  From the pid come the
 * command line (/proc/PID/cmdline) and the executable (/proc/PID/exe),
 * whose SHA-256 identifies the build that answered.
 *
 * Everything here reads /proc; nothing is written, no socket is opened.
 * Parsing is separate from reading so tests can feed fixtures.  Reading
 * another user's /proc/PID/fd needs that user or root: a process that
 * cannot be looked at is simply not found (the caller says so).
 */
#ifndef NP_PROCNET_H
#define NP_PROCNET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "np_err.h"
#include "np_sha256.h"

/* One row of /proc/net/udp or /proc/net/udp6. */
struct np_procnet_sock {
  int family;           /* AF_INET (udp) or AF_INET6 (udp6)              */
  uint8_t local[16];    /* local address, network order (4 or 16 bytes)  */
  uint16_t local_port;  /* local port                                    */
  uint8_t remote[16];   /* connected peer, all zero when unconnected     */
  uint16_t remote_port; /* peer port, 0 when unconnected                 */
  uint64_t tx_queue;    /* bytes queued to send (sk_wmem_alloc)          */
  uint64_t rx_queue;    /* bytes queued to read (sk_rmem_alloc)          */
  uint32_t uid;         /* owner uid                                     */
  uint64_t inode;       /* socket inode: "socket:[inode]" in /proc/PID/fd */
  uint64_t drops;       /* sk_drops: datagrams the kernel could not queue */
};

/* Parse the text of /proc/net/udp (family AF_INET) or /proc/net/udp6
 * (AF_INET6).  *out (malloc'd, caller frees; NULL when n is 0) and *n are
 * written on success.  NP_EPARSE with "line N: reason" in eb for a row
 * that does not read as the kernel's format; NP_ENOMEM. */
int np_procnet_udp_parse(const char *text, int family,
                         struct np_procnet_sock **out, size_t *n,
                         struct np_errbuf *eb);

/* Read and parse /proc/net/udp and /proc/net/udp6 into one list (udp rows
 * first).  A file that does not exist (no IPv6) contributes nothing. */
int np_procnet_udp_read(struct np_procnet_sock **out, size_t *n,
                        struct np_errbuf *eb);

/* The TCP sockets in state LISTEN of /proc/net/tcp (AF_INET) or
 * /proc/net/tcp6 (AF_INET6) text, in the same rows (remote all zero,
 * drops 0); other states are skipped.  Errors as np_procnet_udp_parse. */
int np_procnet_tcp_listen_parse(const char *text, int family,
                                struct np_procnet_sock **out, size_t *n,
                                struct np_errbuf *eb);

/* Read /proc/net/tcp and /proc/net/tcp6: every listening socket. */
int np_procnet_tcp_listen_read(struct np_procnet_sock **out, size_t *n,
                               struct np_errbuf *eb);

/* Indices into list[0..n) of the sockets a datagram to target (AF_INET or
 * AF_INET6 sockaddr) would be delivered to: bound to its port and to its
 * address or the wildcard (an IPv6 socket bound to :: or to ::ffff:a.b.c.d
 * also receives IPv4), not connected to another peer - every member of a
 * SO_REUSEPORT group.  Sockets bound to the exact address are listed
 * before wildcard ones.  *idx malloc'd (NULL when *nidx is 0). */
int np_procnet_udp_match(const struct np_procnet_sock *list, size_t n,
                         const struct sockaddr *target, size_t **idx,
                         size_t *nidx);

/* 1 when addr (AF_INET or AF_INET6) is a loopback address or an address
 * of one of this machine's interfaces (getifaddrs); *why (may be NULL)
 * gets "loopback address", "address of interface NAME" or "not an address
 * of this machine". */
int np_procnet_addr_is_local(const struct sockaddr *addr, char *why,
                             size_t why_len);

/* np_procnet_udp_match works on listening TCP rows too: they are the
 * sockets a connection to target reaches (exact address before wildcard,
 * every member of a SO_REUSEPORT group). */

/* 1 when pid is root, one of its descendants (the parent chain of
 * /proc/PID/stat, at most 64 steps) or in the process group root leads
 * (a service started as its own group); 0 otherwise, or when /proc does
 * not say. */
int np_procnet_pid_within(pid_t pid, pid_t root);

/* The pids whose /proc/PID/fd holds socket:[inode], ascending, at most
 * max (the scan stops there).  Unreadable processes are skipped.  *pids
 * malloc'd (NULL when *n is 0). */
int np_procnet_holders(uint64_t inode, size_t max, pid_t **pids, size_t *n);

#define NP_PROCNET_ARGS_MAX 64      /* command-line words kept per process */
#define NP_PROCNET_CMDLINE_MAX 4096 /* bytes of /proc/PID/cmdline read    */

/* What /proc says about one process. */
struct np_procnet_proc {
  pid_t pid;                             /* the process                    */
  char cmdline[NP_PROCNET_CMDLINE_MAX];  /* NUL-separated words            */
  size_t nargs;                          /* words in args                  */
  const char *args[NP_PROCNET_ARGS_MAX]; /* into cmdline                  */
  int args_truncated;                    /* more words or bytes than kept  */
  char exe[4096];                        /* readlink /proc/PID/exe, or ""  */
  char exe_sha256[NP_SHA256_HEX_SIZE];   /* SHA-256 of /proc/PID/exe, or "" */
  char exe_error[160];                   /* why exe/exe_sha256 is empty     */
};

/* Fill *out for pid (always written; the parts that could not be read are
 * empty and exe_error says why).  0, or NP_ENOENT when the process is
 * gone. */
int np_procnet_process(pid_t pid, struct np_procnet_proc *out);

/* "127.0.0.1:9000" / "[::1]:9000" for a row's local end. */
void np_procnet_local_text(const struct np_procnet_sock *s, char *buf,
                           size_t len);

#endif /* NP_PROCNET_H */
