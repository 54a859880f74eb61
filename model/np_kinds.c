/*
 * np_kinds.c - the registry of record kinds (see np_kind.h): one row per
 * kind, in enum order.
 */
#include "np_kind.h"

#include <string.h>

#include "np_exec_options.h"
#include "np_rudp_config.h"
#include "np_rudp_options.h"
#include "np_udp_config.h"
#include "np_udp_options.h"

static int parse_udp(int argc, char **argv, void *cfg, int *help,
                     struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_udp_optset, argc, argv, cfg, help, eb);
}

static int parse_rudp(int argc, char **argv, void *cfg, int *help,
                      struct np_errbuf *eb) {
  return np_rudp_config_parse(argc, argv, cfg, help, eb);
}

#define UDP_PARSE .options = &np_udp_optset, .parse = parse_udp, \
                  .cfg_size = sizeof(struct np_udp_config)

static const struct np_kind kinds[NP_KIND_N] = {
    {.id = NP_KIND_UDP, .protocol = "udp", .command = "udp", UDP_PARSE,
     .loopback = 1, .in_process = "clients and server"},
    {.id = NP_KIND_UDP_EXTERNAL, .protocol = "udp-external",
     .command = "udp", UDP_PARSE, .external_server = 1},
    {.id = NP_KIND_UDP_STREAM, .protocol = "udp-stream", .command = "udp",
     UDP_PARSE, .in_process = "sender and receiver"},
    {.id = NP_KIND_SERVE, .protocol = "serve", .command = "serve"},
    {.id = NP_KIND_RUDP, .protocol = "rudp", .command = "rudp",
     .options = &np_rudp_optset, .parse = parse_rudp,
     .cfg_size = sizeof(struct np_rudp_config), .loopback = 1,
     .in_process = "clients, server and the emulating relay",
     .summary = NP_KIND_SUMMARY_ROUNDS},
    {.id = NP_KIND_RELAY, .protocol = "relay", .command = "relay"},
    {.id = NP_KIND_EXEC, .protocol = "exec", .command = "exec",
     .options = &np_exec_optset, .summary = NP_KIND_SUMMARY_EXEC},
    {.id = NP_KIND_RUDP_SERVE, .protocol = "rudp-serve",
     .command = "rudp-serve"},
};

const struct np_kind *np_kind_find(const char *protocol) {
  for (size_t i = 0; protocol != NULL && i < NP_KIND_N; i++)
    if (strcmp(kinds[i].protocol, protocol) == 0)
      return &kinds[i];
  return NULL;
}

const struct np_kind *np_kind_at(enum np_kind_id id) {
  return (unsigned)id < NP_KIND_N ? &kinds[id] : NULL;
}

int np_kind_is(const char *protocol, enum np_kind_id id) {
  const struct np_kind *k = np_kind_find(protocol);
  return k != NULL && k->id == id;
}

int np_kind_in_plan(const struct np_kind *k, const char *plan_protocol) {
  return k != NULL && plan_protocol != NULL &&
         (strcmp(k->protocol, plan_protocol) == 0 ||
          strcmp(k->command, plan_protocol) == 0);
}
