/*
 * np_rudp_checks.h - what a reliable-UDP round's counters imply: its six
 * checks, the record-level checks (a check passes when it passed in every
 * round), the record's reasons, and the per-round summary line the
 * command prints.
 *
 * Pure functions of plain input structs: the benchmark fills them from a
 * round (np_rudp_run.c, np_rudp_record.c, np_rudp_cli.c) and the result-set
 * self-check (resultset/) from a record's JSON, so both derive checks,
 * details, reasons and the stderr line with the same code.
 */
#ifndef NP_RUDP_CHECKS_H
#define NP_RUDP_CHECKS_H

#include <stddef.h>
#include <stdint.h>

/* Rounds np_rudp_median_index looks at (NP_RUDP_MAX_ROUNDS, the option's
 * limit). */
#define NP_RUDP_MEDIAN_MAX 100u

enum np_rudp_check_id {
  NP_RUDP_CHECK_CONTENT,
  NP_RUDP_CHECK_ORDER,
  NP_RUDP_CHECK_SEND_COMPLETION,
  NP_RUDP_CHECK_SHUTDOWN,
  NP_RUDP_CHECK_RELAY_ERRORS,
  NP_RUDP_CHECK_RELAY_OVERFLOW,
  NP_RUDP_CHECKS
};

struct np_rudp_check {
  const char *name; /* static string */
  int passed;
  char detail[200];
};

/* What one round's checks read: the whole round's application counters,
 * its drain, connections and relay. */
struct np_rudp_check_input {
  uint64_t sent;            /* requests queued by clients                */
  uint64_t server_received; /* requests delivered to the server          */
  uint64_t server_replied;  /* echoes queued by the server               */
  uint64_t received;        /* echoes delivered to clients               */
  uint64_t content_errors;  /* bytes differ from what was sent           */
  uint64_t sequence_errors; /* a message arrived out of order            */
  uint64_t send_errors;     /* sends refused                             */
  int drain_complete;       /* every request answered within the bound   */
  uint32_t conns, conns_closed, conns_failed, conns_unacked;
  uint64_t relay_errors;    /* relay receive/send/truncation errors      */
  uint64_t relay_overflow;  /* packets tail-dropped at the capacity      */
  int unordered;            /* --delivery unordered: "order" means each
                               message once and only if it was sent      */
  int server_remote;        /* rudp --connect without --agent: the server
                               endpoint's counts are in its own record
                               (rudp-serve), not in this one, so
                               send_completion holds this host's: every
                               request sent came back echoed             */
};

/* One check: name (static), its verdict and its detail from fmt; returns
 * 1 when it failed (rudp-serve's checks are built with it too). */
int np_rudp_check_set(struct np_rudp_check *c, const char *name, int ok,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The six checks of one round into out[]; returns 1 when any failed. */
int np_rudp_checks_eval(const struct np_rudp_check_input *in,
                        struct np_rudp_check out[NP_RUDP_CHECKS]);

/* The record-level checks: check c passes when it passed in each of the
 * nrounds rounds (round_checks[i] is round i's array). */
void np_rudp_checks_aggregate(const struct np_rudp_check *const *round_checks,
                              uint32_t nrounds,
                              struct np_rudp_check out[NP_RUDP_CHECKS]);

/* The record's reason for one failed check of round i:
 * "round I: NAME: DETAIL". */
void np_rudp_reason_text(uint32_t round, const struct np_rudp_check *c,
                         char *buf, size_t len);

/* The median round by round trips/s (rate[i] of round i; for an even
 * count the lower middle, ties in round order): the round a record's
 * top-level measurement comes from. */
uint32_t np_rudp_median_index(const double *rate, uint32_t n);

/* What a round's summary line shows; NAN p99 prints "n/a". */
struct np_rudp_summary_input {
  uint32_t round;
  uint64_t seed;
  double roundtrips_per_sec;     /* round trips / (seconds + drain)     */
  double p99_ms;                 /* RTT p99, or NAN                     */
  double retransmits_per_1000;   /* retransmits per 1,000 round trips   */
  uint64_t spurious, retransmits;
  double overhead_percent;       /* network overhead                    */
  double recoveries_per_1000;    /* FEC recoveries per 1,000 round trips */
  double unrecoverable;          /* FEC groups that could not be rebuilt */
  double cpu_percent;            /* process CPU over measurement + drain */
  int failed;                    /* any check of the round failed       */
};

/* "netproof-bench rudp: round 0 seed 42: 1142 round trips/s, p99 146.67
 * ms, retx 104.4/1000 (spurious 2 of 247), overhead 7.5 %, fec rec
 * 0.0/1000 unrec 0, cpu 21 %: passed" (no newline) into buf. */
void np_rudp_summary_line(const struct np_rudp_summary_input *in, char *buf,
                          size_t len);

/* "netproof-bench rudp: round I: check NAME failed: DETAIL". */
void np_rudp_check_line(uint32_t round, const struct np_rudp_check *c,
                        char *buf, size_t len);

#endif /* NP_RUDP_CHECKS_H */
