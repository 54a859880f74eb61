/*
 * np_opt.c - numeric option values (see np_opt.h).
 */
#include "np_opt.h"

#include <ctype.h>
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

#define SUGGEST_MAX 64 /* longer words get no suggestion */

static const char *undash(const char *s) {
  while (*s == '-')
    s++;
  return s;
}

/* Optimal string alignment distance of a and b (lengths < SUGGEST_MAX),
 * case-insensitive. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb) {
  size_t d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int ca = tolower((unsigned char)a[i - 1]);
      int cb = tolower((unsigned char)b[j - 1]);
      size_t best = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

const char *np_opt_suggest(const char *word, const char *const *cands,
                           size_t n) {
  const char *w = undash(word), *best = NULL;
  size_t lw = strlen(w), bestd = 3;
  if (lw == 0 || lw >= SUGGEST_MAX)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    const char *c = undash(cands[i]);
    size_t lc = strlen(c);
    if (lc == 0 || lc >= SUGGEST_MAX)
      continue;
    size_t dist = distance(w, lw, c, lc);
    if (dist < bestd && 2 * dist < lw) {
      bestd = dist;
      best = cands[i];
    }
  }
  return best;
}

int np_opt_unknown(struct np_errbuf *eb, const char *what, const char *word,
                   const char *const *cands, size_t n) {
  const char *s = np_opt_suggest(word, cands, n);
  if (s == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "unknown %s '%s' (try --help)", what,
                         word);
  /* a table row's bare name gets the "--" the word had: --clinets ->
   * --clients; a candidate with its own dashes ("-o") is shown as is */
  const char *dashes = s[0] != '-' && word[0] == '-' ? "--" : "";
  return np_errbuf_set(eb, NP_EUSAGE, "unknown %s '%s'; did you mean %s%s? "
                       "(try --help)", what, word, dashes, s);
}
