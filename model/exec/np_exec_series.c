/*
 * np_exec_series.c - samples of a time series, line by line, and their
 * intervals (see np_exec_series.h).  The pattern is compiled once per
 * scan, not once per line, with the same match limit as --metric.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "np_exec_series.h"

#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP_EXEC_SERIES_MATCH_LIMIT 10000000u

void np_exec_series_free(struct np_exec_series *s) {
  if (s == NULL)
    return;
  free(s->v);
  memset(s, 0, sizeof *s);
}

static int add_sample(struct np_exec_series *s, size_t *cap, uint32_t line,
                      double t, double value) {
  if (s->n >= NP_EXEC_SERIES_MAX_SAMPLES) {
    s->over_limit++;
    return 0;
  }
  if (s->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    struct np_exec_sample *d = realloc(s->v, ncap * sizeof *d);
    if (d == NULL)
      return NP_ENOMEM;
    s->v = d;
    *cap = ncap;
  }
  s->v[s->n++] = (struct np_exec_sample){line, t, value};
  return 0;
}

int np_exec_series_scan(const struct np_exec_metric_spec *s, const char *data,
                        size_t len, const double *line_t, size_t nlines,
                        struct np_exec_series *out) {
  struct np_exec_series r;
  memset(&r, 0, sizeof r);
  int err = 0, rc = 0;
  PCRE2_SIZE off = 0;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)s->expr, PCRE2_ZERO_TERMINATED,
                                 0, &err, &off, NULL);
  if (re == NULL)
    return NP_EINVAL;
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  pcre2_match_context *mc = pcre2_match_context_create(NULL);
  if (md == NULL || mc == NULL) {
    rc = NP_ENOMEM;
    goto cleanup;
  }
  pcre2_set_match_limit(mc, NP_EXEC_SERIES_MATCH_LIMIT);
  size_t cap = 0, at = 0;
  uint32_t line = 0;
  while (at < len) {
    const char *nl = memchr(data + at, '\n', len - at);
    size_t end = nl != NULL ? (size_t)(nl - data) : len;
    line++;
    int m = pcre2_match(re, (PCRE2_SPTR)(data + at), end - at, 0, 0, md, mc);
    if (m >= 0) {
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
      struct np_exec_metric_val v;
      if (ov[2] == PCRE2_UNSET) {
        memset(&v, 0, sizeof v);
        v.fail = NP_EXEC_MISSING;
        snprintf(v.reason, sizeof v.reason,
                 "the capture group took no part in the match");
      } else {
        np_exec_metric_number(data + at + ov[2], ov[3] - ov[2], &v);
      }
      if (v.fail == NP_EXEC_OK) {
        double t = line_t != NULL && line <= nlines ? line_t[line - 1] : NAN;
        if ((rc = add_sample(&r, &cap, line, t, v.value)) != 0)
          goto cleanup;
      } else if (r.unparsed++ == 0) {
        r.unparsed_line = line;
        snprintf(r.unparsed_reason, sizeof r.unparsed_reason, "%s", v.reason);
      }
    }
    at = end + 1;
  }
  *out = r;
  memset(&r, 0, sizeof r);
cleanup:
  np_exec_series_free(&r);
  pcre2_match_data_free(md);
  pcre2_match_context_free(mc);
  pcre2_code_free(re);
  return rc;
}

size_t np_exec_series_nintervals(double interval, double wall) {
  if (!(interval > 0) || !(wall > 0))
    return 1;
  double k = ceil(wall / interval);
  if (k < 1)
    k = 1;
  if (k > NP_EXEC_SERIES_MAX_INTERVALS)
    k = NP_EXEC_SERIES_MAX_INTERVALS;
  return (size_t)k;
}

void np_exec_series_intervals(const struct np_exec_series *s, double interval,
                              double wall, struct np_exec_interval *iv) {
  size_t k = np_exec_series_nintervals(interval, wall);
  for (size_t i = 0; i < k; i++) {
    iv[i] = (struct np_exec_interval){0};
    iv[i].start = (double)i * interval;
    iv[i].end = i + 1 == k ? wall : (double)(i + 1) * interval;
  }
  for (size_t j = 0; j < s->n; j++) {
    double t = s->v[j].t;
    if (!(t >= 0))
      continue; /* no time known: counted nowhere (the self-check says so) */
    size_t i = interval > 0 ? (size_t)(t / interval) : 0;
    if (i >= k)
      i = k - 1;
    struct np_exec_interval *x = &iv[i];
    double v = s->v[j].value;
    if (x->count == 0 || v < x->min)
      x->min = v;
    if (x->count == 0 || v > x->max)
      x->max = v;
    x->count++;
    x->mean += (v - x->mean) / (double)x->count; /* running mean, in order */
  }
  for (size_t i = 0; i < k; i++)
    if (iv[i].count == 0)
      iv[i].mean = iv[i].min = iv[i].max = NAN;
}
