/*
 * np_udp_open.h - what open loop (--rate, np_udp_open.c) adds to a udp or
 * udp-external run: the record's "open_loop" section, its checks, the
 * "sender fell behind" flag and the summary text.  Used by np_udp_cli.c
 * and the two record writers; the schedule itself is engine-internal.
 */
#ifndef NP_UDP_OPEN_H
#define NP_UDP_OPEN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_result.h"

/* --interval's "lost" in udp echo (np_udp_interval.c). */
#define NP_UDP_IV_LOST_RULE                                                   \
  "datagrams the kernel dropped on the run's sockets in the interval "       \
  "(SO_MEMINFO sk_drops); unanswered messages are known only after the "     \
  "drain"

#define NP_UDP_LATE_NS 1000000 /* a send this late (1 ms) counts as late */

/* The flag's rule: more than 1 % of the sent messages left over 1 ms
 * after their intended time. */
#define NP_UDP_BEHIND_RULE                                                    \
  "sender_behind when late_sends > 1 % of sent (a late send left more "      \
  "than 1 ms after its intended time)"

/* 1 when the sender fell behind its schedule beyond the documented bound. */
int np_udp_open_behind(const struct np_udp_result *res);

/* What the checks and the summary text need, as the record holds it (the
 * self-check fills it from a record, np_udp_open_input_json). */
struct np_udp_open_input {
  double rate;                 /* config.rate                           */
  const char *arrivals;        /* "constant" / "poisson"                */
  uint64_t scheduled, sent, dropped_by_client, send_errors;
  uint64_t late_sends;
  int sender_behind;
  double service_p99_us;       /* open_loop.service_us.p99, NAN = n/a   */
  double send_lag_max_us;      /* open_loop.send_lag_us.max, NAN = n/a  */
};

void np_udp_open_input_of(const struct np_udp_config *cfg,
                          const struct np_udp_result *res,
                          struct np_udp_open_input *out);
/* From a record with an open_loop part; 0, or -1 without one. */
int np_udp_open_input_json(const cJSON *record, struct np_udp_open_input *out);

/* config's "interval" (when on) and "rate", "arrivals",
 * "max_outstanding" (open loop only). */
void np_udp_open_config_json(cJSON *config, const struct np_udp_config *cfg);

/* The "open_loop" section (rate, arrivals, schedule accounting, lateness,
 * the uncorrected service time and the send lag with their histograms).
 * NULL on no memory. */
cJSON *np_udp_open_json(const struct np_udp_config *cfg,
                        const struct np_udp_result *res);

/* Add the open-loop checks: every due message accounted for (sent,
 * dropped by the client or refused), none dropped by the client. */
void np_udp_open_checks(const struct np_udp_open_input *in,
                        struct np_udp_checks *cs);

/* ", open loop 5000/s: ..." for the summary line into buf. */
void np_udp_open_summary(const struct np_udp_open_input *in, char *buf,
                         size_t len);

#endif /* NP_UDP_OPEN_H */
