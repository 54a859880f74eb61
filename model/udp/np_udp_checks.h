/*
 * np_udp_checks.h - what a UDP run's counters imply, after the reference
 * report: every loss attributed to a leg, the legs matching the kernel's
 * per-socket drop counters, no content, sequence or send errors; and the
 * one-line summary the command prints.
 *
 * Every function here is pure and takes plain input structs, so the
 * benchmark (filling them from its result, np_udp_check_input_of) and the
 * result-set self-check (filling them from a record's JSON, resultset/)
 * derive checks, details and the summary line with the same code: a
 * record whose checks[] or stderr line disagree with what this code
 * derives from its own counters has been edited.
 */
#ifndef NP_UDP_CHECKS_H
#define NP_UDP_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "np_udp_config.h"
#include "np_udp_result.h"

/* The measured phase's counters and per-socket drops, as checks see them. */
struct np_udp_check_input {
  uint64_t sent;               /* client datagrams the kernel accepted     */
  uint64_t server_received;    /* datagrams the server read                */
  uint64_t server_replied;     /* echoes the kernel accepted               */
  uint64_t received;           /* replies matched to an outstanding message */
  uint64_t content_errors;     /* matched replies whose bytes differ       */
  uint64_t sequence_errors;    /* duplicates, stale or reordered replies   */
  uint64_t send_errors;        /* client sends refused                     */
  uint64_t server_send_errors; /* echo sends refused                       */
  uint64_t truncated;          /* datagrams cut by MSG_TRUNC               */
  uint64_t server_drops;       /* kernel drops on server sockets           */
  uint64_t client_drops;       /* kernel drops on client sockets           */
  uint64_t late;               /* replies to given-up messages (0 in records
                                  before counters.late)                    */
};

/* The input of a finished run: the counters of one phase (res->measure
 * for the checks) and res's per-socket drops. */
void np_udp_check_input_of(const struct np_udp_counters *c,
                           const struct np_udp_result *res,
                           struct np_udp_check_input *in);

/* Losses and kernel drops derived from the input. */
struct np_udp_loss {
  int64_t lost;          /* sent - received - late: never answered    */
  int64_t request_leg;   /* sent - server_received                    */
  int64_t server;        /* server_received - server_replied          */
  int64_t reply_leg;     /* server_replied - received - late          */
  uint64_t server_drops; /* kernel drops on server sockets            */
  uint64_t client_drops; /* kernel drops on client sockets            */
  uint64_t kernel_drops; /* server_drops + client_drops               */
};

void np_udp_loss_compute(const struct np_udp_check_input *in,
                         struct np_udp_loss *out);

/* udp --agent: 9 udp-external + 4 far + 2 late + 2 open loop */
#define NP_UDP_MAX_CHECKS 20

struct np_udp_check {
  const char *name; /* static string */
  int passed;
  char detail[200];
};

struct np_udp_checks {
  struct np_udp_check item[NP_UDP_MAX_CHECKS];
  unsigned n;
  unsigned failed;
};

/* Append one check (name static) with a printf-formatted detail; a full
 * list keeps the first NP_UDP_MAX_CHECKS. */
void np_udp_checks_add(struct np_udp_checks *cs, const char *name, int passed,
                       const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Evaluate every invariant of the measured phase. */
void np_udp_checks_eval(const struct np_udp_check_input *in,
                        const struct np_udp_loss *loss,
                        struct np_udp_checks *out);

/* What the summary line shows; NAN for a percentile the sample count
 * cannot support (printed "n/a"). */
struct np_udp_summary_input {
  const char *backend;    /* "uv" / "raw"                            */
  const char *io_model;   /* "single", ...                           */
  uint64_t payload, clients, window;
  double roundtrips_per_sec; /* roundtrips / (seconds + drain)       */
  double p50_us, p99_us;     /* RTT percentiles, or NAN              */
  int64_t lost;              /* sent - received                      */
  uint64_t sent;             /* requests sent (the loss's base)      */
  uint64_t kernel_drops;     /* per-socket drops                     */
  double cpu_percent;        /* process CPU over measurement + drain */
  const char *status;        /* the record's status                  */
  const char *extra;         /* open loop's part (np_udp_open_summary)
                                before ": status", or NULL          */
};

/* "netproof-bench udp: uv/single 1024 B x 16 clients x window 1: 75611
 * round trips/s, p50 176.00 μs, p99 381.18 μs, lost 0 of 75611 (0.00 %;
 * kernel drops 0), cpu 97.1 %: passed" (no newline) into buf. */
void np_udp_summary_line(const struct np_udp_summary_input *in, char *buf,
                         size_t len);

/* The same line as 0.2 wrote it ("p50 176.00 us, ... lost 0 (kernel drops
 * 0)"), for the self-check of records whose kept stderr has that form. */
void np_udp_summary_line_0_2(const struct np_udp_summary_input *in,
                             char *buf, size_t len);

/* "netproof-bench udp: check NAME failed: DETAIL" (no newline). */
void np_udp_check_line(const struct np_udp_check *c, char *buf, size_t len);

#endif /* NP_UDP_CHECKS_H */
