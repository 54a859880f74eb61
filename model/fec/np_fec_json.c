/*
 * np_fec_json.c - the FEC counters as a cJSON object (typed calls only),
 * for the rudp record.  Key names are the struct field names.
 */
#include "np_fec_params.h"
#include "np_json.h"

#define ADD_U64(obj, st, name) np_json_add_number(obj, #name, (double)(st)->name)

cJSON *np_fec_stats_to_json(const struct np_fec_stats *st) {
  if (st == NULL)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  cJSON *hist = cJSON_CreateArray();
  if (o == NULL || hist == NULL)
    goto fail_delete;
  ADD_U64(o, st, data_sent);
  ADD_U64(o, st, plain_sent);
  ADD_U64(o, st, data_bytes);
  ADD_U64(o, st, groups_encoded);
  ADD_U64(o, st, groups_partial);
  ADD_U64(o, st, groups_no_parity);
  ADD_U64(o, st, groups_bare);
  ADD_U64(o, st, parity_sent);
  ADD_U64(o, st, parity_bytes);
  ADD_U64(o, st, header_bytes);
  ADD_U64(o, st, reports_sent);
  ADD_U64(o, st, report_bytes);
  ADD_U64(o, st, ratio_binds);
  ADD_U64(o, st, budget_binds);
  ADD_U64(o, st, output_errors);
  for (unsigned m = 0; m <= NP_FEC_MAX_PARITY; m++) {
    cJSON *n = cJSON_CreateNumber((double)st->parity_hist[m]);
    if (n == NULL || !cJSON_AddItemToArray(hist, n)) {
      cJSON_Delete(n);
      goto fail_delete;
    }
  }
  if (!cJSON_AddItemToObject(o, "parity_hist", hist))
    goto fail_delete;
  hist = NULL; /* owned by o now */
  ADD_U64(o, st, parity_max);
  np_json_add_number(o, "parity_mean", st->parity_mean);
  ADD_U64(o, st, policy_m);
  np_json_add_number(o, "policy_loss", st->policy_loss);
  ADD_U64(o, st, policy_changes);
  ADD_U64(o, st, reports_in);
  ADD_U64(o, st, data_in);
  ADD_U64(o, st, parity_in);
  ADD_U64(o, st, plain_in);
  ADD_U64(o, st, dup_shards);
  ADD_U64(o, st, late_shards);
  ADD_U64(o, st, malformed);
  ADD_U64(o, st, recovered);
  ADD_U64(o, st, groups_recovered);
  ADD_U64(o, st, groups_final);
  ADD_U64(o, st, unrecoverable);
  ADD_U64(o, st, rx_evictions);
  ADD_U64(o, st, shards_expected);
  ADD_U64(o, st, shards_lost);
  ADD_U64(o, st, cache_hits);
  ADD_U64(o, st, cache_misses);
  ADD_U64(o, st, retained_bytes);
  ADD_U64(o, st, retained_peak);
  ADD_U64(o, st, budget);
  if (st->window != 0) { /* window mode only: block records keep their keys */
    ADD_U64(o, st, window);
    ADD_U64(o, st, repair_per_window);
    ADD_U64(o, st, repair_tail);
    ADD_U64(o, st, win_redundant);
    ADD_U64(o, st, win_dropped_eq);
    ADD_U64(o, st, win_late_repair);
    ADD_U64(o, st, win_eq_at_reset);
  }
  if (ADD_U64(o, st, prealloc_bytes) == NULL)
    goto fail_delete;
  return o;

fail_delete:
  cJSON_Delete(hist);
  cJSON_Delete(o);
  return NULL;
}
