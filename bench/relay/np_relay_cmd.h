/*
 * np_relay_cmd.h - `netproof-bench relay`: the emulator as a standalone
 * process for any transport.  Clients send to --listen, the relay
 * forwards to --forward with the impairments of rudp's relay (the same
 * option rows, np_relay_options.c), one route per client source address;
 * optional TCP passthrough on the same port; a hard time bound
 * (--max-seconds); JSON lines of statistics every --stats-interval
 * seconds (--stats-lines); on exit a run record (config.protocol "relay")
 * with the final statistics, the relay's sockets and kernel snapshots,
 * validated before it is written (--record).
 *
 * The command is a kind on the shared flow (bench/core/np_bench_ctl_main.h):
 * option table (np_relay_cmd_options.c), run (np_relay_cmd_run.c), record
 * (np_relay_cmd_record.c), CLI table (np_relay_cli.c).  A relay is a
 * service: SIGINT / SIGTERM is its ordinary end, recorded as
 * relay.stopped_by, and does not make the record "interrupted".
 */
#ifndef NP_RELAY_CMD_H
#define NP_RELAY_CMD_H

#include <stdint.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "np_bench_ctl.h"
#include "np_bench_opt.h"
#include "np_bench_record.h"
#include "np_relay.h"

#define NP_RELAY_CMD_MAX_SECONDS 86400.0

/* Everything `netproof-bench relay` was asked to do. */
struct np_relay_cmd_config {
  const char *listen_text;         /* --listen as given (argv)           */
  const char *forward_text;        /* --forward as given (argv)          */
  struct np_relay_listen_config net; /* parsed addresses, bounds, TCP   */
  double max_seconds;              /* --max-seconds: hard upper bound    */
  double stats_interval;           /* --stats-interval seconds           */
  const char *stats_lines;         /* --stats-lines FILE, or NULL        */
  struct np_relay_config relay;    /* --profile, impairments, --seed     */
  const char *output;              /* --record FILE, "-" = stdout        */
  int summary;                     /* --summary (np_bench_summary_kind)  */
  int quiet;                       /* --quiet                            */
};

/* The option table: --listen --forward --max-routes --route-idle-seconds
 * --max-memory-bytes --max-seconds --stats-interval --stats-lines
 * --socket-buffer --tcp-passthrough --tcp-max-connections --tcp-max-bytes
 * --tcp-idle-seconds, the relay's --profile,
 * impairment rows and --seed, then --record --summary --quiet --help. */
extern const struct np_bench_optset np_relay_cmd_optset;

/* argv (argv[0] = "relay") into cfg.  *help = 1 for --help.  NP_EUSAGE
 * with one line in eb ("--listen 'x': expected ADDR:PORT ..."). */
int np_relay_cmd_parse(int argc, char **argv, struct np_relay_cmd_config *cfg,
                       int *help, struct np_errbuf *eb);

/* What one relay process did. */
struct np_relay_cmd_result {
  struct np_bench_run run;     /* times, kernel snapshots (signal 0)     */
  int signal;                  /* SIGINT/SIGTERM that ended it, or 0     */
  double seconds;              /* from relay start to stop               */
  char listen_bound[NP_ADDR_TEXT]; /* --listen with its port      */
  cJSON *stats;                /* final "netproof/relay-stats/1" (owned) */
  cJSON *sockets;              /* sockets.list entries (owned)           */
  uint64_t socket_drops;       /* their kernel drops, summed             */
  struct np_relay_io io;       /* socket layer counts                    */
  struct np_relay_tcp_stats tcp; /* passthrough counts                   */
  uint64_t relay_errors;       /* totals.relay_errors                    */
  uint64_t routes;             /* routes opened                          */
  uint64_t lines;              /* stats lines written                    */
  uint64_t line_errors;        /* stats lines that could not be written  */
};

/* Run until --max-seconds, or SIGINT/SIGTERM on the controller.  0 (free
 * res with np_relay_cmd_result_free), NP_EUSAGE for a --stats-lines file
 * that cannot be opened, other NP_E* for the environment (bind ...). */
int np_relay_cmd_run(const struct np_relay_cmd_config *cfg,
                     struct np_bench_ctl *ctl, struct np_relay_cmd_result *res,
                     struct np_errbuf *eb);
void np_relay_cmd_result_free(struct np_relay_cmd_result *res); /* NULL ok */

/* One statistics snapshot as a stats line / the record's relay section:
 * np_relay_stats_json plus seq, final, at, mono_ns (CLOCK_MONOTONIC, to
 * order it against another process's clock), uptime_seconds.  Validated
 * against its schema; NULL on no memory, NP_ESCHEMA detail in eb. */
cJSON *np_relay_cmd_snapshot(const struct np_relay *relay, uint64_t seq,
                             int final, double uptime, struct np_errbuf *eb);

/* The whole record (envelope + relay + sockets). */
int np_relay_cmd_record_build(const struct np_relay_cmd_config *cfg,
                              struct np_relay_cmd_result *res, int argc,
                              char **argv, cJSON **doc,
                              struct np_bench_verdict *v,
                              struct np_errbuf *eb);

/* `netproof-bench relay ...` (argv[0] = "relay"); the exit code. */
int np_relay_cli_main(int argc, char **argv);

#endif /* NP_RELAY_CMD_H */
