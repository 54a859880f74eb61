/*
 * np_report_compare.h - `netproof-report compare BASE NEW`: the command
 * (np_report_compare.c) and the files it writes from a comparison
 * document (np_report_compare_out.c): compare.md, compare.csv,
 * compare.json and per metric assets/compare-<metric>[-K].svg (paired
 * bars of the medians with their intervals) and
 * assets/compare-<metric>-ratio[-K].svg (NEW / BASE with its interval,
 * the 1.0 line drawn).  The document is resultset/np_results_compare.h's;
 * the files are a pure function of it, so `compare --check` rebuilds the
 * document from the records and every file from the document.
 */
#ifndef NP_REPORT_COMPARE_H
#define NP_REPORT_COMPARE_H

#include <cjson/cJSON.h>

#include "np_bench_opt.h"
#include "np_err.h"
#include "np_ftree.h"

/* argv[0] is "compare".  Returns the exit code: 0 no regression (check:
 * clean), 1 a regression beyond the threshold, a set failing its
 * self-check or (check) a file that differs, 2 usage or unreadable input,
 * 3 run-time error, 5 (NP_EXIT_INCONCLUSIVE) no regression but a verdict
 * that could not conclude at its run counts (0 with
 * --allow-inconclusive). */
int np_report_compare_cli(int argc, char **argv);

/* compare's option table (--output --check --alpha --threshold --metrics
 * --base-only --new-only --map --allow-inconclusive --base-label
 * --new-label --format --help), operands BASE NEW. */
extern const struct np_bench_optset np_report_compare_optset;

/* Every output file of the comparison doc into a new tree *out.
 * NP_EPLOT (charts), NP_ENOMEM. */
int np_report_compare_render(const cJSON *doc, struct np_ftree **out,
                             struct np_errbuf *eb);

/* compare.html into t (np_report_compare_html.c): the comparison doc as
 * one offline page, its charts taken from t's assets/compare-*.svg.
 * 0 or NP_ENOMEM. */
int np_report_compare_html(const cJSON *doc, struct np_ftree *t,
                           struct np_errbuf *eb);

#endif /* NP_REPORT_COMPARE_H */
