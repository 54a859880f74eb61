/*
 * np_report_fmt.h - numbers for people, identically on every machine.
 *
 * Fixed decimals per unit, ',' thousands separators, binary size units
 * (KiB, MiB) when a byte count is a whole or simple fraction of one, and
 * "-" for a value that is not there (NAN).  No locale is consulted.
 */
#ifndef NP_REPORT_FMT_H
#define NP_REPORT_FMT_H

#include <stddef.h>

/* v with `decimals` decimals and thousands separators ("92,515", "207.79"). */
void np_fmt_num(char *buf, size_t len, double v, int decimals);

/* Byte size: "16 MiB", "256 KiB", "1.44 MiB", "512 B". */
void np_fmt_bytes(char *buf, size_t len, double v);

/* The plan a suite ran, as "bench/plans/<file name>" when it is a shipped
 * plan (its folder is a bench/plans or share/netproof/plans), else its
 * file name alone: suite.json keeps the path the runner was given, which
 * may be absolute and machine-specific, and pages must not depend on
 * where the runner was started nor name a file the tree does not have.
 * Returns 1 for a shipped plan, 0 for another (its text is the copy in
 * suite.json's "plan"). */
int np_fmt_plan_path(char *buf, size_t len, const char *plan_file);

/* Median with its range: "767" when min == max, else "767 (700-800)". */
void np_fmt_range(char *buf, size_t len, double med, double min, double max,
                  int decimals);

/* How the report shows values of a plan's unit (an exec metric's
 * "unit"): the unit it prints and the factor the values take.  One
 * spelling of the microsecond ("us", "\xc2\xb5s" -> "\xce\xbcs") and
 * bit rates in Mbit/s ("bit/s", "bps" -> "Mbit/s", x 1e-6); any other
 * unit as written, factor 1. */
const char *np_fmt_unit(const char *unit, double *scale);

#endif /* NP_REPORT_FMT_H */
