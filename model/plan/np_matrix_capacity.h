/*
 * np_matrix_capacity.h - offered load relative to a measured capacity: a
 * udp plan with a "capacity" object may give configurations a
 * "rate-fraction" instead of a --rate.  The capacity is the median
 * measurement.roundtrips_per_sec over the passed repetitions of the
 * configuration "capacity.match" selects (a closed-loop run, first in the
 * plan), measured in the same suite; before the first repetition of a
 * fraction configuration the runner sets its --rate to fraction x
 * capacity (rounded, at least 1) and says so on stderr.  The id carries
 * the fraction ("-rf0.5"), the record the resolved --rate.
 */
#ifndef NP_MATRIX_CAPACITY_H
#define NP_MATRIX_CAPACITY_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

#define NP_MATRIX_RATE_FRACTION "rate-fraction"
#define NP_MATRIX_RATE_FRACTION_MAX 10.0

/* 1 when name is the plan's "rate-fraction" (a udp plan with "capacity"). */
int np_matrix_capacity_name(const cJSON *plan, const char *protocol,
                            const char *name);

/* 1 when v is a fraction in (0, 10]; else 0 with the reason in r. */
int np_matrix_capacity_value_ok(const cJSON *v, char *r, size_t len);

/* For row r: when it has a fraction, append "--rate 1" (a stand-in the
 * command's parser checks) to cf's argv, the fraction to its options and
 * id.  NP_ESCHEMA when the row also sets --rate, NP_ENOMEM. */
int np_matrix_capacity_config(const cJSON *r, struct np_matrix_config *cf,
                              struct np_errbuf *eb);

/* After the parser's check: the stand-in becomes "{F x capacity}" for
 * --dry-run. */
int np_matrix_capacity_placeholder(struct np_matrix_config *cf,
                                   struct np_errbuf *eb);

/* The --rate of a fraction over the capacity values caps[0..n) (the
 * passed repetitions' round trips/s): round(fraction x median), at least 1,
 * as text into buf; the median into *capacity (may be NULL).  NP_ECHECK
 * when n is 0, NP_ERANGE when the rate is above --rate's maximum (the udp
 * option table's row; never clamped: the run would not offer the load
 * its id names). */
int np_matrix_capacity_rate_text(double fraction, const double *caps,
                                 size_t n, char *buf, size_t len,
                                 double *capacity);

/* Before configuration i runs: its --rate from the capacity configuration's
 * records under out_dir/runs/ (a line on log).  0 for configurations
 * without a fraction; NP_ECHECK when the capacity configuration has no
 * passed repetition, NP_ERANGE (one line) when fraction x capacity is
 * above --rate's maximum. */
int np_matrix_capacity_resolve(const struct np_matrix_plan *p, size_t i,
                               const char *out_dir, FILE *log,
                               struct np_errbuf *eb);

#endif /* NP_MATRIX_CAPACITY_H */
