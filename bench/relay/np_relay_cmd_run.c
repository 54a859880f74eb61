/*
 * np_relay_cmd_run.c - one `netproof-bench relay` process: open the stats
 * lines file (before anything else, so a bad path is a usage error), take
 * the kernel snapshot, bind, start the relay thread, then sleep on the
 * controller until --max-seconds or SIGINT/SIGTERM, appending a
 * statistics line every --stats-interval seconds; stop, collect the final
 * statistics and the sockets, take the second snapshot.
 *
 * The lines are written by this (controlling) thread from snapshots taken
 * under the relay's lock, never by the relay thread: the hot path does not
 * format JSON or touch the disk.  Each line is one write(2) of one JSON
 * object and '\n' with O_APPEND, validated against its schema first.
 */
#include "np_relay_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_json.h"
#include "np_schema.h"
#include "np_time.h"

cJSON *np_relay_cmd_snapshot(const struct np_relay *relay, uint64_t seq,
                             int final, double uptime, struct np_errbuf *eb) {
  char at[NP_TIME_TEXT_MAX];
  cJSON *o = np_relay_stats_json(relay);
  if (o == NULL) {
    np_errbuf_set(eb, NP_ENOMEM, "relay stats: out of memory");
    return NULL;
  }
  np_time_utc_now(at, sizeof at);
  np_json_add_number(o, "seq", (double)seq);
  cJSON_AddBoolToObject(o, "final", final);
  cJSON_AddStringToObject(o, "at", at);
  np_json_add_number(o, "mono_ns", (double)np_time_mono_ns());
  np_json_add_number(o, "uptime_seconds", uptime);
  struct np_errbuf inner = {{0}};
  if (!cJSON_GetObjectItemCaseSensitive(o, "uptime_seconds") ||
      np_schema_validate_tagged(o, &inner) != 0) {
    np_errbuf_set(eb, NP_ESCHEMA, "relay stats: %s",
                  inner.msg[0] ? inner.msg : "out of memory");
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* One line; 0 or -1 (counted by the caller). */
static int write_line(int fd, const cJSON *o) {
  char *txt = cJSON_PrintUnformatted(o);
  if (txt == NULL)
    return -1;
  size_t n = strlen(txt);
  txt[n] = '\n'; /* replaces the terminator: one write of the whole line */
  ssize_t w = write(fd, txt, n + 1);
  cJSON_free(txt);
  return w == (ssize_t)(n + 1) ? 0 : -1;
}

static void line(struct np_relay_cmd_result *res, int fd,
                 const struct np_relay *relay, int final, double uptime) {
  struct np_errbuf eb = {{0}};
  cJSON *o = np_relay_cmd_snapshot(relay, res->lines + res->line_errors + 1,
                                   final, uptime, &eb);
  if (o != NULL && write_line(fd, o) == 0)
    res->lines++;
  else
    res->line_errors++;
  cJSON_Delete(o);
}

/* Serve until the bound or a signal; lines every interval. */
static void serve(const struct np_relay_cmd_config *cfg,
                  struct np_bench_ctl *ctl, struct np_relay *relay, int fd,
                  struct np_relay_cmd_result *res) {
  double t0 = np_time_mono_s(), deadline = t0 + cfg->max_seconds;
  double next = t0 + cfg->stats_interval;
  for (;;) {
    double until = fd >= 0 && next < deadline ? next : deadline;
    np_bench_ctl_wait(ctl, until, NULL, NULL);
    double now = np_time_mono_s();
    if (np_bench_ctl_signal(ctl) || now >= deadline)
      break;
    if (fd >= 0 && now >= next) {
      line(res, fd, relay, 0, now - t0);
      next += cfg->stats_interval;
      if (next <= now)
        next = now + cfg->stats_interval;
    }
  }
  res->seconds = np_time_mono_s() - t0;
}

static void collect(struct np_relay_cmd_result *res, struct np_relay *relay) {
  np_relay_io_get(relay, &res->io);
  np_relay_tcp_get(relay, &res->tcp);
  res->routes = np_relay_route_count(relay);
  res->sockets = np_relay_sockets_json(relay, &res->socket_drops);
}

int np_relay_cmd_run(const struct np_relay_cmd_config *cfg,
                     struct np_bench_ctl *ctl, struct np_relay_cmd_result *res,
                     struct np_errbuf *eb) {
  struct np_relay *relay = NULL;
  int fd = -1, rc;
  memset(res, 0, sizeof *res);
  if (cfg->stats_lines != NULL) {
    fd = open(cfg->stats_lines, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
              0644);
    if (fd < 0)
      return np_errbuf_set(eb, NP_EUSAGE, "--stats-lines %s: %s",
                           cfg->stats_lines, strerror(errno));
  }
  np_bench_ctl_start(ctl, &res->run);
  if ((rc = np_bench_ctl_snapshot(ctl, &res->run, NP_BENCH_SNAP_BEFORE, eb)))
    goto free_result;
  if ((rc = np_relay_listen(&cfg->relay, &cfg->net, &relay, eb)) != 0 ||
      (rc = np_relay_start(relay, eb)) != 0)
    goto free_result;
  struct sockaddr_storage bound;
  np_relay_listen_addr(relay, &bound);
  np_addr_sa_format((const struct sockaddr *)&bound, res->listen_bound,
                       sizeof res->listen_bound);
  if (!cfg->quiet) {
    fprintf(stderr,
            "netproof-bench relay: ready: udp%s %s -> %s, profile %s, until "
            "SIGINT/SIGTERM or %g s\n",
            cfg->net.tcp_passthrough ? "+tcp" : "", res->listen_bound,
            cfg->forward_text, cfg->relay.profile, cfg->max_seconds);
    fflush(stderr);
  }
  serve(cfg, ctl, relay, fd, res);
  np_relay_stop(relay);
  int loop_rc = np_relay_join(relay);
  struct np_errbuf inner = {{0}};
  res->stats = np_relay_cmd_snapshot(relay, 0, 1, res->seconds, &inner);
  if (res->stats == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "%s", inner.msg);
    goto free_result;
  }
  cJSON *tot = cJSON_GetObjectItemCaseSensitive(res->stats, "totals");
  res->relay_errors =
      (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(tot, "relay_errors")) +
      (loop_rc != 0);
  collect(res, relay);
  if (fd >= 0) { /* the final snapshot ends the lines too */
    cJSON_SetNumberValue(cJSON_GetObjectItem(res->stats, "seq"),
                         (double)(res->lines + res->line_errors + 1));
    if (write_line(fd, res->stats) == 0)
      res->lines++;
    else
      res->line_errors++;
  }
  if (res->sockets == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "relay: out of memory");
    goto free_result;
  }
  np_relay_destroy(relay);
  relay = NULL;
  if ((rc = np_bench_ctl_snapshot(ctl, &res->run, NP_BENCH_SNAP_AFTER, eb)))
    goto free_result;
  np_bench_ctl_finish(ctl, &res->run);
  /* a service ends on a signal: recorded as stopped_by, not "interrupted" */
  res->signal = res->run.signal;
  res->run.signal = 0;
  if (fd >= 0)
    close(fd);
  return 0;
free_result:
  np_relay_destroy(relay);
  if (fd >= 0)
    close(fd);
  np_relay_cmd_result_free(res);
  return rc;
}

void np_relay_cmd_result_free(struct np_relay_cmd_result *res) {
  if (res == NULL)
    return;
  cJSON_Delete(res->stats);
  cJSON_Delete(res->sockets);
  np_bench_run_free(&res->run);
  memset(res, 0, sizeof *res);
}
