/*
 * np_exec_series.h - a time series taken from another program's output
 * as it runs: `exec --interval S --interval-metric NAME=regex:PATTERN`.
 *
 * Every line of the kept stdout is matched on its own against PATTERN
 * (PCRE2, exactly one capture group, the first match of a line counts);
 * a matching line is one sample: its line number (from 1), its value
 * (the capture, by the same number rules as --metric) and the time
 * netproof-bench read that line from the pipe, seconds from the fork on
 * CLOCK_MONOTONIC (np_exec_spawn's line_t: the clock of the reader, so a
 * program's own buffering shows as lines arriving together).  A matching
 * line whose capture is not a number is counted as unparsed with the
 * first reason, never dropped.  The series of intervals cuts [0, wall)
 * into pieces of S seconds (the last one shorter): each has the count,
 * mean, min and max of the samples read within it, or a count of 0 and
 * nulls.
 *
 * One piece of code, used twice: by the benchmark when it writes the
 * record, and by the self-check, which scans the kept stdout again and
 * takes only the times from the record (nothing else can know them),
 * holding them to be non-decreasing and within the run.
 *
 * Ownership: np_exec_series_scan fills a struct the caller frees with
 * np_exec_series_free (accepts a zeroed struct).
 */
#ifndef NP_EXEC_SERIES_H
#define NP_EXEC_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"
#include "np_exec_metric.h"

#define NP_EXEC_MAX_SERIES 8          /* --interval-metric options     */
#define NP_EXEC_SERIES_MAX_SAMPLES 100000u /* samples kept per series  */
#define NP_EXEC_SERIES_MAX_INTERVALS 100000u /* wall / S at most this  */

/* One matching line. */
struct np_exec_sample {
  uint32_t line;   /* line number in the kept stdout, from 1     */
  double t;        /* when it was read, seconds from the fork    */
  double value;    /* the captured number                        */
};

/* The samples of one series. */
struct np_exec_series {
  struct np_exec_sample *v; /* samples in line order (malloc'd)        */
  size_t n;                 /* entries in v                            */
  uint64_t over_limit;      /* matching lines past the sample bound    */
  uint64_t unparsed;        /* matching lines whose capture failed     */
  uint32_t unparsed_line;   /* the first of them (0: none)             */
  char unparsed_reason[256]; /* its reason                             */
};

/* One interval of the series. */
struct np_exec_interval {
  double start, end;        /* seconds from the fork                   */
  uint64_t count;           /* samples read in [start, end)            */
  double mean, min, max;    /* of them (count > 0 only)                */
};

/* Scan len bytes of stdout with s (a regex spec on stdout), taking each
 * line's time from line_t[line - 1] when line_t is not NULL (nlines
 * entries; a sample beyond them gets NAN), else t = NAN.  0, or
 * NP_ENOMEM / NP_EINVAL (a pattern that does not compile). */
int np_exec_series_scan(const struct np_exec_metric_spec *s, const char *data,
                        size_t len, const double *line_t, size_t nlines,
                        struct np_exec_series *out);

void np_exec_series_free(struct np_exec_series *s);

/* How many intervals of interval seconds cover [0, wall): at least 1. */
size_t np_exec_series_nintervals(double interval, double wall);

/* Fill iv[0 .. np_exec_series_nintervals(interval, wall)) from s's
 * samples (a sample at t >= wall counts in the last interval). */
void np_exec_series_intervals(const struct np_exec_series *s, double interval,
                              double wall, struct np_exec_interval *iv);

#endif /* NP_EXEC_SERIES_H */
