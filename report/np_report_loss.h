/*
 * np_report_loss.h - loss as a count and a percentage of what was sent,
 * for every report table that shows lost echoes (issue 28: the summary
 * line and summary.json give both; the tables gave the count only).
 *
 * A run's loss percentage is 100 x counters.lost / counters.sent of its
 * record (0 for a run that sent nothing), the rule of the summary's
 * "lost_percent"; a configuration's is the median (min-max) of its runs'
 * percentages over the same runs as its count.
 */
#ifndef NP_REPORT_LOSS_H
#define NP_REPORT_LOSS_H

#include <stddef.h>

#include "np_results.h"

/* Median, min and max of the loss percentage over c's runs (passed ones
 * only when passed_only); NAN when no run has both counters.  Returns
 * how many runs went in. */
size_t np_report_loss_pct(const struct np_results_config *c, int passed_only,
                          double *med, double *min, double *max);

/* A table cell of lost echoes: the count's median (min-max) and the
 * percentage's, "64 (0-148); 0.13 % (0.00-0.30 %) of sent", "0; 0 % of
 * sent".  Counts NAN: "-". */
void np_report_loss_cell(char *buf, size_t len, const double cnt[3],
                         const double pct[3]);

#endif /* NP_REPORT_LOSS_H */
