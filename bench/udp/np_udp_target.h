/*
 * np_udp_target.h - the server `udp --connect` measures, as the kernel
 * shows it without the server's cooperation (common/np_procnet.h).
 *
 * When the target address is local (loopback or one of this machine's
 * interface addresses) the sockets a datagram to it reaches are found in
 * /proc/net/udp(6) at the start of the measurement, with their drop
 * counters and queues; the same inodes are read again after the drain, so
 * the server socket's drops over exactly the measured window are known.
 * The processes holding those sockets (socket inode -> /proc/PID/fd) are
 * identified by pid, command line and the SHA-256 of /proc/PID/exe.  A
 * remote target, a local one whose socket is not visible (another network
 * namespace) or a socket that changed between the two readings leaves the
 * server side unattributed, and why_not says so - unless the target's
 * host read them itself (udp --agent: remote_observed).  Nothing here fails the
 * run except a lack of memory.
 */
#ifndef NP_UDP_TARGET_H
#define NP_UDP_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_procnet.h"
#include "np_udp_config.h"

#define NP_UDP_TARGET_SOCKS_MAX                                                \
  64 /* matching sockets kept (a reuseport group) */
#define NP_UDP_TARGET_PROCS_MAX 16 /* holding processes identified */

/* One matching socket, read twice. */
struct np_udp_target_sock {
  struct np_procnet_sock before; /* its row at the measurement's start    */
  struct np_procnet_sock after;  /* its row after the drain               */
  int have_after;                /* the inode was still listed after      */
};

struct np_udp_target {
  struct sockaddr_storage addr; /* where the clients send                */
  char text[80];                /* "127.0.0.1:9000" / "[::1]:9000"       */
  int local;                    /* the address is this machine's         */
  char local_why[96];           /* np_procnet_addr_is_local's reason     */
  size_t nsocks;                /* matching sockets (0: none found)      */
  int socks_truncated;          /* more matched than NP_UDP_TARGET_SOCKS_MAX */
  struct np_udp_target_sock socks[NP_UDP_TARGET_SOCKS_MAX];
  size_t nprocs;                 /* holders identified                    */
  int procs_truncated;           /* more holders than kept                */
  struct np_procnet_proc *procs; /* NP_UDP_TARGET_PROCS_MAX entries; owned */
  char why_not[512]; /* why the server side is unattributed, or "" */
  int remote_observed; /* udp --agent: socks and procs were read on the
                          target's own host by its agent, at the same two
                          moments (bench/agent/np_agent_udp.h)           */
};

/* The target of cfg (mode CLIENT): its address and whether it is local.
 * *out owned by the caller (np_udp_target_free).  NP_ENOMEM. */
int np_udp_target_new(const struct np_udp_config *cfg,
                      struct np_udp_target **out, struct np_errbuf *eb);

/* Read the target's sockets: before (after = 0) finds them and identifies
 * their holders; after (after = 1) reads the same inodes again.  Only
 * NP_ENOMEM fails; anything /proc does not show is noted in why_not. */
int np_udp_target_snap(struct np_udp_target *t, int after,
                       struct np_errbuf *eb);

/* 1 when the server socket's drops over the window are known: a local
 * target, at least one socket found, every one seen both times. */
int np_udp_target_attributable(const struct np_udp_target *t);

/* 1 when a one-byte datagram sent now to the target, from a socket
 * connected to it, is refused (ECONNREFUSED: an ICMP port unreachable
 * came back within 200 ms), else 0.  Asked only after a run in which
 * nothing answered. */
int np_udp_target_refused(const struct np_udp_target *t);

/* Sum over the matching sockets of drops after - before (valid when
 * attributable). */
uint64_t np_udp_target_drops(const struct np_udp_target *t);

/* The record's "external.target" and "external.server" objects. */
cJSON *np_udp_target_json(const struct np_udp_target *t,
                          const struct np_udp_config *cfg);
cJSON *np_udp_target_server_json(const struct np_udp_target *t);

void np_udp_target_free(struct np_udp_target *t); /* accepts NULL */

#endif /* NP_UDP_TARGET_H */
