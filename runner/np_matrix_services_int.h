/*
 * np_matrix_services_int.h - inside the matrix's services: the readiness
 * checks and the proof that the socket which answers belongs to the
 * service (np_matrix_services_ready.c), shared with the lifecycle in
 * np_matrix_services.c.
 *
 * A check holds only when every socket a datagram (udp_bound, udp_echo)
 * or a connection (tcp_connect) to the address would reach is held by the
 * service's process or one of its descendants: the socket's inode from
 * /proc/net/udp(6) or the LISTEN rows of /proc/net/tcp(6), its holders
 * from /proc/PID/fd (common/np_procnet.h, the code `udp --connect` uses).
 * A foreign process on the port (an `iperf3 -s` already on 5201) never
 * makes a service ready; it is named instead.
 */
#ifndef NP_MATRIX_SERVICES_INT_H
#define NP_MATRIX_SERVICES_INT_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "np_err.h"

enum np_svc_ready { NP_SVC_UDP_BOUND, NP_SVC_TCP_CONNECT, NP_SVC_UDP_ECHO };

#define NP_SVC_OWNERS_MAX 8

/* A service's readiness check, parsed from its plan entry. */
struct np_svc_check {
  enum np_svc_ready kind;
  const char *name;              /* "udp_bound" ...                       */
  const char *text;              /* "127.0.0.1:5201" (the plan's)         */
  struct sockaddr_storage addr;
  socklen_t alen;
};

/* What one look at the address found. */
struct np_svc_seen {
  int ready;                     /* the check holds, for the service     */
  pid_t owners[NP_SVC_OWNERS_MAX]; /* holders within the service         */
  size_t nowners;
  char foreign[200];             /* "held by pid N (cmd), not by the
                                    service" when another process has the
                                    address, else ""                     */
};

/* The check named name ("udp_bound" ...) at text ("ADDR:PORT") into *ck.
 * NP_ESCHEMA when either does not read. */
int np_matrix__svc_check_parse(const char *name, const char *text,
                               struct np_svc_check *ck);

/* One look: is the address held by pid's tree only, and (probe 1,
 * tcp_connect and udp_echo) does it answer?  *seen is always written.
 * Between repetitions the runner looks with probe 0: nothing is sent to
 * the service, its sockets are only looked up. */
void np_matrix__svc_check_once(const struct np_svc_check *ck, pid_t pid,
                               int probe, struct np_svc_seen *seen);

/* "SIGKILL" for 9; "SIG?" when unknown. */
const char *np_matrix__svc_signame(int signo, char *buf, size_t len);

#endif /* NP_MATRIX_SERVICES_INT_H */
