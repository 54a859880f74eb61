/*
 * np_opt.h - parsing of numeric command-line option values, shared by the
 * benchmark CLIs so every program words its usage errors the same way.
 *
 * Errors are NP_EUSAGE with a one-line message in eb naming the option,
 * the value and the accepted range.  *out is written only on success.
 */
#ifndef NP_OPT_H
#define NP_OPT_H

#include <stdint.h>

#include "np_err.h"

/* A decimal integer in lo..hi (no sign, no leading space). */
int np_opt_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
               uint64_t *out, struct np_errbuf *eb);

/* A finite number in lo..hi (lo excluded when lo_open); what names the
 * expected kind in the message ("seconds", "a number"). */
int np_opt_double(const char *opt, const char *s, const char *what,
                  double lo, int lo_open, double hi, double *out,
                  struct np_errbuf *eb);

#endif /* NP_OPT_H */
