/*
 * np_rudp_options.c - the option table of `netproof-bench rudp` and the
 * rules a table cannot express (see np_rudp_options.h).  The relay's
 * impairment rows are composed, not copied: np_relay_options.c owns their
 * names, ranges and meaning.  --seed is ours (the relay gets seed, seed +
 * 1, ... per round), so the relay's own --seed row is not composed.
 */
#include "np_rudp_options.h"

#include "np_bench_intervals.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "np_agent_relay_args.h"
#include "np_opt.h"

/* CHOICE rows store the index as the enum value. */
_Static_assert(sizeof(enum np_rudp_io_model) == sizeof(int), "enum size");
_Static_assert(sizeof(enum np_rudp_fec) == sizeof(int), "enum size");
_Static_assert(sizeof(enum np_arq_delivery) == sizeof(int), "enum size");

#define CFG struct np_rudp_config
#define RELAY offsetof(CFG, relay)

static const char *const cc_names[] = {"bbr", "newreno", "none", NULL};
/* by enum np_arq_delivery value */
static const char *const delivery_names[] = {
    [NP_ARQ_ORDERED] = "ordered", [NP_ARQ_UNORDERED] = "unordered",
    [NP_ARQ_UNORDERED + 1] = NULL};

static int set_cc(void *sec, const struct np_bench_opt *o,
                  const struct np_bench_val *v, struct np_errbuf *eb) {
  if (np_arq_cc_parse(v->text, &((CFG *)sec)->arq.cc) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--%s '%s': not a controller",
                         o->name, v->text);
  return 0;
}

/* Milliseconds into the row's uint64_t nanosecond field. */
static int set_ms(void *sec, const struct np_bench_opt *o,
                  const struct np_bench_val *v, struct np_errbuf *eb) {
  uint64_t ns = (uint64_t)llround(v->d * 1e6);
  if (o->size != sizeof ns)
    return np_errbuf_set(eb, NP_EINVAL, "--%s: not a nanosecond field",
                         o->name);
  memcpy((char *)sec + o->offset, &ns, sizeof ns);
  return 0;
}

/* "auto" (*is_auto = 1) or milliseconds 0..60000 into *ns (*is_auto =
 * 0): the two reordering-window rows. */
static int auto_or_ms(const char *opt, const char *text, int *is_auto,
                      uint64_t *ns, struct np_errbuf *eb) {
  double ms = 0;
  if (strcmp(text, "auto") == 0) {
    *is_auto = 1;
    return 0;
  }
  if (np_opt_double(opt, text, "auto or milliseconds", 0, 0, 60000, &ms,
                    eb) != 0)
    return NP_EUSAGE;
  *is_auto = 0;
  *ns = (uint64_t)llround(ms * 1e6);
  return 0;
}

/* --reo-wnd-fec-ms: the FEC-protected window. */
static int set_reo_fec(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  (void)o;
  uint64_t ns = cfg->arq.reo_wnd_protected_ns;
  int rc = auto_or_ms("--reo-wnd-fec-ms", v->text, &cfg->reo_fec_auto, &ns,
                      eb);
  if (rc == 0 && !cfg->reo_fec_auto)
    cfg->arq.reo_wnd_protected_ns = ns;
  return rc;
}

/* --reo-wnd-max-ms: the row's own nanosecond field (set_ms's check). */
static int set_reo(void *sec, const struct np_bench_opt *o,
                   const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *cfg = sec;
  uint64_t ns = 0;
  int rc = auto_or_ms("--reo-wnd-max-ms", v->text, &cfg->reo_auto, &ns, eb);
  if (rc != 0 || cfg->reo_auto)
    return rc;
  struct np_bench_val w = *v;
  w.d = (double)ns / 1e6;
  return set_ms(sec, o, &w, eb);
}

/* An ADDR:PORT row (checked by the row's type): the text at the row's
 * field, and the address parsed into *at. */
static int put_addr(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v,
                    struct sockaddr_storage *at, struct np_errbuf *eb) {
  memcpy(at, &v->addr.ss, sizeof *at);
  return np_bench_opt_put(o, sec, v, eb);
}

/* --relay ADDR:PORT */
static int set_relay(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  return put_addr(sec, o, v, &((CFG *)sec)->relay_addr, eb);
}

/* --listen ADDR:PORT (rudp-serve) */
static int set_listen(void *sec, const struct np_bench_opt *o,
                      const struct np_bench_val *v, struct np_errbuf *eb) {
  return put_addr(sec, o, v, &((CFG *)sec)->listen_addr, eb);
}

/* --connect ADDR:PORT */
static int set_connect(void *sec, const struct np_bench_opt *o,
                       const struct np_bench_val *v, struct np_errbuf *eb) {
  return put_addr(sec, o, v, &((CFG *)sec)->connect_addr, eb);
}

#define UINT(nm, lo, hi, df, field, tg, what)                                \
  {.name = nm, .type = NP_BENCH_OPT_UINT, .umin = lo, .umax = hi,           \
   .dflt = df, .help = what, NP_BENCH_AT(CFG, field), .tag = tg}

static const struct np_bench_opt core_opts[] = {
    {.name = "payload", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = NP_RUDP_MAX_PAYLOAD, .dflt = "1024", .help = "message bytes",
     NP_BENCH_AT(CFG, payload), .tag = "p", .flags = NP_BENCH_OPT_CORE},
    {.name = "clients", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = NP_RUDP_MAX_CLIENTS, .dflt = "4", .help = "client connections",
     NP_BENCH_AT(CFG, clients), .tag = "c", .flags = NP_BENCH_OPT_CORE},
    {.name = "window", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 4096,
     .dflt = "16", .help = "messages in flight per client",
     NP_BENCH_AT(CFG, window), .tag = "w", .flags = NP_BENCH_OPT_CORE},
    {.name = "io-model", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_rudp_io_model_names, .dflt = "single", .metavar = "M",
     .help = "one loop, or a pool: server on loop 0, clients round-robin",
     NP_BENCH_AT(CFG, io_model), .tag = "", .flags = NP_BENCH_OPT_CORE},
    UINT("io-threads", 1, NP_RUDP_MAX_LANES, NULL, io_threads, "t",
         "loops for pool (default 1; 4 with --io-model pool)"),
    {.name = "fec", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_rudp_fec_names, .dflt = "none", .metavar = "F",
     .help = "forward error correction (docs/fec.md)", NP_BENCH_AT(CFG, fec),
     .tag = "fec", .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_COMPARE},
    {.name = "cc", .type = NP_BENCH_OPT_CHOICE, .choices = cc_names,
     .dflt = "bbr", .metavar = "C", .help = "congestion control",
     NP_BENCH_AT(CFG, arq.cc), .set = set_cc, .tag = "",
     .flags = NP_BENCH_OPT_CORE},
    {.name = "delivery", .type = NP_BENCH_OPT_CHOICE,
     .choices = delivery_names, .dflt = "ordered", .metavar = "D",
     .help = "messages in order, or each as soon as it is complete "
             "(needs --payload >= 12)",
     NP_BENCH_AT(CFG, arq.delivery), .tag = "", .flags = NP_BENCH_OPT_COMPARE},
};

/* The relay's profile, with rudp's default (the reference ran "random"). */
static const struct np_bench_opt profile_opts[] = {
    {.name = "profile", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_relay_profile_names, .dflt = "random",
     .help = "the relay's link profile, applied before its other options",
     NP_BENCH_AT(struct np_relay_config, profile),
     .set = np_relay_opt_profile, .tag = "",
     .flags = NP_BENCH_OPT_CORE | NP_BENCH_OPT_FIRST},
};

static const struct np_bench_opt transport_opts[] = {
    UINT("fec-group", 1, NP_FEC_MAX_GROUP, "8", fec_cfg.group, "fg",
         "data datagrams per FEC group"),
    UINT("fec-parity", 0, NP_FEC_MAX_PARITY, "2", fec_cfg.parity, "fp",
         "parity per group, fixed mode"),
    UINT("fec-window", 1, NP_FEC_WIN_MAX_W, "16", fec_cfg.window, "fw",
         "source datagrams a repair covers, --fec window"),
    {.name = "fec-wait-ms", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 1000, .unit = "ms", .metavar = "MS", .dflt = "2",
     .help = "an open group waits at most this long",
     NP_BENCH_AT(CFG, fec_cfg.wait_ns), .set = set_ms, .tag = "fwait"},
    {.name = "fec-budget-bytes", .type = NP_BENCH_OPT_SIZE, .umin = 2400,
     .umax = (uint64_t)1 << 32, .dflt = "1048576", .metavar = "N",
     .help = "retained bytes per endpoint (at least 2 x --mtu)",
     NP_BENCH_AT(CFG, fec_cfg.budget), .tag = "fb"},
    UINT("fec-ratio-percent", 1, 400, "50", fec_cfg.ratio_pct, "fr",
         "parity bytes at most this % of data bytes"),
    {.name = "fec-target", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 0.5, .metavar = "P", .dflt = "0.05",
     .help = "adaptive: target P(group unrecoverable)",
     NP_BENCH_AT(CFG, fec_cfg.policy.target), .tag = "ftarget"},
    UINT("fec-min-parity", 0, NP_FEC_MAX_PARITY, "0", fec_cfg.policy.min_m,
         "fmin", "adaptive: fewest parity per group"),
    UINT("fec-max-parity", 0, NP_FEC_MAX_PARITY, "4", fec_cfg.policy.max_m,
         "fmax", "adaptive: most parity per group"),
    UINT("fec-initial-parity", 0, NP_FEC_MAX_PARITY, "1",
         fec_cfg.policy.initial_m, "finit",
         "adaptive: before the first loss report (clamped to min..max)"),
    UINT("mtu", 64, 65507, "1200", arq.mtu, "mtu",
         "protocol MTU, UDP payload bytes"),
    {.name = "min-rto-ms", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 60000, .unit = "ms", .metavar = "MS", .dflt = "100",
     .help = "RTO floor", NP_BENCH_AT(CFG, arq.min_rto_ns), .set = set_ms,
     .tag = "rto"},
    {.name = "reo-wnd-max-ms", .type = NP_BENCH_OPT_STR, .metavar = "MS",
     .range_text = "auto | 0..60000", .dflt = "auto",
     .help = "cap on RACK's reordering window; auto: none, and FEC wait + "
             "3 ms for fragments whose FEC group carried parity",
     NP_BENCH_AT(CFG, arq.reo_wnd_max_ns), .set = set_reo, .tag = "reo"},
    {.name = "reo-wnd-fec-ms", .type = NP_BENCH_OPT_STR, .metavar = "MS",
     .range_text = "auto | 0..60000", .dflt = "auto",
     .help = "reordering window of a fragment FEC parity covers; auto: "
             "--fec-wait-ms + 3 ms, + 10 ms with --fec window (none "
             "without FEC)",
     NP_BENCH_AT(CFG, arq.reo_wnd_protected_ns), .set = set_reo_fec,
     .tag = "rf"},
    {.name = "reo-wnd-head-ms", .type = NP_BENCH_OPT_NUM, .min = 0,
     .max = 60000, .unit = "ms", .metavar = "MS", .dflt = "1",
     .help = "ordered delivery: reordering window of the fragments blocking "
             "the stream's head once --head-dupthresh later ones are acked; "
             "0: the full window",
     NP_BENCH_AT(CFG, arq.reo_wnd_head_ns), .set = set_ms, .tag = "rh"},
    UINT("head-dupthresh", 1, 16, "1", arq.head_dupthresh, "hd",
         "ordered delivery: later fragments acked before the head-of-line "
         "window applies to a hole"),
    UINT("head-copies", 1, 2, "2", arq.head_copies, "hc",
         "ordered delivery: copies of each head-of-line retransmission, "
         "sent back to back; one while a protected reordering window is "
         "set (--reo-wnd-fec-ms, on by default with FEC)"),
    UINT("ack-every", 1, 64, "2", arq.ack_every, "ae",
         "acknowledge at once after this many data datagrams"),
    {.name = "ack-delay-ms", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 100,
     .unit = "ms", .metavar = "MS", .dflt = "1",
     .help = "no data datagram waits longer for its ack (0: at once)",
     NP_BENCH_AT(CFG, arq.ack_delay_ns), .set = set_ms, .tag = "ad"},
};

/* The endpoint sockets (rudp's "run:" section begins with them; rudp-serve
 * takes them too). */
static const struct np_bench_opt socket_opts[] = {
    {.name = "socket-buffer", .type = NP_BENCH_OPT_SIZE, .umin = 4096,
     .umax = INT32_MAX, .dflt = "4194304", .metavar = "N",
     .help = "SO_RCVBUF/SO_SNDBUF of endpoint sockets",
     NP_BENCH_AT(CFG, socket_buffer), .tag = "sb"},
    UINT("batch", 1, NP_RUDP_MAX_BATCH, "32", batch, "bt",
         "datagrams per recvmmsg/sendmmsg on endpoint sockets (1: one "
         "syscall each)"),
};

static const struct np_bench_opt run_opts[] = {
    {.name = "warmup", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 600,
     .unit = "s", .dflt = "2", .help = "warm-up seconds per round",
     NP_BENCH_AT(CFG, warmup), .tag = "wu"},
    {.name = "seconds", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 3600, .unit = "s", .dflt = "3",
     .help = "measured seconds per round", NP_BENCH_AT(CFG, seconds),
     .tag = "s"},
    UINT("rounds", 1, NP_RUDP_MAX_ROUNDS, "3", rounds, "r",
         "rounds; the relay is seeded seed, seed + 1, ..."),
    UINT("seed", 0, UINT64_MAX - NP_RUDP_MAX_ROUNDS, "42", seed, "seed",
         "root seed"),
    NP_BENCH_OPT_INTERVAL_ROW(CFG),
    NP_BENCH_OPT_RUNNER_ROWS(CFG),
};

/* Endpoints against a relay process instead of the in-process relay. */
static const struct np_bench_opt external_opts[] = {
    {.name = "relay", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .range_text = "literal IPv4, or [IPv6], and a port",
     .help = "send through this running `netproof-bench relay` (needs "
             "--relay-stats)",
     NP_BENCH_AT(CFG, relay_ext), .set = set_relay, .tag = "xr"},
    {.name = "relay-stats", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the statistics lines that relay appends: its forward "
             "address, counters",
     NP_BENCH_AT(CFG, relay_stats), .set = np_bench_opt_set_path,
     .tag = "xs"},
};

/* The clients alone, against a server endpoint elsewhere (docs/agent.md). */
static const struct np_bench_opt far_opts[] = {
    {.name = "connect", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .range_text = "literal IPv4, or [IPv6], and a port",
     .help = "clients only, against the server endpoint at ADDR:PORT (a "
             "`netproof-bench rudp-serve`, or a relay in front of one)",
     NP_BENCH_AT(CFG, connect), .set = set_connect, .tag = "to"},
    {.name = "agent", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "HOST:PORT",
     .help = "across hosts: the netproof-bench agent at HOST:PORT starts "
             "the server endpoint (rudp-serve) there, the clients run here",
     NP_BENCH_AT(CFG, agent), .tag = "ag"},
    {.name = "token-file", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "with --agent: the shared secret (64+ hex digits, mode 0600)",
     NP_BENCH_AT(CFG, token_file), .set = np_bench_opt_set_path, .tag = "tf"},
    {.name = "agent-relay", .type = NP_BENCH_OPT_STR, .metavar = "LIST",
     .help = "with --agent: the agent also starts a relay in front of its "
             "server endpoint, with the relay options of LIST "
             "(NAME=VALUE,...: profile=random,delay-ms=20)",
     NP_BENCH_AT(CFG, agent_relay), .set = np_agent_udp_relay_opt_set, .tag = "ar"},
};

#define N(a) (sizeof a / sizeof a[0])
static const struct np_bench_opt_section rudp_sections[] = {
    {NULL, core_opts, N(core_opts), 0},
    {NULL, profile_opts, N(profile_opts), RELAY},
    {NULL, transport_opts, N(transport_opts), 0},
    {"relay impairments, both directions, overriding --profile "
     "(docs/relay.md):",
     np_relay_impair_opts, NP_RELAY_IMPAIR_NOPTS, RELAY},
    {"external relay, instead of the in-process one (docs/relay.md):",
     external_opts, N(external_opts), 0},
    {"far server endpoint, instead of our own (docs/agent.md):", far_opts,
     N(far_opts), 0},
    {"run:", socket_opts, N(socket_opts), 0},
    {NULL, run_opts, N(run_opts), 0},
};

/* What no row's default sets: the FEC, ARQ and relay libraries' own. */
static void rudp_init(void *p) {
  CFG *cfg = p;
  memset(cfg, 0, sizeof *cfg);
  np_fec_config_defaults(&cfg->fec_cfg);
  np_arq_config_defaults(&cfg->arq);
  np_relay_config_init(&cfg->relay);
  cfg->io_threads = 1;
}

static int derive(CFG *cfg, struct np_errbuf *eb);

/* --connect / --agent: the clients alone, one round (the far server
 * endpoint serves one round's connections), no relay of ours. */
static int far_validate(CFG *cfg, const struct np_bench_given *g,
                        struct np_errbuf *eb) {
  cfg->role = NP_RUDP_ROLE_BOTH;
  if (cfg->agent && cfg->connect)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--connect: not with --agent (the agent's server "
                         "endpoint is where the clients send)");
  if ((cfg->agent == NULL) != (cfg->token_file == NULL))
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: needs --%s",
                         cfg->agent ? "agent" : "token-file",
                         cfg->agent ? "token-file FILE" : "agent HOST:PORT");
  if (cfg->agent_relay && cfg->agent == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--agent-relay: only with --agent HOST:PORT (a "
                         "relay the agent starts on its host)");
  if (cfg->agent == NULL && cfg->connect == NULL)
    return 0;
  const char *what = cfg->agent ? "--agent" : "--connect";
  if (cfg->relay_ext)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--relay: not with %s (the far side is a server "
                         "endpoint, or a relay in front of it)", what);
  if (!np_bench_opt_given(&np_rudp_optset, g, "rounds"))
    cfg->rounds = 1; /* the default with a far server endpoint */
  else if (cfg->rounds != 1)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--rounds %" PRIu32 ": %s runs one round (the far "
                         "server endpoint serves one round's connections)",
                         cfg->rounds, what);
  for (size_t i = 0; i <= NP_RELAY_IMPAIR_NOPTS; i++) {
    const char *name = i < NP_RELAY_IMPAIR_NOPTS ? np_relay_impair_opts[i].name
                                                 : "profile";
    int set = i < NP_RELAY_IMPAIR_NOPTS
                  ? np_bench_opt_given(&np_rudp_optset, g, name)
                  : strcmp(cfg->relay.profile, "random") != 0;
    if (set)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--%s: %s runs no relay of ours (--agent-relay "
                           "LIST gives the far relay its options)",
                           name, what);
  }
  cfg->role = NP_RUDP_ROLE_CLIENT;
  return 0;
}

static int rudp_validate(void *p, const struct np_bench_given *g,
                         struct np_errbuf *eb) {
  CFG *cfg = p;
  int rc = np_relay_config_validate(&cfg->relay, eb);
  if (rc == 0) /* per round */
    rc = np_bench_interval_check(cfg->interval, cfg->seconds, eb);
  if (rc != 0)
    return rc;
  if ((rc = far_validate(cfg, g, eb)) != 0)
    return rc;
  if ((cfg->relay_ext == NULL) != (cfg->relay_stats == NULL))
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: needs --%s",
                         cfg->relay_ext ? "relay" : "relay-stats",
                         cfg->relay_ext ? "relay-stats FILE"
                                        : "relay ADDR:PORT");
  /* an external relay has its own impairments: setting ours is an error
   * (plans always pass --profile, so only another profile than the
   * default is refused) */
  for (size_t i = 0; cfg->relay_ext && i <= NP_RELAY_IMPAIR_NOPTS; i++) {
    const char *name = i < NP_RELAY_IMPAIR_NOPTS ? np_relay_impair_opts[i].name
                                                 : "profile";
    int set = i < NP_RELAY_IMPAIR_NOPTS
                  ? np_bench_opt_given(&np_rudp_optset, g, name)
                  : strcmp(cfg->relay.profile, "random") != 0;
    if (set)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--%s: the external relay (--relay %s) applies "
                           "its own impairments",
                           name, cfg->relay_ext);
  }
  int threads_set = np_bench_opt_given(&np_rudp_optset, g, "io-threads");
  if (threads_set && cfg->io_model == NP_RUDP_IO_SINGLE &&
      cfg->io_threads != 1)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-threads %" PRIu32 ": the single model uses 1 "
                         "thread; use --io-model pool for more",
                         cfg->io_threads);
  if (cfg->io_model == NP_RUDP_IO_POOL && !threads_set)
    cfg->io_threads = 4; /* the reference's pool */
  return derive(cfg, eb);
}

/* The transport's derived fields and cross-field rules (rudp and
 * rudp-serve alike: both ends must agree on them). */
static int derive(CFG *cfg, struct np_errbuf *eb) {
  cfg->fec_cfg.mode = cfg->fec == NP_RUDP_FEC_FIXED      ? NP_FEC_FIXED
                      : cfg->fec == NP_RUDP_FEC_ADAPTIVE ? NP_FEC_ADAPTIVE
                      : cfg->fec == NP_RUDP_FEC_WINDOW   ? NP_FEC_WINDOW
                                                         : NP_FEC_NONE;
  cfg->fec_cfg.mtu = cfg->arq.mtu;
  if (cfg->fec_cfg.budget < 2u * (size_t)cfg->arq.mtu)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--fec-budget-bytes %zu: below two datagrams of "
                         "--mtu %" PRIu32, cfg->fec_cfg.budget, cfg->arq.mtu);
  cfg->arq.reserve =
      cfg->fec == NP_RUDP_FEC_NONE ? 0 : np_fec_reserve(cfg->fec_cfg.mode);
  /* with FEC, RACK waits the group wait + 3 ms for a fragment whose group
   * carried parity (FEC rebuilds a late or lost one by then), the whole
   * learned window for the others (docs/rudp.md "FEC"); auto: no global
   * cap */
  if (cfg->fec == NP_RUDP_FEC_NONE)
    cfg->arq.reo_wnd_protected_ns = 0;
  else if (cfg->reo_fec_auto) /* window: a loss may need the next repair
                                  too, ~W/m sources later (docs/fec.md) */
    cfg->arq.reo_wnd_protected_ns =
        cfg->fec_cfg.wait_ns +
        (cfg->fec == NP_RUDP_FEC_WINDOW ? 10000000u : 3000000u);
  if (cfg->reo_auto)
    cfg->arq.reo_wnd_max_ns = 0;
  if (cfg->arq.delivery == NP_ARQ_UNORDERED && cfg->payload < 12)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--delivery unordered: needs --payload >= 12 (each "
                         "echo is checked by the number in its 12-byte "
                         "header), got %" PRIu32, cfg->payload);
  struct np_fec_policy_config *pc = &cfg->fec_cfg.policy;
  struct np_fec_policy pol;
  if (pc->min_m > pc->max_m)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--fec-min-parity %u: above --fec-max-parity %u",
                         pc->min_m, pc->max_m);
  /* the starting parity is clamped into [min, max] */
  pc->initial_m = pc->initial_m < pc->min_m   ? pc->min_m
                  : pc->initial_m > pc->max_m ? pc->max_m
                                              : pc->initial_m;
  if (np_fec_policy_init(&pol, pc) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "--fec-*: invalid adaptive policy");
  if (np_arq_frag_max(&cfg->arq) < 16)
    return np_errbuf_set(eb, NP_EUSAGE, "--mtu %" PRIu32 ": too small",
                         cfg->arq.mtu);
  return 0;
}

const struct np_bench_optset np_rudp_optset = {
    .command = "rudp",
    .summary = "Reliable-UDP (ARQ) echo benchmark: clients keep --window "
               "messages in\nflight to an echo server through an in-process "
               "relay that emulates\nloss, delay, duplication and "
               "reordering.  Every echo is checked.\n",
    .doc = "docs/rudp.md",
    .sections = rudp_sections,
    .nsections = N(rudp_sections),
    .cfg_size = sizeof(CFG),
    .init = rudp_init,
    .validate = rudp_validate,
};

/* ---- rudp-serve: the server endpoint alone ---------------------------- */

static const struct np_bench_opt serve_opts[] = {
    {.name = "listen", .type = NP_BENCH_OPT_HOSTPORT, .metavar = "ADDR:PORT",
     .help = "where the server endpoint listens (required); port 0 = any "
             "(printed)",
     NP_BENCH_AT(CFG, listen), .set = set_listen,
     .flags = NP_BENCH_OPT_ANYPORT},
    UINT("seed", 0, UINT64_MAX - NP_RUDP_MAX_ROUNDS, "42", seed, "seed",
         "the clients' seed of this round (message contents are checked "
         "against it)"),
    {.name = "max-seconds", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 86400, .unit = "s", .dflt = "600",
     .help = "stop after this long at the latest (a server never runs "
             "unbounded)",
     NP_BENCH_AT(CFG, max_seconds)},
    {.name = "record", .type = NP_BENCH_OPT_STR, .dflt = "-",
     .metavar = "FILE", .help = "the record written on exit (JSON); - = "
                                "stdout",
     NP_BENCH_AT(CFG, output), .set = np_bench_opt_set_path},
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the same as --record (every command takes --output)",
     NP_BENCH_AT(CFG, output), .set = np_bench_opt_set_path},
    {.name = "summary", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_bench_summary_choices, .dflt = "text", .metavar = "KIND",
     .help = "json: one-object summary on stdout (instead of the record "
             "when no --record is given)",
     NP_BENCH_AT(CFG, summary)},
    {.name = "quiet", .type = NP_BENCH_OPT_FLAG,
     .help = "no listening and summary lines on stderr",
     NP_BENCH_AT(CFG, quiet)},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .help = "this text",
     .flags = NP_BENCH_OPT_HELP},
};

/* The clients' transport rows, the same table rudp reads: both ends parse
 * the same names into the same fields. */
static const struct np_bench_opt_section serve_sections[] = {
    {NULL, core_opts, N(core_opts), 0},
    {NULL, transport_opts, N(transport_opts), 0},
    {"server endpoint:", socket_opts, N(socket_opts), 0},
    {NULL, serve_opts, N(serve_opts), 0},
};

static int serve_validate(void *p, const struct np_bench_given *g,
                          struct np_errbuf *eb) {
  CFG *cfg = p;
  if (cfg->listen == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "--listen ADDR:PORT is required");
  if (cfg->io_model != NP_RUDP_IO_SINGLE ||
      np_bench_opt_given(&np_rudp_serve_optset, g, "io-threads"))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--io-model/--io-threads: the server endpoint runs "
                         "on one loop (the clients' lanes are theirs)");
  cfg->role = NP_RUDP_ROLE_SERVER;
  cfg->rounds = 1;
  return derive(cfg, eb);
}

const struct np_bench_optset np_rudp_serve_optset = {
    .command = "rudp-serve",
    .summary = "The server endpoint of `netproof-bench rudp` alone: it "
               "accepts --clients\nconnections (conv 1..N, each pinned to "
               "the first address it came from),\nchecks every request's "
               "order and bytes against --seed and echoes it.  It\nstops "
               "on SIGINT/SIGTERM or at --max-seconds (the agent stops it "
               "after the\nrun) and writes its record.  The options of "
               "the transport must be the\nclients' (rudp --agent passes "
               "them).\n",
    .doc = "docs/agent.md",
    .sections = serve_sections,
    .nsections = N(serve_sections),
    .cfg_size = sizeof(CFG),
    .init = rudp_init,
    .validate = serve_validate,
};
