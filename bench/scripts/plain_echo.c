/*
 * plain_echo.c - the physical reference for `netproof-bench udp --backend
 * raw`: the same workload (N client sockets connected to one server
 * socket, `window` datagrams outstanding per client, one thread) written
 * as plainly as possible: epoll + recvmmsg/sendmmsg, no checks, no
 * histogram, no record.  Prints one line: "roundtrips_per_sec R".
 *
 * usage: plain_echo [--clients N] [--payload B] [--window W]
 *                   [--seconds S] [--address 127.0.0.1|::1]
 * Not installed; built by CMake as a benchmark helper only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(const char *what) {
  fprintf(stderr, "plain_echo: %s: %s\n", what, strerror(errno));
  exit(3);
}

static int make_sock(int family, const struct sockaddr_storage *bind_to,
                     socklen_t len, const struct sockaddr_storage *peer) {
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int rcv = 4194304, snd = 65536;
  if (fd < 0)
    die("socket");
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
  if (bind(fd, (const struct sockaddr *)bind_to, len))
    die("bind");
  if (peer && connect(fd, (const struct sockaddr *)peer, len))
    die("connect");
  return fd;
}

int main(int argc, char **argv) {
  int clients = 16, payload = 1024, window = 1;
  double seconds = 1.0;
  const char *address = "127.0.0.1";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--clients"))
      clients = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--payload"))
      payload = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--window"))
      window = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds"))
      seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--address"))
      address = argv[i + 1];
    else {
      fprintf(stderr, "plain_echo: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (clients < 1 || clients > 1024 || payload < 1 || payload > 65507 ||
      window < 1 || window > BATCH || seconds <= 0) {
    fprintf(stderr, "plain_echo: option out of range\n");
    return 2;
  }
  struct sockaddr_storage ss = {0};
  socklen_t len;
  int family = strchr(address, ':') ? AF_INET6 : AF_INET;
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    inet_pton(AF_INET6, address, &a->sin6_addr);
    len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    inet_pton(AF_INET, address, &a->sin_addr);
    len = sizeof *a;
  }
  struct sockaddr_storage any = ss, srv;
  int server = make_sock(family, &any, len, NULL);
  socklen_t sl = sizeof srv;
  getsockname(server, (struct sockaddr *)&srv, &sl);
  int ep = epoll_create1(0);
  int *cfd = calloc((size_t)clients, sizeof *cfd);
  char *bufs = calloc(BATCH, (size_t)payload);
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_storage from[BATCH];
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = server};
  epoll_ctl(ep, EPOLL_CTL_ADD, server, &ev);
  for (int i = 0; i < clients; i++) {
    cfd[i] = make_sock(family, &any, len, &srv);
    ev.data.fd = cfd[i];
    epoll_ctl(ep, EPOLL_CTL_ADD, cfd[i], &ev);
  }
  for (int i = 0; i < BATCH; i++)
    iov[i] = (struct iovec){bufs + (size_t)i * payload, (size_t)payload};
  /* every client fills its window */
  for (int i = 0; i < clients; i++)
    for (int w = 0; w < window; w++)
      if (send(cfd[i], bufs, (size_t)payload, 0) < 0)
        die("send");
  unsigned long long roundtrips = 0;
  double t0 = now_s(), end = t0 + seconds;
  struct epoll_event evs[64];
  while (now_s() < end) {
    int n = epoll_wait(ep, evs, 64, 100);
    for (int e = 0; e < n; e++) {
      int fd = evs[e].data.fd;
      for (int i = 0; i < BATCH; i++) {
        memset(&msgs[i].msg_hdr, 0, sizeof msgs[i].msg_hdr);
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = fd == server ? &from[i] : NULL;
        msgs[i].msg_hdr.msg_namelen = fd == server ? sizeof from[i] : 0;
      }
      int r = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
      if (r <= 0)
        continue;
      for (int i = 0; i < r; i++)
        iov[i].iov_len = msgs[i].msg_len;
      if (fd != server)
        roundtrips += (unsigned long long)r;
      /* server echoes to the sender; a client sends the next message */
      if (sendmmsg(fd, msgs, (unsigned)r, MSG_DONTWAIT) < 0)
        die("sendmmsg");
      for (int i = 0; i < r; i++)
        iov[i].iov_len = (size_t)payload;
    }
  }
  double el = now_s() - t0;
  printf("roundtrips_per_sec %.1f\n", (double)roundtrips / el);
  return 0;
}
