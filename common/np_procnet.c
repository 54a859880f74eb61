/*
 * np_procnet.c - /proc/net/udp(6) rows, the sockets a datagram to an
 * address reaches, the processes holding a socket inode, and what /proc
 * says about a process (see np_procnet.h).
 *
 * Row format (net/ipv4/udp.c udp4_format_sock, net/ipv6/datagram.c
 * __ip6_dgram_sock_seq_show):
 *   sl: LOCAL:PORT REMOTE:PORT st tx_queue:rx_queue tr:tm->when retrnsmt
 *       uid timeout inode ref pointer drops
 * Addresses are the in-memory 32-bit words printed with %08X, so reading
 * each word back as a host integer and storing it in host order gives the
 * address bytes on any endianness.  Ports are printed in host order.
 */
#include "np_procnet.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROC_READ_MAX (64u << 20) /* a /proc file larger than this is refused  \
                                   */

/* Read a /proc file (size 0 in stat) to EOF into a NUL-terminated buffer. */
static int read_proc(const char *path, char **out, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return np_err_from_errno(errno);
  size_t cap = 16384, n = 0;
  char *buf = malloc(cap);
  int rc = 0;
  while (buf != NULL) {
    if (n + 4096 + 1 > cap) {
      if (cap >= PROC_READ_MAX) {
        rc = NP_ETOOBIG;
        break;
      }
      char *nb = realloc(buf, cap * 2);
      if (nb == NULL)
        break;
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      rc = np_err_from_errno(errno);
      break;
    }
    if (r == 0)
      break;
    n += (size_t)r;
  }
  close(fd);
  if (buf == NULL)
    return NP_ENOMEM;
  if (rc != 0) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *out = buf;
  if (len)
    *len = n;
  return 0;
}

/* "0100007F:0035" (family-sized hex words, then the port). */
static int parse_endpoint(const char *tok, int family, uint8_t *addr,
                          uint16_t *port) {
  size_t words = family == AF_INET6 ? 4 : 1;
  const char *colon = strchr(tok, ':');
  if (colon == NULL || (size_t)(colon - tok) != 8 * words)
    return -1;
  for (size_t w = 0; w < words; w++) {
    char hex[9];
    memcpy(hex, tok + 8 * w, 8);
    hex[8] = '\0';
    char *end;
    unsigned long v = strtoul(hex, &end, 16);
    if (*end != '\0')
      return -1;
    uint32_t v32 = (uint32_t)v;
    memcpy(addr + 4 * w, &v32, 4); /* the kernel printed the stored word */
  }
  char *end;
  unsigned long p = strtoul(colon + 1, &end, 16);
  if (end == colon + 1 || p > 0xFFFF)
    return -1;
  *port = (uint16_t)p;
  return 0;
}

/* What a table's rows are: /proc/net/udp (13 fields, drops last) or
 * /proc/net/tcp (the same first 10, through the inode; only LISTEN rows
 * kept). */
enum table { TABLE_UDP, TABLE_TCP_LISTEN };
#define TCP_LISTEN 0x0A /* include/net/tcp_states.h TCP_LISTEN */

/* One data row into *s; 0, -1 (not a row), 1 (a row not kept). */
static int parse_row(const char *line, int family, enum table t,
                     struct np_procnet_sock *s) {
  char local[64], remote[64], queues[40], timer[40];
  unsigned st;
  unsigned long retr, timeout;
  unsigned uid;
  unsigned long long inode, drops, ref;
  char ptr[40];
  int sl;
  memset(s, 0, sizeof *s);
  s->family = family;
  int k = sscanf(line,
                 " %d: %63s %63s %x %39s %39s %lx %u %lu %llu %llu %39s "
                 "%llu",
                 &sl, local, remote, &st, queues, timer, &retr, &uid, &timeout,
                 &inode, &ref, ptr, &drops);
  if (k != 13 && !(t == TABLE_TCP_LISTEN && k >= 10))
    return -1;
  if (t == TABLE_TCP_LISTEN)
    drops = 0; /* tcp rows have no drops column (field 13 is another) */
  if (parse_endpoint(local, family, s->local, &s->local_port) != 0 ||
      parse_endpoint(remote, family, s->remote, &s->remote_port) != 0)
    return -1;
  unsigned long long tx, rx;
  if (sscanf(queues, "%llx:%llx", &tx, &rx) != 2)
    return -1;
  s->tx_queue = tx;
  s->rx_queue = rx;
  s->uid = uid;
  s->inode = inode;
  s->drops = drops;
  return t == TABLE_TCP_LISTEN && st != TCP_LISTEN ? 1 : 0;
}

static int parse_table(const char *text, int family, enum table t,
                       struct np_procnet_sock **out, size_t *n,
                       struct np_errbuf *eb) {
  size_t cap = 0, cnt = 0, lineno = 0;
  struct np_procnet_sock *list = NULL;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[512];
    lineno++;
    if (len >= sizeof line) {
      free(list);
      return np_errbuf_set(eb, NP_EPARSE, "line %zu: longer than %zu bytes",
                           lineno, sizeof line - 1);
    }
    memcpy(line, p, len);
    line[len] = '\0';
    p += len + (nl ? 1 : 0);
    const char *q = line;
    while (isspace((unsigned char)*q))
      q++;
    if (*q == '\0' || lineno == 1) /* the header: "sl local_address ..." */
      continue;
    if (cnt == cap) {
      size_t nc = cap ? cap * 2 : 32;
      struct np_procnet_sock *nl2 = realloc(list, nc * sizeof *list);
      if (nl2 == NULL) {
        free(list);
        return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      }
      list = nl2;
      cap = nc;
    }
    int kept = parse_row(line, family, t, &list[cnt]);
    if (kept < 0) {
      free(list);
      return np_errbuf_set(eb, NP_EPARSE, "line %zu: not a /proc/net/%s%s row",
                           lineno, t == TABLE_UDP ? "udp" : "tcp",
                           family == AF_INET6 ? "6" : "");
    }
    cnt += kept == 0;
  }
  if (cnt == 0) {
    free(list);
    list = NULL;
  }
  *out = list;
  *n = cnt;
  return 0;
}

int np_procnet_udp_parse(const char *text, int family,
                         struct np_procnet_sock **out, size_t *n,
                         struct np_errbuf *eb) {
  return parse_table(text, family, TABLE_UDP, out, n, eb);
}

int np_procnet_tcp_listen_parse(const char *text, int family,
                                struct np_procnet_sock **out, size_t *n,
                                struct np_errbuf *eb) {
  return parse_table(text, family, TABLE_TCP_LISTEN, out, n, eb);
}

/* Both files of a table (v4 then v6) into one list. */
static int read_table(enum table t, struct np_procnet_sock **out, size_t *n,
                      struct np_errbuf *eb) {
  static const struct table_file {
    const char *path; /* the file */
    int family;       /* its rows' family */
  } tables[2][2] = {
      {{"/proc/net/udp", AF_INET}, {"/proc/net/udp6", AF_INET6}},
      {{"/proc/net/tcp", AF_INET}, {"/proc/net/tcp6", AF_INET6}}};
  const struct table_file *files = tables[t];
  struct np_procnet_sock *all = NULL;
  size_t total = 0;
  for (size_t f = 0; f < 2; f++) {
    char *text = NULL;
    int rc = read_proc(files[f].path, &text, NULL);
    if (rc == NP_ENOENT)
      continue;
    if (rc != 0) {
      free(all);
      return np_errbuf_set(eb, rc, "%s: %s", files[f].path, np_strerror(rc));
    }
    struct np_procnet_sock *part = NULL;
    size_t k = 0;
    struct np_errbuf inner = {{0}};
    rc = parse_table(text, files[f].family, t, &part, &k, &inner);
    free(text);
    if (rc != 0) {
      free(all);
      return np_errbuf_set(eb, rc, "%s: %s", files[f].path, inner.msg);
    }
    if (k > 0) {
      struct np_procnet_sock *na = realloc(all, (total + k) * sizeof *all);
      if (na == NULL) {
        free(part);
        free(all);
        return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      }
      all = na;
      memcpy(all + total, part, k * sizeof *part);
      total += k;
    }
    free(part);
  }
  *out = all;
  *n = total;
  return 0;
}

int np_procnet_udp_read(struct np_procnet_sock **out, size_t *n,
                        struct np_errbuf *eb) {
  return read_table(TABLE_UDP, out, n, eb);
}

int np_procnet_tcp_listen_read(struct np_procnet_sock **out, size_t *n,
                               struct np_errbuf *eb) {
  return read_table(TABLE_TCP_LISTEN, out, n, eb);
}

static int all_zero(const uint8_t *a, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (a[i])
      return 0;
  return 1;
}

/* 2 = bound to exactly addr, 1 = wildcard that receives it, 0 = no. */
static int binds_to(const struct np_procnet_sock *s, int family,
                    const uint8_t *addr) {
  static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
  if (s->family == family) {
    size_t len = family == AF_INET6 ? 16 : 4;
    if (memcmp(s->local, addr, len) == 0)
      return 2;
    return all_zero(s->local, len) ? 1 : 0;
  }
  if (s->family == AF_INET6 && family == AF_INET) {
    if (memcmp(s->local, v4mapped, 12) == 0 &&
        memcmp(s->local + 12, addr, 4) == 0)
      return 2;
    return all_zero(s->local, 16) ? 1 : 0; /* :: without IPV6_V6ONLY */
  }
  return 0;
}

int np_procnet_udp_match(const struct np_procnet_sock *list, size_t n,
                         const struct sockaddr *target, size_t **idx,
                         size_t *nidx) {
  uint8_t addr[16];
  uint16_t port;
  int family = target->sa_family;
  if (family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)target;
    memcpy(addr, &a->sin_addr, 4);
    port = ntohs(a->sin_port);
  } else if (family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)target;
    memcpy(addr, &a->sin6_addr, 16);
    port = ntohs(a->sin6_port);
  } else {
    return NP_EAFNOSUPPORT;
  }
  size_t *out = n ? malloc(n * sizeof *out) : NULL, k = 0;
  if (n && out == NULL)
    return NP_ENOMEM;
  for (int want = 2; want >= 1; want--) {
    for (size_t i = 0; i < n; i++) {
      const struct np_procnet_sock *s = &list[i];
      size_t alen = s->family == AF_INET6 ? 16 : 4;
      if (s->local_port != port || binds_to(s, family, addr) != want)
        continue;
      if (s->remote_port != 0 || !all_zero(s->remote, alen))
        continue; /* connected to a peer: datagrams from us never reach it */
      out[k++] = i;
    }
  }
  if (k == 0) {
    free(out);
    out = NULL;
  }
  *idx = out;
  *nidx = k;
  return 0;
}

int np_procnet_addr_is_local(const struct sockaddr *addr, char *why,
                             size_t why_len) {
  char scratch[8];
  if (why == NULL) {
    why = scratch;
    why_len = sizeof scratch;
  }
  if (addr->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
    if ((ntohl(a->sin_addr.s_addr) >> 24) == 127) {
      snprintf(why, why_len, "loopback address");
      return 1;
    }
  } else if (addr->sa_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)addr;
    if (IN6_IS_ADDR_LOOPBACK(&a->sin6_addr)) {
      snprintf(why, why_len, "loopback address");
      return 1;
    }
  }
  struct ifaddrs *ifs = NULL;
  int local = 0;
  if (getifaddrs(&ifs) == 0) {
    for (struct ifaddrs *i = ifs; i && !local; i = i->ifa_next) {
      const struct sockaddr *ia = i->ifa_addr;
      if (ia == NULL || ia->sa_family != addr->sa_family)
        continue;
      if (ia->sa_family == AF_INET)
        local = memcmp(&((const struct sockaddr_in *)ia)->sin_addr,
                       &((const struct sockaddr_in *)addr)->sin_addr, 4) == 0;
      else
        local =
            memcmp(&((const struct sockaddr_in6 *)ia)->sin6_addr,
                   &((const struct sockaddr_in6 *)addr)->sin6_addr, 16) == 0;
      if (local)
        snprintf(why, why_len, "address of interface %s", i->ifa_name);
    }
    freeifaddrs(ifs);
  }
  if (!local)
    snprintf(why, why_len, "not an address of this machine");
  return local;
}

static int is_pid(const char *s) {
  if (*s == '\0')
    return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s))
      return 0;
  return 1;
}

static int cmp_pid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

/* 1 when some /proc/PID/fd/N of pid links to want ("socket:[inode]"). */
static int pid_holds(const char *pid, const char *want) {
  char dir[300];
  snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d)) != NULL) {
    char p[600], link[64];
    if (!is_pid(e->d_name))
      continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    ssize_t r = readlink(p, link, sizeof link - 1);
    if (r <= 0)
      continue;
    link[r] = '\0';
    found = strcmp(link, want) == 0;
  }
  closedir(d);
  return found;
}

int np_procnet_holders(uint64_t inode, size_t max, pid_t **pids, size_t *n) {
  char want[48];
  snprintf(want, sizeof want, "socket:[%" PRIu64 "]", inode);
  DIR *proc = opendir("/proc");
  if (proc == NULL)
    return np_err_from_errno(errno);
  pid_t *out = NULL;
  size_t k = 0, cap = 0;
  int rc = 0;
  struct dirent *e;
  while (k < max && (e = readdir(proc)) != NULL) {
    if (!is_pid(e->d_name) || !pid_holds(e->d_name, want))
      continue;
    if (k == cap) {
      size_t nc = cap ? cap * 2 : 8;
      pid_t *np = realloc(out, nc * sizeof *out);
      if (np == NULL) {
        rc = NP_ENOMEM;
        break;
      }
      out = np;
      cap = nc;
    }
    out[k++] = (pid_t)strtol(e->d_name, NULL, 10);
  }
  closedir(proc);
  if (rc != 0) {
    free(out);
    return rc;
  }
  if (k > 1)
    qsort(out, k, sizeof *out, cmp_pid);
  *pids = out;
  *n = k;
  return 0;
}

/* pid's parent and process group from /proc/PID/stat ("pid (comm) state
 * ppid pgrp ...", comm may hold spaces and parentheses: after the last
 * ')'); 0 or -1. */
static int stat_of(pid_t pid, pid_t *ppid, pid_t *pgrp) {
  char p[64], buf[1024];
  snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0)
    return -1;
  buf[r] = '\0';
  const char *q = strrchr(buf, ')');
  long pp, pg;
  char st;
  if (q == NULL || sscanf(q + 1, " %c %ld %ld", &st, &pp, &pg) != 3)
    return -1;
  *ppid = (pid_t)pp;
  *pgrp = (pid_t)pg;
  return 0;
}

int np_procnet_pid_within(pid_t pid, pid_t root) {
  pid_t ppid, pgrp;
  if (pid <= 0 || root <= 0)
    return 0;
  if (pid == root)
    return 1;
  if (stat_of(pid, &ppid, &pgrp) != 0)
    return 0;
  if (pgrp == root)
    return 1;
  for (int step = 0; step < 64 && ppid > 1; step++) {
    if (ppid == root)
      return 1;
    if (stat_of(ppid, &ppid, &pgrp) != 0)
      return 0;
  }
  return 0;
}

int np_procnet_process(pid_t pid, struct np_procnet_proc *out) {
  char p[64];
  memset(out, 0, sizeof *out);
  out->pid = pid;
  snprintf(p, sizeof p, "/proc/%ld", (long)pid);
  if (access(p, F_OK) != 0)
    return NP_ENOENT;
  snprintf(p, sizeof p, "/proc/%ld/cmdline", (long)pid);
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    size_t n = 0;
    ssize_t r;
    while (n < sizeof out->cmdline - 1 &&
           (r = read(fd, out->cmdline + n, sizeof out->cmdline - 1 - n)) > 0)
      n += (size_t)r;
    char extra;
    out->args_truncated =
        n == sizeof out->cmdline - 1 && read(fd, &extra, 1) > 0;
    close(fd);
    if (n >= sizeof out->cmdline)
      n = sizeof out->cmdline - 1;
    out->cmdline[n] = '\0';
    for (size_t i = 0; i < n;) {
      if (out->nargs == NP_PROCNET_ARGS_MAX) {
        out->args_truncated = 1;
        break;
      }
      out->args[out->nargs++] = out->cmdline + i;
      i += strlen(out->cmdline + i) + 1;
    }
  }
  snprintf(p, sizeof p, "/proc/%ld/exe", (long)pid);
  ssize_t r = readlink(p, out->exe, sizeof out->exe - 1);
  if (r < 0) {
    snprintf(out->exe_error, sizeof out->exe_error, "readlink %s: %s", p,
             strerror(errno));
    out->exe[0] = '\0';
    return 0;
  }
  out->exe[r] = '\0';
  struct np_errbuf eb = {{0}};
  if (np_sha256_file(p, out->exe_sha256, NULL, &eb) != 0) {
    snprintf(out->exe_error, sizeof out->exe_error, "%.150s", eb.msg);
    out->exe_sha256[0] = '\0';
  }
  return 0;
}

void np_procnet_local_text(const struct np_procnet_sock *s, char *buf,
                           size_t len) {
  char a[INET6_ADDRSTRLEN];
  if (inet_ntop(s->family, s->local, a, sizeof a) == NULL)
    snprintf(a, sizeof a, "?");
  if (s->family == AF_INET6)
    snprintf(buf, len, "[%s]:%u", a, (unsigned)s->local_port);
  else
    snprintf(buf, len, "%s:%u", a, (unsigned)s->local_port);
}
