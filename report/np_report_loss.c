/*
 * np_report_loss.c - loss counts with their percentage of sent (see
 * np_report_loss.h).
 */
#include "np_report_loss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "np_json.h"
#include "np_report_fmt.h"

size_t np_report_loss_pct(const struct np_results_config *c, int passed_only,
                          double *med, double *min, double *max) {
  double *v = malloc((c->nruns + 1) * sizeof *v);
  size_t n = 0;
  *med = *min = *max = NAN;
  if (v == NULL)
    return 0;
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_results_run *r = &c->runs[i];
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(r->doc, "counters");
    double lost = np_json_get_number(k, "lost", NAN),
           sent = np_json_get_number(k, "sent", NAN);
    if ((passed_only && !r->passed) || !isfinite(lost) || !isfinite(sent))
      continue;
    v[n] = sent > 0 ? 100.0 * lost / sent : 0;
    *min = n == 0 || v[n] < *min ? v[n] : *min;
    *max = n == 0 || v[n] > *max ? v[n] : *max;
    n++;
  }
  if (n > 0)
    *med = np_results_median(v, n); /* np_results_stat's rule */
  free(v);
  return n;
}

/* "0.13", "12.5", "0" for none, "< 0.01" for a loss too small for two
 * decimals (it is not nothing). */
static void pct_text(char *buf, size_t len, double p) {
  if (!isfinite(p))
    snprintf(buf, len, "-");
  else if (p == 0)
    snprintf(buf, len, "0");
  else if (p < 0.005)
    snprintf(buf, len, "< 0.01");
  else
    np_fmt_num(buf, len, p, p >= 10 ? 1 : 2);
}

void np_report_loss_cell(char *buf, size_t len, const double cnt[3],
                         const double pct[3]) {
  char count[96], a[32], b[32], c[32];
  np_fmt_range(count, sizeof count, cnt[0], cnt[1], cnt[2], 0);
  if (!isfinite(cnt[0]) || !isfinite(pct[0])) {
    snprintf(buf, len, "%s", count);
    return;
  }
  pct_text(a, sizeof a, pct[0]);
  if (!isfinite(pct[1]) || !isfinite(pct[2]) || pct[1] == pct[2]) {
    snprintf(buf, len, "%s; %s %% of sent", count, a);
    return;
  }
  pct_text(b, sizeof b, pct[1]);
  pct_text(c, sizeof c, pct[2]);
  snprintf(buf, len, "%s; %s %% (%s-%s %%) of sent", count, a, b, c);
}
