/*
 * np_addr.c - ADDR:PORT text to socket addresses and back (see
 * np_addr.h).  inet_pton / inet_ntop do the address itself; this file
 * owns the brackets, the port and the wording of every refusal.
 */
#include "np_addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#define FORM "expected ADDR:PORT such as 127.0.0.1:9000 or [::1]:9000"

/* The port text: 1..5 decimal digits, no sign or space, at most 65535. */
static int port_of_text(const char *p, unsigned long *out) {
  unsigned long v = 0;
  size_t n = 0;
  for (; p[n] >= '0' && p[n] <= '9'; n++) {
    if (n == 5)
      return -1;
    v = v * 10 + (unsigned long)(p[n] - '0');
  }
  if (n == 0 || p[n] != '\0' || v > 65535)
    return -1;
  *out = v;
  return 0;
}

int np_addr_parse(const char *what, const char *text, unsigned flags,
                  struct np_addr *out, struct np_errbuf *eb) {
  char host[INET6_ADDRSTRLEN];
  const char *h, *port_text;
  size_t hl;
  int bracket = text[0] == '[';
  if (bracket) {
    const char *close = strchr(text, ']');
    if (close == NULL || close[1] != ':')
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s '%s': expected [IPv6]:PORT such as [::1]:9000",
                           what, text);
    h = text + 1;
    hl = (size_t)(close - h);
    port_text = close + 2;
  } else {
    const char *colon = strrchr(text, ':');
    if (colon == NULL)
      return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': " FORM, what, text);
    if (strchr(text, ':') != colon)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s '%s': " FORM " (IPv6 in brackets)", what,
                           text);
    h = text;
    hl = (size_t)(colon - text);
    port_text = colon + 1;
  }
  if (hl == 0)
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': no address before the port",
                         what, text);
  if (port_text[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': no port after the address",
                         what, text);
  if (hl >= sizeof host)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s '%s': the address is too long for a literal IPv4 "
                         "or IPv6 one (names are not looked up)",
                         what, text);
  memcpy(host, h, hl);
  host[hl] = '\0';
  struct np_addr a;
  memset(&a, 0, sizeof a);
  struct sockaddr_in *a4 = (struct sockaddr_in *)&a.ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a.ss;
  if (!bracket && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a.len = sizeof *a4;
  } else if (bracket && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a.len = sizeof *a6;
  } else {
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s '%s': '%s' is not a literal IPv4 address or a "
                         "bracketed IPv6 one (names are not looked up)",
                         what, text, host);
  }
  unsigned long port;
  int any = (flags & NP_ADDR_ANY_PORT) != 0;
  if (port_of_text(port_text, &port) != 0 || (port == 0 && !any))
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': port out of range %s..65535",
                         what, text, any ? "0" : "1");
  np_addr_set_port(&a, (uint16_t)port);
  *out = a;
  return 0;
}

void np_addr_sa_format(const struct sockaddr *sa, char *buf, size_t cap) {
  char host[INET6_ADDRSTRLEN];
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *)sa;
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    snprintf(buf, cap, "[%s]:%u", host, (unsigned)ntohs(a->sin6_port));
  } else if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const void *)sa;
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    snprintf(buf, cap, "%s:%u", host, (unsigned)ntohs(a->sin_port));
  } else {
    snprintf(buf, cap, "(none)");
  }
}

void np_addr_format(const struct np_addr *a, char *buf, size_t cap) {
  np_addr_sa_format((const struct sockaddr *)&a->ss, buf, cap);
}

void np_addr_host(const struct np_addr *a, char *buf, size_t cap) {
  char host[INET6_ADDRSTRLEN] = "";
  if (a->ss.ss_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
              host, sizeof host);
  else if (a->ss.ss_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->ss)->sin_addr, host,
              sizeof host);
  snprintf(buf, cap, "%s", host);
}

/* Same family and address; with_port: the port too. */
static int same(const struct sockaddr *a, const struct sockaddr *b,
                int with_port) {
  if (a->sa_family != b->sa_family)
    return 0;
  if (a->sa_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return (!with_port || x->sin_port == y->sin_port) &&
           x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  if (a->sa_family == AF_INET6) {
    const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
    return (!with_port || x->sin6_port == y->sin6_port) &&
           memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
  }
  return 0;
}

int np_addr_sa_equal(const struct sockaddr *a, const struct sockaddr *b) {
  return same(a, b, 1);
}

int np_addr_equal(const struct np_addr *a, const struct np_addr *b) {
  return same((const struct sockaddr *)&a->ss, (const struct sockaddr *)&b->ss,
              1);
}

int np_addr_equal_host(const struct np_addr *a, const struct np_addr *b) {
  return same((const struct sockaddr *)&a->ss, (const struct sockaddr *)&b->ss,
              0);
}

socklen_t np_addr_sa_len(const struct sockaddr *sa) {
  return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                   : sizeof(struct sockaddr_in);
}

int np_addr_from_sa(const struct sockaddr *sa, struct np_addr *out) {
  if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
    return NP_EINVAL;
  memset(out, 0, sizeof *out);
  out->len = np_addr_sa_len(sa);
  memcpy(&out->ss, sa, out->len);
  return 0;
}

int np_addr_family(const struct np_addr *a) { return a->ss.ss_family; }

uint16_t np_addr_port(const struct np_addr *a) {
  if (a->ss.ss_family == AF_INET6)
    return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
  if (a->ss.ss_family == AF_INET)
    return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
  return 0;
}

void np_addr_set_port(struct np_addr *a, uint16_t port) {
  if (a->ss.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
  else if (a->ss.ss_family == AF_INET)
    ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

int np_addr_is_any(const struct np_addr *a) {
  static const unsigned char zero[16];
  if (a->ss.ss_family == AF_INET6)
    return memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr, zero,
                  16) == 0;
  if (a->ss.ss_family == AF_INET)
    return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
           htonl(INADDR_ANY);
  return 0;
}
