/*
 * np_udp_options.c - the option table of `netproof-bench udp` and the rules
 * a table cannot express (see np_udp_options.h).  Ranges here are the
 * command's; the matrix reads this table for plan checks, argv, ids and
 * defaults, so a plan is refused exactly when the child would be.
 */
#include "np_udp_options.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "np_agent_relay_args.h"
#include "np_udp_msg.h"
#include "np_udp_rows.h"

/* CHOICE rows store the index as the enum value. */
_Static_assert(sizeof(enum np_udp_io_model) == sizeof(int), "enum size");
_Static_assert(sizeof(enum np_udp_backend) == sizeof(int), "enum size");

#define CFG struct np_udp_config

static int set_address(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  if (strlen(v->text) >= sizeof cfg->address)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s '%s': too long", o->name,
                         v->text);
  snprintf(cfg->address, sizeof cfg->address, "%s", v->text);
  cfg->family = (int)v->u;
  return 0;
}

/* --connect / --agent HOST:PORT (checked by the row's type, so a plan's
 * value is refused in the command's words): the text, and the target's
 * address, family and port (--agent's port is the agent's until the far
 * server is started, bench/agent/np_agent_udp.c). */
static int set_connect(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  np_udp_config_peer(sec, &v->addr);
  return np_bench_opt_put(o, sec, v, eb);
}

/* Canonical order: the id is p, c, w, io-model, backend, then the rest. */
static const struct np_bench_opt udp_opts[] = {
    {.name = "payload", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = NP_UDP_MAX_PAYLOAD_V6,
     .range_text = "1..65507 (IPv4: 65,535 - 20 - 8 = 65,507) or 1..65527 "
                   "(IPv6: 65,535 - 8 = 65,527)",
     .dflt = "1024", .help = "payload bytes", NP_BENCH_AT(CFG, payload),
     .tag = "p", .flags = NP_BENCH_OPT_CORE},
    {.name = "clients", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 4096,
     .dflt = "16", .help = "client sockets", NP_BENCH_AT(CFG, clients),
     .tag = "c", .flags = NP_BENCH_OPT_CORE},
    {.name = "window", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 65536,
     .dflt = "1",
     .help = "outstanding messages per client (at most 2^(8 x payload) "
             "below 8 bytes)",
     NP_BENCH_AT(CFG, window), .tag = "w", .flags = NP_BENCH_OPT_CORE},
    {.name = "io-model", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_udp_io_model_names, .dflt = "single", .metavar = "M",
     .help = "loops: one; server + clients; a pool; SO_REUSEPORT per loop; "
             "a connected server socket per client",
     NP_BENCH_AT(CFG, io_model), .tag = "",
     .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_COMPARE},
    NP_UDP_ROW_BACKEND,
    NP_UDP_ROW_IO_THREADS,
    NP_UDP_ROW_WORK,
    {.name = "warmup", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 60,
     .unit = "s", .dflt = "0.25", .help = "warm-up seconds (0 = none)",
     NP_BENCH_AT(CFG, warmup), .tag = "wu"},
    {.name = "seconds", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 3600, .unit = "s", .dflt = "1", .help = "measurement seconds",
     NP_BENCH_AT(CFG, seconds), .tag = "s"},
    NP_UDP_ROW_SEND_BUFFER,
    NP_UDP_ROW_RECEIVE_BUFFER,
    {.name = "udp-server-receive-buffer", .type = NP_BENCH_OPT_SIZE,
     .umin = 1, .umax = INT32_MAX, .metavar = "N",
     .help = "SO_RCVBUF of server sockets (default: --udp-receive-buffer)",
     NP_BENCH_AT(CFG, server_receive_buffer), .tag = "srb"},
    {.name = "address", .type = NP_BENCH_OPT_ADDR, .dflt = "127.0.0.1",
     .metavar = "A", .help = "literal address to use: 127.0.0.1 or ::1",
     NP_BENCH_AT(CFG, address), .set = set_address, .tag = ""},
    {.name = "seed", .type = NP_BENCH_OPT_UINT, .umin = 0,
     .umax = UINT64_MAX, .dflt = "1", .help = "payload generator seed",
     NP_BENCH_AT(CFG, seed), .tag = "seed"},
    {.name = "connect", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "HOST:PORT",
     .help = "client side only, against the UDP echo server at HOST:PORT "
             "(literal IPv4 or [IPv6]); see docs/guides/your-stack.md",
     NP_BENCH_AT(CFG, connect), .set = set_connect, .tag = "to"},
    {.name = "agent", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "HOST:PORT",
     .help = "across hosts: the netproof-bench agent at HOST:PORT starts "
             "the echo server there, the clients run here; see docs/agent.md",
     NP_BENCH_AT(CFG, agent), .set = set_connect, .tag = "ag"},
    {.name = "token-file", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "with --agent: the shared secret (64+ hex digits, mode 0600)",
     NP_BENCH_AT(CFG, token_file), .set = np_bench_opt_set_path,
     .tag = "tf"},
    {.name = "agent-relay", .type = NP_BENCH_OPT_STR,
     .metavar = "LIST",
     .help = "with --agent: the agent also starts a relay on its host in "
             "front of its server, with the relay options of LIST "
             "(NAME=VALUE,...: loss-percent=5,delay-ms=20); the clients send "
             "through it and its record comes back in far.relay",
     NP_BENCH_AT(CFG, agent_relay), .set = np_agent_udp_relay_opt_set, .tag = "ar"},
    {.name = "count-syscalls", .type = NP_BENCH_OPT_FLAG,
     .help = "record system calls (raw, uring) and context switches per "
             "round trip",
     NP_BENCH_AT(CFG, count_syscalls), .flags = NP_BENCH_OPT_NOPLAN},
};

static const struct np_bench_opt runner_opts[] = {
    NP_BENCH_OPT_RUNNER_ROWS(CFG),
};

static const struct np_bench_opt_section udp_sections[] = {
    {NULL, udp_opts, sizeof udp_opts / sizeof udp_opts[0], 0},
    {"offered load:", np_udp_load_opts, NP_UDP_LOAD_NOPTS, 0},
    {NULL, runner_opts, sizeof runner_opts / sizeof runner_opts[0], 0},
};

static void udp_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

/* Payload limits per family (with the arithmetic), then the window a
 * short payload's sequence bits can tell apart. */
static int check_payload(const CFG *cfg, struct np_errbuf *eb) {
  uint32_t max = cfg->family == AF_INET6 ? NP_UDP_MAX_PAYLOAD_V6
                                         : NP_UDP_MAX_PAYLOAD_V4;
  if (cfg->payload < 1 || cfg->payload > max)
    return np_errbuf_set(
        eb, NP_EUSAGE, "--payload %" PRIu32 ": out of range 1..%" PRIu32
        " for %s (%s)", cfg->payload, max,
        cfg->family == AF_INET6 ? "IPv6" : "IPv4",
        cfg->family == AF_INET6
            ? "65,535 - 8 = 65,527: the IPv6 payload length field counts "
              "the 8-byte UDP header, not the 40-byte IPv6 header"
            : "65,535 - 20 - 8 = 65,507: IPv4 total length minus 20-byte "
              "IPv4 header minus 8-byte UDP header");
  unsigned bits = np_udp_msg_seq_bits(cfg->payload);
  uint32_t inflight = np_udp_config_inflight(cfg);
  if (bits < 64 && (uint64_t)inflight > ((uint64_t)1 << bits))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s %" PRIu32 ": a %" PRIu32
                         "-byte payload carries %u sequence bits, so the "
                         "%s must be <= %" PRIu64,
                         cfg->rate > 0 ? "max-outstanding" : "window",
                         inflight, cfg->payload, bits,
                         cfg->rate > 0 ? "messages in flight" : "window",
                         (uint64_t)1 << bits);
  return 0;
}

/* --connect: the target decides the address; the options about our own
 * server have nothing to act on.  --agent: the far server is ours (the
 * agent starts it with --work and the server's buffers), its address is
 * the agent's. */
static int check_connect(CFG *cfg, const struct np_bench_given *g,
                         struct np_errbuf *eb) {
  static const char *const server_only[] = {"address", "work",
                                            "udp-server-receive-buffer"};
  const char *opt = cfg->agent ? "--agent" : "--connect";
  /* before any io-model rule: each side's rule alone sends the user back
   * and forth between two contradictory hints */
  if (cfg->traffic == NP_UDP_TRAFFIC_STREAM)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--mode stream: not with %s (a stream runs between "
                         "our own sender and receiver on loopback: --mode "
                         "stream --backend raw --io-model split; against "
                         "another server: %s in echo mode, --io-model single "
                         "or pool)", opt, opt);
  if (cfg->agent && cfg->connect)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--connect: not with --agent (the agent's server is "
                         "the target)");
  if (cfg->agent && cfg->token_file == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent: needs --token-file FILE (the shared "
                         "secret)");
  if (np_bench_opt_given(&np_udp_optset, g, "count-syscalls"))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--count-syscalls: not with %s (the udp-external "
                         "record has no syscalls part)", opt);
  for (size_t i = 0; i < (cfg->agent ? 1 : 3); i++)
    if (np_bench_opt_given(&np_udp_optset, g, server_only[i]))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--%s: with %s the server is not ours (the "
                           "address is the target's)",
                           server_only[i], opt);
  if (cfg->io_model == NP_UDP_IO_SPLIT || cfg->io_model == NP_UDP_IO_REUSEPORT ||
      cfg->io_model == NP_UDP_IO_CONNECTED)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-model %s: places our own server; with "
                         "--connect use single or pool",
                         np_udp_io_model_name(cfg->io_model));
  cfg->mode = NP_UDP_MODE_CLIENT;
  return 0;
}

static int udp_validate(void *p, const struct np_bench_given *g,
                        struct np_errbuf *eb) {
  CFG *cfg = p;
  int rc;
  cfg->mode = NP_UDP_MODE_LOOPBACK;
  if ((cfg->connect != NULL || cfg->agent != NULL) &&
      (rc = check_connect(cfg, g, eb)) != 0)
    return rc;
  if (cfg->token_file != NULL && cfg->agent == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--token-file: only with --agent HOST:PORT");
  if (cfg->agent_relay != NULL && cfg->agent == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent-relay: only with --agent HOST:PORT (a "
                         "local relay is `netproof-bench relay`)");
  cfg->server_receive_buffer_set =
      np_bench_opt_given(&np_udp_optset, g, "udp-server-receive-buffer");
  if (!cfg->server_receive_buffer_set)
    cfg->server_receive_buffer = cfg->receive_buffer;
  if (np_bench_opt_given(&np_udp_optset, g, "io-threads") &&
      cfg->io_threads != np_udp_config_lanes(cfg) &&
      (cfg->io_model == NP_UDP_IO_SINGLE || cfg->io_model == NP_UDP_IO_SPLIT))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-threads %" PRIu32 ": the %s model uses %" PRIu32
                         " thread(s); use pool, reuseport or connected for "
                         "more",
                         cfg->io_threads, np_udp_io_model_name(cfg->io_model),
                         np_udp_config_lanes(cfg));
  if ((rc = np_udp_load_validate(cfg, g, eb)) != 0)
    return rc;
  return check_payload(cfg, eb);
}

const struct np_bench_optset np_udp_optset = {
    .command = "udp",
    .summary = "UDP echo benchmark over loopback: clients keep --window "
               "messages\noutstanding, the server echoes, every reply is "
               "checked; loss is\nmatched against the kernel's per-socket "
               "drop counters.\n",
    .doc = "docs/udp-benchmark.md",
    .sections = udp_sections,
    .nsections = sizeof udp_sections / sizeof udp_sections[0],
    .cfg_size = sizeof(CFG),
    .init = udp_init,
    .validate = udp_validate,
};
