/*
 * np_report_refs.c - references in readings resolved from the result sets
 * (np_report_refs.h): one table of quantities, one of statistics, one of
 * formats, and the comparative words from compare's test.
 */
#include "np_report_refs.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_report_fmt.h"
#include "np_results_compare.h"
#include "np_stats.h"

#define MAX_TOKENS 12
#define TOKEN_MAX 200

/* Where a quantity lives in a run and how it reads by default. */
struct quantity {
  const char *name;
  int metric;      /* enum np_results_metric, or -1                    */
  int kcounter;    /* enum np_results_kcounter (after - before), or -1 */
  const char *fmt; /* default format                                   */
};

static const struct quantity quantities[] = {
    {"rps", NP_M_RPS, -1, "int"},
    {"p50", NP_M_P50, -1, "sig3"},
    {"p99", NP_M_P99, -1, "sig3"},
    {"cpu", NP_M_CPU, -1, "d1"},
    {"rss", NP_M_RSS, -1, "mib1"},
    {"lost", NP_M_LOST, -1, "int"},
    {"kdrops", NP_M_KDROPS, -1, "int"},
    {"rcvbuf", NP_M_RCVBUF, -1, "int"},
    /* the runner's own snapshots around the whole run, warm-up included */
    {"runner_rcvbuf", -1, NP_K_RCVBUF, "int"},
};
#define NQUANT (sizeof quantities / sizeof quantities[0])

/* How a number is written: divided by `scale`, then `decimals` decimals
 * (or `sig` significant digits when sig > 0), then `suffix`. */
struct format {
  const char *name;
  double scale;
  int decimals;
  int sig;
  const char *suffix;
};

static const struct format formats[] = {
    {"auto", 1, 0, -3, ""},           /* int when whole, else sig3 */
    {"int", 1, 0, 0, ""},
    {"d1", 1, 1, 0, ""},
    {"d2", 1, 2, 0, ""},
    {"sig2", 1, 0, 2, ""},
    {"sig3", 1, 0, 3, ""},
    {"k", 1000, 0, 0, "k"},
    {"ms1", 1000, 1, 0, ""},          /* µs -> ms */
    {"ms2", 1000, 2, 0, ""},
    {"kib0", 1024, 0, 0, ""},         /* bytes -> KiB */
    {"kib1", 1024, 1, 0, ""},
    {"mib1", 1048576, 1, 0, ""},      /* bytes -> MiB */
    {"mib2", 1048576, 2, 0, ""},
    {"pct0", 0.01, 0, 0, ""},         /* fraction -> percent */
    {"pct1", 0.01, 1, 0, ""},
    {"mbit0", 1e6, 0, 0, ""},         /* bit/s -> Mbit/s */
    {"mbit1", 1e6, 1, 0, ""},
    {"x2", 1, 2, 0, "\xc3\x97"},      /* a ratio: "0.84×" */
};
#define NFMT (sizeof formats / sizeof formats[0])

enum stat { ST_MEDIAN, ST_MIN, ST_MAX, ST_RANGE, ST_SUM, ST_N, ST_MMIN,
            ST_MMAX, ST_MRANGE };
static const char *const stat_names[] = {"median", "min",  "max",
                                         "range",  "sum",  "n",
                                         "mmin",   "mmax", "mrange"};
#define NSTAT (sizeof stat_names / sizeof stat_names[0])

/* One parsed quantity: a table entry or a JSON pointer. */
struct qsel {
  const struct quantity *q; /* or NULL for pointer */
  const char *pointer;
};

static const struct format *format_find(const char *name) {
  for (size_t i = 0; i < NFMT; i++)
    if (strcmp(formats[i].name, name) == 0)
      return &formats[i];
  return NULL;
}

static int stat_find(const char *name) {
  for (size_t i = 0; i < NSTAT; i++)
    if (strcmp(stat_names[i], name) == 0)
      return (int)i;
  return -1;
}

static void format_value(char *buf, size_t len, double v,
                         const struct format *f) {
  double x = v / f->scale;
  int dec = f->decimals;
  if (f->sig < 0 && x != floor(x))
    f = format_find("sig3");
  if (f->sig > 0 && x != 0 && isfinite(x)) {
    int mag = (int)floor(log10(fabs(x)));
    dec = f->sig - 1 - mag;
    if (dec < 0) {
      double p = pow(10, -dec);
      x = round(x / p) * p;
      dec = 0;
    }
  }
  char num[80];
  np_fmt_num(num, sizeof num, x, dec);
  snprintf(buf, len, "%s%s", num, f->suffix);
}

static int parse_quantity(const char *tok, struct qsel *out,
                          struct np_errbuf *eb) {
  out->q = NULL;
  out->pointer = NULL;
  if (tok[0] == '/') {
    out->pointer = tok;
    return 0;
  }
  for (size_t i = 0; i < NQUANT; i++)
    if (strcmp(quantities[i].name, tok) == 0) {
      out->q = &quantities[i];
      return 0;
    }
  return np_errbuf_set(eb, NP_EINVAL,
                       "unknown quantity '%s' (a name of the quantity "
                       "table or a JSON pointer)",
                       tok);
}

static double run_value(const struct np_results_run *r, const struct qsel *s) {
  if (s->pointer)
    return np_results_num(r->doc, s->pointer);
  if (s->q->metric >= 0)
    return r->m[s->q->metric];
  return r->kafter[s->q->kcounter] - r->kbefore[s->q->kcounter];
}

static struct np_results_set *set_find(struct np_results_set *const *sets,
                                       size_t nsets, const char *name,
                                       struct np_errbuf *eb) {
  struct np_results_set *hit = NULL;
  size_t n = 0;
  for (size_t i = 0; i < nsets; i++) {
    const cJSON *s = sets[i]->suite
                         ? cJSON_GetObjectItemCaseSensitive(sets[i]->suite,
                                                            "suite")
                         : NULL;
    if (strcmp(sets[i]->label, name) == 0)
      return sets[i];
    if (cJSON_IsString(s) && strcmp(s->valuestring, name) == 0) {
      hit = sets[i];
      n++;
    }
  }
  if (n == 1)
    return hit;
  if (n > 1)
    np_errbuf_set(eb, NP_EINVAL, "%zu sets of suite '%s': name one by its "
                  "folder", n, name);
  else
    np_errbuf_set(eb, NP_EINVAL, "no result set '%s' among the sets given",
                  name);
  return NULL;
}

/* The values of quantity s over the runs of the configurations of set
 * matching glob, and each configuration's median.  *vals and *meds are
 * malloc'd (caller frees); n / nm their counts. */
static int collect(const struct np_results_set *set, const char *glob,
                   const struct qsel *s, int passed_only, double **vals,
                   size_t *n, double **meds, size_t *nm,
                   struct np_errbuf *eb) {
  double *v = calloc(set->nruns + 1, sizeof *v);
  double *m = calloc(set->nconfigs + 1, sizeof *m);
  size_t k = 0, km = 0, matched = 0;
  if (v == NULL || m == NULL) {
    free(v);
    free(m);
    return NP_ENOMEM;
  }
  for (size_t c = 0; c < set->nconfigs; c++) {
    const struct np_results_config *cf = &set->configs[c];
    if (fnmatch(glob, cf->id, FNM_EXTMATCH) != 0)
      continue;
    matched++;
    size_t k0 = k;
    for (size_t r = 0; r < cf->nruns; r++) {
      if (passed_only && !cf->runs[r].passed)
        continue;
      double x = run_value(&cf->runs[r], s);
      if (isfinite(x))
        v[k++] = x;
    }
    if (k > k0)
      m[km++] = np_results_median(v + k0, k - k0);
  }
  if (matched == 0 || k == 0) {
    free(v);
    free(m);
    return np_errbuf_set(eb, NP_EINVAL,
                         matched ? "no %svalue of that quantity in the runs "
                                   "of '%s' in %s"
                                 : "%sno configuration '%s' in %s",
                         matched && passed_only ? "passed " : "", glob,
                         set->label);
  }
  *vals = v;
  *n = k;
  *meds = m;
  *nm = km;
  return 0;
}

static void minmax(const double *v, size_t n, double *lo, double *hi) {
  *lo = *hi = v[0];
  for (size_t i = 1; i < n; i++) {
    if (v[i] < *lo)
      *lo = v[i];
    if (v[i] > *hi)
      *hi = v[i];
  }
}

static void format_range(char *buf, size_t len, double lo, double hi,
                         const struct format *f) {
  char a[96], b[96];
  format_value(a, sizeof a, lo, f);
  format_value(b, sizeof b, hi, f);
  if (strcmp(a, b) == 0)
    snprintf(buf, len, "%s", a);
  else
    snprintf(buf, len, "%s\xe2\x80\x93%s", a, b); /* en dash */
}

static const char *default_format(const struct qsel *s) {
  return s->q ? s->q->fmt : "auto";
}

/* {{SET: CONFIG QUANTITY [STAT] [FORMAT] [passed]}} */
static int resolve_value(struct np_results_set *set, char **tok, size_t nt,
                         char *buf, size_t len, struct np_errbuf *eb) {
  struct qsel s;
  int st = ST_MEDIAN, passed = 0;
  const struct format *f = NULL;
  if (nt < 2)
    return np_errbuf_set(eb, NP_EINVAL,
                         "want SET: CONFIG QUANTITY [STAT] [FORMAT]");
  int rc = parse_quantity(tok[1], &s, eb);
  if (rc != 0)
    return rc;
  for (size_t i = 2; i < nt; i++) {
    int k = stat_find(tok[i]);
    const struct format *g = format_find(tok[i]);
    if (k >= 0)
      st = k;
    else if (g)
      f = g;
    else if (strcmp(tok[i], "passed") == 0)
      passed = 1;
    else
      return np_errbuf_set(eb, NP_EINVAL,
                           "'%s' is no statistic, format or 'passed'",
                           tok[i]);
  }
  if (f == NULL)
    f = format_find(st == ST_N ? "int" : default_format(&s));
  double *v = NULL, *m = NULL, lo, hi;
  size_t n = 0, nm = 0;
  rc = collect(set, tok[0], &s, passed, &v, &n, &m, &nm, eb);
  if (rc != 0)
    return rc;
  switch (st) {
  case ST_MEDIAN:
    format_value(buf, len, np_results_median(v, n), f);
    break;
  case ST_MIN:
  case ST_MAX:
  case ST_RANGE:
    minmax(v, n, &lo, &hi);
    if (st == ST_RANGE)
      format_range(buf, len, lo, hi, f);
    else
      format_value(buf, len, st == ST_MIN ? lo : hi, f);
    break;
  case ST_SUM: {
    double sum = 0;
    for (size_t i = 0; i < n; i++)
      sum += v[i];
    format_value(buf, len, sum, f);
    break;
  }
  case ST_N:
    format_value(buf, len, (double)n, f);
    break;
  default: /* over the configurations' medians */
    minmax(m, nm, &lo, &hi);
    if (st == ST_MRANGE)
      format_range(buf, len, lo, hi, f);
    else
      format_value(buf, len, st == ST_MMIN ? lo : hi, f);
    break;
  }
  free(v);
  free(m);
  return 0;
}

/* {{SET: suite.json|summary.json POINTER [FORMAT]}} */
static int resolve_doc(const struct np_results_set *set, char **tok,
                       size_t nt, char *buf, size_t len,
                       struct np_errbuf *eb) {
  const cJSON *doc = strcmp(tok[0], "suite.json") == 0 ? set->suite
                                                        : set->summary;
  if (nt < 2 || nt > 3 || tok[1][0] != '/')
    return np_errbuf_set(eb, NP_EINVAL, "want SET: %s POINTER [FORMAT]",
                         tok[0]);
  const struct format *f = format_find(nt == 3 ? tok[2] : "auto");
  if (f == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "unknown format '%s'", tok[2]);
  const cJSON *j = doc ? np_json_pointer(doc, tok[1]) : NULL;
  if (!cJSON_IsNumber(j))
    return np_errbuf_set(eb, NP_EINVAL, "%s of %s has no number at %s",
                         tok[0], set->label, tok[1]);
  format_value(buf, len, j->valuedouble, f);
  return 0;
}

/* The values of A and B (tok[0], tok[2]) for the two-sided forms. */
static int two_sides(const struct np_results_set *set, char **tok, size_t nt,
                     const char *sep, int passed, struct qsel *s,
                     double **a, size_t *na, double **b, size_t *nb,
                     struct np_errbuf *eb) {
  double *ma = NULL, *mb = NULL;
  size_t nma, nmb;
  if (nt < 4 || strcmp(tok[1], sep) != 0)
    return np_errbuf_set(eb, NP_EINVAL, "want SET: A %s B QUANTITY", sep);
  int rc = parse_quantity(tok[3], s, eb);
  if (rc == 0)
    rc = collect(set, tok[0], s, passed, a, na, &ma, &nma, eb);
  if (rc == 0) {
    rc = collect(set, tok[2], s, passed, b, nb, &mb, &nmb, eb);
    if (rc != 0) {
      free(*a);
      *a = NULL;
    }
  }
  free(ma);
  free(mb);
  return rc;
}

/* ratio / verdict / ranges / same */
static int resolve_pair(const char *kind, struct np_results_set *set,
                        char **tok, size_t nt, char *buf, size_t len,
                        struct np_errbuf *eb) {
  int ratio = strcmp(kind, "ratio") == 0;
  struct qsel s;
  double *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  int rc = two_sides(set, tok, nt, ratio ? "/" : "vs",
                     strcmp(kind, "verdict") == 0, &s, &a, &na, &b, &nb, eb);
  if (rc != 0)
    return rc;
  double ma = np_results_median(a, na), mb = np_results_median(b, nb);
  if (ratio) {
    const struct format *f = format_find(nt > 4 ? tok[4] : "x2");
    if (nt > 5)
      rc = np_errbuf_set(eb, NP_EINVAL, "too many words after '%s' (at most "
                         "a format)", tok[4]);
    else if (f == NULL)
      rc = np_errbuf_set(eb, NP_EINVAL, "unknown format '%s'", tok[4]);
    else if (mb == 0)
      rc = np_errbuf_set(eb, NP_EINVAL, "the median of '%s' is 0", tok[2]);
    else
      format_value(buf, len, ma / mb, f);
  } else if (strcmp(kind, "verdict") == 0) {
    const struct np_results_compare_metric *cm = NULL;
    for (size_t i = 0; s.q && np_results_compare_metric_at(i); i++)
      if (s.q->metric >= 0 &&
          np_results_compare_metric_at(i)->m == (enum np_results_metric)s.q->metric)
        cm = np_results_compare_metric_at(i);
    double u, p;
    int exact;
    if (cm == NULL)
      rc = np_errbuf_set(eb, NP_EINVAL,
                         "compare has no test for '%s' (rps, p50, p99, cpu)",
                         tok[3]);
    else if (mb == 0)
      rc = np_errbuf_set(eb, NP_EINVAL, "the median of '%s' is 0", tok[2]);
    else
      rc = np_stats_mann_whitney(a, na, b, nb, &u, &p, &exact);
    if (rc == 0 && cm) {
      enum np_stats_verdict v =
          np_stats_verdict_of(ma / mb, p, NP_COMPARE_ALPHA,
                              NP_COMPARE_THRESHOLD, cm->higher_is_better);
      if (v != NP_STATS_NO_CHANGE)
        snprintf(buf, len, "significantly %s",
                 v == NP_STATS_BETTER ? cm->better : cm->worse);
      else if (np_stats_mw_min_p(na, nb) >= NP_COMPARE_ALPHA)
        snprintf(buf, len, "not distinguishable at %zu + %zu runs", na, nb);
      else
        snprintf(buf, len, "not significantly different");
    }
  } else {
    double alo, ahi, blo, bhi;
    minmax(a, na, &alo, &ahi);
    minmax(b, nb, &blo, &bhi);
    if (strcmp(kind, "ranges") == 0)
      snprintf(buf, len, "%s",
               alo > bhi || blo > ahi ? "ranges apart" : "ranges overlap");
    else
      snprintf(buf, len, "%s",
               alo == ahi && blo == bhi && alo == blo
                   ? "identical in every run"
                   : "not identical");
  }
  free(a);
  free(b);
  return rc;
}

/* Split s in place at blanks; more than MAX_TOKENS tokens: MAX_TOKENS+1. */
static size_t tokenize(char *s, char **tok) {
  size_t n = 0;
  char *save = NULL;
  for (char *p = strtok_r(s, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
    if (n == MAX_TOKENS)
      return MAX_TOKENS + 1;
    tok[n++] = p;
  }
  return n;
}

int np_report_ref_resolve(const char *body,
                          struct np_results_set *const *sets, size_t nsets,
                          char *buf, size_t len, struct np_errbuf *eb) {
  char copy[TOKEN_MAX * 4];
  char *tok[MAX_TOKENS];
  const char *kind = NULL;
  if (strlen(body) >= sizeof copy)
    return np_errbuf_set(eb, NP_EINVAL, "reference too long");
  snprintf(copy, sizeof copy, "%s", body);
  size_t nt = tokenize(copy, tok), t0 = 0;
  if (nt > MAX_TOKENS)
    return np_errbuf_set(eb, NP_EINVAL, "more than %d words", MAX_TOKENS);
  if (nt > 0 && (strcmp(tok[0], "ratio:") == 0 ||
                 strcmp(tok[0], "verdict:") == 0 ||
                 strcmp(tok[0], "ranges:") == 0 ||
                 strcmp(tok[0], "same:") == 0)) {
    tok[0][strlen(tok[0]) - 1] = '\0';
    kind = tok[0];
    t0 = 1;
  }
  size_t sl = nt > t0 ? strlen(tok[t0]) : 0;
  if (sl < 2 || tok[t0][sl - 1] != ':')
    return np_errbuf_set(eb, NP_EINVAL, "want 'SET:' first%s",
                         kind ? " after the kind" : "");
  tok[t0][sl - 1] = '\0';
  struct np_results_set *set = set_find(sets, nsets, tok[t0], eb);
  if (set == NULL)
    return NP_EINVAL;
  char **rest = tok + t0 + 1;
  size_t nr = nt - t0 - 1;
  if (nr == 0)
    return np_errbuf_set(eb, NP_EINVAL, "nothing after 'SET:'");
  if (kind)
    return resolve_pair(kind, set, rest, nr, buf, len, eb);
  if (strcmp(rest[0], "suite.json") == 0 ||
      strcmp(rest[0], "summary.json") == 0)
    return resolve_doc(set, rest, nr, buf, len, eb);
  return resolve_value(set, rest, nr, buf, len, eb);
}

int np_report_refs_expand(const char *text, size_t len, const char *file,
                          struct np_results_set *const *sets, size_t nsets,
                          FILE *out, struct np_errbuf *eb) {
  size_t i = 0, line = 1;
  while (i < len) {
    const char *open = NULL;
    for (size_t j = i; j + 1 < len; j++)
      if (text[j] == '{' && text[j + 1] == '{') {
        open = text + j;
        break;
      }
    size_t upto = open ? (size_t)(open - text) : len;
    for (size_t j = i; j < upto; j++)
      line += text[j] == '\n';
    fwrite(text + i, 1, upto - i, out);
    if (open == NULL)
      break;
    const char *body = open + 2, *close = NULL;
    for (const char *p = body; p + 1 < text + len; p++)
      if (p[0] == '}' && p[1] == '}') {
        close = p;
        break;
      }
    if (close == NULL)
      return np_errbuf_set(eb, NP_EINVAL, "%s:%zu: '{{' without '}}'", file,
                           line);
    char b[TOKEN_MAX * 4], val[256];
    struct np_errbuf reb = {{0}};
    size_t bl = (size_t)(close - body);
    if (bl >= sizeof b)
      return np_errbuf_set(eb, NP_EINVAL, "%s:%zu: reference too long", file,
                           line);
    memcpy(b, body, bl);
    b[bl] = '\0';
    int rc = np_report_ref_resolve(b, sets, nsets, val, sizeof val, &reb);
    if (rc != 0) {
      for (char *p = b; *p; p++)
        if (*p == '\n')
          *p = ' ';
      return np_errbuf_set(eb, rc, "%s:%zu: {{%s}}: %s", file, line, b,
                           reb.msg[0] ? reb.msg : np_strerror(rc));
    }
    fputs(val, out);
    for (const char *p = body; p < close; p++)
      line += *p == '\n';
    i = (size_t)(close + 2 - text);
  }
  return 0;
}
