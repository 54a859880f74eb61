/*
 * np_matrix_services_ready.c - a service's readiness check, proved for
 * the service's own process (see np_matrix_services_int.h).  Ownership is
 * looked up first: a port held by anyone else is not ready however well
 * it answers, so a repetition never measures a foreign server.
 */
#include "np_matrix_services_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_addr.h"
#include "np_procnet.h"

static const char *const ready_names[] = {"udp_bound", "tcp_connect",
                                          "udp_echo"};

const char *np_matrix__svc_signame(int signo, char *buf, size_t len) {
  const char *a = sigabbrev_np(signo);
  snprintf(buf, len, "SIG%s", a ? a : "?");
  return buf;
}

int np_matrix__svc_check_parse(const char *name, const char *text,
                                struct np_svc_check *ck) {
  int k = -1;
  struct np_addr a;
  memset(ck, 0, sizeof *ck);
  for (int i = 0; i < 3; i++)
    if (strcmp(name, ready_names[i]) == 0)
      k = i;
  if (k < 0 || np_addr_parse("ready", text, 0, &a, NULL) != 0)
    return NP_ESCHEMA;
  ck->kind = (enum np_svc_ready)k;
  ck->name = ready_names[k];
  ck->text = text;
  memcpy(&ck->addr, &a.ss, sizeof ck->addr);
  ck->alen = a.len;
  return 0;
}

/* The holders of every socket the address reaches: 1 when there is one
 * and each is held by pid's tree only (owners listed), else 0 with the
 * first foreign holder named. */
static int owned(const struct np_svc_check *ck, pid_t pid,
                 struct np_svc_seen *seen) {
  struct np_procnet_sock *rows = NULL;
  size_t n = 0, *idx = NULL, k = 0;
  int rc = ck->kind == NP_SVC_TCP_CONNECT
               ? np_procnet_tcp_listen_read(&rows, &n, NULL)
               : np_procnet_udp_read(&rows, &n, NULL);
  if (rc != 0 || np_procnet_udp_match(rows, n,
                                      (const struct sockaddr *)&ck->addr,
                                      &idx, &k) != 0) {
    free(rows);
    return 0;
  }
  int ok = k > 0;
  for (size_t i = 0; ok && i < k; i++) {
    pid_t *pids = NULL;
    size_t np = 0, mine = 0;
    if (np_procnet_holders(rows[idx[i]].inode, 16, &pids, &np) != 0)
      np = 0;
    for (size_t j = 0; j < np; j++) {
      if (np_procnet_pid_within(pids[j], pid)) {
        mine++;
        int dup = 0;
        for (size_t q = 0; q < seen->nowners; q++)
          dup |= seen->owners[q] == pids[j];
        if (!dup && seen->nowners < NP_SVC_OWNERS_MAX)
          seen->owners[seen->nowners++] = pids[j];
        continue;
      }
      struct np_procnet_proc *pr = calloc(1, sizeof *pr);
      const char *cmd = "?";
      if (pr != NULL && np_procnet_process(pids[j], pr) == 0 && pr->nargs)
        cmd = pr->args[0];
      snprintf(seen->foreign, sizeof seen->foreign,
               "%s %s is held by pid %ld (%.80s), not by the service (pid "
               "%ld)",
               ck->name, ck->text, (long)pids[j], cmd, (long)pid);
      free(pr);
      ok = 0;
      break;
    }
    if (ok && mine == 0) { /* nobody we may look at: not proved */
      snprintf(seen->foreign, sizeof seen->foreign,
               "%s %s is held by a process this user cannot look at "
               "(socket inode %llu), not provably by the service",
               ck->name, ck->text, (unsigned long long)rows[idx[i]].inode);
      ok = 0;
    }
    free(pids);
  }
  free(idx);
  free(rows);
  return ok;
}

/* A TCP connection accepted, or a UDP datagram echoed back; 1 if so. */
static int answers(const struct np_svc_check *ck) {
  int tcp = ck->kind == NP_SVC_TCP_CONNECT;
  int fd = socket(ck->addr.ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) |
                                          SOCK_NONBLOCK | SOCK_CLOEXEC,
                  0);
  if (fd < 0)
    return 0;
  int ok = 0;
  if (connect(fd, (const struct sockaddr *)&ck->addr, ck->alen) == 0 ||
      errno == EINPROGRESS) {
    static const char probe[] = "netproof-ready";
    struct pollfd p = {.fd = fd, .events = tcp ? POLLOUT : POLLIN};
    if (!tcp && send(fd, probe, sizeof probe - 1, 0) < 0)
      goto close_fd;
    if (poll(&p, 1, 100) == 1) {
      if (tcp) {
        int err = 0;
        socklen_t el = sizeof err;
        ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0;
      } else {
        char buf[64];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        ok = r == (ssize_t)(sizeof probe - 1) &&
             memcmp(buf, probe, (size_t)r) == 0;
      }
    }
  }
close_fd:
  close(fd);
  return ok;
}

void np_matrix__svc_check_once(const struct np_svc_check *ck, pid_t pid,
                               int probe, struct np_svc_seen *seen) {
  memset(seen, 0, sizeof *seen);
  if (!owned(ck, pid, seen))
    return;
  /* udp_bound: the socket is the whole check */
  seen->ready = !probe || ck->kind == NP_SVC_UDP_BOUND || answers(ck);
}
