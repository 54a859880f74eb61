/*
 * np_kind.h - one descriptor per record kind, one registry.
 *
 * A record kind is what a run record's config.protocol names: udp,
 * udp-external (`udp --connect`), udp-stream (`udp --mode stream`),
 * serve, rudp, relay, exec.  Everything that chooses behaviour by kind -
 * the self-check (resultset/), the summary, the report - looks the kind up
 * here (np_kind_find) and reads its descriptor instead of comparing
 * protocol names.  What only one program may know is attached there
 * through a table keyed by the same enum np_kind_id (the self-check's
 * record checks: resultset/np_results_check_kinds.c), because model/
 * depends on nothing above it.
 *
 * Adding a kind: its folder in bench/ (engine, CLI), its pure part in
 * model/<kind>/ (option table, config, checks, record builder), one row
 * in np_kinds.c, its schema $defs; docs/architecture.md walks through it.
 */
#ifndef NP_KIND_H
#define NP_KIND_H

#include <stddef.h>

#include "np_bench_opt.h"
#include "np_err.h"

enum np_kind_id {
  NP_KIND_UDP,          /* loopback echo: our clients, our server        */
  NP_KIND_UDP_EXTERNAL, /* udp --connect: our clients, another server    */
  NP_KIND_UDP_STREAM,   /* udp --mode stream: one-way streams            */
  NP_KIND_SERVE,        /* serve: our server for another host's clients  */
  NP_KIND_RUDP,         /* reliable UDP through the emulating relay      */
  NP_KIND_RELAY,        /* the relay as its own process                  */
  NP_KIND_EXEC,         /* any program, its numbers and bounds           */
  NP_KIND_RUDP_SERVE,   /* rudp-serve: the rudp server endpoint alone
                           (the far part of rudp --agent)                */
  NP_KIND_N
};

/* How a suite's summary.json treats the kind's repetitions. */
enum np_kind_summary {
  NP_KIND_SUMMARY_ECHO,   /* round trips: the shared metrics, rankings   */
  NP_KIND_SUMMARY_ROUNDS, /* + each record's rounds (rudp's statistics)  */
  NP_KIND_SUMMARY_EXEC    /* + the declared metrics; nothing to rank by  */
};

/* Parse argv (argv[0] = command) into cfg (cfg_size bytes) as the
 * benchmark does; *help = 1 for --help.  0, or NP_EUSAGE with one line. */
typedef int np_kind_parse_fn(int argc, char **argv, void *cfg, int *help,
                             struct np_errbuf *eb);

struct np_kind {
  enum np_kind_id id;
  const char *protocol;  /* config.protocol                              */
  const char *command;   /* the netproof-bench subcommand that writes it
                            (argv[0] of config.command)                  */
  const struct np_bench_optset *options; /* the command's option table,
                            or NULL where it is the engine's (serve,
                            relay, rudp-serve: bench/)                               */
  np_kind_parse_fn *parse; /* options -> config, or NULL (see options)  */
  size_t cfg_size;       /* bytes parse writes                           */
  int loopback;          /* 1: every datagram is ours on this host, so the
                            kernel's counters must cover the record's
                            claims (the self-check's coverage rule)       */
  int external_server;   /* 1: the server is another program, named in the
                            record's "external" part (report titles)     */
  const char *in_process; /* what runs in the one benchmark process, in
                            the report's conditions ("clients and
                            server"), or NULL (external_server, exec)    */
  enum np_kind_summary summary; /* summary.json's treatment              */
};

/* The kind whose config.protocol is protocol, or NULL (an unknown kind:
 * the self-check checks only what every record has). */
const struct np_kind *np_kind_find(const char *protocol);

/* Kind id (0 <= id < NP_KIND_N). */
const struct np_kind *np_kind_at(enum np_kind_id id);

/* 1 when protocol (a config.protocol) names the kind id, else 0. */
int np_kind_is(const char *protocol, enum np_kind_id id);

/* 1 when a plan of plan_protocol writes records of kind k (udp plans
 * write udp, udp-external and udp-stream records), else 0. */
int np_kind_in_plan(const struct np_kind *k, const char *plan_protocol);

#endif /* NP_KIND_H */
