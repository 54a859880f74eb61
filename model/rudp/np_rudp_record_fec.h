/*
 * np_rudp_record_fec.h - the FEC parts of the rudp record and the
 * per-round figures (issue 8 "Metrics") the summary spreads are made of.
 * Every returned cJSON is new (caller owns it or adds it to a parent).
 */
#ifndef NP_RUDP_RECORD_FEC_H
#define NP_RUDP_RECORD_FEC_H

#include <cjson/cJSON.h>

#include "np_rudp_config.h"
#include "np_rudp_result.h"

/* rounds[i].fec: recoveries, unrecoverable groups, parity, policy, binds,
 * retained bytes samples, per-side counters. */
cJSON *np_rudp_fec_round_json(const struct np_rudp_config *cfg,
                              const struct np_rudp_round *r);
/* config.fec_params: group, parity, wait, budget, ratio, policy knobs. */
cJSON *np_rudp_fec_config_json(const struct np_rudp_config *cfg);
/* Adds the FEC header sizes to the record's header object. */
void np_rudp_fec_header_json(cJSON *header, const struct np_rudp_config *cfg);

/* Per-round figures, measurement + drain, both sides. */
double np_rudp_round_recoveries_per_1000(const struct np_rudp_round *r);
double np_rudp_round_unrecoverable(const struct np_rudp_round *r);
double np_rudp_round_retained_peak(const struct np_rudp_round *r);
double np_rudp_round_parity_mean(const struct np_rudp_round *r);
double np_rudp_round_policy_changes(const struct np_rudp_round *r);
/* Loss the relay applied: lost / copies reaching its loss stage, %. */
double np_rudp_round_applied_loss(const struct np_rudp_round *r);
/* (wire bytes of every endpoint / app message bytes - 1) x 100. */
double np_rudp_round_overhead(const struct np_rudp_round *r);
/* The summary line's figures of round i (np_rudp_summary_line). */
void np_rudp_round_summary_input(const struct np_rudp_round *r, uint32_t i,
                                 struct np_rudp_summary_input *in);

#endif /* NP_RUDP_RECORD_FEC_H */
