/*
 * np_relay_cmd_options.c - the option table of `netproof-bench relay`
 * (see np_relay_cmd.h) and its cross-field rules.  The impairment rows,
 * --profile and --seed are the relay library's own rows
 * (np_relay_options.c), composed as they are, so the names, ranges and
 * defaults are the ones rudp's relay takes.
 */
#include "np_relay_cmd.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#define CFG struct np_relay_cmd_config
#define NET offsetof(CFG, net)

/* --listen / --forward: ADDR:PORT (checked by the row's type; port 0 =
 * any for --listen only) into the relay's sockaddr; the text into the
 * row's *_text field. */
static int set_addr(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  int is_listen = strcmp(o->name, "listen") == 0;
  struct sockaddr_storage *to = is_listen ? &cfg->net.listen
                                          : &cfg->net.forward;
  memcpy(to, &v->addr.ss, sizeof *to);
  return np_bench_opt_put(o, sec, v, eb);
}

static const struct np_bench_opt net_opts[] = {
    {.name = "listen", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .range_text = "literal IPv4, or [IPv6], and a port",
     .help = "where clients send (UDP; TCP too with --tcp-passthrough); "
             "required",
     NP_BENCH_AT(CFG, listen_text), .set = set_addr,
     .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_ANYPORT},
    {.name = "forward", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .range_text = "literal IPv4, or [IPv6], and a port",
     .help = "the server; same family as --listen; required",
     NP_BENCH_AT(CFG, forward_text), .set = set_addr,
     .flags = NP_BENCH_OPT_CORE},
    {.name = "max-routes", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = NP_RELAY_MAX_ROUTES, .dflt = "64",
     .help = "client source addresses served; later ones are refused "
             "and counted",
     NP_BENCH_AT(CFG, net.max_routes), .tag = "routes"},
    {.name = "route-idle-seconds", .type = NP_BENCH_OPT_NUM, .min = 0,
     .max = NP_RELAY_CMD_MAX_SECONDS, .unit = "s", .dflt = "30",
     .help = "a route with no datagram either way this long (and nothing "
             "queued) expires and frees its slot, like a NAT binding; "
             "0 = never",
     NP_BENCH_AT(CFG, net.route_idle_seconds), .tag = "idle"},
    {.name = "max-memory-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 65536,
     .umax = UINT64_MAX, .dflt = "268435456", .metavar = "N",
     .help = "pool memory (2 KiB chunks) of the copies queued over all "
             "routes together; a copy past it is dropped as its route's "
             "overflow and counted",
     NP_BENCH_AT(CFG, net.max_memory_bytes), .tag = "mem"},
    {.name = "max-seconds", .type = NP_BENCH_OPT_NUM, .min = 0,
     .min_open = 1, .max = NP_RELAY_CMD_MAX_SECONDS, .unit = "s",
     .dflt = "600", .help = "hard upper bound on the relay's lifetime",
     NP_BENCH_AT(CFG, max_seconds), .tag = "max"},
    {.name = "stats-interval", .type = NP_BENCH_OPT_NUM, .min = 0.05,
     .max = 3600, .unit = "s", .dflt = "1",
     .help = "append a statistics line this often (with --stats-lines)",
     NP_BENCH_AT(CFG, stats_interval), .tag = "si"},
    {.name = "stats-lines", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "append JSON lines of statistics here (netproof/relay-stats/1)",
     NP_BENCH_AT(CFG, stats_lines), .set = np_bench_opt_set_path,
     .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "socket-buffer", .type = NP_BENCH_OPT_SIZE, .umin = 4096,
     .umax = INT32_MAX, .dflt = "4194304", .metavar = "N",
     .help = "SO_RCVBUF/SO_SNDBUF of the relay's UDP sockets",
     NP_BENCH_AT(CFG, net.socket_buffer), .tag = "sb"},
    {.name = "tcp-passthrough", .type = NP_BENCH_OPT_FLAG,
     .help = "accept TCP on --listen and forward it unimpaired",
     NP_BENCH_AT(CFG, net.tcp_passthrough), .tag = "tcp"},
    {.name = "tcp-max-connections", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 1024, .dflt = "16",
     .help = "TCP connections at once; more are refused and counted",
     NP_BENCH_AT(CFG, net.tcp_max_connections), .tag = "tcpc"},
    {.name = "tcp-max-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 1,
     .umax = UINT64_MAX, .dflt = "1073741824", .metavar = "N",
     .help = "bytes per TCP connection, both ways; then it is closed",
     NP_BENCH_AT(CFG, net.tcp_max_bytes), .tag = "tcpb"},
    {.name = "tcp-idle-seconds", .type = NP_BENCH_OPT_NUM, .min = 0,
     .max = NP_RELAY_CMD_MAX_SECONDS, .unit = "s", .dflt = "30",
     .help = "a TCP connection one side has closed and the other has not "
             "finished this long after is closed, its slot freed; 0 = never",
     NP_BENCH_AT(CFG, net.tcp_idle_seconds), .tag = "tcpi"},
};

static const struct np_bench_opt runner_opts[] = {
    {.name = "record", .type = NP_BENCH_OPT_STR, .dflt = "-",
     .metavar = "FILE", .help = "the record written on exit; - = stdout",
     NP_BENCH_AT(CFG, output), .set = np_bench_opt_set_path,
     .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the same as --record (every command takes --output)",
     NP_BENCH_AT(CFG, output), .set = np_bench_opt_set_path,
     .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "summary", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_bench_summary_choices, .dflt = "text", .metavar = "KIND",
     .help = "json: one-object summary on stdout (instead of the record "
             "when no --record is given)",
     NP_BENCH_AT(CFG, summary), .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "quiet", .type = NP_BENCH_OPT_FLAG,
     .help = "no ready line and no summary on stderr",
     NP_BENCH_AT(CFG, quiet), .flags = NP_BENCH_OPT_NOPLAN},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .help = "this text",
     .flags = NP_BENCH_OPT_NOPLAN | NP_BENCH_OPT_HELP},
};

#define N(a) (sizeof a / sizeof a[0])
#define RELAY offsetof(CFG, relay)
static const struct np_bench_opt_section cmd_sections[] = {
    {NULL, net_opts, N(net_opts), 0},
    {"link emulation, both directions (docs/relay.md):", np_relay_profile_opts,
     1, RELAY},
    {NULL, np_relay_impair_opts, NP_RELAY_IMPAIR_NOPTS, RELAY},
    {NULL, np_relay_seed_opts, 1, RELAY},
    {"output:", runner_opts, N(runner_opts), 0},
};

static void cmd_init(void *p) {
  CFG *cfg = p;
  memset(cfg, 0, sizeof *cfg);
  np_relay_config_init(&cfg->relay);
}

static int cmd_validate(void *p, const struct np_bench_given *g,
                        struct np_errbuf *eb) {
  CFG *cfg = p;
  const struct np_bench_optset *s = &np_relay_cmd_optset;
  if (!np_bench_opt_given(s, g, "listen"))
    return np_errbuf_set(eb, NP_EUSAGE, "--listen ADDR:PORT is required");
  if (!np_bench_opt_given(s, g, "forward"))
    return np_errbuf_set(eb, NP_EUSAGE, "--forward ADDR:PORT is required");
  if (cfg->net.listen.ss_family != cfg->net.forward.ss_family)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--forward %s: not the address family of --listen "
                         "%s", cfg->forward_text, cfg->listen_text);
  if (np_bench_opt_given(s, g, "stats-interval") && cfg->stats_lines == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--stats-interval: needs --stats-lines FILE");
  if (!cfg->net.tcp_passthrough &&
      (np_bench_opt_given(s, g, "tcp-max-connections") ||
       np_bench_opt_given(s, g, "tcp-max-bytes") ||
       np_bench_opt_given(s, g, "tcp-idle-seconds")))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--tcp-max-*, --tcp-idle-seconds: only with "
                         "--tcp-passthrough");
  return np_relay_config_validate(&cfg->relay, eb);
}

const struct np_bench_optset np_relay_cmd_optset = {
    .command = "relay",
    .summary = "The link emulator as a standalone process, for any UDP "
               "transport: clients\nsend to --listen, the relay forwards to "
               "--forward with loss, delay,\nduplication, reordering, rate "
               "and capacity, one route per client source\naddress.  Ends "
               "at --max-seconds or on SIGINT/SIGTERM and writes its record.\n",
    .doc = "docs/relay.md",
    .exits = "exit: 0 ended (--max-seconds, SIGINT or SIGTERM) with every "
             "check passed,\n"
             "      1 a check failed (record written, status failed), 2 "
             "usage,\n"
             "      3 environment/run-time error (e.g. the address is in "
             "use)\n",
    .sections = cmd_sections,
    .nsections = N(cmd_sections),
    .cfg_size = sizeof(CFG),
    .init = cmd_init,
    .validate = cmd_validate,
};

int np_relay_cmd_parse(int argc, char **argv, struct np_relay_cmd_config *cfg,
                       int *help, struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_relay_cmd_optset, argc, argv, cfg, help, eb);
}
