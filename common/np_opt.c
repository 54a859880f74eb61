/*
 * np_opt.c - numeric option values (see np_opt.h).
 */
#include "np_opt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int np_opt_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
               uint64_t *out, struct np_errbuf *eb) {
  char *end;
  errno = 0;
  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': expected an integer", opt,
                         s ? s : "");
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno)
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': expected an integer", opt,
                         s);
  if (v < lo || v > hi)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "%s %s: out of range %" PRIu64 "..%" PRIu64, opt, s,
                         lo, hi);
  *out = v;
  return 0;
}

int np_opt_double(const char *opt, const char *s, const char *what,
                  double lo, int lo_open, double hi, double *out,
                  struct np_errbuf *eb) {
  char *end;
  double v = s && *s ? strtod(s, &end) : NAN;
  if (!s || !*s || *end || !isfinite(v))
    return np_errbuf_set(eb, NP_EUSAGE, "%s '%s': expected %s", opt,
                         s ? s : "", what);
  if ((lo_open ? v <= lo : v < lo) || v > hi)
    return np_errbuf_set(eb, NP_EUSAGE, "%s %s: out of range %s%g..%g", opt,
                         s, lo_open ? ">" : "", lo, hi);
  *out = v;
  return 0;
}

int np_opt_name(char **argv, int i, char *name, size_t cap,
                const char **inline_val, struct np_errbuf *eb) {
  const char *arg = argv[i];
  const char *eq = strchr(arg, '=');
  if (strncmp(arg, "--", 2) != 0)
    return np_errbuf_set(eb, NP_EUSAGE, "unexpected argument '%s'", arg);
  size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
  if (nlen >= cap)
    return np_errbuf_set(eb, NP_EUSAGE, "unknown option '%s'", arg);
  memcpy(name, arg, nlen);
  name[nlen] = '\0';
  *inline_val = eq ? eq + 1 : NULL;
  return 0;
}

int np_opt_value(int argc, char **argv, int *i, const char *name,
                 const char *inline_val, const char **val,
                 struct np_errbuf *eb) {
  if (inline_val != NULL)
    *val = inline_val;
  else if (*i + 1 < argc)
    *val = argv[++*i];
  else
    return np_errbuf_set(eb, NP_EUSAGE, "%s needs a value", name);
  return 0;
}
