/*
 * np_rudp_sums.c - the counters of endpoints and rounds added up (the
 * application's, the ARQ's, the FEC's): pure arithmetic, shared by the run
 * and the record builder, so the record links no socket code.
 */
#include "np_rudp_result.h"

void np_rudp_app_sub(struct np_rudp_app *acc, const struct np_rudp_app *a,
                     const struct np_rudp_app *b) {
  acc->sent = a->sent - b->sent;
  acc->server_received = a->server_received - b->server_received;
  acc->server_replied = a->server_replied - b->server_replied;
  acc->received = a->received - b->received;
  acc->content_errors = a->content_errors - b->content_errors;
  acc->sequence_errors = a->sequence_errors - b->sequence_errors;
  acc->send_errors = a->send_errors - b->send_errors;
  acc->msg_bytes = a->msg_bytes - b->msg_bytes;
}

void np_rudp_app_add(struct np_rudp_app *acc, const struct np_rudp_app *a) {
  acc->sent += a->sent;
  acc->server_received += a->server_received;
  acc->server_replied += a->server_replied;
  acc->received += a->received;
  acc->content_errors += a->content_errors;
  acc->sequence_errors += a->sequence_errors;
  acc->send_errors += a->send_errors;
  acc->msg_bytes += a->msg_bytes;
}

void np_rudp_arq_add_delta(struct np_arq_stats *acc,
                           const struct np_arq_stats *a,
                           const struct np_arq_stats *b) {
#define D(f) acc->f += a->f - b->f
  D(datagrams_sent); D(bytes_sent); D(datagrams_recv); D(bytes_recv);
  D(pure_acks_sent); D(ack_repeats); D(fragments_sent); D(retransmits);
  D(retx_rack); D(retx_tlp); D(retx_rto); D(spurious); D(spurious_rack);
  D(spurious_tlp); D(spurious_rto); D(rto_events); D(tlp_events);
  D(msgs_sent); D(msg_bytes_sent); D(msgs_delivered); D(msg_bytes_delivered);
  D(dup_fragments); D(out_of_window); D(malformed); D(recovered_in);
  D(rtt_samples); D(reo_wnd_grows); D(reordered_seen);
  D(acks_piggybacked); D(acks_delayed); D(msgs_delivered_early);
  D(protected_frags); D(spurious_protected); D(retx_head); D(spurious_head);
#undef D
  /* gauges: keep the largest seen across connections */
  if (a->srtt_ns > acc->srtt_ns) acc->srtt_ns = a->srtt_ns;
  if (a->rto_ns > acc->rto_ns) acc->rto_ns = a->rto_ns;
  if (a->reo_wnd_ns > acc->reo_wnd_ns) acc->reo_wnd_ns = a->reo_wnd_ns;
  if (a->cwnd > acc->cwnd) acc->cwnd = a->cwnd;
  if (a->min_rtt_ns && (!acc->min_rtt_ns || a->min_rtt_ns < acc->min_rtt_ns))
    acc->min_rtt_ns = a->min_rtt_ns;
}

void np_rudp_fec_add(struct np_fec_stats *acc, const struct np_fec_stats *a,
                     unsigned *n_added) {
#define S(f) acc->f += a->f
  S(data_sent); S(plain_sent); S(data_bytes); S(groups_encoded);
  S(groups_partial); S(groups_no_parity); S(groups_bare); S(parity_sent);
  S(parity_bytes);
  S(header_bytes); S(reports_sent); S(report_bytes); S(ratio_binds);
  S(budget_binds); S(output_errors); S(policy_changes); S(reports_in);
  S(data_in); S(parity_in); S(plain_in); S(dup_shards); S(late_shards);
  S(malformed); S(recovered); S(groups_recovered); S(groups_final);
  S(unrecoverable); S(rx_evictions); S(shards_expected); S(shards_lost);
  S(cache_hits); S(cache_misses); S(retained_bytes); S(retained_peak);
  S(budget); S(prealloc_bytes);
  S(repair_tail); S(win_redundant); S(win_dropped_eq); S(win_late_repair);
  S(win_eq_at_reset);
#undef S
  if (a->window > acc->window)
    acc->window = a->window;
  if (a->repair_per_window > acc->repair_per_window)
    acc->repair_per_window = a->repair_per_window;
  uint64_t msum = 0;
  for (unsigned m = 0; m <= NP_FEC_MAX_PARITY; m++) {
    acc->parity_hist[m] += a->parity_hist[m];
    msum += m * acc->parity_hist[m];
  }
  acc->parity_mean =
      acc->groups_encoded ? (double)msum / (double)acc->groups_encoded : 0.0;
  if (a->parity_max > acc->parity_max)
    acc->parity_max = a->parity_max;
  if (a->policy_m > acc->policy_m)
    acc->policy_m = a->policy_m;
  unsigned n = ++*n_added;
  acc->policy_loss += (a->policy_loss - acc->policy_loss) / n;
}
