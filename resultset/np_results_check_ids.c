/*
 * np_results_check_ids.c - is every run one run, where it claims to be?
 *
 * A run's identity is its path, runs/<config-id>/rep-<n>.json.  Two files
 * can still claim one identity (rep-1.json and rep-01.json both parse as
 * repetition 1), one record can be copied under a second repetition
 * number (its fingerprint - start and end times, round trips, mean RTT,
 * CPU times - equals the other's), or a record can be moved into another
 * configuration's folder (its command then is not the folder's
 * configuration's: np_results_check_suite.c).
 */
#include <stdio.h>
#include <string.h>

#include "np_results_check_int.h"

void np_chk__ids(struct np_results_check *c) {
  /* runs come in sorted path order: one configuration's are adjacent */
  for (size_t i = 0; i < c->nruns; i++) {
    const struct np_chk_run *r = &c->runs[i];
    size_t first = i;
    while (first > 0 && strcmp(c->runs[first - 1].cid, r->cid) == 0)
      first--;
    for (size_t j = first; j < i; j++) {
      const struct np_chk_run *o = &c->runs[j];
      if (o->rep == r->rep)
        np_chk__problem(c, r->file, "",
                        "duplicated run id %s/rep-%ld (also %s)", r->cid,
                        r->rep, o->file);
      else if (r->have_record && o->have_record &&
               r->fingerprint == o->fingerprint)
        np_chk__problem(c, r->file, "",
                        "same run as %s (equal times and measurements: one "
                        "run recorded twice)",
                        o->file);
    }
  }
}
