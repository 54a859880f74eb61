/*
 * np_relay_addr.c - ADDR:PORT text for the relay's --listen / --forward
 * (and rudp's --relay): literal IPv4 or bracketed IPv6 addresses only, no
 * name resolution, so what the record says is what was used.
 */
#include "np_relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned np_relay_addr_len(const struct sockaddr *sa) {
  return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                   : sizeof(struct sockaddr_in);
}

int np_relay_addr_equal(const struct sockaddr *a, const struct sockaddr *b) {
  if (a->sa_family != b->sa_family)
    return 0;
  if (a->sa_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port &&
           x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port &&
         memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
}

int np_relay_addr_parse(const char *text, struct sockaddr_storage *out,
                        struct np_errbuf *eb) {
  char host[INET6_ADDRSTRLEN + 1];
  const char *port_text;
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  size_t n = strlen(text);
  if (n > 0 && text[0] == '[') {
    const char *end = strchr(text, ']');
    if (end == NULL || end[1] != ':' || (size_t)(end - text - 1) >= sizeof host)
      goto bad;
    memcpy(host, text + 1, (size_t)(end - text - 1));
    host[end - text - 1] = '\0';
    port_text = end + 2;
  } else {
    const char *colon = strrchr(text, ':');
    if (colon == NULL || (size_t)(colon - text) >= sizeof host ||
        strchr(text, ':') != colon)
      goto bad;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    port_text = colon + 1;
  }
  if (port_text[0] < '0' || port_text[0] > '9')
    goto bad;
  char *pend = NULL;
  errno = 0;
  unsigned long port = strtoul(port_text, &pend, 10);
  if (errno != 0 || *pend != '\0' || port > 65535)
    goto bad;
  if (text[0] == '[') {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
      goto bad;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
      goto bad;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
  }
  *out = ss;
  return 0;
bad:
  return np_errbuf_set(eb, NP_EUSAGE,
                       "'%s': expected ADDR:PORT with a literal address "
                       "(IPv6 as [ADDR]:PORT) and a port 0..65535",
                       text);
}

void np_relay_addr_format(const struct sockaddr *sa, char *buf, size_t len) {
  char host[INET6_ADDRSTRLEN];
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *)sa;
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
  } else if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const void *)sa;
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
  } else {
    snprintf(buf, len, "(none)");
  }
}
