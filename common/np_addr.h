/*
 * np_addr.h - the one ADDR:PORT type of netproof: "127.0.0.1:9000" or
 * "[::1]:9000" (a literal IPv4 address, or a literal IPv6 address in
 * brackets, then a decimal port) to a socket address and back.  Names are
 * never looked up, so what a record says is what was used.
 *
 * The port-0 rule, stated once: port 0 means "any port, the kernel picks
 * one" and is meaningful only where a socket binds (serve, relay and agent
 * --listen).  np_addr_parse accepts it only with NP_ADDR_ANY_PORT; where a
 * peer is named (--connect, --forward, --agent, --relay, a record's
 * address) the port is 1..65535.
 *
 * Errors are NP_EUSAGE with one line in eb, "WHAT 'TEXT': reason", what
 * naming where the text came from ("--listen", "options/forward",
 * "welcome.agent").  Out-parameters are written only on success.
 */
#ifndef NP_ADDR_H
#define NP_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_err.h"

/* A literal address and port: ss holds a sockaddr_in or sockaddr_in6,
 * len its size (the bind/connect/sendto length). */
struct np_addr {
  struct sockaddr_storage ss;
  socklen_t len;
};

enum np_addr_flag {
  NP_ADDR_ANY_PORT = 1u /* port 0 (any: where a socket binds) allowed */
};

/* Bytes np_addr_format needs: "[" 45 "]:" 5 and the NUL. */
#define NP_ADDR_TEXT 56

/* text into *out (flags: enum np_addr_flag bits).  NP_EUSAGE, reasons:
 * "expected ADDR:PORT such as 127.0.0.1:9000 or [::1]:9000" (no port),
 * "expected [IPv6]:PORT such as [::1]:9000" (an unclosed bracket),
 * "no address before the port", "'H' is not a literal IPv4 address or a
 * bracketed IPv6 one (names are not looked up)", "port out of range
 * 1..65535" (or 0..65535 with NP_ADDR_ANY_PORT). */
int np_addr_parse(const char *what, const char *text, unsigned flags,
                  struct np_addr *out, struct np_errbuf *eb);

/* "127.0.0.1:9000", "[::1]:9000" into buf (cap bytes, NP_ADDR_TEXT is
 * enough); "(none)" for a family that is neither.  np_addr_parse of the
 * text gives the address back (the round trip tests/common/test_addr.c
 * checks). */
void np_addr_format(const struct np_addr *a, char *buf, size_t cap);

/* The address alone, IPv6 without brackets ("::1"), into buf. */
void np_addr_host(const struct np_addr *a, char *buf, size_t cap);

/* 1 when a and b are the same family, address and port (equal_host:
 * the same family and address, any port). */
int np_addr_equal(const struct np_addr *a, const struct np_addr *b);
int np_addr_equal_host(const struct np_addr *a, const struct np_addr *b);

/* AF_INET, AF_INET6 (or 0 for an empty address). */
int np_addr_family(const struct np_addr *a);

/* The port in host order; set_port changes it (0 = any, for a bind). */
uint16_t np_addr_port(const struct np_addr *a);
void np_addr_set_port(struct np_addr *a, uint16_t port);

/* 1 for the wildcard address (0.0.0.0 or ::). */
int np_addr_is_any(const struct np_addr *a);

/* The same on plain socket addresses (from getsockname, recvfrom, a
 * struct that keeps a sockaddr_storage): *out from sa, whose family says
 * its size; NP_EINVAL for a family that is neither IPv4 nor IPv6. */
int np_addr_from_sa(const struct sockaddr *sa, struct np_addr *out);
void np_addr_sa_format(const struct sockaddr *sa, char *buf, size_t cap);
int np_addr_sa_equal(const struct sockaddr *a, const struct sockaddr *b);
socklen_t np_addr_sa_len(const struct sockaddr *sa);

#endif /* NP_ADDR_H */
