/*
 * np_agent_options.c - the option table of `netproof-bench agent` (one
 * row per fact: it drives the parser, --help, the man page and the
 * completion) and its rules.
 */
#include <string.h>

#include "np_agent.h"

#define CFG struct np_agent_config

/* --listen ADDR:PORT (checked by the row's type, port 0 = any: the
 * kernel picks, printed): the text and the address. */
static int set_listen(void *sec, const struct np_bench_opt *o,
                      const struct np_bench_val *v, struct np_errbuf *eb) {
  ((CFG *)sec)->listen_addr = v->addr;
  return np_bench_opt_put(o, sec, v, eb);
}

static const struct np_bench_opt agent_opts[] = {
    {.name = "listen", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .help = "where the control channel listens (required; TCP): "
             "10.0.0.2:7000, [fd00::2]:7000; port 0 = any (printed)",
     NP_BENCH_AT(CFG, listen), .set = set_listen,
     .flags = NP_BENCH_OPT_ANYPORT},
    {.name = "token-file", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the shared secret (required): 64+ hex digits, mode 0600, "
             "owned by this user (openssl rand -hex 32)",
     NP_BENCH_AT(CFG, token_file), .set = np_bench_opt_set_path},
    {.name = "max-seconds", .type = NP_BENCH_OPT_NUM, .min = 0,
     .min_open = 1, .max = 604800, .unit = "s",
     .help = "stop after this long (required: an agent never runs "
             "unbounded; services' lifetimes fit inside it)",
     NP_BENCH_AT(CFG, max_seconds)},
    {.name = "max-connections", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 64, .dflt = "4",
     .help = "authenticated sessions at once (more are refused)",
     NP_BENCH_AT(CFG, max_connections)},
    {.name = "max-pending", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 64, .dflt = "16",
     .help = "unauthenticated connections at once (a new one closes the "
             "oldest)",
     NP_BENCH_AT(CFG, max_pending)},
    {.name = "max-pending-per-address", .type = NP_BENCH_OPT_UINT,
     .umin = 1, .umax = 64, .dflt = "4",
     .help = "unauthenticated connections from one address at once (more "
             "are refused, each a failed attempt)",
     NP_BENCH_AT(CFG, max_pending_per_address)},
    {.name = "max-messages", .type = NP_BENCH_OPT_UINT, .umin = 4,
     .umax = 1000000, .dflt = "10000",
     .help = "messages per session (the session ends at the limit)",
     NP_BENCH_AT(CFG, max_messages)},
    {.name = "max-services", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 64, .dflt = "4", .help = "services running at once",
     NP_BENCH_AT(CFG, max_services)},
    {.name = "handshake-seconds", .type = NP_BENCH_OPT_NUM, .min = 0.05,
     .max = 60, .unit = "s", .dflt = "2",
     .help = "from accepting a connection to its welcome (TLS and hello)",
     NP_BENCH_AT(CFG, handshake_seconds)},
    {.name = "message-seconds", .type = NP_BENCH_OPT_NUM, .min = 0.05,
     .max = 600, .unit = "s", .dflt = "10",
     .help = "from a message's first byte to its last (slow senders are cut "
             "off)",
     NP_BENCH_AT(CFG, message_seconds)},
    {.name = "max-failures", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 1000, .dflt = "5",
     .help = "failed attempts from one address before it is locked out",
     NP_BENCH_AT(CFG, max_failures)},
    {.name = "lockout-seconds", .type = NP_BENCH_OPT_NUM, .min = 0.1,
     .max = 86400, .unit = "s", .dflt = "60",
     .help = "how long failures are remembered and a locked-out address "
             "refused",
     NP_BENCH_AT(CFG, lockout_seconds)},
    {.name = "session-idle-seconds", .type = NP_BENCH_OPT_NUM, .min = 0.1,
     .max = 86400, .unit = "s", .dflt = "60",
     .help = "a session with no message this long while none of its "
             "services runs is ended (its services stopped)",
     NP_BENCH_AT(CFG, session_idle_seconds)},
    {.name = "max-output-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 65540,
     .umax = 1ull << 26, .dflt = "262144", .metavar = "B",
     .help = "responses queued for one session (a peer that does not read "
             "is ended when they fill it)",
     NP_BENCH_AT(CFG, max_output_bytes)},
    {.name = "max-service-memory-bytes", .type = NP_BENCH_OPT_SIZE,
     .umin = 1ull << 20, .umax = 1ull << 40, .dflt = "1073741824",
     .metavar = "B",
     .help = "the most one service may hold: a relay's max-routes x "
             "(queue capacity + 2 x socket buffer); the default fits a "
             "default relay",
     NP_BENCH_AT(CFG, max_service_memory_bytes)},
    {.name = "quiet", .type = NP_BENCH_OPT_FLAG,
     .help = "no log lines on stderr", NP_BENCH_AT(CFG, quiet)},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .help = "this text",
     .flags = NP_BENCH_OPT_HELP},
};

static const struct np_bench_opt_section agent_sections[] = {
    {NULL, agent_opts, sizeof agent_opts / sizeof agent_opts[0], 0},
};

static void agent_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

static int agent_validate(void *p, const struct np_bench_given *g,
                          struct np_errbuf *eb) {
  CFG *cfg = p;
  (void)g;
  if (cfg->listen == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--listen ADDR:PORT is required");
  if (cfg->token_file == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--token-file FILE is required");
  if (!(cfg->max_seconds > 0))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--max-seconds S is required (an agent never runs "
                         "unbounded)");
  return 0;
}

const struct np_bench_optset np_agent_optset = {
    .command = "agent",
    .summary =
        "The far end of a cross-host run: an authenticated control channel "
        "(TCP,\nTLS 1.3 with a pre-shared key derived from a shared token, "
        "length-prefixed\nJSON inside) through which udp --agent starts an "
        "echo server (serve) or\na relay here, reads this host's kernel "
        "counters and the services' records.\nOnly an allowlist of actions; "
        "no command is run, no file a peer names is\nopened.  Stops at "
        "--max-seconds or on SIGINT/SIGTERM (its normal ends: exit 0).\n",
    .doc = "docs/agent.md",
    .exits = "exit: 0 ended (--max-seconds, SIGINT or SIGTERM), 2 usage or a "
             "refused token\n"
             "      file, 3 environment/run-time error (e.g. the address is "
             "in use)\n",
    .sections = agent_sections,
    .nsections = sizeof agent_sections / sizeof agent_sections[0],
    .cfg_size = sizeof(CFG),
    .init = agent_init,
    .validate = agent_validate,
};

int np_agent_parse(int argc, char **argv, struct np_agent_config *cfg,
                   int *help, struct np_errbuf *eb) {
  return np_bench_opt_parse(&np_agent_optset, argc, argv, cfg, help, eb);
}
