/*
 * np_exec_metric.h - numbers taken from another program's output, and
 * the bounds they are held to.  One piece of code, used twice: by
 * `netproof-bench exec` when it writes a record, and by the result-set
 * self-check (resultset/np_results_check_exec.c) when it re-derives
 * every metric from the output kept beside the record.  So this library
 * links only np_common and PCRE2, never the benchmark.
 *
 * A metric spec (the text of --metric NAME=SPEC):
 *   json:/json/pointer[:unit]          stdout is one JSON document
 *   regex:PATTERN[:unit]               PCRE2 pattern, exactly one capture
 *                                      group, over the whole of stdout
 *   file:PATH:json:/pointer[:unit]     a file the program wrote (PATH is
 *   file:PATH:regex:PATTERN[:unit]     relative to its working directory)
 * The unit is the text after the last ':' when that text is empty or only
 * unit characters (letters, digits, % / _ . -, starting with a letter or
 * %, at most 15); a pattern that itself ends in such text after a ':'
 * takes a trailing ':' (empty unit).  Patterns are compiled with
 * PCRE2_MULTILINE, so ^ and $ match at line ends.
 *
 * A value is accepted only when there is exactly one: a pointer that does
 * not resolve or a pattern that does not match is "missing", a pattern
 * matching more than once "multiple", a JSON value that is not a number or
 * a capture that is not a plain decimal number (digits, sign, '.',
 * exponent; no thousands separators, no hex) "non-numeric", NaN or
 * Infinity "non-finite", output that is not JSON "not-json", a file that
 * could not be read "unreadable", and output cut at the size bound
 * "truncated".  Each is a failed check with its reason, never a zero.
 */
#ifndef NP_EXEC_METRIC_H
#define NP_EXEC_METRIC_H

#include <stddef.h>

#include "np_err.h"

#define NP_EXEC_NAME_MAX 40  /* metric name: [a-z][a-z0-9_]*, this long */
#define NP_EXEC_UNIT_MAX 15  /* unit text                              */
#define NP_EXEC_EXPR_MAX 1024 /* pointer or pattern                    */
#define NP_EXEC_PATH_MAX 512 /* file path as given                     */

enum np_exec_kind {
  NP_EXEC_KIND_JSON, /* RFC 6901 pointer into a JSON document */
  NP_EXEC_KIND_REGEX /* PCRE2 pattern with one capture group  */
};

enum np_exec_source {
  NP_EXEC_SOURCE_STDOUT, /* the program's standard output   */
  NP_EXEC_SOURCE_FILE    /* a file the program wrote (path) */
};

/* One parsed --metric. */
struct np_exec_metric_spec {
  char name[NP_EXEC_NAME_MAX + 1];  /* metric name                      */
  enum np_exec_source source;       /* where the text comes from        */
  enum np_exec_kind kind;           /* how the number is found          */
  char expr[NP_EXEC_EXPR_MAX + 1];  /* the pointer or the pattern       */
  char path[NP_EXEC_PATH_MAX + 1];  /* SOURCE_FILE: the path as given   */
  char unit[NP_EXEC_UNIT_MAX + 1];  /* "" when none                     */
};

/* Why a metric has no value (NP_EXEC_OK: it has one). */
enum np_exec_fail {
  NP_EXEC_OK,          /* exactly one finite number                    */
  NP_EXEC_MISSING,     /* pointer does not resolve / no match          */
  NP_EXEC_NONNUMERIC,  /* not a JSON number / not a decimal number     */
  NP_EXEC_NONFINITE,   /* NaN or Infinity                              */
  NP_EXEC_MULTIPLE,    /* the pattern matched more than once           */
  NP_EXEC_NOTJSON,     /* the text is not one JSON document            */
  NP_EXEC_UNREADABLE,  /* the file could not be read                   */
  NP_EXEC_TRUNCATED,   /* the text was cut at the size bound           */
  NP_EXEC_FAIL_COUNT_
};

/* "ok", "missing", "non-numeric", "non-finite", "multiple", "not-json",
 * "unreadable", "truncated" (the record's metrics[].failure). */
const char *np_exec_fail_name(enum np_exec_fail f);

/* The outcome of one metric. */
struct np_exec_metric_val {
  enum np_exec_fail fail; /* NP_EXEC_OK when value holds the number      */
  double value;           /* the number (NP_EXEC_OK only)                */
  char raw[64];           /* the text it came from, cut to fit; "" none  */
  unsigned matches;       /* regex: how many times the pattern matched   */
  char reason[256];       /* one line for checks[] and reasons[]         */
};

/* Parse "NAME=SPEC" (the --metric value) into *out (written on success).
 * NP_EUSAGE with "--metric 'TEXT': reason" in eb: a bad name, an unknown
 * kind, a pointer not starting with '/', a pattern that does not compile
 * or has not exactly one capture group. */
int np_exec_metric_parse(const char *text, struct np_exec_metric_spec *out,
                         struct np_errbuf *eb);

/* The SPEC part again, in the form parse reads back to the same spec
 * (always with the ":unit" part, possibly empty). */
void np_exec_metric_spec_text(const struct np_exec_metric_spec *s, char *buf,
                              size_t len);

/* Evaluate s over len bytes of data; truncated = the data was cut at the
 * output bound (then the value is not trusted: NP_EXEC_TRUNCATED).  Fills
 * *out and returns 0; NP_ENOMEM / NP_EINVAL (a spec parse would refuse)
 * when it could not evaluate at all. */
int np_exec_metric_eval(const struct np_exec_metric_spec *s, const char *data,
                        size_t len, int truncated,
                        struct np_exec_metric_val *out);

/* The n bytes at text (whitespace trimmed) as a number by the rules
 * above: v->fail NP_EXEC_OK with v->value, or the failure and its reason;
 * v->raw holds the text.  Used for one capture of a time-series line. */
void np_exec_metric_number(const char *text, size_t n,
                           struct np_exec_metric_val *v);

/* A file source that could not be read: *out says so with why. */
void np_exec_metric_unreadable(const struct np_exec_metric_spec *s,
                               const char *why,
                               struct np_exec_metric_val *out);

/* ---- bounds: --check NAME OP RHS -------------------------------------- */

enum np_exec_op { NP_EXEC_LE, NP_EXEC_GE, NP_EXEC_LT, NP_EXEC_GT, NP_EXEC_EQ };

/* One parsed --check: a metric against a number or a kernel counter's
 * change over the run (kernel:Udp.OutDatagrams, from the record's
 * kernel.delta). */
struct np_exec_bound {
  char metric[NP_EXEC_NAME_MAX + 1]; /* left side: a metric name        */
  enum np_exec_op op;                /* <= >= < > ==                    */
  int kernel;                        /* 1: the right side is a counter  */
  char counter[64];                  /* kernel counter name (kernel)    */
  double value;                      /* the number (not kernel)         */
};

/* "<=", ">=", "<", ">", "==". */
const char *np_exec_op_text(enum np_exec_op op);

/* Parse "NAME<=5", "loss<1.5", "packets<=kernel:Udp.OutDatagrams".
 * NP_EUSAGE with "--check 'TEXT': reason". */
int np_exec_bound_parse(const char *text, struct np_exec_bound *out,
                        struct np_errbuf *eb);

/* "NAME OP RHS" as parse reads it back. */
void np_exec_bound_text(const struct np_exec_bound *b, char *buf, size_t len);

/* Hold lhs (the metric; NAN when it has none) against rhs (the number, or
 * the counter's delta; NAN when the counter is absent).  Returns 1 when
 * the bound holds; detail gets the numbers compared. */
int np_exec_bound_eval(const struct np_exec_bound *b, double lhs, double rhs,
                       char *detail, size_t len);

#endif /* NP_EXEC_METRIC_H */
