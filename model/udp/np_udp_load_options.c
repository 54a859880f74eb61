/*
 * np_udp_load_options.c - the udp option rows for offered load: open loop
 * (--rate, --arrivals, --max-outstanding), --connect's closed-loop reply
 * timeout (--reply-timeout-ms, np_udp_timeout.c), and the time series
 * (--interval, model/core/np_bench_intervals.h).  A section of the udp option
 * table (np_udp_options.c), so the parser, --help, plans and ids see them
 * like every other row; the cross-field rules are np_udp_load_validate.
 */
#include "np_udp_options.h"

#include <inttypes.h>

#include "np_bench_intervals.h"
#include "np_bench_opt.h"
#include "np_udp_config.h"
#include "np_udp_stream_record.h"

_Static_assert(sizeof(enum np_udp_arrivals) == sizeof(int), "enum size");

#define CFG struct np_udp_config
#define NP_UDP_MAX_OUTSTANDING_DEFAULT 4096
#define NP_UDP_STR_(x) #x
#define NP_UDP_STR(x) NP_UDP_STR_(x)

const struct np_bench_opt np_udp_load_opts[NP_UDP_LOAD_NOPTS] = {
    {.name = "rate", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 1e7,
     .unit = "msg/s", .dflt = "0",
     .help = "open loop: messages/s over all clients on a fixed schedule, "
             "latency from each intended send time (0 = closed loop)",
     NP_BENCH_AT(CFG, rate), .tag = "r"},
    {.name = "arrivals", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_udp_arrivals_names, .dflt = "constant", .metavar = "A",
     .help = "open loop: constant spacing or Poisson (exponential gaps)",
     NP_BENCH_AT(CFG, arrivals), .tag = "arr"},
    {.name = "max-outstanding", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = 1u << 20, .dflt = NP_UDP_STR(NP_UDP_MAX_OUTSTANDING_DEFAULT),
     .help = "open loop: messages in flight per client; a send due beyond "
             "it is counted as dropped by the client",
     NP_BENCH_AT(CFG, max_outstanding), .tag = "mo"},
    {.name = "reply-timeout-ms", .type = NP_BENCH_OPT_NUM, .min = 0,
     .max = 60000, .unit = "ms", .dflt = "0",
     .help = "--connect closed loop: give a message up after this long "
             "and send a new one in its slot; a reply that still comes is "
             "late (0 = 8 x the p99 RTT so far, 200 ms..1 s)",
     NP_BENCH_AT(CFG, reply_timeout_ms), .tag = "rto"},
    NP_BENCH_OPT_INTERVAL_ROW(CFG),
    {.name = "mode", .type = NP_BENCH_OPT_CHOICE,
     .choices = np_udp_traffic_names, .dflt = "echo", .metavar = "M",
     .help = "echo (round trips) or stream (one-way, iperf3-like; needs "
             "--backend raw --io-model split)",
     NP_BENCH_AT(CFG, traffic), .tag = ""},
    {.name = "bitrate", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 1e11,
     .unit = "bit/s", .dflt = "0",
     .help = "stream: payload bits per second over all streams (0 = as "
             "fast as the sender can)",
     NP_BENCH_AT(CFG, bitrate), .tag = "br"},
    {.name = "packet-rate", .type = NP_BENCH_OPT_NUM, .min = 0, .max = 1e9,
     .unit = "datagram/s", .dflt = "0",
     .help = "stream: datagrams per second instead of --bitrate",
     NP_BENCH_AT(CFG, packet_rate), .tag = "pr"},
    {.name = "gso", .type = NP_BENCH_OPT_UINT, .umin = 0, .umax = 65507,
     .dflt = "0", .metavar = "SIZE",
     .help = "stream: send SIZE-byte buffers the kernel cuts into --payload "
             "datagrams (UDP_SEGMENT; a multiple of --payload; 0 = off)",
     NP_BENCH_AT(CFG, gso), .tag = "gso"},
    {.name = "gro", .type = NP_BENCH_OPT_UINT, .umin = 0, .umax = 1,
     .dflt = "0",
     .help = "stream: 1 = receive with UDP_GRO (coalesced datagrams)",
     NP_BENCH_AT(CFG, gro), .tag = "gro"},
    {.name = "batch", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 1024,
     .dflt = "64",
     .help = "stream: messages per sendmmsg / recvmmsg call",
     NP_BENCH_AT(CFG, batch), .tag = "bt"},
};


/* --mode stream's own rules; in echo mode its options keep their
 * defaults. */
static int check_stream(const CFG *cfg, struct np_errbuf *eb) {
  if (cfg->traffic != NP_UDP_TRAFFIC_STREAM) {
    if (cfg->bitrate > 0 || cfg->packet_rate > 0 || cfg->gso || cfg->gro ||
        cfg->batch != 64)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--%s: only with --mode stream",
                           cfg->bitrate > 0       ? "bitrate"
                           : cfg->packet_rate > 0 ? "packet-rate"
                           : cfg->gso             ? "gso"
                           : cfg->gro             ? "gro"
                                                  : "batch");
    return 0;
  }
  if (cfg->backend != NP_UDP_BACKEND_RAW || cfg->io_model != NP_UDP_IO_SPLIT)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--mode stream: a sender and a receiver thread on "
                         "their own sendmmsg/recvmmsg sockets; give "
                         "--backend raw --io-model split");
  if (cfg->connect || cfg->rate > 0 || cfg->window != 1 || cfg->work)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--mode stream: one-way over loopback; --connect, "
                         "--rate, --window and --work are echo options");
  if (cfg->payload < NP_UDP_STREAM_MIN_PAYLOAD)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--payload %" PRIu32 ": a stream datagram carries a "
                         "%u-byte header (sequence, stream, check, send "
                         "time, phase)", cfg->payload,
                         NP_UDP_STREAM_MIN_PAYLOAD);
  if (cfg->bitrate > 0 && cfg->packet_rate > 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--packet-rate: give it or --bitrate, not both");
  /* a remainder would be cut off the send silently: refused instead */
  if (cfg->gso && (cfg->gso < cfg->payload || cfg->gso % cfg->payload != 0 ||
                   cfg->gso / cfg->payload > 64))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--gso %" PRIu32 ": 1 to 64 whole --payload (%" PRIu32
                         " B) segments per send (a multiple of --payload, at "
                         "most UDP_SEGMENT's 64)",
                         cfg->gso, cfg->payload);
  return 0;
}

int np_udp_load_validate(struct np_udp_config *cfg,
                         const struct np_bench_given *g,
                         struct np_errbuf *eb) {
  int rc = np_bench_interval_check(cfg->interval, cfg->seconds, eb);
  if (rc)
    return rc;
  if ((rc = check_stream(cfg, eb)) != 0)
    return rc;
  if (cfg->rate > 0) {
    /* a window other than the default has no meaning here (the default
     * stays allowed: plans always pass it, it is a core option) */
    if (cfg->window != 1)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--window %" PRIu32 ": with --rate the schedule, "
                           "not a window, decides when to send (bound what "
                           "is in flight with --max-outstanding)",
                           cfg->window);
    if (cfg->reply_timeout_ms > 0)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--reply-timeout-ms: closed loop only (with "
                           "--rate a message is given up when its slot "
                           "comes round, --max-outstanding sends later)");
    if ((uint64_t)cfg->clients * cfg->max_outstanding > (1u << 24))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--max-outstanding %" PRIu32 ": x %" PRIu32
                           " clients is more than 16,777,216 messages in "
                           "flight", cfg->max_outstanding, cfg->clients);
    return 0;
  }
  /* closed loop: stating a default is the same as leaving it out */
  (void)g;
  if (cfg->reply_timeout_ms > 0 && cfg->mode != NP_UDP_MODE_CLIENT)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--reply-timeout-ms: only with --connect or --agent "
                         "(in process a message the kernel dropped is not "
                         "replaced, as in the reference benchmark)");
  if (cfg->arrivals != NP_UDP_ARRIVALS_CONSTANT)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--arrivals %s: only with --rate (open loop)",
                         np_udp_arrivals_names[cfg->arrivals]);
  if (cfg->max_outstanding != NP_UDP_MAX_OUTSTANDING_DEFAULT)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--max-outstanding %" PRIu32 ": only with --rate "
                         "(open loop)", cfg->max_outstanding);
  return 0;
}
