/*
 * np_udp_checks.h - the invariants a UDP run must satisfy, after the
 * reference report: every loss attributed to a leg, the legs matching the
 * kernel's per-socket drop counters, no content, sequence or send errors.
 */
#ifndef NP_UDP_CHECKS_H
#define NP_UDP_CHECKS_H

#include <stdint.h>

#include "np_udp_config.h"
#include "np_udp_run.h"

/* Losses and kernel drops derived from one phase's counters. */
struct np_udp_loss {
  int64_t lost;          /* sent - received: never answered           */
  int64_t request_leg;   /* sent - server_received                    */
  int64_t server;        /* server_received - server_replied          */
  int64_t reply_leg;     /* server_replied - received                 */
  uint64_t server_drops; /* kernel drops on server sockets            */
  uint64_t client_drops; /* kernel drops on client sockets            */
  uint64_t kernel_drops; /* server_drops + client_drops               */
};

void np_udp_loss_compute(const struct np_udp_counters *c,
                         const struct np_udp_result *res,
                         struct np_udp_loss *out);

#define NP_UDP_MAX_CHECKS 16 /* udp --agent: 9 udp-external + 4 far */

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

/* Evaluate every invariant on the measurement phase. */
void np_udp_checks_eval(const struct np_udp_result *res,
                        const struct np_udp_loss *loss,
                        struct np_udp_checks *out);

#endif /* NP_UDP_CHECKS_H */
