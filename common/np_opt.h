/*
 * np_opt.h - parsing of numeric command-line option values, shared by the
 * benchmark CLIs so every program words its usage errors the same way.
 *
 * Errors are NP_EUSAGE with a one-line message in eb naming the option,
 * the value and the accepted range.  *out is written only on success.
 */
#ifndef NP_OPT_H
#define NP_OPT_H

#include <stddef.h>
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

/* Long options "--name value" or "--name=value", the form every netproof
 * CLI takes.  np_opt_name copies argv[*i]'s name (up to '=') into name
 * (cap bytes) and points *inline_val at the text after '=' (NULL when
 * there is none).  Errors: "unexpected argument" for anything not starting
 * with "--", "unknown option" for a name that does not fit. */
int np_opt_name(char **argv, int i, char *name, size_t cap,
                const char **inline_val, struct np_errbuf *eb);

/* The value of option name: inline_val when given, else argv[*i + 1]
 * (advancing *i); "NAME needs a value" when neither exists. */
int np_opt_value(int argc, char **argv, int *i, const char *name,
                 const char *inline_val, const char **val,
                 struct np_errbuf *eb);

/* The candidate closest to word, for "did you mean"; NULL when none is
 * close: at most 2 edits (insert, delete, substitute, swap two adjacent)
 * and fewer than half word's length, case-insensitively.  Leading dashes
 * are ignored on both sides ("--clinets" finds "clients" or "--clients").
 * Returns one of cands (not a copy); ties go to the first. */
const char *np_opt_suggest(const char *word, const char *const *cands,
                           size_t n);

/* "unknown option '--clinets'; did you mean --clients? (try --help)" (the
 * suggestion when np_opt_suggest finds one; what = "option", "command",
 * "plan key" ...; a bare candidate gets "--" when word has a dash) as
 * NP_EUSAGE in eb. */
int np_opt_unknown(struct np_errbuf *eb, const char *what, const char *word,
                   const char *const *cands, size_t n);

#endif /* NP_OPT_H */
