/*
 * np_agent_allow.c - what a peer may ask the agent to start (see
 * np_agent_int.h, np_agent__allow).  The command's own option table decides
 * which options exist and which values they take - the same rows, parser
 * and messages as its command line - and the agent's rules come on top:
 * nothing that names a file, no option the agent sets itself, addresses
 * of this host only, no privileged port, no lifetime beyond the agent's.
 * A relay forwards only where the session could send anyway - its own
 * peer address - or to a service this same session started: never to
 * another port of this host (127.0.0.1:22 or a database bound to
 * loopback would otherwise be one authenticated request away), and its
 * TCP passthrough only to the session's own services.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "np_agent_client.h"
#include "np_agent_int.h"
#include "np_relay_cmd.h"
#include "np_rudp_options.h"
#include "np_udp_serve.h"

/* Options the agent sets itself, whatever the table says about them. */
static const char *const agent_set[] = {"max-seconds", "record", "quiet",
                                        "summary", "stats-lines"};

static int is_wildcard(const struct sockaddr *sa) {
  static const unsigned char zero[16];
  if (sa->sa_family == AF_INET)
    return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == 0;
  return memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, zero, 16) == 0;
}

/* The IPv4 address of sa, or of an IPv4-mapped IPv6 address; 0 when
 * neither. */
static int v4_of(const struct sockaddr *sa, uint32_t *out) {
  if (sa->sa_family == AF_INET) {
    *out = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
    return 1;
  }
  const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
  if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(a6)) {
    memcpy(out, a6->s6_addr + 12, 4);
    return 1;
  }
  return 0;
}

/* The same host address (ports ignored; a v4-mapped v6 address is its v4
 * one, as a dual-stack listener sees v4 peers). */
static int same_addr(const struct sockaddr *a, const struct sockaddr *b) {
  uint32_t x = 0, y = 0;
  int a4 = v4_of(a, &x), b4 = v4_of(b, &y);
  if (a4 || b4)
    return a4 && b4 && x == y;
  if (a->sa_family != AF_INET6 || b->sa_family != AF_INET6)
    return 0;
  return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

static uint16_t port_of(const struct sockaddr *sa) {
  return ntohs(sa->sa_family == AF_INET6
                   ? ((const struct sockaddr_in6 *)sa)->sin6_port
                   : ((const struct sockaddr_in *)sa)->sin_port);
}

int np_agent__addr_local(const struct sockaddr *addr) {
  if (is_wildcard(addr))
    return 0;
  if (addr->sa_family == AF_INET &&
      (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127)
    return 1;
  if (addr->sa_family == AF_INET6 &&
      IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)addr)->sin6_addr))
    return 1;
  struct ifaddrs *ifs = NULL;
  if (getifaddrs(&ifs) != 0)
    return 0;
  int found = 0;
  for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next)
    found = i->ifa_addr != NULL && same_addr(i->ifa_addr, addr);
  freeifaddrs(ifs);
  return found;
}

cJSON *np_agent__addresses_json(void) {
  cJSON *list = cJSON_CreateArray();
  struct ifaddrs *ifs = NULL;
  if (list == NULL || getifaddrs(&ifs) != 0)
    return list;
  for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
    if (i->ifa_addr == NULL || (i->ifa_addr->sa_family != AF_INET &&
                                i->ifa_addr->sa_family != AF_INET6))
      continue;
    char text[INET6_ADDRSTRLEN];
    const void *src =
        i->ifa_addr->sa_family == AF_INET
            ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
            : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
    if (!inet_ntop(i->ifa_addr->sa_family, src, text, sizeof text))
      continue;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "address", text);
    cJSON_AddStringToObject(o, "interface", i->ifa_name ? i->ifa_name : "");
    cJSON_AddItemToArray(list, o);
  }
  freeifaddrs(ifs);
  return list;
}

/* Text of v as the command line takes it, as the matrix writes a plan's
 * values ("1024", "0.25", "uv"). */
static void value_text(const cJSON *v, char *buf, size_t len) {
  if (cJSON_IsString(v))
    snprintf(buf, len, "%s", v->valuestring);
  else if (v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 9007199254740992.0)
    snprintf(buf, len, "%.0f", v->valuedouble);
  else
    snprintf(buf, len, "%.15g", v->valuedouble);
}

/* ADDR:PORT on this host, port 0 or >= 1024. */
static int check_listen(const char *name, const char *text,
                        struct np_errbuf *eb) {
  char what[64];
  struct np_addr a;
  snprintf(what, sizeof what, "options/%s", name);
  int rc = np_addr_parse(what, text, NP_ADDR_ANY_PORT, &a, eb);
  if (rc != 0)
    return rc;
  struct sockaddr_storage ss = a.ss;
  uint16_t port = np_addr_port(&a);
  if (is_wildcard((struct sockaddr *)&ss))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/%s '%s': a wildcard binds every address of "
                         "this host; name one of them",
                         name, text);
  if (!np_agent__addr_local((struct sockaddr *)&ss))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/%s '%s': not an address of this host (the "
                         "agent binds only its own interfaces' addresses)",
                         name, text);
  if (port != 0 && port < 1024)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/%s '%s': port %u is privileged; use 0 (any) "
                         "or 1024..65535",
                         name, text, (unsigned)port);
  return 0;
}

/* A relay's --forward (and --tcp-passthrough): a port >= 1024 of the
 * session's peer address, or the very address of a service this session
 * started; the TCP passthrough only to such a service. */
static int check_forward(const char *text, int passthrough,
                         const struct np_agent_targets *to,
                         struct np_errbuf *eb) {
  struct np_addr a;
  int rc = np_addr_parse("options/forward", text, 0, &a, eb);
  if (rc != 0)
    return rc;
  const struct sockaddr *t = (const struct sockaddr *)&a.ss;
  uint16_t port = port_of(t);
  if (port < 1024)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/forward '%s': port %u is privileged (a "
                         "relay forwards to ports 1024..65535 only)",
                         text, (unsigned)port);
  int own = 0;
  for (size_t i = 0; i < to->nown && !own; i++) {
    const struct sockaddr *s = (const struct sockaddr *)&to->own[i];
    own = same_addr(s, t) && port_of(s) == port;
  }
  if (own)
    return 0;
  if (!same_addr(t, to->peer))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/forward '%s': neither the session's own "
                         "address nor a service of this session (the agent "
                         "relays for the peer that asked, to no one else)",
                         text);
  if (passthrough)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/tcp-passthrough: only to a service of "
                         "this session (forward '%s' is not one)",
                         text);
  return 0;
}

/* One option of the request into argv, after the table's row allows it. */
static int add_option(const struct np_bench_optset *set, const cJSON *v,
                      cJSON *argv, struct np_errbuf *eb) {
  const char *name = v->string;
  for (size_t i = 0; i < sizeof agent_set / sizeof agent_set[0]; i++)
    if (strcmp(name, agent_set[i]) == 0)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "options/%s: set by the agent (the lifetime is "
                           "lifetime_seconds; records and output are the "
                           "agent's)",
                           name);
  int idx = np_bench_opt_find(set, name);
  if (idx < 0)
    return np_errbuf_set(eb, NP_EUSAGE, "options/%s: not an option of %s",
                         name, set->command);
  const struct np_bench_opt *o = np_bench_opt_at(set, (size_t)idx, NULL);
  if (o->flags & NP_BENCH_OPT_HELP)
    return np_errbuf_set(eb, NP_EUSAGE, "options/%s: not for a service", name);
  if (o->set == np_bench_opt_set_path)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/%s: names a file, and the agent opens no "
                         "file a peer names",
                         name);
  char text[300], flag[64];
  if (o->type == NP_BENCH_OPT_FLAG) {
    if (!cJSON_IsBool(v))
      return np_errbuf_set(eb, NP_EUSAGE, "options/%s: a flag (true or "
                           "false)", name);
    if (cJSON_IsFalse(v))
      return 0;
    snprintf(flag, sizeof flag, "--%s", name);
    cJSON_AddItemToArray(argv, cJSON_CreateString(flag));
    return 0;
  }
  if (cJSON_IsBool(v))
    return np_errbuf_set(eb, NP_EUSAGE, "options/%s: takes a value, not %s",
                         name, cJSON_IsTrue(v) ? "true" : "false");
  value_text(v, text, sizeof text);
  struct np_errbuf inner = {{0}};
  if (np_bench_opt_try(set, (size_t)idx, text, &inner) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "options/%s: %s", name, inner.msg);
  if (strcmp(name, "listen") == 0 && check_listen(name, text, eb) != 0)
    return NP_EUSAGE;
  snprintf(flag, sizeof flag, "--%s", name);
  cJSON_AddItemToArray(argv, cJSON_CreateString(flag));
  cJSON_AddItemToArray(argv, cJSON_CreateString(text));
  return 0;
}

/* The most a relay with these options may hold: per route its queue
 * capacity (0 = the relay's ceiling) and its socket's two buffers. */
static int relay_memory(int n, char **args, uint64_t max_memory,
                        struct np_errbuf *eb) {
  struct np_relay_cmd_config rc;
  int help = 0;
  struct np_errbuf inner = {{0}};
  if (np_relay_cmd_parse(n, args, &rc, &help, &inner) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "options: %s", inner.msg);
  double cap = rc.relay.capacity_bytes ? (double)rc.relay.capacity_bytes
                                       : (double)NP_RELAY_CAP_BYTES_MAX;
  double ask = (double)rc.net.max_routes *
               (cap + 2.0 * (double)rc.net.socket_buffer);
  if (ask > (double)max_memory)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options: max-routes %u x (relay-capacity-bytes "
                         "%.0f + 2 x socket-buffer %d) = %.0f bytes, over the "
                         "agent's --max-service-memory-bytes %llu",
                         rc.net.max_routes, cap, rc.net.socket_buffer, ask,
                         (unsigned long long)max_memory);
  return 0;
}

/* The most a rudp-serve with these options may hold: per connection its
 * FEC budget (with FEC) and both ARQ windows of MTU-sized datagrams,
 * plus its socket's two buffers. */
static int rudp_memory(int n, char **args, uint64_t max_memory,
                       struct np_errbuf *eb) {
  struct np_rudp_config rc;
  int help = 0;
  struct np_errbuf inner = {{0}};
  if (np_bench_opt_parse(&np_rudp_serve_optset, n, args, &rc, &help,
                         &inner) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "options: %s", inner.msg);
  double per = (double)(rc.arq.snd_wnd + rc.arq.rcv_wnd) * rc.arq.mtu +
               (rc.fec != NP_RUDP_FEC_NONE ? (double)rc.fec_cfg.budget : 0);
  double ask = rc.clients * per + 2.0 * (double)rc.socket_buffer;
  if (ask > (double)max_memory)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options: clients %u x (FEC budget + ARQ windows "
                         "%.0f bytes) + 2 x socket-buffer %d = %.0f bytes, "
                         "over the agent's --max-service-memory-bytes %llu",
                         rc.clients, per, rc.socket_buffer, ask,
                         (unsigned long long)max_memory);
  return 0;
}

int np_agent__allow(enum np_agent_kind kind, const cJSON *options,
                    double lifetime, double remaining, uint64_t max_memory,
                    const struct np_agent_targets *to, cJSON **argv_out,
                    const char **listen, struct np_errbuf *eb) {
  const struct np_bench_optset *set =
      kind == NP_AGENT_SERVE        ? &np_udp_serve_optset
      : kind == NP_AGENT_RUDP_SERVE ? &np_rudp_serve_optset
                                    : &np_relay_cmd_optset;
  if (!(lifetime > 0) || lifetime > remaining)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "lifetime_seconds %g: over the agent's bound (%.1f s "
                         "left of its --max-seconds)",
                         lifetime, remaining);
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(options, "listen");
  if (!cJSON_IsString(l))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/listen: required (ADDR:PORT, an address of "
                         "this host)");
  if (kind == NP_AGENT_RELAY &&
      !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(options, "forward")))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "options/forward: required for a relay (ADDR:PORT)");
  cJSON *argv = cJSON_CreateArray();
  if (argv == NULL ||
      !cJSON_AddItemToArray(argv, cJSON_CreateString(set->command)))
    goto oom;
  const cJSON *v;
  cJSON_ArrayForEach(v, options) {
    int rc = add_option(set, v, argv, eb);
    if (rc) {
      cJSON_Delete(argv);
      return rc;
    }
  }
  /* where a relay sends, once every option passed on its own */
  if (kind == NP_AGENT_RELAY &&
      check_forward(cJSON_GetObjectItemCaseSensitive(options, "forward")
                        ->valuestring,
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                        options, "tcp-passthrough")),
                    to, eb) != 0) {
    cJSON_Delete(argv);
    return NP_EUSAGE;
  }
  if (cJSON_GetArraySize(argv) > NP_AGENT_ARGS_MAX - 12) {
    cJSON_Delete(argv);
    return np_errbuf_set(eb, NP_EUSAGE, "options: too many");
  }
  /* the whole command line through the command's parser: its cross-field
   * rules (io-model and io-threads, ...) with its own messages */
  char *args[NP_AGENT_ARGS_MAX + 8];
  int n = 0;
  const cJSON *a;
  cJSON_ArrayForEach(a, argv) args[n++] = a->valuestring;
  char ms[32];
  snprintf(ms, sizeof ms, "%.3f", lifetime);
  args[n++] = (char *)"--max-seconds";
  args[n++] = ms;
  if (kind == NP_AGENT_RELAY) { /* the agent's own file (not opened here) */
    args[n++] = (char *)"--stats-lines";
    args[n++] = (char *)"stats.jsonl";
  }
  args[n] = NULL;
  struct np_errbuf inner = {{0}};
  if (np_bench_opt_check(set, n, args, &inner) != 0) {
    cJSON_Delete(argv);
    return np_errbuf_set(eb, NP_EUSAGE, "options: %s", inner.msg);
  }
  if (kind == NP_AGENT_RUDP_SERVE &&
      rudp_memory(n, args, max_memory, eb) != 0) {
    cJSON_Delete(argv);
    return NP_EUSAGE;
  }
  if (kind == NP_AGENT_RELAY && relay_memory(n, args, max_memory, eb) != 0) {
    cJSON_Delete(argv);
    return NP_EUSAGE;
  }
  *argv_out = argv;
  *listen = l->valuestring;
  return 0;
oom:
  cJSON_Delete(argv);
  return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
}
