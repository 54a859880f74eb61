/*
 * np_udp_late.h - what the client gave up on, in the record and the
 * checks: the "timeouts" section (reply timeout in force, messages timed
 * out or expired, late replies and how late, the slot time spent waiting
 * on timeouts), config's "reply_timeout_ms", the two checks and the
 * summary's part.  Used by both udp record kinds (loopback and
 * udp-external, --agent included) and by the self-check, which fills the
 * input from a record (np_udp_late_input_json) and derives the same
 * checks.  The engine side is np_udp_timeout.c.
 *
 * Definitions (docs/guides/your-stack.md):
 *   late  = replies to a message the client had given up on;
 *   lost  = sent - received - late: no reply by the end of the drain;
 *   the timeout dominates when the slots spent more than 20 % of the
 *   measured time waiting on messages that then timed out.
 * Records before 0.3.0 have neither counters.late nor "timeouts": their
 * checks are derived without these two (input.known = 0).
 */
#ifndef NP_UDP_LATE_H
#define NP_UDP_LATE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_udp_checks.h"
#include "np_udp_config.h"
#include "np_udp_result.h"

#define NP_UDP_DOMINANT_FRACTION 0.20 /* waiting / slot time above this */

#define NP_UDP_REPLY_TIMEOUT_RULE                                            \
  "closed loop: a message is given up when no reply came within the reply " \
  "timeout (--reply-timeout-ms, else 8 x the p99 RTT so far - 8 x the "     \
  "largest below 100 RTTs - within 200 ms..1 s, 1 s before the first "      \
  "reply, per thread) or when its slot is needed "                          \
  "before that; its slot sends a new message; a reply that still comes "    \
  "is late. Open loop: given up when its slot comes round "                 \
  "(--max-outstanding sends later)"

#define NP_UDP_DOMINANT_RULE                                                 \
  "the timeout dominates the rate when waiting_seconds (slot time spent "   \
  "waiting on messages that then timed out) > 20 % of slot_seconds "        \
  "(clients x window x (measurement + drain seconds))"

/* What the checks and the summary need, as the record holds it. */
struct np_udp_late_input {
  int known;               /* 0: a record before these counters       */
  int closed_loop;         /* 1: a reply timeout was in force (the
                              --connect closed loop)                  */
  uint64_t sent, received, late, timed_out, expired;
  double late_max_us;      /* NAN without a late reply                */
  double timeout_min_ms, timeout_max_ms; /* NAN: none (open loop)     */
  double waiting_seconds;  /* slot time waited on timed-out messages  */
  double slot_seconds;     /* clients x window x (measurement + drain
                              seconds): the counters' window          */
};

/* 1 when a message can be given up in this run, so the record carries
 * counters.late and "timeouts": --connect / --agent, and open loop. */
int np_udp_late_applies(const struct np_udp_config *cfg);

void np_udp_late_input_of(const struct np_udp_config *cfg,
                          const struct np_udp_result *res,
                          struct np_udp_late_input *out);
/* From a record; known = 0 when it has no "timeouts" section. */
void np_udp_late_input_json(const cJSON *record, struct np_udp_late_input *out);

/* waiting / slot time (0 when slot time is 0). */
double np_udp_late_waiting_fraction(const struct np_udp_late_input *in);

/* config's "reply_timeout_ms" (0 = derived) and its rule, closed loop. */
void np_udp_late_config_json(cJSON *config, const struct np_udp_config *cfg);

/* The "timeouts" section.  NULL on no memory. */
cJSON *np_udp_late_json(const struct np_udp_late_input *in);

/* no_late_replies and, closed loop, timeouts_not_dominant (nothing when
 * !in->known). */
void np_udp_late_checks(const struct np_udp_late_input *in,
                        struct np_udp_checks *cs);

/* ", late 3 (latest 212.4 ms after its send)" or "" into buf. */
void np_udp_late_summary(const struct np_udp_late_input *in, char *buf,
                         size_t len);

#endif /* NP_UDP_LATE_H */
