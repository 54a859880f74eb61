/*
 * np_report_refs.h - figures in hand-written readings as references that
 * the report expands from the result sets (issue 33, "make it
 * mechanical").
 *
 * A reading (docs/performance/<page>.reading.md) keeps its prose, but a
 * measured figure in it is written as a reference between double braces,
 * resolved against the sets given to --pages:
 *
 *   {{SET: CONFIG QUANTITY [STAT] [FORMAT] [passed]}}
 *       a statistic over the runs of the configurations of SET whose id
 *       matches CONFIG (an id or an fnmatch glob, extended patterns such
 *       as @(raw|uring) included; the runs of all
 *       matches are pooled).  SET is a suite name (suite.json "suite")
 *       or a results folder name.  QUANTITY is a name of the quantity
 *       table (rps, p50, p99, cpu, rss, lost, kdrops, rcvbuf,
 *       runner_rcvbuf) or a JSON pointer into each run record
 *       ("/rudp/summary/network_overhead_percent/median").  STAT: median
 *       (default), min, max, range ("min–max", one value when both read
 *       the same), sum, n (runs), mmin / mmax / mrange (over the
 *       configurations' medians).  "passed" keeps passed runs only (by
 *       default every run counts: failed runs are measurements too).
 *   {{SET: suite.json POINTER [FORMAT]}}, {{SET: summary.json POINTER
 *       [FORMAT]}}   a number in the set's suite.json / summary.json.
 *   {{ratio: SET: A / B QUANTITY [FORMAT]}}   median of A / median of B
 *       (format x2 by default: "0.84×").
 *   {{verdict: SET: A vs B QUANTITY}}   compare's test of A against B
 *       (passed runs; two-sided Mann-Whitney U, a change when p < 0.05
 *       and the medians differ by more than 2 %, the words of compare's
 *       metric table): "significantly faster", "significantly slower",
 *       "not distinguishable at N + M runs" when no ordering of that many
 *       runs could reach p < 0.05, else "not significantly different".
 *   {{ranges: SET: A vs B QUANTITY}}   "ranges apart" when every run of
 *       one lies beyond every run of the other, else "ranges overlap".
 *   {{same: SET: A vs B QUANTITY}}   "identical in every run" when all
 *       runs of both read the same value, else "not identical".
 *
 * FORMAT is a name of the one format table (np_report_refs.c): auto
 * (whole numbers as int, others as sig3; pointers' default), int,
 * d1, d2, sig2, sig3, k, ms1, ms2, kib0, kib1, mib1, mib2, pct0, pct1,
 * mbit0, mbit1, x2;
 * each quantity has a default.  Numbers carry ',' thousands separators;
 * units stay in the prose.  A reference that does not resolve is an
 * error: NP_EINVAL with "FILE:LINE: {{...}}: reason" in eb.
 */
#ifndef NP_REPORT_REFS_H
#define NP_REPORT_REFS_H

#include <stddef.h>
#include <stdio.h>

#include "np_err.h"
#include "np_results.h"

/* Resolve one reference's body (the text between the braces) into buf.
 * 0, NP_EINVAL (reason in eb), NP_ENOMEM. */
int np_report_ref_resolve(const char *body,
                          struct np_results_set *const *sets, size_t nsets,
                          char *buf, size_t len, struct np_errbuf *eb);

/* Write text[0..len) to out with every reference expanded; `file` names
 * the reading in messages.  0, NP_EINVAL ("file:line: {{body}}: reason",
 * an unterminated "{{" too), NP_ENOMEM.  Nothing is written past the
 * first failing reference. */
int np_report_refs_expand(const char *text, size_t len, const char *file,
                          struct np_results_set *const *sets, size_t nsets,
                          FILE *out, struct np_errbuf *eb);

#endif /* NP_REPORT_REFS_H */
